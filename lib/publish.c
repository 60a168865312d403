/* publish.c - atomic, change-aware writes into the snapshot tree. */
#include "publish.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include "sha256.h"
#include "xalloc.h"

#define COPY_CHUNK 65536

static atomic_uint temp_counter;

#define TEMP_PREFIX ".cgisnap-tmp-"

/* Open the directory holding key's last component. Each component is
 * opened with O_NOFOLLOW, so no symbolic link is ever followed, whether it
 * points into the tree or out of it; with create, missing directories are
 * made. Returns a descriptor the caller closes, *leaf pointing into key;
 * -1 with err, errno ENOENT when a directory is missing (and !create),
 * ELOOP for a symbolic link, ENOTDIR for a file in the way. */
static int open_parent(int treefd, const char *key, bool create, const char **leaf, char *err)
{
	int dirfd = fcntl(treefd, F_DUPFD_CLOEXEC, 0);
	if (dirfd < 0)
		return err_sys(err, "cannot open the tree for '%s'", key);
	const char *p = key;
	for (const char *slash; (slash = strchr(p, '/')); p = slash + 1) {
		size_t n = (size_t)(slash - p);
		char part[NAME_MAX + 1];
		if (n == 0 || n > NAME_MAX || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			close(dirfd);
			errno = EINVAL;
			return err_set(err, "bad path '%s'", key);
		}
		memcpy(part, p, n);
		part[n] = '\0';
		int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
		int fd = openat(dirfd, part, flags);
		if (fd < 0 && errno == ENOENT && create) {
			if (mkdirat(dirfd, part, 0755) < 0 && errno != EEXIST) {
				err_sys(err, "cannot create directory '%.*s'", (int)(slash - key), key);
				close(dirfd);
				return -1;
			}
			fd = openat(dirfd, part, flags);
		}
		if (fd < 0) {
			int saved = errno;
			struct stat st;
			bool there = fstatat(dirfd, part, &st, AT_SYMLINK_NOFOLLOW) == 0;
			close(dirfd);
			if (there && S_ISLNK(st.st_mode)) {
				errno = ELOOP;
				return err_set(err, "'%.*s' is a symbolic link: cgisnap never writes or removes through one",
					       (int)(slash - key), key);
			}
			if (there && !S_ISDIR(st.st_mode)) {
				errno = ENOTDIR;
				return err_set(err, "cannot create directory '%.*s': a file is in the way",
					       (int)(slash - key), key);
			}
			errno = saved;
			return err_sys(err, "cannot open directory '%.*s'", (int)(slash - key), key);
		}
		close(dirfd);
		dirfd = fd;
	}
	*leaf = p;
	return dirfd;
}

/* A fresh temp name for a file of one directory: a dotfile, so no server
 * ever hands out a half-written file. */
