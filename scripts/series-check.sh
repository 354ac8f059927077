#!/bin/bash
# make series-check: would mm maintainers take the series as it stands?
#   checkpatch  scripts/checkpatch.pl --strict on every patch: it must say
#               "total: 0 errors, 0 warnings, 0 checks" for each
#   commits     "subsystem: summary" of at most 75 characters, a body, Signed-off-by
#   uapi        changed uapi headers compile on their own (C90 and C++)
#   kernel-doc  scripts/kernel-doc -none on changed C files: no warnings
#   rst         new Documentation pages pass docutils with --halt=warning
#   maintainers scripts/get_maintainer.pl names a section (not just THE
#               REST) for every patch, and SECRET MEMORY exists
#   bisect      every patch that changes what the kernel is built from
#               builds, each with its own configuration (the test
#               fragments merged at that commit, so a patch's Kconfig and
#               KUnit code are built with it): in the x86_64 test and
#               the arm64 debug config vmlinux at the newest commit and,
#               at the older ones, the objects the series touches, linked
#               by nm against the newest vmlinux; with SECRETMEM=n and
#               with MEMFD_SECRETMEM=n (x86_64), the files the series
#               changes and every file that includes a header it changes,
#               and no call from them into code the option leaves out
#   sparse      W=1 and sparse (C=2) say nothing new on the changed files,
#               in the x86_64 and the arm64 build
#   distro      the changed files build with W=1 and nothing new to say in
#               Debian's own amd64 and arm64 configurations of 6.12
#               (linux-config-6.12) with MEMFD_SECRETMEM=y: MEMCG, NUMA,
#               HIBERNATION, MEMORY_HOTPLUG and THP on
# ONLY="checkpatch commits" runs just those checks (names as above;
# bisect runs all four builds, bisect:CONFIG one of them), uncached;
# SERIES_ARCHES="x86_64" limits sparse and distro to the arches named.
# SERIES_FROM..SERIES_HEAD (commits of build/linux; default base..HEAD)
# and SERIES_PATCHES (a folder with a series file) check something other
# than the exported series; the self-tests (tests/series/run.sh) use them
# on deliberately broken patches. CHECKPATCH names the checkpatch script.
# Prints "series<TAB>CHECK<TAB>passed<TAB>failed<TAB>0" rows on stdout and
# one line per problem on stderr; exit 1 on any problem. Every check runs
# in a process of its own with errexit in effect: a check that stops
# without a verdict is itself a problem. The result is cached per series,
# configs, tools and harness, so a warm run costs seconds.
. "$(dirname "$0")/lib.sh"

WORK=$BUILD/series-check
WT=$(series_worktree)
CHECKS="checkpatch commits uapi kernel-doc rst maintainers bisect sparse distro"
# name, objdir (build/series-check/obj/OBJDIR), arch, what is built, the
# flavour whose fragments make the configuration (the one make check's
# kernel of that arch was built with, so that ccache holds its newest
# commit), and the config line added to them. "vmlinux": the whole kernel.
# "files": what an option switched off can break, in a directory of its
# own: the files the series changed up to that commit, those that include
# a header it changed, and their calls into objects the option removes.
# A full build with an option switched off recompiles nearly everything
# (huge_mm.h includes <linux/secretmem.h>, which tests CONFIG_SECRETMEM):
# on a machine without ccache that is a cold kernel build per option.
# "objects": vmlinux at the newest commit; at each older one the objects
# of the files that the series changes, or that include a header it
# changes, linked by nm against what the newest vmlinux defines. A whole
# vmlinux per commit would recompile the whole kernel once more per arch
# to cross patch 24's <linux/mmzone.h> (9 of a fresh run's minutes on
# x86_64), and a fifth of it to cross patch 22's <linux/pid_namespace.h>,
# only for files that the series does not change and that include none of
# its headers themselves. A "vmlinux" configuration builds every commit
# whole.
BISECT_CONFIGS=(
	"x86_64 x86_64 x86_64 objects tests"
	"arm64 arm64 arm64 objects debug"
	"x86_64-nosecretmem x86_64-nosecretmem x86_64 files tests # CONFIG_SECRETMEM is not set"
	"x86_64-nomemfdsecret x86_64-nomemfdsecret x86_64 files tests # CONFIG_MEMFD_SECRETMEM is not set"
)
bad=0

row() { printf 'series\t%s\t%d\t%d\t0\n' "$1" "$2" "$3"; }
problem() {
	printf 'series: %s\n' "$*" >&2
	bad=1
}

