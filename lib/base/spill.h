/* spill.h - a response body that stays in memory while it is small and
 * moves to an unlinked temporary file once it passes a threshold, so that
 * a render of any size holds at most that many bytes in memory.
 *
 *     struct spill s;
 *     spill_init(&s, 1 << 20, -1);
 *     while (more)
 *             if (spill_add(&s, chunk, n, err) < 0) ... (the disk is full)
 *     s.fd < 0: the bytes are s.mem; else the s.len bytes of s.fd from 0
 *     spill_release(&s);
 *
 * The file is made with O_TMPFILE in the directory the caller names (the
 * tree's .cgisnap/: on the disk that will hold the page anyway, where
 * /tmp may be memory), else in $TMPDIR (default /tmp), made and unlinked
 * at once where O_TMPFILE is missing: nothing is left behind whatever
 * happens to the process.
 */
#ifndef CGISNAP_SPILL_H
#define CGISNAP_SPILL_H

#include <stddef.h>

#include "base/buf.h"

struct spill {
	struct buf mem;   /* every byte while fd < 0; empty after */
	int fd;           /* -1, or the file holding every byte */
	long long len;    /* bytes added */
	size_t max_mem;   /* more than this many bytes go to a file */
	int dirfd;        /* the directory for the file, or -1: $TMPDIR */
};

void spill_init(struct spill *s, size_t max_mem, int dirfd);
/* Append data[0..n); -1 with err when the file cannot be made or written. */
int spill_add(struct spill *s, const void *data, size_t n, char *err);
/* Forget the bytes (and the file): as fresh from spill_init. */
void spill_reset(struct spill *s);
/* Hand the file to the caller (who closes it), or -1 when there is none;
 * the spill becomes empty. */
int spill_take_fd(struct spill *s);
void spill_release(struct spill *s);

/* Read len bytes of fd from off into buf (appended). -1 with err naming
 * what when the file is shorter or unreadable. */
int spill_read(int fd, long long off, long long len, struct buf *out, const char *what, char *err);
/* The sha256 of len bytes of fd from off, as 64 hex digits; -1 with err. */
int spill_sha256_hex(int fd, long long off, long long len, char out[65], const char *what, char *err);

#endif
