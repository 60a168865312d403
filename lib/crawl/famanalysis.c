/* famanalysis.c - the analysis of the noted URLs: each split into its
 * query's pieces, grouped into parameters, sibling groups and families,
 * and each parameter's verdict (families_impl.h). */
#include "crawl/families_impl.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/xalloc.h"

static const char *const pseudo_name[] = { NULL, "<number>", "<hex>" };

static enum nonce looks_nonce(const char *s, size_t len)
{
	size_t digits = 0, hex = 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9')
			digits++, hex++;
		else if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
			hex++;
		else
			return NONCE_NO;
	}
	if (digits == len && len >= NONCE_DIGITS_MIN)
		return NONCE_DIGITS;
	if (hex == len && len >= NONCE_HEX_MIN)
		return NONCE_HEX;
	return NONCE_NO;
}

/* Whether a piece's value is a time within a day of now: Unix seconds,
 * or milliseconds, microseconds, nanoseconds (their first 10 digits). A
 * revision's date (DokuWiki's rev=) is older: content, not a render's
 * cache-buster. */
static bool near_now(const struct piece *pc, long long now)
{
	size_t len = pc->vlen;
	if (!pc->val || (len != 10 && len != 13 && len != 16 && len != 19) || now <= 0)
		return false;
	long long secs = 0;
	for (size_t i = 0; i < len; i++) {
		if (pc->val[i] < '0' || pc->val[i] > '9')
			return false;
		if (i < 10)
			secs = secs * 10 + (pc->val[i] - '0');
	}
	return secs > now - NEAR_NOW && secs < now + NEAR_NOW;
}

void fam_parse_url(const struct families_url *u, struct purl *p)
{
	const char *t = u->target;
	const char *q = strchr(t, '?');
	struct piece pieces[FAMILIES_PARAMS];
	memset(p, 0, sizeof *p);
	memset(pieces, 0, sizeof pieces);
	p->u = u;
	p->plen = q ? (size_t)(q - t) : strlen(t);
	p->query = q && q[1];
	for (const char *s = q ? q + 1 : ""; *s && p->np < FAMILIES_PARAMS;) {
		size_t len = strcspn(s, "&");
		if (len) {
			struct piece *pc = &pieces[p->np++];
			const char *eq = memchr(s, '=', len);
			pc->s = s;
			pc->len = len;
			pc->name = s;
			pc->nlen = eq ? (size_t)(eq - s) : len;
			if (eq) {
				pc->val = eq + 1;
				pc->vlen = len - pc->nlen - 1;
			} else if ((pc->nonce = looks_nonce(s, len)) != NONCE_NO) {
				pc->name = pseudo_name[pc->nonce];
				pc->nlen = strlen(pc->name);
				pc->val = s;
				pc->vlen = len;
			}
		}
		s += len + (s[len] == '&');
	}
	/* Most URLs have a piece or two: no room kept for sixteen. */
	if (p->np) {
		p->p = xcalloc(p->np, sizeof *p->p);
		memcpy(p->p, pieces, p->np * sizeof *p->p);
	}
}

bool fam_same_name(const struct piece *a, const struct piece *b)
{
	return a->nlen == b->nlen && !memcmp(a->name, b->name, a->nlen);
}

/* Whether p's i-th piece is the first with its name. */
bool fam_first_of_name(const struct purl *p, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (fam_same_name(&p->p[j], &p->p[i]))
			return false;
	return true;
}


/* The identity of the value(s) a URL gives name n: its pieces' text. */
uint64_t fam_value_of(const struct purl *p, const struct piece *n)
{
	uint64_t h = FNV1A64_START;
	for (size_t i = 0; i < p->np; i++)
		if (fam_same_name(&p->p[i], n))
			h = fnv1a64(fnv1a64(h, p->p[i].s, p->p[i].len), "&", 1);
	return h;
}

static void group_add(struct group *g, uint64_t body, size_t idx)
{
	if (!g->n || idx < g->first)
		g->first = idx;
	if ((size_t)g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 4;
		g->bodies = xrealloc(g->bodies, g->cap * sizeof *g->bodies);
		g->members = xrealloc(g->members, g->cap * sizeof *g->members);
	}
	g->members[g->n] = idx;
	g->bodies[g->n++] = body;
}

int fam_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void group_release(struct group *g)
{
	free(g->bodies);
	free(g->members);
}

static void group_done(struct group *g)
{
	qsort(g->bodies, (size_t)g->n, sizeof *g->bodies, fam_cmp_u64);
	g->distinct = 0;
	for (long i = 0; i < g->n; i++)
		g->distinct += !i || g->bodies[i] != g->bodies[i - 1];
}

/* How many of the sorted bodies[0..n) are b. */
static long count_of(const uint64_t *bodies, size_t n, uint64_t b)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bodies[mid] < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	long c = 0;
	while (lo + c < n && bodies[lo + c] == b)
		c++;
	return c;
}

static void sibling_add(struct sibling *s, uint64_t body)
{
	if (s->n++ == 0)
		s->body = body;
	else if (body != s->body)
		s->mixed = true;
}

