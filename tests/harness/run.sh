#!/bin/bash
# Harness self-tests: the verdict on recorded console logs must match the
# golden file beside each log (its output, then "exit N"); logs/skips.list
# holds the skips the logs expect. Also checks the
# harness scripts with shellcheck. UPDATE=1 rewrites the golden files.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)

# The label of a test log is its name, so that logs/skips.list can
# expect skips of one log and not of another.
judge() {
	local log=$1 name rc=0
	name=$(basename "$log" .log)
	case "$name" in
	demo-* | run-*) "$TOP/scripts/verdict.sh" --program "$log" 2>&1 || rc=$? ;;
	*) SKIPS=$HERE/logs/skips.list "$TOP/scripts/verdict.sh" --tests "$log" "$name" 3 2>&1 || rc=$? ;;
	esac
	echo "exit $rc"
}

ok=0 bad=0
for log in "$HERE"/logs/*.log; do
	name=$(basename "$log" .log)
	want=$HERE/logs/$name.expect
	got=$(judge "$log" | sed "s|$TOP/||g")
	if [ "${UPDATE:-0}" = 1 ]; then
		printf '%s\n' "$got" >"$want"
	fi
	if [ -f "$want" ] && [ "$got" = "$(cat "$want")" ]; then
		ok=$((ok + 1))
	else
		bad=$((bad + 1))
		echo "harness self-test '$name': verdict differs from logs/$name.expect:" >&2
		diff <(cat "$want" 2>/dev/null) <(printf '%s\n' "$got") >&2 || true
	fi
done

# make bench's completeness and target checks on recorded measurements
# (bench/NAME/results.tsv and cache.tsv): an empty or partial run, or a
# missed target, must fail.
for dir in "$HERE"/bench/*/; do
	name=bench-$(basename "$dir")
	want=$dir/expect
	got=$({ BENCH_ARCHES=x86_64 "$TOP/scripts/bench.sh" --targets "$dir" 2>&1 && echo "exit 0"; } ||
		echo "exit $?")
	[ "${UPDATE:-0}" = 1 ] && printf '%s\n' "$got" >"$want"
	if [ -f "$want" ] && [ "$got" = "$(cat "$want")" ]; then
		ok=$((ok + 1))
	else
		bad=$((bad + 1))
		echo "harness self-test '$name': verdict differs from bench/$(basename "$dir")/expect:" >&2
		diff <(cat "$want" 2>/dev/null) <(printf '%s\n' "$got") >&2 || true
	fi
done

if command -v shellcheck >/dev/null; then
	if shellcheck -x -P "$TOP/scripts" "$TOP"/scripts/*.sh "$TOP"/tests/harness/*.sh "$TOP"/tests/series/*.sh "$TOP"/.ci/run ; then
		ok=$((ok + 1))
	else
		bad=$((bad + 1))
		echo "harness self-test 'shellcheck': the scripts above need fixing" >&2
	fi
fi

echo "harness self-tests: $ok ok, $bad wrong"
[ "$bad" -eq 0 ]
