/* config/nginx.c - the nginx configuration for a tree: the http-level
 * maps (nginxmaps.c: per-URL answers keyed by "$uri?$args") and one server
 * block whose rules find every other file the way urlkey.h names it. */
#include <string.h>

#include "config.h"
#include "nginx_impl.h"
#include "base/hashmap.h"
#include "base/log.h"

/* The comment at the top: what this is, where it goes, when to
 * regenerate it. */
static void write_header(struct buf *out, const struct treeinfo *ti, const struct config_params *p)
{
	config_header(out, "nginx", "nginx", ti, p);
	buf_adds(out, "# Include it at http level: put it in /etc/nginx/sites-available/NAME and\n"
		      "# run ln -s ../sites-available/NAME /etc/nginx/sites-enabled/ (Debian's\n"
		      "# nginx.conf includes those inside http {}): map blocks are only allowed\n"
		      "# there. No module beyond nginx's default build is needed (map, rewrite,\n"
		      "# gzip_static; Debian's nginx has them all).\n"
		      "#\n"
		      "# REGENERATE this file and reload nginx when a snapshot or watch changes\n"
		      "# redirects, recorded 404/410 statuses or content types: they are listed\n"
		      "# per URL below. New and changed pages need nothing: the rules of the\n"
		      "# server block find their files.\n"
		      "#\n"
		      "# The tree's --ignore-param and --sort-query apply as with cgisnap serve,\n"
		      "# but for what cgisnap config --help lists under Limits: queries are not\n"
		      "# normalised, and only the queries the tree holds are sorted.\n");
	if (p->fallback)
		config_comment(out, "", "--origin-fallback %s: what the tree lacks goes there (proxy_pass).",
			       p->fallback);
	config_summary(out, ti);
	buf_adds(out, "\n");
}

/* The types {} block: every extension mime_from_name knows. */
static void write_types(struct buf *out, const char *indent)
{
	const char *type, *exts;
	buf_addf(out, "%s# Types by extension, exactly as cgisnap serve sends them. This replaces\n"
		      "%s# mime.types here rather than adding to it: an extension cgisnap serve\n"
		      "%s# does not know (.zip, .docx) goes out as application/octet-stream, as\n"
		      "%s# there, not with the type mime.types gives it.\n", indent, indent, indent, indent);
	buf_addf(out, "%stypes {\n", indent);
	for (size_t i = 0; i < config_type_groups(i, &type, &exts); i++) {
		buf_addf(out, "%s    ", indent);
		nginx_quote(out, type);
		for (const char *e = exts; *e;) {
			size_t n = strcspn(e, "|");
			buf_addf(out, " %.*s", (int)n, e);
			e += n + (e[n] == '|');
		}
		buf_adds(out, ";\n");
	}
	buf_addf(out, "%s}\n%sdefault_type application/octet-stream;\n\n", indent, indent);
}

/* Whether a template uses $0 (the whole match), which nginx lacks. */
static bool uses_whole_match(const char *tmpl)
{
	for (const char *t = tmpl; *t; t++) {
		if (t[0] == '$' && t[1] == '$')
			t++;
		else if (t[0] == '$' && t[1] == '0')
			return true;
	}
	return false;
}

/* The --canonical rules: a 302 for whatever request they match, crawled
 * or not, the first rule winning, on the raw target ($request_uri). The
 * Location is the site's origin and the template, $N being the if's
 * captures; for $0 the regex is wrapped in a group of its own. */