# The series' commits, oldest first.
load_series() {
	[ -d "$TREE/.git" ] || die "no build/linux: run 'make tree' first"
	HEAD_REF=${SERIES_HEAD:-HEAD}
	FROM=${SERIES_FROM:-base}
	PATCHES=${SERIES_PATCHES:-$TOP/patches}
	mapfile -t COMMITS < <(git -C "$TREE" rev-list --reverse "$FROM..$HEAD_REF")
	[ "${#COMMITS[@]}" -gt 0 ] || die "series-check: the series is empty"
}

series_patches() {
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$PATCHES/series" |
		sed "s|^|$PATCHES/|"
}

# checkpatch_one CHECKPATCH PATCH DIR: CHECKPATCH --strict on PATCH, its
# output in DIR/NAME.out and its exit status in DIR/NAME.rc.
checkpatch_one() {
	local out=$3/${2##*/} rc=0
	# spdxcheck.py needs Debian's python3-ply and python3-git
	(cd "$TREE" && PATH=/usr/bin:$PATH "$1" --strict "$2") >"$out.out" 2>&1 || rc=$?
	echo "$rc" >"$out.rc"
}

check_checkpatch() {
	local p out rc total n=0 f=0 cp=${CHECKPATCH:-$TREE/scripts/checkpatch.pl}
	local dir=$WORK/checkpatch
	rm -rf "$dir"
	mkdir -p "$dir"
	# one patch per CPU at a time: each run is a few seconds of perl
	for p in $(series_patches); do
		checkpatch_one "$cp" "$p" "$dir" &
		while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
	done
	wait
	for p in $(series_patches); do
		out=$(cat "$dir/${p##*/}.out")
		rc=$(cat "$dir/${p##*/}.rc")
		total=$(grep -m1 '^total: ' <<<"$out" || true)
		if [ "$rc" -eq 0 ] && [[ "$total" =~ ^total:\ 0\ errors,\ 0\ warnings,\ 0\ checks, ]]; then
			n=$((n + 1))
			continue
		fi
		f=$((f + 1))
		if [ -z "$total" ]; then
			problem "checkpatch: ${p#"$TOP"/}: checkpatch printed no 'total:' line (exit $rc): $(head -n1 <<<"$out")"
			continue
		fi
		problem "checkpatch: ${p#"$TOP"/}: $total"
		grep -E '^(ERROR|WARNING|CHECK):' <<<"$out" | head -n 5 |
			while read -r line; do problem "checkpatch: ${p#"$TOP"/}: $line"; done
	done
	row checkpatch "$n" "$f"
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
		[ "$(grep -cv -e '^Signed-off-by:' -e '^[[:space:]]*$' <<<"$body" || true)" -ge 3 ] ||
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

checkout() { git -C "$WT" checkout -q --detach "$1"; }

# Each changed uapi header must compile alone, as C90 and as C++.
check_uapi() {
	local hdrs=$WORK/uapi h rel lang n=0 f=0 out
	rm -rf "$hdrs"
	checkout "${COMMITS[-1]}"
	make -s -C "$WT" O="$WORK/hdr" INSTALL_HDR_PATH="$hdrs" headers_install >"$WORK/uapi.log" 2>&1 ||
		{ problem "uapi: make headers_install failed (log: ${WORK#"$TOP"/}/uapi.log)"; row uapi 0 1; return; }
	for h in $(changed_files 'include/uapi/*.h'); do
		rel=${h#include/uapi/}
		for lang in "gcc -std=c90 -x c" "g++ -std=c++11 -x c++"; do
			# shellcheck disable=SC2086  # $lang is a command and its options
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
	for c in $(changed_files '*.[ch]' | grep -v '^tools/' || true); do
		git -C "$TREE" show "$HEAD_REF:$c" >"$WORK/kdoc.${c##*.}"
		out=$("$TREE/scripts/kernel-doc" -none "$WORK/kdoc.${c##*.}" 2>&1) || true
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
			--sections "$p" 2>/dev/null) || true
		# section names are the unindented lines; THE REST is no owner
		owners=$(grep -v -e '^[[:space:]]' -e '^$' -e '^THE REST$' -e ':' <<<"$out" || true)
		if [ -n "$owners" ]; then
			n=$((n + 1))
		else
			f=$((f + 1))
			problem "maintainers: get_maintainer.pl names no section but THE REST for ${p#"$TOP"/}"
		fi
	done
	out=$(git -C "$TREE" show "$HEAD_REF:MAINTAINERS")
	grep -qx 'SECRET MEMORY' <<<"$out" ||
		problem "maintainers: the SECRET MEMORY section is not in MAINTAINERS"
	row maintainers "$n" "$f"
}

# A commit changes what the kernel is built from unless every file it
# touches is documentation, selftests or MAINTAINERS: such a commit builds
# exactly the kernel of its parent, so building it again proves nothing.
kernel_files() {
	git -C "$TREE" diff-tree --no-commit-id --name-only -r "$1" |
		grep -v -e '^Documentation/' -e '^tools/' -e '^MAINTAINERS$' -e '^CREDITS$' || true
}

# Build the series' commits, newest first, in every configuration (or the
# one named, with the test configuration that a "files" one compares
# with): the newest commit is the tree that make check's test kernels
# are built from, so with the same layout (build/series-check/{linux,
# obj/CONFIG} as build/{linux,obj/ARCH-FLAVOR}) ccache holds most of it,
# and each older commit is an incremental build. At each commit the
# configuration is made again from tinyconfig and the fragments whenever
# a Kconfig file changed, so options that a patch adds are on where the
# fragments ask for them, and KUnit code is built with its patch.
check_bisect() {
	local want=${1:-} cfg name obj arch what flavor extra c i phase
	local -a names=()
	local -A n=() f=() s=() obj_of=() arch_of=() what_of=() flavor_of=() extra_of=() pid=()
	for cfg in "${BISECT_CONFIGS[@]}"; do
		read -r name obj arch what flavor extra <<<"$cfg"
		obj_of[$name]=$obj arch_of[$name]=$arch what_of[$name]=$what
		flavor_of[$name]=$flavor extra_of[$name]=$extra
		if [ -z "$want" ] || [ "$want" = "$name" ] ||
			{ [ "$what" != files ] && bisect_wants_ref "$want" "$name"; }; then
			names+=("$name") n[$name]=0 f[$name]=0 s[$name]=0
			rm -f "$WORK/$name.newest" "$WORK/$name.newest.syms"
		fi
	done
	[ "${#names[@]}" -gt 0 ] || die "series-check: no bisect configuration called '$want'"
	for ((i = ${#COMMITS[@]}; i >= 1; i--)); do
		c=${COMMITS[i - 1]}
		if [ -z "$(kernel_files "$c")" ]; then
			for name in "${names[@]}"; do s[$name]=$((s[$name] + 1)); done
			continue
		fi
		checkout "$c"
		# side by side: the configurations that build the tree, then
		# the "files" ones, which compare with them
		for phase in tree files; do
			pid=()
			for name in "${names[@]}"; do
				[ "$(bisect_phase "${what_of[$name]}")" = "$phase" ] || continue
				bisect_job "$name" "$c" "$i" &
				pid[$name]=$!
			done
			for name in "${!pid[@]}"; do
				if wait "${pid[$name]}"; then
					n[$name]=$((n[$name] + 1))
				else
					f[$name]=$((f[$name] + 1))
					bad=1
				fi
			done
		done
	done
	for name in "${names[@]}"; do
		say "bisect $name: ${n[$name]} built, ${f[$name]} failed, ${s[$name]} not rebuilt (same kernel as a built commit)"
		row "bisect:$name" "${n[$name]}" "${f[$name]}"
	done
}

# Whether the configuration WANT ("files") compares with the test
# configuration NAME: the one of its arch that builds the tree.
bisect_wants_ref() {
	local cfg name obj arch what
	for cfg in "${BISECT_CONFIGS[@]}"; do
		read -r name obj arch what _ <<<"$cfg"
		[ "$name" = "$1" ] && [ "$what" = files ] && [ "$arch" = "$2" ] && return 0
	done
	return 1
}

# bisect_phase WHAT: "tree" for the configurations that build vmlinux (at
# the newest commit at least), "files" for those that compare with them.
bisect_phase() { if [ "$1" = files ]; then echo files; else echo tree; fi; }

# bisect_job NAME COMMIT I: one configuration at the checked-out commit,
# in a job of its own (the caller waits for its status). Most of a
# commit's time in one configuration is make's walk and Kconfig, mostly
# on one CPU; two configurations side by side keep both busy (1.85 CPUs
# on average over a warm walk).
bisect_job() {
	local name=$1
	if "bisect_${what_of[$name]}" "$name" "${obj_of[$name]}" "${arch_of[$name]}" \
		"${flavor_of[$name]}:${extra_of[$name]}" "$2" "$3"; then
		return 0
	fi
	return 1
}

# bisect_configure NAME OBJDIR ARCH FLAVOR:EXTRA I: the fragments of
# FLAVOR (and the line EXTRA) at the checked-out commit, patch I, in
# build/series-check/obj/OBJDIR.
bisect_configure() {
	local name=$1 o=$WORK/obj/$2 extra=${4#*:} i=$5 frags
	load_arch "$3"
	mapfile -t frags < <(fragments "${4%%:*}")
	if [ -n "$extra" ]; then
		printf '%s\n' "$extra" >"$WORK/$name.config"
		frags+=("$WORK/$name.config")
	fi
	mkdir -p "$WORK/logs/$name" "$o"
	kconfigure "$WT" "$o" "${frags[@]}" >"$WORK/logs/$name/config-$i.log" 2>&1
}

# bisect_vmlinux NAME OBJDIR ARCH FLAVOR:EXTRA COMMIT I: configure and build
# vmlinux at the checked-out COMMIT (patch I); logs in
# build/series-check/logs/NAME/. vmlinux, not the boot image: the series
# does not touch the boot wrappers, and x86's bzImage would compress the
# kernel again at every commit.
bisect_vmlinux() {
	local name=$1 o=$WORK/obj/$2 c=$5 i=$6 subj log=$WORK/logs/$1/build-$6.log
	subj=$(git -C "$TREE" log -1 --format=%s "$c")
	if ! bisect_configure "$name" "$2" "$3" "$4" "$i"; then
		problem "bisect $name: patch $i '$subj': the configuration fails: $(tail -n1 "$WORK/logs/$name/config-$i.log")"
		return 1
	fi
	if ! run_logged "$log" kmake "$WT" "$o" -j"$(nproc)" vmlinux; then
		problem "bisect $name: patch $i '$subj' does not build: $(first_error "$log")"
		return 1
	fi
}

# bisect_objects NAME OBJDIR ARCH FLAVOR:EXTRA COMMIT I: vmlinux at the first
# (newest) commit of the walk, then a record of what it built: the
# objects of files_to_check (build/series-check/NAME.newest) and
# the global symbols that the rest of vmlinux defines (beside it, .syms).
# At each older COMMIT, those objects whose source exists there and that
# the configuration does not drop, built at COMMIT, and the link check:
# every symbol they use is defined by them or by the rest of vmlinux.
# The rest is the newest commit's: what the series changes is in the
# objects built here, except the files that reach a changed header only
# through another header, which define the same symbols at every commit.
bisect_objects() {
	local name=$1 o=$WORK/obj/$2 c=$5 i=$6 subj list f obj log=$WORK/logs/$1/build-$6.log
	local -a objs=()
	list=$WORK/$name.newest
	# check_bisect removes the record before the walk: without it, this
	# is the newest commit
	if [ ! -e "$list" ]; then
		: >"$list"
		bisect_vmlinux "$@" || return 1
		for f in $(files_to_check "$c"); do
			obj=${f%.c}.o
			[ ! -f "$o/$(dirname "$obj")/.$(basename "$obj").cmd" ] || echo "$obj"
		done >"$list"
		mapfile -t objs <"$list"
		LC_ALL=C comm -23 <("${CROSS_COMPILE}nm" -g --defined-only "$o/vmlinux" |
			awk 'NF == 3 { print $3 }' | LC_ALL=C sort -u) \
			<(cd "$o" && defined_symbols "${objs[@]}") >"$list.syms"
		return 0
	fi
	subj=$(git -C "$TREE" log -1 --format=%s "$c")
	if [ ! -s "$list.syms" ]; then
		problem "bisect $name: patch $i '$subj': not checked: the newest commit did not build"
		return 1
	fi
	if ! bisect_configure "$name" "$2" "$3" "$4" "$i"; then
		problem "bisect $name: patch $i '$subj': the configuration fails: $(tail -n1 "$WORK/logs/$name/config-$i.log")"
		return 1
	fi
	while read -r obj; do
		git -C "$WT" cat-file -e "HEAD:${obj%.o}.c" 2>/dev/null || continue
		obj_dropped "$o" "${obj%.o}.c" || objs+=("$obj")
	done <"$list"
	[ "${#objs[@]}" -gt 0 ] || return 0
	if ! run_logged "$log" kmake "$WT" "$o" -j"$(nproc)" "${objs[@]}"; then
		problem "bisect $name: patch $i '$subj' does not build: $(first_error "$log")"
		return 1
	fi
	local missing
	missing=$(cd "$o" && undefined_uses "${objs[@]}" |
		LC_ALL=C join -v 1 - <(LC_ALL=C sort -u "$list.syms" <(defined_symbols "${objs[@]}")))
	if [ -n "$missing" ]; then
		problem "bisect $name: patch $i '$subj' does not link: $(head -n1 <<<"$missing" |
			awk '{ print $2 " uses " $1 ", which nothing defines at this commit" }')"
		return 1
	fi
}

# include_spelling FILE: how a changed header is included, as a fixed
# string for git grep, or nothing for another arch's header.
include_spelling() {
	case $1 in
	include/uapi/*) printf '#include <%s>\n' "${1#include/uapi/}" ;;
	include/*) printf '#include <%s>\n' "${1#include/}" ;;
	arch/"$SRCARCH"/include/uapi/*) printf '#include <%s>\n' "${1#arch/"$SRCARCH"/include/uapi/}" ;;
	arch/"$SRCARCH"/include/*) printf '#include <%s>\n' "${1#arch/"$SRCARCH"/include/}" ;;
	arch/*) ;;
	*) printf '#include "%s"\n' "${1##*/}" ;;
	esac
}

# files_to_check COMMIT: the C files that the series changed up to COMMIT,
# and those that include a header it changed (a header outside include/
# only from its own directory), other arches' files left out.
files_to_check() {
	local f inc
	local -a changed=() pats=()
	mapfile -t changed < <(git -C "$WT" diff --name-only --diff-filter=ACMR "$FROM" "$1" -- '*.c' '*.h' |
		grep -v -e '^tools/' -e '^Documentation/')
	{
		for f in "${changed[@]}"; do
			case $f in
			*.c) echo "$f" ;;
			*.h)
				inc=$(include_spelling "$f")
				[ -n "$inc" ] || continue
				case $f in
				include/* | arch/*) pats+=(-e "$inc") ;;
				*) git -C "$WT" grep -l -F "$inc" -- "$(dirname "$f")/*.c" || true ;;
				esac
				;;
			esac
		done
		# one pass over the tree for all the headers under include/ and
		# arch/ (a second or two each, at every commit and configuration)
		[ "${#pats[@]}" -eq 0 ] || git -C "$WT" grep -l -F "${pats[@]}" -- '*.c' || true
	} | grep -v -e '^tools/' -e '^Documentation/' -e '^samples/' -e '^scripts/' |
		awk -v a="arch/$SRCARCH/" 'index($0, "arch/") != 1 || index($0, a) == 1' | sort -u
}

# makefile_option FILE.c: how the Makefile of FILE's directory names its
# object: the option it is built under, "-" for none (obj-y), nothing if
# the object is not named literally (init_$(BITS).o).
makefile_option() {
	local line
	line=$(git -C "$WT" show "HEAD:$(dirname "$1")/Makefile" 2>/dev/null |
		grep -m1 -w -- "$(basename "${1%.c}").o" || true)
	[ -n "$line" ] || return 0
	grep -oE 'CONFIG_[A-Z0-9_]+' <<<"$line" | head -n1 | grep . || echo -
}

# option_on OBJDIR SYM: whether SYM is y or m in OBJDIR's .config.
option_on() { grep -qE "^$2=[ym]" "$1/.config"; }

# obj_enabled OBJDIR FILE.c: whether the configuration in OBJDIR builds
# FILE's object: its Makefile names it under no option or one that is on.
obj_enabled() {
	local sym
	sym=$(makefile_option "$2")
	[ "$sym" = - ] || { [ -n "$sym" ] && option_on "$1" "$sym"; }
}

# obj_dropped OBJDIR FILE.c: whether the configuration in OBJDIR leaves
# out FILE's object, which the vmlinux configuration built: its Makefile
# names it under an option that is off there. An object named some other
# way (init_$(BITS).o) is built in both.
obj_dropped() {
	local sym
	sym=$(makefile_option "$2")
	[ -n "$sym" ] && [ "$sym" != - ] && ! option_on "$1" "$sym"
}

# bisect_files NAME OBJDIR ARCH FLAVOR:EXTRA COMMIT I: at the checked-out COMMIT,
# with the option that EXTRA switches off, build each object of
# files_to_check that the arch's vmlinux configuration built at this
# commit and this configuration does not drop. Then the link check: no
# such object may use a symbol that those objects define in the vmlinux
# configuration and not here (all of mm/secretmem.o without
# CONFIG_SECRETMEM, its memfd_create() entry points without
# CONFIG_MEMFD_SECRETMEM). Needs the arch's vmlinux configuration built
# first, at COMMIT.
bisect_files() {
	local name=$1 o=$WORK/obj/$2 c=$5 i=$6 subj ref f obj log=$WORK/logs/$1/build-$6.log
	local -a objs=() checked=()
	subj=$(git -C "$TREE" log -1 --format=%s "$c")
	ref=$WORK/obj/$3
	if ! bisect_configure "$name" "$2" "$3" "$4" "$i"; then
		problem "bisect $name: patch $i '$subj': the configuration fails: $(tail -n1 "$WORK/logs/$name/config-$i.log")"
		return 1
	fi
	for f in $(files_to_check "$c"); do
		obj=${f%.c}.o
		[ -f "$ref/$(dirname "$obj")/.$(basename "$obj").cmd" ] || continue
		checked+=("$obj")
		obj_dropped "$o" "$f" || objs+=("$obj")
	done
	if [ "${#checked[@]}" -eq 0 ]; then
		problem "bisect $name: patch $i '$subj': none of its files was built in $ref"
		return 1
	fi
	# the option leaves out every file to check (patch 1 without
	# CONFIG_SECRETMEM changes only mm/secretmem.c): nothing to build
	[ "${#objs[@]}" -gt 0 ] || return 0
	if ! run_logged "$log" kmake "$WT" "$o" -j"$(nproc)" "${objs[@]}"; then
		problem "bisect $name: patch $i '$subj' does not build: $(first_error "$log")"
		return 1
	fi
	local removed uses
	removed=$(LC_ALL=C comm -23 <(cd "$ref" && defined_symbols "${checked[@]}") \
		<(cd "$o" && defined_symbols "${objs[@]}"))
	uses=$(cd "$o" && undefined_uses "${objs[@]}" | LC_ALL=C join - <(printf '%s\n' "$removed"))
	if [ -n "$uses" ]; then
		problem "bisect $name: patch $i '$subj' does not link: $(head -n1 <<<"$uses" |
			awk '{ print $2 " uses " $1 ", which is built only with the option on" }')"
		return 1
	fi
}

# first_error LOG: the line of a failed build's LOG that says why: the
# compiler's or the linker's first error, else make's, else the last line.
# Not any line with "error" in it: scripts/dtc/libfdt/fdt_strerror.c is
# one of the host programs that a new arm64 objdir builds first.
first_error() {
	grep -m1 -E ': (fatal )?error:|undefined reference' "$1" ||
		grep -m1 -F '***' "$1" || tail -n1 "$1"
}

# undefined_uses OBJ...: "SYMBOL OBJ" for each symbol an object uses and
# does not define, sorted by symbol for join. Weak references (w) are
# left out: one that nothing defines links, as NULL.
undefined_uses() {
	"${CROSS_COMPILE}nm" -u -A "$@" |
		awk '$(NF - 1) == "U" { sub(/:$/, "", $1); print $NF, $1 }' | LC_ALL=C sort -k1,1
}

# defined_symbols OBJ...: the global symbols the objects that exist define.
defined_symbols() {
	local f
	for f in "$@"; do [ ! -f "$f" ] || echo "$f"; done |
		xargs -r "${CROSS_COMPILE}nm" -g --defined-only |
		awk 'NF == 3 { print $3 }' | LC_ALL=C sort -u
}

# The configuration a file check builds with, for the commit checked out
# in SRC: configure KIND SRC OBJDIR. tests: the test fragments (frags).
# debian: Debian's configuration (distro_cfg) with secret memory for
# memfd_create() on, and debug info off, which changes no warning and
# triples the compile time.
configure() {
	case $1 in
	tests) kconfigure "$2" "$3" "${frags[@]}" ;;
	debian)
		mkdir -p "$3"
		xz -dc "$distro_cfg" >"$3/.config" || return 1
		"$2/scripts/config" --file "$3/.config" --enable SECRETMEM \
			--enable MEMFD_SECRETMEM --disable DEBUG_INFO_DWARF5 \
			--disable DEBUG_INFO_DWARF4 \
			--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
			--enable DEBUG_INFO_NONE || return 1
		ksyncconfig "$2" "$3"
		;;
	esac
}

# warnings_at OBJDIR COMMIT LOG OBJ...: build OBJ... at COMMIT (checked
# out), in the configuration KIND made at that commit, with MKFLAGS;
# prints the warnings and errors, without line numbers, their paths
# relative to the tree: ccache replays gcc's warnings with the paths of
# the checkout that filled it, so a base from the cache and a head
# compiled here would otherwise differ in every warning. KIND, MKFLAGS,
# LABEL and arch are the caller's.
warnings_at() {
	local o=$1 c=$2 log=$3 rc=0
	shift 3
	# each commit with its own configuration: a build at the base would
	# otherwise drop the series' options, which the head then asks for
	if ! configure "$KIND" "$WT" "$o" >"$log" 2>&1; then
		problem "$LABEL ($arch): the configuration at ${c:0:12} fails: $(tail -n1 "$log")"
		return 1
	fi
	(cd "$WT" && touch "${@/%.o/.c}")
	kmake "$WT" "$o" -k -j"$(nproc)" -Otarget "${MKFLAGS[@]}" "$@" >>"$log" 2>&1 </dev/null || rc=$?
	if [ "$rc" -ne 0 ]; then
		problem "$LABEL ($arch): building $* at ${c:0:12} failed: $(first_error "$log")"
		return 1
	fi
	{ grep -E 'warning:|error:' "$log" || true; } |
		sed -E -e 's/:[0-9]+:([0-9]+:)?/:/' -e 's|^[^ :]*/series-check/linux/||' | sort -u
}

# files_lists ARCH: with the head checked out, configure ARCH's KIND
# objdir and list the changed C files it builds (FILES.after) and those
# of them that the base has (FILES.before). A file counts when its
# directory's Makefile names its object under an option that the
# configuration turns on; the KUnit files that mm/ #includes are checked
# with the file that includes them.
files_lists() {
	local arch=$1 o=$WORK/obj/$1-$KIND files=$WORK/files-$KIND-$1 c
	files_setup "$arch" || return 1
	: >"$files.after"
	: >"$files.before"
	: >"$WORK/warnings-$KIND-$arch-before"
	if ! configure "$KIND" "$WT" "$o" >"$WORK/$KIND-$arch-config.log" 2>&1; then
		problem "$LABEL ($arch): the configuration at the head fails: $(tail -n1 "$WORK/$KIND-$arch-config.log")"
		return 1
	fi
	for c in $(changed_files '*.c' AM | grep -v '^tools/' || true); do
		case "$c" in arch/*) [[ "$c" == arch/"$SRCARCH"/* ]] || continue ;; esac
		# an object under an option that this configuration leaves off
		# (secretmem_cache.o on arm64) is not built here
		obj_enabled "$o" "$c" || continue
		echo "${c%.c}.o" >>"$files.after"
		! git -C "$TREE" cat-file -e "$FROM:$c" 2>/dev/null || echo "${c%.c}.o" >>"$files.before"
	done
}

# files_warnings ARCH WHICH COMMIT: with COMMIT checked out (the base for
# FILES.before, the head for FILES.after), the warnings of those files
# there. The base is built first: a new objdir builds its host programs
# first, and their warnings are the same at both commits. New files have
# no base: all their warnings count.
files_warnings() {
	local arch=$1 which=$2 o=$WORK/obj/$1-$KIND
	local -a objs=()
	files_setup "$arch" || return 1
	mapfile -t objs <"$WORK/files-$KIND-$arch.$which"
	[ "${#objs[@]}" -gt 0 ] || return 0
	warnings_at "$o" "$3" "$WORK/$KIND-$arch-$which.log" "${objs[@]}" \
		>"$WORK/warnings-$KIND-$arch-$which"
}

# files_setup ARCH: the arch, and what configure needs for KIND.
files_setup() {
	load_arch "$1"
	mapfile -t frags < <(fragments tests)
	[ "$KIND" != debian ] || distro_cfg=$(debian_config)
}

# check_files: W=1 (and sparse, for the tests configuration) on the
# changed C files that each arch builds in the KIND configuration: the
# warnings at the series' head, minus those the same files have at the
# base. The arches (x86_64 and arm64, or those SERIES_ARCHES names, for
# the self-tests' cases) are configured, then built at the base and at
# the head, side by side, each in a job of its own, as the bisect's
# configurations are: most of such a build is make's walk, on one CPU.
# Counts the files of the arches that pass in files_ok, the arches that
# do not in files_bad.
check_files() {
	local arch step c new n
	local -a arches
	local -A pid=() failed=()
	read -r -a arches <<<"${SERIES_ARCHES:-x86_64 arm64}"
	files_ok=0 files_bad=0
	for step in lists before after; do
		if [ "$step" = before ]; then c=$FROM; else c=${COMMITS[-1]}; fi
		checkout "$c"
		pid=()
		for arch in "${arches[@]}"; do
			[ -z "${failed[$arch]:-}" ] || continue
			if [ "$step" = lists ]; then
				files_lists "$arch" &
			else
				files_warnings "$arch" "$step" "$c" &
			fi
			pid[$arch]=$!
		done
		for arch in "${!pid[@]}"; do wait "${pid[$arch]}" || failed[$arch]=1; done
	done
	for arch in "${arches[@]}"; do
		if [ -n "${failed[$arch]:-}" ]; then
			files_bad=$((files_bad + 1))
			bad=1
			continue
		fi
		[ -s "$WORK/files-$KIND-$arch.after" ] || continue
		new=$(comm -13 "$WORK/warnings-$KIND-$arch-before" "$WORK/warnings-$KIND-$arch-after")
		if [ -n "$new" ]; then
			problem "$LABEL ($arch): new warnings: $(head -n1 <<<"$new") ($(wc -l <<<"$new") in all)"
			files_bad=$((files_bad + 1))
		else
			n=$(wc -l <"$WORK/files-$KIND-$arch.after")
			files_ok=$((files_ok + n))
		fi
	done
}

check_sparse() {
	need_cmd sparse
	local KIND=tests LABEL=W=1/sparse MKFLAGS=(W=1 C=2) frags=()
	check_files
	row sparse "$files_ok" "$files_bad"
}

# Debian's own configuration of its 6.12 kernels (linux-config-6.12 for
# the arch, downloaded and unpacked here, never installed). Prints the
# path of the xz-compressed config.
debian_config() {
	local dir=$WORK/debian-config/$DEB_ARCH f
	f=$dir/usr/src/linux-config-6.12/config.${DEB_ARCH}_none_${DEB_ARCH}.xz
	if [ ! -f "$f" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		if ! (cd "$dir" && apt-get download -q "linux-config-6.12:$DEB_ARCH" >/dev/null 2>&1); then
			problem "distro ($arch): cannot download linux-config-6.12:$DEB_ARCH (run 'make deps')"
			return 1
		fi
		dpkg-deb -x "$dir"/linux-config-6.12_*.deb "$dir"
	fi
	if [ ! -f "$f" ]; then
		problem "distro ($arch): linux-config-6.12:$DEB_ARCH has no ${f##*/}"
		return 1
	fi
	printf '%s\n' "$f"
}

# What distributions ship: Debian's configuration, with MEMCG, NUMA,
# HIBERNATION, MEMORY_HOTPLUG and THP on where the test configurations
# keep the kernel small, so code under those options is built too.
check_distro() {
	need_cmd apt-get dpkg-deb xz
	local KIND=debian LABEL="distro W=1" MKFLAGS=(W=1) distro_cfg='' frags=()
	check_files
	row distro "$files_ok" "$files_bad"
}

# One check, in this process: "series-check.sh --one NAME[:ARG]".
run_one() {
	local name=${1%%:*} arg=
	[[ "$1" == *:* ]] && arg=${1#*:}
	load_series
	mkdir -p "$WORK"
	case "$name" in
	checkpatch | commits | kernel-doc | rst | maintainers) "check_${name//-/_}" ;;
	uapi | sparse | distro | bisect)
		prepare_worktree
		"check_$name" ${arg:+"$arg"}
		;;
	*) die "series-check: no check called '$name' (known: $CHECKS)" ;;
	esac
	return "$bad"
}

