/* famcanonical.c - a --canonical rule for a duplicate family of one
 * body, compiled and checked against the family (families_impl.h). */
#include "crawl/families_impl.h"

#include <regex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

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
	fam_add_ere(b, v, 1);
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
		if (!fam_same_name(x, y) || x->nonce != y->nonce || !x->val != !y->val)
			return false;
	}
	return true;
}

/* Whether the piece is a parameter's that never changed a body: its
 * --ignore-param drops it before the rules see the target. */
static bool ignorable(const struct analysis *a, const struct piece *pc)
{
	const struct param *k = fam_param_named(a, pc->name, pc->nlen);
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
		if (j == keep || !fam_in_family(fam, p))
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
	fam_add_ere(re, fam->path, fam->plen);
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
				fam_add_ere(re, pc->s, pc->len);
			} else {
				if (pc->nonce == NONCE_NO)
					fam_add_ere(re, pc->s, pc->nlen + 1); /* "name=" */
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
		if (!fam_in_family(fam, &a->p[j]))
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
		if (a->p[j].u->body == body && !a->excluded[j] && !fam_in_family(fam, &a->p[j]))
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
long fam_canonical_line(struct analysis *a, const struct family *fam, const char *fam_re,
			struct buf *opt, struct buf *why)
{
	uint64_t body = fam->b.body[0];
	size_t kept = a->n, nkept = 0;
	for (size_t j = fam->first; j <= fam->last; j++) {
		if (a->kept[j] && fam_in_family(fam, &a->p[j])) {
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
			if (a->excluded[j] || !fam_in_family(fam, p))
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
	fam_add_shell(opt, buf_str(&rule));
	if (to == kept)
		buf_addf(why, "; the rule answers the others with a 302 to %s, which keeps the one copy", target);
	else
		buf_addf(why, "; the same body is at %s: the rule answers them with a 302 there", target);
	long weight = 0;
	for (size_t j = fam->first; j <= fam->last; j++) {
		if (j != kept && !a->excluded[j] && fam_in_family(fam, &a->p[j])) {
			fam_exclude_url(a, j);
			weight++;
		}
	}
	a->kept[to] = true;
	buf_release(&re);
	buf_release(&url);
	buf_release(&rule);
	return weight;
}
