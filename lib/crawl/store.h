/* store.h - the publish step of a page (page.h): its file's key, its
 * claim (claims.h) and its bytes written into the tree.
 *
 * Called by page.c, unlocked, once the page's body is final and its
 * sha256 is in p->e; the lock is taken only to claim the file.
 */
#ifndef CGISNAP_CRAWL_STORE_H
#define CGISNAP_CRAWL_STORE_H

#include "crawl/page.h"

/* Key and publish p's file: sets p->e's key, bytes, content type and
 * change time, p->stored, and the paths written (p->written, removed).
 * p->stored is OUTCOME_REDIRECT when the file is the slash form's: e is
 * left for the caller to make a redirect. 0, or -1 with p->err. */
int page_publish(struct crawl *c, struct page *p);

#endif
