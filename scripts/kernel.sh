#!/bin/bash
# Build one test kernel: kernel.sh ARCH FLAVOR
# Config = tinyconfig + configs/base.config + the arch fragment (+ the
# flavour's fragment), merged with the kernel's merge_config.sh (lib.sh's
# kconfigure, which series-check and bench use too). The O= directory is
# kept and ccache shared, so a rebuild is incremental. The config is
# checked against the fragments on every run; make runs unless the
# tree's commit, the config, the tools and the harness are those of the
# last build (build_inputs).
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: kernel.sh ARCH FLAVOR}
flavor=${2:-tests}
load_arch "$arch"
O=$(objdir "$arch" "$flavor")

main() {
	local frags target want
	need_cmd make ccache "${CROSS_COMPILE}gcc" flex bison bc
	[ -d "$TREE/.git" ] || die "no kernel tree: run 'make tree' first"
	need_disk "$BUILD" 2000
	fragments "$flavor" >/dev/null # dies on an unknown flavour
	mapfile -t frags < <(fragments "$flavor")
	kconfigure "$TREE" "$O" "${frags[@]}"
	kconfig_verify "$O" "${frags[@]}" ||
		die "kernel config for $arch-$flavor lacks options its fragments ask for (see above)"
	target=$(basename "$KERNEL_IMAGE")
	want=$(build_inputs)
	if [ -f "$O/$KERNEL_IMAGE" ] && [ "$(cat "$O/.harness-build" 2>/dev/null)" = "$want" ]; then
		say "kernel $arch-$flavor up to date: ${O#"$TOP"/}/$KERNEL_IMAGE (the tree's commit and the config unchanged)"
		return 0
	fi
	rm -f "$O/.harness-build"
	say "building $arch-$flavor kernel ($target) in ${O#"$TOP"/} (cold: 3-9 min; warm: seconds)"
	kbuild_image "$TREE" "$O" "$O/build.log" ||
		die "kernel build failed for $arch-$flavor (log: ${O#"$TOP"/}/build.log)"
	build_inputs >"$O/.harness-build"
	say "kernel ready: ${O#"$TOP"/}/$KERNEL_IMAGE"
}

# What the image is built from: the tree's commit, the configuration,
# the tools and the harness. A tree with uncommitted or untracked changes
# never matches, so an edit in build/linux is always built; a committed
# tree and an unchanged .config skip the pass of make that would find
# nothing to do (about 20 s of make vm-run).
build_inputs() {
	{
		git -C "$TREE" rev-parse HEAD
		[ -z "$(git -C "$TREE" status --porcelain)" ] || echo "uncommitted changes: $(date +%s%N)"
		cat "$O/.config"
		stamp_common "$0"
		sha256sum "$O/$KERNEL_IMAGE" 2>/dev/null || true
	} | sha256sum | cut -d' ' -f1
}

main
