/* config/apache.c - the Apache virtual host for a tree: mod_rewrite rules
 * that pick the file the way urlkey.h names it (per-URL rules for what
 * the tree recorded, then general rules), then hand out FILE.gz and the
 * recorded content type. */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "base/log.h"
#include "url/urlkey.h"

/* Accept-Encoding naming gzip (or x-gzip) with a q-value above 0, as
 * serve/http.c reads it. */
#define ACCEPTS_GZIP_RE \
	"(?:^|,)\\s*(?:x-)?gzip\\s*(?:;\\s*q\\s*=\\s*(?:1(?:\\.0*)?|0?\\.[0-9]*[1-9][0-9]*)\\s*)?(?:,|$)"

/* A substitution that names a file ends in '?' (no query for the file)
 * and is split at its last '?': a file name may hold a '?' of its own
 * ("x@a=?b.html", or "a?b/index.html" for "/a%3Fb/"), which Apache 2.4.60
 * and later accept only with UnsafeAllow3F. */
#define SPLIT_FLAGS ",QSL,UnsafeAllow3F"

/* Append s quoted for Apache: only '"' needs a backslash there. */
static void quote(struct buf *out, const char *s)
{
	buf_addc(out, '"');
	for (; *s; s++) {
		if (*s == '"')
			buf_addc(out, '\\');
		buf_addc(out, *s);
	}
	buf_addc(out, '"');
}

/* Append s for the inside of a quoted substitution or test string of
 * mod_rewrite, where '$' and '%' start references: both get a backslash,
 * and '"' its quoting backslash. */
static void add_literal(struct buf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '$' || *s == '%' || *s == '"')
			buf_addc(out, '\\');
		buf_addc(out, *s);
	}
}

/* Append "^PATH$" as a quoted pattern on the decoded URL-path. */
static void path_pattern(struct buf *out, const char *path)
{
	buf_adds(out, "\"^");
	config_regex_escape(out, path);
	buf_adds(out, "$\"");
}

/* The pattern of a per-URL rule. With AllowEncodedSlashes NoDecode the
 * URL-path keeps an encoded '/' as "%2F" and decodes the rest, so that
 * "/x%2Fy" and "/x%252Fy" (whose path decodes to "/x%2Fy") both arrive
 * as "/x%2Fy": a pattern holding "%2F" comes with a condition on the
 * path as it was sent. */
static void path_rule_start(struct buf *out, const struct ti_entry *e)
{
	char *path = treeinfo_slash_path(e->target);
	if (strstr(path, "%2F") || strstr(path, "%2f")) {
		struct buf raw = BUF_INIT;
		buf_add(&raw, e->target, strcspn(e->target, "?"));
		buf_adds(out, "    RewriteCond %{THE_REQUEST} \"^\\S+\\s+(?:[a-z][a-z0-9+.-]*://[^/?\\s]*)?");
		config_regex_escape(out, buf_str(&raw));
		buf_adds(out, "[?\\s]\"\n");
		buf_release(&raw);
	}
	buf_adds(out, "    RewriteRule ");
	path_pattern(out, path);
	free(path);
}

/* The condition on the query (as the policy left it: CGISNAP_Q, see
 * write_policy) that goes with every per-URL rule. */
static void query_cond(struct buf *out, const struct ti_entry *e)
{
	if (!e->query) {
		buf_adds(out, "    RewriteCond %{ENV:CGISNAP_Q} ^$\n");
		return;
	}
	/* "=" compares as a plain string. */
	struct buf q = BUF_INIT;
	buf_addf(&q, "=%s", e->query);
	buf_adds(out, "    RewriteCond %{ENV:CGISNAP_Q} ");
	quote(out, buf_str(&q));
	buf_adds(out, "\n");
	buf_release(&q);
}

/* False for entries whose text no rule can carry (controls; a query
 * with '"' or a space, which canonical queries never have). */
