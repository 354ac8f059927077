#!/bin/bash
# vm.sh ARCH FLAVOR MODE [PROG [ARGS...]]: boot the test kernel in QEMU.
#   MODE check  run the kselftests; the log is judged by scripts/verdict.sh
#   MODE demo   run examples/secret-demo
#   MODE run    run PROG (a static binary) with ARGS; exit with its status
#   MODE shell  an interactive shell (Ctrl-A x quits QEMU)
# The console log is kept in build/logs/ARCH-FLAVOR-MODE.log.
# Environment: KVM=1 (use KVM, not TCG), TIMEOUT (s), MEM (MiB), SMP,
# CMDLINE_EXTRA (more kernel parameters), LOG_TAG (added to the log name),
# SHOW=1 (echo the console).
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: vm.sh ARCH FLAVOR MODE [PROG [ARGS...]]}
flavor=${2:?}
mode=${3:?}
shift 3
load_arch "$arch"
SMP_WANT=${SMP:-2}

KERNEL=$(objdir "$arch" "$flavor")/$KERNEL_IMAGE
INITRD=$BUILD/initramfs/$arch.cpio
LOG=$BUILD/logs/$arch-$flavor${LOG_TAG:-}-$mode.log

# For MODE=run: append a second archive holding the program; the kernel
# unpacks concatenated newc archives in order.
initrd_with_prog() {
	local prog=$1 stage=$BUILD/vm-run/$arch
	shift
	[ -f "$prog" ] || die "PROG '$prog' does not exist"
	local headers
	headers=$(readelf -l "$prog" 2>/dev/null || true)
	! grep -q 'Requesting program interpreter' <<<"$headers" ||
		die "PROG '$prog' is dynamically linked; the guest has no libc: build it with -static"
	rm -rf "$stage"
	mkdir -p "$stage/root/harness"
	install -m 0755 "$prog" "$stage/root/harness/prog"
	printf '%s\n' "$*" >"$stage/root/harness/args"
	(cd "$stage/root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$stage/prog.cpio"
	cat "$INITRD" "$stage/prog.cpio" >"$stage/initrd.cpio"
	echo "$stage/initrd.cpio"
}

qemu_cmd() {
	local initrd=$1 accel=(-accel tcg) cpu=$QEMU_CPU loglevel=5
	# KUnit's results are KERN_INFO; only the test run needs them
	[ "$mode" = check ] && loglevel=7
	ACCEL=TCG
	if [ "${KVM:-0}" = 1 ]; then
		ACCEL=KVM
		[ -w /dev/kvm ] || die "KVM=1 but /dev/kvm is not usable"
		accel=(-accel kvm)
		cpu=$QEMU_KVM_CPU
	fi
	# a flavour's own kernel parameters (configs/FLAVOR.cmdline)
	local extra=
	[ -f "$TOP/configs/$flavor.cmdline" ] && extra=$(grep -v '^#' "$TOP/configs/$flavor.cmdline" | tr '\n' ' ')
	QEMU_ARGS=("$QEMU" -nodefaults -nographic -no-reboot "${accel[@]}"
		-machine "$QEMU_MACHINE" -cpu "$cpu" -smp "$SMP_WANT" -m "${MEM:-1024}"
		-kernel "$KERNEL" -initrd "$initrd" -serial stdio
		-append "console=$CONSOLE panic=-1 loglevel=$loglevel harness.mode=$mode $CMDLINE $extra${CMDLINE_EXTRA:-}")
	# QEMU_EXTRA: more QEMU options, split on blanks (make bench's -mem-prealloc)
	local more
	read -ra more <<<"${QEMU_EXTRA:-}"
	QEMU_ARGS+=("${more[@]}")
}

main() {
	need_cmd "$QEMU" timeout cpio
	[ -f "$KERNEL" ] || die "no kernel at ${KERNEL#"$TOP"/}: build it first (make kernel ARCH=$arch FLAVOR=$flavor)"
	[ -f "$INITRD" ] || die "no initramfs at ${INITRD#"$TOP"/}: build it first"
	local initrd=$INITRD
	[ "$mode" = run ] && initrd=$(initrd_with_prog "$@")
	qemu_cmd "$initrd"
	mkdir -p "$(dirname "$LOG")"
	# the judge compares the guest's CPU count with this request
	echo "HARNESS-HOST: smp=$SMP_WANT" >"$LOG"
	if [ "$mode" = shell ]; then
		say "booting $arch-$flavor with a shell (Ctrl-A x quits)"
		"${QEMU_ARGS[@]}" | tee -a "$LOG"
		return 0
	fi
	local timeout=${TIMEOUT:-600} rc=0
	say "booting $arch-$flavor under $ACCEL, harness.mode=$mode (timeout ${timeout}s, log ${LOG#"$TOP"/})"
	if [ "${SHOW:-0}" = 1 ]; then
		timeout -k 5 "$timeout" "${QEMU_ARGS[@]}" </dev/null | tee -a "$LOG" || rc=$?
	else
		timeout -k 5 "$timeout" "${QEMU_ARGS[@]}" </dev/null >>"$LOG" 2>&1 || rc=$?
	fi
	# 124: timeout fired; 137: it had to kill QEMU
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "HARNESS-HOST: timeout after ${timeout}s" >>"$LOG"
	elif [ "$rc" != 0 ]; then
		echo "HARNESS-HOST: qemu exited with status $rc" >>"$LOG"
	fi
	[ "$mode" = check ] && return 0
	"$TOP/scripts/verdict.sh" --program "$LOG"
}

main "$@"
