#!/bin/bash
# Self-tests of 'make series-check': each case commits a deliberately
# broken patch on top of the series (with git commit-tree, so build/linux
# is not touched), runs the one check that must catch it, and expects a
# failure with a clear message. Needs build/linux ('make tree').
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
TREE=$TOP/build/linux
SCRATCH=$TOP/build/series-selftest
ok=0 bad=0
caught=()

# commit_on PARENT MESSAGE PATH SED-SCRIPT: a commit that edits one file
commit_on() {
	local parent=$1 msg=$2 path=$3 script=$4 blob tree
	export GIT_INDEX_FILE=$SCRATCH/index
	git -C "$TREE" read-tree "$parent"
	blob=$(git -C "$TREE" show "$parent:$path" | sed "$script" |
		git -C "$TREE" hash-object -w --stdin)
	git -C "$TREE" update-index --cacheinfo "100644,$blob,$path"
	tree=$(git -C "$TREE" write-tree)
	unset GIT_INDEX_FILE
	# a body, so that only the defect under test is wrong with the patch
	printf '%s\n\nA deliberately broken patch for the series-check self-tests.\nIt must be caught, with a message that names what is wrong.\nNothing else about it should be reported.\n\nSigned-off-by: Self Test <self@test.invalid>\n' "$msg" |
		git -C "$TREE" commit-tree "$tree" -p "$parent"
}

# expect NAME WANT CHECK FROM HEAD: series-check ONLY=CHECK on FROM..HEAD
# must fail and say WANT
expect() {
	local name=$1 want=$2 check=$3 from=$4 head=$5 out line rc=0
	rm -rf "$SCRATCH/patches"
	mkdir -p "$SCRATCH/patches"
	git -C "$TREE" format-patch -q -o "$SCRATCH/patches" "$from..$head"
	find "$SCRATCH/patches" -name '*.patch' -printf '%f\n' | sort >"$SCRATCH/patches/series"
	out=$(ONLY=$check SERIES_FROM=$from SERIES_HEAD=$head SERIES_PATCHES=$SCRATCH/patches \
		"$TOP/scripts/series-check.sh" 2>&1) || rc=$?
	if [ "$rc" -ne 0 ] && grep -q -- "$want" <<<"$out"; then
		ok=$((ok + 1))
		caught+=("series self-test '$name': caught: $(grep -m1 -- "$want" <<<"$out")")
		echo "${caught[-1]}"
	else
		bad=$((bad + 1))
		echo "series self-test '$name': NOT caught (exit $rc); output:" >&2
		while IFS= read -r line; do echo "    $line"; done <<<"$out" >&2
	fi
}

main() {
	[ -d "$TREE/.git" ] || { echo "series self-tests need build/linux: run 'make tree'" >&2; exit 1; }
	mkdir -p "$SCRATCH"
	local head ws c1 c2 hdr stamp
	head=$(git -C "$TREE" rev-parse HEAD)
	# a pass is kept for the same checker, tests and series
	stamp=$(cat "$TOP/scripts/series-check.sh" "$0" <(git -C "$TREE" rev-parse "HEAD^{tree}") |
		sha256sum | cut -d' ' -f1)
	if [ -f "$SCRATCH/pass" ] && [ "$(head -n1 "$SCRATCH/pass")" = "$stamp" ]; then
		tail -n +2 "$SCRATCH/pass"
		return 0
	fi

	ws=$(commit_on "$head" "mm/secretmem: add a comment with a trailing space" \
		mm/secretmem.c 's|^static atomic_t secretmem_users;$|& /* users */ |')
	expect whitespace "trailing whitespace" checkpatch "$head" "$ws"

	hdr=$(commit_on "$head" "memfd: add a struct that needs libc types" \
		include/uapi/linux/memfd.h 's|^#define MFD_SECRET_MODE_UNCACHED.*|&\nstruct mfd_secret_owner { pid_t pid; };|')
	expect uapi-not-self-contained "is not self-contained" uapi "$head" "$hdr"

	c1=$(commit_on "$head" "mm/secretmem: call a helper that a later patch adds" \
		mm/secretmem.c 's|^	if (!secretmem_available())$|	secretmem_selftest_helper();\n&|')
	c2=$(commit_on "$c1" "mm/secretmem: add the helper" \
		mm/secretmem.c 's|^static bool secretmem_available(void)$|static void secretmem_selftest_helper(void)\n{\n}\n\n&|')
	expect does-not-build-alone "patch 1 'mm/secretmem: call a helper" bisect:x86_64 "$head" "$c2"

	echo "series self-tests: $ok ok, $bad wrong"
	[ "$bad" -eq 0 ] || return 1
	{ echo "$stamp"; printf '%s\n' "${caught[@]}"; echo "series self-tests: $ok ok (cached)"; } >"$SCRATCH/pass"
}

main