static bool entry_writable(const struct ti_entry *e)
{
	if (config_unquotable(e->path) || (e->location && config_unquotable(e->location)) ||
	    (e->key && config_unquotable(e->key)))
		return false;
	return !e->query || (!strpbrk(e->query, "\" \\") && !config_unquotable(e->query));
}

/* A type the [E=...] and [T=...] flags can hold: no ',' (which separates
 * flags), ']' or '"'. */
static bool type_writable(const char *type)
{
	return !config_unquotable(type) && !strpbrk(type, ",]\"\\");
}

/* True for a redirect the map of redirects can hold (with
 * p->map_prefix): its key "PATH?QUERY" and its Location hold no white
 * space (a txt map's separator), and its path no "%2F", which only
 * path_rule_start tells from an encoded '/'. */
static bool entry_in_map(const struct ti_entry *e, const struct config_params *p)
{
	if (!p->map_prefix || !entry_writable(e) || strpbrk(e->location, " \t"))
		return false;
	char *path = treeinfo_slash_path(e->target);
	bool ok = !strpbrk(path, " \t") && !strcasestr(path, "%2F");
	free(path);
	return ok;
}

/* The comment at the top: what this is, where it goes, when to
 * regenerate it. */
static void write_header(struct buf *out, const struct treeinfo *ti, const struct config_params *p)
{
	config_header(out, "Apache", "apache", ti, p);
	buf_adds(out, "# Put it in /etc/apache2/sites-available/NAME.conf and run a2ensite NAME.\n"
		      "# Needs mod_rewrite and mod_headers (a2enmod rewrite headers), and\n"
		      "# Apache 2.4.60 or later (the rewrite flag UnsafeAllow3F, for names that\n"
		      "# hold a '?'). Types are set by ForceType, a core directive: mod_mime's\n"
		      "# own table is not used.\n"
		      "#\n"
		      "# REGENERATE this file and reload Apache when a snapshot or watch changes\n"
		      "# redirects, recorded 404/410 statuses or content types: they are listed\n"
		      "# per URL below. New and changed pages need nothing: the general rules\n"
		      "# find their files.\n"
		      "#\n"
		      "# The tree's --ignore-param and --sort-query apply as with cgisnap serve,\n"
		      "# but for what cgisnap config --help lists under Limits: queries are not\n"
		      "# normalised, and only the queries the tree holds are sorted (with the\n"
		      "# map files of --output).\n");
	if (p->fallback)
		config_comment(out, "", "--origin-fallback %s: what the tree lacks goes there; needs mod_proxy "
			       "and mod_proxy_http too (a2enmod proxy_http).", p->fallback);
	config_summary(out, ti);
	buf_adds(out, "\n");
}

/* The tree's <Directory>: access, no extras, types by extension. */
static void write_directory(struct buf *out, const struct treeinfo *ti)
{
	const char *type, *exts;
	buf_adds(out, "    <Directory ");
	quote(out, ti->root);
	buf_adds(out, ">\n        Require all granted\n"
		      "        # No .htaccess, listings, symbolic links or content negotiation.\n"
		      "        AllowOverride None\n        Options None\n"
		      "        # Types by extension, exactly as cgisnap serve sends them.\n"
		      "        ForceType application/octet-stream\n");
	for (size_t i = 0; i < config_type_groups(i, &type, &exts); i++) {
		buf_addf(out, "        <FilesMatch \"(?i)\\.(?:%s)$\">\n            ForceType ", exts);
		quote(out, type);
		buf_adds(out, "\n        </FilesMatch>\n");
	}
	buf_adds(out, "    </Directory>\n\n");
}

