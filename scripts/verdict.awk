# Reads one guest console log (kselftest runner TAP over the serial line)
# and prints, tab-separated:
#   R <collection> <passed> <failed> <skipped>    one line per collection
#   P <problem text>                              one line per problem
#   S <skip id> <reason>                          one line per skipped test
#   T <test id>                                   one line per test that ran
#   X <exit status of the guest program, or "none">
# A test program's nested TAP results ("# ok N ...") are counted when it
# prints them; otherwise its runner line counts as one result. KUnit
# results, printed by the kernel at boot (timestamped KTAP), are counted
# per test case in the collection "kunit". Skip ids are COLL:TEST for a
# whole test, COLL:TEST:CASE for one case and kunit:SUITE.CASE; verdict.sh
# holds them against the expected skips (selftests.skip).
# The log fails closed: a test that ran no case, a test that reported
# fewer cases than it planned, a guest with another CPU count than the
# host asked for (HARNESS-HOST: smp=N), a missing HARNESS-EXIT and any
# kernel report are problems.

function skip_reason(line,   r) {
	r = line
	if (!sub(/.*# [Ss][Kk][Ii][Pp] */, "", r)) return ""
	return r
}

function flush_test(top_ok, top_skip, top_line,   np, nf, ns, id) {
	np = nested_pass; nf = nested_fail; ns = nested_skip
	id = coll ":" name
	if (nested_none && !top_skip && !whole_skip) {
		problem[++nprob] = "no tests ran: " id
		np = ns = 0; nf = 1
	} else if (np + nf + ns == 0) {
		if (!top_ok) nf = 1
		else if (top_skip || whole_skip) {
			ns = 1
			skips[++nskips] = id "\t" (whole_skip ? whole_reason : skip_reason(top_line))
		} else np = 1
	} else if (!top_ok && nf == 0) {
		# it reported only passes, then failed (crash, bad exit status)
		nf = 1
	} else if (nested_plan > np + nf + ns) {
		problem[++nprob] = sprintf("only %d of %d planned cases reported a result: %s", np + nf + ns, nested_plan, id)
		nf++
	}
	pass[coll] += np; fail[coll] += nf; skip[coll] += ns
	if (!(coll in seen)) { seen[coll] = 1; order[++ncoll] = coll }
	ran[++nran] = id
	nested_pass = nested_fail = nested_skip = nested_plan = nested_none = whole_skip = 0
	whole_reason = ""
}

BEGIN { exit_status = "none"; planned = 0; reported = 0; smp = -1; cpus = -1 }

{ sub(/\r$/, "") }

/^HARNESS-HOST: smp=[0-9]+/ { smp = substr($2, 5) + 0 }
/^HARNESS-START: / {
	for (i = 2; i <= NF; i++)
		if ($i ~ /^cpus=/) cpus = substr($i, 6) + 0
}

# KUnit: the kernel's own KTAP, behind printk timestamps.
/^\[ *[0-9]+\.[0-9]+\] / {
	body = $0
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "", body)
	if (body ~ /^1\.\.[0-9]+$/) {
		kunit_planned += substr(body, 4)
	} else if (body ~ /^    # Subtest: /) {
		ksuite = body; sub(/^    # Subtest: /, "", ksuite)
	} else if (body ~ /^    (not )?ok [0-9]+ /) {
		if (!("kunit" in seen)) { seen["kunit"] = 1; order[++ncoll] = "kunit"; ran[++nran] = "kunit" }
		kname = body; sub(/^    (not )?ok [0-9]+ /, "", kname); sub(/ #.*/, "", kname)
		if (body ~ /^    not ok/) {
			fail["kunit"]++
			problem[++nprob] = "failed: kunit:" ksuite "." kname
		} else if (tolower(body) ~ /# skip/) {
			skip["kunit"]++
			skips[++nskips] = "kunit:" ksuite "." kname "\t" skip_reason(body)
		} else pass["kunit"]++
	} else if (body ~ /^(not )?ok [0-9]+ /) {
		kunit_reported++
		if (body ~ /^not ok/ && !fail["kunit"])
			problem[++nprob] = "failed: kunit suite: " body
	}
}

# Kernel reports, only on timestamped kernel lines so that test output
# that happens to say "BUG" cannot trip it.
# KASAN reports start "BUG: KASAN:", lockdep's with "WARNING:" or "INFO:";
# the hung-task and soft-lockup detectors (on in the debug flavour) print
# "INFO: task ... blocked" and "BUG: soft lockup"; informational lines
# such as "RCU lockdep checking is enabled" are not reports.
/\[ *[0-9]+\.[0-9]+\].*(Oops|BUG:|WARNING:|Kernel panic|kernel BUG at|UBSAN:|general protection fault|Unable to handle kernel|possible circular locking|possible recursive locking|inconsistent lock state|INFO: possible|DEBUG_LOCKS_WARN_ON|suspicious RCU usage|INFO: task .* blocked|soft lockup|hard LOCKUP|detected stall)/ {
	if (nreports < 3) problem[++nprob] = "kernel report: " substr($0, 1, 160)
	nreports++
}

/^HARNESS-EXIT: / { exit_status = $2 }
/^HARNESS-HOST: timeout/ { timed_out = 1 }
/^HARNESS-HOST: qemu exited/ { problem[++nprob] = "QEMU failed: " substr($0, 15) }

/^1\.\.[0-9]+/ { planned += substr($1, 4) }

/^# selftests: / {
	nested_pass = nested_fail = nested_skip = nested_plan = nested_none = whole_skip = 0
	whole_reason = ""
	cur = $0; sub(/^# selftests: /, "", cur); sub(/: /, ":", cur)
}

# a test program's own plan: "1..0" means it ran nothing, which is a
# failure unless it says why it skipped everything
/^# 1\.\.[0-9]+/ {
	nested_plan = substr($2, 4) + 0
	if (nested_plan == 0) {
		if (tolower($0) ~ /# skip/) { whole_skip = 1; whole_reason = skip_reason($0) }
		else nested_none = 1
	}
}

/^# (not )?ok [0-9]+/ {
	case_name = $0; sub(/^# (not )?ok [0-9]+ /, "", case_name); sub(/ #.*/, "", case_name)
	if ($0 ~ /^# not ok/) {
		nested_fail++
		problem[++nprob] = "failed: " cur ":" case_name
	} else if (tolower($0) ~ /# skip/) {
		nested_skip++
		skips[++nskips] = cur ":" case_name "\t" skip_reason($0)
	} else nested_pass++
}

/^(not )?ok [0-9]+ selftests: [^:]+: / {
	line = $0
	sub(/^(not )?ok [0-9]+ selftests: /, "", line)
	coll = line; sub(/:.*/, "", coll)
	name = line; sub(/^[^:]+: /, "", name); sub(/ #.*/, "", name)
	top_ok = ($0 !~ /^not ok/)
	top_skip = (tolower($0) ~ /# skip/)
	if (!top_ok) problem[++nprob] = "failed: " coll ":" name substr(line, length(coll) + length(name) + 3)
	flush_test(top_ok, top_skip, $0)
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
	if (smp < 0)
		problem[++nprob] = "the log does not say how many CPUs the host asked for (no HARNESS-HOST: smp=N line)"
	else if (cpus >= 0 && cpus != smp)
		problem[++nprob] = sprintf("the guest ran on %d CPU(s), the host asked for %d", cpus, smp)
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
	for (i = 1; i <= nskips; i++)
		printf "S\t%s\n", skips[i]
	for (i = 1; i <= nran; i++)
		printf "T\t%s\n", ran[i]
	printf "X\t%s\n", exit_status
}
