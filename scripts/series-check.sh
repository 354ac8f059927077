#!/bin/bash
# make series-check: would mm maintainers take the series as it stands?
#   checkpatch  scripts/checkpatch.pl --strict on every patch: nothing at all
#   commits     "subsystem: summary" of at most 75 characters, a body, Signed-off-by
#   uapi        changed uapi headers compile on their own (C90 and C++)
#   kernel-doc  scripts/kernel-doc -none on changed C files: no warnings
#   rst         new Documentation pages pass docutils with --halt=warning
#   maintainers scripts/get_maintainer.pl names a section (not just THE
#               REST) for every patch, and SECRET MEMORY exists
#   bisect      every patch builds in order for x86_64 and arm64 (test
#               configs), and x86_64 with SECRETMEM=n and MEMFD_SECRETMEM=n
#   sparse      W=1 and sparse (C=2) say nothing new on the changed files
# ONLY="checkpatch commits" runs just those checks (names as above;
# bisect runs all four builds, bisect:x86_64 one of them), uncached.
# SERIES_FROM..SERIES_HEAD (commits of build/linux; default base..HEAD)
# and SERIES_PATCHES (a folder with a series file) check something other
# than the exported series; the harness self-tests use them on
# deliberately broken patches.
# Prints "series<TAB>CHECK<TAB>passed<TAB>failed<TAB>0" rows on stdout and
# one line per problem on stderr; exit 1 on any problem. The result is
# cached per series, configs and harness, so a warm run costs seconds.
. "$(dirname "$0")/lib.sh"

WORK=$BUILD/series-check
WT=$WORK/src
bad=0

row() { printf 'series\t%s\t%d\t%d\t0\n' "$1" "$2" "$3"; }
problem() {
	printf 'series: %s\n' "$*" >&2
	bad=1
}

# The series' commits, oldest first, in a worktree of build/linux so that
# the developer's tree is never touched.
prepare_worktree() {
	[ -d "$TREE/.git" ] || die "no build/linux: run 'make tree' first"
	if [ ! -d "$WT" ]; then
		say "series-check: creating a worktree of build/linux (about a minute)"
		mkdir -p "$WORK"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$WT" base
	fi
	HEAD_REF=${SERIES_HEAD:-HEAD}
	FROM=${SERIES_FROM:-base}
	PATCHES=${SERIES_PATCHES:-$TOP/patches}
	mapfile -t COMMITS < <(git -C "$TREE" rev-list --reverse "$FROM..$HEAD_REF")
	[ "${#COMMITS[@]}" -gt 0 ] || die "series-check: the series is empty"
}

check_checkpatch() {
	local p out line n=0 f=0
	# spdxcheck.py needs Debian's python3-ply and python3-git
	for p in $(series_patches); do
		out=$(PATH=/usr/bin:$PATH "$TREE/scripts/checkpatch.pl" --strict --terse \
			--no-summary "$p" 2>&1 | grep -E ': (ERROR|WARNING|CHECK):' || true)
		if [ -n "$out" ]; then
			f=$((f + 1))
			while read -r line; do
				problem "checkpatch: ${line#"$TOP"/}"
			done < <(head -n 5 <<<"$out")
		else
			n=$((n + 1))
		fi
	done
	row checkpatch "$n" "$f"
}

series_patches() {
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$PATCHES/series" |
		sed "s|^|$PATCHES/|"
}

check_commits() {
	local c subj body n=0 f=0 why
	for c in "${COMMITS[@]}"; do
		subj=$(git -C "$TREE" log -1 --format=%s "$c")
		body=$(git -C "$TREE" log -1 --format=%b "$c")
		why=
		[[ "$subj" =~ ^[A-Za-z0-9_./,+-]+(\ [A-Za-z0-9_./,+-]+)?:\ [^\ ] ]] || why="subject is not 'subsystem: summary'"
		[ "${#subj}" -le 75 ] || why="subject has ${#subj} characters (at most 75)"
		grep -q '^Signed-off-by: .* <.*@.*>$' <<<"$body" || why="no Signed-off-by"
		[ "$(grep -cv -e '^Signed-off-by:' -e '^[[:space:]]*$' <<<"$body")" -ge 3 ] ||
			why="the body does not say why (fewer than three lines)"
		if [ -n "$why" ]; then
			f=$((f + 1))
			problem "commit '$subj': $why"
		else
			n=$((n + 1))
		fi
	done
	row commits "$n" "$f"
}