/* The 404 page and the response headers serve sends. */
static void write_headers(struct buf *out, const struct treeinfo *ti, const struct config_params *p)
{
	if (ti->have_404)
		buf_adds(out, "    # The site's 404 page (.cgisnap/404.html), also for 410s.\n"
			      "    ErrorDocument 404 /.cgisnap/404.html\n"
			      "    ErrorDocument 410 /.cgisnap/404.html\n\n");
	if (p->cache_control) {
		buf_adds(out, "    # Cache-Control as cgisnap serve sends it: on files, 304s and permanent\n"
			      "    # redirects; \"no-cache\" on the 404 page.\n");
		/* Not on the live application's answers (--origin-fallback). */
		const char *ours = p->fallback ? " && -z reqenv('CGISNAP_ORIGIN')" : "";
		buf_addf(out, "    Header always set Cache-Control \"%s\" "
			      "\"expr=%%{REQUEST_STATUS} in {'200','206','304','301','308'}%s\"\n",
			 p->cache_control, ours);
		buf_addf(out, "    Header always set Cache-Control \"no-cache\" "
			      "\"expr=%%{REQUEST_STATUS} in {'404','410'}%s\"\n", ours);
	}
	if (p->fallback)
		buf_adds(out, "    # --origin-fallback: no cookie of the live application goes out (as\n"
			      "    # with cgisnap serve --fallback: its answer may be anyone's).\n"
			      "    Header unset Set-Cookie\n    Header always unset Set-Cookie\n");
	buf_adds(out, "    # FILE.gz (see the end of the rules) is the page gzip-encoded.\n"
		      "    Header always set Content-Encoding gzip env=CGISNAP_GZ\n"
		      "    Header always merge Vary Accept-Encoding env=CGISNAP_VARY\n\n");
}

/* The RewriteMap lines of the map files that have lines; the names are
 * those of the VirtualHost (RewriteMap is not allowed in <Directory>). */
static void write_rewrite_maps(struct buf *out, const struct config_maps *maps, const struct config_params *p)
{
	if (!p->map_prefix)
		return;
	if (maps->redirects.len) {
		buf_addf(out, "    # Recorded redirects, \"PATH?QUERY STATUS:LOCATION\" a line.\n"
			      "    RewriteMap cgisnap_%s_redirects ", p->id);
		struct buf f = BUF_INIT;
		buf_addf(&f, "txt:%s.redirects.map", p->map_prefix);
		quote(out, buf_str(&f));
		buf_adds(out, "\n");
		buf_release(&f);
	}
	if (maps->query.len) {
		buf_addf(out, "    # --sort-query: other orders of the tree's queries, \"ORDER SORTED\".\n"
			      "    RewriteMap cgisnap_%s_query ", p->id);
		struct buf f = BUF_INIT;
		buf_addf(&f, "txt:%s.query.map", p->map_prefix);
		quote(out, buf_str(&f));
		buf_adds(out, "\n");
		buf_release(&f);
	}
}

/* Step 1c: CGISNAP_Q, the query every later rule reads: as it came, or
 * as the tree's policy leaves it: empty and ignored parameters dropped
 * (one pass each), the order sorted by the map of orders. */
static void write_policy(struct buf *out, const struct config_maps *maps, const struct treeinfo *ti,
			 const struct config_params *p)
{
	buf_adds(out, "    # 1c. The query the rules below read (CGISNAP_Q), as cgisnap serve\n"
		      "    # canonicalises it.\n"
		      "    RewriteRule ^ - [E=CGISNAP_Q:%{QUERY_STRING}]\n");
	if (!config_query_policy(&ti->site))
		return;
	struct buf re = BUF_INIT;
	config_drop_regex(&ti->site, &re);
	buf_adds(out, "    # The tree's query policy (--ignore-param");
	for (size_t i = 0; i < ti->site.ignore_params.n; i++)
		buf_addf(out, " %s", ti->site.ignore_params.items[i]);
	buf_addf(out, "%s): each pair\n    # drops one empty or ignored parameter (at most %d in all).\n",
		 ti->site.sort_query ? ", --sort-query" : "", CONFIG_QUERY_DROPS);
	for (int k = 0; k < CONFIG_QUERY_DROPS; k++) {
		buf_adds(out, "    RewriteCond %{ENV:CGISNAP_Q} ");
		quote(out, buf_str(&re));
		buf_adds(out, "\n    RewriteRule ^ - [E=CGISNAP_Q:%1%2]\n");
	}
	if (maps && maps->query.len)
		buf_addf(out, "    RewriteCond \"${cgisnap_%s_query:%%{ENV:CGISNAP_Q}}\" ^(.+)$\n"
			      "    RewriteRule ^ - [E=CGISNAP_Q:%%1]\n",
			 p->id);
	buf_release(&re);
}

