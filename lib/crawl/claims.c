/* claims.c - which URL writes which file: owned files, claims, slash forms. */
#include "crawl/claims.h"

#include <stdlib.h>
#include <string.h>

#include "crawl/tally.h"
#include "url/urlkey.h"
#include "base/log.h"
#include "base/xalloc.h"

/* A file claimed in this run: which target wrote it, with what bytes. */
struct claim {
	char *target;
	char sha256[65];
	long long bytes;
	bool writing; /* its publish is under way: a takeover waits for it */
	bool written; /* the file holds these bytes (sha256, bytes) */
};

/* The entries of the manifest that record one file (usually one). */
struct holders {
	size_t n, cap;
	struct manifest_entry **e;
};

void owned_add(struct crawl *c, struct manifest_entry *e)
{
	if (!e->key || c->owned_stale)
		return; /* the index made again takes it from the manifest */
	struct holders *h = hashmap_get(&c->owned, e->key);
	if (!h) {
		h = xcalloc(1, sizeof *h);
		hashmap_put(&c->owned, e->key, h);
	}
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 1;
		h->e = xrealloc(h->e, h->cap * sizeof *h->e);
	}
	h->e[h->n++] = e;
}

void owned_del(struct crawl *c, const struct manifest_entry *e)
{
	struct holders *h = e->key && !c->owned_stale ? hashmap_get(&c->owned, e->key) : NULL;
	for (size_t i = 0; h && i < h->n; i++) {
		if (h->e[i] != e)
			continue;
		h->e[i] = h->e[--h->n];
		if (!h->n) {
			hashmap_remove(&c->owned, e->key);
			free(h->e);
			free(h);
		}
		return;
	}
}

/* An entry of the manifest that records key's file, NULL when none. */
const struct manifest_entry *owned_get(struct crawl *c, const char *key)
{
	if (manifest_is_lazy(&c->manifest))
		return manifest_find_by_key(&c->manifest, key);
	const struct holders *h = hashmap_get(&c->owned, key);
	return h ? h->e[0] : NULL;
}

void owned_release(struct crawl *c)
{
	c->owned_stale = false;
	size_t it = 0;
	void *v;
	while (hashmap_next(&c->owned, &it, NULL, &v)) {
		struct holders *h = v;
		free(h->e);
		free(h);
	}
	hashmap_release(&c->owned);
}

/* Index the manifest's files by key: what cgisnap may replace or prune. */
void index_owned(struct crawl *c)
{
	owned_release(c);
	size_t it = 0;
	void *v;
	while (hashmap_next(&c->manifest.entries, &it, NULL, &v))
		owned_add(c, v);
}

/* The slash form ("/a/") of a target without a query whose file is the
 * same as that form's ("/a" and "/a/" are both a/index.html), or NULL.
 * Fresh string. */
static char *slash_form(const char *target, const char *key)
{
	size_t n = strlen(target);
	if (strchr(target, '?') || !n || target[n - 1] == '/')
		return NULL;
	char *slash = xasprintf("%s/", target);
	char *other = urlkey_for(slash, NULL, NULL);
	bool same = other && !strcmp(other, key);
	free(other);
	if (!same) {
		free(slash);
		return NULL;
	}
	return slash;
}

/* A target that gave its file (key) to another URL of it: its slash
 * form (to NULL) or another spelling (to). */
struct demotion {
	char *key;
	char *to;
};

/* Record that target gives its file to "to" (NULL: its slash form), and
 * is to be a redirect to it. Locked. */
static void demote_locked(struct crawl *c, const char *target, const char *key, const char *to)
{
	if (hashmap_get(&c->demoted, target))
		return;
	struct demotion *d = xcalloc(1, sizeof *d);
	d->key = xstrdup(key);
	d->to = to ? xstrdup(to) : NULL;
	hashmap_put(&c->demoted, target, d);
}

/* Of two spellings of one file, the one that keeps it: the fewer escapes
 * (docs/a.md before docs%2Fa.md), then the shorter, then the first in
 * byte order. So the same URLs give the same tree whichever is rendered
 * first. */
static bool preferred_spelling(const char *a, const char *b)
{
	size_t pa = 0, pb = 0;
	for (const char *s = a; *s; s++)
		pa += *s == '%';
	for (const char *s = b; *s; s++)
		pb += *s == '%';
	if (pa != pb)
		return pa < pb;
	size_t la = strlen(a), lb = strlen(b);
	return la != lb ? la < lb : strcmp(a, b) < 0;
}

/* Whether rec, last run's holder of e's file, and e are "/a" and "/a/",
 * either way (so not two spellings). slash: e's slash form, if any. */
static bool slash_pair_with(const struct manifest_entry *rec, const struct manifest_entry *e, const char *slash,
			  const char *key)
{
	if (slash && !strcmp(slash, rec->target))
		return true;
	char *rec_slash = slash_form(rec->target, key);
	bool pair = rec_slash && !strcmp(rec_slash, e->target);
	free(rec_slash);
	return pair;
}

