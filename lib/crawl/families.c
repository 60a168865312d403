/* families.c - what the query parameters of a crawl did (families.h). */
#include "crawl/families.h"

#include <stdbool.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* A bare token that is a timestamp or a nonce, not a parameter's name. */
enum nonce { NONCE_NO, NONCE_DIGITS, NONCE_HEX };
#define NONCE_DIGITS_MIN 9  /* a Unix time has 10 digits since 2001 */
#define NONCE_HEX_MIN 16
#define NEAR_NOW 86400      /* seconds: a time "of this crawl" */

static const char *const pseudo_name[] = { NULL, "<number>", "<hex>" };

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

/* ---- one URL, split ---- */

struct piece {
	const char *s;       /* "K=V" or "K" as the target has it */
	size_t len;
	const char *name;    /* the parameter's name; a pseudo-name for a nonce */
	size_t nlen;
	const char *val;     /* after '=', or the nonce token; NULL for a bare name */
	size_t vlen;
	enum nonce nonce;    /* of a bare token */
};

struct purl {
	const struct families_url *u;
	size_t plen; /* the path is u->target[0..plen) */
	bool query;
	struct piece *p;  /* np of them, owned */
	size_t np;
};

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

static void parse_url(const struct families_url *u, struct purl *p)
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

static bool same_name(const struct piece *a, const struct piece *b)
{
	return a->nlen == b->nlen && !memcmp(a->name, b->name, a->nlen);
}

/* Whether p's i-th piece is the first with its name. */
static bool first_of_name(const struct purl *p, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (same_name(&p->p[j], &p->p[i]))
			return false;
	return true;
}

/* FNV-1a 64, continued from h. */
static uint64_t fnv(uint64_t h, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}
#define FNV_START 14695981039346656037ULL

/* The identity of the value(s) a URL gives name n: its pieces' text. */
static uint64_t value_of(const struct purl *p, const struct piece *n)
{
	uint64_t h = FNV_START;
	for (size_t i = 0; i < p->np; i++)
		if (same_name(&p->p[i], n))
			h = fnv(fnv(h, p->p[i].s, p->p[i].len), "&", 1);
	return h;
}

/* ---- groups of URLs and their bodies ---- */

struct group {
	long n;
	uint64_t *bodies; /* every member's body; sorted by group_done */
	size_t *members;  /* their indexes, in the order added */
	size_t cap;
	long distinct;
	size_t first;     /* the first member in sort order */
};

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

static int cmp_u64(const void *a, const void *b)
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
	qsort(g->bodies, (size_t)g->n, sizeof *g->bodies, cmp_u64);
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

/* A query parameter, over every URL carrying it. */
struct param {
	char *name;
	enum nonce nonce;   /* a pseudo-name's kind */
	struct group urls;  /* the URLs carrying it */
	struct group vals;  /* their values (as hashes) */
	long paths;
	bool all_nonce;     /* every value looks like a timestamp or nonce */
	bool all_now;       /* every value is a time of the crawl's day (s, ms, us or ns) */
	long evidence;      /* URLs in sibling groups of 2+ with one body */
	long groups, lone;  /* sibling groups; those without the URL lacking it */
	bool changed;       /* a sibling group of 2+ had 2+ bodies */
	bool irrelevant, stamp, render_time;
};

/* URLs that differ only in one parameter's value (or its absence): only
 * whether they share one body matters. */
struct sibling {
	struct param *k;
	long n;
	uint64_t body;      /* the first member's */
	bool mixed;         /* another member had another body */
};

static void sibling_add(struct sibling *s, uint64_t body)
{
	if (s->n++ == 0)
		s->body = body;
	else if (body != s->body)
		s->mixed = true;
}

/* The distinct bodies of a family, FAMILIES_FEW + 1 at most, with their
 * counts: a duplicate's are all kept, exactly. */
struct bodyset {
	uint64_t body[FAMILIES_FEW + 1];
	long count[FAMILIES_FEW + 1];
	int distinct;       /* kept; more: there were more than that */
	bool more;
};

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

/* The URLs of one path with a query, or of one path carrying a piece.
 * The URLs are sorted: those of one path with a query are one run, its
 * families' members lie in it, from first to last. */
struct family {
	const char *path, *piece; /* into a member's target; piece NULL: any query */
	size_t plen, len;
	const char *key;          /* the map's */
	long n;
	size_t first, last;
	struct bodyset b;
	bool reported;            /* its --canonical or --exclude line was made */
};