/* Steps 0 and 1 of the rewrite rules: the 404 page, hostile targets. */
static void write_guards(struct buf *out, const struct treeinfo *ti)
{
	buf_adds(out, "    RewriteEngine On\n");
	if (ti->have_404) {
		buf_adds(out, "    # 0. The 404 page, reached only through ErrorDocument.\n"
			      "    RewriteCond %{ENV:REDIRECT_STATUS} !^$\n"
			      "    RewriteRule \"^/\\.cgisnap/404\\.html$\" \"");
		add_literal(out, ti->root);
		buf_adds(out, "/.cgisnap/404.html\" [END]\n");
	}
	buf_adds(out, "    # 1. Targets cgisnap serve refuses as malformed or hostile: 400. One\n"
		      "    # regex for all (one match per request), alternatives in this order:\n");
	for (const struct config_guard *g = config_bad_targets; g->re; g++)
		buf_addf(out, "    #   %s\n", g->why);
	struct buf re = BUF_INIT;
	config_guards_regex(&re);
	buf_addf(out, "    RewriteCond %%{THE_REQUEST} \"^\\S+\\s+[^?\\s]*%s\" [NC]\n", buf_str(&re));
	buf_adds(out, "    RewriteRule ^ - [R=400]\n");
	buf_release(&re);
}

/* The --canonical rules: a 302 for whatever request they match, crawled
 * or not, the first rule winning. The regex is matched on the raw target,
 * taken from THE_REQUEST by a first condition; the Location is the site's
 * origin and the template, $N becoming %N (the last condition's groups). */
static void write_canonical(struct buf *out, const struct treeinfo *ti)
{
	if (!ti->site.ncanonical)
		return;
	buf_adds(out, "    # 2. The tree's --canonical rules: a 302 for every URL they match, crawled\n"
		      "    # or not; the first rule wins.\n");
	for (size_t i = 0; i < ti->site.ncanonical; i++) {
		const struct rewrite *rw = &ti->site.canonical[i];
		struct buf re = BUF_INIT;
		size_t groups;
		char err[ERR_LEN];
		if (config_canonical_pcre(rw, &re, &groups, err) < 0) { /* config_check_canonical refused it */
			buf_release(&re);
			continue;
		}
		config_comment(out, "    ", "--canonical %s", rw->spec);
		buf_adds(out, "    RewriteCond %{THE_REQUEST} "
			      "\"^\\S+\\s+(?:[a-z][a-z0-9+.-]*://[^/?\\s]*)?(/\\S*)\" [NC]\n"
			      "    RewriteCond %1 \"");
		/* A leading '!', '<', '>', '=' or '-' would make it no regex. */
		if (strchr("!<>=-", re.data ? re.data[0] : '\0') && re.len)
			buf_addc(out, '\\');
		buf_adds(out, buf_str(&re));
		buf_adds(out, "\"\n    RewriteRule ^ \"");
		add_literal(out, ti->site.origin);
		for (const char *t = rw->url; *t; t++) {
			if (t[0] == '$' && t[1] >= '0' && t[1] <= '9') {
				buf_addf(out, "%%%c", t[1]);
				t++;
			} else {
				char c[2] = { *t, '\0' };
				add_literal(out, c);
				t += t[0] == '$' && t[1] == '$';
			}
		}
		buf_adds(out, "\" [R=302,NE,QSD,L]\n");
		buf_release(&re);
	}
}