static void bodyset_add(struct bodyset *b, uint64_t body)
{
	for (int i = 0; i < b->distinct; i++) {
		if (b->body[i] == body) {
			b->count[i]++;
			return;
		}
	}
	if (b->distinct == FAMILIES_FEW + 1) {
		b->more = true;
		return;
	}
	b->body[b->distinct] = body;
	b->count[b->distinct++] = 1;
}

static void family_add(struct family *fam, uint64_t body, size_t idx)
{
	if (!fam->n++)
		fam->first = idx;
	fam->last = idx;
	bodyset_add(&fam->b, body);
}

/* How many URLs with body the reported --exclude lines leave. */
long fam_left_with(const struct analysis *a, uint64_t body)
{
	long n = count_of(a->all, a->n, body);
	for (size_t i = 0; i < a->ngone; i++)
		if (a->gone[i].body == body)
			n -= a->gone[i].n;
	return n;
}

void fam_exclude_url(struct analysis *a, size_t idx)
{
	uint64_t body = a->p[idx].u->body;
	size_t i = 0;
	a->excluded[idx] = true;
	while (i < a->ngone && a->gone[i].body != body)
		i++;
	if (i == a->ngone) {
		a->gone = xrealloc(a->gone, (a->ngone + 1) * sizeof *a->gone);
		a->gone[a->ngone++] = (struct gone){ body, 0 };
	}
	a->gone[i].n++;
}

static void *get_or_new(struct hashmap *m, const char *key, size_t size, bool *fresh)
{
	void *v = hashmap_get(m, key);
	*fresh = !v;
	if (!v) {
		v = xcalloc(1, size);
		hashmap_put(m, key, v);
	}
	return v;
}

/* Whether piece j of p makes a family of its own: not a repeat of an
 * earlier piece of the URL, nor a timestamp (a family of one timestamp
 * value says nothing). */
static bool piece_family(const struct purl *p, size_t j)
{
	const struct piece *pc = &p->p[j];
	for (size_t k = 0; k < j; k++)
		if (pc->len == p->p[k].len && !memcmp(pc->s, p->p[k].s, pc->len))
			return false;
	return pc->nonce == NONCE_NO;
}

static uint64_t piece_hash(const struct purl *p, const struct piece *pc)
{
	uint64_t h = fnv1a64(FNV1A64_START, p->u->target, p->plen);
	h = fnv1a64(h, "\t", 1);
	h = fnv1a64(h, pc->s, pc->len);
	return h ? h : 1; /* 0 marks a free slot */
}

/* How many URLs carry each piece on its path, by the pair's 64-bit hash:
 * a piece family of fewer than FAMILIES_MIN_URLS URLs can be no
 * duplicate, and a site's "?id=N" pieces are mostly families of one,
 * each some 200 bytes of the report's tables when made. Two pairs of one
 * hash are counted together: a family is then made that need not be,
 * never left out that should be. */
struct piece_counts {
	struct piece_count { uint64_t hash; long n; } *slot;
	size_t mask;
};

static struct piece_count *piece_slot(struct piece_counts *pc, uint64_t h)
{
	size_t i = (size_t)h & pc->mask;
	while (pc->slot[i].hash && pc->slot[i].hash != h)
		i = (i + 1) & pc->mask;
	return &pc->slot[i];
}

static void count_pieces(const struct analysis *a, struct piece_counts *pc)
{
	size_t total = 0, cap = 16;
	for (size_t i = 0; i < a->n; i++)
		total += a->p[i].query ? a->p[i].np : 0;
	while (cap < 2 * total)
		cap *= 2;
	pc->slot = xcalloc(cap, sizeof *pc->slot);
	pc->mask = cap - 1;
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; a->p[i].query && j < a->p[i].np; j++)
			if (piece_family(&a->p[i], j)) {
				uint64_t h = piece_hash(&a->p[i], &a->p[i].p[j]);
				struct piece_count *s = piece_slot(pc, h);
				s->hash = h;
				s->n++;
			}
}

/* Every URL into its parameters' groups, its sibling groups and its
 * families. */
