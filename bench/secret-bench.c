// SPDX-License-Identifier: GPL-2.0
/*
 * secret-bench: what secret memory costs, per variant and size.
 *
 *   secret-bench KERNEL-LABEL [SIZE_MIB...]
 *
 * For every variant the running kernel offers (plain memfd, memfd_secret(2),
 * MFD_SECRET EXCLUSIVE and UNCACHED) and every size (default 1 16 64 256
 * MiB) it maps a fresh file, writes one byte per page, and unmaps it;
 * a run does that with as many files as it takes to fault in RUN_MIB (64
 * MiB), one after the other. Each size gets REPEAT (9) runs of each
 * variant, in rounds of one run per variant, in run_order and backwards
 * in every other round, so that MFD_SECRET's runs sit next to plain
 * memfd's of their round and a steady change in the host's speed favours
 * neither. It prints one tab-separated line per variant and size,
 * prefixed "BENCH", with the median of the runs for the rates and times
 * (the teardown time is per file), the counts summed over the
 * runs per page (or per run, for the splits), and the variant against
 * plain memfd: the median over the rounds of the round's ratio, of the
 * fault rate and of the whole life (fault-in plus teardown time):
 *
 *   arch kernel variant size_mib faults_per_sec ipis_per_page
 *   dm_level2_splits dm_level3_splits teardown_ms faults_vs_memfd
 *   life_vs_memfd
 *
 * Under QEMU TCG on a shared host the host's speed changes by up to half
 * within seconds, for every variant alike: a ratio of two medians can
 * set one variant's fast runs against the other's slow ones, a ratio
 * within a round cannot. After it one line per run, prefixed "RUN":
 *
 *   arch kernel variant size_mib round faults_per_sec teardown_ms
 *
 * ipis_per_page counts the TLB-flush IPIs the faulting CPU sends:
 * secret-bench runs on CPU 0 only and counts the csd:csd_queue_cpu trace
 * events recorded on CPU 0 for another CPU whose function is a TLB flush
 * (its name has "tlb" or "flush": flush_tlb_func, do_flush_tlb_all,
 * do_kernel_range_flush, __cpa_flush_tlb, the block cache's own), over
 * tracefs. A request is counted whether or not it needed an IPI of its
 * own, so this is an upper bound; other function calls, such as a
 * wakeup queued for an idle CPU, are not TLB flushes and are not
 * counted, nor is what CPU 0 receives. "NA" where the kernel has no
 * such event (scripts/bench.sh builds x86_64 with configs/bench.config;
 * arm64 broadcasts TLB invalidations and sends no IPI for them). The
 * split counters are x86's direct_map_level{2,3}_splits
 * from /proc/vmstat ("NA" elsewhere). Variants the kernel lacks are left
 * out. Times are only comparable within one run on one machine.
 *
 * Where the kernel has the secret memory block cache (debugfs
 * secretmem_cache), each file starts once no page of the previous one is
 * in use (the cache keeps its idle blocks from one file to the next), and
 * a last line reports what the cache keeps once every secret fd is closed
 * and the shrinkers have run:
 *
 *   CACHE arch kernel nodes blocks free_pages
 *
 * and, where /proc/meminfo has DirectMap4k (x86), how much it grew at
 * most in one run of a variant and size:
 *
 *   DM4K arch kernel variant size_mib kb
 *
 * Before the runs it takes the boot's first secret page, one page of
 * memfd_secret(2), on its own, and reports its TLB-flush IPIs and splits
 * (see first_page()):
 *
 *   FIRST arch kernel ipis dm_level2_splits dm_level3_splits
 *
 * and, where it has DirectMap1G, how much of the direct map 1 GiB pages
 * covered when the program started and when it ended (a level-3 split
 * can only happen where this is not 0):
 *
 *   DM1G arch kernel start_kb end_kb
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/utsname.h>

/* the selftests' readers: meminfo, vmstat, the cache, settle_in_use() */
#include "secret_common.h"

enum variant { MEMFD, MEMFD_SECRET, MFD_EXCLUSIVE, MFD_UNCACHED, NR_VARIANTS };