/* The redirects of the map (entry_in_map): its lines into maps, and one
 * rule per status. */
static void write_redirect_map(struct buf *out, struct config_maps *maps, const struct treeinfo *ti,
			       const struct config_params *p)
{
	bool codes[100] = { false };
	for (size_t i = 0; i < ti->redirects.n; i++) {
		const struct ti_entry *e = &ti->redirects.items[i];
		if (!entry_in_map(e, p) || e->status < 300 || e->status > 399)
			continue;
		char *path = treeinfo_slash_path(e->target);
		buf_addf(&maps->redirects, "%s?%s %d:%s\n", path, e->query ? e->query : "", e->status,
			 e->location);
		free(path);
		codes[e->status - 300] = true;
	}
	for (int c = 0; c < 100; c++) {
		if (!codes[c])
			continue;
		buf_addf(out, "    RewriteCond \"${cgisnap_%s_redirects:$0?%%{ENV:CGISNAP_Q}}\" ^%d:(.+)$\n"
			      "    RewriteRule \"^/.*$\" %%1 [R=%d,NE,QSD,L]\n",
			 p->id, 300 + c, 300 + c);
	}
}

/* Steps 2 and 3: the map of redirects, one rule (and its query
 * condition) per other recorded URL, then no other dotfile. */
static void write_recorded(struct buf *out, struct config_maps *maps, const struct treeinfo *ti,
			   const struct config_params *p)
{
	write_canonical(out, ti);
	if (ti->redirects.n || ti->statuses.n || ti->files.n)
		buf_adds(out, "    # 2b. What the tree recorded for exact URLs (decoded path, raw query),\n"
			      "    # dotfile names included (\"/.well-known/x\" is the file %2Ewell-known/x).\n");
	if (p->map_prefix)
		write_redirect_map(out, maps, ti, p);
	for (size_t i = 0; i < ti->redirects.n; i++) {
		const struct ti_entry *e = &ti->redirects.items[i];
		if (!entry_writable(e) || entry_in_map(e, p))
			continue;
		query_cond(out, e);
		path_rule_start(out, e);
		buf_adds(out, " \"");
		add_literal(out, e->location);
		buf_addf(out, "\" [R=%d,NE,QSD,L]\n", e->status);
	}
	for (size_t i = 0; i < ti->statuses.n; i++) {
		const struct ti_entry *e = &ti->statuses.items[i];
		if (!entry_writable(e))
			continue;
		query_cond(out, e);
		path_rule_start(out, e);
		buf_addf(out, " - [R=%d]\n", e->status);
	}
	for (size_t i = 0; i < ti->files.n; i++) {
		const struct ti_entry *e = &ti->files.items[i];
		const char *type = e->type ? ti->types.items[e->type - 1] : NULL;
		if (!entry_writable(e))
			continue;
		if (type && !type_writable(type)) {
			config_comment(out, "    ", "%s: its type cannot be written in a rewrite flag", e->target);
			type = NULL;
		}
		query_cond(out, e);
		path_rule_start(out, e);
		buf_adds(out, " \"");
		add_literal(out, ti->root);
		buf_adds(out, "/");
		add_literal(out, e->key);
		buf_adds(out, "?\" \"[E=CGISNAP_FOUND:1");
		if (type)
			buf_addf(out, ",E=CGISNAP_TYPE:%s", type);
		buf_adds(out, SPLIT_FLAGS "]\"\n");
	}
	buf_adds(out, "    # 3. No other dotfile name is served, nor cgisnap's own .cgisnap/.\n"
		      "    RewriteCond %{ENV:CGISNAP_FOUND} !=1\n"
		      "    RewriteRule \"/\\.\" - [R=404]\n");
}

/* One general rule: when nothing was found yet and the file exists, take
 * it. file is the substitution after ROOT ("$0index.html"). */