static void family_add(struct family *fam, uint64_t body, size_t idx)
{
	if (!fam->n++)
		fam->first = idx;
	fam->last = idx;
	bodyset_add(&fam->b, body);
}

struct analysis {
	const struct families *f;
	struct purl *p;
	size_t n;
	struct hashmap params;   /* name -> struct param * */
	struct hashmap paths;    /* "name\tpath" -> 1: a parameter's paths */
	struct hashmap sibs;     /* "name\tpath\tquery without it" -> struct sibling * */
	struct hashmap fams;     /* "path\t" or "path\tpiece" -> struct family * */
	uint64_t *all;           /* every body, sorted */
	bool *excluded;          /* URLs a reported --exclude or --canonical removes */
	bool *kept;              /* a reported --canonical's URL: no line may remove it */
	struct gone { uint64_t body; long n; } *gone; /* their bodies, how many of each */
	size_t ngone;
};

/* How many URLs with body the reported --exclude lines leave. */
static long left_with(const struct analysis *a, uint64_t body)
{
	long n = count_of(a->all, a->n, body);
	for (size_t i = 0; i < a->ngone; i++)
		if (a->gone[i].body == body)
			n -= a->gone[i].n;
	return n;
}

static void exclude_url(struct analysis *a, size_t idx)
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

struct line {
	long weight; /* URLs it removes */
	char *text;
};

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

/* ---- quoting ---- */

/* s for a POSIX shell: as it is when only safe characters, else in '...'. */
static void add_shell(struct buf *b, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=@%+,-") ==
			  strlen(s)) {
		buf_adds(b, s);
		return;
	}
	buf_addc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_adds(b, "'\\''");
		else
			buf_addc(b, *s);
	}
	buf_addc(b, '\'');
}

/* s[0..len) as a POSIX extended regex matching it literally. */
static void add_ere(struct buf *b, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (strchr("\\.[]()*+?{}|^$", s[i]))
			buf_addc(b, '\\');
		buf_addc(b, s[i]);
	}
}

/* The --ignore-param glob naming parameter k exactly (fnmatch). */
static char *ignore_glob(const struct param *k)
{
	struct buf b = BUF_INIT;
	if (k->nonce == NONCE_DIGITS) {
		for (int i = 0; i < NONCE_DIGITS_MIN; i++)
			buf_adds(&b, "[0-9]");
		buf_addc(&b, '*');
	} else if (k->nonce == NONCE_HEX) {
		for (int i = 0; i < NONCE_HEX_MIN; i++)
			buf_adds(&b, "[0-9a-fA-F]");
		buf_addc(&b, '*');
	} else {
		for (const char *s = k->name; *s; s++) {
			if (strchr("*?[\\", *s))
				buf_addc(&b, '\\');
			buf_addc(&b, *s);
		}
	}
	return buf_detach(&b, NULL);
}

/* ---- the analysis ---- */

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

/* Every URL into its parameters' groups, its sibling groups and its
 * families. */
