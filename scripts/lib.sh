#!/bin/bash
# Shared helpers for the harness scripts. Source it; do not run it.
# shellcheck disable=SC2034  # variables here are used by the sourcing scripts

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
TREE=$BUILD/linux

# One line, prefixed, to stderr so that it never mixes with results.
say() { printf '==> %s\n' "$*" >&2; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die() {
	printf 'ERROR: %s\n' "$*" >&2
	exit 1
}

need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			die "missing tool '$c': run 'make deps' (or scripts/deps.sh)"
	done
}

# Refuse to start a long stage on a nearly full disk: a build that dies
# half-way with ENOSPC gives a far less readable message.
need_disk() {
	local dir=$1 want_mib=$2 have
	mkdir -p "$dir"
	have=$(df -Pm "$dir" | awk 'NR == 2 { print $4 }')
	[ "$have" -ge "$want_mib" ] ||
		die "disk full: $dir has ${have} MiB free, this stage needs ${want_mib} MiB"
}

# Load the facts of one architecture (arch/<name>.conf) into the caller.
load_arch() {
	local name=$1 f=$TOP/arch/$1.conf
	local known
	known=$(find "$TOP/arch" -name '*.conf' -printf '%f\n' | sed 's/\.conf$//' | sort | tr '\n' ' ')
	[ -f "$f" ] || die "unknown ARCH '$name': no file arch/$name.conf (known: $known)"
	# shellcheck source=/dev/null
	. "$f"
	ARCH_NAME=$name
}

# Kernel build directory for one arch and flavour.
objdir() { printf '%s/obj/%s-%s\n' "$BUILD" "$1" "$2"; }

# Run a long command, keep its full output in a log, and show a heartbeat
# every 10 s from the background while it runs. Returns as soon as the
# command does, with its status.
run_logged() {
	local log=$1 rc=0 hb
	shift
	mkdir -p "$(dirname "$log")"
	: >"$log"
	heartbeat "$log" &
	hb=$!
	"$@" >"$log" 2>&1 || rc=$?
	kill "$hb" 2>/dev/null || true
	wait "$hb" 2>/dev/null || true
	if [ "$rc" -ne 0 ]; then
		tail -n 25 "$log" >&2
		if grep -q 'No space left on device' "$log"; then
			die "disk full while running '$1' (log: ${log#"$TOP"/})"
		fi
	fi
	return "$rc"
}

heartbeat() {
	local log=$1 start
	start=$(date +%s)
	while sleep 10; do
		printf '    ... %ds, %s lines of output (%s)\n' $(($(date +%s) - start)) \
			"$(wc -l <"$log")" "${log#"$TOP"/}" >&2
	done
}

