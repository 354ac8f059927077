#!/bin/bash
# build/linux: a git tree with the pinned base as one commit (tagged 'base')
# and one commit per patch of patches/series, applied with 'git am'.
#
#   tree.sh          create or bring the tree up to date with patches/
#   tree.sh export   regenerate patches/ and patches/series from the tree
. "$(dirname "$0")/lib.sh"

STAMP=$TREE/.git/harness-series

series_files() {
	[ -f "$TOP/patches/series" ] || return 0
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$TOP/patches/series" |
		while read -r p _; do
			[ -f "$TOP/patches/$p" ] || die "patches/series names '$p', which is not in patches/"
			printf '%s\n' "$TOP/patches/$p"
		done
}

# A hash of the base version and every patch, in order.
series_hash() {
	{
		echo "$BASE_VERSION_USED"
		series_files | xargs -r cat
	} | sha256sum | cut -d' ' -f1
}

ensure_base() {
	# shellcheck source=/dev/null
	. "$TOP/base.pin"
	local have
	have=$(dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null || true)
	if [ "$have" != "$BASE_VERSION" ]; then
		say "installing the pinned base $BASE_PKG=$BASE_VERSION"
		local sudo=
		[ "$(id -u)" -eq 0 ] || sudo=sudo
		if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
			--no-install-recommends "$BASE_PKG=$BASE_VERSION" >/dev/null 2>&1; then
			$sudo apt-get update -q >/dev/null 2>&1 || true
			DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
				--no-install-recommends "$BASE_PKG=$BASE_VERSION" >/dev/null 2>&1 ||
				DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
					--no-install-recommends "$BASE_PKG" >/dev/null 2>&1 ||
				die "cannot install $BASE_PKG from Debian's archive"
		fi
		have=$(dpkg-query -W -f='${Version}' "$BASE_PKG")
	fi
	BASE_VERSION_USED=$have
	if [ "$have" != "$BASE_VERSION" ]; then
		warn "************************************************************"
		warn "pinned base $BASE_PKG $BASE_VERSION is no longer served;"
		warn "using $have instead. Results are NOT for the pinned base."
		warn "Update base.pin (version and sha256) once the series applies."
		warn "************************************************************"
		return 0
	fi
	[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL is missing although $BASE_PKG is installed"
	local sum
	sum=$(sha256sum "$BASE_TARBALL" | cut -d' ' -f1)
	[ "$sum" = "$BASE_SHA256" ] ||
		die "base tarball sha256 mismatch: $BASE_TARBALL is $sum, base.pin says $BASE_SHA256"
}

# Deterministic identity and dates, so the base commit has the same hash on
# every machine.
git_fixed() {
	GIT_AUTHOR_NAME=base GIT_AUTHOR_EMAIL=base@localhost \
		GIT_COMMITTER_NAME=base GIT_COMMITTER_EMAIL=base@localhost \
		GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		git -C "$TREE" "$@"
}

create_tree() {
	need_disk "$BUILD" 4000
	say "unpacking $BASE_TARBALL into build/linux (about a minute)"
	rm -rf "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -xJf "$BASE_TARBALL" -C "$TREE.tmp" --strip-components=1 ||
		die "cannot unpack $BASE_TARBALL (disk full?)"
	git -C "$TREE.tmp" init -q -b master
	git -C "$TREE.tmp" config gc.auto 0
	git -C "$TREE.tmp" config core.autocrlf false
	say "committing the base (about a minute)"
	# Debian's .gitignore ignores every top-level entry: add with -f.
	git -C "$TREE.tmp" add -A -f . >/dev/null
	TREE=$TREE.tmp git_fixed commit -q -m "base: $BASE_PKG $BASE_VERSION_USED"
	git -C "$TREE.tmp" tag base
	mv "$TREE.tmp" "$TREE"
}

# Debian's .gitignore ends with a block that ignores everything at the top
# level, so 'git status' would not show a new file and 'git add' would
# refuse it. Drop that block from the working copy only; skip-worktree
# keeps the committed .gitignore (and so the base) exactly as shipped.
unhide_new_files() {
	git -C "$TREE" update-index --no-skip-worktree .gitignore
	git -C "$TREE" checkout -q -- .gitignore
	sed -i '/^# Debian packaging: ignore everything/,$d' "$TREE/.gitignore"
	git -C "$TREE" update-index --skip-worktree .gitignore
}

tree_is_clean() {
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]
}

