#!/bin/bash
# Build one test kernel: kernel.sh ARCH FLAVOR
# Config = tinyconfig + configs/base.config + the arch fragment (+ the
# flavour's fragment), merged with the kernel's merge_config.sh. The O=
# directory is kept and ccache shared, so a rebuild is incremental.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: kernel.sh ARCH FLAVOR}
flavor=${2:-tests}
load_arch "$arch"
O=$(objdir "$arch" "$flavor")

fragments() {
	echo "$TOP/configs/base.config"
	echo "$TOP/$CONFIG_FRAGMENT"
	case "$flavor" in
	tests) ;;
	*)
		[ -f "$TOP/configs/$flavor.config" ] ||
			die "unknown FLAVOR '$flavor': no configs/$flavor.config"
		echo "$TOP/configs/$flavor.config"
		;;
	esac
}

# Every option a fragment asks for must be in the final .config; a
# silently dropped option (unmet dependency) would test the wrong kernel.
verify_config() {
	local f line opt bad=0
	while read -r f; do
		while read -r line; do
			case "$line" in
			CONFIG_*=*) opt=${line%%=*} ;;
			"# CONFIG_"*" is not set") opt=${line#\# } && opt=${opt%% *} ;;
			*) continue ;;
			esac
			if [ "${line#CONFIG_}" != "$line" ]; then
				grep -qxF "$line" "$O/.config" || {
					warn "${f#"$TOP"/}: $line did not survive olddefconfig (now: $(grep -E "^(# )?${opt}[= ]" "$O/.config" || echo unset))"
					bad=1
				}
			else
				! grep -q "^$opt=" "$O/.config" || {
					warn "${f#"$TOP"/}: $opt should be off but is $(grep "^$opt=" "$O/.config")"
					bad=1
				}
			fi
		done <"$f"
	done < <(fragments)
	[ "$bad" -eq 0 ] || die "kernel config for $arch-$flavor lacks options its fragments ask for (see above)"
}

kmake() {
	make -C "$TREE" O="$O" ARCH="$KARCH" CROSS_COMPILE="$CROSS_COMPILE" \
		CC="ccache ${CROSS_COMPILE}gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP='2000-01-01' KBUILD_BUILD_USER=harness \
		KBUILD_BUILD_HOST=harness "$@"
}

configure() {
	local want have=
	want=$({
		echo "$TREE_HEAD_CONFIG_INPUTS"
		fragments | xargs cat
	} | sha256sum | cut -d' ' -f1)
	[ -f "$O/.harness-config" ] && have=$(cat "$O/.harness-config")
	if [ -f "$O/.config" ] && [ "$want" = "$have" ]; then
		kmake -s olddefconfig >/dev/null
		return 0
	fi
	say "configuring $arch-$flavor: tinyconfig + $(fragments | sed "s|$TOP/||" | tr '\n' ' ')"
	mkdir -p "$O"
	kmake -s tinyconfig >/dev/null
	# shellcheck disable=SC2046
	(cd "$O" && "$TREE/scripts/kconfig/merge_config.sh" -m -O "$O" "$O/.config" $(fragments)) >/dev/null
	kmake -s olddefconfig >/dev/null
	verify_config
	echo "$want" >"$O/.harness-config"
}

main() {
	need_cmd make ccache "${CROSS_COMPILE}gcc" flex bison bc
	[ -d "$TREE/.git" ] || die "no kernel tree: run 'make tree' first"
	need_disk "$BUILD" 2000
	export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
	# Kconfig files can change with the series, so they are an input too.
	TREE_HEAD_CONFIG_INPUTS=$(git -C "$TREE" ls-files -s -- '*Kconfig*' | sha256sum)
	configure
	local target
	target=$(basename "$KERNEL_IMAGE")
	say "building $arch-$flavor kernel ($target) in ${O#"$TOP"/} (cold: 2.5-5 min; warm: seconds)"
	run_logged "$O/build.log" kmake -j"$(nproc)" "$target" ||
		die "kernel build failed for $arch-$flavor (log: ${O#"$TOP"/}/build.log)"
	run_logged "$O/headers.log" kmake -s headers_install ||
		die "headers_install failed for $arch-$flavor (log: ${O#"$TOP"/}/headers.log)"
	say "kernel ready: ${O#"$TOP"/}/$KERNEL_IMAGE"
}

main
