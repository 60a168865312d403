/* reqpath.h - the first guard on a request target, before any
 * normalisation: hostile paths are refused as they arrive, so that no
 * later step (site_canonical_target, urlkey_for, the file system) ever
 * sees them. The later steps have guards of their own (urlkey_is_safe,
 * openat2 RESOLVE_BENEATH); this one makes the answer a clean 400 or 404.
 * serve asks it of every request; config skips the manifest targets it
 * refuses, which no request can reach.
 *
 * Refused with 400 (malformed or hostile), looking at the path only:
 *  - raw bytes that may not appear in a target: controls, space, DEL, '\',
 *    '#'; a '%' not followed by two hex digits;
 *  - escapes that decode to a control byte (%00, %0a, ...) or to '\'
 *    (%5C). An encoded '/' (%2F) is let through: it is part of its
 *    segment ("/tool/x%2Fy" is the one file "tool/x%2Fy/index.html", and
 *    the origin gets it as it came), so "/a%2F..%2Fb" is one segment and
 *    no traversal;
 *  - "." and ".." segments, raw or encoded (%2e, %2E%2e, ...);
 *  - overlong or impossible UTF-8 in the decoded path: lead bytes C0, C1
 *    and F5..FF, E0 followed by 80..9F, F0 followed by 80..8F, and UTF-16
 *    surrogates (ED A0..BF). Other non-UTF-8 bytes are let through: old
 *    sites use Latin-1 URLs, and the file system gives them no meaning.
 * Hidden, 404: a decoded segment starting with '.' (.well-known/, .git,
 * .htpasswd, .cgisnap/). Its key escapes the dot ("%2Ewell-known/...",
 * urlkey.h), so no such request reaches a dotfile on disk (.cgisnap/, the
 * temporary files of an atomic publish, a .htaccess of an adopted tree);
 * and it is answered only as the manifest records the target (a page
 * cgisnap rendered, a redirect, a 404): never from a file the manifest
 * does not list, never by the origin. config writes such targets out one
 * by one for the same reason.
 * The query is only checked for raw controls and spaces: urlkey.h keeps
 * it percent-encoded in the file name, where it cannot name a directory.
 */
#ifndef CGISNAP_REQPATH_H
#define CGISNAP_REQPATH_H

#include <stdbool.h>

/* 0 when raw may be looked up, 404 when it is hidden (see above: looked
 * up in the manifest only), 400 when it is refused.
 * *origin_form is set to the "/path?query" part of raw: raw itself, or
 * for an absolute-form target ("http://host/x") the part after the
 * authority (a static "/" when there is no path). */
int reqpath_check(const char *raw, const char **origin_form);

/* The extensions of scripts whose source a server must never send
 * (without the dot): the CGI and template languages of the usual web
 * servers. serve adds the EXT of every --cgi EXT=PROGRAM. */
#define REQPATH_SCRIPT_EXTS "php", "phtml", "php3", "php4", "php5", "php7", "phps", "phar", \
	"cgi", "fcgi", "pl", "pm", "py", "pyc", "sh", "rb", "asp", "aspx", "ashx", "jsp", "jspx", "cfm"

struct strlist;

/* True when the last component of key (a tree key or plain path) ends in
 * ".EXT" (any case) for EXT in REQPATH_SCRIPT_EXTS or in extra (may be
 * NULL), also behind a ".gz" (the precompressed copy of the same file)
 * and behind a backup suffix ("~", ".bak", ".orig", ".old", ".save", ...:
 * an editor's or admin's copy of a script is its source too).
 * A file so named is served only when the manifest lists it: then it is
 * a render cgisnap stored ("/info.php" -> "info.php"), not a source file
 * that happens to lie in the directory. */
bool reqpath_is_script(const char *key, const struct strlist *extra);

#endif
