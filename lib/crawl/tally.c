/* tally.c - the run's result: categories, failures, skips and notes. */
#include "crawl/tally.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/hashmap.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "crawl/budget.h"

static const char *const outcome_names[] = { "-", "new", "changed", "unchanged", "redirect", "not-found",
					     "failed", "held" };

/* The result's counter of category o. */
static long *outcome_count(struct crawl_result *r, enum outcome o)
{
	switch (o) {
	case OUTCOME_NEW:
		return &r->stored_new;
	case OUTCOME_CHANGED:
		return &r->stored_changed;
	case OUTCOME_UNCHANGED:
		return &r->stored_unchanged;
	case OUTCOME_REDIRECT:
		return &r->redirects;
	case OUTCOME_NOT_FOUND:
		return &r->not_found;
	case OUTCOME_FAILED:
		return &r->failed;
	case OUTCOME_HELD:
		return &r->held;
	default:
		return &r->skipped;
	}
}

/* Count target in category o: once per URL, so that the result's pages
 * is the sum of its categories; a URL counted before (a page that
 * became a redirect to its slash form, and is rendered again) moves.
 * With url_lines, says so: "STATUS OUTCOME MS ms BYTES bytes TARGET"
 * (status "-" when none came); the last line of a target is what it
 * counts as. Locked. */
void tally_locked(struct crawl *c, const char *target, enum outcome o, int status, long ms,
			 long long bytes)
{
	struct crawl_result *r = c->res;
	enum outcome was = (enum outcome)(intptr_t)hashmap_get(&c->outcomes, target);
	if (was != OUTCOME_NONE) {
		--*outcome_count(r, was);
		if (was >= OUTCOME_SKIPPED)
			r->skips[was - OUTCOME_SKIPPED].n--;
	} else {
		r->pages++;
	}
	++*outcome_count(r, o);
	if (o >= OUTCOME_SKIPPED)
		r->skips[o - OUTCOME_SKIPPED].n++;
	hashmap_put(&c->outcomes, target, (void *)(intptr_t)o);
	if (!c->cfg->url_lines)
		return;
	char st[16] = "-";
	if (status > 0)
		snprintf(st, sizeof st, "%d", status);
	log_info("%s %s %ld ms %lld bytes %s", st, o >= OUTCOME_SKIPPED ? "skipped" : outcome_names[o], ms,
		 bytes, target);
}

void add_failure_locked(struct crawl *c, const char *target, const char *reason,
			       const struct origin_response *rs)
{
	struct crawl_result *r = c->res;
	r->failures = xrealloc(r->failures, (r->nfailures + 1) * sizeof *r->failures);
	r->failures[r->nfailures].target = xstrdup(target);
	r->failures[r->nfailures].reason = xstrdup(reason);
	r->nfailures++;
	tally_locked(c, target, OUTCOME_FAILED, rs ? rs->status : 0, rs ? rs->render_ms : 0, 0);
}

/* A failed render leaves what was published before in place. rs: what
 * the origin answered, if anything. Locked. */
void fail_locked(struct crawl *c, const char *target, const char *reason,
			const struct origin_response *rs)
{
	add_failure_locked(c, target, reason, rs);
	const struct manifest_entry *old = manifest_find(&c->manifest, target);
	if (old)
		manifest_put(&c->next, manifest_entry_dup(old));
}

/* A page held by the hold hook: what was published before stays, as
 * after a failed render, and the caller is told its target. Locked. */
void hold_locked(struct crawl *c, const char *target, const struct origin_response *rs)
{
	tally_locked(c, target, OUTCOME_HELD, rs->status, rs->render_ms, 0);
	if (!strlist_contains(&c->res->held_targets, target))
		strlist_add(&c->res->held_targets, target);
	const struct manifest_entry *old = manifest_find(&c->manifest, target);
	if (old)
		manifest_put(&c->next, manifest_entry_dup(old));
}

/* Count target as skipped for why, keeping the first example in sort
 * order (renders finish in any order); rs NULL: it was not rendered.
 * Locked. */
void skip_locked(struct crawl *c, const char *target, enum crawl_skip_why why,
			const struct origin_response *rs)
{
	struct crawl_skip *s = &c->res->skips[why];
	if (rs)
		tally_locked(c, target, OUTCOME_SKIPPED + why, rs->status, rs->render_ms,
			     rs->static_path ? rs->static_size : origin_body_size(rs));
	else
		tally_locked(c, target, OUTCOME_SKIPPED + why, 0, 0, 0);
	if (!s->example || strcmp(target, s->example) < 0) {
		free(s->example);
		s->example = xstrdup(target);
	}
}

