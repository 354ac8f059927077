#!/bin/bash
# make check: every test. Stages:
#   1. harness self-tests (the log parser and verdicts on recorded logs)
#   2. the series applies to the pinned base with git am
#   3. per target (ARCH:FLAVOR): kernel, kselftests, initramfs, boot, verdict
#   4. make series-check and its self-tests
#   5. a table per arch and suite, then "N passed, N failed, N skipped"
# A target is ARCH:FLAVOR[:KERNEL-PARAMETER[:COLLECTION/TEST[/CASE][:MIB]]]:
# the parameter is added to the boot command line, the next field runs
# one kselftest (one case of it) instead of all, and MIB gives the guest
# that much memory (its label gains +MIBM). The boots with secret memory
# switched off run only the test that expects it to be refused; the rest
# of the suite would only skip there. The x86_64 guest with 3 GiB, which
# q35 lays out with 1 GiB above 4 GiB, has 1 GiB direct-map pages, which
# the 1 GiB guests lack: the block cache's test runs there too, so that
# its level-3 split assertion can fail. arm64 runs its suite on the debug
# kernel only: the tests kernel would run the same tests with fewer
# checks, for another cold kernel build (9 of a fresh run's minutes);
# x86_64, the arch with the block cache, runs both. CHECK_TARGETS
# overrides.
. "$(dirname "$0")/lib.sh"

REFUSED=memfd/memfd_secret_test/refused_only_when_switched_off
TARGETS=${CHECK_TARGETS:-x86_64:tests x86_64:debug arm64:debug \
	x86_64:tests::memfd/memfd_secret_cache_test:3072 \
	x86_64:tests:secretmem.enable=0:$REFUSED arm64:debug:rodata=on:$REFUSED}
RESULTS=$BUILD/results.tsv
PROBLEMS=$BUILD/problems.txt

# Called where errexit does not apply, so every step checks its status:
# a failed build must never leave a stale kernel or initramfs to boot.
# scripts/prepare.sh is the same preparation, for one command.
prepare_arch() {
	local arch=$1 flavor=$2
	"$TOP/scripts/kernel.sh" "$arch" "$flavor" || return 1
	if [ -z "${userland_done[$arch]:-}" ]; then
		"$TOP/scripts/userland.sh" "$arch" || return 1
		userland_done[$arch]=1
	fi
}

# The guest's timeout contains every per-test timeout that the kselftest
# runner applies (a collection's settings file, else its default of 45 s),
# plus the boot and KUnit: a hung test is killed and named by the runner,
# and the tests after it still run. Only a guest that stops altogether
# meets this timeout.
guest_timeout() {
	local arch=$1 flavor=$2 only=$3 inst=$BUILD/kselftest/$1 t coll n sum=300
	[ "$flavor" = tests ] || sum=900
	while read -r t; do
		[ -z "$only" ] || [ "$t" = "$only" ] || continue
		coll=${t%%:*}
		n=$(sed -n 's/^timeout=//p' "$inst/$coll/settings" 2>/dev/null || true)
		sum=$((sum + ${n:-45}))
	done <"$inst/kselftest-list.txt"
	echo "$sum"
}

# Ahead of time: a TCG guest keeps about 1.1 of the 2 CPUs busy, so
# while one boots, what comes next is built in the background at the
# lowest priority: the next target's kernel and userland, and after the
# last kernel the series gate (its self-tests and series-check). Each
# step still runs in its turn and finds its result made (kernel.sh's
# build record, userland.sh's stamp, the passes of the series self-tests
# and of series-check), so what is judged and printed is the same; a
# step that failed ahead runs again in its turn and reports there. One
# job at a time, in a process group of its own, killed if make check
# stops.
AHEAD_PID='' AHEAD_KIND='' AHEAD_WHAT='' AHEAD_LOG=''

