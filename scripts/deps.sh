#!/bin/bash
# Install what the harness needs from Debian's archive. Idempotent: only
# missing packages are installed. arm64 multiarch is enabled only to fetch
# arm64 .debs that are unpacked, never installed.
. "$(dirname "$0")/lib.sh"

PKGS=(
	build-essential flex bison bc libelf-dev libssl-dev cpio xz-utils
	kmod rsync git ccache sparse shellcheck python3 python3-ply python3-git lz4
	python3-docutils
	gnuplot-nox groff-base man-db
	qemu-system-x86 qemu-system-arm
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross
)

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	say "enabling arm64 multiarch (only to download arm64 busybox/libcap debs)"
	$SUDO dpkg --add-architecture arm64
	need_update=1
fi

if [ "${#missing[@]}" -gt 0 ] || [ -n "${need_update:-}" ]; then
	say "installing: ${missing[*]:-(none, refreshing package lists)}"
	$SUDO apt-get update -qq || die "apt-get update failed: no network to Debian's archive?"
	if [ "${#missing[@]}" -gt 0 ]; then
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
			--no-install-recommends "${missing[@]}" >/dev/null ||
			die "apt-get install failed for: ${missing[*]}"
	fi
fi
say "host tools present"
