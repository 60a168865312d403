/* families.c - what the query parameters of a crawl did (families.h):
 * the URLs noted, and the report made of them. */
#include "crawl/families_impl.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void families_init(struct families *f)
{
	memset(f, 0, sizeof *f);
}

void families_set_now(struct families *f, long long now)
{
	f->now = now;
}

void families_set_default_seed(struct families *f, const char *target)
{
	free(f->default_seed);
	f->default_seed = target ? xstrdup(target) : NULL;
}

static uint64_t hex64(const char *hex)
{
	uint64_t v = 0;
	for (int i = 0; i < 16 && hex[i]; i++) {
		char c = hex[i];
		v = v << 4 | (uint64_t)(c >= 'a' ? c - 'a' + 10 : c >= 'A' ? c - 'A' + 10 : c - '0');
	}
	return v;
}

void families_note(struct families *f, const char *target, const char *sha256_hex, const char *type)
{
	/* Tabs separate the analysis's keys; canonical targets have none. */
	if (!target || *target != '/' || strchr(target, '\t'))
		return;
	if (f->n >= FAMILIES_MAX_URLS) {
		f->dropped++;
		return;
	}
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 256;
		f->urls = xrealloc(f->urls, f->cap * sizeof *f->urls);
	}
	const char *t = NULL;
	if (type) {
		t = hashmap_get(&f->types, type);
		if (!t) {
			char *copy = xstrdup(type);
			hashmap_put(&f->types, type, copy);
			t = copy;
		}
	}
	f->urls[f->n++] = (struct families_url){ xstrdup(target), hex64(sha256_hex ? sha256_hex : ""), t };
}

void families_release(struct families *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->urls[i].target);
	free(f->urls);
	size_t it = 0;
	void *v;
	while (hashmap_next(&f->types, &it, NULL, &v))
		free(v);
	hashmap_release(&f->types);
	free(f->default_seed);
	families_init(f);
}

static int cmp_line(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->text, y->text);
}

static int cmp_url(const void *a, const void *b)
{
	const struct families_url *x = a, *y = b;
	int c = strcmp(x->target, y->target);
	/* A target noted twice (the crawl notes each once) keeps the same one. */
	return c ? c : (x->body > y->body) - (x->body < y->body);
}

static int cmp_param(const void *x, const void *y)
{
	const struct param *a = *(struct param *const *)x, *b = *(struct param *const *)y;
	if (a->urls.n != b->urls.n)
		return a->urls.n > b->urls.n ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The parameters, most URLs first (a fresh array of params.count). */
static struct param **sorted_params(const struct analysis *a)
{
	struct param **ks = xcalloc(a->params.count + 1, sizeof *ks);
	size_t n = 0, it = 0;
	void *v;
	while (hashmap_next(&a->params, &it, NULL, &v))
		ks[n++] = v;
	qsort(ks, n, sizeof *ks, cmp_param);
	return ks;
}

static void table_lines(const struct analysis *a, struct param **ks, struct strlist *table)
{
	size_t n = a->params.count;
	for (size_t i = 0; i < n && i < FAMILIES_TABLE; i++) {
		const struct param *k = ks[i];
		strlist_add_owned(table, xasprintf("'%s': %ld URL%s on %ld path%s, %ld distinct bod%s, %ld distinct "
						   "value%s%s%s", k->name, k->urls.n, k->urls.n == 1 ? "" : "s", k->paths,
						   k->paths == 1 ? "" : "s", k->urls.distinct,
						   k->urls.distinct == 1 ? "y" : "ies", k->vals.distinct,
						   k->vals.distinct == 1 ? "" : "s",
						   k->irrelevant ? " (never changed a body)" : "",
						   k->stamp ? " (timestamp-like)" : ""));
	}
	if (n > FAMILIES_TABLE)
		strlist_add_owned(table, xasprintf("…and %zu more parameters", n - FAMILIES_TABLE));
}

void families_report(const struct families *f, struct strlist *notes, struct strlist *table)
{
	struct analysis a;
	memset(&a, 0, sizeof a);
	a.f = f;
	if (!f->n)
		return;
	/* Sorted, so that examples and ties come out the same on every run.
	 * The records are the crawl's to keep: a sorted copy is analysed. */
	struct families_url *urls = xcalloc(f->n, sizeof *urls);
	memcpy(urls, f->urls, f->n * sizeof *urls);
	qsort(urls, f->n, sizeof *urls, cmp_url);
	a.p = xcalloc(f->n, sizeof *a.p);
	a.all = xcalloc(f->n, sizeof *a.all);
	a.excluded = xcalloc(f->n, sizeof *a.excluded);
	a.kept = xcalloc(f->n, sizeof *a.kept);
	for (size_t i = 0; i < f->n; i++) {
		if (a.n && !strcmp(urls[i].target, a.p[a.n - 1].u->target))
			continue; /* noted twice: once is enough */
		fam_parse_url(&urls[i], &a.p[a.n]);
		a.all[a.n] = urls[i].body;
		a.n++;
	}
	qsort(a.all, a.n, sizeof *a.all, fam_cmp_u64);

	fam_fill(&a);
	fam_judge_params(&a);
	struct line *lines = NULL;
	size_t nlines = 0;
	fam_family_lines(&a, &lines, &nlines);
	struct param **ks = sorted_params(&a);
	fam_param_lines(&a, ks, &lines, &nlines);
	table_lines(&a, ks, table);
	free(ks);

	if (nlines)
		qsort(lines, nlines, sizeof *lines, cmp_line);
	if (nlines && f->dropped)
		strlist_add_owned(notes, xasprintf("query parameters and URL families that multiplied URLs, with "
						   "the options that remove them (of the first %d URLs; -v: "
						   "every parameter):", FAMILIES_MAX_URLS));
	else if (nlines)
		strlist_add_owned(notes, xstrdup("query parameters and URL families that multiplied URLs, with "
						 "the options that remove them (-v: every parameter):"));
	for (size_t i = 0; i < nlines; i++) {
		if (i < FAMILIES_LINES)
			strlist_add_owned(notes, lines[i].text);
		else
			free(lines[i].text);
	}
	if (nlines > FAMILIES_LINES)
		strlist_add_owned(notes, xasprintf("  # …and %zu more", nlines - FAMILIES_LINES));
	free(lines);
	fam_analysis_release(&a);
	free(urls);
}