static void write_canonical(struct buf *out, const struct treeinfo *ti, const struct config_params *p)
{
	if (!ti->site.ncanonical)
		return;
	buf_adds(out, "    # 2. The tree's --canonical rules: a 302 for every URL they match, crawled\n"
		      "    # or not; the first rule wins.\n");
	for (size_t i = 0; i < ti->site.ncanonical; i++) {
		const struct rewrite *rw = &ti->site.canonical[i];
		struct buf re = BUF_INIT, pattern = BUF_INIT, loc = BUF_INIT;
		size_t groups;
		char err[ERR_LEN];
		if (config_canonical_pcre(rw, &re, &groups, err) < 0) { /* config_check_canonical refused it */
			buf_release(&re);
			continue;
		}
		bool whole = uses_whole_match(rw->url);
		buf_addf(&pattern, whole ? "(%s)" : "%s", buf_str(&re));
		config_comment(out, "    ", "--canonical %s", rw->spec);
		buf_adds(out, "    if ($request_uri ~ ");
		nginx_quote(out, buf_str(&pattern));
		buf_adds(out, ") {\n        return 302 \"");
		buf_adds(&loc, ti->site.origin);
		for (const char *t = rw->url; *t; t++) {
			if (t[0] == '$' && t[1] >= '0' && t[1] <= '9') {
				/* Wrapped, the regex has at most 8 groups: $9 is empty. */
				if (!whole || t[1] != '9')
					buf_addf(&loc, "$%c", whole ? t[1] + 1 : t[1]);
				t++;
			} else if (t[0] == '$') {
				buf_addf(&loc, "${cgisnap_%s_dollar}", p->id);
				t += t[1] == '$';
			} else {
				if (*t == '"' || *t == '\\')
					buf_addc(&loc, '\\');
				buf_addc(&loc, *t);
			}
		}
		buf_adds(out, buf_str(&loc));
		buf_adds(out, "\";\n    }\n");
		buf_release(&re);
		buf_release(&pattern);
		buf_release(&loc);
	}
}

/* One "if" for a recorded URL with an encoded '/' in its path, matched
 * as it arrives; a comment for one whose text holds a '$' (the "if"
 * string would expand it) or cannot be quoted. */
static void write_slashed_entry(struct buf *out, const struct treeinfo *ti, const struct ti_entry *e)
{
	const char *type = e->type ? ti->types.items[e->type - 1] : NULL;
	if (nginx_entry_unquotable(e) || strchr(e->target, '$') || (e->location && strchr(e->location, '$')) ||
	    (e->key && strchr(e->key, '$')) || (type && config_unquotable(type))) {
		config_comment(out, "    ", "not listed: %s (a '$' or a control byte)", e->target);
		return;
	}
	buf_adds(out, "    if ($request_uri = ");
	nginx_quote(out, e->target);
	buf_adds(out, ") {\n        ");
	if (e->location) {
		buf_addf(out, "return %d ", e->status);
		nginx_quote(out, e->location);
		buf_adds(out, ";\n");
	} else if (!e->key) {
		buf_addf(out, "return %d;\n", e->status);
	} else {
		struct buf v = BUF_INIT;
		buf_addf(&v, "/.cgisnap-file/%d/%s?", e->type, e->key);
		buf_adds(out, "rewrite ^ ");
		nginx_quote(out, buf_str(&v));
		buf_adds(out, " last;\n");
		buf_release(&v);
	}
	buf_adds(out, "    }\n");
}

/* Step 1b, for the URLs whose path holds an encoded '/' (%2F): "/x%2Fy" is
 * the file x%2Fy/index.html, but $uri holds "/x/y", another URL. Such
 * requests are answered here as listed, else 404, before the maps on $uri
 * or the rules can take them for "/x/y". */
static void write_slashed(struct buf *out, const struct treeinfo *ti, const struct hashmap *first)
{
	const struct ti_list *lists[] = { &ti->redirects, &ti->statuses, &ti->files };
	buf_adds(out, "    # 1b. A path with an encoded '/' (%2F) names one file (\"/x%2Fy\" is\n"
		      "    # x%2Fy/index.html), but $uri decodes it into \"/x/y\", another URL:\n"
		      "    # such requests are answered as recorded, matched as they arrive, or 404.\n");
	for (size_t l = 0; l < 3; l++) {
		for (size_t i = 0; i < lists[l]->n; i++) {
			const struct ti_entry *e = &lists[l]->items[i];
			if (nginx_entry_slashed(e) && (l || nginx_is_redirect_code(e->status)))
				write_slashed_entry(out, ti, e);
		}
	}
	/* Written before the %2F rule below: a twin may hold an encoded '/'
	 * only in its query, where that rule does not look. */
	bool twins = false;
	for (size_t l = 0; l < 3; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			const struct ti_entry *e = &lists[l]->items[i];
			if (!nginx_entry_twin(first, e) || !(l || nginx_is_redirect_code(e->status)))
				continue;
			if (!twins)
				buf_adds(out, "    # URLs alike but for case: nginx's maps (step 2b) ignore case and\n"
					      "    # hold the first; these are matched exactly as they arrive.\n");
			twins = true;
			write_slashed_entry(out, ti, e);
		}
	buf_adds(out, "    if ($request_uri ~* \"^[^?]*%2f\") {\n        return 404;\n    }\n");
}

