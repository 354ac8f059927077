#!/bin/bash
# Harness self-tests: the verdict on recorded console logs must match the
# golden file beside each log (its output, then "exit N"). Also checks the
# harness scripts with shellcheck. UPDATE=1 rewrites the golden files.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)

judge() {
	local log=$1 rc=0
	case "$(basename "$log")" in
	demo-* | run-*) "$TOP/scripts/verdict.sh" --program "$log" 2>&1 || rc=$? ;;
	*) "$TOP/scripts/verdict.sh" --tests "$log" x86_64-tests 3 2>&1 || rc=$? ;;
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