static const char *const variant_names[] = {
	[MEMFD]		= "memfd",
	[MEMFD_SECRET]	= "memfd_secret",
	[MFD_EXCLUSIVE]	= "mfd_secret_exclusive",
	[MFD_UNCACHED]	= "mfd_secret_uncached",
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* the CPU secret-bench runs on, pinned; -1 if it could not pin itself */
static int bench_cpu = -1;

#define TRACEFS "/sys/kernel/tracing"

/* 1: csd_queue_cpu events are recorded while a fault window runs */
static int tracing;

static int tracefs_write(const char *file, const char *val)
{
	char path[256];
	ssize_t len = strlen(val);
	int fd, ok;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -1;
	ok = write(fd, val, len) == len;
	close(fd);
	return ok ? 0 : -1;
}

/*
 * Record csd_queue_cpu, in a buffer large enough for one window of the
 * base kernel's memfd_secret() (a request per page: 65536 for 256 MiB).
 */
static void tracing_setup(void)
{
	if (bench_cpu < 0)
		return;
	if (access(TRACEFS "/events/csd/csd_queue_cpu/enable", W_OK))
		mount("nodev", TRACEFS, "tracefs", 0, NULL);
	if (access(TRACEFS "/events/csd/csd_queue_cpu/enable", W_OK))
		return;
	if (tracefs_write("tracing_on", "0") ||
	    tracefs_write("buffer_size_kb", "16384") ||
	    tracefs_write("events/csd/csd_queue_cpu/enable", "1")) {
		perror("tracefs: cannot record csd_queue_cpu");
		exit(1);
	}
	tracing = 1;
}

/* Empty the trace buffer and start recording. */
static void tlb_ipis_start(void)
{
	if (!tracing)
		return;
	if (tracefs_write("trace", "") || tracefs_write("tracing_on", "1")) {
		perror("tracefs: cannot start recording");
		exit(1);
	}
}

/* 1 if bench_cpu's buffer lost events since it was emptied */
static int trace_overrun(void)
{
	char path[256], line[256];
	long overrun = -1;
	FILE *f;

	snprintf(path, sizeof(path), TRACEFS "/per_cpu/cpu%d/stats", bench_cpu);
	f = fopen(path, "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "overrun: %ld", &overrun) == 1)
			break;
	fclose(f);
	return overrun != 0;
}

/*
 * Stop recording and count the TLB-flush requests bench_cpu queued for
 * other CPUs since tlb_ipis_start(); -1 where they are not counted.
 */
static long tlb_ipis_stop(void)
{
	char path[256], line[512], func[128];
	long n = 0;
	FILE *f;

	if (!tracing)
		return -1;
	tracefs_write("tracing_on", "0");
	if (trace_overrun()) {
		fprintf(stderr, "tracefs: the trace buffer overran; IPIs not counted\n");
		exit(1);
	}
	snprintf(path, sizeof(path), TRACEFS "/per_cpu/cpu%d/trace", bench_cpu);
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		char *c = strstr(line, " csd_queue_cpu: cpu=");
		char *fn = strstr(line, " func=");

		if (!c || !fn || sscanf(fn, " func=%127s", func) != 1)
			continue;
		if (atoi(c + strlen(" csd_queue_cpu: cpu=")) == bench_cpu)
			continue;
		if (strstr(func, "tlb") || strstr(func, "flush"))
			n++;
	}
	fclose(f);
	return n;
}

static void cache_report(const char *arch, const char *kernel)
{
	struct cache_stats st;

	shrink_caches();
	if (cache_stats(&st))
		printf("CACHE\t%s\t%s\t%ld\t%ld\t%ld\n", arch, kernel, st.nodes,
		       st.blocks, st.free + st.pending);
}

static int open_variant(enum variant v)
{
	int fd;

	switch (v) {
	case MEMFD:
		return memfd_create("bench", MFD_CLOEXEC);
	case MEMFD_SECRET:
		return syscall(__NR_memfd_secret, O_CLOEXEC);
	case MFD_EXCLUSIVE:
	case MFD_UNCACHED:
		fd = memfd_create("bench", MFD_SECRET | MFD_CLOEXEC);
		if (fd < 0)
			return -1;
		if (ioctl(fd, v == MFD_EXCLUSIVE ? MFD_SECRET_EXCLUSIVE :
			  MFD_SECRET_UNCACHED, 0) < 0) {
			close(fd);
			return -1;
		}
		return fd;
	default:
		return -1;
	}
}

#define REPEAT		9
#define MAX_SIZES	8
/*
 * A run faults at least RUN_MIB: a smaller size is faulted in that many
 * times over, a fresh file each time. A single 1 MiB file takes about as
 * long to fault in as one slice of the host's scheduler, so a run that
 * short measures the host more than the kernel.
 */
#define RUN_MIB		64

/*
 * The order of a round: the block cache's variants next to plain memfd,
 * whichever way the round goes, and mainline's, which takes longest,
 * at the far end.
 */
static const enum variant run_order[NR_VARIANTS] = {
	MEMFD, MFD_EXCLUSIVE, MFD_UNCACHED, MEMFD_SECRET,
};

static int files(long size_mib)
{
	return size_mib >= RUN_MIB || size_mib < 1 ? 1 : RUN_MIB / size_mib;
}

struct sample {
	double faults_per_sec;
	double fault_ms;
	double teardown_ms;
	long pages;
	long ipis;		/* -1: not counted on this architecture */
	long l2_splits;		/* -1: no such counter */
	long l3_splits;
	long dm4k_kb;		/* growth of DirectMap4k; -1: no such line */
};

static long delta(long before, long after)
{
	return before < 0 || after < 0 ? -1 : after - before;
}

/* a count and more of it, -1 where either was not counted */
static long sum(long a, long b)
{
	return a < 0 || b < 0 ? -1 : a + b;
}

/*
 * One file: map a fresh file of LEN bytes, touch every page, unmap it.
 * Adds what it measured to @out.
 */
static int measure_file(enum variant v, size_t len, struct sample *out)
{
	size_t page = sysconf(_SC_PAGESIZE), i;
	long size_mib = len >> 20;
	long l2_0, l3_0, dm4k_0, dm4k;
	struct cache_stats st;
	double t0, t1, t2;
	char *p;
	int fd;

	fd = open_variant(v);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, len) < 0) {
		close(fd);
		return -1;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "%s %ld MiB: mmap: %s\n", variant_names[v], size_mib,
			strerror(errno));
		close(fd);
		return -1;
	}
	l2_0 = vmstat_get("direct_map_level2_splits");
	l3_0 = vmstat_get("direct_map_level3_splits");
	dm4k_0 = meminfo_kb("DirectMap4k");
	tlb_ipis_start();
	t0 = now_ms();
	for (i = 0; i < len; i += page)
		p[i] = 1;
	t1 = now_ms();
	out->ipis = sum(out->ipis, tlb_ipis_stop());
	out->l2_splits = sum(out->l2_splits,
			     delta(l2_0, vmstat_get("direct_map_level2_splits")));
	out->l3_splits = sum(out->l3_splits,
			     delta(l3_0, vmstat_get("direct_map_level3_splits")));
	dm4k = delta(dm4k_0, meminfo_kb("DirectMap4k"));
	if (dm4k < 0 || (out->dm4k_kb >= 0 && dm4k > out->dm4k_kb))
		out->dm4k_kb = dm4k;
	munmap(p, len);
	close(fd);
	t2 = now_ms();
	/*
	 * Where there is a cache, the next file starts once no page is in
	 * use. The cache keeps its idle blocks for it, as for any program
	 * that creates one secret file after another.
	 */
	if (cache_stats(&st) && !settle_in_use()) {
		fprintf(stderr, "%s %ld MiB: the secret memory cache did not settle\n",
			variant_names[v], size_mib);
		return -2;
	}

	out->pages += len / page;
	out->fault_ms += t1 - t0;
	out->teardown_ms += t2 - t1;
	return 0;
}