void fam_fill(struct analysis *a)
{
	struct buf key = BUF_INIT;
	bool fresh;
	struct piece_counts counts;
	count_pieces(a, &counts);
	for (size_t i = 0; i < a->n; i++) {
		const struct purl *p = &a->p[i];
		const char *t = p->u->target;
		uint64_t body = p->u->body;
		if (!p->query)
			continue;
		buf_reset(&key);
		buf_add(&key, t, p->plen);
		buf_addc(&key, '\t');
		struct family *fam = get_or_new(&a->fams, key.data, sizeof *fam, &fresh);
		if (fresh) {
			fam->path = t;
			fam->plen = p->plen;
		}
		family_add(fam, body, i);
		for (size_t j = 0; j < p->np; j++) {
			const struct piece *pc = &p->p[j];
			if (!piece_family(p, j) || piece_slot(&counts, piece_hash(p, pc))->n < FAMILIES_MIN_URLS)
				continue;
			buf_truncate(&key, p->plen + 1);
			buf_add(&key, pc->s, pc->len);
			fam = get_or_new(&a->fams, key.data, sizeof *fam, &fresh);
			if (fresh) {
				fam->path = t;
				fam->plen = p->plen;
				fam->piece = pc->s;
				fam->len = pc->len;
			}
			family_add(fam, body, i);
		}

		for (size_t j = 0; j < p->np; j++) {
			const struct piece *pc = &p->p[j];
			if (!fam_first_of_name(p, j))
				continue;
			buf_reset(&key);
			buf_add(&key, pc->name, pc->nlen);
			struct param *k = get_or_new(&a->params, key.data, sizeof *k, &fresh);
			if (fresh) {
				k->name = xstrdup(key.data);
				k->nonce = pc->nonce;
				k->all_nonce = true;
				k->all_now = a->f->now > 0;
			}
			group_add(&k->urls, body, i);
			group_add(&k->vals, fam_value_of(p, pc), i);
			for (size_t m = 0; m < p->np; m++)
				if (fam_same_name(&p->p[m], pc) && p->p[m].nonce == NONCE_NO &&
				    (!p->p[m].val || looks_nonce(p->p[m].val, p->p[m].vlen) == NONCE_NO))
					k->all_nonce = false;
			for (size_t m = 0; m < p->np; m++)
				if (fam_same_name(&p->p[m], pc) && !near_now(&p->p[m], a->f->now))
					k->all_now = false;
			buf_addc(&key, '\t');
			buf_add(&key, t, p->plen);
			if (!hashmap_get(&a->paths, key.data)) {
				hashmap_put(&a->paths, key.data, (void *)1);
				k->paths++;
			}
			/* The query without this parameter: its sibling group. */
			buf_addc(&key, '\t');
			size_t sib_at = key.len;
			for (size_t m = 0; m < p->np; m++) {
				if (fam_same_name(&p->p[m], pc))
					continue;
				if (key.len > sib_at)
					buf_addc(&key, '&');
				buf_add(&key, p->p[m].s, p->p[m].len);
			}
			struct sibling *s = get_or_new(&a->sibs, key.data, sizeof *s, &fresh);
			s->k = k;
			sibling_add(s, body);
		}
	}
	free(counts.slot);
	buf_release(&key);
}

/* The index + 1 of target among the sorted URLs; 0: not crawled. */
static size_t find_target(const struct analysis *a, const char *target)
{
	size_t lo = 0, hi = a->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(a->p[mid].u->target, target);
		if (!c)
			return mid + 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Each parameter's verdict, from its sibling groups. */
void fam_judge_params(struct analysis *a)
{
	struct buf plain = BUF_INIT;
	size_t it = 0;
	const char *key;
	void *v;
	while (hashmap_next(&a->sibs, &it, &key, &v)) {
		struct sibling *s = v;
		/* "name\tpath\tquery": the target without the parameter. */
		const char *path = strchr(key, '\t') + 1, *query = strchr(path, '\t') + 1;
		buf_reset(&plain);
		buf_add(&plain, path, (size_t)(query - 1 - path));
		if (*query) {
			buf_addc(&plain, '?');
			buf_adds(&plain, query);
		}
		size_t at = find_target(a, buf_str(&plain));
		if (at)
			sibling_add(s, a->p[at - 1].u->body);
		s->k->groups++;
		s->k->lone += !at;
		if (s->n >= 2 && !s->mixed)
			s->k->evidence += s->n;
		else if (s->n >= 2)
			s->k->changed = true;
	}
	buf_release(&plain);
	it = 0;
	while (hashmap_next(&a->params, &it, NULL, &v)) {
		struct param *k = v;
		group_done(&k->urls);
		group_done(&k->vals);
		k->irrelevant = !k->changed && k->evidence >= FAMILIES_MIN_URLS;
		k->stamp = k->all_nonce && k->vals.distinct == k->urls.n && k->urls.n >= FAMILIES_MIN_URLS;
		k->render_time = k->stamp && k->all_now;
	}
}

bool fam_in_family(const struct family *fam, const struct purl *p)
{
	if (!p->query || p->plen != fam->plen || memcmp(p->u->target, fam->path, fam->plen))
		return false;
	if (!fam->piece)
		return true;
	for (size_t i = 0; i < p->np; i++)
		if (p->p[i].len == fam->len && !memcmp(p->p[i].s, fam->piece, fam->len))
			return true;
	return false;
}

void fam_analysis_release(struct analysis *a)
{
	size_t it = 0;
	void *v;
	while (hashmap_next(&a->params, &it, NULL, &v)) {
		struct param *k = v;
		free(k->name);
		group_release(&k->urls);
		group_release(&k->vals);
		free(k);
	}
	it = 0;
	while (hashmap_next(&a->sibs, &it, NULL, &v)) {
		free(v);
	}
	it = 0;
	while (hashmap_next(&a->fams, &it, NULL, &v)) {
		free(v);
	}
	hashmap_release(&a->params);
	hashmap_release(&a->sibs);
	hashmap_release(&a->fams);
	hashmap_release(&a->paths);
	for (size_t i = 0; i < a->n; i++)
		free(a->p[i].p);
	free(a->p);
	free(a->all);
	free(a->excluded);
	free(a->kept);
	free(a->gone);
}
