/* publishtemp.c - the temp files a writer that died left (publish.h:
 * publish_clean_temps, publish_clean_all_temps). */
#include "tree/publish.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "tree/publish_impl.h"

/* publish_clean_all_temps below dirfd (closed here), depth levels deep at most. */
static long clean_temps_below(int dirfd, int depth)
{
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return 0;
	}
	long n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		struct stat st;
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode) && !strncmp(name, TEMP_PREFIX, strlen(TEMP_PREFIX))) {
			n += unlinkat(dirfd, name, 0) == 0;
		} else if (S_ISDIR(st.st_mode) && depth > 0) {
			int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				n += clean_temps_below(sub, depth - 1);
		}
	}
	closedir(d);
	return n;
}

long publish_clean_all_temps(int treefd)
{
	/* A descriptor of its own: readdir moves the offset a dup would share. */
	int own = openat(treefd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return own >= 0 ? clean_temps_below(own, PUBLISH_TEMP_DEPTH) : 0;
}

int publish_clean_temps(int treefd, const char *key)
{
	char ignored[ERR_LEN];
	const char *name;
	int dirfd = publish_open_parent(treefd, key, false, &name, ignored);
	if (dirfd < 0)
		return 0;
	int listfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	DIR *d = listfd >= 0 ? fdopendir(listfd) : NULL;
	int n = 0;
	if (!d) {
		if (listfd >= 0)
			close(listfd);
		close(dirfd);
		return 0;
	}
	struct dirent *de;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, TEMP_PREFIX, strlen(TEMP_PREFIX)) &&
		    unlinkat(dirfd, de->d_name, 0) == 0)
			n++;
	closedir(d);
	close(dirfd);
	return n;
}
