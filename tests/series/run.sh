#!/bin/bash
# The sed scripts here say '$a' (append at the end) in single quotes.
# shellcheck disable=SC2016
# Self-tests of 'make series-check': each case commits a deliberately
# broken patch on top of the series (with git commit-tree, so build/linux
# is not touched), runs the one check that must catch it, and expects a
# failure with a clear message. There is one case per check, plus a
# missing checkpatch, a KUnit test that does not build, which only a
# configuration made at each commit builds, and an arm64 patch that
# links only with the next one, which only arm64's nm link check sees.
# Needs build/linux ('make tree'). make check and make series-check run
# them before series-check itself: their patches sit on the series' head,
# where its bisect starts.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
TREE=$TOP/build/linux
SCRATCH=$TOP/build/series-selftest
ok=0 bad=0
caught=()

# commit_on PARENT MESSAGE PATH EDIT [PATH EDIT]...: a commit on PARENT
# that changes each PATH: EDIT is a sed script applied to PARENT's file,
# @REV to take the file from REV, or, for a file that PARENT does not
# have, the new file's text (printf's %b escapes).
commit_on() {
	local parent=$1 msg=$2 path edit blob tree
	shift 2
	export GIT_INDEX_FILE=$SCRATCH/index
	git -C "$TREE" read-tree "$parent"
	while [ "$#" -gt 0 ]; do
		path=$1 edit=$2
		shift 2
		if [ "${edit#@}" != "$edit" ]; then
			blob=$(git -C "$TREE" rev-parse "${edit#@}:$path")
		elif git -C "$TREE" cat-file -e "$parent:$path" 2>/dev/null; then
			blob=$(git -C "$TREE" show "$parent:$path" | sed "$edit" |
				git -C "$TREE" hash-object -w --stdin)
		else
			blob=$(printf '%b' "$edit" | git -C "$TREE" hash-object -w --stdin)
		fi
		git -C "$TREE" update-index --add --cacheinfo "100644,$blob,$path"
	done
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
	# CASES="name ..." runs only those (no pass is recorded then)
	[ -z "${CASES:-}" ] || [[ " $CASES " == *" $name "* ]] || return 0
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
	local head c stamp c1 c2
	head=$(git -C "$TREE" rev-parse HEAD)
	# a pass is kept for the same checker, tests, harness, tools and series
	stamp=$(cat "$TOP/scripts/series-check.sh" "$TOP/scripts/lib.sh" "$0" \
		<(gcc --version; aarch64-linux-gnu-gcc --version; sparse --version 2>&1) \
		<(git -C "$TREE" rev-parse "HEAD^{tree}" "base^{tree}") | sha256sum | cut -d' ' -f1)
	if [ -f "$SCRATCH/pass" ] && [ "$(head -n1 "$SCRATCH/pass")" = "$stamp" ]; then
		tail -n +2 "$SCRATCH/pass"
		return 0
	fi

	c=$(commit_on "$head" "mm/secretmem: add a comment with a trailing space" \
		mm/secretmem.c 's|^static atomic_t secretmem_users;$|& /* users */ |')
	expect checkpatch "trailing whitespace" checkpatch "$head" "$c"

	# a clean patch, checked by a checkpatch that prints nothing
	c=$(commit_on "$head" "mm/secretmem: say what the users counter is for" \
		mm/secretmem.c 's|^static atomic_t secretmem_users;$|& /* blocks hibernation */|')
	CHECKPATCH=/bin/true expect checkpatch-missing "checkpatch printed no 'total:' line" \
		checkpatch "$head" "$c"
	CHECKPATCH=$SCRATCH/no-such-checkpatch.pl expect checkpatch-absent \
		"checkpatch printed no 'total:' line" checkpatch "$head" "$c"

	c=$(commit_on "$head" "Fix the users counter comment" \
		mm/secretmem.c 's|^static atomic_t secretmem_users;$|& /* blocks hibernation */|')
	expect commits "subject is not 'subsystem: summary'" commits "$head" "$c"

	c=$(commit_on "$head" "memfd: add a struct that needs libc types" \
		include/uapi/linux/memfd.h 's|^#define MFD_SECRET_MODE_UNCACHED.*|&\nstruct mfd_secret_owner { pid_t pid; };|')
	expect uapi "is not self-contained" uapi "$head" "$c"

	c=$(commit_on "$head" "mm/secretmem: document secretmem_available() wrongly" \
		mm/secretmem.c 's|^static bool secretmem_available(void)$|/**\n * secretmem_available() - can secret memory be used at all\n * @nowhere: a parameter that the function does not have\n */\n&|')
	expect kernel-doc "kernel-doc: mm/secretmem.c" kernel-doc "$head" "$c"

	c=$(commit_on "$head" "Documentation: add a page with a short title underline" \
		Documentation/userspace-api/secretmem-selftest.rst \
		'A page with a title\n=====\n\nIts underline is shorter than its title.\n')
	expect rst "rst: Documentation/userspace-api/secretmem-selftest.rst" rst "$head" "$c"

	c=$(commit_on "$head" "secretmem: add notes that no MAINTAINERS section covers" \
		secretmem-selftest-notes.txt 'Notes in a place that no MAINTAINERS section covers.\n')
	expect maintainers "names no section but THE REST" maintainers "$head" "$c"

	c=$(commit_on "$head" "mm/secretmem: add a function without a prototype" \
		mm/secretmem.c 's|^static bool secretmem_available(void)$|int secretmem_selftest_unused(void)\n{\n\treturn 0;\n}\n\n&|')
	SERIES_ARCHES=x86_64 expect sparse "W=1/sparse (x86_64): new warnings" sparse "$head" "$c"

	# code under an option that the test configurations leave off and
	# distributions turn on: only Debian's configuration builds it
	c=$(commit_on "$head" "mm/secretmem: add a helper that only memory hotplug builds" \
		mm/secretmem.c 's|^static bool secretmem_available(void)$|#ifdef CONFIG_MEMORY_HOTPLUG\nstatic int secretmem_selftest_hotplug_unused(void)\n{\n\treturn 0;\n}\n#endif\n\n&|')
	SERIES_ARCHES=x86_64 expect distro "distro W=1 (x86_64): new warnings" distro "$head" "$c"

	c1=$(commit_on "$head" "mm/secretmem: call a helper that a later patch adds" \
		mm/secretmem.c 's|^	if (!secretmem_available())$|	secretmem_selftest_helper();\n&|')
	c2=$(commit_on "$c1" "mm/secretmem: add the helper" \
		mm/secretmem.c 's|^static bool secretmem_available(void)$|static void secretmem_selftest_helper(void)\n{\n}\n\n&|')
	expect does-not-build-alone "patch 1 'mm/secretmem: call a helper" bisect:x86_64 "$head" "$c2"

	c=$(commit_on "$head" "arm64: mm: use a symbol that does not exist" \
		arch/arm64/mm/pageattr.c '$a\
\
int secretmem_selftest_broken(void)\
{\
\treturn secretmem_selftest_no_such_symbol;\
}')
	# the message names the compiler's error, not the first line with
	# "error" in it (a new arm64 objdir builds fdt_strerror.o early)
	expect bisect-arm64 \
		"bisect arm64: patch 1 'arm64: mm: use a symbol that does not exist' does not build: .*secretmem_selftest_no_such_symbol" \
		bisect:arm64 "$head" "$c"

	# an arm64 patch that links only with the next one: arm64 builds
	# vmlinux at the newest commit only, so the older one's objects
	# must fail the nm link check
	c1=$(commit_on "$head" "arm64: mm: call a helper that a later patch adds" \
		arch/arm64/mm/pageattr.c '$a\
\
int secretmem_selftest_helper(void);\
int secretmem_selftest_caller(void);\
\
int secretmem_selftest_caller(void)\
{\
\treturn secretmem_selftest_helper();\
}')
	c2=$(commit_on "$c1" "arm64: mm: add the helper" \
		arch/arm64/mm/pageattr.c '$a\
\
int secretmem_selftest_helper(void)\
{\
\treturn 0;\
}')
	expect does-not-link-alone-arm64 \
		"arm64/mm/pageattr.o uses secretmem_selftest_helper, which nothing defines at this commit" \
		bisect:arm64 "$head" "$c2"

	# a call from code that every configuration builds into mm/secretmem.c,
	# which CONFIG_SECRETMEM=n leaves out: only the link check of the
	# switched-off configuration sees it
	c=$(commit_on "$head" "memfd: count secret memory through a secretmem helper" \
		mm/secretmem.c '$a\
\
unsigned long secretmem_selftest_count(void)\
{\
\treturn 0;\
}' \
		mm/memfd.c '$a\
\
unsigned long secretmem_selftest_count(void);\
unsigned long memfd_selftest_count(void)\
{\
\treturn secretmem_selftest_count();\
}')
	expect bisect-nosecretmem "mm/memfd.o uses secretmem_selftest_count, which is built only with the option on" \
		bisect:x86_64-nosecretmem "$head" "$c"

	# a declaration made for every configuration and a stub taken away:
	# memfd.c then calls the secretmem.c function that only
	# CONFIG_MEMFD_SECRETMEM builds, which compiles and does not link
	c=$(commit_on "$head" "memfd: declare secretmem_file_seals() for every configuration" \
		include/linux/memfd.h '/^static inline unsigned int \*secretmem_file_seals(struct file \*file)$/,/^}$/d
s|^#ifdef CONFIG_MEMFD_SECRETMEM$|unsigned int *secretmem_file_seals(struct file *file);\n\n&|')
	expect bisect-nomemfdsecret "mm/memfd.o uses secretmem_file_seals, which is built only with the option on" \
		bisect:x86_64-nomemfdsecret "$head" "$c"

	# The KUnit test's Kconfig entry appears within the range, with a test
	# that does not build: only a configuration made at that commit from
	# the fragments turns it on and builds it.
	c1=$(commit_on "$head" "mm/secretmem: drop the KUnit tests' Kconfig entry" \
		mm/Kconfig '/^config SECRETMEM_KUNIT_TEST$/,/^config /{/^config ANON_VMA_NAME$/!d}')
	c2=$(commit_on "$c1" "mm/secretmem: bring the KUnit tests back, broken" \
		mm/Kconfig "@$head" \
		mm/secretmem_test.c '$a\
\
static void __maybe_unused secretmem_test_broken(void)\
{\
\tsecretmem_selftest_no_such_helper();\
}')
	expect kunit-does-not-build "patch 1 'mm/secretmem: bring the KUnit tests back, broken' does not build" \
		bisect:x86_64 "$c1" "$c2"

	echo "series self-tests: $ok ok, $bad wrong"
	[ "$bad" -eq 0 ] || return 1
	[ -z "${CASES:-}" ] || return 0
	{ echo "$stamp"; printf '%s\n' "${caught[@]}"; echo "series self-tests: $ok ok (cached)"; } >"$SCRATCH/pass"
}

main
