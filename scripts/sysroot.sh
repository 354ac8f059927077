#!/bin/bash
# sysroot.sh ARCH: the guest's userland pieces from Debian, for any arch:
# busybox-static (the guest's shell and tools), libcap-dev (static
# libcap for mm/memfd_secret), and trinity with the libc6 it links
# against (the fuzzer that tests/trinity runs). The .debs are downloaded
# and unpacked into build/sysroot/DEB_ARCH, never installed. stress-ng
# and every package it depends on, recursively, go into
# build/sysroot/DEB_ARCH-stress-ng: initramfs.sh takes the binary and the
# shared libraries it needs from there.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: sysroot.sh ARCH}
load_arch "$arch"
SYSROOT=$BUILD/sysroot/$DEB_ARCH
PKGS=(busybox-static libcap-dev trinity libc6)

# fetch DIR PKG...: download the packages and unpack them into DIR
fetch() {
	local dir=$1 d
	shift
	say "fetching $* for $DEB_ARCH from Debian"
	rm -rf "$dir" "$dir.debs"
	mkdir -p "$dir.debs"
	(cd "$dir.debs" && apt-get download -q "$@" >/dev/null 2>&1) ||
		die "cannot download $* for $DEB_ARCH: run 'make deps' (it enables multiarch and refreshes apt)"
	for d in "$dir.debs"/*.deb; do
		dpkg-deb -x "$d" "$dir"
	done
	rm -rf "$dir.debs"
}

# stress-ng and what it depends on, recursively: a virtual package in <>
# is provided by a real one that the list has too.
stress_ng() {
	local dir=$BUILD/sysroot/$DEB_ARCH-stress-ng pkgs
	[ -f "$dir/.done" ] && return 0
	mapfile -t pkgs < <(apt-cache depends --recurse --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances "stress-ng:$DEB_ARCH" |
		grep -v -e '^ ' -e '^<' | sort -u)
	[ "${#pkgs[@]}" -gt 1 ] || die "apt knows no stress-ng for $DEB_ARCH: run 'make deps'"
	fetch "$dir" "${pkgs[@]}"
	[ -x "$dir/usr/bin/stress-ng" ] || die "stress-ng:$DEB_ARCH has no /usr/bin/stress-ng"
	touch "$dir/.done"
}

need_cmd apt-get apt-cache dpkg-deb
stress_ng
[ "$(cat "$SYSROOT/.done" 2>/dev/null)" = "${PKGS[*]}" ] && exit 0
fetch "$SYSROOT" "${PKGS[@]/%/:$DEB_ARCH}"
[ -x "$SYSROOT/bin/busybox" ] || die "busybox-static:$DEB_ARCH has no /bin/busybox"
[ -x "$SYSROOT/usr/bin/trinity" ] || die "trinity:$DEB_ARCH has no /usr/bin/trinity"
echo "${PKGS[*]}" >"$SYSROOT/.done"
