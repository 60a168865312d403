/* publish.c - atomic, change-aware writes into the snapshot tree. */
#include "publish.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "buf.h"
#include "log.h"
#include "xalloc.h"

#define COPY_CHUNK 65536

static atomic_uint temp_counter;

/* Create the directories leading to key (not key itself). */
static int make_parents(int treefd, const char *key, char *err)
{
	char *path = xstrdup(key);
	int rc = 0;
	for (char *slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdirat(treefd, path, 0755) < 0) {
			struct stat st;
			if (errno != EEXIST) {
				rc = err_sys(err, "cannot create directory '%s'", path);
				break;
			}
			if (fstatat(treefd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode)) {
				rc = err_set(err, "cannot create directory '%s': a file is in the way", path);
				break;
			}
		}
		*slash = '/';
	}
	free(path);
	return rc;
}

/* The directory part of key ("." for a top-level name) and a fresh temp
 * name in it: a dotfile, so no server ever hands out a half-written file. */
static char *temp_name_for(const char *key)
{
	const char *slash = strrchr(key, '/');
	unsigned n = atomic_fetch_add(&temp_counter, 1);
	if (!slash)
		return xasprintf(".cgisnap-tmp-%ld-%u", (long)getpid(), n);
	return xasprintf("%.*s/.cgisnap-tmp-%ld-%u", (int)(slash - key), key, (long)getpid(), n);
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Open a new temp file beside key; *tmp receives its name (caller frees). */
static int open_temp(int treefd, const char *key, char **tmp, char *err)
{
	for (int tries = 0; tries < 100; tries++) {
		*tmp = temp_name_for(key);
		int fd = openat(treefd, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0)
			return fd;
		int saved = errno;
		free(*tmp);
		*tmp = NULL;
		errno = saved;
		if (errno != EEXIST)
			return err_sys(err, "cannot create a temporary file for '%s'", key);
	}
	return err_set(err, "cannot create a temporary file for '%s'", key);
}

/* Does the file key hold exactly data[0..len)? 1 yes, 0 no or missing. */
static int same_bytes(int treefd, const char *key, const void *data, size_t len)
{
	int fd = openat(treefd, key, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct stat st;
	int same = 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != len)
		goto out;
	char chunk[COPY_CHUNK];
	size_t off = 0;
	while (off < len) {
		ssize_t r = read(fd, chunk, sizeof chunk);
		if (r <= 0 || off + (size_t)r > len || memcmp(chunk, (const char *)data + off, (size_t)r))
			goto out;
		off += (size_t)r;
	}
	same = read(fd, chunk, 1) == 0;
out:
	close(fd);
	return same;
}

/* gzip (RFC 1952) of data at level 9, as nginx's gzip_static expects. */
static int gzip_bytes(const void *data, size_t len, struct buf *out, char *err)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		return err_set(err, "cannot start zlib");
	buf_reset(out);
	buf_grow(out, deflateBound(&z, (uLong)len));
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out->data;
	z.avail_out = (uInt)(out->cap - 1);
	int zr = deflate(&z, Z_FINISH);
	out->len = z.total_out;
	out->data[out->len] = '\0';
	deflateEnd(&z);
	if (zr != Z_STREAM_END)
		return err_set(err, "zlib could not compress (%d)", zr);
	return 0;
}

/* Write data into a temp file beside name; returns the temp name. */
static char *write_temp(int dirfd, const char *name, const void *data, size_t len, char *err)
{
	char *tmp;
	int fd = open_temp(dirfd, name, &tmp, err);
	if (fd < 0)
		return NULL;
	if (write_all(fd, data, len) < 0) {
		err_sys(err, "cannot write '%s'", name);
		close(fd);
		unlinkat(dirfd, tmp, 0);
		free(tmp);
		return NULL;
	}
	if (close(fd) < 0) {
		err_sys(err, "cannot write '%s'", name);
		unlinkat(dirfd, tmp, 0);
		free(tmp);
		return NULL;
	}
	return tmp;
}

/* Keep key.gz in step with the bytes of key (given as data). mtime is
 * key's modification time: the .gz gets the same, which is how serve tells
 * a fresh .gz from a stale one. */