/* Steps 1 to 3 of the server block, at server level (nginx runs them
 * once, before choosing a location). */
static void write_guards(struct buf *out, const struct treeinfo *ti, const struct config_params *p,
			 const struct hashmap *first)
{
	buf_adds(out, "    # 1. Targets cgisnap serve refuses as malformed or hostile: 400. One\n"
		      "    # regex for all (one match per request), alternatives in this order:\n");
	struct buf re = BUF_INIT;
	config_guards_regex(&re);
	for (const struct config_guard *g = config_bad_targets; g->re; g++)
		buf_addf(out, "    #   %s\n", g->why);
	buf_adds(out, "    if ($request_uri ~* ");
	struct buf anchored = BUF_INIT;
	buf_addf(&anchored, "^[^?]*%s", buf_str(&re));
	nginx_quote(out, buf_str(&anchored));
	buf_adds(out, ") {\n        return 400;\n    }\n");
	buf_release(&anchored);
	buf_release(&re);
	if (config_query_policy(&ti->site))
		buf_addf(out, "    # 1c. The query as the tree's policy leaves it (the maps above): what\n"
			      "    # every step below reads, as cgisnap serve canonicalises a request.\n"
			      "    set $args " NGINX_POLICY_ARGS ";\n",
			 p->id);
	write_canonical(out, ti, p);
	write_slashed(out, ti, first);
	bool any = ti->redirects.n || ti->statuses.n || ti->files.n;
	if (any)
		buf_adds(out, "    # 2b. What the tree recorded for exact URLs (the maps above), dotfile\n"
			      "    # names included (\"/.well-known/x\" is the file %2Ewell-known/x).\n");
	for (size_t c = 0; c < sizeof nginx_redirect_codes / sizeof nginx_redirect_codes[0]; c++)
		if (nginx_count_status(&ti->redirects, nginx_redirect_codes[c]))
			buf_addf(out, "    if ($cgisnap_%s_%d) {\n        return %d $cgisnap_%s_%d;\n    }\n",
				 p->id, nginx_redirect_codes[c], nginx_redirect_codes[c], p->id, nginx_redirect_codes[c]);
	if (ti->statuses.n)
		buf_addf(out, "    if ($cgisnap_%s_status = 404) {\n        return 404;\n    }\n"
			      "    if ($cgisnap_%s_status = 410) {\n        return 410;\n    }\n",
			 p->id, p->id);
	if (ti->files.n)
		buf_addf(out, "    if ($cgisnap_%s_file) {\n"
			      "        rewrite ^ /.cgisnap-file/$cgisnap_%s_file? last;\n    }\n",
			 p->id, p->id);
	buf_adds(out, "    # 3. No other dotfile name is served, nor cgisnap's own .cgisnap/.\n"
		      "    if ($uri ~ \"/\\.\") {\n        return 404;\n    }\n");
}

/* Append s to a quoted string nginx expands, without the quotes (see
 * nginx_quote_value). */
static void add_value(struct buf *out, const char *s, const char *id)
{
	struct buf q = BUF_INIT;
	nginx_quote_value(&q, s, id);
	buf_add(out, q.data + 1, q.len - 2);
	buf_release(&q);
}

