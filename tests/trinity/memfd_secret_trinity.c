// SPDX-License-Identifier: GPL-2.0
/*
 * Debian's trinity, unchanged, fuzzing the VFS and VM system calls as an
 * unprivileged user with secret files among the descriptors it plays
 * with.
 *
 * Trinity's memfd fd provider calls libc's memfd_create(); with
 * secret_memfd.so preloaded, that makes MFD_SECRET files with no mode, in
 * EXCLUSIVE mode, and memfd_secret(2) files in turn. Its other providers
 * but its test files are off, so that secret files are most of its
 * descriptors, and it runs as nobody: UNCACHED takes CAP_SYS_RAWIO, and
 * the kselftests cover it as root.
 *
 * Pass: trinity ran for its bound, held secret files among its
 * descriptors when the bound came (read from /proc/PID/fd), and the
 * kernel's taint flags did not change (trinity itself stops when they
 * do). Any oops, warning or KASAN report on the console also fails the
 * boot on the host's side.
 * Skip (4): no trinity in the guest, or no secret memory in the kernel.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MFD_SECRET
#define MFD_SECRET	0x0040U
#endif

#define TRINITY		"/usr/bin/trinity"
#define NOBODY		65534
/* per group; the kselftest runner's timeout for the test is 45 s */
#define RUN_SECS	18
#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

static const char *const groups[] = { "vfs", "vm" };

static long taint(void)
{
	long t = -1;
	FILE *f = fopen("/proc/sys/kernel/tainted", "re");

	if (f) {
		if (fscanf(f, "%ld", &t) != 1)
			t = -1;
		fclose(f);
	}
	return t;
}

/* Whether a link of /proc/PID/fd names a secret file */
static bool is_secret(const char *link)
{
	return strstr(link, "memfd:memfd") || strstr(link, "secretmem");
}

/*
 * How many descriptors of processes other than this one are secret files,
 * by the links of /proc/PID/fd: "/memfd:memfd..." for MFD_SECRET (only
 * the preload makes memfds in the guest) and "secretmem" for
 * memfd_secret(2).
 */
static int secret_fds(void)
{
	char path[PATH_MAX], link[256];
	struct dirent *p, *f;
	int n = 0, pid;
	DIR *procs, *fds;
	ssize_t len;

	procs = opendir("/proc");
	if (!procs)
		return 0;
	while ((p = readdir(procs))) {
		pid = atoi(p->d_name);
		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", pid);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((f = readdir(fds))) {
			snprintf(path, sizeof(path), "/proc/%d/fd/%.20s", pid,
				 f->d_name);
			len = readlink(path, link, sizeof(link) - 1);
			if (len <= 0)
				continue;
			link[len] = 0;
			n += is_secret(link);
		}
		closedir(fds);
	}
	closedir(procs);
	return n;
}

/*
 * Trinity on @group until the RUN_SECS bound kills it. Return: 0 if it
 * ran that long with secret files among its descriptors at the bound;
 * -1 if it stopped early (it failed to start, or found the kernel
 * tainted) or held none.
 */
static int run_trinity(const char *preload, const char *group)
{
	int status, bounded = 0, secret = -1;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) ||
		    chdir("/tmp/trinity") || setenv("LD_PRELOAD", preload, 1))
			_exit(127);
		execl(TRINITY, "trinity", "-q", "-l", "off", "-C", "2",
		      "-g", group, "-N", "1000000",
		      "--disable-fds=sockets,pipes,perf,epoll,eventfd,pseudo,"
		      "timerfd,drm,inotify",
		      (char *)NULL);
		_exit(127);
	}
	alarm(RUN_SECS);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
		/* the bound: stop it and every child it made, then look */
		kill(-pid, SIGSTOP);
		secret = secret_fds();
		kill(-pid, SIGKILL);
		bounded = 1;
	}
	alarm(0);
	/* children that outlived it */
	kill(-pid, SIGKILL);
	printf("# trinity -g %s: %s %d, %d secret files open at the bound\n",
	       group, WIFEXITED(status) ? "exit" : "signal",
	       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
	       secret);
	if (bounded && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return secret > 0 ? 0 : -1;
	return -1;
}

/* only interrupts the wait in run_trinity() */
static void on_alarm(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	char preload[PATH_MAX], *dir;
	long before, after;
	int fd, i;

	(void)argc;
	if (access(TRINITY, X_OK)) {
		printf("# SKIP: no %s in the guest\n", TRINITY);
		return KSFT_SKIP;
	}
	fd = memfd_create("probe", MFD_SECRET);
	if (fd < 0) {
		printf("# SKIP: no MFD_SECRET in this kernel: %s\n",
		       strerror(errno));
		return KSFT_SKIP;
	}
	close(fd);
	/* the preload lies beside this program, */
	if (!realpath(argv[0], preload))
		return KSFT_FAIL;
	dir = strrchr(preload, '/');
	snprintf(dir + 1, sizeof(preload) - (dir + 1 - preload),
		 "secret_memfd.so");
	/* or where the guest's kselftests are, for a run of this alone */
	if (access(preload, R_OK))
		snprintf(preload, sizeof(preload), "%s",
			 "/kselftest/trinity/secret_memfd.so");
	if (access(preload, R_OK)) {
		printf("# no %s\n", preload);
		return KSFT_FAIL;
	}
	if (mkdir("/tmp/trinity", 0777) && errno != EEXIST)
		return KSFT_FAIL;
	chmod("/tmp/trinity", 0777);
	sigaction(SIGALRM, &sa, NULL);

	before = taint();
	for (i = 0; i < 2; i++)
		if (run_trinity(preload, groups[i]))
			return KSFT_FAIL;
	after = taint();
	printf("# taint %ld before, %ld after\n", before, after);
	return before == after ? KSFT_PASS : KSFT_FAIL;
}