static void fill(struct analysis *a)
{
	struct buf key = BUF_INIT;
	bool fresh;
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
			bool repeat = false;
			for (size_t k = 0; k < j && !repeat; k++)
				repeat = pc->len == p->p[k].len && !memcmp(pc->s, p->p[k].s, pc->len);
			/* A family of one timestamp value says nothing. */
			if (repeat || pc->nonce != NONCE_NO)
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
			if (!first_of_name(p, j))
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
			group_add(&k->vals, value_of(p, pc), i);
			for (size_t m = 0; m < p->np; m++)
				if (same_name(&p->p[m], pc) && p->p[m].nonce == NONCE_NO &&
				    (!p->p[m].val || looks_nonce(p->p[m].val, p->p[m].vlen) == NONCE_NO))
					k->all_nonce = false;
			for (size_t m = 0; m < p->np; m++)
				if (same_name(&p->p[m], pc) && !near_now(&p->p[m], a->f->now))
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
				if (same_name(&p->p[m], pc))
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
static void judge_params(struct analysis *a)
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

static bool in_family(const struct family *fam, const struct purl *p)
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

/* A name seen in a family's URLs: whether its value stays the same. */
struct seen_name {
	const char *name;
	size_t nlen;
	uint64_t value;
	long count;
	bool varies;
};

#define SEEN_NAMES 64

/* The names whose value varies in fam (or that only some of its URLs
 * carry), into out; how many (at most SEEN_NAMES). */
static size_t varying_names(const struct analysis *a, const struct family *fam, struct seen_name *out)
{
	struct seen_name seen[SEEN_NAMES];
	size_t ns = 0;
	for (size_t i = fam->first; i <= fam->last; i++) {
		const struct purl *p = &a->p[i];
		if (!in_family(fam, p))
			continue;
		for (size_t j = 0; j < p->np; j++) {
			if (!first_of_name(p, j))
				continue;
			const struct piece *pc = &p->p[j];
			uint64_t val = value_of(p, pc);
			size_t s = 0;
			while (s < ns && !(seen[s].nlen == pc->nlen && !memcmp(seen[s].name, pc->name, pc->nlen)))
				s++;
			if (s == ns && ns < SEEN_NAMES)
				seen[ns++] = (struct seen_name){ pc->name, pc->nlen, val, 0, false };
			if (s == ns)
				continue;
			seen[s].count++;
			seen[s].varies |= seen[s].value != val;
		}
	}
	size_t n = 0;
	for (size_t s = 0; s < ns; s++)
		if (seen[s].varies || seen[s].count < fam->n)
			out[n++] = seen[s];
	return n;
}

static struct param *param_named(const struct analysis *a, const char *name, size_t nlen)
{
	char *s = xstrndup(name, nlen);
	struct param *k = hashmap_get(&a->params, s);
	free(s);
	return k;
}

/* "/path?id=…&do=index": the family's first URL, its varying values as …. */
static void add_display(struct buf *b, const struct purl *p, const struct seen_name *vary, size_t nvary)
{
	buf_add(b, p->u->target, p->plen);
	buf_addc(b, '?');
	for (size_t i = 0; i < p->np; i++) {
		const struct piece *pc = &p->p[i];
		bool varies = false;
		for (size_t v = 0; v < nvary && !varies; v++)
			varies = vary[v].nlen == pc->nlen && !memcmp(vary[v].name, pc->name, pc->nlen);
		if (i)
			buf_addc(b, '&');
		if (!varies)
			buf_add(b, pc->s, pc->len);
		else if (pc->nonce != NONCE_NO)
			buf_adds(b, "…");
		else {
			buf_add(b, pc->name, pc->nlen);
			buf_adds(b, "=…");
		}
	}
}

/* Whether the family of every URL of fam's path with a query was reported. */
static bool path_reported(const struct analysis *a, const struct family *fam)
{
	char *key = xasprintf("%.*s\t", (int)fam->plen, fam->path);
	const struct family *whole = hashmap_get(&a->fams, key);
	free(key);
	return whole && whole->reported;
}

static int cmp_family(const void *x, const void *y)
{
	const struct family *a = *(struct family *const *)x, *b = *(struct family *const *)y;
	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	/* The same URLs: the narrower regex, which spares the path's other URLs. */
	if (!a->piece != !b->piece)
		return a->piece ? -1 : 1;
	return strcmp(a->key, b->key);
}

static bool duplicate(const struct family *fam)
{
	return fam->n >= FAMILIES_MIN_URLS && !fam->b.more && fam->b.distinct <= FAMILIES_FEW &&
	       fam->n >= FAMILIES_MIN_URLS * fam->b.distinct;
}

static void add_line(struct line **lines, size_t *n, long weight, char *text)
{
	*lines = xrealloc(*lines, (*n + 1) * sizeof **lines);
	(*lines)[(*n)++] = (struct line){ weight, text };
}

/* ---- a --canonical rule for a family of one body ---- */

#define SHAPE_VARYING 4 /* pieces whose values may differ in a rule's family */
#define SHAPE_VALUE 32  /* bytes of the kept URL's value a regex spells out */

/* Whether p's query is exactly its pieces joined by '&' (no empty piece,
 * none past FAMILIES_PARAMS): only then does a regex of them match it. */
static bool plain_query(const struct purl *p)
{
	if (!p->query || !p->np)
		return false;
	const char *q = p->u->target + p->plen + 1;
	for (size_t i = 0; i < p->np; i++) {
		if (p->p[i].s != q)
			return false;
		q += p->p[i].len;
		if (*q != (i + 1 < p->np ? '&' : '\0'))
			return false;
		q += *q == '&';
	}
	return true;
}

/* An ERE for the values ([^&]*) other than v[0..len): POSIX has no
 * negation, so it spells out where a value leaves v. */
static void add_not(struct buf *b, const char *v, size_t len)
{
	if (!len) {
		buf_adds(b, "[^&]+");
		return;
	}
	/* ']' is literal only first in brackets */
	if (v[0] == ']')
		buf_adds(b, "([^]&]");
	else
		buf_addf(b, "([^&%c]", v[0]);
	buf_adds(b, "[^&]*|");
	add_ere(b, v, 1);
	add_not(b, v + 1, len - 1);
	buf_adds(b, ")?");
}

/* Whether p and q have the same pieces in the same order, values aside. */
static bool same_shape(const struct purl *p, const struct purl *q)
{
	if (!plain_query(p) || !plain_query(q) || p->np != q->np)
		return false;
	for (size_t i = 0; i < p->np; i++) {
		const struct piece *x = &p->p[i], *y = &q->p[i];
		if (!same_name(x, y) || x->nonce != y->nonce || !x->val != !y->val)
			return false;
	}
	return true;
}

/* Whether the piece is a parameter's that never changed a body: its
 * --ignore-param drops it before the rules see the target. */
static bool ignorable(const struct analysis *a, const struct piece *pc)
{
	const struct param *k = param_named(a, pc->name, pc->nlen);
	return k && k->irrelevant;
}

/* p's target without the pieces an --ignore-param drops: what the
 * rules see when the lines are pasted together. */
static void add_kept_form(struct buf *b, const struct analysis *a, const struct purl *p)
{
	buf_add(b, p->u->target, p->plen);
	size_t q = b->len;
	for (size_t i = 0; i < p->np; i++) {
		if (ignorable(a, &p->p[i]))
			continue;
		buf_addc(b, b->len == q ? '?' : '&');
		buf_add(b, p->p[i].s, p->p[i].len);
	}
}

/* Into re, a regex matching every URL of fam but the one at keep, when
 * the others all have the same pieces in the same order: their pieces,
 * a value that differs among them as anything. When keep has those
 * pieces too, one alternative per differing value says it is not keep's
 * ("^/p\?id=([^&A][^&]*|A[^&]+)?&do=index$"): POSIX has no negation.
 * A piece of a parameter that never changed a body may be there or not
 * (its --ignore-param, pasted too, drops it); into to, keep without such
 * pieces: the rule's URL. false: no such regex. */
static bool regex_but(const struct analysis *a, const struct family *fam, size_t keep, struct buf *re, struct buf *to)
{
	bool vary[FAMILIES_PARAMS] = { false }, opt[FAMILIES_PARAMS] = { false };
	const struct purl *ref = NULL, *k = &a->p[keep];
	for (size_t j = fam->first; j <= fam->last; j++) {
		const struct purl *p = &a->p[j];
		if (j == keep || !in_family(fam, p))
			continue;
		if (!ref)
			ref = p;
		if (!same_shape(p, ref))
			return false;
		for (size_t i = 0; i < p->np; i++)
			vary[i] |= p->p[i].len != ref->p[i].len || memcmp(p->p[i].s, ref->p[i].s, p->p[i].len);
	}
	if (!ref)
		return false;
	bool negate = same_shape(k, ref);
	size_t nvary = 0, first_req = ref->np;
	for (size_t i = 0; i < ref->np; i++) {
		opt[i] = ignorable(a, &ref->p[i]);
		if (negate)
			vary[i] |= k->p[i].len != ref->p[i].len || memcmp(k->p[i].s, ref->p[i].s, k->p[i].len);
		if (opt[i])
			continue;
		if (first_req == ref->np)
			first_req = i;
		if (negate && vary[i] && k->p[i].vlen > SHAPE_VALUE)
			return false;
		nvary += vary[i];
	}
	if (first_req == ref->np || nvary > SHAPE_VARYING || (negate && !nvary))
		return false;
	/* keep's pieces spell the fixed ones and the names: ref's, when
	 * keep is not of their shape */
	const struct purl *sp = negate ? k : ref;
	size_t alts = negate ? nvary : 1;
	buf_addc(re, '^');
	add_ere(re, fam->path, fam->plen);
	buf_adds(re, "\\?");
	if (alts > 1)
		buf_addc(re, '(');
	size_t alt = 0;
	for (size_t n = 0; n < sp->np; n++) {
		if (negate && (!vary[n] || opt[n]))
			continue;
		if (alt++)
			buf_addc(re, '|');
		for (size_t i = 0; i < sp->np; i++) {
			const struct piece *pc = &sp->p[i];
			if (opt[i])
				buf_adds(re, i < first_req ? "(" : "(&");
			else if (i > first_req)
				buf_addc(re, '&');
			if (!vary[i]) {
				add_ere(re, pc->s, pc->len);
			} else {
				if (pc->nonce == NONCE_NO)
					add_ere(re, pc->s, pc->nlen + 1); /* "name=" */
				if (negate && i == n)
					add_not(re, pc->val, pc->vlen);
				else
					buf_adds(re, "[^&]*");
			}
			if (opt[i])
				buf_adds(re, i < first_req ? "&)?" : ")?");
		}
		if (!negate)
			break;
	}
	if (alts > 1)
		buf_addc(re, ')');
	buf_addc(re, '$');
	add_kept_form(to, a, k);
	return true;
}

/* Whether re, as --canonical compiles it, matches every URL of fam and
 * not to: a rule that sends every copy to one URL no rule sends on. With
 * forms, a URL is also seen as the pasted --ignore-param lines leave it;
 * one that they make to is to. The regexes are built to; this says so. */
static bool rule_holds(const struct analysis *a, const struct family *fam, const char *re, const char *to, bool forms)
{
	regex_t rx;
	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		return false;
	struct buf form = BUF_INIT;
	bool ok = regexec(&rx, to, 0, NULL, 0) != 0;
	for (size_t j = fam->first; j <= fam->last && ok; j++) {
		if (!in_family(fam, &a->p[j]))
			continue;
		if (forms) {
			buf_reset(&form);
			add_kept_form(&form, a, &a->p[j]);
			if (!strcmp(buf_str(&form), to))
				continue;
			ok = regexec(&rx, buf_str(&form), 0, NULL, 0) == 0;
		}
		ok = ok && regexec(&rx, a->p[j].u->target, 0, NULL, 0) == 0;
	}
	buf_release(&form);
	regfree(&rx);
	return ok;
}

/* The first URL outside fam with body that no line removes, as index + 1
 * (0: none): a rule's URL that already holds the family's content. */
static size_t outside_copy(const struct analysis *a, const struct family *fam, uint64_t body)
{
	for (size_t j = 0; j < a->n; j++)
		if (a->p[j].u->body == body && !a->excluded[j] && !in_family(fam, &a->p[j]))
			return j + 1;
	return 0;
}

/* s as a --canonical URL template: a '$' of its own is "$$". */
static void add_template(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '$')
			buf_addc(b, '$');
		buf_addc(b, *s);
	}
}

