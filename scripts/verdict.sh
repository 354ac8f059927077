#!/bin/bash
# Judge a guest console log.
#   verdict.sh --tests LOG LABEL [EXPECTED]
#       kselftest run: prints "LABEL<TAB>collection<TAB>passed<TAB>failed<TAB>skipped"
#       per collection on stdout and one line per problem on stderr; exit 1
#       on any failed test, missing result, kernel report, hang or crash.
#       EXPECTED is the number of tests the guest was given.
#   verdict.sh --program LOG
#       demo or vm-run: exit with the guest program's status, or 1 with a
#       one-line cause if the kernel reported a problem, hung or crashed.
. "$(dirname "$0")/lib.sh"

parse() { awk -v mode="${2:-tests}" -f "$TOP/scripts/verdict.awk" "$1"; }

tests_verdict() {
	local log=$1 label=$2 expected=${3:-0} out bad=0 reported
	[ -f "$log" ] || die "no console log at $log"
	out=$(parse "$log")
	while IFS=$'\t' read -r kind a b c d; do
		case "$kind" in
		R)
			printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$a" "$b" "$c" "$d"
			[ "$c" -eq 0 ] || bad=1
			;;
		P)
			printf '%s: %s\n' "$label" "$a" >&2
			bad=1
			;;
		esac
	done <<<"$out"
	reported=$(grep -c '^R' <<<"$out" || true)
	if [ "$expected" -gt 0 ]; then
		local got
		got=$(grep -cE '^(not )?ok [0-9]+ selftests: ' "$log" || true)
		if [ "$got" -lt "$expected" ]; then
			printf '%s: %s\n' "$label" "only $got of $expected tests ran (log: ${log#"$TOP"/})" >&2
			bad=1
		fi
	fi
	[ "$reported" -gt 0 ] || bad=1
	return "$bad"
}

program_verdict() {
	local log=$1 out status problems
	[ -f "$log" ] || die "no console log at $log"
	out=$(parse "$log" program)
	problems=$(sed -n 's/^P\t//p' <<<"$out")
	status=$(sed -n 's/^X\t//p' <<<"$out")
	if [ -n "$problems" ]; then
		printf '%s\n' "$problems" | sed 's/^/ERROR: /' >&2
		echo "ERROR: see the console log: ${log#"$TOP"/}" >&2
		return 1
	fi
	return "$status"
}

case "${1:-}" in
--tests) tests_verdict "$2" "$3" "${4:-0}" ;;
--program) program_verdict "$2" ;;
*) die "usage: verdict.sh --tests LOG LABEL [EXPECTED] | --program LOG" ;;
esac
