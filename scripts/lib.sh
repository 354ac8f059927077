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

# Run a long command, keep its full output in a log, show a heartbeat.
run_logged() {
	local log=$1
	shift
	mkdir -p "$(dirname "$log")"
	"$@" >"$log" 2>&1 &
	local pid=$! start=$SECONDS rc=0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 10
		kill -0 "$pid" 2>/dev/null &&
			printf '    ... %ds, %s lines of output (%s)\n' \
				$((SECONDS - start)) "$(wc -l <"$log")" "${log#"$TOP"/}" >&2
	done
	wait "$pid" || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 25 "$log" >&2
		if grep -q 'No space left on device' "$log"; then
			die "disk full while running '$1' (log: ${log#"$TOP"/})"
		fi
	fi
	return "$rc"
}
