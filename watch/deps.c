/* deps.c - from changed source files to the pages to re-render: recorded
 * dependencies, --depends rules, --always pages (see deps.h). */
#include "deps.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fswatch.h"
#include "base/log.h"
#include "tree/tree.h"
#include "base/xalloc.h"

/* ---- the changes of a batch ---- */

void changes_add(struct changes *c, const char *path, unsigned flags)
{
	uintptr_t old = (uintptr_t)hashmap_get(&c->paths, path);
	if (!old)
		strlist_add(&c->order, path);
	/* Flags are never 0 in the map: a stored 0 would read as missing. */
	hashmap_put(&c->paths, path, (void *)(old | flags | 0x100));
}

unsigned changes_flags(const struct changes *c, const char *path)
{
	return (unsigned)((uintptr_t)hashmap_get(&c->paths, path) & 0xff);
}

size_t changes_count(const struct changes *c)
{
	return c->order.n;
}

char *changes_summary(const struct changes *c, size_t max)
{
	struct buf b = BUF_INIT;
	size_t n = c->order.n;
	for (size_t i = 0; i < n && i < max; i++)
		buf_addf(&b, "%s%s", i ? ", " : "", c->order.items[i]);
	if (n > max)
		buf_addf(&b, " and %zu more", n - max);
	return buf_detach(&b, NULL);
}

void changes_add_url(struct changes *c, const char *target)
{
	if (hashmap_get(&c->url_seen, target))
		return;
	hashmap_put(&c->url_seen, target, (void *)1);
	strlist_add(&c->urls, target);
}

void changes_clear(struct changes *c)
{
	hashmap_release(&c->paths);
	strlist_clear(&c->order);
	strlist_clear(&c->urls);
	hashmap_release(&c->url_seen);
}

/* ---- rules ---- */

int watch_rules_add(struct watch_rules *r, const char *spec, char *err)
{
	struct rewrite rw;
	if (rewrite_parse(&rw, spec, "--depends", err) < 0)
		return -1;
	r->rules = xrealloc(r->rules, (r->n + 1) * sizeof *r->rules);
	r->rules[r->n++] = rw;
	return 0;
}

/* The site's canonical target for a URL or path, or NULL. */
static char *target_for(const struct site *site, const char *url)
{
	char *abs = url_resolve(site->url, url);
	char *t = abs ? site_target(site, abs) : NULL;
	free(abs);
	return t;
}

int watch_rules_always(struct watch_rules *r, const struct site *site, const char *url, char *err)
{
	char *t = target_for(site, url);
	if (!t)
		return err_set(err, "--always '%s' is not a URL of the site '%s'", url, site->url);
	strlist_add_owned(&r->always, t);
	return 0;
}

bool watch_rules_empty(const struct watch_rules *r)
{
	return r->n == 0 && r->always.n == 0;
}

void watch_rules_release(struct watch_rules *r)
{
	for (size_t i = 0; i < r->n; i++)
		rewrite_release(&r->rules[i]);
	free(r->rules);
	strlist_clear(&r->always);
	memset(r, 0, sizeof *r);
}

/* ---- the index ---- */

void dep_index_open(struct dep_index *ix, struct tree *t, struct manifest *m)
{
	ix->tree = t;
	ix->m = m;
}

/* ---- the pages for a batch ---- */

/* Why a page is in the batch, in the order they render. */
enum pick_rank { PICK_NOTIFIED, PICK_CHANGED, PICK_ALWAYS };

struct pick {
	char *target;
	enum pick_rank rank;
	long render_ms; /* its last render's time (0: none known) */
	size_t weight;
	char *why; /* NULL unless reasons are wanted */
};

/* Why pages are picked, as the batch's -v lines say it: the changed path
 * (and how: created, removed, changed) and the recorded dependency, or
 * the rule, that makes the change the page's. */
struct reason {
	const char *path;    /* the changed path or notified target */
	unsigned flags;      /* its FSW_* flags; 0 for a notified target */
	char kind;           /* 'R', 'E', 'L', 'C', 'U', 'A', 'W', or 0: dep is the text */
	const char *dep;     /* the recorded path, or "--depends 'SPEC'" ... */
};

