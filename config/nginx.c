/* config/nginx.c - the nginx configuration for a tree: http-level maps
 * (per-URL answers keyed by "$uri?$args", held to the exact key although
 * nginx compares map strings ignoring case) and one server block whose
 * rules find every other file the way urlkey.h names it. */
#include <ctype.h>
#include <string.h>

#include "config.h"
#include "base/hashmap.h"
#include "base/log.h"

/* The statuses nginx's "return CODE URL" sends with a Location. */
static const int redirect_codes[] = { 301, 302, 303, 307, 308 };

/* Append s quoted for nginx: '"' and '\' escaped. */
static void quote(struct buf *out, const char *s)
{
	buf_addc(out, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			buf_addc(out, '\\');
		buf_addc(out, *s);
	}
	buf_addc(out, '"');
}

/* Append s quoted as a value nginx expands (a map value, a rewrite): a
 * '$' there would start a variable, so it is written as the variable
 * $cgisnap_ID_dollar, which holds "$". */
static void quote_value(struct buf *out, const char *s, const char *id)
{
	buf_addc(out, '"');
	for (; *s; s++) {
		if (*s == '$')
			buf_addf(out, "${cgisnap_%s_dollar}", id);
		else if (*s == '"' || *s == '\\')
			buf_addc(out, '\\'), buf_addc(out, *s);
		else
			buf_addc(out, *s);
	}
	buf_addc(out, '"');
}

/* Append the map key of an entry: what "$uri?$args" holds for it. */
static void map_key(struct buf *out, const struct ti_entry *e)
{
	struct buf k = BUF_INIT;
	buf_addf(&k, "%s?%s", e->path, e->query ? e->query : "");
	quote(out, buf_str(&k));
	buf_release(&k);
}

/* True for an entry whose text cannot be written (control bytes, which
 * no canonical target has): it is left out. */
static bool entry_unquotable(const struct ti_entry *e)
{
	return config_unquotable(e->path) || (e->query && config_unquotable(e->query)) ||
	       (e->location && config_unquotable(e->location)) || (e->key && config_unquotable(e->key));
}

/* True for an entry with an encoded '/' in its path: $uri decodes it
 * ("/x%2Fy" and "/x/y" would be one map key), so write_slashed matches it
 * on $request_uri instead of the maps. */
static bool entry_slashed(const struct ti_entry *e)
{
	return treeinfo_encoded_slash(e->target);
}

/* Append to k the map key of e lowercased: what nginx compares. */
static void lower_key(struct buf *k, const struct ti_entry *e)
{
	for (const char *c = e->path; *c; c++)
		buf_addc(k, (char)tolower((unsigned char)*c));
	buf_addc(k, '?');
	for (const char *c = e->query ? e->query : ""; *c; c++)
		buf_addc(k, (char)tolower((unsigned char)*c));
}

/* Fill first (lowercased key -> entry) with the first entry of each key
 * the maps can hold: nginx refuses a map with two keys alike but for case. */
static void index_keys(struct hashmap *first, const struct treeinfo *ti)
{
	const struct ti_list *lists[] = { &ti->redirects, &ti->statuses, &ti->files };
	for (size_t l = 0; l < 3; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			const struct ti_entry *e = &lists[l]->items[i];
			if (entry_unquotable(e) || entry_slashed(e))
				continue;
			struct buf k = BUF_INIT;
			lower_key(&k, e);
			if (!hashmap_get(first, buf_str(&k)))
				hashmap_put(first, buf_str(&k), (void *)e);
			buf_release(&k);
		}
}

/* True for an entry whose key is an earlier one's but for case: the maps
 * cannot hold it, so write_exact matches it on $request_uri. */
static bool entry_twin(const struct hashmap *first, const struct ti_entry *e)
{
	if (entry_unquotable(e) || entry_slashed(e))
		return false;
	struct buf k = BUF_INIT;
	lower_key(&k, e);
	bool twin = hashmap_get(first, buf_str(&k)) != e;
	buf_release(&k);
	return twin;
}

