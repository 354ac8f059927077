#!/bin/bash
# sysroot.sh ARCH: the guest's userland pieces from Debian, for any arch:
# busybox-static (the guest's shell and tools), libcap-dev (static
# libcap for mm/memfd_secret), and trinity with the libc6 it links
# against (the fuzzer that tests/trinity runs). The .debs are downloaded
# and unpacked into build/sysroot/DEB_ARCH, never installed.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: sysroot.sh ARCH}
load_arch "$arch"
SYSROOT=$BUILD/sysroot/$DEB_ARCH
PKGS=(busybox-static libcap-dev trinity libc6)

[ "$(cat "$SYSROOT/.done" 2>/dev/null)" = "${PKGS[*]}" ] && exit 0
need_cmd apt-get dpkg-deb
say "fetching ${PKGS[*]} for $DEB_ARCH from Debian"
rm -rf "$SYSROOT" "$SYSROOT.debs"
mkdir -p "$SYSROOT.debs"
(cd "$SYSROOT.debs" && apt-get download -q "${PKGS[@]/%/:$DEB_ARCH}" >/dev/null 2>&1) ||
	die "cannot download ${PKGS[*]} for $DEB_ARCH: run 'make deps' (it enables multiarch and refreshes apt)"
for d in "$SYSROOT.debs"/*.deb; do
	dpkg-deb -x "$d" "$SYSROOT"
done
rm -rf "$SYSROOT.debs"
[ -x "$SYSROOT/bin/busybox" ] || die "busybox-static:$DEB_ARCH has no /bin/busybox"
[ -x "$SYSROOT/usr/bin/trinity" ] || die "trinity:$DEB_ARCH has no /usr/bin/trinity"
echo "${PKGS[*]}" >"$SYSROOT/.done"
