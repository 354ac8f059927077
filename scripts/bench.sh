#!/bin/bash
# make bench: boot the unpatched base kernel and the series kernel, one
# after the other in one run, and run bench/secret-bench.c in each, on
# x86_64 and arm64 (BENCH_ARCHES overrides). Writes build/bench/:
#   results.tsv  one line per arch, kernel, variant and size
#   runs.tsv     one line per run (secret-bench's RUN lines)
#   results.md   the same as ratios to plain memfd on the same kernel,
#                each the median over the rounds of runs of the round's
#                ratio (see bench/secret-bench.c)
#   results.png  faults/s relative to memfd, per size (gnuplot)
#   cache.tsv    what the block cache keeps after close and shrink
#   directmap4k.tsv  how far DirectMap4k grew (x86), shown in results.md
#   directmap1g.tsv  DirectMap1G when secret-bench started and ended (x86)
#   first.tsv    what the boot's first secret page cost, before the runs
# It copies results.md to results/bench.md for the cover letter and into
# README.md between its bench markers. results.md ends with the x86_64
# targets, each PASS or FAIL; make bench fails if one fails.
# Under TCG only ratios within one run mean anything.
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/bench
# The base, checked out once in a worktree of its own: series-check's
# moves from commit to commit, and each move would rebuild these kernels.
WT=$BUILD/bench-base/linux
ALL_ARCHES="x86_64 arm64"
ARCHES=${BENCH_ARCHES:-$ALL_ARCHES}

# The flavour both kernels of ARCH are built in. x86_64 adds trace
# events (configs/bench.config), which secret-bench uses to tell the
# TLB-flush IPIs of a fault from other function-call IPIs; arm64
# broadcasts TLB invalidations, sends no IPI for them, and keeps the
# tests flavour.
bench_flavor() { if [ "$1" = x86_64 ]; then echo bench; else echo tests; fi; }

# The objdir suffix of the base kernel in FLAVOR: base, base-bench.
base_flavor() { if [ "$1" = tests ]; then echo base; else echo "base-$1"; fi; }

# The base kernel: the base commit, checked out in WT, configured and
# built as scripts/kernel.sh builds FLAVOR (lib.sh's kconfigure and
# kbuild_image).
build_base_kernel() {
	local arch=$1 flavor=$2 o frags
	load_arch "$arch"
	o=$(objdir "$arch" "$(base_flavor "$flavor")")
	if [ ! -e "$WT/.git" ]; then
		mkdir -p "$(dirname "$WT")"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$WT" base
	fi
	git -C "$WT" checkout -q --detach base
	say "building the unpatched base kernel for $arch in ${o#"$TOP"/}"
	mapfile -t frags < <(fragments "$flavor")
	kconfigure "$WT" "$o" "${frags[@]}"
	kbuild_image "$WT" "$o" "$o/build.log" ||
		die "the base kernel does not build for $arch (log: ${o#"$TOP"/}/build.log)"
}

run_bench() {
	local arch=$1 kernel=$2 flavor=$3 bin=$OUT/secret-bench-$1
	load_arch "$arch"
	# the selftests' readers of meminfo, vmstat and the cache
	"${CROSS_COMPILE}gcc" -static -O2 -Wall -Werror \
		-isystem "$(headers_dir "$arch")" -I "$TREE/tools/testing/selftests/memfd" \
		-o "$bin" "$TOP/bench/secret-bench.c" || die "bench/secret-bench.c does not build for $arch"
	# On x86_64, q35 with 3 GiB puts 1 GiB of RAM above 4 GiB, which the
	# direct map covers with a 1 GiB page: only then can a level-3 split
	# happen, so only then does its target mean anything.
	local mem=1536
	[ "$arch" = x86_64 ] && mem=3072
	# No KUnit at boot: the block cache's KUnit tests take blocks, and the
	# first block taken from a 1 GiB page splits it before secret-bench
	# starts, which would hide that split from the level-3 count.
	# -mem-prealloc: under TCG the first touch of a guest page costs a
	# host page fault, and which variant meets fresh guest memory first
	# is chance; back all of it before the guest starts.
	SMP=2 MEM=$mem TIMEOUT=${TIMEOUT:-1200} LOG_TAG=-bench \
		QEMU_EXTRA="-mem-prealloc${QEMU_EXTRA:+ $QEMU_EXTRA}" \
		CMDLINE_EXTRA="kunit.enable=0${CMDLINE_EXTRA:+ $CMDLINE_EXTRA}" \
		"$TOP/scripts/vm.sh" "$arch" "$flavor" run "$bin" "$kernel" ||
		die "the benchmark failed on the $kernel kernel for $arch (log: build/logs/$arch-$flavor-bench-run.log)"
	# each line secret-bench prints, by its tag, to its file
	local tag file
	while read -r tag file; do
		tr -d '\r' <"$BUILD/logs/$arch-$flavor-bench-run.log" |
			sed -n "s/^$tag\t//p" >>"$OUT/$file"
	done <<-EOF
		BENCH results.tsv
		RUN runs.tsv
		CACHE cache.tsv
		DM4K directmap4k.tsv
		DM1G directmap1g.tsv
		FIRST first.tsv
	EOF
}

