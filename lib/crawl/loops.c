/* loops.c - spotting pager and calendar loops while a crawl runs (loops.h). */
#include "crawl/loops.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/xalloc.h"

/* A family key longer than this (a path of hundreds of bytes) is not
 * tracked: it would cost memory and loops have short paths. */
#define KEY_MAX 512

struct loop_family {
	long steps;                      /* new URLs, each deeper than the last step */
	long last_depth;
	uint64_t last[LOOPS_PARAMS];     /* each parameter's value at the last step */
	long changes[LOOPS_PARAMS];      /* steps at which it differed from the step before */
	char *names[LOOPS_PARAMS];
	size_t nparams;
	bool warned;
};

struct param {
	const char *name, *value;
	size_t name_len, value_len;
};

static int cmp_param(const void *a, const void *b)
{
	const struct param *x = a, *y = b;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(x->name, y->name, n);
	return c ? c : (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

/* FNV-1a 64 of s[0..len). */
static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

void loops_init(struct loops *l, long threshold)
{
	memset(l, 0, sizeof *l);
	l->threshold = threshold;
}

/* The parameters of a query, sorted by name, a repeated name kept once
 * (its first value); at most max. Returns how many. */
static size_t split_query(const char *q, struct param *out, size_t max)
{
	size_t n = 0;
	while (*q && n < max) {
		size_t len = strcspn(q, "&");
		const char *eq = memchr(q, '=', len);
		struct param p = { q, eq ? eq + 1 : q + len, eq ? (size_t)(eq - q) : len,
				   eq ? (size_t)(q + len - eq - 1) : 0 };
		bool repeat = false;
		for (size_t i = 0; i < n && !repeat; i++)
			repeat = !cmp_param(&out[i], &p);
		if (len && !repeat)
			out[n++] = p;
		q += len + (q[len] == '&');
	}
	qsort(out, n, sizeof *out, cmp_param);
	return n;
}

char *loops_note(struct loops *l, const char *target, long depth)
{
	const char *q = strchr(target, '?');
	if (l->threshold <= 0 || !q)
		return NULL;
	/* Parameters past 64 are not looked at: no loop needs that many. */
	struct param params[64];
	size_t n = split_query(q + 1, params, 64);
	if (!n)
		return NULL;

	struct buf key = BUF_INIT;
	buf_add(&key, target, (size_t)(q - target + 1));
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_addc(&key, '&');
		buf_add(&key, params[i].name, params[i].name_len);
		buf_adds(&key, "=…");
	}
	char *msg = NULL;
	struct loop_family *f = key.len <= KEY_MAX ? hashmap_get(&l->families, key.data) : NULL;
	if (!f && key.len <= KEY_MAX && l->families.count < LOOPS_FAMILIES) {
		f = xcalloc(1, sizeof *f);
		f->nparams = n < LOOPS_PARAMS ? n : LOOPS_PARAMS;
		for (size_t i = 0; i < f->nparams; i++)
			f->names[i] = xstrndup(params[i].name, params[i].name_len);
		hashmap_put(&l->families, key.data, f);
	}
	if (!f || (f->steps && depth <= f->last_depth))
		goto out;

	size_t most = 0;
	for (size_t i = 0; i < f->nparams; i++) {
		uint64_t h = hash_bytes(params[i].value, params[i].value_len);
		if (f->steps && h != f->last[i])
			f->changes[i]++;
		f->last[i] = h;
		if (f->changes[i] > f->changes[most])
			most = i;
	}
	f->steps++;
	f->last_depth = depth;
	/* The first step's value counts too: changes + 1 values in all. */
	if (!f->warned && f->changes[most] + 1 >= l->threshold) {
		f->warned = true;
		msg = xasprintf("'%s' has %ld+ distinct values of '%s' (a pager or calendar loop? "
				"use --exclude or --max-pages)", key.data, l->threshold, f->names[most]);
	}
out:
	buf_release(&key);
	return msg;
}

void loops_release(struct loops *l)
{
	size_t it = 0;
	void *v;
	while (hashmap_next(&l->families, &it, NULL, &v)) {
		struct loop_family *f = v;
		for (size_t i = 0; i < f->nparams; i++)
			free(f->names[i]);
		free(f);
	}
	hashmap_release(&l->families);
	long threshold = l->threshold;
	loops_init(l, threshold);
}
