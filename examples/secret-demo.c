// SPDX-License-Identifier: GPL-2.0
/*
 * secret-demo: keep a key in secret memory and show what the kernel
 * refuses to do with it.
 *
 * The memory comes from memfd_create(MFD_SECRET) and an ioctl that picks
 * the secrecy mode (EXCLUSIVE by default, UNCACHED with the argument
 * "uncached"); on kernels without MFD_SECRET it falls back to
 * memfd_secret(2). Either way the pages are mapped only in this
 * process's page tables and are removed from the kernel's direct map.
 * The demo exits 0 when every refusal below happened as documented, 2
 * when the kernel has no secret memory at all.
 *
 * Build: cc -static -O2 -o secret-demo secret-demo.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/memfd.h>
#include <linux/types.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif

static const char key[] = "correct horse battery staple";
static int failures;

static void expect_refused(const char *what, long ret)
{
	if (ret < 0) {
		printf("  refused: %-36s (%s)\n", what, strerror(errno));
		return;
	}
	printf("  ALLOWED: %-36s <- unexpected\n", what);
	failures++;
}

#ifndef MFD_SECRET
#define MFD_SECRET		0x0040U
#define MFD_SECRET_EXCLUSIVE	_IO('-', 0x13)
#define MFD_SECRET_UNCACHED	_IO('-', 0x14)
#define MFD_SECRET_GET_MODE	_IOR('-', 0x15, __u32)
#endif

static const char *const mode_names[] = { "none", "exclusive", "uncached" };

/*
 * memfd_create(MFD_SECRET), then pick the mode. EINVAL means a kernel
 * without MFD_SECRET, EOPNOTSUPP one with secret memory switched off:
 * both mean "fall back".
 */
static int open_mfd_secret(unsigned long mode_cmd)
{
	int fd = memfd_create("demo-key", MFD_SECRET | MFD_CLOEXEC);
	char *p;

	if (fd < 0) {
		printf("memfd_create(MFD_SECRET): %s, falling back\n", strerror(errno));
		return -1;
	}
	/* without a mode the file cannot be mapped */
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	expect_refused("mmap() before a mode is set", p == MAP_FAILED ? -1 : 0);
	if (ioctl(fd, mode_cmd, 0) < 0) {
		printf("setting the mode: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	expect_refused("a second mode ioctl", ioctl(fd, MFD_SECRET_EXCLUSIVE, 0));
	return fd;
}

/* Open secret memory, or say why not so the caller can fall back. */
static int open_secret(unsigned long mode_cmd)
{
	__u32 mode = 0;
	int fd;

	fd = open_mfd_secret(mode_cmd);
	if (fd < 0)
		fd = syscall(__NR_memfd_secret, O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "secret memory unavailable: %s\n", strerror(errno));
		return -1;
	}
	if (ioctl(fd, MFD_SECRET_GET_MODE, &mode) == 0 && mode < 3)
		printf("secret fd %d, mode %s\n", fd, mode_names[mode]);
	else
		printf("secret fd %d from memfd_secret(2)\n", fd);
	return fd;
}

/* Print the lines of a /proc file that start with prefix. */
static void show_proc(const char *path, const char *prefix)
{
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, prefix, strlen(prefix)))
			printf("  %s: %s", path, line);
	fclose(f);
}

static void fold_vmstat(void)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);

	if (fd < 0)
		return;
	if (write(fd, "1", 1) < 0)
		perror("vm.stat_refresh");
	close(fd);
}

/* A child asks the kernel to copy the secret out of its parent. */
static void child_reads_parent(const char *secret)
{
	pid_t parent = getpid();
	int status = 0;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		char buf[sizeof(key)];
		struct iovec local = { buf, sizeof(buf) };
		struct iovec remote = { (void *)secret, sizeof(buf) };

		/* the exit status carries the errno back, 0 if it worked */
		_exit(process_vm_readv(parent, &local, 1, &remote, 1, 0) < 0 ? errno : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
		perror("fork");
		failures++;
		return;
	}
	errno = WEXITSTATUS(status);
	expect_refused("process_vm_readv() from a child", errno ? -1 : 0);
}

int main(int argc, char **argv)
{
	unsigned long mode_cmd = MFD_SECRET_EXCLUSIVE;
	size_t len = sysconf(_SC_PAGESIZE);
	char buf[sizeof(key)];
	char path[64];
	char *secret;
	int memfd;
	int fd;

	if (argc > 1 && !strcmp(argv[1], "uncached"))
		mode_cmd = MFD_SECRET_UNCACHED;
	printf("what the kernel refuses to do with secret memory:\n");
	fd = open_secret(mode_cmd);
	if (fd < 0)
		return 2;
	if (ftruncate(fd, len) < 0) {
		perror("ftruncate");
		return 1;
	}
	secret = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (secret == MAP_FAILED) {
		perror("mmap (RLIMIT_MEMLOCK too low?)");
		return 1;
	}
	memcpy(secret, key, sizeof(key));
	printf("secret memory at %p holds: \"%s\"\n", (void *)secret, secret);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	show_proc(path, "secret_");
	/*
	 * SecretMem is a vmstat counter, folded from per-CPU deltas about
	 * once a second; as root, fold them now so the page just touched
	 * shows.
	 */
	fold_vmstat();
	show_proc("/proc/meminfo", "SecretMem");

	expect_refused("read() on the secret fd", read(fd, buf, sizeof(buf)));
	expect_refused("write() on the secret fd", write(fd, key, sizeof(key)));
	expect_refused("mmap(MAP_PRIVATE)",
		       mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED ? -1 : 0);
	expect_refused("mmap(PROT_EXEC)",
		       mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0) == MAP_FAILED ? -1 : 0);

	memfd = open("/proc/self/mem", O_RDONLY);
	expect_refused("read of /proc/self/mem",
		       memfd < 0 ? -1 : pread(memfd, buf, sizeof(buf), (off_t)(unsigned long)secret));
	if (memfd >= 0)
		close(memfd);
	child_reads_parent(secret);

	munmap(secret, len);
	close(fd);
	printf("%s\n", failures ? "FAILED: the kernel let something through" :
		   "ok: only this process could read the key");
	return failures ? 1 : 0;
}