# ahead KIND LOG WHAT SCRIPT ARG...: run the bash SCRIPT ($1 is $TOP,
# then the ARGs) in the background, niced, its output in LOG.
ahead() {
	AHEAD_KIND=$1 AHEAD_LOG=$2 AHEAD_WHAT=$3
	shift 3
	mkdir -p "$(dirname "$AHEAD_LOG")"
	say "meanwhile, in the background: $AHEAD_WHAT (log ${AHEAD_LOG#"$TOP"/})"
	setsid nice -n 19 bash -c "$1" _ "$TOP" "${@:2}" >"$AHEAD_LOG" 2>&1 &
	AHEAD_PID=$!
}

# ahead_next: before a boot, start what comes next if nothing runs: the
# first kernel of the targets not yet prepared, else the series gate.
# shellcheck disable=SC2016  # the scripts' $1.. are ahead's arguments
ahead_next() {
	local k arch flavor what cmd
	[ -z "$AHEAD_PID" ] || return 0
	for k in $KERNELS; do
		[ -z "${prepared[$k]:-}" ] || continue
		prepared[$k]=ahead
		IFS=: read -r arch flavor <<<"$k"
		what="the $arch $flavor kernel" cmd='"$1/scripts/kernel.sh" "$2" "$3"'
		# the userland of an arch whose guest may be booting is left
		# alone: prepare_arch made it, and it does not depend on the flavour
		if [ -z "${userland_done[$arch]:-}" ]; then
			what+=" and userland"
			cmd+=' && "$1/scripts/userland.sh" "$2"'
		fi
		ahead kernel "$BUILD/logs/ahead-$arch-$flavor.log" "$what" "$cmd" "$arch" "$flavor"
		return 0
	done
	[ -z "${prepared[series]:-}" ] || return 0
	prepared[series]=ahead
	ahead series "$BUILD/logs/ahead-series.log" "the series self-tests and series-check" \
		'r=0; "$1/tests/series/run.sh" || r=1; "$1/scripts/series-check.sh" || r=1; exit $r'
}

# ahead_wait [KIND]: wait for the job ahead (only if it is of KIND).
ahead_wait() {
	[ -n "$AHEAD_PID" ] || return 0
	[ -z "${1:-}" ] || [ "$1" = "$AHEAD_KIND" ] || return 0
	if wait "$AHEAD_PID"; then
		say "done in the background: $AHEAD_WHAT"
	else
		say "failed in the background: $AHEAD_WHAT; it runs again now (log ${AHEAD_LOG#"$TOP"/})"
	fi
	AHEAD_PID=
}

ahead_kill() { [ -z "$AHEAD_PID" ] || kill -- -"$AHEAD_PID" 2>/dev/null || true; }

