/* claims.h - which URL may write which file: the files the manifest
 * records (owned), the files claimed in this run, and the slash forms
 * ("/a" gives its file to "/a/" and becomes a redirect to it).
 *
 * crawl_new indexes the manifest (index_owned); during a run each
 * publish claims its key (store.c) and "/a" pages are demoted; after
 * the queue, settle_slash_forms turns them into redirects or queues
 * them again; the commit frees the claims.
 */
#ifndef CGISNAP_CRAWL_CLAIMS_H
#define CGISNAP_CRAWL_CLAIMS_H

#include <stdbool.h>

#include "crawl/engine.h"

/* A file claimed in this run: which target wrote it, with what bytes. */
struct claim {
	char *target;
	char sha256[65];
	long long bytes;
	bool writing; /* its publish is under way: a takeover waits for it */
	bool written; /* the file holds these bytes (sha256, bytes) */
};

/* The index of c->manifest's files by key: what cgisnap may replace or
 * prune. Changed only between runs. */
void owned_add(struct crawl *c, struct manifest_entry *e);
void owned_del(struct crawl *c, const struct manifest_entry *e);
/* An entry of the manifest that records key's file, NULL when none. */
const struct manifest_entry *owned_get(const struct crawl *c, const char *key);
void owned_release(struct crawl *c);
void index_owned(struct crawl *c);

char *slash_form(const char *target, const char *key);
void demote_locked(struct crawl *c, const char *target, const char *key);
int resolve_collision_locked(struct crawl *c, const struct claim *cl, const struct manifest_entry *e,
			     const char *slash, const char *key, char *err);
void make_slash_redirect(struct crawl *c, struct manifest_entry *e);
void free_claims(struct crawl *c);
void free_demoted(struct crawl *c);
long settle_slash_forms(struct crawl *c);

#endif