# What every cached result depends on besides its own inputs: the
# compilers and tools, the base in use, and the harness code that made
# it (lib.sh, the arch files and the files named as arguments).
stamp_common() {
	{
		local c
		# sed, not head: head can exit before --version has written
		# all, and the SIGPIPE that kills it fails the pipeline
		for c in gcc aarch64-linux-gnu-gcc ld make sparse; do
			command -v "$c" >/dev/null && "$c" --version 2>&1 | sed -n 1p
		done
		git -C "$TREE" rev-parse -q --verify 'base^{tree}' 2>/dev/null || echo "no base"
		cat "$TOP/scripts/lib.sh" "$TOP"/arch/*.conf "$@"
	} | sha256sum | cut -d' ' -f1
}

# The one way to run the kernel's make: kmake SRC OBJDIR ARGS... for the
# arch loaded with load_arch, with ccache and a reproducible build
# identity. CCACHE_BASEDIR makes paths relative, so trees laid out alike
# (SRC and OBJDIR at the same relative place) share the cache. Depend
# mode takes the dependencies from the compiler's own -MMD output instead
# of running the preprocessor once more per file: a cold build is about
# a fifth faster.
kmake() {
	local src=$1 o=$2
	shift 2
	CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G} CCACHE_DEPEND=1 \
		make -C "$src" O="$o" ARCH="$KARCH" CROSS_COMPILE="$CROSS_COMPILE" \
		CC="ccache ${CROSS_COMPILE}gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP='2000-01-01' KBUILD_BUILD_USER=harness \
		KBUILD_BUILD_HOST=harness "$@"
}

# The config fragments of a flavour: configs/base.config, the arch's
# fragment and, unless FLAVOR is 'tests', configs/FLAVOR.config.
fragments() {
	local flavor=$1
	echo "$TOP/configs/base.config"
	echo "$TOP/$CONFIG_FRAGMENT"
	[ "$flavor" = tests ] && return 0
	[ -f "$TOP/configs/$flavor.config" ] ||
		die "unknown FLAVOR '$flavor': no configs/$flavor.config"
	echo "$TOP/configs/$flavor.config"
}

# ksyncconfig SRC OBJDIR: olddefconfig that also writes
# include/config/auto.conf, so that the next make runs no Kconfig of its
# own. syncconfig asks for each new symbol (oldconfig): the empty answers
# of yes '' take the defaults, as olddefconfig does.
ksyncconfig() { kmake "$1" "$2" -s syncconfig < <(yes '') >/dev/null; }

# kconfigure SRC OBJDIR FRAGMENT...: tinyconfig plus the fragments, merged
# with the kernel's merge_config.sh, then ksyncconfig. The result is a
# function of the tree's Kconfig files, the fragments and the tools, so it
# is redone from scratch only when one of those changed, and not at all
# while .config is the one made from them: each run of Kconfig costs
# seconds (its compiler probes), and a bisect configures at every commit
# that changes a Kconfig file. tinyconfig itself (two runs of Kconfig)
# depends on the Kconfig files and the tools only, so one result per arch
# serves every configuration of that arch (build/kconfig/).
kconfigure() {
	local src=$1 o=$2 kc want tiny
	shift 2
	kc=$({
		echo "$KARCH"
		(cd "$src" && git ls-files -z -- '*Kconfig*' 'kernel/configs/*' \
			"arch/$SRCARCH/configs/*" | xargs -0 cat)
		stamp_common "$TOP/scripts/kernel.sh"
	} | sha256sum | cut -d' ' -f1)
	want=$({
		echo "$kc"
		cat "$@"
	} | sha256sum | cut -d' ' -f1)
	mkdir -p "$o"
	if [ -f "$o/.config" ] && [ "$want" = "$(cat "$o/.harness-config" 2>/dev/null)" ]; then
		# edited since (make menuconfig): syncconfig settles it
		[ "$o/.config" -nt "$o/.harness-config" ] || return 0
		ksyncconfig "$src" "$o" || return 1
		echo "$want" >"$o/.harness-config"
		return
	fi
	rm -f "$o/.harness-config"
	tiny=$BUILD/kconfig/tiny-$KARCH-$kc.config
	# explicit checks: callers may run this where errexit does not apply
	if [ -f "$tiny" ]; then
		cp "$tiny" "$o/.config" || return 1
	else
		kmake "$src" "$o" -s tinyconfig >/dev/null || return 1
		mkdir -p "$BUILD/kconfig"
		# whole or not at all: configurations of one arch may run side by side
		if ! { cp "$o/.config" "$tiny.$BASHPID" && mv "$tiny.$BASHPID" "$tiny"; }; then
			return 1
		fi
	fi
	(cd "$o" && "$src/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "$@") >/dev/null ||
		return 1
	ksyncconfig "$src" "$o" || return 1
	echo "$want" >"$o/.harness-config"
}

# kconfig_verify OBJDIR FRAGMENT...: every option a fragment asks for must
# be in the final .config; a silently dropped option (unmet dependency)
# would test the wrong kernel. Prints each one that is missing.
kconfig_verify() {
	local o=$1 f line opt bad=0
	shift
	for f in "$@"; do
		while read -r line; do
			case "$line" in
			CONFIG_*=*) opt=${line%%=*} ;;
			"# CONFIG_"*" is not set") opt=${line#\# } && opt=${opt%% *} ;;
			*) continue ;;
			esac
			if [ "${line#CONFIG_}" != "$line" ]; then
				grep -qxF "$line" "$o/.config" || {
					warn "${f#"$TOP"/}: $line did not survive Kconfig (now: $(grep -E "^(# )?${opt}[= ]" "$o/.config" || echo unset))"
					bad=1
				}
			elif grep -q "^$opt=" "$o/.config"; then
				warn "${f#"$TOP"/}: $opt should be off but is $(grep "^$opt=" "$o/.config")"
				bad=1
			fi
		done <"$f"
	done
	return "$bad"
}

# kbuild_image SRC OBJDIR LOG: build the arch's boot image.
kbuild_image() {
	run_logged "$3" kmake "$1" "$2" -j"$(nproc)" "$(basename "$KERNEL_IMAGE")"
}

# The worktree of build/linux that series-check checks commits
# out in, so that build/linux itself is never touched. It sits at the same
# depth as build/linux, its builds in obj/ beside it, so that ccache (with
# CCACHE_BASEDIR) sees the same relative paths as for build/obj/.
series_worktree() { printf '%s/series-check/linux\n' "$BUILD"; }

# Where the uapi headers of ARCH are installed (scripts/userland.sh).
headers_dir() { printf '%s/headers/%s/usr/include\n' "$BUILD" "$1"; }