static void rule(struct buf *out, const struct treeinfo *ti, const char *pattern, const char *file)
{
	buf_adds(out, "    RewriteCond %{ENV:CGISNAP_FOUND} !=1\n    RewriteCond \"");
	add_literal(out, ti->root);
	buf_addf(out, "%s\" -f\n    RewriteRule \"%s\" \"", file, pattern);
	add_literal(out, ti->root);
	buf_addf(out, "%s?\" [E=CGISNAP_FOUND:1" SPLIT_FLAGS "]\n", file);
}

/* Step 4: the general rules, each taking the file only when it exists
 * and nothing was found before; else 404. */
static void write_rules(struct buf *out, const struct treeinfo *ti)
{
	buf_adds(out, "    # 4. The rules, for every other URL (docs/url-keys.md). An empty segment\n"
		      "    # (\"/a//b\") names no file.\n"
		      "    # Apache merges leading slashes before any rule: look at the request.\n"
		      "    RewriteCond %{ENV:CGISNAP_FOUND} !=1\n"
		      "    RewriteCond %{THE_REQUEST} \"^\\S+\\s+(?:[a-z][a-z0-9+.-]*://[^/?\\s]*)?[^?\\s]*//\" [NC]\n"
		      "    RewriteRule ^ - [R=404]\n"
		      "    # A key writes '%', '@' and '#' of the path as %25, %40 and %23 (and a\n"
		      "    # leading '.' as %2E): a path holding them is listed above or is no\n"
		      "    # page (\"/%252Ex\" is not the file %2Ex of \"/.x\").\n"
		      "    RewriteCond %{ENV:CGISNAP_FOUND} !=1\n"
		      "    RewriteRule \"[%@#]\" - [R=404]\n"
		      "    # A query is stored as PATH@QUERY plus a type suffix (those this tree\n"
		      "    # uses), with a '/' of the query written %2F: a raw '/' names no file.\n"
		      "    RewriteCond %{ENV:CGISNAP_FOUND} !=1\n"
		      "    RewriteCond %{ENV:CGISNAP_Q} /\n"
		      "    RewriteRule ^ - [R=404]\n");
	for (size_t i = 0; i < ti->suffixes.n; i++) {
		struct buf file = BUF_INIT;
		buf_addf(&file, "$0@%%{ENV:CGISNAP_Q}%s?", ti->suffixes.items[i]);
		/* The test string has no '?': it is not split. */
		struct buf test = BUF_INIT;
		buf_addf(&test, "$0@%%{ENV:CGISNAP_Q}%s", ti->suffixes.items[i]);
		buf_adds(out, "    RewriteCond %{ENV:CGISNAP_FOUND} !=1\n"
			      "    RewriteCond %{ENV:CGISNAP_Q} .\n    RewriteCond \"");
		add_literal(out, ti->root);
		buf_addf(out, "%s\" -f\n    RewriteRule \"^/.*$\" \"", buf_str(&test));
		add_literal(out, ti->root);
		buf_addf(out, "%s\" [E=CGISNAP_FOUND:1" SPLIT_FLAGS "]\n", buf_str(&file));
		buf_release(&file);
		buf_release(&test);
	}
	buf_adds(out, "    RewriteCond %{ENV:CGISNAP_FOUND} !=1\n"
		      "    RewriteCond %{ENV:CGISNAP_Q} .\n"
		      "    RewriteRule ^ - [R=404]\n"
		      "    # \"/a/\" is a/index.html.\n");
	rule(out, ti, "^/(?:.*/)?$", "$0index.html");
	buf_adds(out, "    # \"/a/b.css\" (a dot in the last segment) is the file a/b.css.\n");
	rule(out, ti, "^/(?:.*/)?[^/]*\\.[^/]*$", "$0");
	buf_adds(out, "    # \"/a/b\" (no dot) is the directory a/b/: a 301 to \"/a/b/\" when it has\n"
		      "    # its index.html (as the dynamic site and cgisnap serve answer), else 404.\n"
		      "    # The Location has the path as it came.\n"
		      "    RewriteCond %{ENV:CGISNAP_FOUND} !=1\n    RewriteCond \"");
	add_literal(out, ti->root);
	buf_adds(out, "$0/index.html\" -f\n"
		      "    RewriteCond %{THE_REQUEST} \"^\\S+\\s+(?:[a-z][a-z0-9+.-]*://[^/?\\s]*)?([^?\\s]*)\" [NC]\n"
		      "    RewriteRule \"^/(?:.*/)?[^/.]+$\" \"");
	add_literal(out, ti->site.origin);
	buf_adds(out, "%1/\" [R=301,NE,QSD,L]\n");
	buf_adds(out, "    RewriteCond %{ENV:CGISNAP_FOUND} !=1\n"
		      "    RewriteRule ^ - [R=404]\n");
}

