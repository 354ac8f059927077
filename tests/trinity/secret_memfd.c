// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD for Debian's trinity: its memfd fd provider calls libc's
 * memfd_create(), and this one makes secret memory of it, in turn an
 * MFD_SECRET file with no mode, one in EXCLUSIVE mode, and a
 * memfd_secret(2) file, so that the descriptors trinity passes to every
 * system call include each kind that an unprivileged user can make
 * (UNCACHED takes CAP_SYS_RAWIO). Flags that secret memory refuses
 * (MFD_HUGETLB and its sizes) are dropped; where secret memory cannot be
 * had at all, the call is what trinity asked for.
 *
 * Trinity itself is unchanged: Debian's source package cannot be fetched
 * through apt here, only its binary package.
 *
 * With SECRET_MEMFD_MARK set to a file name, each process that made a
 * secret file appends its pid to that file once, so that a caller can
 * tell that the preload was in effect.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/memfd.h>

#ifndef MFD_SECRET
#define MFD_SECRET		0x0040U
#endif
#ifndef MFD_SECRET_EXCLUSIVE
#define MFD_SECRET_EXCLUSIVE	_IO('-', 0x13)
#endif
#ifndef __NR_memfd_secret
#define __NR_memfd_secret	447
#endif

static int made_secret(int fd)
{
	static int marked;
	const char *path = getenv("SECRET_MEMFD_MARK");
	char line[16];
	int mark, len;

	if (marked || !path)
		return fd;
	marked = 1;
	mark = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	if (mark < 0)
		return fd;
	len = snprintf(line, sizeof(line), "%d\n", (int)getpid());
	if (write(mark, line, len) != len)
		marked = 0;
	close(mark);
	return fd;
}

int memfd_create(const char *name, unsigned int flags)
{
	static unsigned int calls;
	unsigned int kind = calls++ % 3;
	int fd;

	if (kind == 2) {
		fd = syscall(__NR_memfd_secret,
			     flags & MFD_CLOEXEC ? O_CLOEXEC : 0);
		if (fd >= 0)
			return made_secret(fd);
	}
	fd = syscall(__NR_memfd_create, name,
		     (flags & (MFD_CLOEXEC | MFD_ALLOW_SEALING)) | MFD_SECRET);
	if (fd < 0)
		return syscall(__NR_memfd_create, name, flags);
	if (kind == 1 && ioctl(fd, MFD_SECRET_EXCLUSIVE, 0)) {
		close(fd);
		return syscall(__NR_memfd_create, name, flags);
	}
	return made_secret(fd);
}
