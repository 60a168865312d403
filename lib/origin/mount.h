/* mount.h - URL prefixes mounted on a program or a directory, as Apache's
 * ScriptAlias and Alias: --script-alias /PREFIX=PROGRAM and --path-alias
 * /PREFIX=DIR. This module owns the URL side only (parsing a value,
 * matching a request path); origin.c checks the files and docroot.c
 * resolves what a matched request names. Pure functions, no file system.
 *
 *     struct mount m;
 *     if (mount_parse(&m, "/tool=/usr/lib/tool/tool.cgi", true, err) < 0) ...
 *     size_t rest;
 *     if (mount_match(m.prefix, path, len, &rest))
 *             ... path + rest is what follows /tool: "", "/x", ...
 *     mount_release(&m);
 */
#ifndef CGISNAP_MOUNT_H
#define CGISNAP_MOUNT_H

#include <stdbool.h>
#include <stddef.h>

struct mount {
	char *prefix;   /* decoded URL path without its trailing slash; "" for "/" */
	char *path;     /* PROGRAM or DIR as given (origin.c makes it absolute) */
	bool script;    /* --script-alias: path is a program, the rest PATH_INFO */
	bool dir;       /* a --script-alias of a directory: each file in it is a
			 * program (Apache's ScriptAlias /cgi-bin/ /usr/lib/cgi-bin/);
			 * set by origin.c, which looks at the file */
};

/* Parse "/PREFIX=PATH" (PREFIX percent-decoded; a trailing slash is
 * ignored, so /tool and /tool/ are one mount). 0, or -1 with err naming
 * the value: "bad --script-alias value 'x' (expected /PREFIX=PROGRAM)",
 * "bad --path-alias prefix 'a/../b': a '..' segment". A prefix must start
 * with '/' and hold no "." or ".." segment, empty segment, NUL, '?' or
 * '#'. m needs no initialising; on -1 it is left empty. */
int mount_parse(struct mount *m, const char *spec, bool script, char *err);

/* Whether the raw URL path path[0..len) (no query) lies under prefix (as
 * mount_parse leaves it) at a segment boundary: "/tool" matches "/tool",
 * "/tool/" and "/tool/x", never "/toolbox". Escapes in path are decoded
 * for the comparison except %2F, which is never a separator; repeated
 * slashes count as one. On a match *rest is the offset in path of what
 * follows the prefix ("" or starting with '/'). */
bool mount_match(const char *prefix, const char *path, size_t len, size_t *rest);

/* The mount of m[0..n) with the longest matching prefix, or NULL; *rest
 * as mount_match. */
const struct mount *mount_find(const struct mount *m, size_t n, const char *path, size_t len,
			       size_t *rest);

/* Free what m holds and empty it. */
void mount_release(struct mount *m);

#endif
