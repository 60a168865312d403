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

/* Whether url (absolute, or against the site URL) is target. */
static bool names_target(const struct crawl *c, const char *url, const char *target)
{
	char *abs = url_resolve(c->site->url, url);
	char *t = abs ? site_target(c->site, abs) : NULL;
	bool same = t && !strcmp(t, target);
	free(t);
	free(abs);
	return same;
}

/* Whether target is a seed: a --seed, or the site URL's page without
 * one. Asked of the target, not the job: watch's batches render seeds
 * as any other page. */
static bool seed_target(const struct crawl *c, const char *target)
{
	const struct strlist *seeds = &c->cfg->seeds;
	if (!seeds->n)
		return names_target(c, c->site->url, target);
	for (size_t i = 0; i < seeds->n; i++)
		if (names_target(c, seeds->items[i], target))
			return true;
	return false;
}

bool canonical_alias(struct crawl *c, struct page *p, const struct page_meta *meta)
{
	const struct crawl_config *cfg = c->cfg;
	const char *target = p->j->target;
	/* A seed is stored whatever it names, as whatever its robots meta
	 * says: the site's entry page ("/" naming /doku.php?id=start) stays. */
	if (cfg->no_canonical_links || !meta->canonical[0] || p->j->optional || p->j->as_page || p->j->seed ||
	    seed_target(c, target))
		return false;
	char *t = site_target(c->site, meta->canonical);
	bool alias = t && strcmp(t, target) && !relist_match(cfg->exclude_re, cfg->nexclude, t) &&
		     (!cfg->ninclude || relist_match(cfg->include_re, cfg->ninclude, t)) &&
		     !one_file(t, target, p->rs.content_type);
	if (alias) {
		pthread_mutex_lock(&c->lock);
		alias = !hashmap_get(&c->canonical_from, t) && (!c->have_robots || robots_allowed(&c->robots, t));
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
		const char *to = v;
		const struct manifest_entry *named = manifest_get(&c->next, to);
		if (!named && c->update_mode)
			named = manifest_get(&c->manifest, to); /* not rendered now: as it was */
		struct manifest_entry *now = manifest_get(&c->next, target);
		if (stored_page(named)) {
			strlist_add_owned(&c->res->canonical_links, xasprintf("%s \u2192 %s", target, to));
		} else if (now && now->location) {
			struct job *j = xcalloc(1, sizeof *j);
			j->target = xstrdup(target);
			j->as_page = true;
			append_job_locked(c, j); /* its render moves it out of the redirects */
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