/* The --canonical line for fam, a family of one body, into opt and why,
 * its URLs but the rule's own marked removed; the weight, or -1 when no
 * rule can say it (the family keeps its --exclude line). A URL an earlier
 * rule sends to stays: it is the rule's URL, or the family gets none. */
static long canonical_line(struct analysis *a, const struct family *fam, const char *fam_re, struct buf *opt,
			   struct buf *why)
{
	uint64_t body = fam->b.body[0];
	size_t kept = a->n, nkept = 0;
	for (size_t j = fam->first; j <= fam->last; j++) {
		if (a->kept[j] && in_family(fam, &a->p[j])) {
			kept = j;
			nkept++;
		}
	}
	if (nkept > 1)
		return -1;
	struct buf re = BUF_INIT, url = BUF_INIT;
	size_t to = nkept ? 0 : outside_copy(a, fam, body);
	bool holds = false;
	if (to) {
		to--;
		buf_adds(&re, fam_re);
		buf_adds(&url, a->p[to].u->target);
		holds = rule_holds(a, fam, buf_str(&re), buf_str(&url), false);
	} else {
		/* The one URL of its kind (DokuWiki's doku.php?do=index among
		 * doku.php?id=X&do=index), else the shortest (the shortest
		 * regex), the first of those; not one an earlier line removes
		 * (news: there is one). */
		size_t cand[2] = { kept, kept };
		for (size_t j = fam->first; j <= fam->last && !nkept; j++) {
			const struct purl *p = &a->p[j];
			if (a->excluded[j] || !in_family(fam, p))
				continue;
			size_t len = strlen(p->u->target);
			const struct purl *f = cand[0] < a->n ? &a->p[cand[0]] : NULL;
			if (!f || p->np < f->np || (p->np == f->np && len < strlen(f->u->target)))
				cand[0] = j;
			if (cand[1] == a->n || len < strlen(a->p[cand[1]].u->target))
				cand[1] = j;
		}
		for (int c = 0; c < 2 && !holds && cand[c] < a->n; c++) {
			buf_reset(&re);
			buf_reset(&url);
			to = kept = cand[c];
			holds = regex_but(a, fam, kept, &re, &url) &&
				rule_holds(a, fam, buf_str(&re), buf_str(&url), true);
		}
	}
	if (!holds) {
		buf_release(&re);
		buf_release(&url);
		return -1;
	}
	const char *target = buf_str(&url);
	struct buf rule = BUF_INIT;
	buf_add(&rule, re.data, re.len);
	buf_adds(&rule, " => ");
	add_template(&rule, target);
	buf_adds(opt, "--canonical ");
	add_shell(opt, buf_str(&rule));
	if (to == kept)
		buf_addf(why, "; the rule answers the others with a 302 to %s, which keeps the one copy", target);
	else
		buf_addf(why, "; the same body is at %s: the rule answers them with a 302 there", target);
	long weight = 0;
	for (size_t j = fam->first; j <= fam->last; j++) {
		if (j != kept && !a->excluded[j] && in_family(fam, &a->p[j])) {
			exclude_url(a, j);
			weight++;
		}
	}
	a->kept[to] = true;
	buf_release(&re);
	buf_release(&url);
	buf_release(&rule);
	return weight;
}