prepare_worktree() {
	if [ ! -d "$WT/.git" ] && [ ! -f "$WT/.git" ]; then
		say "series-check: creating a worktree of build/linux in ${WT#"$TOP"/} (about a minute)"
		mkdir -p "$(dirname "$WT")"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$WT" "${COMMITS[-1]}"
	fi
}

# Run the named checks, each as its own process with errexit: a check
# that dies or stops without a verdict cannot pass.
run_checks() {
	local name rc all=0 err=$WORK/check.err
	mkdir -p "$WORK"
	for name in "$@"; do
		# rows go to stdout; problems and progress to stderr and $err
		set +e
		{ bash "$0" --one "$name" 2>&1 1>&3 3>&- | tee "$err" >&2; } 3>&1
		rc=${PIPESTATUS[0]}
		set -e
		if [ "$rc" -ne 0 ]; then
			all=1
			grep -q '^series: ' "$err" ||
				printf 'series: %s: the check stopped (exit %d) without a verdict: %s\n' \
					"$name" "$rc" "$(grep -v '^    \.\.\. ' "$err" | tail -n1)" >&2
		fi
	done
	return "$all"
}

stamp_inputs() {
	{
		git -C "$TREE" rev-parse "$FROM" "$HEAD_REF"
		cat "$PATCHES/series"
		series_patches | xargs cat
		cat "$TOP/configs/base.config" "$TOP/configs/"*64.config "$TOP/configs/debug.config"
		stamp_common "$0"
	} | sha256sum | cut -d' ' -f1
}

main() {
	local stamp=$WORK/result.stamp want out rc=0
	if [ "${1:-}" = --one ]; then
		run_one "$2"
		return
	fi
	load_series
	if [ -n "${ONLY:-}" ]; then
		# shellcheck disable=SC2086  # a list of names
		run_checks $ONLY
		return
	fi
	want=$(stamp_inputs)
	if [ -f "$stamp" ] && [ "$(head -n1 "$stamp")" = "$want" ]; then
		say "series-check: nothing changed since the last pass, reusing it"
		tail -n +2 "$stamp"
		return 0
	fi
	rm -f "$stamp"
	# shellcheck disable=SC2086  # a list of names
	out=$(run_checks $CHECKS) || rc=1
	printf '%s\n' "$out"
	if [ "$rc" -eq 0 ]; then
		{ echo "$want"; printf '%s\n' "$out"; } >"$stamp"
	fi
	return "$rc"
}

main "$@"
