#!/bin/bash
# initramfs.sh ARCH: build/initramfs/ARCH.cpio with busybox, the init, the
# kselftests, the examples, trinity and stress-ng. Uncompressed newc; the kernel needs no
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

# Debian's stress-ng and the shared libraries it needs, found through
# their DT_NEEDED entries, recursively, among the packages sysroot.sh
# unpacked for it; the loader comes with trinity.
install_stress_ng() {
	local dir=$BUILD/sysroot/$DEB_ARCH-stress-ng multiarch f need d found
	local -a queue=(usr/bin/stress-ng)
	local seen=' '
	multiarch=$(dpkg-architecture -a"$DEB_ARCH" -qDEB_HOST_MULTIARCH 2>/dev/null)
	install -D -m 0755 "$dir/usr/bin/stress-ng" "$ROOT/usr/bin/stress-ng"
	mkdir -p "$ROOT/lib/$multiarch"
	while [ "${#queue[@]}" -gt 0 ]; do
		f=${queue[0]}
		queue=("${queue[@]:1}")
		for need in $(readelf -d "$dir/$f" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
			case "$seen" in *" $need "*) continue ;; esac
			seen+="$need "
			found=
			for d in "lib/$multiarch" "usr/lib/$multiarch"; do
				[ -e "$dir/$d/$need" ] || continue
				cp -L "$dir/$d/$need" "$ROOT/lib/$multiarch/$need"
				queue+=("$d/$need")
				found=1
				break
			done
			[ -n "$found" ] || die "stress-ng for $arch needs $need, which no package of its has"
		done
	done
}

main() {
	need_cmd cpio readelf
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
	install_stress_ng
	(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$OUT"
	say "initramfs ready: ${OUT#"$TOP"/} ($(du -h "$OUT" | cut -f1))"
}

main