/* The --canonical or --exclude lines of the duplicate families no
 * --ignore-param removes. */
static void family_lines(struct analysis *a, struct line **lines, size_t *nlines)
{
	size_t nf = 0, it = 0;
	const char *k;
	void *v;
	struct family **fams = xcalloc(a->fams.count + 1, sizeof *fams);
	while (hashmap_next(&a->fams, &it, &k, &v)) {
		struct family *fam = v;
		fam->key = k;
		if (duplicate(fam))
			fams[nf++] = fam;
	}
	qsort(fams, nf, sizeof *fams, cmp_family);
	for (size_t i = 0; i < nf && i < FAMILIES_EXAMINED; i++) {
		struct family *fam = fams[i];
		if (fam->piece && path_reported(a, fam))
			continue; /* its path's every URL with a query goes */
		bool news = false;
		for (size_t j = fam->first; j <= fam->last && !news; j++)
			news = !a->excluded[j] && !a->kept[j] && in_family(fam, &a->p[j]);
		if (!news)
			continue; /* inside a family already reported */
		struct seen_name vary[SEEN_NAMES];
		size_t nvary = varying_names(a, fam, vary);
		const struct param *matters = NULL;
		for (size_t j = 0; j < nvary && !matters; j++) {
			const struct param *pk = param_named(a, vary[j].name, vary[j].nlen);
			if (!pk || !pk->irrelevant)
				matters = pk;
		}
		if (!matters)
			continue; /* its --ignore-param lines remove it */

		struct buf opt = BUF_INIT, why = BUF_INIT, re = BUF_INIT, seeds = BUF_INIT;
		buf_addc(&re, '^');
		add_ere(&re, fam->path, fam->plen);
		buf_adds(&re, "\\?");
		if (fam->piece) {
			buf_adds(&re, "(.*&)?");
			add_ere(&re, fam->piece, fam->len);
			buf_adds(&re, "(&|$)");
		}
		const struct purl *first = &a->p[fam->first];
		buf_addc(&why, '\'');
		add_display(&why, first, vary, nvary);
		buf_addf(&why, "': %ld URLs, %d distinct bod%s", fam->n, fam->b.distinct,
			 fam->b.distinct == 1 ? "y" : "ies");
		if (fam->b.distinct == 1 && first->u->type)
			buf_addf(&why, " (%s)", first->u->type);
		buf_addf(&why, "; '%s' changes bodies elsewhere", matters->name);

		/* One body: a rule sends every copy to one URL, and the pages'
		 * links to them still answer. Several: one rule cannot. */
		long weight = fam->b.distinct == 1 ? canonical_line(a, fam, buf_str(&re), &opt, &why) : -1;
		if (weight < 0) {
			/* A body that no URL outside the family, nor outside the
			 * families already removed, has would be lost: a seed
			 * (never excluded) keeps its first URL, or the URL a
			 * rule sends to, which must stay. */
			long lone = 0;
			for (int b = 0; b < fam->b.distinct; b++) {
				uint64_t body = fam->b.body[b];
				long inside = 0;
				size_t seed = a->n;
				for (size_t j = fam->first; j <= fam->last; j++) {
					if (a->p[j].u->body != body || !in_family(fam, &a->p[j]))
						continue;
					inside += !a->excluded[j];
					if (seed == a->n || (a->kept[j] && !a->kept[seed]))
						seed = j;
				}
				bool gone = left_with(a, body) <= inside;
				if (!gone && !a->kept[seed])
					continue;
				buf_adds(&seeds, " --seed ");
				add_shell(&seeds, a->p[seed].u->target);
				lone += gone;
			}
			buf_adds(&opt, "--exclude ");
			add_shell(&opt, buf_str(&re));
			if (seeds.len && a->f->default_seed) {
				buf_adds(&opt, " --seed ");
				add_shell(&opt, a->f->default_seed);
			}
			buf_add(&opt, seeds.data, seeds.len);
			if (lone == fam->b.distinct)
				buf_adds(&why, lone == 1 ? "; that body is at no other URL: the --seed keeps one copy"
							 : "; those bodies are at no other URL: the --seed keeps one copy each");
			else if (lone)
				buf_adds(&why, "; the --seed keeps one copy of a body found at no other URL");
			else
				buf_adds(&why, "; other URLs have the same content");
			weight = fam->n - lone;
			for (size_t j = fam->first; j <= fam->last; j++)
				if (!a->excluded[j] && in_family(fam, &a->p[j]))
					exclude_url(a, j);
		}
		fam->reported = true;
		add_line(lines, nlines, weight, xasprintf("  %s  # %s", buf_str(&opt), buf_str(&why)));
		buf_release(&opt);
		buf_release(&why);
		buf_release(&re);
		buf_release(&seeds);
	}
	free(fams);
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

/* Whether a URL carrying k is left by the reported --exclude lines. */
static bool carried_outside(const struct analysis *a, const struct param *k)
{
	for (long i = 0; i < k->urls.n; i++)
		if (!a->excluded[k->urls.members[i]])
			return true;
	return false;
}

/* The --ignore-param lines, and the timestamp remarks. */
static void param_lines(struct analysis *a, struct param **ks, struct line **lines, size_t *nlines)
{
	for (size_t i = 0; i < a->params.count; i++) {
		struct param *k = ks[i];
		if ((!k->irrelevant && !k->render_time) || !carried_outside(a, k))
			continue;
		const struct purl *ex = &a->p[k->urls.first];
		char *glob = ignore_glob(k);
		struct buf text = BUF_INIT;
		if (k->irrelevant) {
			buf_adds(&text, "  --ignore-param ");
			add_shell(&text, glob);
			buf_addf(&text, "  # '%s' never changed a body: %ld URLs on %ld path%s (e.g. %s)", k->name,
				 k->urls.n, k->paths, k->paths == 1 ? "" : "s", ex->u->target);
			if (k->stamp)
				buf_adds(&text, "; its values look like timestamps or cache-busters");
			if (k->lone == k->groups)
				buf_adds(&text, "; no URL without it was crawled: check that one answers the same");
			add_line(lines, nlines, k->urls.n - k->lone, buf_detach(&text, NULL));
		} else {
			buf_addf(&text, "  # '%s' has a new value in each of its %ld URLs, a time of this crawl (e.g. %s), "
					"%ld distinct bodies: a cache-buster or timestamp? --strip what it changes, "
					"then --ignore-param ",
				 k->name, k->urls.n, ex->u->target, k->urls.distinct);
			add_shell(&text, glob);
			add_line(lines, nlines, k->urls.n - 1, buf_detach(&text, NULL));
		}
		free(glob);
	}
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

static void analysis_release(struct analysis *a)
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
		parse_url(&urls[i], &a.p[a.n]);
		a.all[a.n] = urls[i].body;
		a.n++;
	}
	qsort(a.all, a.n, sizeof *a.all, cmp_u64);

	fill(&a);
	judge_params(&a);
	struct line *lines = NULL;
	size_t nlines = 0;
	family_lines(&a, &lines, &nlines);
	struct param **ks = sorted_params(&a);
	param_lines(&a, ks, &lines, &nlines);
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
	analysis_release(&a);
	free(urls);
}