apply_series() {
	local want
	want=$(series_hash)
	if [ -f "$STAMP" ] && [ "$(cut -d' ' -f1 "$STAMP")" = "$want" ] &&
		[ "$(cut -d' ' -f2 "$STAMP")" = "$(git -C "$TREE" rev-parse HEAD)" ]; then
		say "build/linux already holds patches/ ($(git -C "$TREE" rev-list --count base..HEAD) patches)"
		return 0
	fi
	if [ -f "$STAMP" ] && [ -z "${FORCE:-}" ]; then
		if ! tree_is_clean || [ "$(cut -d' ' -f2 "$STAMP")" != "$(git -C "$TREE" rev-parse HEAD)" ]; then
			die "build/linux has work that is not in patches/: run 'make export' to keep it, or FORCE=1 to discard it"
		fi
	fi
	git -C "$TREE" am --abort >/dev/null 2>&1 || true
	git -C "$TREE" reset -q --hard base
	local n=0 p
	while read -r p; do
		[ -n "$p" ] || continue
		n=$((n + 1))
		say "applying ${p#"$TOP"/}"
		if ! git -C "$TREE" am -q "$p" >"$BUILD/am.log" 2>&1; then
			cat "$BUILD/am.log" >&2
			git -C "$TREE" am --abort >/dev/null 2>&1 || true
			die "patch does not apply to the base: ${p#"$TOP"/}"
		fi
	done < <(series_files)
	unhide_new_files
	say "applied $n patches on base $BASE_VERSION_USED"
	echo "$want $(git -C "$TREE" rev-parse HEAD)" >"$STAMP"
}

export_series() {
	[ -d "$TREE/.git" ] || die "no build/linux: run 'make tree' first"
	tree_is_clean || die "build/linux has uncommitted changes: commit them first"
	local out=$TOP/patches
	mkdir -p "$out"
	find "$out" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-cover-letter.patch' -delete
	# diff.suppressBlankEmpty: an empty context line is written empty, not
	# as a lone space, so checkpatch finds no trailing whitespace even when
	# it reads a tracked .patch file as a source file; git am takes both.
	git -C "$TREE" -c core.abbrev=12 -c diff.noprefix=false -c format.signature= \
		-c diff.suppressBlankEmpty=true \
		format-patch -q --zero-commit --no-signature --no-cover-letter \
		--no-numbered --no-renames --stat=80 -o "$out" base..HEAD >/dev/null
	{
		echo "# The series, in order; applied with 'git am' on the base in base.pin."
		local f
		for f in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
			if [ -f "$f" ] && [ "${f##*/}" != 0000-cover-letter.patch ]; then
				echo "${f##*/}"
			fi
		done
	} >"$out/series"
	write_cover_letter "$out/0000-cover-letter.patch"
	echo "$(series_hash) $(git -C "$TREE" rev-parse HEAD)" >"$STAMP"
	say "exported $(git -C "$TREE" rev-list --count base..HEAD) patches and the cover letter to patches/"
}

# The cover letter: cover-letter.in with the latest results filled in
# (results/ holds what 'make check' and 'make bench' last reported).
# Nothing in it depends on the time or the machine, so re-exporting an
# unchanged series leaves it unchanged.
write_cover_letter() {
	local dest=$1 n check bench
	n=$(git -C "$TREE" rev-list --count base..HEAD)
	# one row per target, and only the targets table of the benchmark:
	# the full tables are in results/ for whoever wants every row
	check=$(awk 'NR == 1 || NF == 0 { next }
		/ passed, / { total = $0; next }
		!($1 in p) { order[++n] = $1 }
		{ p[$1] += $(NF - 2); f[$1] += $(NF - 1); s[$1] += $NF }
		END {
			if (!n) exit 1
			printf "%-32s %7s %7s %7s\n", "TARGET", "PASSED", "FAILED", "SKIPPED"
			for (i = 1; i <= n; i++)
				printf "%-32s %7d %7d %7d\n", order[i], p[order[i]], f[order[i]], s[order[i]]
			print ""
			print total
		}' "$TOP/results/check-summary.txt" 2>/dev/null) ||
		check="(no 'make check' summary in results/ yet)"
	bench=$(sed -n '/^| x86_64 target /,$p' "$TOP/results/bench.md" 2>/dev/null)
	[ -n "$bench" ] || bench="(no 'make bench' targets in results/ yet)"
	{
		echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"
		echo "From: $(git -C "$TREE" log -1 --format='%an <%ae>' HEAD)"
		awk -v n="$n" -v base="$BASE_PKG $BASE_VERSION_USED" \
			-v check="$check" -v bench="$bench" \
			-v shortlog="$(git -C "$TREE" shortlog base..HEAD)" \
			-v diffstat="$(git -C "$TREE" diff --stat=72 base HEAD)" '
			{ gsub(/@N@/, n); gsub(/@BASE@/, base) }
			/^@CHECK@$/ { print check; next }
			/^@BENCH@$/ { print bench; next }
			/^@SHORTLOG@$/ { print shortlog; next }
			/^@DIFFSTAT@$/ { print diffstat; next }
			{ print }' "$TOP/cover-letter.in"
	} >"$dest"
}

main() {
	need_cmd git tar xz sha256sum
	ensure_base
	case "${1:-tree}" in
	tree)
		[ -d "$TREE/.git" ] || create_tree
		apply_series
		;;
	export) export_series ;;
	*) die "usage: tree.sh [tree|export]" ;;
	esac
}

main "$@"
