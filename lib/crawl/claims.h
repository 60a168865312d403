/* claims.h - which URL may write which file: the files the manifest
 * records (owned), the files claimed in this run, and the slash forms
 * ("/a" gives its file to "/a/" and becomes a redirect to it), and the
 * spellings of one file ("?n=a/b" and "?n=a%2Fb": the preferred one keeps
 * it, the other becomes a redirect to it).
 *
 * crawl_new indexes the manifest (index_owned; a full crawl's commit
 * leaves the index to be made again before the next run); during a run
 * each publish claims its key (store.c) and "/a" pages are demoted;
 * after the queue, settle_slash_forms turns them into redirects or
 * queues them again; the commit frees the claims.
 */
#ifndef CGISNAP_CRAWL_CLAIMS_H
#define CGISNAP_CRAWL_CLAIMS_H

#include <stdbool.h>

#include "crawl/engine.h"

struct claim;

/* How a page may have its file (claim_file). */
enum claim_how {
	CLAIM_WRITE,    /* the page writes the file, under its claim */
	CLAIM_SHARE,    /* another URL of this run wrote these bytes there: nothing to write */
	CLAIM_YIELD,    /* the file is the slash form's (or a preferred spelling's):
			 * the page becomes a redirect to it */
	CLAIM_CONFLICT, /* "/a" and "/a/" differ after --strip: err says */
};

/* What the file holds before a page's write, when another target of
 * this run wrote it (a takeover); else the manifest says. */
struct claim_prior {
	bool taken_over;
	long long bytes;
	char sha256[65];
	char *redirect_to; /* CLAIM_YIELD to another spelling: it (fresh); NULL: the slash form */
};

/* The index of c->manifest's files by key: what cgisnap may replace or
 * prune. Changed only between runs; empty with a lazy manifest, whose
 * owned_get asks the database. */
void owned_add(struct crawl *c, struct manifest_entry *e);
void owned_del(struct crawl *c, const struct manifest_entry *e);
/* An entry of the manifest that records key's file, NULL when none. */
const struct manifest_entry *owned_get(struct crawl *c, const char *key);
void owned_release(struct crawl *c);
void index_owned(struct crawl *c);

/* Claim the file e->key for e (whose sha256 and bytes are set): takes
 * the lock. With CLAIM_WRITE, *cl is the claim to finish with
 * claim_done once written, and prior what the file holds now. own_file:
 * the page never yields to its slash form. */
enum claim_how claim_file(struct crawl *c, const struct manifest_entry *e, bool own_file, struct claim **cl,
			  struct claim_prior *prior, char *err);
/* The write under cl is over (written: the file holds its bytes); wakes
 * a takeover waiting for it. Takes the lock. */
void claim_done(struct crawl *c, struct claim *cl, bool written);
/* Make e, an entry of "/a", the 301 to "/a/", or to another spelling of
 * its file, to (claim_prior.redirect_to). */
void make_redirect_to(struct crawl *c, struct manifest_entry *e, const char *to);
/* After the queue: each "/a" demoted becomes a redirect to "/a/" when
 * "/a/" holds the file now, or is queued again to be stored as itself.
 * How many were queued. Takes the lock. */
long settle_slash_forms(struct crawl *c);
/* The run's claims, and its demoted "/a" pages: freed by the commit
 * and settle_slash_forms (and crawl_free). */
void free_claims(struct crawl *c);
void free_demoted(struct crawl *c);

#endif