# Ratios to plain memfd of the same kernel, arch and size, with the
# DirectMap4k growth beside the split counters.
write_markdown() {
	awk -F'\t' '
		FNR == 1 && FILENAME ~ /directmap4k/ { dm = 1 }
		dm { d[$1 SUBSEP $2 SUBSEP $3 SUBSEP $4] = $5; next }
		FNR == 1 { next }
		{ row[++n] = $0 }
		function x(v) { return v == "NA" || v == "" ? "NA" : sprintf("%.2f", v) }
		END {
			print "| arch | kernel | variant | MiB | faults/s vs memfd | whole life vs memfd | TLB IPIs/page | dm level2 splits | dm level3 splits | DirectMap4k growth kB | teardown ms |"
			print "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
			for (i = 1; i <= n; i++) {
				split(row[i], f, "\t")
				k = f[1] SUBSEP f[2] SUBSEP f[3] SUBSEP f[4]
				printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], f[3], f[4], x(f[10]), x(f[11]), f[6], f[7], f[8], (k in d) ? d[k] : "NA", f[9]
			}
		}' "$OUT/results.tsv" "$OUT/directmap4k.tsv" >"$OUT/results.md"
}

# The targets, on x86_64, from the series kernel of this run. Writes the
# table to stdout; returns 1 if a target is missed or was not measured.
write_targets() {
	awk -F'\t' -v cachefile="$OUT/cache.tsv" -v dm1gfile="$OUT/directmap1g.tsv" \
		-v firstfile="$OUT/first.tsv" '
		function verdict(ok) { if (!ok) failed = 1; return ok ? "PASS" : "FAIL" }
		# ms to fault in MIB MiB of 4 KiB pages at RATE faults/s, then tear down
		function life(mib, rate, teardown) { return mib * 256 / rate * 1000 + teardown }
		FNR == 1 { next }
		$1 != "x86_64" { next }
		{ key = $2 SUBSEP $4 }
		$3 == "memfd" { memfd[key] = $5; mtear[key] = $9 }
		{ row[NR] = $0 }
		END {
			while ((getline line < cachefile) > 0) {
				split(line, c, "\t")
				if (c[1] == "x86_64" && c[2] == "series") { nodes = c[3]; cached = c[5] }
			}
			while ((getline line < firstfile) > 0) {
				split(line, c, "\t")
				if (c[1] == "x86_64")
					first[c[2]] = sprintf("%s level-3 and %s level-2 split(s), %s TLB-flush IPI(s)", c[5], c[4], c[3])
			}
			while ((getline line < dm1gfile) > 0) {
				split(line, c, "\t")
				if (c[1] == "x86_64" && c[2] == "series") { dm1g0 = c[3]; dm1g1 = c[4] }
			}
			minr = 1e9; maxipi = -1; maxl2 = -1; maxl3 = -1; maxlife = -1; n = 0
			minrm = 1e9; maxlm = -1
			bmin = 1e9; bmax = 0; bipi = -1; bl2 = -1
			for (i = 1; i <= NR; i++) {
				if (!(i in row))
					continue
				split(row[i], f, "\t")
				key = f[2] SUBSEP f[4]
				if (f[2] == "series" && f[3] != "memfd") {
					if (f[6] != "NA" && f[6] + 0 > maxipi) maxipi = f[6] + 0
					if (f[7] != "NA" && f[7] + 0 > maxl2) maxl2 = f[7] + 0
					if (f[8] != "NA" && f[8] + 0 > maxl3) maxl3 = f[8] + 0
				}
				if (f[2] == "series" && f[3] == "mfd_secret_exclusive" && memfd[key] > 0) {
					# medians of the ratios within rounds; NA: 0 and 1e9, which fail
					r = f[10] ~ /^[0-9.]+$/ ? f[10] + 0 : 0; n++
					if (r < minr) minr = r
					sizes = sizes sprintf("%s%s MiB %.2fx", sizes == "" ? "" : ", ", f[4], r)
					l = f[11] ~ /^[0-9.]+$/ ? f[11] + 0 : 1e9
					if (l > maxlife) maxlife = l
					lsizes = lsizes sprintf("%s%s MiB %.2fx", lsizes == "" ? "" : ", ", f[4], l)
					# for the record: the ratios of the medians of the runs
					rm = f[5] / memfd[key]
					if (rm < minrm) minrm = rm
					lm = life(f[4], f[5], f[9]) / life(f[4], memfd[key], mtear[key])
					if (lm > maxlm) maxlm = lm
				}
				if (f[2] == "base" && f[3] == "memfd_secret" && memfd[key] > 0) {
					r = f[5] / memfd[key]
					if (r < bmin) bmin = r
					if (r > bmax) bmax = r
					if (f[6] != "NA" && f[6] + 0 > bipi) bipi = f[6] + 0
					if (f[7] != "NA" && f[7] + 0 > bl2) bl2 = f[7] + 0
				}
			}
			if (!n) { print "No x86_64 series measurements: no target checked."; exit 1 }
			print "| x86_64 target | wanted | measured | |"
			print "|---|---|---|---|"
			printf "| MFD_SECRET EXCLUSIVE fault throughput vs memfd | >= 0.90x | %.2fx at worst (%s) | %s |\n", minr, sizes, verdict(minr >= 0.9)
			printf "| MFD_SECRET EXCLUSIVE whole life (fault-in plus teardown) vs memfd | <= 1.50x | %.2fx at worst (%s) | %s |\n", maxlife, lsizes, verdict(maxlife >= 0 && maxlife <= 1.5)
			printf "| for the record, not a target: the same two as ratios of the medians of the runs | | faults %.2fx, whole life %.2fx at worst | |\n", minrm, maxlm
			printf "| TLB-flush IPIs per faulted page, every secret variant | <= 1/256 (0.0039) | %.4f at worst | %s |\n", maxipi, verdict(maxipi >= 0 && maxipi <= 1 / 256)
			printf "| direct_map_level2_splits, every secret variant | 0 | %d at worst | %s |\n", maxl2, verdict(maxl2 == 0)
			printf "| DirectMap1G in the guest, so that a level-3 split can happen | > 0 kB at start | %s kB at start, %s kB at end | %s |\n", dm1g0 == "" ? "NA" : dm1g0, dm1g1 == "" ? "NA" : dm1g1, verdict(dm1g0 + 0 > 0)
			printf "| direct_map_level3_splits, every secret variant | 0 | %d at worst | %s |\n", maxl3, verdict(maxl3 == 0)
			printf "| for the record, not a target: the boot'"'"'s first secret page, before the runs above | | series: %s; base: %s | |\n", first["series"] == "" ? "NA" : first["series"], first["base"] == "" ? "NA" : first["base"]
			printf "| free pages cached after close and shrink | <= 512 per node | %s on %s node(s) | %s |\n", cached == "" ? "NA" : cached, nodes == "" ? "NA" : nodes, verdict(cached != "" && cached + 0 <= 512 * nodes)
			printf "| for comparison: memfd_secret() on the base kernel | | %.2f-%.2fx memfd, %.4f IPIs/page, %d level2 splits at worst | |\n", bmin, bmax, bipi, bl2
			exit failed
		}' "$OUT/results.tsv"
}

