#!/bin/bash
# make bench: boot the unpatched base kernel and the series kernel, one
# after the other in one run, and run bench/secret-bench.c in each, on
# x86_64 and arm64 (BENCH_ARCHES overrides). Writes build/bench/:
#   results.tsv  one line per arch, kernel, variant and size
#   results.md   the same as ratios to plain memfd on the same kernel
#   results.png  faults/s relative to memfd, per size (gnuplot)
#   cache.tsv    what the block cache keeps after close and shrink
#   directmap4k.tsv  how far DirectMap4k grew (x86), shown in results.md
# It copies results.md to results/bench.md for the cover letter and into
# README.md between its bench markers. results.md ends with the x86_64
# targets, each PASS or FAIL; make bench fails if one fails.
# Under TCG only ratios within one run mean anything.
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/bench
WT=$BUILD/series-check/src
ARCHES=${BENCH_ARCHES:-x86_64 arm64}

# The base kernel, from the base commit with the same config fragments.
build_base_kernel() {
	local arch=$1 o want
	load_arch "$arch"
	o=$(objdir "$arch" base)
	if [ ! -d "$WT" ]; then
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$WT" base
	fi
	git -C "$WT" checkout -q --detach base
	mkdir -p "$o"
	say "building the unpatched base kernel for $arch in ${o#"$TOP"/}"
	# reconfigure whenever the fragments change, as scripts/kernel.sh does
	want=$(cat "$TOP/configs/base.config" "$TOP/$CONFIG_FRAGMENT" | sha256sum | cut -d' ' -f1)
	if [ ! -f "$o/.config" ] || [ "$(cat "$o/.harness-config" 2>/dev/null)" != "$want" ]; then
		kbase "$o" -s tinyconfig >/dev/null
		(cd "$o" && "$WT/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" \
			"$TOP/configs/base.config" "$TOP/$CONFIG_FRAGMENT") >/dev/null
		kbase "$o" -s olddefconfig >/dev/null
		echo "$want" >"$o/.harness-config"
	fi
	run_logged "$o/build.log" kbase "$o" -j"$(nproc)" "$(basename "$KERNEL_IMAGE")" ||
		die "the base kernel does not build for $arch (log: ${o#"$TOP"/}/build.log)"
}

kbase() {
	local o=$1
	shift
	CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1 make -C "$WT" O="$o" ARCH="$KARCH" \
		CROSS_COMPILE="$CROSS_COMPILE" CC="ccache ${CROSS_COMPILE}gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP='2000-01-01' KBUILD_BUILD_USER=harness \
		KBUILD_BUILD_HOST=harness "$@"
}

run_bench() {
	local arch=$1 kernel=$2 flavor=$3 bin=$OUT/secret-bench-$1
	load_arch "$arch"
	"${CROSS_COMPILE}gcc" -static -O2 -Wall -Werror \
		-isystem "$(objdir "$arch" tests)/usr/include" \
		-o "$bin" "$TOP/bench/secret-bench.c" || die "bench/secret-bench.c does not build for $arch"
	SMP=2 MEM=1536 TIMEOUT=${TIMEOUT:-1200} LOG_TAG=-bench \
		"$TOP/scripts/vm.sh" "$arch" "$flavor" run "$bin" "$kernel" ||
		die "the benchmark failed on the $kernel kernel for $arch (log: build/logs/$arch-$flavor-bench-run.log)"
	tr -d '\r' <"$BUILD/logs/$arch-$flavor-bench-run.log" |
		sed -n 's/^BENCH\t//p' >>"$OUT/results.tsv"
	tr -d '\r' <"$BUILD/logs/$arch-$flavor-bench-run.log" |
		sed -n 's/^CACHE\t//p' >>"$OUT/cache.tsv"
	tr -d '\r' <"$BUILD/logs/$arch-$flavor-bench-run.log" |
		sed -n 's/^DM4K\t//p' >>"$OUT/directmap4k.tsv"
}

# Ratios to plain memfd of the same kernel, arch and size, with the
# DirectMap4k growth beside the split counters.
write_markdown() {
	awk -F'\t' '
		FNR == 1 && FILENAME ~ /directmap4k/ { dm = 1 }
		dm { d[$1 SUBSEP $2 SUBSEP $3 SUBSEP $4] = $5; next }
		FNR == 1 { next }
		{ key = $1 SUBSEP $2 SUBSEP $4; if ($3 == "memfd") base[key] = $5; row[++n] = $0 }
		END {
			print "| arch | kernel | variant | MiB | faults/s vs memfd | TLB IPIs/page | dm level2 splits | dm level3 splits | DirectMap4k growth kB | teardown ms |"
			print "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
			for (i = 1; i <= n; i++) {
				split(row[i], f, "\t")
				key = f[1] SUBSEP f[2] SUBSEP f[4]
				r = (key in base && base[key] > 0) ? sprintf("%.2f", f[5] / base[key]) : "NA"
				k = f[1] SUBSEP f[2] SUBSEP f[3] SUBSEP f[4]
				printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], f[3], f[4], r, f[6], f[7], f[8], (k in d) ? d[k] : "NA", f[9]
			}
		}' "$OUT/results.tsv" "$OUT/directmap4k.tsv" >"$OUT/results.md"
}

