/* config/config.h - what the parts of 'cgisnap config' share.
 *
 * config.c    the command line: cgisnap config nginx|apache [OPTIONS] DIR
 * treeinfo.c  what both configurations need from the tree (treeinfo.h)
 * nginx.c     the nginx server block; nginxmaps.c its http-level maps,
 *             nginxkeys.c what both agree on (nginx_impl.h)
 * apache.c    the Apache virtual host
 * common.c    what both writers use: the type table, the guards' regular
 *             expressions, quoting
 * qpolicy.c   the tree's query policy (--ignore-param, --sort-query) as
 *             regular expressions and a table of query orders
 *
 * A writer only appends text to a buffer: it never fails and never looks
 * at the file system, so unit tests check its output for a treeinfo built
 * in memory.
 */
#ifndef CGISNAP_CONFIG_CONFIG_H
#define CGISNAP_CONFIG_CONFIG_H

#include <stdbool.h>

#include "base/buf.h"
#include "treeinfo.h"

#define CONFIG_DEFAULT_LISTEN "127.0.0.1:8080"
#define CONFIG_DEFAULT_CACHE_CONTROL "public, max-age=60"

/* What the command line decided, for the writers. */
struct config_params {
	char *host;                /* "127.0.0.1", "[::1]" or "*" */
	long port;
	char *server_name;         /* nginx server_name, Apache ServerName */
	struct strlist aliases;    /* more names (the site's --alias hosts) */
	const char *cache_control; /* NULL: send none */
	char *id;                  /* "localhost_8080": names nginx variables */
	const char *version;       /* for the header comment */
	char *fallback;            /* --origin-fallback: "HOST:PORT" of the live
				    * application misses go to; NULL: none (404) */
	char *map_prefix;          /* Apache: its map files are PREFIX.redirects.map
				    * and PREFIX.query.map (absolute); NULL: none
				    * (redirects as rules, queries not sorted) */
};

/* The map files of an Apache configuration (RewriteMap txt: one "KEY
 * VALUE" a line), for config.c to write beside it. Empty: not used. */
struct config_maps {
	struct buf redirects; /* "PATH?QUERY" -> "STATUS:LOCATION" */
	struct buf query;     /* another order of a query -> its sorted form */
};

/* Fill p from the listen address (NULL: the default), server name (NULL:
 * the site URL's host) and cache control (NULL: the default, "off":
 * none). -1 with err for a bad listen address. */
int config_params_init(struct config_params *p, const struct treeinfo *ti, const char *listen,
		       const char *server_name, const char *cache_control, char *err);
/* Set p->fallback from an --origin-fallback URL ("http://HOST[:PORT][/]").
 * -1 with err naming it. */
int config_params_fallback(struct config_params *p, const char *url, char *err);
void config_params_release(struct config_params *p);

/* Append the nginx configuration (http-level maps and one server block)
 * or the Apache virtual host for ti to out. */
void nginx_write(struct buf *out, const struct treeinfo *ti, const struct config_params *p);
/* With p->map_prefix, maps gets the map files' lines (maps may be NULL
 * without it). */
void apache_write(struct buf *out, struct config_maps *maps, const struct treeinfo *ti,
		  const struct config_params *p);

/* common.c */

/* The content types a plain server is told to send by extension: the
 * table of urlkey.h's mime_from_name, one group of extensions per type.
 * Returns the number of groups; *exts is "html|htm" (regex alternatives),
 * *type "text/html; charset=utf-8". Static strings. */
size_t config_type_groups(size_t i, const char **type, const char **exts);

/* Regular expressions (PCRE, case-insensitive) for what lib/url/reqpath.h
 * refuses with 400, to be matched anywhere in the path part of the raw
 * request target (the writers anchor them: nginx on $request_uri, Apache
 * on THE_REQUEST): bad escapes; encoded '\' or control bytes; a raw
 * '\' or '#'; "." and ".." segments, raw or encoded; overlong UTF-8,
 * encoded or raw. NULL ends the list. Each comes with a comment. */
struct config_guard {
	const char *re;
	const char *why;
};
extern const struct config_guard config_bad_targets[];
/* Append the guards as one alternation, "(?:(?:RE1)|(?:RE2)...)": what
 * the writers anchor and match once per request. */
void config_guards_regex(struct buf *out);

/* Append s to out as a regular expression matching exactly s: ASCII
 * punctuation and space escaped ("\." "\x20"), '"' written "\x22" so that
 * it survives both servers' quoting; other bytes as they are. */
void config_regex_escape(struct buf *out, const char *s);

/* True when s has a byte that no quoting carries into either server's
 * configuration (control bytes, newlines). */
bool config_unquotable(const char *s);

/* The first lines of a configuration: "SERVER configuration for the
 * cgisnap tree DIR (URL)," and "written by cgisnap VERSION: cgisnap
 * config COMMAND DIR", then "#". */
void config_header(struct buf *out, const char *server, const char *command, const struct treeinfo *ti,
		   const struct config_params *p);

/* Append a "# " comment line; text's control bytes are shown as '?' so
 * that a target can never end the comment. */
void config_comment(struct buf *out, const char *indent, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The regex of a --canonical rule (rewrite.h, site.canonical) as PCRE for
 * both servers, appended to out: the same text, but a '"' written "\x22"
 * and a backslash in a bracket expression (literal in POSIX) doubled;
 * *groups is the number of its groups. -1 with err naming the rule for
 * what PCRE reads otherwise: a backslash before a letter or digit (GNU's
 * \w \b and back-references), \< \> \` \', "{," and [[.x.]] [[=x=]]. POSIX
 * takes the longest of alternatives, PCRE the first: groups around
 * alternatives that match at the same place can capture differently. */
int config_canonical_pcre(const struct rewrite *rw, struct buf *out, size_t *groups, char *err);
/* -1 with err when a rule of s cannot be written for both servers (as
 * above; $0 with 9 groups, which nginx cannot give). */
int config_check_canonical(const struct site *s, char *err);

/* Append the "# Listed per URL: ..." comment line with ti's counts. */
void config_summary(struct buf *out, const struct treeinfo *ti);

/* qpolicy.c */

/* How many parameters the generated configurations drop from one request
 * (empty ones and those --ignore-param names): one regex pass each. */
#define CONFIG_QUERY_DROPS 8
/* Queries of the tree with at most this many parameters are found in any
 * order (--sort-query): 5! = 120 orders each, listed. */
#define CONFIG_SORT_MAX_PARAMS 5

/* True when the site has a query policy (site_canonical_query changes
 * queries). */
bool config_query_policy(const struct site *s);

/* Append the PCRE that matches the parameter names fnmatch(glob, name, 0)
 * accepts (a name is what stands before a parameter's first '=': no '&'
 * nor '='). */
void config_glob_pcre(struct buf *out, const char *glob);

/* Append the PCRE (anchored, case-sensitive) matching a raw query that
 * holds a parameter the policy drops: an empty one, or one whose name an
 * --ignore-param glob matches. "$1$2" is the query without the first such
 * parameter. Applied CONFIG_QUERY_DROPS times, it leaves what
 * site_canonical_query keeps, in the order it came. */
void config_drop_regex(const struct site *s, struct buf *out);

/* With --sort-query, fill from and to (in step) with every other order of
 * each query of ti->queries that sorts into it: from[i] sorted is to[i].
 * Queries of more than CONFIG_SORT_MAX_PARAMS parameters are left out. */
void config_query_orders(const struct treeinfo *ti, struct strlist *from, struct strlist *to);

#endif