static char *temp_name(void)
{
	unsigned n = atomic_fetch_add(&temp_counter, 1);
	return xasprintf(TEMP_PREFIX "%ld-%u", (long)getpid(), n);
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

/* Open a new temp file in dirfd for key (named in messages); *tmp
 * receives its name (caller frees). */
static int open_temp(int dirfd, const char *key, char **tmp, char *err)
{
	for (int tries = 0; tries < 100; tries++) {
		*tmp = temp_name();
		int fd = openat(dirfd, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
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

/* Does the file name in dirfd hold exactly data[0..len)? 1 yes, 0 no or
 * missing. */
static int same_bytes(int dirfd, const char *name, const void *data, size_t len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
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

/* Write data into a temp file in dirfd; returns the temp name. name is
 * the file's path as messages give it. */
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

/* Keep the .gz sibling of name (a file of dirfd; key in messages) in step
 * with its bytes (given as data). mtime is the file's modification time:
 * the .gz gets the same, which is how serve tells a fresh .gz from a
 * stale one. */
static int sync_gzip(int dirfd, const char *name, const char *key, const void *data, size_t len, bool want,
		     const struct timespec *mtime, char *err)
{
	char *gzname = xasprintf("%s.gz", name);
	char *gzkey = xasprintf("%s.gz", key);
	int rc = 0;
	struct buf gz = BUF_INIT;
	char *tmp = NULL;
	if (!want || len < PUBLISH_GZIP_MIN) {
		if (unlinkat(dirfd, gzname, 0) < 0 && errno != ENOENT)
			rc = err_sys(err, "cannot remove '%s'", gzkey);
		goto out;
	}
	struct stat st;
	if (fstatat(dirfd, gzname, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    st.st_mtim.tv_sec == mtime->tv_sec && st.st_mtim.tv_nsec == mtime->tv_nsec)
		goto out;
	if (gzip_bytes(data, len, &gz, err) < 0) {
		rc = -1;
		goto out;
	}
	tmp = write_temp(dirfd, gzkey, gz.data, gz.len, err);
	if (!tmp) {
		rc = -1;
		goto out;
	}
	struct timespec times[2] = { *mtime, *mtime };
	if (utimensat(dirfd, tmp, times, AT_SYMLINK_NOFOLLOW) < 0 ||
	    renameat(dirfd, tmp, dirfd, gzname) < 0) {
		rc = err_sys(err, "cannot publish '%s'", gzkey);
		unlinkat(dirfd, tmp, 0);
	}
out:
	free(tmp);
	buf_release(&gz);
	free(gzname);
	free(gzkey);
	return rc;
}

int publish_data(int treefd, const char *key, const void *data, size_t len, bool gzip, char *err)
{
	const char *name;
	int dirfd = open_parent(treefd, key, true, &name, err);
	if (dirfd < 0)
		return -1;
	char *tmp = NULL;
	int rc;
	struct stat st;
	bool existed = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (existed && S_ISDIR(st.st_mode)) {
		rc = err_set(err, "cannot publish '%s': a directory is in the way", key);
		goto out;
	}
	if (existed && !S_ISREG(st.st_mode)) {
		/* renameat would replace a link rather than follow it, but a
		 * link or a device there is not cgisnap's to replace. */
		rc = err_set(err, "cannot publish '%s': %s is in the way", key,
			     S_ISLNK(st.st_mode) ? "a symbolic link" : "a special file");
		goto out;
	}
	if (existed && same_bytes(dirfd, name, data, len)) {
		/* Unchanged: only repair a missing or stale .gz. */
		rc = sync_gzip(dirfd, name, key, data, len, gzip, &st.st_mtim, err) < 0 ? -1 : PUBLISH_UNCHANGED;
		goto out;
	}
	tmp = write_temp(dirfd, key, data, len, err);
	if (!tmp) {
		rc = -1;
		goto out;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct timespec times[2] = { now, now };
	rc = existed ? PUBLISH_CHANGED : PUBLISH_NEW;
	if (utimensat(dirfd, tmp, times, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = err_sys(err, "cannot publish '%s'", key);
		goto fail;
	}
	/* The .gz first: when the new page appears, its .gz is already there. */
	if (sync_gzip(dirfd, name, key, data, len, gzip, &now, err) < 0) {
		rc = -1;
		goto fail;
	}
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		rc = err_sys(err, "cannot publish '%s'", key);
		goto fail;
	}
	goto out;
fail:
	unlinkat(dirfd, tmp, 0);
out:
	free(tmp);
	close(dirfd);
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

/* Is name (in dirfd) the file cgisnap recorded: bytes long and, when
 * sha256 is given, with that hash? A publish_owner result. */
static int owner_at(int dirfd, const char *name, long long bytes, const char *sha256)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return PUBLISH_ABSENT;
		struct stat st;
		/* A symbolic link, or a file cgisnap cannot read: not ours. */
		return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? PUBLISH_FOREIGN : PUBLISH_ABSENT;
	}
	struct stat st;
	int rc = PUBLISH_FOREIGN;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || bytes < 0 || st.st_size != bytes)
		goto out;
	if (sha256 && *sha256) {
		struct sha256 ctx;
		unsigned char digest[32];
		char hex[65], chunk[COPY_CHUNK];
		ssize_t r;
		sha256_init(&ctx);
		while ((r = read(fd, chunk, sizeof chunk)) > 0)
			sha256_update(&ctx, chunk, (size_t)r);
		if (r < 0)
			goto out;
		sha256_final(&ctx, digest);
		sha256_to_hex(digest, hex);
		if (strcmp(hex, sha256))
			goto out;
	}
	rc = PUBLISH_OURS;
out:
	close(fd);
	return rc;
}

int publish_owner(int treefd, const char *key, long long bytes, const char *sha256, char *err)
{
	const char *name;
	int dirfd = open_parent(treefd, key, false, &name, err);
	if (dirfd < 0)
		return errno == ENOENT ? PUBLISH_ABSENT : -1;
	int rc = owner_at(dirfd, name, bytes, sha256);
	close(dirfd);
	return rc;
}

int publish_remove(int treefd, const char *key, long long bytes, const char *sha256, char *err)
{
	const char *name;
	int dirfd = open_parent(treefd, key, false, &name, err);
	if (dirfd < 0)
		return errno == ENOENT ? 0 : -1;
	char *gzname = xasprintf("%s.gz", name);
	int rc = 0;
	if (bytes >= 0 && owner_at(dirfd, name, bytes, sha256) == PUBLISH_FOREIGN)
		rc = PUBLISH_KEPT;
	else if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
		rc = err_sys(err, "cannot remove '%s'", key);
	else if (unlinkat(dirfd, gzname, 0) < 0 && errno != ENOENT)
		rc = err_sys(err, "cannot remove '%s.gz'", key);
	free(gzname);
	close(dirfd);
	if (rc != 0)
		return rc;
	/* Empty directories left behind go too, innermost first; each is
	 * reached again component by component, never through a link. */
	char *dir = xstrdup(key);
	for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
		*slash = '\0';
		char ignored[ERR_LEN];
		int pfd = open_parent(treefd, dir, false, &name, ignored);
		if (pfd < 0)
			break;
		int gone = unlinkat(pfd, name, AT_REMOVEDIR);
		close(pfd);
		if (gone < 0)
			break;
	}
	free(dir);
	return 0;
}

int publish_clean_temps(int treefd, const char *key)
{
	char ignored[ERR_LEN];
	const char *name;
	int dirfd = open_parent(treefd, key, false, &name, ignored);
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