# The README shows the latest table, between its bench markers.
readme_table() {
	local readme=$TOP/README.md
	grep -q '^<!-- bench:begin -->$' "$readme" || return 0
	awk -v table="$OUT/results.md" '
		/^<!-- bench:begin -->$/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
		/^<!-- bench:end -->$/ { skip = 0 }
		!skip' "$readme" >"$readme.new" && mv "$readme.new" "$readme"
}

plot() {
	command -v gnuplot >/dev/null || { warn "no gnuplot: no PNG"; return 0; }
	# the medians of the rounds' ratios, as in results.md
	awk -F'\t' 'NR > 1 { print $1 "-" $2 "-" $3, $4, ($10 ~ /^[0-9.]+$/ ? $10 : "NaN") }' \
		"$OUT/results.tsv" | sort -k1,1 -k2,2n >"$OUT/ratios.dat"
	local series=() s
	mapfile -t series < <(cut -d' ' -f1 "$OUT/ratios.dat" | uniq)
	{
		echo "set terminal png size 1000,600"
		echo "set output '$OUT/results.png'"
		echo "set title 'Fault-in throughput relative to plain memfd (same kernel, same run)'"
		echo "set xlabel 'size (MiB)'; set ylabel 'faults/s / memfd faults/s, median over the rounds'"
		echo "set logscale x 2; set key outside right; set grid"
		printf 'plot '
		for s in "${series[@]}"; do
			printf "'%s' using 2:(strcol(1) eq '%s' ? \$3 : NaN) with linespoints title '%s', " \
				"$OUT/ratios.dat" "$s" "$s"
		done | sed 's/, $//'
		echo
	} >"$OUT/plot.gp"
	gnuplot "$OUT/plot.gp" || warn "gnuplot failed; see $OUT/plot.gp"
}

