#!/bin/bash
# fuzz.sh ARCH FLAVOR SEED DURATION: run the secret memory fuzzer
# (tools/testing/selftests/memfd/memfd_secret_fuzz.c, built with the
# kselftests) for DURATION seconds with SEED, in the guest, on the debug
# kernel by default. The run fails on a fuzzer failure, which prints the
# seed and operation count that reproduce it, and on any kernel report.
# make check runs the same fuzzer with a fixed seed and 3000 operations.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: fuzz.sh ARCH FLAVOR SEED DURATION}
flavor=${2:?}
seed=${3:?}
duration=${4:?}
[[ "$seed" =~ ^[0-9]+$ ]] || die "SEED must be a number, not '$seed'"
if ! [[ "$duration" =~ ^[1-9][0-9]*$ ]]; then
	die "SECONDS must be a positive number, not '$duration'"
fi

"$TOP/scripts/prepare.sh" "$arch" "$flavor"
say "fuzzing secret memory on $arch-$flavor for ${duration}s with seed $seed"
if ! TIMEOUT=$((duration + 600)) LOG_TAG=-fuzz SHOW=${SHOW:-0} \
	"$TOP/scripts/vm.sh" "$arch" "$flavor" run \
	"$BUILD/kselftest/$arch/memfd/memfd_secret_fuzz" -s "$seed" -t "$duration"; then
	grep -h -e '^# FAIL' -e '^# reproduce' "$BUILD/logs/$arch-$flavor-fuzz-run.log" >&2 || true
	die "the fuzzer failed with seed $seed (console log: build/logs/$arch-$flavor-fuzz-run.log)"
fi
grep -h 'operations' "$BUILD/logs/$arch-$flavor-fuzz-run.log" | tail -1
say "no failure and no kernel report"