run_target() {
	local arch=$1 flavor=$2 param=$3 only=$4 mib=$5 label log expected timeout select=
	local coll test case mem=${mib:-${MEM:-}}
	label=$arch-$flavor${param:++$param}${mib:++${mib}M}
	if [ -n "$only" ]; then
		IFS=/ read -r coll test case <<<"$only"
		select="harness.only=$coll:$test${case:+ harness.case=$case}"
	fi
	ahead_wait kernel
	prepared[$arch:$flavor]=1
	prepare_arch "$arch" "$flavor" || die "$label: the build failed (see the ERROR above)"
	timeout=$(guest_timeout "$arch" "$flavor" "${coll:+$coll:$test}")
	log=$BUILD/logs/$label-check.log
	expected=$(wc -l <"$BUILD/kselftest/$arch/kselftest-list.txt")
	[ -z "$only" ] || expected=1
	# a green verdict is kept for exactly these inputs: the kernel, the
	# initramfs, the boot parameters, QEMU, and the harness that judged it
	local stamp pass=$BUILD/results/$label.pass
	stamp=$({
		load_arch "$arch"
		sha256sum "$(objdir "$arch" "$flavor")/$KERNEL_IMAGE" "$BUILD/initramfs/$arch.cpio"
		echo "$param $select ${SMP:-} $mem ${TIMEOUT:-$timeout} $expected"
		"$QEMU" --version
		cat "$TOP/configs/$flavor.cmdline" 2>/dev/null || true
		stamp_common "$TOP"/scripts/{check,vm,verdict}.sh "$TOP/scripts/verdict.awk" \
			"$TOP/selftests.skip"
	} | sha256sum | cut -d' ' -f1)
	if [ -z "${CHECK_RERUN:-}" ] && [ "$(head -n1 "$pass" 2>/dev/null)" = "$stamp" ]; then
		tail -n +2 "$pass" >>"$RESULTS"
		say "$label: reusing its pass: nothing it depends on changed (CHECK_RERUN=1 boots anyway)"
		return 0
	fi
	rm -f "$pass"
	ahead_next
	LOG_TAG=${label#"$arch-$flavor"} CMDLINE_EXTRA="$param $select" TIMEOUT=${TIMEOUT:-$timeout} \
		MEM=$mem "$TOP/scripts/vm.sh" "$arch" "$flavor" check ||
		die "$label: could not boot (see the ERROR above)"
	local rows
	if ! rows=$("$TOP/scripts/verdict.sh" --tests "$log" "$label" "$expected" 2>>"$PROBLEMS"); then
		printf '%s\n' "$rows" >>"$RESULTS"
		say "$label: FAILED (console log: ${log#"$TOP"/})"
		return 1
	fi
	printf '%s\n' "$rows" >>"$RESULTS"
	mkdir -p "$(dirname "$pass")"
	{ echo "$stamp"; printf '%s\n' "$rows"; } >"$pass"
	say "$label: all tests passed"
}

# A check that needs no VM and prints "ok ..." and "FAIL ..." lines: one
# table row.
host_check() {
	local name=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=1
	printf 'host\t%s\t%d\t%d\t0\n' "$name" "$(grep -c '^ok ' <<<"$out")" \
		"$(grep -c '^FAIL ' <<<"$out")" >>"$RESULTS"
	if [ "$rc" -ne 0 ]; then
		grep -A3 '^FAIL ' <<<"$out" | sed "s/^/host: $name: /" >>"$PROBLEMS" ||
			echo "host: $name: failed without saying why" >>"$PROBLEMS"
	fi
	return "$rc"
}

# Checks that need no VM: the man page renders without warnings, and the
# syzkaller constants match the uapi headers.
host_checks() {
	local rc=0
	host_check man "$TOP/scripts/man-check.sh" || rc=1
	host_check syzkaller-consts "$TOP/tests/syzkaller/check-consts.sh" || rc=1
	return "$rc"
}

# make series-check, and its self-tests on deliberately broken patches.
# Their progress is shown as it happens; their problems are collected.
# The self-tests go first: each of their broken patches sits on the
# series' head, which is where series-check's bisect starts, so the
# builds of one warm the other; the bisect ends at the first patch,
# from which the self-tests would build the whole series again.
series_checks() {
	local err=$BUILD/series-check.err rc=0 out check_rc
	if [ "${prepared[series]:-}" = ahead ]; then
		ahead_wait
		say "the series gate's output in the background:"
		cat "$AHEAD_LOG" >&2
		say "the series gate in its turn:"
	fi
	# -a: where stderr is a file (make check >log 2>&1), tee would
	# otherwise open it afresh and truncate everything before this point
	if out=$("$TOP/tests/series/run.sh" 2>&1 | tee -a /dev/stderr); then
		printf 'host\tseries-selftest\t%d\t0\t0\n' "$(grep -c ': caught: ' <<<"$out")" >>"$RESULTS"
	else
		printf 'host\tseries-selftest\t%d\t%d\t0\n' "$(grep -c ': caught: ' <<<"$out")" \
			"$(grep -c ': NOT caught ' <<<"$out")" >>"$RESULTS"
		grep ': NOT caught ' <<<"$out" | sed 's/^/host: /' >>"$PROBLEMS" ||
			echo "host: the series self-tests stopped: $(tail -n1 <<<"$out")" >>"$PROBLEMS"
		rc=1
	fi
	set +e
	{ "$TOP/scripts/series-check.sh" 2>&1 1>&3 3>&- | tee "$err" >&2; } 3>>"$RESULTS"
	check_rc=${PIPESTATUS[0]}
	set -e
	grep '^series: ' "$err" >>"$PROBLEMS" || true
	if [ "$check_rc" -ne 0 ]; then
		rc=1
		grep -q '^series: ' "$err" ||
			echo "series: series-check stopped without saying why: $(tail -n1 "$err")" >>"$PROBLEMS"
	fi
	return "$rc"
}

print_table() {
	local p=0 f=0 s=0 label suite np nf ns
	printf '\n%-32s %-28s %7s %7s %7s\n' TARGET SUITE PASSED FAILED SKIPPED
	while IFS=$'\t' read -r label suite np nf ns; do
		printf '%-32s %-28s %7d %7d %7d\n' "$label" "$suite" "$np" "$nf" "$ns"
		p=$((p + np)) f=$((f + nf)) s=$((s + ns))
	done <"$RESULTS"
	if [ -s "$PROBLEMS" ]; then
		echo
		echo "Problems:"
		sed 's/^/  /' "$PROBLEMS"
		# a crash, hang or kernel report with every test ok still fails
		[ "$f" -gt 0 ] || f=$(wc -l <"$PROBLEMS")
	fi
	echo
	echo "$p passed, $f failed, $s skipped"
	[ "$f" -eq 0 ]
}

main() {
	declare -gA userland_done=() prepared=()
	local k arch flavor
	KERNELS=
	for k in $TARGETS; do
		IFS=: read -r arch flavor _ <<<"$k"
		k=$arch:${flavor:-tests}
		case " $KERNELS " in *" $k "*) ;; *) KERNELS+=" $k" ;; esac
	done
	trap ahead_kill EXIT
	trap 'exit 130' INT TERM
	"$TOP/scripts/deps.sh"
	say "stage 1: harness self-tests"
	"$TOP/tests/harness/run.sh"
	say "stage 2: applying the series to the pinned base"
	"$TOP/scripts/tree.sh"
	mkdir -p "$BUILD"
	: >"$RESULTS"
	: >"$PROBLEMS"
	local t status=0
	say "stage 2b: man pages render without warnings; syzkaller constants"
	host_checks || status=1
	local param only mib
	for t in $TARGETS; do
		IFS=: read -r arch flavor param only mib <<<"$t"
		say "stage 3: $arch $flavor${param:+ with $param}${only:+, only $only}${mib:+, $mib MiB}"
		run_target "$arch" "${flavor:-tests}" "$param" "$only" "$mib" || status=1
	done
	ahead_wait kernel
	say "stage 4: series-check (checkpatch, bisect builds, sparse, Debian configs, docs, uapi)"
	series_checks || status=1
	if [ "$status" != 0 ] && [ ! -s "$PROBLEMS" ]; then
		echo "check: a stage failed without naming its problem (see its output above)" >>"$PROBLEMS"
	fi
	print_table | tee "$BUILD/check-summary.txt" || status=1
	# the cover letter quotes the latest summary (make export): only a
	# full, green run may replace it
	if [ "$status" = 0 ] && [ -z "${CHECK_TARGETS:-}" ]; then
		mkdir -p "$TOP/results"
		sed '1{/^$/d}' "$BUILD/check-summary.txt" >"$TOP/results/check-summary.txt"
	elif [ "$status" = 0 ]; then
		say "CHECK_TARGETS is set: results/check-summary.txt is left as it was"
	fi
	return "$status"
}

main
