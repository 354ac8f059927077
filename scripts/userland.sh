#!/bin/bash
# userland.sh ARCH: everything the guest runs, for ARCH: the uapi headers
# of build/linux (make headers_install, which needs no kernel config), the
# guest's Debian pieces (sysroot.sh), the kselftests (selftests.sh), the
# examples (examples.sh) and the initramfs (initramfs.sh). It depends on
# the tree and the arch only, never on a kernel build, so every flavour
# and every command (check, run, shell, vm-run, fuzz, bench) uses the one
# result. Skipped when nothing it is made from has changed.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: userland.sh ARCH}
load_arch "$arch"
STAMP=$BUILD/initramfs/$arch.stamp

# The tree's commit and uncommitted changes, and this repository's guest
# files: what the userland is made from.
inputs() {
	git -C "$TREE" rev-parse HEAD
	git -C "$TREE" diff HEAD -- tools include/uapi "arch/$SRCARCH/include/uapi" scripts
	cat "$TOP/selftests.list" "$TOP/guest/init" "$TOP"/examples/*.c "$TOP"/tests/trinity/*.c "$TOP"/tests/stress-ng/*.sh
	stamp_common "$TOP"/scripts/{userland,selftests,examples,initramfs,sysroot}.sh
}

main() {
	local want
	[ -d "$TREE/.git" ] || die "no kernel tree: run 'make tree' first"
	want=$(inputs | sha256sum | cut -d' ' -f1)
	if [ -f "$BUILD/initramfs/$arch.cpio" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ]; then
		say "userland for $arch up to date"
		return 0
	fi
	rm -f "$STAMP"
	need_cmd make "${CROSS_COMPILE}gcc"
	run_logged "$BUILD/headers/$arch.log" kmake "$TREE" "$BUILD/headers/$arch" -s headers_install ||
		die "headers_install failed for $arch (log: build/headers/$arch.log)"
	"$TOP/scripts/selftests.sh" "$arch"
	"$TOP/scripts/examples.sh" "$arch"
	"$TOP/scripts/initramfs.sh" "$arch"
	echo "$want" >"$STAMP"
}

main
