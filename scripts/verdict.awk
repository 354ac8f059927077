# Reads one guest console log (kselftest runner TAP over the serial line)
# and prints, tab-separated:
#   R <collection> <passed> <failed> <skipped>    one line per collection
#   P <problem text>                              one line per problem
#   X <exit status of the guest program, or "none">
# A test program's nested TAP results ("# ok N ...") are counted when it
# prints them; otherwise its runner line counts as one result. KUnit
# results, printed by the kernel at boot (timestamped KTAP), are counted
# per test case in the collection "kunit".

function flush_test(top_ok, top_skip,   np, nf, ns) {
	np = nested_pass; nf = nested_fail; ns = nested_skip
	if (np + nf + ns == 0) {
		if (!top_ok) nf = 1
		else if (top_skip) ns = 1
		else np = 1
	} else if (!top_ok && nf == 0) {
		# it reported only passes, then failed (crash, bad exit status)
		nf = 1
	}
	pass[coll] += np; fail[coll] += nf; skip[coll] += ns
	if (!(coll in seen)) { seen[coll] = 1; order[++ncoll] = coll }
	nested_pass = nested_fail = nested_skip = 0
}

BEGIN { exit_status = "none"; planned = 0; reported = 0 }

{ sub(/\r$/, "") }

# KUnit: the kernel's own KTAP, behind printk timestamps.
/^\[ *[0-9]+\.[0-9]+\] / {
	body = $0
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "", body)
	if (body ~ /^1\.\.[0-9]+$/) {
		kunit_planned += substr(body, 4)
	} else if (body ~ /^    # Subtest: /) {
		ksuite = body; sub(/^    # Subtest: /, "", ksuite)
	} else if (body ~ /^    (not )?ok [0-9]+ /) {
		if (!("kunit" in seen)) { seen["kunit"] = 1; order[++ncoll] = "kunit" }
		if (body ~ /^    not ok/) {
			fail["kunit"]++
			kname = body; sub(/^    not ok [0-9]+ /, "", kname)
			problem[++nprob] = "failed: kunit:" ksuite "." kname
		} else if (tolower(body) ~ /# skip/) skip["kunit"]++
		else pass["kunit"]++
	} else if (body ~ /^(not )?ok [0-9]+ /) {
		kunit_reported++
		if (body ~ /^not ok/ && !fail["kunit"])
			problem[++nprob] = "failed: kunit suite: " body
	}
}

# Kernel reports, only on timestamped kernel lines so that test output
# that happens to say "BUG" cannot trip it.
# KASAN reports start "BUG: KASAN:", lockdep's with "WARNING:" or "INFO:";
# informational lines such as "RCU lockdep checking is enabled" are not
# reports.
/\[ *[0-9]+\.[0-9]+\].*(Oops|BUG:|WARNING:|Kernel panic|kernel BUG at|UBSAN:|general protection fault|Unable to handle kernel|possible circular locking|possible recursive locking|inconsistent lock state|INFO: possible|DEBUG_LOCKS_WARN_ON|suspicious RCU usage|INFO: task .* blocked|soft lockup|hard LOCKUP|detected stall)/ {
	if (nreports < 3) problem[++nprob] = "kernel report: " substr($0, 1, 160)
	nreports++
}

/^HARNESS-EXIT: / { exit_status = $2 }
/^HARNESS-HOST: timeout/ { timed_out = 1 }
/^HARNESS-HOST: qemu exited/ { problem[++nprob] = "QEMU failed: " substr($0, 15) }

/^1\.\.[0-9]+/ { planned += substr($1, 4) }

/^# selftests: / {
	nested_pass = nested_fail = nested_skip = 0
}

/^# (not )?ok [0-9]+/ {
	if ($0 ~ /^# not ok/) nested_fail++
	else if (tolower($0) ~ /# skip/) nested_skip++
	else nested_pass++
}

/^(not )?ok [0-9]+ selftests: [^:]+: / {
	line = $0
	sub(/^(not )?ok [0-9]+ selftests: /, "", line)
	coll = line; sub(/:.*/, "", coll)
	name = line; sub(/^[^:]+: /, "", name); sub(/ #.*/, "", name)
	top_ok = ($0 !~ /^not ok/)
	top_skip = (tolower($0) ~ /# skip/)
	if (!top_ok) problem[++nprob] = "failed: " coll ":" name substr(line, length(coll) + length(name) + 3)
	flush_test(top_ok, top_skip)
	reported++
}

END {
	if (exit_status == "none") {
		if (timed_out)
			problem[++nprob] = "hang: the guest gave no result before the timeout"
		else if (nreports)
			problem[++nprob] = "kernel crash: the guest died before the tests finished"
		else
			problem[++nprob] = "truncated log: the guest stopped before the tests finished"
	}
	if (kunit_reported < kunit_planned)
		problem[++nprob] = sprintf("only %d of %d KUnit suites reported a result", kunit_reported, kunit_planned)
	# a program's own KTAP plan is its business: its exit status decides
	if (mode != "program" && reported < planned)
		problem[++nprob] = sprintf("only %d of %d planned tests reported a result", reported, planned)
	if (nreports > 3)
		problem[++nprob] = sprintf("... %d kernel report lines in all", nreports)
	for (i = 1; i <= ncoll; i++)
		printf "R\t%s\t%d\t%d\t%d\n", order[i], pass[order[i]], fail[order[i]], skip[order[i]]
	for (i = 1; i <= nprob; i++)
		printf "P\t%s\n", problem[i]
	printf "X\t%s\n", exit_status
}