/* Whether e and the holder of its file are "/a" and "/a/", either way.
 * slash: e's slash form, if any. */
static bool is_slash_pair(const struct claim *cl, const struct manifest_entry *e, const char *slash,
			  const char *key)
{
	if (slash)
		return !strcmp(slash, cl->target);
	char *holder_slash = slash_form(cl->target, key);
	bool pair = holder_slash && !strcmp(holder_slash, e->target);
	free(holder_slash);
	return pair;
}

/* What to do when two URLs of this run have one file with different
 * bytes (resolve_collision_locked). */
enum collision {
	COLLISION_YIELD,     /* e is "/a", the holder "/a/", or e the spelling that
			      * yields: e becomes a redirect */
	COLLISION_TAKE_OVER, /* e is "/a/", the holder "/a", or e the spelling that
			      * keeps the file: e takes it over */
	COLLISION_CONFLICT,  /* "/a" and "/a/" where --strip was meant to make them agree */
};

/* Two URLs of one file with different bytes. "/a" and "/a/" are one URL
 * to a static host: without --strip the slash form takes the file and
 * "/a" becomes a redirect to it (the bodies differ by what --strip would
 * remove: a timestamp, a nonce). With --strip the bodies were meant to
 * agree: a conflict, said in err. Any other two spellings of one file
 * ("?name=docs/a.md" and "?name=docs%2Fa.md": one resource, its bodies
 * differing by a nonce) are one page: the preferred spelling keeps the
 * file, the other is a redirect to it; one queued again to be stored as
 * itself (own_file) keeps it. slash: e's slash form, if any; pair: the
 * two are "/a" and "/a/" (slash_pair). Locked. */
static enum collision resolve_collision_locked(struct crawl *c, const struct claim *cl,
					       const struct manifest_entry *e, const char *slash, bool pair,
					       bool own_file, const char *key, char *err)
{
	if (own_file && !pair)
		return COLLISION_TAKE_OVER; /* queued again to be stored as itself */
	if (pair && !c->cfg->nstrip)
		return slash ? COLLISION_YIELD : COLLISION_TAKE_OVER;
	if (!pair)
		return preferred_spelling(e->target, cl->target) ? COLLISION_TAKE_OVER : COLLISION_YIELD;
	err_set(err, "'%s' and '%s' both map to file '%s' with different content after "
		"--strip: widen --strip to what differs, or --exclude one of them",
		cl->target, e->target, key);
	return COLLISION_CONFLICT;
}

/* A new claim of key for e. Locked. */
static struct claim *claim_new_locked(struct crawl *c, const struct manifest_entry *e, const char *key)
{
	struct claim *cl = xcalloc(1, sizeof *cl);
	cl->target = xstrdup(e->target);
	memcpy(cl->sha256, e->sha256, sizeof cl->sha256);
	cl->bytes = e->bytes;
	cl->writing = true;
	hashmap_put(&c->claims, key, cl);
	return cl;
}

/* e takes over the claim cl of its "/a" (or of a spelling it is
 * preferred to: to_e), which becomes a redirect: once its write is done,
 * what it wrote is what e writes over. Locked. */
static void take_over_locked(struct crawl *c, struct claim *cl, const struct manifest_entry *e, const char *key,
			     bool to_e, struct claim_prior *prior)
{
	while (cl->writing)
		pthread_cond_wait(&c->cond, &c->lock);
	demote_locked(c, cl->target, key, to_e ? e->target : NULL);
	prior->taken_over = cl->written; /* else the file is as the manifest says */
	prior->bytes = cl->bytes;
	memcpy(prior->sha256, cl->sha256, sizeof prior->sha256);
	free(cl->target);
	cl->target = xstrdup(e->target);
	memcpy(cl->sha256, e->sha256, sizeof cl->sha256);
	cl->bytes = e->bytes;
	cl->writing = true;
}

enum claim_how claim_file(struct crawl *c, const struct manifest_entry *e, bool own_file, struct claim **clp,
			  struct claim_prior *prior, char *err)
{
	const char *key = e->key;
	char *slash = own_file ? NULL : slash_form(e->target, key);
	enum claim_how how = CLAIM_WRITE;
	*prior = (struct claim_prior){ false, -1, "", NULL };
	*clp = NULL;