/* True for an entry the maps list. */
static bool entry_mapped(const struct hashmap *first, const struct ti_entry *e)
{
	return !entry_unquotable(e) && !entry_slashed(e) && !entry_twin(first, e);
}

/* True for the statuses "return CODE URL" can send. */
static bool is_redirect_code(int status)
{
	for (size_t i = 0; i < sizeof redirect_codes / sizeof redirect_codes[0]; i++)
		if (redirect_codes[i] == status)
			return true;
	return false;
}

/* How many entries of l have status. */
static size_t count_status(const struct ti_list *l, int status)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->items[i].status == status;
	return n;
}

/* True when a map value will hold a '$' (see quote_value). */
static bool has_dollar(const struct treeinfo *ti)
{
	for (size_t i = 0; i < ti->site.ncanonical; i++)
		if (strchr(ti->site.canonical[i].url, '$'))
			return true;
	for (size_t i = 0; i < ti->redirects.n; i++)
		if (strchr(ti->redirects.items[i].location, '$'))
			return true;
	for (size_t i = 0; i < ti->files.n; i++)
		if (strchr(ti->files.items[i].key, '$'))
			return true;
	/* The map of exact keys (write_case_map) has them as values. */
	const struct ti_list *lists[] = { &ti->redirects, &ti->statuses, &ti->files };
	for (size_t l = 0; l < 3; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			const struct ti_entry *e = &lists[l]->items[i];
			if (strchr(e->path, '$') || (e->query && strchr(e->query, '$')))
				return true;
		}
	return false;
}

/* The smallest power of two >= n. */
static size_t next_pow2(size_t n)
{
	size_t p = 1;
	while (p < n)
		p <<= 1;
	return p;
}

/* nginx builds each map into a hash whose buckets (64 bytes by default)
 * must hold its longest key: say how much room the maps need when the
 * defaults are too small. */
static void hash_sizes(struct buf *out, const struct treeinfo *ti, const struct strlist *orders)
{
	const struct ti_list *lists[] = { &ti->redirects, &ti->statuses, &ti->files };
	/* The map of exact keys holds the entries of all three lists. */
	size_t longest = 0, most = ti->redirects.n + ti->statuses.n + ti->files.n;
	most = orders->n > most ? orders->n : most;
	for (size_t i = 0; i < orders->n; i++)
		longest = strlen(orders->items[i]) > longest ? strlen(orders->items[i]) : longest;
	for (size_t l = 0; l < 3; l++) {
		for (size_t i = 0; i < lists[l]->n; i++) {
			const struct ti_entry *e = &lists[l]->items[i];
			size_t len = strlen(e->path) + 1 + (e->query ? strlen(e->query) : 0);
			longest = len > longest ? len : longest;
		}
	}
	/* An element is a pointer and the key padded to 8 bytes; a bucket
	 * ends with a pointer. nginx tries hash sizes up to the maximum
	 * until no bucket overflows: room for one key per bucket, and a
	 * hash a few times larger than the map, suffice. */
	size_t element = 8 + ((longest + 2 + 7) & ~(size_t)7);
	size_t bucket = next_pow2(element + 8);
	size_t max = next_pow2(4 * most);
	if (bucket <= 64 && max <= 2048)
		return;
	bucket = bucket < 64 ? 64 : bucket;
	max = max < 2048 ? 2048 : max;
	buf_adds(out, "# This tree's URLs are too long or too many for nginx's default map hash\n"
		      "# sizes. These are http-level settings for every map: when several\n"
		      "# cgisnap configurations are included, keep one copy with the largest values.\n");
	buf_addf(out, "map_hash_bucket_size %zu;\nmap_hash_max_size %zu;\n\n", bucket, max);
}

