/* config/treeinfo.h - what the nginx and Apache configurations need to know
 * about a snapshot tree, read once from DIR/.cgisnap/ (manifest, settings,
 * 404.html) and sorted into the few things a plain server cannot find by
 * its rules alone.
 *
 * The rules a generated configuration applies to every request (no
 * regeneration needed for new pages) are those of urlkey.h, as far as a
 * plain server can follow them on the decoded path and the raw query:
 *   no query:   "/a/" -> a/index.html, "/a/b.css" -> a/b.css; "/a/b" (no
 *               dot in the last segment) -> a 301 to "/a/b/" when
 *               a/b/index.html is there (answer.h), else 404;
 *   with query: PATH@QUERY + a suffix, trying the suffixes query keys of
 *               this tree use (".html" first).
 * Everything else the tree knows is listed per URL, by the decoded path
 * (what nginx's $uri and Apache's URL-path hold) and the raw query, as
 * answer_for (answer.h) sorts it, the answer cgisnap serve gives:
 *   redirects  recorded 3xx answers with their Location;
 *   statuses   recorded 404 and 410 answers, and manifest entries without
 *              a file (failed renders), which cgisnap serve answers 404;
 *   files      pages the rules would miss (a key with "%25", "%40",
 *              "%23", "%2E" for a dotfile name, "%2F" in its query or a
 *              hashed long name) or whose
 *              recorded content type its file name does not imply
 *              (mime_implied): the blog's /feed/ is RSS stored as
 *              feed/index.html.
 * Targets that cgisnap serve refuses (reqpath.h) are skipped: no
 * request can reach them. Hidden ones (a segment starting with '.') are
 * sorted like the others: the configurations answer them only from these
 * lists, and every other dotfile request with 404.
 */
#ifndef CGISNAP_CONFIG_TREEINFO_H
#define CGISNAP_CONFIG_TREEINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "tree/manifest.h"
#include "url/url.h"

/* One URL the configuration answers on its own. */
struct ti_entry {
	char *target;   /* the canonical target, for comments */
	char *path;     /* percent-decoded path ("/caf\xc3\xa9/") */
	char *query;    /* the raw query without '?', NULL when there is none */
	int status;     /* redirects: the 3xx; statuses: 404 or 410; files: 200 */
	char *location; /* redirects: the absolute Location */
	char *key;      /* files: the file, relative to the tree */
	int type;       /* files: 1-based index into treeinfo.types, 0 when the
			 * file's name implies its type */
};

struct ti_list {
	struct ti_entry *items;
	size_t n, cap;
};

struct treeinfo {
	char *dir;                   /* the tree as given */
	char *root;                  /* where the servers find it (absolute) */
	struct site site;            /* from .cgisnap/settings */
	bool have_404;               /* .cgisnap/404.html exists */
	struct strlist suffixes;     /* of query keys, ".html" first */
	struct strlist types;        /* content types files need sent explicitly */
	struct ti_list redirects, statuses, files;
	struct strlist queries;      /* queries of two parameters or more of the
				      * targets a request reaches (repeats kept):
				      * --sort-query lists their other orders */
	size_t by_rule;              /* manifest files the rules find by themselves */
	size_t skipped;              /* entries no request can reach */
};

/* Empty info for the site site_url (which must parse). */
void treeinfo_init(struct treeinfo *ti, const char *site_url);

/* Read the tree at dir: settings, manifest, whether 404.html exists;
 * root_path (NULL: the real path of dir) is where servers will find it.
 * -1 with err when the tree or its files cannot be read. */
int treeinfo_load(struct treeinfo *ti, const char *dir, const char *root_path, char *err);

/* Sort one manifest entry into ti (redirect, status, file, or nothing
 * when the rules find it or no request can reach it). Entries must come
 * in target order for the output to be sorted. */
void treeinfo_add(struct treeinfo *ti, const struct manifest_entry *e);

void treeinfo_release(struct treeinfo *ti);

/* Split a canonical target into its percent-decoded path and its raw
 * query (NULL when the target has none). Both fresh; the caller frees. */
void treeinfo_split(const char *target, char **path, char **query);

/* True when the path of target holds an encoded '/' (%2F): one name of
 * its key (urlkey.h), which nginx's $uri decodes into a separator, so the
 * writers match such targets on the request as it arrives. */
bool treeinfo_encoded_slash(const char *target);

/* The path of target decoded but for its encoded '/', kept "%2F" as it
 * came: what Apache's URL-path holds with AllowEncodedSlashes NoDecode
 * ("/x%2Fy%20z" -> "/x%2Fy z"). Fresh string; the caller frees. */
char *treeinfo_slash_path(const char *target);

/* The file the plain-server rules find for a decoded path and raw query
 * (query NULL: none), trying suffix for a query. Fresh string. */
char *treeinfo_rule_key(const char *path, const char *query, const char *suffix);

/* The extension of a key's last component with its dot (".html"), or ""
 * when it has none. Points into key. */
const char *treeinfo_suffix(const char *key);

#endif
