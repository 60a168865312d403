/* verify/scope.c - why a URL is not in the tree (scope.h). */
#include "scope.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/relist.h"
#include "base/xalloc.h"
#include "crawl/views.h"
#include "tree/publish.h"

#define SCOPE_READ_MAX (16LL << 20)

static void load_views(struct scope *s, struct tree *t)
{
	char err[ERR_LEN];
	struct buf text = BUF_INIT;
	struct strlist lines = STRLIST_INIT;
	if (t->meta_fd < 0 || faccessat(t->meta_fd, VIEWS_FILE, F_OK, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	if (publish_read(t->meta_fd, VIEWS_FILE, SCOPE_READ_MAX, &text, err) < 0) {
		log_debug("%s", err);
		goto out;
	}
	strlist_split(&lines, buf_str(&text), '\n');
	for (size_t i = 0; i < lines.n; i++) {
		const char *line = lines.items[i];
		if (views_family_shape(line))
			hashmap_put(&s->view_families, line, s);
		else if (line[0] == '/')
			hashmap_put(&s->noindex, line, s);
	}
out:
	strlist_clear(&lines);
	buf_release(&text);
}

static void load_robots(struct scope *s)
{
	char err[ERR_LEN];
	struct buf text = BUF_INIT;
	const struct manifest_entry *e = manifest_get(s->manifest, "/robots.txt");
	if (!e || !e->key || e->status != 200)
		return;
	if (publish_read(s->tree_fd, e->key, SCOPE_READ_MAX, &text, err) < 0) {
		log_debug("%s", err);
	} else {
		robots_parse(&s->robots, text.data ? text.data : "", text.len);
		s->have_robots = true;
	}
	buf_release(&text);
}

/* The parameter names of the manifest's targets. */
static void load_params(struct scope *s)
{
	size_t it = 0;
	const char *target;
	struct strlist pieces = STRLIST_INIT;
	while (hashmap_next(&s->manifest->entries, &it, &target, NULL)) {
		const char *q = strchr(target, '?');
		if (!q)
			continue;
		strlist_split(&pieces, q + 1, '&');
		for (size_t i = 0; i < pieces.n; i++) {
			char *name = xstrndup(pieces.items[i], strcspn(pieces.items[i], "="));
			hashmap_put(&s->params, name, s);
			free(name);
		}
		strlist_clear(&pieces);
	}
}

void scope_open(struct scope *s, struct tree *t, const struct manifest *m, const struct site *site,
		const struct crawl_config *crawl)
{
	memset(s, 0, sizeof *s);
	s->crawl = crawl;
	s->site = site;
	s->manifest = m;
	s->tree_fd = t->fd;
	load_views(s, t);
	load_robots(s);
	load_params(s);
}

void scope_close(struct scope *s)
{
	hashmap_release(&s->view_families);
	hashmap_release(&s->noindex);
	hashmap_release(&s->params);
	if (s->have_robots)
		robots_release(&s->robots);
	memset(s, 0, sizeof *s);
}

/* The answer the manifest recorded for e, which the tree's server does
 * not give. */
static char *recorded(const struct scope *s, const struct manifest_entry *e)
{
	if (e->status == 404 || e->status == 410)
		return xasprintf("the crawl recorded a %d for it (the origin answered %d then)", e->status, e->status);
	if (e->key && faccessat(s->tree_fd, e->key, F_OK, AT_SYMLINK_NOFOLLOW) != 0)
		return xasprintf("its file '%s' is missing from the tree", e->key);
	return xasprintf("the manifest records a %d%s%s, which the tree's server does not answer", e->status,
			 e->key ? " in " : "", e->key ? e->key : "");
}

/* A family target belongs to that the last crawl cut, or --view-family
 * names: the rule's text, NULL when none. */
static char *view_of(const struct scope *s, const char *target)
{
	char *keys[VIEWS_MAX_KEYS];
	size_t n = views_keys(target, keys, VIEWS_MAX_KEYS);
	char *why = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!why && hashmap_get(&s->view_families, keys[i]))
			why = xasprintf("a view: the family '%s' was cut as its first pages said robots noindex",
					keys[i]);
		if (!why && s->crawl && strlist_contains(&s->crawl->view_families, keys[i]))
			why = xasprintf("a view: --view-family '%s'", keys[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	return why;
}

/* The name of a query parameter of target without which the tree holds
 * the body body_sha, and that URL's target; NULL when none. */
static char *droppable_param(const struct scope *s, const char *target, const char *body_sha, char **without)
{
	const char *q = strchr(target, '?');
	if (!q || !*body_sha)
		return NULL;
	struct strlist pieces = STRLIST_INIT;
	strlist_split(&pieces, q + 1, '&');
	char *name = NULL;
	for (size_t i = 0; i < pieces.n && !name; i++) {
		struct buf t = BUF_INIT;
		buf_add(&t, target, (size_t)(q - target));
		size_t kept = 0;
		for (size_t j = 0; j < pieces.n; j++)
			if (j != i && *pieces.items[j])
				buf_addf(&t, "%c%s", kept++ ? '&' : '?', pieces.items[j]);
		char *ct = site_canonical_target(s->site, buf_str(&t));
		const struct manifest_entry *e = ct ? manifest_get(s->manifest, ct) : NULL;
		if (e && e->status >= 200 && e->status < 300 && !strcmp(e->sha256, body_sha)) {
			name = xstrndup(pieces.items[i], strcspn(pieces.items[i], "=")); /* as load_params names it */
			*without = ct;
			ct = NULL;
		}
		free(ct);
		buf_release(&t);
	}
	strlist_clear(&pieces);
	return name;
}

enum cause scope_explain(const struct scope *s, const char *target, const char *body_sha, char **why)
{
	*why = NULL;
	char *ct = site_canonical_target(s->site, target);
	const char *t = ct ? ct : target;
	const struct manifest_entry *e = manifest_get(s->manifest, t);
	enum cause c = CAUSE_NOT_IN_TREE;
	if (e) {
		*why = recorded(s, e);
		c = CAUSE_GONE_IN_TREE;
		goto out;
	}
	const struct crawl_config *cfg = s->crawl;
	for (size_t i = 0; cfg && i < cfg->nexclude; i++)
		if (relist_match(&cfg->exclude_re[i], 1, t)) {
			*why = xasprintf("left out by --exclude '%s'", cfg->exclude.items[i]);
			goto out;
		}
	if (cfg && cfg->ninclude && !relist_match(cfg->include_re, cfg->ninclude, t)) {
		*why = xstrdup("left out: no --include matches it");
		goto out;
	}
	if (s->have_robots && !robots_allowed(&s->robots, t)) {
		*why = xstrdup("left out: the site's robots.txt disallows it");
		goto out;
	}
	if (hashmap_get(&s->noindex, t)) {
		*why = xstrdup("left out: it said robots noindex when crawled (a view, not a page)");
		goto out;
	}
	if ((*why = view_of(s, t)))
		goto out;
	char *without = NULL;
	char *param = droppable_param(s, t, body_sha, &without);
	if (param) {
		if (hashmap_get(&s->params, param))
			*why = xasprintf("the tree has its body as '%s', without the parameter '%s' (which other URLs "
					 "of the tree carry): a --canonical rule could send it there", without, param);
		else
			*why = xasprintf("the tree has its body as '%s', without the parameter '%s': "
					 "--ignore-param '%s' answers it", without, param, param);
		free(param);
		free(without);
		goto out;
	}
	*why = xstrdup("never reached by the crawl: no crawled page links it (links marked rel=nofollow are not "
		       "followed), or --max-pages or --max-depth stopped first");
out:
	free(ct);
	return c;
}