	pthread_mutex_lock(&c->lock);
	struct claim *cl = hashmap_get(&c->claims, key);
	if (cl && strcmp(cl->target, e->target)) {
		/* Two URLs may map to one file (/a/ and /a/index.html): fine
		 * when the bytes agree. */
		if (!strcmp(cl->sha256, e->sha256)) {
			how = CLAIM_SHARE;
		} else {
			bool slash_pair = is_slash_pair(cl, e, slash, key);
			switch (resolve_collision_locked(c, cl, e, slash, slash_pair, own_file, key, err)) {
			case COLLISION_YIELD:
				demote_locked(c, e->target, key, slash_pair ? NULL : cl->target);
				if (!slash_pair)
					prior->redirect_to = xstrdup(cl->target);
				how = CLAIM_YIELD;
				break;
			case COLLISION_TAKE_OVER:
				take_over_locked(c, cl, e, key, !slash_pair, prior);
				*clp = cl;
				break;
			case COLLISION_CONFLICT:
				how = CLAIM_CONFLICT;
				break;
			}
		}
	} else if (!cl) {
		/* Last run's "/a/" holds the file: "/a" leaves it alone, so
		 * that re-runs do not write it twice (settle_slash_forms
		 * checks that "/a/" still holds it). So does a spelling that
		 * yields to the one holding it: the two would write it in
		 * turn on every run. */
		const struct manifest_entry *rec = owned_get(c, key);
		bool differs = rec && strcmp(rec->sha256, e->sha256);
		if (slash && !c->cfg->nstrip && differs && !strcmp(rec->target, slash)) {
			demote_locked(c, e->target, key, NULL);
			how = CLAIM_YIELD;
		} else if (!own_file && differs && strcmp(rec->target, e->target) && !slash_pair_with(rec, e, slash, key) &&
			   preferred_spelling(rec->target, e->target)) {
			demote_locked(c, e->target, key, rec->target);
			prior->redirect_to = xstrdup(rec->target);
			how = CLAIM_YIELD;
		} else {
			*clp = claim_new_locked(c, e, key);
		}
	} else {
		*clp = cl; /* its own claim, from a render before this one */
	}
	pthread_mutex_unlock(&c->lock);
	free(slash);
	return how;
}

void claim_done(struct crawl *c, struct claim *cl, bool written)
{
	pthread_mutex_lock(&c->lock);
	cl->writing = false;
	cl->written = written;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

/* Make e, an entry of "/a", the 301 to "/a/" that a static host answers
 * (and that cgisnap serve and the generated configurations replay), or
 * to another spelling, to. */
void make_redirect_to(struct crawl *c, struct manifest_entry *e, const char *to)
{
	char *slash = to ? xstrdup(to) : xasprintf("%s/", e->target);
	free(e->key);
	free(e->content_type);
	free(e->location);
	e->key = e->content_type = NULL;
	e->bytes = 0;
	e->sha256[0] = '\0';
	e->status = 301;
	e->location = site_url_for(c->site, slash);
	free(slash);
}

void free_claims(struct crawl *c)
{
	size_t it = 0;
	const char *k;
	void *v;
	while (hashmap_next(&c->claims, &it, &k, &v)) {
		struct claim *cl = v;
		free(cl->target);
		free(cl);
	}
	hashmap_release(&c->claims);
}

void free_demoted(struct crawl *c)
{
	size_t it = 0;
	void *v;
	while (hashmap_next(&c->demoted, &it, NULL, &v)) {
		struct demotion *d = v;
		free(d->key);
		free(d->to);
		free(d);
	}
	hashmap_release(&c->demoted);
}

/* After the renders: each "/a" that gave its file to "/a/" (or a
 * spelling that gave it to another) becomes a redirect to it, provided
 * that one holds the file now (whichever of the two was rendered
 * first). One whose holder did not take the file (it went away, failed
 * or redirects) is queued again, to be stored as a page of its own.
 * Returns how many were queued. */
long settle_slash_forms(struct crawl *c)
{
	long again = 0;
	size_t it = 0;
	const char *target;
	void *v;
	pthread_mutex_lock(&c->lock);
	while (hashmap_next(&c->demoted, &it, &target, &v)) {
		const struct demotion *d = v;
		const char *key = d->key;
		char *slash = d->to ? xstrdup(d->to) : xasprintf("%s/", target);
		const struct manifest_entry *s = entry_by_now_locked(c, slash);
		bool holds = s && s->key && !strcmp(s->key, key) && s->status >= 200 && s->status < 300;
		struct manifest_entry *now = manifest_get(&c->next, target);
		struct strlist *said = d->to ? &c->res->aliases : &c->res->slash_redirects;
		if (holds && now) {
			if (now->key && !strcmp(now->key, key)) {
				c->res->bytes -= now->bytes; /* the file is the holder's, counted with it */
				make_redirect_to(c, now, d->to); /* it had the file until the holder came */
				tally_locked(c, target, OUTCOME_REDIRECT, now->status, 0, 0);
			}
			char *line = d->to ? xasprintf("%s \u2192 %s", target, d->to) : xstrdup(target);
			if (!strlist_contains(said, line))
				strlist_add(said, line);
			free(line);
		} else if (!holds && now && !now->key && now->location) {
			/* its render moves it out of the redirects */
			requeue_locked(c, target)->own_file = true;
			again++;
		}
		free(slash);
	}
	free_demoted(c);
	pthread_mutex_unlock(&c->lock);
	return again;
}