/* Step 4 with --origin-fallback: each miss ("- [R=404]") passed to the
 * live application by mod_proxy_http ([P]), the path as it came and the
 * query as the policy left it; the answer goes out as it came (no
 * Cache-Control of ours, nothing compressed by mod_deflate). */
static void write_rules_fallback(struct buf *out, const struct treeinfo *ti, const struct config_params *p)
{
	struct buf rules = BUF_INIT, to = BUF_INIT;
	write_rules(&rules, ti);
	buf_adds(&to, "\n    RewriteCond %{THE_REQUEST} \"^\\S+\\s+(?:[a-z][a-z0-9+.-]*://[^/?\\s]*)?([^?\\s]*)\" [NC]\n"
		      "    RewriteRule \\1 \"http://");
	add_literal(&to, p->fallback);
	buf_adds(&to, "%1?%{ENV:CGISNAP_Q}\" [P,NE,E=CGISNAP_ORIGIN:1,E=no-gzip:1]\n");
	buf_adds(out, "    # (--origin-fallback: each 404 of these rules is the live application's\n"
		      "    # answer instead, by mod_proxy_http; recorded statuses stay.)\n");
	/* Each "    RewriteRule PATTERN - [R=404]" line, whole. */
	const char *c = buf_str(&rules);
	while (*c) {
		const char *eol = strchr(c, '\n');
		size_t n = eol ? (size_t)(eol - c) : strlen(c);
		const char *rr = "    RewriteRule ", *miss = " - [R=404]";
		if (n > strlen(rr) + strlen(miss) && !strncmp(c, rr, strlen(rr)) &&
		    !strncmp(c + n - strlen(miss), miss, strlen(miss))) {
			const char *pat = c + strlen(rr);
			size_t plen = n - strlen(rr) - strlen(miss);
			const char *t = buf_str(&to);
			const char *ref = strstr(t, "\\1");
			buf_add(out, t + 1, (size_t)(ref - t - 1));
			buf_add(out, pat, plen);
			buf_adds(out, ref + 2);
		} else {
			buf_add(out, c, n);
			buf_addc(out, '\n');
		}
		c += n + (eol != NULL);
	}
	buf_release(&rules);
	buf_release(&to);
}

