/* answer.h - what a snapshot tree answers for a URL: the one order of
 * questions that cgisnap serve asks for each request (serve/meta.c) and
 * cgisnap config writes out for nginx and Apache (config/treeinfo.c), so
 * that the three servers give the same answer.
 *
 * For a canonical target (site_canonical_target) that passed
 * reqpath_check, and the manifest's entry for it (NULL when none):
 *   1. a recorded 3xx with a Location: replay the redirect;
 *   2. a recorded 404 or 410: answer that status;
 *   3. the entry's file, or for a target the manifest does not list the
 *      file urlkey_for names (copied in by hand, or a plain directory);
 *      an unlisted target without a query whose file is a directory's
 *      index.html but lacks the directory's '/' ("/2019/09" for
 *      2019/09/index.html) is its slash form's: when that file is there,
 *      the answer is a 301 to the slash form, as the dynamic site (and any
 *      static server for a directory) answers, not its page under a
 *      second URL;
 *   4. no file (a failed render stores none) or a key urlkey_is_safe
 *      refuses: missing, a 404 (or the origin, for serve --fallback).
 * Whether the file is there is not asked: only the file system knows, at
 * the time of the request.
 */
#ifndef CGISNAP_ANSWER_H
#define CGISNAP_ANSWER_H

#include <stdbool.h>

#include "tree/manifest.h"

enum answer_kind {
	ANSWER_FILE,     /* key, content_type, listed */
	ANSWER_REDIRECT, /* status (3xx) and location */
	ANSWER_GONE,     /* status: 404 or 410, as recorded */
	ANSWER_MISSING,  /* nothing stored */
};

struct answer {
	enum answer_kind kind;
	int status;
	const char *location;     /* REDIRECT: the entry's Location */
	char *key;                /* FILE: the file, relative to the tree */
	const char *content_type; /* FILE: the entry's recorded type, NULL: none */
	bool listed;              /* FILE: the manifest names the key (cgisnap stored it) */
	bool slash_form;          /* FILE: "/x" for x/index.html, unlisted: when the
				   * file is there, a 301 to the target with a '/' */
};

/* Answer target from e (NULL: the manifest does not list target) into a.
 * location and content_type point into e and live as long as it; key is
 * fresh: answer_release frees it. */
void answer_for(const struct manifest_entry *e, const char *target, struct answer *a);
void answer_release(struct answer *a);

#endif