/*
 * One run: FILES files of LEN bytes, one after the other. The rate is
 * over all their faults, the teardown time per file, the counts summed
 * and DirectMap4k's growth the largest in one file.
 */
static int measure(enum variant v, size_t len, int files, struct sample *out)
{
	int i, ret;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < files; i++) {
		ret = measure_file(v, len, out);
		if (ret)
			return ret;
	}
	out->faults_per_sec = out->pages / (out->fault_ms / 1e3);
	out->teardown_ms /= files;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static void print_sum(long sum, double per)
{
	if (sum < 0)
		printf("\tNA");
	else if (per > 0)
		printf("\t%.4f", sum / per);
	else
		printf("\t%ld", sum);
}

/*
 * One line: medians of the rates and times, counts summed over the runs,
 * and the medians of the rounds' ratios to plain memfd's runs @m (NULL
 * where the kernel lacks it).
 */
static void report(const char *arch, const char *kernel, enum variant v,
		   long size_mib, const struct sample *s,
		   const struct sample *m, int n)
{
	long ipis = 0, pages = 0, l2 = 0, l3 = 0, dm4k = 0;
	double fps[REPEAT], td[REPEAT], fr[REPEAT], lr[REPEAT];
	int i;

	for (i = 0; i < n; i++) {
		fps[i] = s[i].faults_per_sec;
		td[i] = s[i].teardown_ms;
		pages += s[i].pages;
		ipis = ipis < 0 || s[i].ipis < 0 ? -1 : ipis + s[i].ipis;
		l2 = l2 < 0 || s[i].l2_splits < 0 ? -1 : l2 + s[i].l2_splits;
		l3 = l3 < 0 || s[i].l3_splits < 0 ? -1 : l3 + s[i].l3_splits;
		if (dm4k >= 0 && s[i].dm4k_kb >= 0 && s[i].dm4k_kb > dm4k)
			dm4k = s[i].dm4k_kb;
		else if (s[i].dm4k_kb < 0)
			dm4k = -1;
	}
	printf("BENCH\t%s\t%s\t%s\t%ld\t%.0f", arch, kernel, variant_names[v],
	       size_mib, median(fps, n));
	print_sum(ipis, (double)pages);
	print_sum(l2, 0);
	print_sum(l3, 0);
	printf("\t%.2f", median(td, n));
	if (m) {
		for (i = 0; i < n; i++) {
			fr[i] = s[i].faults_per_sec / m[i].faults_per_sec;
			lr[i] = (s[i].fault_ms + s[i].teardown_ms) /
				(m[i].fault_ms + m[i].teardown_ms);
		}
		printf("\t%.4f\t%.4f\n", median(fr, n), median(lr, n));
	} else {
		printf("\tNA\tNA\n");
	}
	for (i = 0; i < n; i++)
		printf("RUN\t%s\t%s\t%s\t%ld\t%d\t%.0f\t%.2f\n", arch, kernel,
		       variant_names[v], size_mib, i + 1, s[i].faults_per_sec,
		       s[i].teardown_ms);
	if (dm4k >= 0)
		printf("DM4K\t%s\t%s\t%s\t%ld\t%ld\n", arch, kernel,
		       variant_names[v], size_mib, dm4k);
	fflush(stdout);
}