static int sync_gzip(int treefd, const char *key, const void *data, size_t len, bool want,
		     const struct timespec *mtime, char *err)
{
	char *gzkey = xasprintf("%s.gz", key);
	int rc = 0;
	if (!want || len < PUBLISH_GZIP_MIN) {
		if (unlinkat(treefd, gzkey, 0) < 0 && errno != ENOENT)
			rc = err_sys(err, "cannot remove '%s'", gzkey);
		free(gzkey);
		return rc;
	}
	struct stat st;
	if (fstatat(treefd, gzkey, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    st.st_mtim.tv_sec == mtime->tv_sec && st.st_mtim.tv_nsec == mtime->tv_nsec) {
		free(gzkey);
		return 0;
	}
	struct buf gz = BUF_INIT;
	char *tmp = NULL;
	if (gzip_bytes(data, len, &gz, err) < 0) {
		rc = -1;
		goto out;
	}
	tmp = write_temp(treefd, gzkey, gz.data, gz.len, err);
	if (!tmp) {
		rc = -1;
		goto out;
	}
	struct timespec times[2] = { *mtime, *mtime };
	if (utimensat(treefd, tmp, times, AT_SYMLINK_NOFOLLOW) < 0 ||
	    renameat(treefd, tmp, treefd, gzkey) < 0) {
		rc = err_sys(err, "cannot publish '%s'", gzkey);
		unlinkat(treefd, tmp, 0);
	}
out:
	free(tmp);
	buf_release(&gz);
	free(gzkey);
	return rc;
}

int publish_data(int treefd, const char *key, const void *data, size_t len, bool gzip, char *err)
{
	struct stat st;
	bool existed = fstatat(treefd, key, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (existed && S_ISDIR(st.st_mode))
		return err_set(err, "cannot publish '%s': a directory is in the way", key);

	if (existed && same_bytes(treefd, key, data, len)) {
		/* Unchanged: only repair a missing or stale .gz. */
		if (sync_gzip(treefd, key, data, len, gzip, &st.st_mtim, err) < 0)
			return -1;
		return PUBLISH_UNCHANGED;
	}
	if (make_parents(treefd, key, err) < 0)
		return -1;

	char *tmp = write_temp(treefd, key, data, len, err);
	if (!tmp)
		return -1;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct timespec times[2] = { now, now };
	int rc = existed ? PUBLISH_CHANGED : PUBLISH_NEW;
	if (utimensat(treefd, tmp, times, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = err_sys(err, "cannot publish '%s'", key);
		goto fail;
	}
	/* The .gz first: when the new page appears, its .gz is already there. */
	if (sync_gzip(treefd, key, data, len, gzip, &now, err) < 0) {
		rc = -1;
		goto fail;
	}
	if (renameat(treefd, tmp, treefd, key) < 0) {
		rc = err_sys(err, "cannot publish '%s'", key);
		goto fail;
	}
	free(tmp);
	return rc;
fail:
	unlinkat(treefd, tmp, 0);
	free(tmp);
	return rc;
}

int publish_copy(int treefd, const char *key, const char *src, bool gzip, char *err)
{
	/* Static files are small enough in practice to pass through memory,
	 * which keeps one code path for comparing, gzipping and writing. */
	int fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(err, "cannot read '%s'", src);
	struct buf b = BUF_INIT;
	char chunk[COPY_CHUNK];
	ssize_t r;
	while ((r = read(fd, chunk, sizeof chunk)) > 0)
		buf_add(&b, chunk, (size_t)r);
	int saved = errno;
	close(fd);
	if (r < 0) {
		errno = saved;
		buf_release(&b);
		return err_sys(err, "cannot read '%s'", src);
	}
	int rc = publish_data(treefd, key, b.data ? b.data : "", b.len, gzip, err);
	buf_release(&b);
	return rc;
}

int publish_remove(int treefd, const char *key, char *err)
{
	char *gzkey = xasprintf("%s.gz", key);
	int rc = 0;
	if (unlinkat(treefd, key, 0) < 0 && errno != ENOENT)
		rc = err_sys(err, "cannot remove '%s'", key);
	else if (unlinkat(treefd, gzkey, 0) < 0 && errno != ENOENT)
		rc = err_sys(err, "cannot remove '%s'", gzkey);
	free(gzkey);
	if (rc < 0)
		return rc;
	/* Empty directories left behind go too, innermost first. */
	char *dir = xstrdup(key);
	for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
		*slash = '\0';
		if (unlinkat(treefd, dir, AT_REMOVEDIR) < 0)
			break;
	}
	free(dir);
	return 0;
}

int write_file_atomic(int dirfd, const char *name, const void *data, size_t len, char *err)
{
	char *tmp = write_temp(dirfd, name, data, len, err);
	if (!tmp)
		return -1;
	int rc = 0;
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		rc = err_sys(err, "cannot write '%s'", name);
		unlinkat(dirfd, tmp, 0);
	}
	free(tmp);
	return rc;
}
