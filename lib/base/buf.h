/* buf.h - growable byte buffers and string lists.
 *
 * struct buf always keeps a NUL after its bytes, so b.data can be used as a
 * C string when the content is text; binary content may hold NULs too, so
 * b.len is authoritative. Allocation failures exit (xalloc.h).
 *
 *     struct buf b = BUF_INIT;
 *     buf_addf(&b, "%d pages", n);
 *     puts(b.data);
 *     buf_release(&b);
 */
#ifndef CGISNAP_BUF_H
#define CGISNAP_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct buf {
	char *data; /* never NULL after the first add; "" when empty */
	size_t len;
	size_t cap;
};

#define BUF_INIT { NULL, 0, 0 }

void buf_init(struct buf *b);
/* Make room for at least extra more bytes (plus the trailing NUL). */
void buf_grow(struct buf *b, size_t extra);
void buf_add(struct buf *b, const void *p, size_t n);
void buf_adds(struct buf *b, const char *s);
void buf_addc(struct buf *b, char c);
void buf_addf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s in double quotes, '"' and '\\' escaped with a backslash (nginx's
 * quoting, and an option file's). */
void buf_add_quoted(struct buf *b, const char *s);
/* Empty the buffer, keeping its memory. */
void buf_reset(struct buf *b);
/* Cut the content to len bytes (len <= b->len). */
void buf_truncate(struct buf *b, size_t len);
/* Free the memory; the buffer is empty and usable again. */
void buf_release(struct buf *b);
/* Hand the memory to the caller (who frees it); the buffer becomes empty. */
char *buf_detach(struct buf *b, size_t *len);
/* Text of the buffer: "" for a buffer that never held anything. */
const char *buf_str(const struct buf *b);
/* Append what fd holds up to its end: 0, or -1 with errno set (EFBIG when
 * it holds more than max bytes; at most max + 1 are read, so /dev/zero
 * ends). An interrupted read is retried. On failure b keeps what was read:
 * the caller decides whether a part is any use. */
int buf_read_fd(struct buf *b, int fd, size_t max);

/* A list of owned strings, e.g. a repeatable option's values. */
struct strlist {
	char **items;
	size_t n;
	size_t cap;
};

#define STRLIST_INIT { NULL, 0, 0 }

void strlist_add(struct strlist *l, const char *s);      /* copies s */
void strlist_add_owned(struct strlist *l, char *s);      /* takes s */
bool strlist_contains(const struct strlist *l, const char *s);
/* Whether the strings are in strcmp order (repeats allowed). */
bool strlist_sorted(const struct strlist *l);
void strlist_sort(struct strlist *l);
/* Drop neighbours that are equal (sort first for a set). */
void strlist_uniq(struct strlist *l);
/* l and other are sets (sorted, no repeats): l becomes their union, a set
 * too, with copies of other's strings that l lacked. */
void strlist_merge(struct strlist *l, const struct strlist *other);
void strlist_clear(struct strlist *l);
/* Split s at each sep into a fresh list (empty fields dropped). */
void strlist_split(struct strlist *l, const char *s, char sep);

#endif
