/* urlkey.h - the one mapping from a canonical request target to a file of
 * the snapshot tree, used by snapshot, watch, serve and config alike.
 * docs/url-keys.md documents it for users, with examples.
 *
 * A key is a relative path inside the tree. The rules:
 *  - The path is percent-decoded segment by segment; in the decoded text
 *    '%' is written "%25" and '@' is written "%40" (so '@' in a key's last
 *    component always separates path and query). A target whose decoded
 *    path holds NUL, a control byte, '\', an encoded '/' (%2F), or a
 *    segment starting with '.' (dotfiles, ".cgisnap") cannot be stored.
 *  - No query: "/" -> "index.html"; "/a/" -> "a/index.html"; a last
 *    segment without '.' ("/a/b") -> "a/b/index.html"; otherwise the path
 *    as it is ("/a/b.css" -> "a/b.css").
 *  - With a query Q: PATH + "@" + Q + SUFFIX, where PATH is the decoded
 *    path ("/a/" gives "a/", so "/a/?x=1" -> "a/@x=1.html"; "/" gives "",
 *    so "/?p=5" -> "@p=5.html"), Q is the canonical query with '/' written
 *    "%2F", and SUFFIX follows the response's content type (".html" for
 *    text/html or when unknown, ".css", ".js", ".xml", ...): plain servers
 *    then send the right Content-Type. nginx finds such a file with
 *    "$uri@$args$suffix", Apache with %{REQUEST_URI}@%{QUERY_STRING}.
 *  - A component longer than URLKEY_MAX_NAME bytes keeps its first 150
 *    bytes, then "#" and 32 hex digits of the SHA-256 of the whole
 *    component (then the suffix): '#' never occurs in a URL, so hashed
 *    names cannot meet plain ones. A whole key over URLKEY_MAX_PATH bytes
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
 * suffix of keys with a query. NULL with err ("cannot be stored: ...")
 * when the target has no key. The caller frees the result. */
char *urlkey_for(const char *target, const char *content_type, char *err);

/* The target a key with a query was made from (reverses urlkey_for); NULL
 * for keys without a query or with hashed components. */
char *urlkey_target(const char *key);

/* A last guard before any file operation on a key read from disk or from
 * the manifest: relative, no empty/"."/".." segments, no dot-leading
 * segment, no NUL or '\'. */
bool urlkey_is_safe(const char *key);

/* The suffix a query key gets for a content type (".html" by default). */
const char *urlkey_suffix(const char *content_type);

/* The content type a plain server infers from a file name's extension
 * ("text/html; charset=utf-8" for .html, "text/css", "image/png", ...;
 * "application/octet-stream" when unknown). Static string. */
const char *mime_from_name(const char *name);

/* True when serving a file named name with mime_from_name(name) would send
 * content_type: the type and, for text types, no conflicting charset. */
bool mime_implied(const char *name, const char *content_type);

/* True for types worth a .gz sibling (text/*, JavaScript, JSON, XML, SVG...). */
bool mime_compressible(const char *content_type);

#endif