# The issue's targets, on x86_64, from the series kernel of this run.
# Writes the table to stdout; returns 1 if a target is missed.
write_targets() {
	awk -F'\t' -v cachefile="$OUT/cache.tsv" '
		function verdict(ok) { if (!ok) failed = 1; return ok ? "PASS" : "FAIL" }
		FNR == 1 { next }
		$1 != "x86_64" { next }
		{ key = $2 SUBSEP $4 }
		$3 == "memfd" { memfd[key] = $5 }
		{ row[NR] = $0 }
		END {
			while ((getline line < cachefile) > 0) {
				split(line, c, "\t")
				if (c[1] == "x86_64" && c[2] == "series") { nodes = c[3]; cached = c[5] }
			}
			minr = 1e9; maxipi = -1; maxl2 = -1; n = 0
			bmin = 1e9; bmax = 0; bipi = -1; bl2 = -1
			for (i = 1; i <= NR; i++) {
				if (!(i in row))
					continue
				split(row[i], f, "\t")
				key = f[2] SUBSEP f[4]
				if (f[2] == "series" && f[3] != "memfd") {
					if (f[6] != "NA" && f[6] + 0 > maxipi) maxipi = f[6] + 0
					if (f[7] != "NA" && f[7] + 0 > maxl2) maxl2 = f[7] + 0
				}
				if (f[2] == "series" && f[3] == "mfd_secret_exclusive" && memfd[key] > 0) {
					r = f[5] / memfd[key]; n++
					if (r < minr) minr = r
					sizes = sizes sprintf("%s%s MiB %.2fx", sizes == "" ? "" : ", ", f[4], r)
				}
				if (f[2] == "base" && f[3] == "memfd_secret" && memfd[key] > 0) {
					r = f[5] / memfd[key]
					if (r < bmin) bmin = r
					if (r > bmax) bmax = r
					if (f[6] != "NA" && f[6] + 0 > bipi) bipi = f[6] + 0
					if (f[7] != "NA" && f[7] + 0 > bl2) bl2 = f[7] + 0
				}
			}
			if (!n) { print "No x86_64 series measurements: no targets checked."; exit 0 }
			print "| x86_64 target | wanted | measured | |"
			print "|---|---|---|---|"
			printf "| MFD_SECRET EXCLUSIVE fault throughput vs memfd | >= 0.80x | %.2fx at worst (%s) | %s |\n", minr, sizes, verdict(minr >= 0.8)
			printf "| TLB-flush IPIs per faulted page, every secret variant | <= 1/256 (0.0039) | %.4f at worst | %s |\n", maxipi, verdict(maxipi >= 0 && maxipi <= 1 / 256)
			printf "| direct_map_level2_splits, every secret variant | 0 | %d at worst | %s |\n", maxl2, verdict(maxl2 == 0)
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
	awk -F'\t' 'NR > 1 && $3 == "memfd" { b[$1 $2 $4] = $5 }
		NR > 1 { print $1 "-" $2 "-" $3, $4, (b[$1 $2 $4] > 0 ? $5 / b[$1 $2 $4] : 0) }' \
		"$OUT/results.tsv" | sort -k1,1 -k2,2n >"$OUT/ratios.dat"
	local series=() s
	mapfile -t series < <(cut -d' ' -f1 "$OUT/ratios.dat" | uniq)
	{
		echo "set terminal png size 1000,600"
		echo "set output '$OUT/results.png'"
		echo "set title 'Fault-in throughput relative to plain memfd (same kernel, same run)'"
		echo "set xlabel 'size (MiB)'; set ylabel 'faults/s / memfd faults/s'"
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

main() {
	local arch
	mkdir -p "$OUT"
	printf 'arch\tkernel\tvariant\tsize_mib\tfaults_per_sec\tipis_per_page\tdm_level2_splits\tdm_level3_splits\tteardown_ms\n' \
		>"$OUT/results.tsv"
	printf 'arch\tkernel\tnodes\tblocks\tfree_pages\n' >"$OUT/cache.tsv"
	printf 'arch\tkernel\tvariant\tsize_mib\tdirectmap4k_growth_kb\n' >"$OUT/directmap4k.tsv"
	"$TOP/scripts/tree.sh"
	for arch in $ARCHES; do
		"$TOP/scripts/kernel.sh" "$arch" tests
		"$TOP/scripts/selftests.sh" "$arch" >/dev/null
		"$TOP/scripts/examples.sh" "$arch" >/dev/null
		"$TOP/scripts/initramfs.sh" "$arch" >/dev/null
		build_base_kernel "$arch"
		run_bench "$arch" base base
		run_bench "$arch" series tests
	done
	write_markdown
	local targets=0
	{ echo; write_targets; } >>"$OUT/results.md" || targets=1
	plot
	mkdir -p "$TOP/results"
	cp "$OUT/results.md" "$TOP/results/bench.md"
	readme_table
	cat "$OUT/results.md"
	say "results in ${OUT#"$TOP"/}: results.tsv, results.md, results.png, cache.tsv"
	[ "$targets" = 0 ] || die "a target in ${OUT#"$TOP"/}/results.md was missed"
}

main