struct picks {
	struct pick *items;
	size_t n, cap;
	struct hashmap seen; /* target -> 1 */
	bool failed;         /* a lookup failed: every page instead */
	struct manifest *m; /* the tree's pages as last rendered */
	bool want_why;
};

static const char *change_word(unsigned flags)
{
	/* Both: gone and back (an editor's save), or a notified path. */
	if ((flags & FSW_REMOVED) && (flags & FSW_CREATED))
		return "changed";
	return flags & FSW_REMOVED ? "removed" : flags & FSW_CREATED ? "created" : "changed";
}

/* "PATH changed (R PATH)", "PATH created (--depends 'x => /y')",
 * "notified", "--always". Fresh. */
static char *reason_text(const struct reason *r)
{
	if (!r->path)
		return xstrdup(r->dep);
	if (!r->flags && !r->kind)
		return xasprintf("notified %s (%s)", r->path, r->dep);
	if (r->kind == 'U')
		return xasprintf("%s %s (U: its render was not traced, any change may matter)", r->path,
				 change_word(r->flags));
	if (r->kind)
		return xasprintf("%s %s (%c %s)", r->path, change_word(r->flags), r->kind, r->dep);
	return xasprintf("%s %s (%s)", r->path, change_word(r->flags), r->dep);
}

/* How a page sorts among those a change picked: by how many paths it
 * depends on, a whole directory weighing like the many files it stands
 * for. */
static size_t weight_of(const struct manifest_entry *e)
{
	return e ? manifest_deps_count(e) + 100 * e->deps_contents.n : 0;
}

/* Choose target (once) with its rank and, when wanted, why; a page
 * chosen twice keeps its first rank (notified pages are chosen first).
 * Its last render's time and its weight come from the tree's record. */
static void pick_add(struct picks *p, const char *target, enum pick_rank rank, const struct reason *r)
{
	if (hashmap_get(&p->seen, target))
		return;
	hashmap_put(&p->seen, target, (void *)1);
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		p->items = xrealloc(p->items, p->cap * sizeof *p->items);
	}
	/* Read now from a lazy manifest: the batch renders it anyway. */
	const struct manifest_entry *e = p->m ? manifest_find(p->m, target) : NULL;
	size_t weight = rank == PICK_NOTIFIED ? 0 : rank == PICK_ALWAYS ? SIZE_MAX : weight_of(e);
	p->items[p->n] = (struct pick){ xstrdup(target), rank, e ? e->render_ms : 0, weight,
					p->want_why && r ? reason_text(r) : NULL };
	p->n++;
}

/* Choose the pages manifest_dependents names (kind, path as there). */
static void pick_lookup(struct picks *p, const struct dep_index *ix, char kind, const char *path,
			const struct reason *r)
{
	struct strlist found = STRLIST_INIT;
	char err[ERR_LEN];
	if (!ix->tree || p->failed)
		return;
	if (manifest_dependents(ix->tree, kind, path, &found, err) < 0) {
		/* Not knowing who depends on it, re-render everything. */
		log_error("%s", err);
		p->failed = true;
	}
	for (size_t i = 0; i < found.n; i++)
		pick_add(p, found.items[i], PICK_CHANGED, r);
	strlist_clear(&found);
}

/* The pages whose recorded dependencies a change of path touches. */
static void pick_recorded(struct picks *p, const struct dep_index *ix, const char *path, unsigned flags)
{
	const char *slash = strrchr(path, '/');
	char *dir = !slash ? NULL : slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
	struct reason r = { path, flags, 'R', path };
	pick_lookup(p, ix, 'R', path, &r);
	/* A file the page's render wrote (a database): the change reaching
	 * here is someone else's (watcher_ignored took the renders' own). */
	r = (struct reason){ path, flags, 'W', path };
	pick_lookup(p, ix, 'W', path, &r);
	r = (struct reason){ path, flags, 'C', dir };
	if (dir)
		pick_lookup(p, ix, 'C', dir, &r);
	if (flags & (FSW_CREATED | FSW_REMOVED)) {
		r = (struct reason){ path, flags, 'E', path };
		pick_lookup(p, ix, 'E', path, &r);
		r = (struct reason){ path, flags, 'A', path };
		pick_lookup(p, ix, 'A', path, &r);
		r = (struct reason){ path, flags, 'L', dir };
		if (dir)
			pick_lookup(p, ix, 'L', dir, &r);
	}
	if ((flags & FSW_DIR) && (flags & FSW_REMOVED)) {
		r = (struct reason){ path, flags, 'L', path };
		pick_lookup(p, ix, 'L', path, &r);
		r = (struct reason){ path, flags, 'C', path };
		pick_lookup(p, ix, 'C', path, &r);
		/* Everything recorded below it: the directory is the reason. */
		r = (struct reason){ path, flags, 0, "a dependency recorded below it" };
		pick_lookup(p, ix, 0, path, &r);
	}
	free(dir);
}