/*
 * The boot's first secret page, one page of memfd_secret(2), before any
 * measured run. Where the direct map starts as 1 GiB pages, whatever
 * first takes memory out of it splits one into 2 MiB pages, and the split
 * flushes every CPU's TLB: mainline's first secret page as much as the
 * block cache's first block. That happens once per GiB, so it is
 * measured and reported here, and the runs show what every file after it
 * costs.
 */
static void first_page(const char *arch, const char *kernel)
{
	struct sample s;

	if (measure(MEMFD_SECRET, sysconf(_SC_PAGESIZE), 1, &s))
		return;
	printf("FIRST\t%s\t%s", arch, kernel);
	print_sum(s.ipis, 0);
	print_sum(s.l2_splits, 0);
	print_sum(s.l3_splits, 0);
	printf("\n");
}

int main(int argc, char **argv)
{
	static const long default_sizes[] = { 1, 16, 64, 256 };
	static struct sample samples[NR_VARIANTS][MAX_SIZES][REPEAT];
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	const char *kernel = argc > 1 ? argv[1] : "unknown";
	int missing[NR_VARIANTS] = { 0 };
	long sizes[MAX_SIZES];
	int v, k, i, r, nsizes, ret;
	const char *arch;
	struct utsname u;
	cpu_set_t cpu0;
	long dm1g_kb;

	nsizes = argc > 2 ? argc - 2 : 4;
	if (nsizes > MAX_SIZES)
		nsizes = MAX_SIZES;
	for (i = 0; i < nsizes; i++)
		sizes[i] = argc > 2 ? atol(argv[i + 2]) : default_sizes[i];
	/* secret memory is charged to RLIMIT_MEMLOCK; we measure, not limit */
	if (setrlimit(RLIMIT_MEMLOCK, &unlimited) < 0)
		perror("setrlimit(RLIMIT_MEMLOCK)");
	/* on CPU 0 only, so that the IPIs the faults send can be told apart */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0) < 0)
		perror("sched_setaffinity(CPU 0): counting the IPIs of every CPU");
	else
		bench_cpu = 0;
	tracing_setup();
	uname(&u);
	arch = !strcmp(u.machine, "aarch64") ? "arm64" : u.machine;
	dm1g_kb = meminfo_kb("DirectMap1G");
	first_page(arch, kernel);
	for (i = 0; i < nsizes; i++)
		for (r = 0; r < REPEAT; r++)
			for (k = 0; k < NR_VARIANTS; k++) {
				/* every other round backwards */
				v = run_order[r % 2 ? NR_VARIANTS - 1 - k : k];
				if (missing[v])
					continue;
				ret = measure(v, sizes[i] << 20, files(sizes[i]),
					      &samples[v][i][r]);
				if (ret == -2)
					return 1;
				if (ret < 0)
					missing[v] = 1;
			}
	for (v = 0; v < NR_VARIANTS; v++) {
		if (missing[v]) {
			printf("# %s not available on this kernel\n", variant_names[v]);
			continue;
		}
		for (i = 0; i < nsizes; i++)
			report(arch, kernel, v, sizes[i], samples[v][i],
			       missing[MEMFD] ? NULL : samples[MEMFD][i], REPEAT);
	}
	cache_report(arch, kernel);
	if (dm1g_kb >= 0)
		printf("DM1G\t%s\t%s\t%ld\t%ld\n", arch, kernel, dm1g_kb,
		       meminfo_kb("DirectMap1G"));
	return 0;
}
