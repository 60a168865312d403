/* buf.c - growable byte buffers and string lists. */
#include "base/buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xalloc.h"

void buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
}

void buf_grow(struct buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap < ((size_t)1 << 30) ? cap * 2 : cap + ((size_t)1 << 30);
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
	b->data[b->len] = '\0';
}

void buf_add(struct buf *b, const void *p, size_t n)
{
	buf_grow(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_addc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void buf_add_quoted(struct buf *b, const char *s)
{
	buf_addc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			buf_addc(b, '\\');
		buf_addc(b, *s);
	}
	buf_addc(b, '"');
}

void buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	buf_grow(b, 64);
	va_start(ap, fmt);
	int n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		buf_grow(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

void buf_reset(struct buf *b)
{
	buf_truncate(b, 0);
}

void buf_truncate(struct buf *b, size_t len)
{
	if (!b->data)
		return;
	b->len = len < b->len ? len : b->len;
	b->data[b->len] = '\0';
}

void buf_release(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

char *buf_detach(struct buf *b, size_t *len)
{
	if (!b->data)
		buf_grow(b, 0);
	char *p = b->data;
	/* A short string detached from a buffer of 64 bytes or more (a URL,
	 * a target) would keep all of them: a page of 400,000 links kept
	 * 23 MB where 10 do. */
	if (b->cap - b->len - 1 >= 32)
		p = xrealloc(p, b->len + 1);
	if (len)
		*len = b->len;
	buf_init(b);
	return p;
}

const char *buf_str(const struct buf *b)
{
	return b->data ? b->data : "";
}

int buf_read_fd(struct buf *b, int fd, size_t max)
{
	size_t start = b->len;
	for (;;) {
		size_t room = max + 1 - (b->len - start);
		if (room > 65536)
			room = 65536;
		buf_grow(b, room);
		ssize_t r = read(fd, b->data + b->len, room);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return 0;
		b->len += (size_t)r;
		b->data[b->len] = '\0';
		if (b->len - start > max) {
			errno = EFBIG;
			return -1;
		}
	}
}

void strlist_add_owned(struct strlist *l, char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->items = xrealloc(l->items, l->cap * sizeof *l->items);
	}
	l->items[l->n++] = s;
}

void strlist_add(struct strlist *l, const char *s)
{
	strlist_add_owned(l, xstrdup(s));
}

bool strlist_contains(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i], s))
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool strlist_sorted(const struct strlist *l)
{
	for (size_t i = 1; i < l->n; i++)
		if (strcmp(l->items[i - 1], l->items[i]) > 0)
			return false;
	return true;
}

void strlist_sort(struct strlist *l)
{
	/* Lists often come sorted already (a trace's paths merged, a
	 * filtered sorted list): a look costs n comparisons, a sort n log n. */
	if (!strlist_sorted(l))
		qsort(l->items, l->n, sizeof *l->items, cmp_str);
}

void strlist_merge(struct strlist *l, const struct strlist *other)
{
	if (!other->n)
		return;
	size_t cap = l->n + other->n, n = 0, a = 0, b = 0;
	char **items = xreallocarray(NULL, cap, sizeof *items);
	while (a < l->n || b < other->n) {
		int c = a == l->n ? 1 : b == other->n ? -1 : strcmp(l->items[a], other->items[b]);
		if (c <= 0)
			items[n++] = l->items[a++];
		else
			items[n++] = xstrdup(other->items[b]);
		if (c >= 0 && b < other->n)
			b++;
	}
	free(l->items);
	l->items = items;
	l->n = n;
	l->cap = cap;
}

void strlist_uniq(struct strlist *l)
{
	size_t out = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (out && !strcmp(l->items[out - 1], l->items[i])) {
			free(l->items[i]);
			continue;
		}
		l->items[out++] = l->items[i];
	}
	l->n = out;
}

void strlist_clear(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = l->cap = 0;
}

void strlist_split(struct strlist *l, const char *s, char sep)
{
	while (*s) {
		const char *end = strchr(s, sep);
		size_t n = end ? (size_t)(end - s) : strlen(s);
		if (n)
			strlist_add_owned(l, xstrndup(s, n));
		s += n;
		if (*s)
			s++;
	}
}
