/* views.c - URL families cut as the application's views (views.h). */
#include "crawl/views.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

struct view_family {
	char *name;    /* the key, for views_cut's answer */
	long noindex;  /* members rendered that said noindex */
	long stored;   /* members rendered and stored */
	long cut;      /* members not rendered */
	bool given;    /* named by views_give: cut after the sample */
	bool learned;  /* cut by an earlier run's sample: cut from its first */
	long admitted; /* members queued this run: the next one's place */
	long settled;  /* members settled this run: always the first ones */
};

struct view_ticket {
	size_t n;
	bool settled;
	struct view_place {
		struct view_family *family;
		long place; /* members of the family queued before this one */
	} places[];
};

struct piece {
	const char *s;
	size_t len;     /* the whole piece */
	size_t namelen; /* up to its '=' (len when it has none) */
};

void views_init(struct views *v, long sample)
{
	memset(v, 0, sizeof *v);
	v->sample = sample;
}

void views_release(struct views *v)
{
	size_t it = 0;
	void *val;
	while (hashmap_next(&v->fams, &it, NULL, &val)) {
		struct view_family *f = val;
		free(f->name);
		free(f);
	}
	hashmap_release(&v->fams);
	hashmap_release(&v->noindex);
	v->fams = (struct hashmap)HASHMAP_INIT;
}

static int piece_cmp(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;
	size_t n = x->namelen < y->namelen ? x->namelen : y->namelen;
	int r = memcmp(x->s, y->s, n);
	if (r)
		return r;
	return x->namelen < y->namelen ? -1 : x->namelen > y->namelen;
}

/* Where a "/" (or "%2F") last occurs in s[0..len) before its last
 * character, as the length of the prefix through it; 0 when none. */
static size_t cut_after_last_slash(const char *s, size_t len)
{
	for (size_t i = len > 1 ? len - 1 : 0; i-- > 0;) {
		if (s[i] == '/')
			return i + 1;
		if (s[i] == '%' && i + 2 < len && s[i + 1] == '2' && (s[i + 2] == 'F' || s[i + 2] == 'f'))
			return i + 3;
	}
	return 0;
}

/* The path (or its first plen bytes and "…"), then the query's shape:
 * every piece's value "…", except piece `spell` whole and piece
 * `prefix` cut to prefixlen bytes of its value and "…". */
static char *shape(const char *path, size_t plen, bool path_cut, const struct piece *p, size_t np,
		   size_t spell, size_t prefix, size_t prefixlen)
{
	struct buf b = BUF_INIT;
	buf_add(&b, path, plen);
	if (path_cut)
		buf_adds(&b, "…");
	for (size_t i = 0; i < np; i++) {
		buf_addc(&b, i ? '&' : '?');
		if (p[i].namelen == p[i].len) {
			/* a bare token (a timestamp, a nonce) varies like a value */
			buf_adds(&b, i == spell ? "" : "…");
			if (i == spell)
				buf_add(&b, p[i].s, p[i].len);
			continue;
		}
		buf_add(&b, p[i].s, p[i].namelen + 1);
		if (i == spell) {
			buf_add(&b, p[i].s + p[i].namelen + 1, p[i].len - p[i].namelen - 1);
		} else if (i == prefix) {
			buf_add(&b, p[i].s + p[i].namelen + 1, prefixlen);
			buf_adds(&b, "…");
		} else {
			buf_adds(&b, "…");
		}
	}
	return buf_detach(&b, NULL);
}

static size_t segments(const char *path, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		if (path[i] == '/' && i + 1 < len)
			n++;
	return n;
}