# Every arch must have a row per kernel, variant and size: a boot that
# measured nothing, or only part, is a failure, not a shorter table.
check_complete() {
	local arch kernel variant want got bad=0
	for arch in $ARCHES; do
		for kernel in base series; do
			for variant in memfd memfd_secret; do
				got=$(awk -F'\t' -v a="$arch" -v k="$kernel" -v v="$variant" \
					'$1 == a && $2 == k && $3 == v' "$OUT/results.tsv" | wc -l)
				want=4
				[ "$got" -eq "$want" ] || {
					warn "$arch $kernel $variant: $got of $want sizes measured"
					bad=1
				}
			done
		done
		for variant in mfd_secret_exclusive mfd_secret_uncached; do
			got=$(awk -F'\t' -v a="$arch" -v v="$variant" \
				'$1 == a && $2 == "series" && $3 == v' "$OUT/results.tsv" | wc -l)
			[ "$got" -eq 4 ] || { warn "$arch series $variant: $got of 4 sizes measured"; bad=1; }
		done
	done
	return "$bad"
}

# bench.sh --targets DIR: the completeness and target checks alone, on
# DIR/results.tsv and DIR/cache.tsv (the harness self-tests use it).
targets_only() {
	OUT=$1
	local rc=0
	check_complete || rc=1
	write_targets || rc=1
	return "$rc"
}

main() {
	local arch flavor
	mkdir -p "$OUT"
	printf 'arch\tkernel\tvariant\tsize_mib\tfaults_per_sec\tipis_per_page\tdm_level2_splits\tdm_level3_splits\tteardown_ms\tfaults_vs_memfd\tlife_vs_memfd\n' \
		>"$OUT/results.tsv"
	printf 'arch\tkernel\tvariant\tsize_mib\tround\tfaults_per_sec\tteardown_ms\n' >"$OUT/runs.tsv"
	printf 'arch\tkernel\tnodes\tblocks\tfree_pages\n' >"$OUT/cache.tsv"
	printf 'arch\tkernel\tvariant\tsize_mib\tdirectmap4k_growth_kb\n' >"$OUT/directmap4k.tsv"
	printf 'arch\tkernel\tstart_kb\tend_kb\n' >"$OUT/directmap1g.tsv"
	printf 'arch\tkernel\tipis\tdm_level2_splits\tdm_level3_splits\n' >"$OUT/first.tsv"
	"$TOP/scripts/tree.sh"
	for arch in $ARCHES; do
		flavor=$(bench_flavor "$arch")
		"$TOP/scripts/prepare.sh" "$arch" "$flavor"
		build_base_kernel "$arch" "$flavor"
		run_bench "$arch" base "$(base_flavor "$flavor")"
		run_bench "$arch" series "$flavor"
	done
	write_markdown
	local targets=0
	check_complete || targets=1
	{ echo; write_targets; } >>"$OUT/results.md" || targets=1
	plot
	cat "$OUT/results.md"
	say "results in ${OUT#"$TOP"/}: results.tsv, results.md, results.png, cache.tsv"
	[ "$targets" = 0 ] || die "make bench: a target in ${OUT#"$TOP"/}/results.md was missed or not measured; README.md and results/ are left as they were"
	# only a run of every arch that meets its targets is published
	for arch in $ALL_ARCHES; do
		case " $ARCHES " in *" $arch "*) continue ;; esac
		say "BENCH_ARCHES=\"$ARCHES\" leaves out $arch: README.md and results/ are left as they were"
		return 0
	done
	mkdir -p "$TOP/results"
	cp "$OUT/results.md" "$TOP/results/bench.md"
	readme_table
}

if [ "${1:-}" = --targets ]; then
	targets_only "$2"
else
	main
fi