/* nginx matches a map's strings ignoring case ("/?P=5" finds the entry
 * of "/?p=5"), cgisnap serve matches URLs exactly: the map of exact keys
 * gives the key of the entry a request found, and $cgisnap_ID_case is "!"
 * when that is not the request itself; the maps of answers are keyed by
 * "$cgisnap_ID_case$uri?$args", so an inexact request finds none of them
 * and goes on to the rules, which match file names exactly. */
static void write_case_map(struct buf *out, const struct treeinfo *ti, const struct config_params *p,
			   const struct hashmap *first)
{
	const struct ti_list *lists[] = { &ti->redirects, &ti->statuses, &ti->files };
	buf_adds(out, "# The exact key of the entry a request finds (nginx compares map strings\n"
		      "# ignoring case), and \"!\" when the request is not it: the maps below\n"
		      "# answer only the URL as recorded, as cgisnap serve does.\n");
	buf_addf(out, "map \"$uri?$args\" $cgisnap_%s_key {\n", p->id);
	for (size_t l = 0; l < 3; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			const struct ti_entry *e = &lists[l]->items[i];
			if (!entry_mapped(first, e))
				continue;
			struct buf k = BUF_INIT;
			buf_addf(&k, "%s?%s", e->path, e->query ? e->query : "");
			buf_adds(out, "    ");
			quote(out, buf_str(&k));
			buf_adds(out, " ");
			quote_value(out, buf_str(&k), p->id);
			buf_adds(out, ";\n");
			buf_release(&k);
		}
	buf_adds(out, "}\n");
	buf_addf(out, "map \"$cgisnap_%s_key|$uri?$args\" $cgisnap_%s_case {\n"
		      "    \"~^(.*)\\|\\1$\" \"\";\n    default \"!\";\n}\n\n",
		 p->id, p->id);
}

/* The orders of the tree's queries that the map of orders can hold:
 * nginx compares map strings ignoring case and refuses two keys alike but
 * for case (the first is kept; write_policy holds it to the exact key),
 * and reads a key starting with '~' as a regex. from and to in step. */
static void nginx_orders(const struct treeinfo *ti, struct strlist *from, struct strlist *to)
{
	struct strlist all_from = STRLIST_INIT, all_to = STRLIST_INIT;
	struct hashmap seen = HASHMAP_INIT;
	config_query_orders(ti, &all_from, &all_to);
	for (size_t i = 0; i < all_from.n; i++) {
		const char *f = all_from.items[i];
		struct buf k = BUF_INIT;
		for (const char *c = f; *c; c++)
			buf_addc(&k, (char)tolower((unsigned char)*c));
		if (f[0] != '~' && !config_unquotable(f) && !hashmap_get(&seen, buf_str(&k))) {
			hashmap_put(&seen, buf_str(&k), (void *)1);
			strlist_add(from, f);
			strlist_add(to, all_to.items[i]);
		}
		buf_release(&k);
	}
	hashmap_release(&seen);
	strlist_clear(&all_from);
	strlist_clear(&all_to);
}

/* The name of the variable holding the query as the policy leaves it
 * (write_policy), which the server block sets $args to. */
#define POLICY_ARGS "$cgisnap_%s_args"

/* The tree's query policy as maps: $cgisnap_ID_q1 .. _qN drop one
 * parameter each (an empty one, or an ignored name), then the map of
 * orders gives the sorted form of the queries the tree holds; the result
 * is $cgisnap_ID_args. */