changed_files() { git -C "$TREE" diff --name-only --diff-filter="${2:-ACMR}" "$FROM" "$HEAD_REF" -- "$1"; }

# Each changed uapi header must compile alone, as C90 and as C++.
check_uapi() {
	local hdrs=$WORK/uapi h rel n=0 f=0 out
	rm -rf "$hdrs"
	git -C "$WT" checkout -q --detach "${COMMITS[-1]}"
	make -s -C "$WT" O="$WORK/hdr" INSTALL_HDR_PATH="$hdrs" headers_install >/dev/null 2>&1 ||
		{ problem "uapi: make headers_install failed"; row uapi 0 1; return; }
	for h in $(changed_files 'include/uapi/*.h'); do
		rel=${h#include/uapi/}
		for lang in "gcc -std=c90 -x c" "g++ -std=c++11 -x c++"; do
			if out=$(printf '#include <%s>\n' "$rel" | $lang -Wall -Werror -fsyntax-only \
				-I"$hdrs/include" - 2>&1); then
				n=$((n + 1))
			else
				f=$((f + 1))
				problem "uapi: $h is not self-contained (${lang%% *}): $(grep -m1 'error' <<<"$out")"
			fi
		done
	done
	row uapi "$n" "$f"
}

check_kernel_doc() {
	local c out n=0 f=0
	for c in $(changed_files '*.[ch]' | grep -v '^tools/'); do
		out=$(git -C "$TREE" show "$HEAD_REF:$c" >"$WORK/kdoc.${c##*.}" &&
			"$TREE/scripts/kernel-doc" -none "$WORK/kdoc.${c##*.}" 2>&1)
		if [ -n "$out" ]; then
			f=$((f + 1))
			problem "kernel-doc: $c: $(head -n1 <<<"$out")"
		else
			n=$((n + 1))
		fi
	done
	row kernel-doc "$n" "$f"
}

check_rst() {
	local r out n=0 f=0
	need_cmd rst2html
	for r in $(changed_files 'Documentation/*.rst' A); do
		git -C "$TREE" show "$HEAD_REF:$r" >"$WORK/doc.rst"
		if out=$(rst2html --halt=warning --report=warning "$WORK/doc.rst" 2>&1 >/dev/null); then
			n=$((n + 1))
		else
			f=$((f + 1))
			problem "rst: $r: $(head -n1 <<<"$out")"
		fi
	done
	row rst "$n" "$f"
}

check_maintainers() {
	local p out owners n=0 f=0
	for p in $(series_patches); do
		out=$(cd "$TREE" && ./scripts/get_maintainer.pl --no-git --no-git-fallback \
			--sections "$p" 2>/dev/null)
		# section names are the unindented lines; THE REST is no owner
		owners=$(grep -v -e '^[[:space:]]' -e '^$' -e '^THE REST$' -e ':' <<<"$out" || true)
		if [ -n "$owners" ]; then
			n=$((n + 1))
		else
			f=$((f + 1))
			problem "maintainers: get_maintainer.pl names no section but THE REST for ${p#"$TOP"/}"
		fi
	done
	out=$(cd "$TREE" && ./scripts/get_maintainer.pl --no-git --no-git-fallback \
		--sections "$(series_patches | tail -n1)" 2>/dev/null)
	grep -q '^SECRET MEMORY$' <<<"$out" ||
		problem "maintainers: the SECRET MEMORY section is not in MAINTAINERS"
	row maintainers "$n" "$f"
}

# Build every commit of the series in order in one O= directory per
# configuration, so each step is incremental.
bisect_config() {
	local name=$1 arch=$2 o=$WORK/obj-$1 c i=0 n=0 f=0 subj
	local tweak=("${@:3}")
	load_arch "$arch"
	mkdir -p "$o"
	for c in "$FROM" "${COMMITS[@]}"; do
		git -C "$WT" checkout -q --detach "$c"
		if [ "$c" = "$FROM" ] || [ ! -f "$o/.config" ]; then
			kmake_in "$o" -s tinyconfig >/dev/null
			(cd "$o" && "$WT/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" \
				"$TOP/configs/base.config" "$TOP/$CONFIG_FRAGMENT") >/dev/null
		fi
		[ "${#tweak[@]}" -eq 0 ] || "$WT/scripts/config" --file "$o/.config" "${tweak[@]}"
		kmake_in "$o" -s olddefconfig >/dev/null
		if [ "$c" = "$FROM" ]; then
			kmake_in "$o" -j"$(nproc)" "$(basename "$KERNEL_IMAGE")" >"$o/build-base.log" 2>&1 ||
				{ problem "bisect $name: $FROM does not build (log: ${o#"$TOP"/}/build-base.log)"; return; }
			continue
		fi
		i=$((i + 1))
		subj=$(git -C "$WT" log -1 --format=%s)
		if kmake_in "$o" -j"$(nproc)" "$(basename "$KERNEL_IMAGE")" >"$o/build-$i.log" 2>&1; then
			n=$((n + 1))
		else
			f=$((f + 1))
			problem "bisect $name: patch $i '$subj' does not build: $(grep -m1 -E 'error|Error' "$o/build-$i.log")"
		fi
	done
	row "bisect:$name" "$n" "$f"
}

bisect_all() {
	say "series-check: building every patch in order (x86_64, arm64, SECRETMEM=n, MEMFD_SECRETMEM=n)"
	bisect_config x86_64 x86_64
	bisect_config arm64 arm64
	bisect_config x86_64-nosecretmem x86_64 --disable SECRETMEM
	bisect_config x86_64-nomemfdsecret x86_64 --disable MEMFD_SECRETMEM
}

kmake_in() {
	local o=$1
	shift
	make -C "$WT" O="$o" ARCH="$KARCH" CROSS_COMPILE="$CROSS_COMPILE" \
		CC="ccache ${CROSS_COMPILE}gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP='2000-01-01' KBUILD_BUILD_USER=harness \
		KBUILD_BUILD_HOST=harness "$@"
}

# W=1 and sparse on the changed C files that the x86_64 test config
# builds: the warnings at the series' head, minus those the base has.
warnings_at() {
	local o=$1 c=$2
	shift 2
	git -C "$WT" checkout -q --detach "$c"
	(cd "$WT" && touch "${@/%.o/.c}")
	kmake_in "$o" W=1 C=2 "$@" 2>&1 | { grep -E 'warning:|error:' || true; } |
		sed -E 's/:[0-9]+:([0-9]+:)?/:/' | sort -u
}

check_sparse() {
	local o=$WORK/obj-x86_64 objs=() c new
	need_cmd sparse
	load_arch x86_64
	for c in $(changed_files '*.c' M | grep -v '^tools/'); do
		[ -f "$o/${c%.c}.o" ] && objs+=("${c%.c}.o")
	done
	[ "${#objs[@]}" -gt 0 ] || { row sparse 0 0; return; }
	# one after the other: both use the same worktree and O= directory
	warnings_at "$o" "$FROM" "${objs[@]}" >"$WORK/warnings-before"
	warnings_at "$o" "${COMMITS[-1]}" "${objs[@]}" >"$WORK/warnings-after"
	new=$(comm -13 "$WORK/warnings-before" "$WORK/warnings-after")
	if [ -n "$new" ]; then
		problem "W=1/sparse: new warnings: $(head -n1 <<<"$new") ($(wc -l <<<"$new") in all)"
		row sparse 0 1
	else
		row sparse "${#objs[@]}" 0
	fi
}

stamp_inputs() {
	{
		cat "$TOP/patches/series"
		series_patches | xargs cat
		cat "$TOP/configs/base.config" "$TOP/configs/"*64.config "$0"
	} | sha256sum | cut -d' ' -f1
}

run_only() {
	local name
	for name in $ONLY; do
		case "$name" in
		checkpatch | commits | uapi | kernel-doc | rst | maintainers | sparse)
			"check_${name//-/_}"
			;;
		bisect) bisect_all ;;
		bisect:x86_64) bisect_config x86_64 x86_64 ;;
		*) die "series-check: no check called '$name'" ;;
		esac
	done
	return "$bad"
}

main() {
	local stamp=$WORK/result.stamp want
	prepare_worktree
	if [ -n "${ONLY:-}" ]; then
		run_only
		return
	fi
	want=$(stamp_inputs)
	if [ -f "$stamp" ] && [ "$(head -n1 "$stamp")" = "$want" ]; then
		say "series-check: nothing changed since the last pass, reusing it"
		tail -n +2 "$stamp"
		return 0
	fi
	export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1
	local out
	out=$(
		check_checkpatch
		check_commits
		check_uapi
		check_kernel_doc
		check_rst
		check_maintainers
		bisect_all
		check_sparse
		exit "$bad"
	) || bad=1
	printf '%s\n' "$out"
	if [ "$bad" -eq 0 ]; then
		{ echo "$want"; printf '%s\n' "$out"; } >"$stamp"
	else
		rm -f "$stamp"
	fi
	return "$bad"
}

main
