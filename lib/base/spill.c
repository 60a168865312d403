/* spill.c - bodies in memory up to a threshold, in a temporary file past it. */
#include "base/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/log.h"
#include "base/sha256.h"
#include "base/xalloc.h"

#define CHUNK 65536

void spill_init(struct spill *s, size_t max_mem, int dirfd)
{
	buf_init(&s->mem);
	s->fd = -1;
	s->len = 0;
	s->max_mem = max_mem;
	s->dirfd = dirfd;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* An unlinked file in dirfd, else in $TMPDIR; -1 with err. */
static int open_spill_file(int dirfd, char *err)
{
	if (dirfd >= 0) {
		int fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
	}
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* No O_TMPFILE here (an old kernel, some network file systems). */
	char *path = xasprintf("%s/cgisnap-body-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	else
		err_sys(err, "cannot create a temporary file in '%s'", dir);
	free(path);
	return fd;
}

int spill_add(struct spill *s, const void *data, size_t n, char *err)
{
	if (s->fd < 0 && s->mem.len + n <= s->max_mem) {
		buf_add(&s->mem, data, n);
		s->len += (long long)n;
		return 0;
	}
	if (s->fd < 0) {
		if ((s->fd = open_spill_file(s->dirfd, err)) < 0)
			return -1;
		if (write_all(s->fd, s->mem.data ? s->mem.data : "", s->mem.len) < 0)
			return err_sys(err, "cannot write a temporary file");
		buf_release(&s->mem);
	}
	if (write_all(s->fd, data, n) < 0)
		return err_sys(err, "cannot write a temporary file");
	s->len += (long long)n;
	return 0;
}

void spill_reset(struct spill *s)
{
	buf_reset(&s->mem);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->len = 0;
}

int spill_take_fd(struct spill *s)
{
	int fd = s->fd;
	s->fd = -1;
	s->len = 0;
	buf_release(&s->mem);
	return fd;
}

void spill_release(struct spill *s)
{
	buf_release(&s->mem);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->len = 0;
}

/* Call fn for each chunk of len bytes of fd from off; 0 or -1 with err. */
static int each_chunk(int fd, long long off, long long len, const char *what, char *err,
		      void (*fn)(void *arg, const char *data, size_t n), void *arg)
{
	char *chunk = xmalloc(CHUNK);
	int rc = 0;
	while (len > 0) {
		size_t want = len < CHUNK ? (size_t)len : CHUNK;
		ssize_t r = pread(fd, chunk, want, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = err_sys(err, "cannot read '%s'", what);
			break;
		}
		if (r == 0) {
			rc = err_set(err, "cannot read '%s': it became shorter", what);
			break;
		}
		fn(arg, chunk, (size_t)r);
		off += r;
		len -= r;
	}
	free(chunk);
	return rc;
}

static void add_to_buf(void *arg, const char *data, size_t n)
{
	buf_add(arg, data, n);
}

int spill_read(int fd, long long off, long long len, struct buf *out, const char *what, char *err)
{
	buf_grow(out, (size_t)len);
	return each_chunk(fd, off, len, what, err, add_to_buf, out);
}

static void add_to_hash(void *arg, const char *data, size_t n)
{
	sha256_update(arg, data, n);
}

int spill_sha256_hex(int fd, long long off, long long len, char out[65], const char *what, char *err)
{
	struct sha256 c;
	unsigned char digest[32];
	sha256_init(&c);
	if (each_chunk(fd, off, len, what, err, add_to_hash, &c) < 0) {
		sha256_release(&c);
		return -1;
	}
	sha256_final(&c, digest);
	sha256_to_hex(digest, out);
	return 0;
}