static void write_policy(struct buf *out, const struct treeinfo *ti, const struct config_params *p,
			 const struct strlist *from, const struct strlist *to)
{
	if (!config_query_policy(&ti->site))
		return;
	struct buf re = BUF_INIT, prev = BUF_INIT;
	config_drop_regex(&ti->site, &re);
	buf_adds(out, "# The tree's query policy, as cgisnap serve applies it (--ignore-param");
	for (size_t i = 0; i < ti->site.ignore_params.n; i++)
		buf_addf(out, " %s", ti->site.ignore_params.items[i]);
	buf_addf(out, "%s):\n# each map drops one empty or ignored parameter (at most %d in all).\n",
		 ti->site.sort_query ? ", --sort-query" : "", CONFIG_QUERY_DROPS);
	buf_adds(&prev, "$args");
	for (int k = 1; k <= CONFIG_QUERY_DROPS; k++) {
		struct buf key = BUF_INIT;
		buf_addf(&key, "~%s", buf_str(&re));
		buf_addf(out, "map %s $cgisnap_%s_q%d {\n    ", buf_str(&prev), p->id, k);
		quote(out, buf_str(&key));
		buf_addf(out, " \"$1$2\";\n    default %s;\n}\n", buf_str(&prev));
		buf_release(&key);
		buf_reset(&prev);
		buf_addf(&prev, "$cgisnap_%s_q%d", p->id, k);
	}
	if (from->n) {
		buf_addf(out, "# --sort-query: the other orders of the queries this tree holds (of %d\n"
			      "# parameters or fewer), as \"ORDER SORTED\"; the map after it takes\n"
			      "# SORTED only when ORDER is the query exactly (maps ignore case).\n",
			 CONFIG_SORT_MAX_PARAMS);
		buf_addf(out, "map %s $cgisnap_%s_order {\n", buf_str(&prev), p->id);
		for (size_t i = 0; i < from->n; i++) {
			struct buf v = BUF_INIT;
			buf_addf(&v, "%s %s", from->items[i], to->items[i]);
			buf_adds(out, "    ");
			quote(out, from->items[i]);
			buf_adds(out, " ");
			quote_value(out, buf_str(&v), p->id);
			buf_adds(out, ";\n");
			buf_release(&v);
		}
		buf_adds(out, "}\n");
		buf_addf(out, "map \"$cgisnap_%s_order %s\" " POLICY_ARGS " {\n"
			      "    \"~^(?<cgisnap_%s_of>\\\\S*) (?<cgisnap_%s_sorted>\\\\S*) \\\\k<cgisnap_%s_of>$\" "
			      "$cgisnap_%s_sorted;\n    default %s;\n}\n\n",
			 p->id, buf_str(&prev), p->id, p->id, p->id, p->id, p->id, buf_str(&prev));
	} else {
		buf_addf(out, "map %s " POLICY_ARGS " {\n    default %s;\n}\n\n", buf_str(&prev), p->id,
			 buf_str(&prev));
	}
	buf_release(&re);
	buf_release(&prev);
}

/* The http-level part: hash sizes, the query policy, the maps of recorded
 * answers and the Cache-Control by status. */
