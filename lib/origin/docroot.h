/* docroot.h - document-root resolution for the CGI and FastCGI origins:
 * what a request target names under --root or a mount (a script with its
 * PATH_INFO, a static file, a script's source that must not be published,
 * a directory to redirect to its slash form, nothing, or something
 * refused). The decision reads only the origin's set-up (root, mounts,
 * handlers, index names, --static-ext, front controller) and the files
 * under the root and the mounted directories; origin.c turns it into a
 * response. Not for use outside lib/origin*.
 *
 *     struct resolved r;
 *     docroot_resolve(o, target, path_len, query, &r);
 *     if (r.kind == RESOLVE_MISSING && o->front_controller)
 *             docroot_front_controller(o, &r);
 *     ...
 *     docroot_release(&r);
 */
#ifndef CGISNAP_DOCROOT_H
#define CGISNAP_DOCROOT_H

#include <stddef.h>

#include "origin/origin_impl.h"

enum resolve_kind {
	RESOLVE_SCRIPT,    /* run it: r->script */
	RESOLVE_STATIC,    /* a file to copy: r->path, r->size */
	RESOLVE_SOURCE,    /* a script without a handler: r->path, never published */
	RESOLVE_SLASH,     /* a directory asked for without its slash: r->path is the Location */
	RESOLVE_MISSING,   /* no such file: the front controller's turn */
	RESOLVE_REFUSED,   /* never served ("..", dotfiles, a link refused): 404 */
};

struct resolved {
	enum resolve_kind kind;
	struct origin_script script;
	char *path;
	long long size;
	/* REFUSED, and MISSING when an index file was refused: why, naming
	 * the path under the root, e.g. "'lib/tpl' is a symbolic link
	 * leaving the document root; --no-follow-symlinks is set"; NULL otherwise. */
	char *why;
};

/* Walk the path of a target (raw: path's first len bytes, up to '?' or
 * its end; query after the '?' or NULL) segment by segment under the
 * root, or under the --path-alias DIR its longest mounted prefix names
 * (a --script-alias prefix gives its program, the rest as PATH_INFO):
 * the first regular file decides. Symbolic links are followed wherever
 * they point (Apache's FollowSymLinks), a dangling one or a loop is
 * MISSING; REFUSED, with r->refused, are a link whose real path is in the
 * tree (origin_keep_out) and, under --no-follow-symlinks, one whose real
 * path leaves the root or the DIR. Dotfile segments, "%2F" and "%00" are
 * refused before any file is looked at, so no URL names a file that the
 * links under the root do not lead to. Fills r (no need to initialise
 * it); the caller releases it. */
void docroot_resolve(const struct origin *o, const char *path, size_t len, const char *query,
		     struct resolved *r);

/* The front controller answers a target that matched no file: r is
 * released and refilled with its script (SCRIPT_NAME its own, no
 * PATH_INFO), static file or source; anything else is RESOLVE_REFUSED. */
void docroot_front_controller(const struct origin *o, struct resolved *r);

/* Add a --script-alias (script) or --path-alias value to o's mounts,
 * after the --cgi handlers: PROGRAM must be a regular file that runs
 * (executable; readable when its extension has a handler, the only way
 * over FastCGI), DIR a directory; both are kept absolute (DIR and
 * PROGRAM's directory with links resolved, PROGRAM's own name as given).
 * 0, or -1 with err naming the value. */
int docroot_add_mount(struct origin *o, const char *spec, bool script, char *err);

/* The message for a script's source that would be published (fs under
 * the root); what names it: "'x.php'" or "front controller '/x.php'".
 * Returns -1. */
int docroot_source_error(const struct origin *o, const char *what, const char *fs, char *err);

/* Free what r holds and empty it. */
void docroot_release(struct resolved *r);

#endif
