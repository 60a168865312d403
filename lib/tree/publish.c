/* publish.c - atomic, change-aware writes into the snapshot tree. */
#include "tree/publish.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "base/hashmap.h"
#include "base/log.h"
#include "base/spill.h"
#include "base/xalloc.h"
#include "tree/publish_impl.h"

#define COPY_CHUNK 65536

static atomic_uint temp_counter;
static atomic_bool sync_off;

void publish_set_sync(bool on)
{
	atomic_store(&sync_off, !on);
}

bool publish_sync(void)
{
	return !atomic_load(&sync_off);
}

/* Make a directory's entries durable now (write_file_atomic). key names
 * it in the message. */
static int sync_dir(int dirfd, const char *key, char *err)
{
	if (!publish_sync() || fsync(dirfd) == 0 || errno == EINVAL)
		return 0;
	return err_sys(err, "cannot sync the directory of '%s'", key);
}

/* The directories (relative to the tree, "" its top) whose entries were
 * changed (a name renamed in or removed, a directory made) since the last
 * publish_sync_dirs: synced together before the manifest records them,
 * so that a failed sync fails the save, never a publish already in place. */
static pthread_mutex_t dirs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hashmap dirs_changed;

static void note_dir(const char *dir)
{
	pthread_mutex_lock(&dirs_lock);
	hashmap_put(&dirs_changed, dir, (void *)1);
	pthread_mutex_unlock(&dirs_lock);
}

/* Note the directory holding the first len bytes of path (a key, or a
 * directory's path) as changed. */
static void note_dir_of(const char *path, size_t len)
{
	if (!publish_sync())
		return;
	size_t dirlen = len;
	while (dirlen && path[dirlen - 1] != '/')
		dirlen--;
	char *dir = xstrndup(path, dirlen ? dirlen - 1 : 0);
	note_dir(dir);
	free(dir);
}


/* Open the directory holding key's last component. Each component is
 * opened with O_NOFOLLOW, so no symbolic link is ever followed, whether it
 * points into the tree or out of it; with create, missing directories are
 * made. Returns a descriptor the caller closes, *leaf pointing into key;
 * -1 with err, errno ENOENT when a directory is missing (and !create),
 * ELOOP for a symbolic link, ENOTDIR for a file in the way. */
int publish_open_parent(int treefd, const char *key, bool create, const char **leaf, char *err)
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
			note_dir_of(key, (size_t)(slash - key));
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

/* Where the bytes to publish are: len bytes from off, in memory (mem) or
 * in the file fd (a body spilled to a temporary file, a static file),
 * always handled a chunk at a time, so a body of any size costs
 * COPY_CHUNK of memory here. */
struct range {
	const char *mem; /* NULL: in fd (read with pread, never closed) */
	int fd;
	long long off, len;
};

/* Call fn on each chunk of r in turn, stopping early when it returns
 * non-zero (its value is returned); -1 with err when r cannot be read. */
static int each_chunk(const struct range *r, int (*fn)(void *arg, const char *data, size_t n),
		      void *arg, char *err)
{
	int rc = 0;
	if (r->mem) {
		for (long long done = 0; done < r->len && rc == 0; done += COPY_CHUNK) {
			long long n = r->len - done < COPY_CHUNK ? r->len - done : COPY_CHUNK;
			rc = fn(arg, r->mem + r->off + done, (size_t)n);
		}
		return rc;
	}
	char *chunk = xmalloc(COPY_CHUNK);
	long long off = r->off, left = r->len;
	while (left > 0 && rc == 0) {
		ssize_t n = pread(r->fd, chunk, left < COPY_CHUNK ? (size_t)left : COPY_CHUNK, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? err_sys(err, "cannot read the body to publish")
				   : err_set(err, "cannot read the body to publish: it became shorter");
			break;
		}
		rc = fn(arg, chunk, (size_t)n);
		off += n;
		left -= n;
	}
	free(chunk);
	return rc;
}

struct compare {
	int fd;       /* the published file */
	char *mine;   /* a chunk of it */
};

/* 0 while the published file goes on with the same bytes, 1 once not. */
static int compare_chunk(void *arg, const char *data, size_t n)
{
	struct compare *c = arg;
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(c->fd, c->mine + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 1;
		got += (size_t)r;
	}
	return memcmp(c->mine, data, n) ? 1 : 0;
}

