/* canonical.c - a page's rel=canonical as an alias (canonical.h). */
#include "crawl/canonical.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/relist.h"
#include "base/xalloc.h"
#include "crawl/tally.h"
#include "url/urlkey.h"

/* Whether targets a and b would be one file (two spellings of one URL:
 * the spellings' own rule decides between them, claims.h). */
static bool one_file(const char *a, const char *b, const char *type)
{
	char err[ERR_LEN];
	char *ka = urlkey_for(a, type, err), *kb = urlkey_for(b, type, err);
	bool same = ka && kb && !strcmp(ka, kb);
	free(ka);
	free(kb);
	return same;
}

/* Where the chain of aliases from to ends: the first URL that is no
 * alias; NULL when it comes back to from (a loop) or is longer than
 * CANONICAL_CHAIN_MAX. Locked. */
static const char *chain_end_locked(struct crawl *c, const char *to, const char *from)
{
	for (int i = 0; i <= CANONICAL_CHAIN_MAX; i++) {
		if (from && !strcmp(to, from))
			return NULL;
		const char *next = hashmap_get(&c->canonical_from, to);
		if (!next)
			return to;
		to = next;
	}
	return NULL;
}

bool canonical_alias(struct crawl *c, struct page *p, const struct page_meta *meta)
{
	const struct crawl_config *cfg = c->cfg;
	const char *target = p->j->target;
	/* A seed is stored whatever it names, as whatever its robots meta
	 * says: the site's entry page ("/" naming /doku.php?id=start) stays.
	 * Asked of the target too: watch's batches render seeds as any
	 * other page. */
	if (cfg->no_canonical_links || !meta->canonical[0] || p->j->optional || p->j->as_page || p->j->seed ||
	    strlist_contains(&c->seed_targets, target))
		return false;
	char *t = site_target(c->site, meta->canonical);
	bool alias = t && strcmp(t, target) && !relist_match(cfg->exclude_re, cfg->nexclude, t) &&
		     (!cfg->ninclude || relist_match(cfg->include_re, cfg->ninclude, t)) &&
		     !one_file(t, target, p->rs.content_type);
	if (alias) {
		pthread_mutex_lock(&c->lock);
		alias = chain_end_locked(c, t, target) && (!c->have_robots || robots_allowed(&c->robots, t));
		if (alias)
			free(hashmap_put(&c->canonical_from, target, xstrdup(t)));
		pthread_mutex_unlock(&c->lock);
	}
	if (alias) {
		p->e->status = 301;
		p->e->location = site_url_for(c->site, t);
		strlist_add(&p->links.targets, t);
	}
	free(t);
	return alias;
}

/* Whether e is a page stored with its file: what an alias may lead to. */
static bool stored_page(const struct manifest_entry *e)
{
	return e && e->key && !e->location && e->status >= 200 && e->status < 300;
}

long settle_canonicals(struct crawl *c)
{
	long again = 0;
	size_t it = 0;
	const char *target;
	void *v;
	pthread_mutex_lock(&c->lock);
	while (hashmap_next(&c->canonical_from, &it, &target, &v)) {
		const char *end = chain_end_locked(c, v, NULL);
		const struct manifest_entry *named = end ? entry_by_now_locked(c, end) : NULL;
		struct manifest_entry *now = manifest_get(&c->next, target);
		if (stored_page(named)) {
			if (now && now->location && strcmp(end, v)) {
				/* one hop to the end, not through the other aliases */
				free(now->location);
				now->location = site_url_for(c->site, end);
			}
			strlist_add_owned(&c->res->canonical_links, xasprintf("%s \u2192 %s", target, end));
		} else if (now && now->location) {
			/* its render moves it out of the redirects */
			requeue_locked(c, target)->as_page = true;
			again++;
		}
	}
	pthread_mutex_unlock(&c->lock);
	free_canonicals(c);
	return again;
}

void free_canonicals(struct crawl *c)
{
	size_t it = 0;
	void *v;
	while (hashmap_next(&c->canonical_from, &it, NULL, &v))
		free(v);
	hashmap_release(&c->canonical_from);
}