static void write_maps(struct buf *out, const struct treeinfo *ti, const struct config_params *p,
		       const struct hashmap *first, const struct strlist *from, const struct strlist *to)
{
	hash_sizes(out, ti, from);
	write_policy(out, ti, p, from, to);
	bool dollar = has_dollar(ti);
	for (size_t i = 0; i < from->n; i++)
		dollar = dollar || strchr(from->items[i], '$');
	if (dollar) {
		buf_adds(out, "# \"$\" in a value below: nginx would read it as a variable.\n");
		buf_addf(out, "geo $cgisnap_%s_dollar {\n    default \"$\";\n}\n\n", p->id);
	}
	if (ti->redirects.n || ti->statuses.n || ti->files.n)
		write_case_map(out, ti, p, first);
	for (size_t c = 0; c < sizeof redirect_codes / sizeof redirect_codes[0]; c++) {
		int code = redirect_codes[c];
		if (!count_status(&ti->redirects, code))
			continue;
		buf_addf(out, "# Recorded %d redirects: \"decoded path?raw query\" -> Location.\n", code);
		buf_addf(out, "map \"$cgisnap_%s_case$uri?$args\" $cgisnap_%s_%d {\n", p->id, p->id, code);
		for (size_t i = 0; i < ti->redirects.n; i++) {
			const struct ti_entry *e = &ti->redirects.items[i];
			if (e->status != code || !entry_mapped(first, e))
				continue;
			buf_adds(out, "    ");
			map_key(out, e);
			buf_adds(out, " ");
			quote_value(out, e->location, p->id);
			buf_adds(out, ";\n");
		}
		buf_adds(out, "}\n\n");
	}
	for (size_t i = 0; i < ti->redirects.n; i++) {
		const struct ti_entry *e = &ti->redirects.items[i];
		if (!is_redirect_code(e->status))
			config_comment(out, "", "not replayed: %d for %s (nginx sends a Location only "
				       "with 301, 302, 303, 307 and 308)", e->status, e->target);
	}
	if (ti->statuses.n) {
		buf_adds(out, "# Recorded 404 and 410 answers (and pages whose render failed: 404).\n");
		buf_addf(out, "map \"$cgisnap_%s_case$uri?$args\" $cgisnap_%s_status {\n", p->id, p->id);
		for (size_t i = 0; i < ti->statuses.n; i++) {
			const struct ti_entry *e = &ti->statuses.items[i];
			if (!entry_mapped(first, e))
				continue;
			buf_adds(out, "    ");
			map_key(out, e);
			buf_addf(out, " %d;\n", e->status);
		}
		buf_adds(out, "}\n\n");
	}
	if (ti->files.n) {
		buf_adds(out, "# Pages the rules below would miss, or that need their recorded content\n"
			      "# type: \"N/FILE\", served by location /.cgisnap-file/N/ (N = 0: the\n"
			      "# type by extension).\n");
		buf_addf(out, "map \"$cgisnap_%s_case$uri?$args\" $cgisnap_%s_file {\n", p->id, p->id);
		for (size_t i = 0; i < ti->files.n; i++) {
			const struct ti_entry *e = &ti->files.items[i];
			if (!entry_mapped(first, e) ||
			    (e->type && config_unquotable(ti->types.items[e->type - 1])))
				continue;
			struct buf v = BUF_INIT;
			buf_addf(&v, "%d/%s", e->type, e->key);
			buf_adds(out, "    ");
			map_key(out, e);
			buf_adds(out, " ");
			quote_value(out, buf_str(&v), p->id);
			buf_adds(out, ";\n");
			buf_release(&v);
		}
		buf_adds(out, "}\n\n");
	}
	if (p->fallback)
		buf_addf(out, "# --origin-fallback: the live application.\n"
			      "upstream cgisnap_%s_origin {\n    server %s;\n}\n\n",
			 p->id, p->fallback);
	buf_adds(out, "# The path of the request as it came (the Location of a slash form).\n");
	buf_addf(out, "map $request_uri $cgisnap_%s_path {\n    \"~^(?<cgisnap_%s_raw>[^?]*)\" "
		      "$cgisnap_%s_raw;\n}\n\n",
		 p->id, p->id, p->id);
	if (p->cache_control) {
		buf_adds(out, "# Cache-Control as cgisnap serve sends it: on files, 304s and permanent\n"
			      "# redirects; \"no-cache\" on the 404 page.\n");
		buf_addf(out, "map $status $cgisnap_%s_cache_control {\n", p->id);
		static const int cached[] = { 200, 206, 304, 301, 308 };
		for (size_t i = 0; i < sizeof cached / sizeof cached[0]; i++)
			buf_addf(out, "    %d \"%s\";\n", cached[i], p->cache_control);
		buf_adds(out, "    404 \"no-cache\";\n    410 \"no-cache\";\n    default \"\";\n}\n\n");
	}
}

/* The comment at the top: what this is, where it goes, when to
 * regenerate it. */