/* Does the file name in dirfd hold exactly the bytes of r? 1 yes, 0 no,
 * missing or unreadable, -1 when r cannot be read (err). */
static int same_bytes(int dirfd, const char *name, const struct range *r, char *err)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct stat st;
	int same = 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size != r->len)
		goto out;
	struct compare c = { fd, xmalloc(COPY_CHUNK) };
	int rc = each_chunk(r, compare_chunk, &c, err);
	if (rc < 0)
		same = -1;
	else
		same = rc == 0 && read(fd, c.mine, 1) == 0;
	free(c.mine);
out:
	close(fd);
	return same;
}

static int write_chunk(void *arg, const char *data, size_t n)
{
	return write_all(*(int *)arg, data, n) < 0 ? 2 : 0;
}

struct deflating {
	z_stream z;
	int fd;
	char *out;
};

/* Deflate what is in z's input (finish: and end the stream) into fd. */
static int deflate_out(struct deflating *d, int flush)
{
	for (;;) {
		d->z.next_out = (Bytef *)d->out;
		d->z.avail_out = COPY_CHUNK;
		int zr = deflate(&d->z, flush);
		if (zr == Z_STREAM_ERROR)
			return 3;
		size_t have = COPY_CHUNK - d->z.avail_out;
		if (have && write_all(d->fd, d->out, have) < 0)
			return 2;
		if (flush == Z_FINISH ? zr == Z_STREAM_END : d->z.avail_out != 0)
			return 0;
	}
}

static int deflate_chunk(void *arg, const char *data, size_t n)
{
	struct deflating *d = arg;
	d->z.next_in = (Bytef *)data;
	d->z.avail_in = (uInt)n;
	return deflate_out(d, Z_NO_FLUSH);
}

/* Write the bytes of r (gzip: as gzip at level 9, RFC 1952, what nginx's
 * gzip_static reads) into a temp file in dirfd; returns the temp name.
 * name is the file's path as messages give it. */
