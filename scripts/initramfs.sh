#!/bin/bash
# initramfs.sh ARCH: build/initramfs/ARCH.cpio with busybox, the init, the
# kselftests, the examples and trinity. Uncompressed newc; the kernel needs no
# decompressor for it.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: initramfs.sh ARCH}
load_arch "$arch"
SYSROOT=$BUILD/sysroot/$DEB_ARCH
ROOT=$BUILD/initramfs/$arch
OUT=$BUILD/initramfs/$arch.cpio

# Debian's trinity and the two files of libc6 it needs: libc and the
# dynamic loader, under the paths its ELF header and ld.so look at.
install_trinity() {
	local multiarch f
	multiarch=$(dpkg-architecture -a"$DEB_ARCH" -qDEB_HOST_MULTIARCH 2>/dev/null)
	install -D -m 0755 "$SYSROOT/usr/bin/trinity" "$ROOT/usr/bin/trinity"
	mkdir -p "$ROOT/lib/$multiarch"
	cp -a "$SYSROOT/lib/$multiarch/libc.so.6" "$SYSROOT/lib/$multiarch"/ld-linux-*.so.* \
		"$ROOT/lib/$multiarch/"
	# the loader's path in the ELF header: /lib64/... or /lib/...
	for f in "$SYSROOT"/lib64 "$SYSROOT"/lib/ld-linux-*.so.*; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		cp -a "$f" "$ROOT/${f#"$SYSROOT"/}"
	done
}

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
	install_trinity
	(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$OUT"
	say "initramfs ready: ${OUT#"$TOP"/} ($(du -h "$OUT" | cut -f1))"
}

main