/* Step 5: FILE.gz and the content type of what was found. */
static void write_delivery(struct buf *out, const struct treeinfo *ti)
{
	const char *type, *exts;
	struct buf root_re = BUF_INIT;
	buf_adds(&root_re, "^");
	config_regex_escape(&root_re, ti->root);
	buf_adds(&root_re, "/(.*)$");

	buf_adds(out, "    # 5. FILE.gz, when there is one, to clients that accept gzip, with\n"
		      "    # FILE's type. Nothing is compressed on the fly, as with cgisnap serve:\n"
		      "    # mod_deflate (on in Debian) stays out.\n"
		      "    RewriteRule ^ - [E=no-gzip:1]\n    RewriteCond \"");
	add_literal(out, ti->root);
	buf_addf(out, "/$1.gz\" -f\n    RewriteRule \"%s\" - [E=CGISNAP_VARY:1]\n", buf_str(&root_re));
	buf_addf(out, "    RewriteCond %%{ENV:CGISNAP_VARY} =1\n"
		      "    RewriteCond %%{HTTP:Accept-Encoding} \"%s\" [NC]\n"
		      "    RewriteRule \"%s\" \"",
		 ACCEPTS_GZIP_RE, buf_str(&root_re));
	add_literal(out, ti->root);
	buf_adds(out, "/$1.gz?\" [E=CGISNAP_GZ:1" SPLIT_FLAGS "]\n");
	for (size_t i = 0; i < config_type_groups(i, &type, &exts); i++) {
		/* snapshot writes FILE.gz only for these. */
		if (!mime_compressible(type))
			continue;
		buf_adds(out, "    RewriteCond %{ENV:CGISNAP_GZ} =1\n"
			      "    RewriteCond %{ENV:CGISNAP_TYPE} ^$\n");
		buf_addf(out, "    RewriteRule \"(?i)\\.(?:%s)\\.gz$\" - \"[T=%s]\"\n", exts, type);
	}
	buf_adds(out, "    # The recorded type of a listed page.\n"
		      "    RewriteCond %{ENV:CGISNAP_TYPE} !^$\n"
		      "    RewriteRule ^ - [T=%{ENV:CGISNAP_TYPE}]\n");
	buf_release(&root_re);
}

void apache_write(struct buf *out, struct config_maps *maps, const struct treeinfo *ti,
		  const struct config_params *p)
{
	/* The map lines first: write_rewrite_maps names only the files
	 * that have some. */
	struct buf recorded = BUF_INIT;
	if (p->map_prefix) {
		struct strlist from = STRLIST_INIT, to = STRLIST_INIT;
		config_query_orders(ti, &from, &to);
		for (size_t i = 0; i < from.n; i++)
			buf_addf(&maps->query, "%s %s\n", from.items[i], to.items[i]);
		strlist_clear(&from);
		strlist_clear(&to);
	}
	write_recorded(&recorded, maps, ti, p);

	write_header(out, ti, p);
	if (p->port == 80)
		buf_adds(out, "# Debian's ports.conf listens on port 80 already.\n# Listen 80\n\n");
	else
		buf_addf(out, "# Drop this line if another file listens there already.\nListen %s%s%ld\n\n",
			 strcmp(p->host, "*") ? p->host : "", strcmp(p->host, "*") ? ":" : "", p->port);
	buf_addf(out, "<VirtualHost %s:%ld>\n    ServerName %s\n", p->host, p->port, p->server_name);
	for (size_t i = 0; i < p->aliases.n; i++)
		buf_addf(out, "    ServerAlias %s\n", p->aliases.items[i]);
	buf_adds(out, "    DocumentRoot ");
	quote(out, ti->root);
	buf_adds(out, "\n    # \"/a//b\" is not \"/a/b\".\n    MergeSlashes Off\n"
		      "    # \"/x%2Fy\" is the file x%2Fy/index.html, not x/y/index.html: without\n"
		      "    # this Apache answers 404 itself before any rule; with it the URL-path\n"
		      "    # keeps an encoded '/' as \"%2F\", which only the listed URLs match.\n"
		      "    AllowEncodedSlashes NoDecode\n\n");
	write_rewrite_maps(out, maps, p);
	write_directory(out, ti);
	write_headers(out, ti, p);
	write_guards(out, ti);
	write_policy(out, maps, ti, p);
	buf_add(out, recorded.data, recorded.len);
	buf_release(&recorded);
	if (p->fallback)
		write_rules_fallback(out, ti, p);
	else
		write_rules(out, ti);
	write_delivery(out, ti);
	buf_adds(out, "</VirtualHost>\n");
}