static char *write_temp(int dirfd, const char *name, const struct range *r, bool gzip, char *err)
{
	char *tmp;
	int fd = open_temp(dirfd, name, &tmp, err);
	if (fd < 0)
		return NULL;
	int rc;
	if (gzip) {
		struct deflating d;
		memset(&d, 0, sizeof d);
		d.fd = fd;
		if (deflateInit2(&d.z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
			rc = err_set(err, "cannot start zlib");
		} else {
			d.out = xmalloc(COPY_CHUNK);
			rc = each_chunk(r, deflate_chunk, &d, err);
			if (rc == 0)
				rc = deflate_out(&d, Z_FINISH);
			deflateEnd(&d.z);
			free(d.out);
		}
	} else {
		rc = each_chunk(r, write_chunk, &fd, err);
	}
	if (rc == 2)
		err_sys(err, "cannot write '%s'", name);
	else if (rc == 3)
		err_set(err, "zlib could not compress");
	/* Its bytes on disk before its name can be: a power cut after the
	 * rename must not leave an empty file where the manifest records a
	 * page (ext4 and XFS write a new file's data well after its name). */
	if (rc == 0 && publish_sync() && fdatasync(fd) < 0)
		rc = err_sys(err, "cannot write '%s'", name);
	if (close(fd) < 0 && rc == 0)
		rc = err_sys(err, "cannot write '%s'", name);
	if (rc) {
		unlinkat(dirfd, tmp, 0);
		free(tmp);
		return NULL;
	}
	return tmp;
}

static void note(struct strlist *l, const char *path)
{
	if (l)
		strlist_add(l, path);
}

/* Keep the .gz sibling of name (a file of dirfd; key in messages) in step
 * with its bytes (r). mtime is the file's modification time: the .gz gets
 * the same, which is how serve tells a fresh .gz from a stale one. 1 when
 * it wrote or removed the .gz, 0 when that was as wanted, -1 with err. */
static int sync_gzip(int dirfd, const char *name, const char *key, const struct range *r, bool want,
		     const struct timespec *mtime, struct publish_paths *paths, char *err)
{
	char *gzname = xasprintf("%s.gz", name);
	char *gzkey = xasprintf("%s.gz", key);
	int rc = 0;
	char *tmp = NULL;
	if (!want || r->len < PUBLISH_GZIP_MIN) {
		if (unlinkat(dirfd, gzname, 0) == 0)
			note(paths->removed, gzkey), rc = 1;
		else if (errno != ENOENT)
			rc = err_sys(err, "cannot remove '%s'", gzkey);
		goto out;
	}
	struct stat st;
	if (fstatat(dirfd, gzname, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    st.st_mtim.tv_sec == mtime->tv_sec && st.st_mtim.tv_nsec == mtime->tv_nsec)
		goto out;
	tmp = write_temp(dirfd, gzkey, r, true, err);
	if (!tmp) {
		rc = -1;
		goto out;
	}
	struct timespec times[2] = { *mtime, *mtime };
	if (utimensat(dirfd, tmp, times, AT_SYMLINK_NOFOLLOW) < 0 ||
	    renameat(dirfd, tmp, dirfd, gzname) < 0) {
		rc = err_sys(err, "cannot publish '%s'", gzkey);
		unlinkat(dirfd, tmp, 0);
	} else {
		note(paths->written, gzkey);
		rc = 1;
	}
out:
	free(tmp);
	free(gzname);
	free(gzkey);
	return rc;
}

/* publish_data and publish_fd: one path for bytes wherever they are. */
static int publish_range(int treefd, const char *key, const struct range *r, bool gzip,
			 struct publish_paths *paths, char *err)
{
	const char *name;
	int dirfd = publish_open_parent(treefd, key, true, &name, err);
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
	int same = existed ? same_bytes(dirfd, name, r, err) : 0;
	if (same < 0) {
		rc = -1;
		goto out;
	}
	if (same) {
		/* Unchanged: only repair a missing or stale .gz. */
		int gz = sync_gzip(dirfd, name, key, r, gzip, &st.st_mtim, paths, err);
		if (gz > 0)
			note_dir_of(key, strlen(key));
		rc = gz < 0 ? -1 : PUBLISH_UNCHANGED;
		goto out;
	}
	tmp = write_temp(dirfd, key, r, false, err);
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
	if (sync_gzip(dirfd, name, key, r, gzip, &now, paths, err) < 0) {
		rc = -1;
		goto fail;
	}
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		rc = err_sys(err, "cannot publish '%s'", key);
		goto fail;
	}
	note(paths->written, key);
	note_dir_of(key, strlen(key));
	goto out;
fail:
	unlinkat(dirfd, tmp, 0);
out:
	free(tmp);
	close(dirfd);
	return rc;
}

int publish_data_noted(int treefd, const char *key, const void *data, size_t len, bool gzip,
		       struct publish_paths *paths, char *err)
{
	struct publish_paths none = { NULL, NULL };
	const struct range r = { data ? data : "", -1, 0, (long long)len };
	return publish_range(treefd, key, &r, gzip, paths ? paths : &none, err);
}

int publish_fd_noted(int treefd, const char *key, int fd, long long off, long long len, bool gzip,
		     struct publish_paths *paths, char *err)
{
	struct publish_paths none = { NULL, NULL };
	const struct range r = { NULL, fd, off, len };
	return publish_range(treefd, key, &r, gzip, paths ? paths : &none, err);
}

int publish_data(int treefd, const char *key, const void *data, size_t len, bool gzip, char *err)
{
	return publish_data_noted(treefd, key, data, len, gzip, NULL, err);
}

int publish_fd(int treefd, const char *key, int fd, long long off, long long len, bool gzip, char *err)
{
	return publish_fd_noted(treefd, key, fd, off, len, gzip, NULL, err);
}

int publish_copy(int treefd, const char *key, const char *src, bool gzip, char *err)
{
	/* Streamed, not read into memory: a static file may be of any size. */
	int fd = open(src, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int rc = err_sys(err, "cannot read '%s'", src);
		if (fd >= 0)
			close(fd);
		return rc;
	}
	int rc = publish_fd(treefd, key, fd, 0, (long long)st.st_size, gzip, err);
	close(fd);
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
		char hex[65], ignored[ERR_LEN];
		/* Unreadable counts as not ours, like a hash that differs. */
		if (spill_sha256_hex(fd, 0, bytes, hex, name, ignored) < 0 || strcmp(hex, sha256))
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
	int dirfd = publish_open_parent(treefd, key, false, &name, err);
	if (dirfd < 0)
		return errno == ENOENT ? PUBLISH_ABSENT : -1;
	int rc = owner_at(dirfd, name, bytes, sha256);
	close(dirfd);
	return rc;
}

int publish_read(int treefd, const char *key, long long max, struct buf *out, char *err)
{
	const char *name;
	int dirfd = publish_open_parent(treefd, key, false, &name, err);
	if (dirfd < 0)
		return -1;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dirfd);
	if (fd < 0)
		return err_sys(err, "cannot open '%s'", key);
	struct stat st;
	int rc = -1;
	if (fstat(fd, &st) < 0) {
		err_sys(err, "cannot stat '%s'", key);
	} else if (!S_ISREG(st.st_mode) || st.st_size > max) {
		err_set(err, "'%s' is no regular file of at most %lld bytes", key, max);
	} else {
		rc = spill_read(fd, 0, st.st_size, out, key, err);
	}
	close(fd);
	return rc;
}