static void write_header(struct buf *out, const struct treeinfo *ti, const struct config_params *p)
{
	config_comment(out, "", "nginx configuration for the cgisnap tree %s (%s),", ti->dir, ti->site.url);
	config_comment(out, "", "written by cgisnap %s: cgisnap config nginx DIR", p->version);
	buf_adds(out, "#\n"
		      "# Include it at http level: put it in /etc/nginx/sites-available/NAME and\n"
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
		quote(out, type);
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
		quote(out, buf_str(&pattern));
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
	if (entry_unquotable(e) || strchr(e->target, '$') || (e->location && strchr(e->location, '$')) ||
	    (e->key && strchr(e->key, '$')) || (type && config_unquotable(type))) {
		config_comment(out, "    ", "not listed: %s (a '$' or a control byte)", e->target);
		return;
	}
	buf_adds(out, "    if ($request_uri = ");
	quote(out, e->target);
	buf_adds(out, ") {\n        ");
	if (e->location) {
		buf_addf(out, "return %d ", e->status);
		quote(out, e->location);
		buf_adds(out, ";\n");
	} else if (!e->key) {
		buf_addf(out, "return %d;\n", e->status);
	} else {
		struct buf v = BUF_INIT;
		buf_addf(&v, "/.cgisnap-file/%d/%s?", e->type, e->key);
		buf_adds(out, "rewrite ^ ");
		quote(out, buf_str(&v));
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
			if (entry_slashed(e) && (l || is_redirect_code(e->status)))
				write_slashed_entry(out, ti, e);
		}
	}
	/* Written before the %2F rule below: a twin may hold an encoded '/'
	 * only in its query, where that rule does not look. */
	bool twins = false;
	for (size_t l = 0; l < 3; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			const struct ti_entry *e = &lists[l]->items[i];
			if (!entry_twin(first, e) || !(l || is_redirect_code(e->status)))
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
	quote(out, buf_str(&anchored));
	buf_adds(out, ") {\n        return 400;\n    }\n");
	buf_release(&anchored);
	buf_release(&re);
	if (config_query_policy(&ti->site))
		buf_addf(out, "    # 1c. The query as the tree's policy leaves it (the maps above): what\n"
			      "    # every step below reads, as cgisnap serve canonicalises a request.\n"
			      "    set $args " POLICY_ARGS ";\n",
			 p->id);
	write_canonical(out, ti, p);
	write_slashed(out, ti, first);
	bool any = ti->redirects.n || ti->statuses.n || ti->files.n;
	if (any)
		buf_adds(out, "    # 2b. What the tree recorded for exact URLs (the maps above), dotfile\n"
			      "    # names included (\"/.well-known/x\" is the file %2Ewell-known/x).\n");
	for (size_t c = 0; c < sizeof redirect_codes / sizeof redirect_codes[0]; c++)
		if (count_status(&ti->redirects, redirect_codes[c]))
			buf_addf(out, "    if ($cgisnap_%s_%d) {\n        return %d $cgisnap_%s_%d;\n    }\n",
				 p->id, redirect_codes[c], redirect_codes[c], p->id, redirect_codes[c]);
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
 * quote_value). */
static void add_value(struct buf *out, const char *s, const char *id)
{
	struct buf q = BUF_INIT;
	quote_value(&q, s, id);
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
		quote(out, buf_str(&root));
		buf_adds(out, ";\n");
		if (t && !config_unquotable(ti->types.items[t - 1])) {
			buf_adds(out, "        types {\n        }\n        default_type ");
			quote(out, ti->types.items[t - 1]);
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
	index_keys(&first, ti);
	nginx_orders(ti, &from, &to);
	write_header(out, ti, p);
	write_maps(out, ti, p, &first, &from, &to);

	buf_adds(out, "server {\n");
	buf_addf(out, "    listen %s:%ld;\n    server_name %s", p->host, p->port, p->server_name);
	for (size_t i = 0; i < p->aliases.n; i++)
		buf_addf(out, " %s", p->aliases.items[i]);
	buf_adds(out, ";\n    root ");
	quote(out, ti->root);
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
		quote(out, buf_str(&meta));
		buf_adds(out, ";\n        gzip_static off;\n        try_files /404.html =404;\n    }\n");
		buf_release(&meta);
	}
	buf_adds(out, "}\n");
	hashmap_release(&first);
	strlist_clear(&from);
	strlist_clear(&to);
}
