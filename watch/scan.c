/* scan.c - counting the directories of a source and finding its newest
 * file. */
#include "scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int timespec_after(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* Count a non-directory and keep the newest mtime. */
static void note_file(const struct stat *sb, struct scan_stats *st)
{
	st->files++;
	if (timespec_after(&sb->st_mtim, &st->newest))
		st->newest = sb->st_mtim;
}

void scan_each(int dirfd, void (*fn)(void *arg, int dirfd, const char *name, const struct stat *sb),
	       void *arg)
{
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		struct stat sb;
		if (fstatat(dirfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
			fn(arg, dirfd, de->d_name, &sb);
	}
	closedir(d);
}

static void walk(int dirfd, struct scan_stats *st);

/* One entry of a walk: a file counted, a directory entered. */
static void walk_entry(void *arg, int dirfd, const char *name, const struct stat *sb)
{
	struct scan_stats *st = arg;
	if (!S_ISDIR(sb->st_mode)) {
		note_file(sb, st);
		return;
	}
	st->dirs++;
	int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub >= 0)
		walk(sub, st);
}

/* Walk the directory open as dirfd (closed here). */
static void walk(int dirfd, struct scan_stats *st)
{
	scan_each(dirfd, walk_entry, st);
}

void scan_path(const char *path, struct scan_stats *st)
{
	struct stat sb;
	if (lstat(path, &sb) < 0)
		return;
	if (!S_ISDIR(sb.st_mode)) {
		note_file(&sb, st);
		return;
	}
	st->dirs++;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		walk(fd, st);
}