/* The pages of every --depends rule matching path. */
static void pick_rules(struct picks *p, const struct watch_rules *r,
		       const struct site *site, const char *path, unsigned flags)
{
	for (size_t i = 0; i < r->n; i++) {
		regmatch_t m[10];
		if (regexec(&r->rules[i].re, path, 10, m, 0))
			continue;
		char *url = rewrite_expand(r->rules[i].url, path, m, 10);
		char *t = target_for(site, url);
		if (!t) {
			log_warn("--depends '%s': '%s' is not a URL of the site", r->rules[i].spec, url);
		} else {
			char *rule = p->want_why ? xasprintf("--depends '%s'", r->rules[i].spec) : NULL;
			struct reason why = { path, flags, 0, rule };
			pick_add(p, t, PICK_CHANGED, &why);
			free(rule);
		}
		free(t);
		free(url);
	}
}

/* The edited page first. A notified page is the one its editor looks
 * at; --always pages come last. Among the pages a change picked, the
 * quickest to render go first (as last rendered): the feed, the sitemap
 * or the index that lists every page renders many times longer than the
 * page that was saved (DokuWiki's feed: 180 ms, the page 20), and the
 * batch's pages publish soonest on average so. Then the fewest
 * dependencies; ties by target, so the order never depends on a hash
 * table's. */
static int cmp_pick(const void *a, const void *b)
{
	const struct pick *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->render_ms != y->render_ms)
		return x->render_ms < y->render_ms ? -1 : 1;
	if (x->weight != y->weight)
		return x->weight < y->weight ? -1 : 1;
	return strcmp(x->target, y->target);
}

void deps_targets(const struct dep_index *ix, const struct watch_rules *r, const struct site *site,
		  const struct changes *ch, struct strlist *targets)
{
	deps_targets_why(ix, r, site, ch, targets, NULL);
}

int deps_targets_why(const struct dep_index *ix, const struct watch_rules *r, const struct site *site,
		     const struct changes *ch, struct strlist *targets, struct strlist *why)
{
	int rc = 0;
	struct picks p;
	memset(&p, 0, sizeof p);
	p.want_why = why != NULL;
	p.m = ix->m;
	/* A page named is the one its editor looks at: first, whatever
	 * change picks it too (pick_add keeps a page's first rank). */
	struct reason notified = { NULL, 0, 0, "notified" };
	for (size_t i = 0; i < ch->urls.n; i++)
		pick_add(&p, ch->urls.items[i], PICK_NOTIFIED, &notified);
	for (size_t i = 0; i < ch->order.n; i++) {
		const char *path = ch->order.items[i];
		pick_recorded(&p, ix, path, changes_flags(ch, path));
		pick_rules(&p, r, site, path, changes_flags(ch, path));
	}
	/* Nobody knows what an untraced page read: any change may be it. */
	if (ch->order.n) {
		const char *first = ch->order.items[0];
		struct reason u = { first, changes_flags(ch, first), 'U', NULL };
		pick_lookup(&p, ix, 'U', NULL, &u);
	}
	/* A lookup failed: every page, as a change without rules would. */
	if (p.failed && ix->m) {
		struct strlist all = STRLIST_INIT;
		char err[ERR_LEN];
		if (manifest_targets(ix->m, &all, err) < 0)
			rc = log_error("%s", err);
		for (size_t i = 0; i < all.n; i++)
			pick_add(&p, all.items[i], PICK_CHANGED, &(struct reason){ NULL, 0, 0, "a dependency lookup failed" });
		strlist_clear(&all);
	}
	for (size_t i = 0; i < ch->urls.n; i++)
		pick_rules(&p, r, site, ch->urls.items[i], 0);
	struct reason always = { NULL, 0, 0, "--always" };
	if (ch->order.n || ch->urls.n)
		for (size_t i = 0; i < r->always.n; i++)
			pick_add(&p, r->always.items[i], PICK_ALWAYS, &always);
	if (p.n > 1)
		qsort(p.items, p.n, sizeof *p.items, cmp_pick);
	for (size_t i = 0; i < p.n; i++) {
		strlist_add_owned(targets, p.items[i].target);
		if (why)
			strlist_add_owned(why, p.items[i].why ? p.items[i].why : xstrdup("?"));
	}
	free(p.items);
	hashmap_release(&p.seen);
	return rc;
}

