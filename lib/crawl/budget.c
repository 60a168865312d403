/* budget.c - --max-pages spent across URL families, breadth-first (budget.h). */
#include "crawl/budget.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

struct budget_wait {
	char *target;
	long depth;
	unsigned how;
};

struct budget_family {
	long admitted;
	/* The members that wait, in the order found: wait[next..n). */
	struct budget_wait *wait;
	size_t next, n, cap;
};

void budget_family(const char *target, struct buf *key)
{
	const char *q = strchr(target, '?');
	buf_reset(key);
	if (!q) {
		const char *slash = strrchr(target, '/');
		buf_add(key, target, slash ? (size_t)(slash - target + 1) : 0);
		buf_adds(key, "…");
		return;
	}
	/* The parameter names, sorted, each once. */
	struct strlist names = STRLIST_INIT;
	for (const char *p = q + 1; *p;) {
		size_t len = strcspn(p, "&");
		size_t name_len = strcspn(p, "=&");
		if (len)
			strlist_add_owned(&names, xstrndup(p, name_len < len ? name_len : len));
		p += len + (p[len] == '&');
	}
	strlist_sort(&names);
	buf_add(key, target, (size_t)(q - target + 1));
	for (size_t i = 0, n = 0; i < names.n; i++) {
		if (i && !strcmp(names.items[i], names.items[i - 1]))
			continue;
		buf_addf(key, "%s%s=…", n++ ? "&" : "", names.items[i]);
	}
	strlist_clear(&names);
}

void budget_init(struct budget *b, long max_pages)
{
	memset(b, 0, sizeof *b); /* HASHMAP_INIT and BUF_INIT are zeros */
	if (max_pages > 0) {
		b->head = max_pages / BUDGET_HEAD_SHARE;
		if (b->head < BUDGET_HEAD_MIN)
			b->head = BUDGET_HEAD_MIN;
	}
}

static struct budget_family *family_for(struct budget *b, const char *target)
{
	budget_family(target, &b->key);
	struct budget_family *f = hashmap_get(&b->families, buf_str(&b->key));
	if (f)
		return f;
	f = xcalloc(1, sizeof *f);
	hashmap_put(&b->families, buf_str(&b->key), f);
	if (b->nfamilies == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->order = xrealloc(b->order, b->cap * sizeof *b->order);
	}
	b->order[b->nfamilies++] = f;
	return f;
}

bool budget_note(struct budget *b, const char *target, long depth, unsigned how, bool may_wait)
{
	if (!b->head)
		return true;
	struct budget_family *f = family_for(b, target);
	if (!may_wait || f->admitted < b->head) {
		f->admitted++;
		return true;
	}
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 16;
		f->wait = xrealloc(f->wait, f->cap * sizeof *f->wait);
	}
	f->wait[f->n++] = (struct budget_wait){ xstrdup(target), depth, how };
	b->waiting++;
	return false;
}

size_t budget_round(struct budget *b, long room,
		    void (*take)(void *arg, char *target, long depth, unsigned how), void *arg)
{
	size_t admitted = 0;
	while (room > 0 && b->waiting) {
		for (size_t i = 0; i < b->nfamilies && room > 0; i++) {
			struct budget_family *f = b->order[i];
			if (f->next == f->n)
				continue;
			struct budget_wait w = f->wait[f->next++];
			f->admitted++;
			b->waiting--;
			room--;
			admitted++;
			take(arg, w.target, w.depth, w.how);
		}
	}
	return admitted;
}

size_t budget_drop(struct budget *b, void (*drop)(void *arg, const char *target), void *arg)
{
	size_t dropped = 0;
	for (size_t i = 0; i < b->nfamilies; i++) {
		struct budget_family *f = b->order[i];
		for (; f->next < f->n; f->next++, dropped++) {
			drop(arg, f->wait[f->next].target);
			free(f->wait[f->next].target);
		}
	}
	b->waiting = 0;
	return dropped;
}

void budget_clear(struct budget *b)
{
	for (size_t i = 0; i < b->nfamilies; i++) {
		struct budget_family *f = b->order[i];
		for (size_t k = f->next; k < f->n; k++)
			free(f->wait[k].target);
		free(f->wait);
		free(f);
	}
	free(b->order);
	hashmap_release(&b->families);
	buf_release(&b->key);
	memset(b, 0, sizeof *b);
}
