/* famoptions.c - the report's option lines: --exclude (and --seed) for
 * the duplicate families, --ignore-param and the timestamp remarks for
 * the parameters, quoted for a shell (families_impl.h). */
#include "crawl/families_impl.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* s for a POSIX shell: as it is when only safe characters, else in '...'. */
void fam_add_shell(struct buf *b, const char *s)
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
void fam_add_ere(struct buf *b, const char *s, size_t len)
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

/* The names whose value varies in fam (or that only some of its URLs
 * carry), into out; how many (at most SEEN_NAMES). */
static size_t varying_names(const struct analysis *a, const struct family *fam, struct seen_name *out)
{
	struct seen_name seen[SEEN_NAMES];
	size_t ns = 0;
	for (size_t i = fam->first; i <= fam->last; i++) {
		const struct purl *p = &a->p[i];
		if (!fam_in_family(fam, p))
			continue;
		for (size_t j = 0; j < p->np; j++) {
			if (!fam_first_of_name(p, j))
				continue;
			const struct piece *pc = &p->p[j];
			uint64_t val = fam_value_of(p, pc);
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

struct param *fam_param_named(const struct analysis *a, const char *name, size_t nlen)
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

/* The --canonical or --exclude lines of the duplicate families no
 * --ignore-param removes. */
void fam_family_lines(struct analysis *a, struct line **lines, size_t *nlines)
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
			news = !a->excluded[j] && !a->kept[j] && fam_in_family(fam, &a->p[j]);
		if (!news)
			continue; /* inside a family already reported */
		struct seen_name vary[SEEN_NAMES];
		size_t nvary = varying_names(a, fam, vary);
		const struct param *matters = NULL;
		for (size_t j = 0; j < nvary && !matters; j++) {
			const struct param *pk = fam_param_named(a, vary[j].name, vary[j].nlen);
			if (!pk || !pk->irrelevant)
				matters = pk;
		}
		if (!matters)
			continue; /* its --ignore-param lines remove it */

		struct buf opt = BUF_INIT, why = BUF_INIT, re = BUF_INIT, seeds = BUF_INIT;
		buf_addc(&re, '^');
		fam_add_ere(&re, fam->path, fam->plen);
		buf_adds(&re, "\\?");
		if (fam->piece) {
			buf_adds(&re, "(.*&)?");
			fam_add_ere(&re, fam->piece, fam->len);
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
		long weight = fam->b.distinct == 1 ? fam_canonical_line(a, fam, buf_str(&re), &opt, &why) : -1;
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
					if (a->p[j].u->body != body || !fam_in_family(fam, &a->p[j]))
						continue;
					inside += !a->excluded[j];
					if (seed == a->n || (a->kept[j] && !a->kept[seed]))
						seed = j;
				}
				bool gone = fam_left_with(a, body) <= inside;
				if (!gone && !a->kept[seed])
					continue;
				buf_adds(&seeds, " --seed ");
				fam_add_shell(&seeds, a->p[seed].u->target);
				lone += gone;
			}
			buf_adds(&opt, "--exclude ");
			fam_add_shell(&opt, buf_str(&re));
			if (seeds.len && a->f->default_seed) {
				buf_adds(&opt, " --seed ");
				fam_add_shell(&opt, a->f->default_seed);
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
				if (!a->excluded[j] && fam_in_family(fam, &a->p[j]))
					fam_exclude_url(a, j);
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

/* Whether a URL carrying k is left by the reported --exclude lines. */
static bool carried_outside(const struct analysis *a, const struct param *k)
{
	for (long i = 0; i < k->urls.n; i++)
		if (!a->excluded[k->urls.members[i]])
			return true;
	return false;
}

/* The --ignore-param lines, and the timestamp remarks. */
void fam_param_lines(struct analysis *a, struct param **ks, struct line **lines, size_t *nlines)
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
			fam_add_shell(&text, glob);
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
			fam_add_shell(&text, glob);
			add_line(lines, nlines, k->urls.n - 1, buf_detach(&text, NULL));
		}
		free(glob);
	}
}
