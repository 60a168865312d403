/* urlkey.h - the one mapping from a canonical request target to a file of
 * the snapshot tree, used by snapshot, watch, serve and config alike.
 * docs/url-keys.md documents it for users, with examples.
 *
 * A key is a relative path inside the tree. The rules:
 *  - The path is percent-decoded segment by segment; in the decoded text
 *    '%' is written "%25", '@' "%40" and '#' "%23" (so '@' in a key's last
 *    component always separates path and query, and '#' only marks hashed
 *    names), and a segment's leading '.' "%2E" ("/.well-known/x" ->
 *    "%2Ewell-known/x/index.html"): no key segment starts with '.', so no
 *    page is ever a dotfile, ".cgisnap/" or a publish's temp file, and
 *    "%2E" cannot come from a '%' of the URL (that is "%25"). A name so
 *    escaped counts as holding a dot (".htaccess" is a file, like
 *    "a.css"). An encoded '/' stays "%2F" in its segment's name
 *    ("/tool/x%2Fy.c" -> "tool/x%2Fy.c"): one file, never a separator,
 *    and no '%' of the URL writes "%2F" either. A target whose decoded
 *    path holds NUL (no file name can), a control byte, '\', an empty
 *    segment ("/a//b"), or a "." or ".." segment cannot be stored.
 *  - No query: "/" -> "index.html"; "/a/" -> "a/index.html"; a last
 *    segment without '.' ("/a/b") -> "a/b/index.html"; otherwise the path
 *    as it is ("/a/b.css" -> "a/b.css").
 *  - With a query Q: PATH + "@" + Q + SUFFIX, where PATH is the decoded
 *    path ("/a/" gives "a/", so "/a/?x=1" -> "a/@x=1.html"; "/" gives "",
 *    so "/?p=5" -> "@p=5.html"), Q is the canonical query with '/' written
 *    "%2F", and SUFFIX follows the response's content type (".html" for
 *    text/html or when there is none, ".css", ".js", ".xml", ...; ".bin"
 *    for a type not in the table): plain servers then send the right
 *    Content-Type. The query must be canonical (printable ASCII, no '#'
 *    or '\'); "/a?" counts as "/a". nginx finds such a file with
 *    "$uri@$args$suffix", Apache with %{REQUEST_URI}@%{QUERY_STRING}.
 *  - A component longer than URLKEY_MAX_NAME bytes keeps its first 150
 *    bytes, then "#" and 32 hex digits of the SHA-256 of the whole
 *    component without its suffix, then the suffix (the type suffix of a
 *    query name; a plain file name's extension of up to 10 bytes, ".css",
 *    so it keeps its type): '#' is never in a plain key, so hashed names
 *    cannot meet plain ones. A whole key over URLKEY_MAX_PATH bytes
 *    cannot be stored.
 * Keys never start with '/', never contain "." or ".." segments, never
 * lie under ".cgisnap/", and end in a file name, never a directory.
 */
#ifndef CGISNAP_URLKEY_H
#define CGISNAP_URLKEY_H

#include <stdbool.h>

#define URLKEY_MAX_NAME 200
#define URLKEY_MAX_PATH 3000

/* The key for a canonical target; content_type (may be NULL) chooses the
 * suffix of keys with a query. NULL with err ("cannot be stored: ...";
 * err may be NULL) when the target has no key. Every key returned passes
 * urlkey_is_safe(). The caller frees the result. */
char *urlkey_for(const char *target, const char *content_type, char *err);

/* The target a key with a query was made from (reverses urlkey_for); NULL
 * for keys without a query, with hashed components, with a suffix
 * urlkey_for does not write, or unsafe. Where urlkey_for made one key of
 * several targets the plainest comes back: '/' of the query as "%2F",
 * path characters unescaped where they may be ("/a%3Bb?x" -> "/a;b?x").
 * Always urlkey_for(urlkey_target(k), type) == k. Caller frees. */
char *urlkey_target(const char *key);

/* A last guard before any file operation on a key read from disk or from
 * the manifest: not NULL or empty, relative, no empty/"."/".." segments
 * (so no trailing '/'), no dot-leading segment, no '\' or control byte,
 * at most URLKEY_MAX_PATH bytes. */
bool urlkey_is_safe(const char *key);

/* The suffix a query key gets for a content type: ".html" for NULL or "",
 * ".bin" for a type it does not know. Parameters and case are ignored.
 * Static string. */
const char *urlkey_suffix(const char *content_type);

/* The content type a plain server infers from a file name's extension
 * ("text/html; charset=utf-8" for .html, "text/css", "image/png", ...;
 * "application/octet-stream" when unknown). Static string. */
const char *mime_from_name(const char *name);

/* True when serving a file named name with mime_from_name(name) would send
 * content_type: the same media type (case and parameters ignored; the
 * JavaScript types are one, and the two icon types) and, when
 * content_type names a charset, utf-8; when it names none, only if the
 * name's type has none either ("text/html" is not what ".html" sends, a
 * site that sent no charset gets none added). True for a NULL or empty
 * type. */
bool mime_implied(const char *name, const char *content_type);

/* True for types worth a .gz sibling (text types, JavaScript, JSON, XML, SVG...). */
bool mime_compressible(const char *content_type);

#endif
