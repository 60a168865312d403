/* store.c - a page's file: its key, its claim, its bytes into the tree. */
#include "crawl/store.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crawl/claims.h"
#include "tree/publish.h"
#include "url/urlkey.h"
#include "base/xalloc.h"

/* The key of target's file: with static_query_ignore, a file under
 * --root asked for with a query ("/x.css?ver=6.1", a cache-buster the
 * site changes with each release) is the file without the query, as a
 * static server answers it, so that every such URL shares one copy
 * named as the site names it. The manifest still lists each URL, so
 * serve and the generated configurations answer it exactly. Fresh, or
 * NULL with err. */
static char *static_key(const struct crawl_config *cfg, bool static_file, const char *target, const char *type,
			char *err)
{
	const char *q = strchr(target, '?');
	if (!cfg->static_query_ignore || !static_file || !q)
		return urlkey_for(target, type, err);
	char *path = xstrndup(target, (size_t)(q - target));
	char *key = urlkey_for(path, type, err);
	free(path);
	return key;
}

/* Publish the file p claimed: only over a file cgisnap published, and
 * only while it still holds what cgisnap wrote (the manifest's record,
 * or after a takeover what another target wrote in this run: prior). A
 * publish_result, or -1 with p->err. */
static int write_claimed(struct crawl *c, struct page *p, const struct claim_prior *prior)
{
	struct manifest_entry *e = p->e;
	const char *key = e->key, *type = p->rs.content_type;
	char *err = p->err;
	bool gz = c->cfg->gzip && mime_compressible(type);
	/* c->owned is not changed while pages render: no lock needed. */
	const struct manifest_entry *rec = owned_get(c, key);
	long long bytes = prior->taken_over ? prior->bytes : rec ? rec->bytes : -1;
	const char *sha = prior->taken_over ? prior->sha256 : rec ? rec->sha256 : NULL;
	int own = publish_owner(c->tree->fd, key, bytes, sha, err);
	if (own < 0)
		return -1;
	if (own == PUBLISH_FOREIGN)
		return err_set(err, rec || prior->taken_over
					    ? "'%s' was changed since cgisnap published it: not overwriting it"
					    : "'%s' was not published by cgisnap: not overwriting it", key);
	/* Recorded before it appears, so that no kill or full disk can leave
	 * a published file unrecorded; a file already recorded with these
	 * bytes needs no new record. */
	bool recorded = own == PUBLISH_OURS && *e->sha256 && sha && !strcmp(sha, e->sha256);
	e->changed = time(NULL);
	if (!recorded && manifest_journal(c->tree, e, err) < 0)
		return -1;
	struct publish_paths paths = { &p->written, &p->removed };
	const struct body_file *f = &p->body;
	return f->fd >= 0 ? publish_fd_noted(c->tree->fd, key, f->fd, f->off, f->len, gz, &paths, err)
			  : publish_data_noted(c->tree->fd, key, buf_str(&p->rs.body), p->rs.body.len, gz, &paths,
					       err);
}

int page_publish(struct crawl *c, struct page *p)
{
	struct manifest_entry *e = p->e;
	const char *type = p->rs.content_type;
	char *key = static_key(c->cfg, p->static_file, e->target, type, p->err);
	if (!key)
		return -1;
	e->key = key; /* e owns it from here: freed with e on failure */
	e->bytes = p->body.fd >= 0 ? p->body.len : (long long)p->rs.body.len;
	e->content_type = type ? xstrdup(type) : NULL;

	struct claim *cl;
	struct claim_prior prior;
	int pr;
	switch (claim_file(c, e, p->j->own_file, &cl, &prior, p->err)) {
	case CLAIM_CONFLICT:
		return -1;
	case CLAIM_YIELD:
		p->stored = OUTCOME_REDIRECT;
		p->redirect_to = prior.redirect_to;
		return 0;
	case CLAIM_SHARE:
		pr = PUBLISH_UNCHANGED;
		break;
	case CLAIM_WRITE:
	default:
		pr = write_claimed(c, p, &prior);
		claim_done(c, cl, pr >= 0);
		break;
	}
	if (pr < 0)
		return -1;

	/* The manifest is not changed while pages render: no lock needed
	 * (a lazy one locks its reads). */
	const struct manifest_entry *old = manifest_find(&c->manifest, e->target);
	if (pr == PUBLISH_UNCHANGED) {
		p->stored = OUTCOME_UNCHANGED;
		e->changed = old && old->key && !strcmp(old->key, key) ? old->changed : time(NULL);
	} else {
		p->stored = pr == PUBLISH_NEW ? OUTCOME_NEW : OUTCOME_CHANGED;
		e->changed = time(NULL);
	}
	return 0;
}
