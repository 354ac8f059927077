#!/bin/bash
# Build one test kernel: kernel.sh ARCH FLAVOR
# Config = tinyconfig + configs/base.config + the arch fragment (+ the
# flavour's fragment), merged with the kernel's merge_config.sh (lib.sh's
# kconfigure, which series-check and bench use too). The O= directory is
# kept and ccache shared, so a rebuild is incremental. The config is
# checked against the fragments on every run.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: kernel.sh ARCH FLAVOR}
flavor=${2:-tests}
load_arch "$arch"
O=$(objdir "$arch" "$flavor")

main() {
	local frags target
	need_cmd make ccache "${CROSS_COMPILE}gcc" flex bison bc
	[ -d "$TREE/.git" ] || die "no kernel tree: run 'make tree' first"
	need_disk "$BUILD" 2000
	fragments "$flavor" >/dev/null # dies on an unknown flavour
	mapfile -t frags < <(fragments "$flavor")
	kconfigure "$TREE" "$O" "${frags[@]}"
	kconfig_verify "$O" "${frags[@]}" ||
		die "kernel config for $arch-$flavor lacks options its fragments ask for (see above)"
	target=$(basename "$KERNEL_IMAGE")
	say "building $arch-$flavor kernel ($target) in ${O#"$TOP"/} (cold: 3-9 min; warm: seconds)"
	kbuild_image "$TREE" "$O" "$O/build.log" ||
		die "kernel build failed for $arch-$flavor (log: ${O#"$TOP"/}/build.log)"
	say "kernel ready: ${O#"$TOP"/}/$KERNEL_IMAGE"
}

main