size_t views_keys(const char *target, char **keys, size_t max)
{
	const char *q = strchr(target, '?');
	size_t plen = q ? (size_t)(q - target) : strlen(target);
	struct piece p[VIEWS_MAX_PIECES];
	size_t np = 0, n = 0;
	const size_t none = (size_t)-1;
	if (q) {
		for (const char *s = q + 1; *s;) {
			size_t len = strcspn(s, "&");
			if (len) {
				if (np == VIEWS_MAX_PIECES)
					return 0;
				const char *eq = memchr(s, '=', len);
				p[np++] = (struct piece){ s, len, eq ? (size_t)(eq - s) : len };
			}
			s += len;
			if (*s)
				s++;
		}
		qsort(p, np, sizeof *p, piece_cmp);
	}
	if (np >= 2) {
		if (n < max)
			keys[n++] = shape(target, plen, false, p, np, none, none, 0);
		for (size_t i = 0; i < np && n < max; i++)
			keys[n++] = shape(target, plen, false, p, np, i, none, 0);
	}
	for (size_t i = 0; i < np && n < max; i++) {
		if (p[i].namelen == p[i].len)
			continue;
		size_t cut = cut_after_last_slash(p[i].s + p[i].namelen + 1, p[i].len - p[i].namelen - 1);
		if (cut)
			keys[n++] = shape(target, plen, false, p, np, none, i, cut);
	}
	if (segments(target, plen) >= 3 && n < max) {
		size_t cut = cut_after_last_slash(target, plen);
		if (cut)
			keys[n++] = shape(target, cut, true, p, np, none, none, 0);
	}
	return n;
}

static struct view_family *family_named(struct views *v, const char *name)
{
	struct view_family *f = hashmap_get(&v->fams, name);
	if (!f && v->fams.count < VIEWS_MAX_FAMILIES) {
		f = xcalloc(1, sizeof *f);
		f->name = xstrdup(name);
		hashmap_put(&v->fams, name, f);
	}
	return f;
}

void views_give(struct views *v, const char *family)
{
	struct view_family *f = family_named(v, family);
	if (f && !f->given) {
		f->given = true;
		v->given++;
	}
}

void views_learn(struct views *v, const char *line, bool urls)
{
	if (views_family_shape(line)) {
		struct view_family *f = v->sample > 0 ? family_named(v, line) : NULL;
		if (f)
			f->learned = true;
	} else if (urls && line[0] == '/' && !strpbrk(line, " \t")) {
		views_note_noindex(v, line, false);
	}
}

void views_note_noindex(struct views *v, const char *target, bool stored)
{
	if (stored)
		v->noindex_changed |= hashmap_remove(&v->noindex, target) != NULL;
	else if (v->noindex.count < VIEWS_MAX_NOINDEX)
		v->noindex_changed |= hashmap_put(&v->noindex, target, v) == NULL;
}

bool views_noindex_known(const struct views *v, const char *target)
{
	return hashmap_get(&v->noindex, target) != NULL;
}

/* Whether f is cut by what its sample said (here or in an earlier run). */
static bool sample_cuts(const struct views *v, const struct view_family *f)
{
	return v->sample > 0 && !f->stored && (f->learned || f->noindex >= v->sample);
}

void views_format_learned(const struct views *v, struct buf *out)
{
	struct strlist names = STRLIST_INIT;
	size_t it = 0;
	void *val;
	while (hashmap_next(&v->fams, &it, NULL, &val)) {
		const struct view_family *f = val;
		if (!f->given && sample_cuts(v, f))
			strlist_add(&names, f->name);
	}
	const char *url;
	it = 0;
	while (hashmap_next(&v->noindex, &it, &url, NULL))
		strlist_add(&names, url);
	strlist_sort(&names);
	for (size_t i = 0; i < names.n; i++)
		buf_addf(out, "%s\n", names.items[i]);
	strlist_clear(&names);
}

bool views_family_shape(const char *s)
{
	return s[0] == '/' && strstr(s, "…") && !strpbrk(s, " \t\n#");
}