/* Add what one publish or removal noted to the run's lists (under c->lock
 * while renders run). No path is both written and removed in one run:
 * removals come after the renders, of files no render claimed, and of
 * directories only once empty; a page written twice (a slash form) is
 * listed twice, for the reader to sort out (watch sorts). */
void paths_merge(struct crawl *c, const struct publish_paths *p)
{
	for (size_t i = 0; i < p->written->n; i++)
		strlist_add(&c->res->written_paths, p->written->items[i]);
	for (size_t i = 0; i < p->removed->n; i++)
		strlist_add(&c->res->removed_paths, p->removed->items[i]);
}

/* Most of a full crawl answering 404 is a set-up error (--root at the
 * wrong directory, a --site-url the links do not match), not a site:
 * more than half of the URLs rendered, and at least
 * CRAWL_NOT_FOUND_MIN, answered 404. The examples are the first in
 * sort order, so that the message is the same on every run. */
void check_not_found(struct crawl *c, struct crawl_result *res)
{
	long n = (long)c->not_found_404.n;
	if (n < CRAWL_NOT_FOUND_MIN || n * 2 <= c->fetched)
		return;
	strlist_sort(&c->not_found_404);
	struct buf b = BUF_INIT;
	buf_addf(&b, "%ld of %ld URLs answered 404 (e.g. ", n, c->fetched);
	for (size_t i = 0; i < 3 && i < c->not_found_404.n; i++)
		buf_addf(&b, "%s'%.200s'", i ? ", " : "", c->not_found_404.items[i]);
	buf_adds(&b, "): check --root and --site-url");
	strlist_add_owned(&res->errors, buf_detach(&b, NULL));
}

/* The URL directory a missing requisite is grouped by: its first
 * segment ("/icons/" of "/icons/small/a.png"), or "/" for a file at the
 * top. Fresh. */
static char *top_dir(const char *target)
{
	const char *slash = strchr(target + 1, '/'), *q = strchr(target, '?');
	if (!slash || (q && q < slash))
		return xstrdup("/");
	return xstrndup(target, (size_t)(slash - target + 1));
}

void missing_requisites_note(struct crawl *c, struct crawl_result *res)
{
	struct strlist *m = &c->missing_requisites;
	if (!m->n)
		return;
	strlist_sort(m);
	/* The top directory most of them are in: a mount that is missing
	 * takes every icon of an application at once. */
	char *dir = NULL;
	size_t in_dir = 0;
	for (size_t i = 0, k; i < m->n; i = k) {
		char *d = top_dir(m->items[i]);
		for (k = i + 1; k < m->n; k++) {
			char *dk = top_dir(m->items[k]);
			bool same = !strcmp(d, dk);
			free(dk);
			if (!same)
				break;
		}
		if (k - i > in_dir) {
			free(dir);
			dir = d, in_dir = k - i;
		} else {
			free(d);
		}
	}
	struct buf b = BUF_INIT;
	buf_addf(&b, "%zu stylesheet%s, script%s or image%s of pages answered 404 (the pages show them broken): ",
		 m->n, m->n == 1 ? "" : "s", m->n == 1 ? "" : "s", m->n == 1 ? "" : "s");
	for (size_t i = 0; i < m->n && i < 3; i++) {
		const char *tab = strchr(m->items[i], '\t');
		buf_addf(&b, "%s'%.*s' (on '%.200s')", i ? ", " : "", (int)(tab - m->items[i]), m->items[i],
			 tab + 1);
	}
	if (m->n > 3)
		buf_addf(&b, " and %zu more (-v lists them)", m->n - 3);
	if (strcmp(dir, "/") && origin_has_nothing_at(c->origin, dir)) {
		buf_addf(&b, "; %s%zu under '%s', where nothing under --root or a mount is: a missing "
			 "--path-alias?", in_dir == m->n && in_dir > 1 ? "all " : "", in_dir, dir);
		res->requisites_dir = xstrdup(dir);
	}
	res->requisites_note = buf_detach(&b, NULL);
	for (size_t i = 0; i < m->n; i++) {
		const char *tab = strchr(m->items[i], '\t');
		log_debug("404: %.*s, asked for by %s", (int)(tab - m->items[i]), m->items[i], tab + 1);
	}
	free(dir);
}

/* The summary line of each kind of skip, naming an example and the option
 * that would store it. */