int publish_remove(int treefd, const char *key, long long bytes, const char *sha256, char *err)
{
	return publish_remove_noted(treefd, key, bytes, sha256, NULL, err);
}

int publish_remove_noted(int treefd, const char *key, long long bytes, const char *sha256,
			 struct publish_paths *paths, char *err)
{
	struct publish_paths none = { NULL, NULL };
	if (!paths)
		paths = &none;
	const char *name;
	int dirfd = publish_open_parent(treefd, key, false, &name, err);
	if (dirfd < 0)
		return errno == ENOENT ? 0 : -1;
	char *gzname = xasprintf("%s.gz", name);
	char *gzkey = xasprintf("%s.gz", key);
	int rc = 0;
	int unlinked;
	if (bytes >= 0 && owner_at(dirfd, name, bytes, sha256) == PUBLISH_FOREIGN) {
		rc = PUBLISH_KEPT;
	} else if ((unlinked = unlinkat(dirfd, name, 0)) < 0 && errno != ENOENT) {
		rc = err_sys(err, "cannot remove '%s'", key);
	} else {
		if (unlinked == 0)
			note(paths->removed, key);
		if (unlinkat(dirfd, gzname, 0) == 0)
			note(paths->removed, gzkey);
		else if (errno != ENOENT)
			rc = err_sys(err, "cannot remove '%s'", gzkey);
		note_dir_of(key, strlen(key));
	}
	free(gzname);
	free(gzkey);
	close(dirfd);
	if (rc != 0)
		return rc;
	/* Empty directories left behind go too, innermost first; each is
	 * reached again component by component, never through a link. */
	char *dir = xstrdup(key);
	for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
		*slash = '\0';
		char ignored[ERR_LEN];
		int pfd = publish_open_parent(treefd, dir, false, &name, ignored);
		if (pfd < 0)
			break;
		int gone = unlinkat(pfd, name, AT_REMOVEDIR);
		close(pfd);
		if (gone == 0)
			note_dir_of(dir, strlen(dir));
		if (gone < 0)
			break;
		if (paths->removed)
			strlist_add_owned(paths->removed, xasprintf("%s/", dir));
	}
	free(dir);
	return 0;
}

int publish_sync_dirs(int treefd, char *err)
{
	pthread_mutex_lock(&dirs_lock);
	struct hashmap dirs = dirs_changed;
	memset(&dirs_changed, 0, sizeof dirs_changed);
	pthread_mutex_unlock(&dirs_lock);
	int rc = 0;
	size_t it = 0;
	const char *dir;
	void *v;
	while (hashmap_next(&dirs, &it, &dir, &v)) {
		if (rc < 0) {
			note_dir(dir); /* still to sync: the next save tries again */
			continue;
		}
		char ignored[ERR_LEN];
		char *inside = xasprintf("%s%sx", dir, *dir ? "/" : "");
		const char *leaf;
		int fd = publish_open_parent(treefd, inside, false, &leaf, ignored);
		free(inside);
		if (fd < 0)
			continue; /* removed since: its parent was noted then */
		if (fsync(fd) < 0 && errno != EINVAL) {
			rc = err_sys(err, "cannot sync the directory '%s'", *dir ? dir : ".");
			note_dir(dir);
		}
		close(fd);
	}
	hashmap_release(&dirs);
	return rc;
}

int write_file_atomic(int dirfd, const char *name, const void *data, size_t len, char *err)
{
	const struct range r = { data ? data : "", -1, 0, (long long)len };
	char *tmp = write_temp(dirfd, name, &r, false, err);
	if (!tmp)
		return -1;
	int rc = 0;
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		rc = err_sys(err, "cannot write '%s'", name);
		unlinkat(dirfd, tmp, 0);
	} else {
		rc = sync_dir(dirfd, name, err);
	}
	free(tmp);
	return rc;
}