/* Step 4: the rules, as locations. */
static void write_rules(struct buf *out, const struct treeinfo *ti, const struct config_params *p)
{
	buf_adds(out, "    # 4. The rules, for every other URL (docs/url-keys.md). An empty segment\n"
		      "    # (\"/a//b\") names no file.\n"
		      "    if ($uri ~ \"//\") {\n        return 404;\n    }\n"
		      "    # A key writes '%', '@' and '#' of the path as %25, %40 and %23 (and a\n"
		      "    # leading '.' as %2E): a path holding them is listed above or is no\n"
		      "    # page (\"/%252Ex\" is not the file %2Ex of \"/.x\").\n"
		      "    if ($uri ~ \"[%@#]\") {\n        return 404;\n    }\n"
		      "    # A query is stored as PATH@QUERY plus a type suffix, with a '/' of the\n"
		      "    # query written %2F: a raw '/' can name no file.\n"
		      "    if ($args ~ \"/\") {\n        return 404;\n    }\n"
		      "    if ($args != \"\") {\n        rewrite ^ /.cgisnap-query$uri last;\n    }\n"
		      "    location ~ \"^/\\.cgisnap-query(?<cgisnap_path>/.*)$\" {\n"
		      "        internal;\n        # The suffixes this tree's query pages use.\n"
		      "        try_files");
	for (size_t i = 0; i < ti->suffixes.n; i++)
		buf_addf(out, " $cgisnap_path@$args%s", ti->suffixes.items[i]);
	buf_adds(out, " =404;\n    }\n"
		      "    # \"/a/\" is a/index.html.\n"
		      "    location ~ \"/$\" {\n        try_files ${uri}index.html =404;\n    }\n"
		      "    # \"/a/b.css\" (a dot in the last segment) is the file a/b.css.\n"
		      "    location ~ \"\\.[^/]*$\" {\n        try_files $uri =404;\n    }\n"
		      "    # \"/a/b\" (no dot) is the directory a/b/: a 301 to \"/a/b/\" when it has\n"
		      "    # its index.html (as the dynamic site and cgisnap serve answer), else 404.\n"
		      "    location / {\n        if (-f $request_filename/index.html) {\n"
		      "            return 301 \"");
	add_value(out, ti->site.origin, p->id);
	buf_addf(out, "$cgisnap_%s_path/\";\n        }\n        return 404;\n    }\n\n", p->id);
}

/* --origin-fallback: the named location that passes a miss to the live
 * application, the target as the tree's policy left it; its answer goes
 * out as it came (its 404 too), without Set-Cookie (cgisnap serve
 * --fallback drops it: the answer may be anyone's). */
static void write_origin(struct buf *out, const struct treeinfo *ti, const struct config_params *p)
{
	(void)ti;
	buf_addf(out, "    # --origin-fallback: what the rules do not find, the live application answers.\n"
		      "    location @cgisnap_%s_origin {\n"
		      "        # Its answer goes out with its own headers: an add_header here\n"
		      "        # (of nothing) keeps the server's Cache-Control off it.\n"
		      "        add_header Cache-Control \"\";\n"
		      "        proxy_pass http://cgisnap_%s_origin$cgisnap_%s_path$is_args$args;\n"
		      "        proxy_set_header Host \"%s\";\n"
		      "        proxy_hide_header Set-Cookie;\n"
		      "        proxy_redirect off;\n"
		      "    }\n\n",
		 p->id, p->id, p->id, p->fallback);
}

/* The internal locations that serve the listed pages, one per type. */
static void write_file_locations(struct buf *out, const struct treeinfo *ti)
{
	if (!ti->files.n)
		return;
	buf_adds(out, "    # The listed pages: /.cgisnap-file/N/FILE is FILE of the tree, sent with\n"
		      "    # type N (0: by extension). Internal: clients get 404 here.\n");
	for (size_t t = 0; t <= ti->types.n; t++) {
		struct buf root = BUF_INIT;
		buf_addf(&root, "%s/", ti->root);
		buf_addf(out, "    location ^~ /.cgisnap-file/%zu/ {\n        internal;\n        alias ", t);
		nginx_quote(out, buf_str(&root));
		buf_adds(out, ";\n");
		if (t && !config_unquotable(ti->types.items[t - 1])) {
			buf_adds(out, "        types {\n        }\n        default_type ");
			nginx_quote(out, ti->types.items[t - 1]);
			buf_adds(out, ";\n");
		}
		buf_adds(out, "    }\n");
		buf_release(&root);
	}
	buf_adds(out, "\n");
}