void skip_notes(const struct crawl *c, struct crawl_result *res)
{
	struct crawl_skip *s = res->skips;
	long n = s[CRAWL_SKIP_ARCHIVE].n;
	if (n)
		s[CRAWL_SKIP_ARCHIVE].note =
			xasprintf("skipped %ld archive%s (e.g. %s): --keep-archives to store them", n,
				  n == 1 ? "" : "s", s[CRAWL_SKIP_ARCHIVE].example);
	n = s[CRAWL_SKIP_OVERSIZE].n;
	if (n)
		s[CRAWL_SKIP_OVERSIZE].note =
			xasprintf("skipped %ld response%s over --max-output %ld MiB (e.g. %s): raise "
				  "--max-output to store them", n, n == 1 ? "" : "s",
				  origin_max_output_mb(c->origin), s[CRAWL_SKIP_OVERSIZE].example);
	n = s[CRAWL_SKIP_NOINDEX].n;
	if (n)
		s[CRAWL_SKIP_NOINDEX].note =
			xasprintf("skipped %ld page%s marked robots noindex (e.g. %s): "
				  "--robots-meta ignore to store them", n, n == 1 ? "" : "s",
				  s[CRAWL_SKIP_NOINDEX].example);
	n = s[CRAWL_SKIP_VIEW].n;
	if (n) {
		struct buf b = BUF_INIT;
		buf_adds(&b, "skipped ");
		views_summary(&c->views, false, 3, &b);
		if (b.len > strlen("skipped "))
			buf_adds(&b, ": --noindex-sample 0 to render them");
		struct buf given = BUF_INIT;
		views_summary(&c->views, true, 3, &given);
		if (given.len)
			buf_addf(&b, "%s%s: without those --view-family lines they are sampled",
				 b.len > strlen("skipped ") ? "; " : "", buf_str(&given));
		buf_release(&given);
		s[CRAWL_SKIP_VIEW].note = buf_detach(&b, NULL);
	}
	n = s[CRAWL_SKIP_NO_STORE].n;
	if (n)
		s[CRAWL_SKIP_NO_STORE].note =
			xasprintf("skipped %ld page%s sent with Cache-Control no-store (e.g. %s): "
				  "without --respect-no-store they are stored", n, n == 1 ? "" : "s",
				  s[CRAWL_SKIP_NO_STORE].example);
}

void crawl_result_release(struct crawl_result *res)
{
	for (size_t i = 0; i < res->nfailures; i++) {
		free(res->failures[i].target);
		free(res->failures[i].reason);
	}
	free(res->failures);
	free(res->bound_note);
	free(res->requisites_note);
	free(res->requisites_dir);
	for (int i = 0; i < CRAWL_NSKIP; i++) {
		free(res->skips[i].example);
		free(res->skips[i].note);
	}
	strlist_clear(&res->changed_keys);
	strlist_clear(&res->written_paths);
	strlist_clear(&res->removed_paths);
	strlist_clear(&res->rendered);
	strlist_clear(&res->held_targets);
	strlist_clear(&res->kept);
	strlist_clear(&res->slash_redirects);
	strlist_clear(&res->aliases);
	strlist_clear(&res->canonical_links);
	strlist_clear(&res->errors);
	strlist_clear(&res->family_notes);
	strlist_clear(&res->family_table);
	strlist_clear(&res->views_cut);
	strlist_clear(&res->volatile_rules);
	memset(res, 0, sizeof *res);
}

struct family_count {
	const char *key;
	long n;
};

static int by_count_then_key(const void *a, const void *b)
{
	const struct family_count *x = a, *y = b;
	return x->n != y->n ? (x->n < y->n) - (x->n > y->n) : strcmp(x->key, y->key);
}

char *budget_families(const struct crawl *c, size_t max)
{
	struct hashmap counts = HASHMAP_INIT;
	struct buf key = BUF_INIT, out = BUF_INIT;
	size_t it = 0;
	const char *target;
	while (hashmap_next(&c->seen, &it, &target, NULL)) {
		budget_family(target, &key);
		long n = (long)(intptr_t)hashmap_get(&counts, buf_str(&key));
		hashmap_put(&counts, buf_str(&key), (void *)(intptr_t)(n + 1));
	}
	struct family_count *all = xcalloc(counts.count ? counts.count : 1, sizeof *all);
	size_t n = 0;
	void *v;
	it = 0;
	while (hashmap_next(&counts, &it, &target, &v))
		all[n++] = (struct family_count){ target, (long)(intptr_t)v };
	qsort(all, n, sizeof *all, by_count_then_key);
	for (size_t i = 0; i < n && i < max; i++)
		buf_addf(&out, "%s%s %ld", i ? ", " : "", all[i].key, all[i].n);
	if (n > max)
		buf_addf(&out, ", %zu more famil%s", n - max, n - max == 1 ? "y" : "ies");
	free(all);
	hashmap_release(&counts);
	buf_release(&key);
	return buf_detach(&out, NULL);
}