struct view_ticket *views_admit(struct views *v, const char *target)
{
	if (v->sample <= 0 && !v->given)
		return NULL;
	char *keys[VIEWS_MAX_KEYS];
	size_t n = views_keys(target, keys, VIEWS_MAX_KEYS);
	if (!n)
		return NULL;
	struct view_ticket *t = xcalloc(1, sizeof *t + n * sizeof t->places[0]);
	for (size_t i = 0; i < n; i++) {
		struct view_family *f = family_named(v, keys[i]);
		if (f)
			t->places[t->n++] = (struct view_place){ f, f->admitted++ };
		free(keys[i]);
	}
	return t;
}

bool views_turn(const struct view_ticket *t)
{
	for (size_t i = 0; t && i < t->n; i++)
		if (t->places[i].family->settled < t->places[i].place)
			return false;
	return true;
}

const char *views_cut(struct views *v, const struct view_ticket *t)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		struct view_family *f = t->places[i].family;
		/* A given family's first members are rendered as a sampled
		 * family's are: their links are the same run's. */
		bool given_cut = f->given && t->places[i].place >= (v->sample > 0 ? v->sample : 0);
		if (given_cut || sample_cuts(v, f)) {
			f->cut++;
			return f->name;
		}
	}
	return NULL;
}

void views_settle(struct view_ticket *t, enum view_heard heard)
{
	if (!t || t->settled)
		return;
	t->settled = true;
	for (size_t i = 0; i < t->n; i++) {
		struct view_family *f = t->places[i].family;
		f->settled++;
		if (heard == VIEW_HEARD_NOINDEX)
			f->noindex++;
		else if (heard == VIEW_HEARD_STORED)
			f->stored++;
	}
}

void views_ticket_free(struct view_ticket *t)
{
	free(t);
}

void views_new_run(struct views *v)
{
	size_t it = 0;
	void *val;
	while (hashmap_next(&v->fams, &it, NULL, &val)) {
		struct view_family *f = val;
		f->admitted = f->settled = 0;
	}
}

static int by_cut_then_name(const void *a, const void *b)
{
	const struct view_family *x = *(struct view_family *const *)a, *y = *(struct view_family *const *)b;
	if (x->cut != y->cut)
		return x->cut > y->cut ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The families cut, given ones or sampled ones, the largest first: how
 * many, into *out (the caller frees the array). */
static size_t cut_families(const struct views *v, int given, struct view_family ***out)
{
	struct view_family **cut = NULL;
	size_t n = 0, it = 0;
	void *val;
	while (hashmap_next(&v->fams, &it, NULL, &val)) {
		struct view_family *f = val;
		if (!f->cut || (given >= 0 && f->given != given))
			continue;
		cut = xrealloc(cut, (n + 1) * sizeof *cut);
		cut[n++] = f;
	}
	if (n)
		qsort(cut, n, sizeof *cut, by_cut_then_name);
	*out = cut;
	return n;
}

void views_cut_list(const struct views *v, struct strlist *out)
{
	struct view_family **cut;
	size_t n = cut_families(v, -1, &cut);
	for (size_t i = 0; i < n; i++)
		strlist_add_owned(out, xasprintf("%s\t%ld", cut[i]->name, cut[i]->cut));
	free(cut);
}

void views_summary(const struct views *v, bool given, size_t most, struct buf *out)
{
	struct view_family **cut;
	size_t n = cut_families(v, given, &cut);
	long urls = 0;
	for (size_t i = 0; i < n; i++)
		urls += cut[i]->cut;
	if (!n)
		return;
	buf_addf(out, "%ld URL%s not rendered, in %zu famil%s ", urls, urls == 1 ? "" : "s", n,
		 n == 1 ? "y" : "ies");
	if (given)
		buf_adds(out, "--view-family names (");
	else
		buf_addf(out, "whose first %ld pages all said robots noindex (", v->sample);
	for (size_t i = 0; i < n && i < most; i++)
		buf_addf(out, "%s'%.200s' %ld", i ? ", " : "", cut[i]->name, cut[i]->cut);
	if (n > most)
		buf_addf(out, ", and %zu more", n - most);
	buf_adds(out, ")");
	free(cut);
}