void nginx_write(struct buf *out, const struct treeinfo *ti, const struct config_params *p)
{
	struct hashmap first = HASHMAP_INIT;
	struct strlist from = STRLIST_INIT, to = STRLIST_INIT;
	nginx_index_keys(&first, ti);
	nginx_orders(ti, &from, &to);
	write_header(out, ti, p);
	nginx_write_maps(out, ti, p, &first, &from, &to);

	buf_adds(out, "server {\n");
	buf_addf(out, "    listen %s:%ld;\n    server_name %s", p->host, p->port, p->server_name);
	for (size_t i = 0; i < p->aliases.n; i++)
		buf_addf(out, " %s", p->aliases.items[i]);
	buf_adds(out, ";\n    root ");
	nginx_quote(out, ti->root);
	buf_adds(out, ";\n\n");
	write_types(out, "    ");
	buf_adds(out, "    # FILE.gz (written by snapshot beside each compressible page) goes to\n"
		      "    # clients that accept gzip; nothing is compressed on the fly, as with\n"
		      "    # cgisnap serve (Debian's nginx.conf turns gzip on).\n"
		      "    gzip off;\n    gzip_static on;\n    gzip_vary on;\n    gzip_proxied any;\n"
		      "    gzip_http_version 1.0;\n"
		      "    # \"/a//b\" is not \"/a/b\" (nginx takes this from the default server of\n"
		      "    # the address).\n"
		      "    merge_slashes off;\n");
	if (p->cache_control)
		buf_addf(out, "    add_header Cache-Control $cgisnap_%s_cache_control always;\n", p->id);
	if (ti->have_404) {
		buf_addf(out, "    # The site's 404 page (.cgisnap/404.html), also for 410s.\n"
			      "    error_page 404 410 @cgisnap_%s_404;\n", p->id);
	}
	if (p->fallback) {
		buf_addf(out, "    # A miss of the rules (step 4) goes to the live application.\n"
			      "    error_page 418 = @cgisnap_%s_origin;\n",
			 p->id);
	}
	buf_adds(out, "\n");
	write_guards(out, ti, p, &first);
	if (p->fallback) {
		/* Step 4 is ours: its misses become the origin's. */
		struct buf rules = BUF_INIT;
		write_rules(&rules, ti, p);
		buf_adds(out, "    # (--origin-fallback: the 404s of these rules are 418s that error_page\n"
			      "    # sends to the live application; recorded statuses stay 404/410.)\n");
		for (const char *c = buf_str(&rules); *c;) {
			if (!strncmp(c, "return 404;", 11) || !strncmp(c, "=404;", 5)) {
				const char *three = strstr(c, "404");
				buf_add(out, c, (size_t)(three - c));
				buf_adds(out, "418");
				c = three + 3;
			} else {
				buf_addc(out, *c++);
			}
		}
		buf_release(&rules);
		write_origin(out, ti, p);
	} else {
		write_rules(out, ti, p);
	}
	write_file_locations(out, ti);
	if (ti->have_404) {
		struct buf meta = BUF_INIT;
		buf_addf(&meta, "%s/.cgisnap", ti->root);
		buf_addf(out, "    location @cgisnap_%s_404 {\n        root ", p->id);
		nginx_quote(out, buf_str(&meta));
		buf_adds(out, ";\n        gzip_static off;\n        try_files /404.html =404;\n    }\n");
		buf_release(&meta);
	}
	buf_adds(out, "}\n");
	hashmap_release(&first);
	strlist_clear(&from);
	strlist_clear(&to);
}