/* ---- polling ---- */

/* An anchored ERE matching what a rule's URL template can expand to:
 * each $N any text, the rest literal. */
static char *template_regex(const char *tmpl)
{
	struct buf b = BUF_INIT;
	buf_addc(&b, '^');
	for (const char *p = tmpl; *p; p++) {
		if (p[0] == '$' && p[1] >= '0' && p[1] <= '9') {
			buf_adds(&b, "(.*)");
			p++;
			continue;
		}
		if (p[0] == '$' && p[1] == '$')
			p++;
		if (strchr("\\^$.[]|()?*+{}", *p))
			buf_addc(&b, '\\');
		buf_addc(&b, *p);
	}
	buf_addc(&b, '$');
	return buf_detach(&b, NULL);
}

/* Whether a template holds a $N reference. */
static bool has_refs(const char *tmpl)
{
	for (const char *p = tmpl; *p; p++) {
		if (p[0] == '$' && p[1] == '$')
			p++;
		else if (p[0] == '$' && p[1] >= '0' && p[1] <= '9')
			return true;
	}
	return false;
}

/* The targets of m a template with references can name. */
static void poll_matches(const char *tmpl, const struct site *site, struct manifest *m, struct strlist *out)
{
	char *re_text = template_regex(tmpl);
	regex_t re;
	bool absolute = strstr(tmpl, "://") != NULL;
	if (regcomp(&re, re_text, REG_EXTENDED | REG_NOSUB)) {
		free(re_text);
		return; /* every special character is escaped: cannot happen */
	}
	struct strlist all = STRLIST_INIT;
	char err[ERR_LEN];
	if (manifest_targets(m, &all, err) < 0)
		log_error("%s", err);
	for (size_t i = 0; i < all.n; i++) {
		const char *k = all.items[i];
		char *url = absolute ? site_url_for(site, k) : NULL;
		if (!regexec(&re, url ? url : k, 0, NULL, 0))
			strlist_add(out, k);
		free(url);
	}
	strlist_clear(&all);
	regfree(&re);
	free(re_text);
}

void deps_poll_targets(const struct watch_rules *r, const struct site *site, struct manifest *m,
		       struct strlist *targets)
{
	struct strlist all = STRLIST_INIT;
	for (size_t i = 0; i < r->always.n; i++)
		strlist_add(&all, r->always.items[i]);
	for (size_t i = 0; i < r->n; i++) {
		const char *tmpl = r->rules[i].url;
		if (has_refs(tmpl)) {
			poll_matches(tmpl, site, m, &all);
			continue;
		}
		char *url = rewrite_expand(tmpl, "", NULL, 0);
		char *t = target_for(site, url);
		if (t)
			strlist_add_owned(&all, t);
		else
			log_warn("--depends '%s': '%s' is not a URL of the site", r->rules[i].spec, url);
		free(url);
	}
	strlist_sort(&all);
	for (size_t i = 0; i < all.n; i++)
		if (i == 0 || strcmp(all.items[i], all.items[i - 1]))
			strlist_add(targets, all.items[i]);
	strlist_clear(&all);
}
