#!/bin/bash
# Judge a guest console log.
#   verdict.sh --tests LOG LABEL [EXPECTED]
#       kselftest run: prints "LABEL<TAB>collection<TAB>passed<TAB>failed<TAB>skipped"
#       per collection on stdout and one line per problem on stderr; exit 1
#       on any failed test, missing result, kernel report, hang or crash.
#       EXPECTED is the number of tests the guest was given. Skips must
#       be the ones selftests.skip expects for LABEL (SKIPS=FILE overrides).
#   verdict.sh --program LOG
#       demo or vm-run: exit with the guest program's status, or 1 with a
#       one-line cause if the kernel reported a problem, hung or crashed.
. "$(dirname "$0")/lib.sh"

parse() { awk -v mode="${2:-tests}" -f "$TOP/scripts/verdict.awk" "$1"; }

# The expected skips of LABEL: "ID-PATTERN<TAB>REASON" lines from
# selftests.skip (SKIPS overrides), whose label pattern matches LABEL.
expected_skips() {
	local label=$1 lpat ipat reason
	# shellcheck disable=SC2254  # the file holds shell patterns
	while read -r lpat ipat reason; do
		case "$lpat" in '' | '#'*) continue ;; esac
		case "$label" in $lpat) printf '%s\t%s\n' "$ipat" "$reason" ;; esac
	done <"${SKIPS:-$TOP/selftests.skip}"
}

# Hold the skips of the log (S lines) against the expected ones: an
# unexpected skip fails, and so does an expected skip of a test that ran
# and did not skip. Prints one problem per line.
check_skips() {
	local label=$1 out=$2 id reason ipat why hit t bad=0
	local -a pats=() whys=() used=()
	while IFS=$'\t' read -r ipat why; do
		pats+=("$ipat") whys+=("$why") used+=(0)
	done < <(expected_skips "$label")
	while IFS=$'\t' read -r id reason; do
		hit=
		for i in "${!pats[@]}"; do
			# shellcheck disable=SC2053  # a pattern on purpose
			if [[ $id == ${pats[$i]} ]]; then
				hit=1 used[i]=1
			fi
		done
		if [ -z "$hit" ]; then
			echo "unexpected skip: $id${reason:+ ($reason)}"
			bad=1
		fi
	done < <(sed -n 's/^S\t//p' <<<"$out")
	# an expected skip counts as gone only where its test ran
	for i in "${!pats[@]}"; do
		[ "${used[$i]}" = 0 ] || continue
		t=${pats[$i]%%:*}
		[ "$t" = kunit ] || t=$(cut -d: -f1-2 <<<"${pats[$i]}")
		if grep -qxF "T	$t" <<<"$out"; then
			echo "expected skip did not happen: ${pats[$i]} (${whys[$i]})"
			bad=1
		fi
	done
	return "$bad"
}

tests_verdict() {
	local log=$1 label=$2 expected=${3:-0} out bad=0 reported line
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
	while read -r line; do
		printf '%s: %s\n' "$label" "$line" >&2
		bad=1
	done < <(check_skips "$label" "$out" || true)
	reported=$(grep -c '^R' <<<"$out" || true)
	if [ "$expected" -gt 0 ]; then
		local got
		got=$(grep -cE '^(not )?ok [0-9]+ selftests: ' "$log" || true)
		if [ "$got" -lt "$expected" ]; then
			printf '%s: %s\n' "$label" "only $got of $expected tests ran (log: ${log#"$TOP"/})" >&2
			bad=1
		fi
	fi
	if [ "$reported" -eq 0 ]; then
		printf '%s: %s\n' "$label" "no test reported any result (log: ${log#"$TOP"/})" >&2
		bad=1
	fi
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
