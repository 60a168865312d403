/* serve/safeopen.c - open files beneath the tree's root (see safeopen.h). */
#include "safeopen.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)

/* Set once openat2 turned out to be missing, so later calls go straight
 * to the walk. */
static atomic_bool no_openat2;

int safeopen(int rootfd, const char *relpath)
{
	if (!atomic_load_explicit(&no_openat2, memory_order_relaxed)) {
#ifdef SYS_openat2
		struct open_how how;
		memset(&how, 0, sizeof how);
		how.flags = OPEN_FLAGS;
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
		long fd;
		do
			fd = syscall(SYS_openat2, rootfd, relpath, &how, sizeof how);
		while (fd < 0 && errno == EAGAIN);
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
			return (int)fd;
		if (errno == EPERM) {
			/* EPERM is also a plain permission answer: only a
			 * seccomp filter refuses a harmless open of ".". */
			long probe = syscall(SYS_openat2, rootfd, ".", &how, sizeof how);
			if (probe >= 0) {
				close((int)probe);
				errno = EPERM;
				return -1;
			}
		}
#endif
		atomic_store(&no_openat2, true);
	}
	return safeopen_walk(rootfd, relpath);
}

int safeopen_walk(int rootfd, const char *relpath)
{
	char part[NAME_MAX + 1];
	int dirfd = rootfd;
	const char *p = relpath;

	for (;;) {
		size_t n = strcspn(p, "/");
		bool last = p[n] == '\0';
		if (n == 0 || n > NAME_MAX || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.')) {
			if (dirfd != rootfd)
				close(dirfd);
			errno = n > NAME_MAX ? ENAMETOOLONG : EINVAL;
			return -1;
		}
		memcpy(part, p, n);
		part[n] = '\0';
		int flags = last ? OPEN_FLAGS | O_NOFOLLOW : O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW;
		int fd = openat(dirfd, part, flags);
		int saved = errno;
		if (dirfd != rootfd)
			close(dirfd);
		if (fd < 0) {
			errno = saved;
			return -1;
		}
		if (last)
			return fd;
		dirfd = fd;
		p += n + 1;
	}
}
