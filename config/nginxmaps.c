/* config/nginxmaps.c - the http-level part of the nginx configuration
 * (nginx_impl.h): hash sizes, the query policy, the maps of recorded
 * answers, held to the exact key although nginx compares map strings
 * ignoring case, and the Cache-Control by status. */
#include <ctype.h>
#include <string.h>

#include "config.h"
#include "nginx_impl.h"
#include "base/hashmap.h"

/* True when a map value will hold a '$' (see nginx_quote_value). */
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
			if (!nginx_entry_mapped(first, e))
				continue;
			struct buf k = BUF_INIT;
			buf_addf(&k, "%s?%s", e->path, e->query ? e->query : "");
			buf_adds(out, "    ");
			nginx_quote(out, buf_str(&k));
			buf_adds(out, " ");
			nginx_quote_value(out, buf_str(&k), p->id);
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
void nginx_orders(const struct treeinfo *ti, struct strlist *from, struct strlist *to)
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
		nginx_quote(out, buf_str(&key));
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
			nginx_quote(out, from->items[i]);
			buf_adds(out, " ");
			nginx_quote_value(out, buf_str(&v), p->id);
			buf_adds(out, ";\n");
			buf_release(&v);
		}
		buf_adds(out, "}\n");
		buf_addf(out, "map \"$cgisnap_%s_order %s\" " NGINX_POLICY_ARGS " {\n"
			      "    \"~^(?<cgisnap_%s_of>\\\\S*) (?<cgisnap_%s_sorted>\\\\S*) \\\\k<cgisnap_%s_of>$\" "
			      "$cgisnap_%s_sorted;\n    default %s;\n}\n\n",
			 p->id, buf_str(&prev), p->id, p->id, p->id, p->id, p->id, buf_str(&prev));
	} else {
		buf_addf(out, "map %s " NGINX_POLICY_ARGS " {\n    default %s;\n}\n\n", buf_str(&prev), p->id,
			 buf_str(&prev));
	}
	buf_release(&re);
	buf_release(&prev);
}

/* The http-level part: hash sizes, the query policy, the maps of recorded
 * answers and the Cache-Control by status. */
void nginx_write_maps(struct buf *out, const struct treeinfo *ti, const struct config_params *p,
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
	for (size_t c = 0; c < sizeof nginx_redirect_codes / sizeof nginx_redirect_codes[0]; c++) {
		int code = nginx_redirect_codes[c];
		if (!nginx_count_status(&ti->redirects, code))
			continue;
		buf_addf(out, "# Recorded %d redirects: \"decoded path?raw query\" -> Location.\n", code);
		buf_addf(out, "map \"$cgisnap_%s_case$uri?$args\" $cgisnap_%s_%d {\n", p->id, p->id, code);
		for (size_t i = 0; i < ti->redirects.n; i++) {
			const struct ti_entry *e = &ti->redirects.items[i];
			if (e->status != code || !nginx_entry_mapped(first, e))
				continue;
			buf_adds(out, "    ");
			nginx_map_key(out, e);
			buf_adds(out, " ");
			nginx_quote_value(out, e->location, p->id);
			buf_adds(out, ";\n");
		}
		buf_adds(out, "}\n\n");
	}
	for (size_t i = 0; i < ti->redirects.n; i++) {
		const struct ti_entry *e = &ti->redirects.items[i];
		if (!nginx_is_redirect_code(e->status))
			config_comment(out, "", "not replayed: %d for %s (nginx sends a Location only "
				       "with 301, 302, 303, 307 and 308)", e->status, e->target);
	}
	if (ti->statuses.n) {
		buf_adds(out, "# Recorded 404 and 410 answers (and pages whose render failed: 404).\n");
		buf_addf(out, "map \"$cgisnap_%s_case$uri?$args\" $cgisnap_%s_status {\n", p->id, p->id);
		for (size_t i = 0; i < ti->statuses.n; i++) {
			const struct ti_entry *e = &ti->statuses.items[i];
			if (!nginx_entry_mapped(first, e))
				continue;
			buf_adds(out, "    ");
			nginx_map_key(out, e);
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
			if (!nginx_entry_mapped(first, e) ||
			    (e->type && config_unquotable(ti->types.items[e->type - 1])))
				continue;
			struct buf v = BUF_INIT;
			buf_addf(&v, "%d/%s", e->type, e->key);
			buf_adds(out, "    ");
			nginx_map_key(out, e);
			buf_adds(out, " ");
			nginx_quote_value(out, buf_str(&v), p->id);
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
