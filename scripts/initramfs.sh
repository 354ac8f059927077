#!/bin/bash
# initramfs.sh ARCH: build/initramfs/ARCH.cpio with busybox, the init, the
# kselftests and the examples. Uncompressed newc; the kernel needs no
# decompressor for it.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: initramfs.sh ARCH}
load_arch "$arch"
SYSROOT=$BUILD/sysroot/$DEB_ARCH
ROOT=$BUILD/initramfs/$arch
OUT=$BUILD/initramfs/$arch.cpio

main() {
	need_cmd cpio
	"$TOP/scripts/sysroot.sh" "$arch"
	[ -d "$BUILD/kselftest/$arch" ] || die "no kselftests for $arch: run scripts/selftests.sh $arch"
	[ -d "$BUILD/examples/$arch" ] || die "no examples for $arch: run scripts/examples.sh $arch"
	rm -rf "$ROOT"
	mkdir -p "$ROOT/bin" "$ROOT/dev"
	install -m 0755 "$SYSROOT/bin/busybox" "$ROOT/bin/busybox"
	install -m 0755 "$TOP/guest/init" "$ROOT/init"
	cp -a "$BUILD/kselftest/$arch" "$ROOT/kselftest"
	cp -a "$BUILD/examples/$arch" "$ROOT/examples"
	(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$OUT"
	say "initramfs ready: ${OUT#"$TOP"/} ($(du -h "$OUT" | cut -f1))"
}

main
