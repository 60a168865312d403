/* config/nginxkeys.c - what the nginx maps and server block agree on
 * (nginx_impl.h): quoting for nginx, the maps' keys, which entries the
 * maps hold (nginx compares map strings ignoring case) and the redirect
 * statuses. */
#include <ctype.h>
#include <string.h>

#include "config.h"
#include "nginx_impl.h"
#include "base/hashmap.h"

/* The statuses nginx's "return CODE URL" sends with a Location. */
const int nginx_redirect_codes[NGINX_REDIRECT_CODES] = { 301, 302, 303, 307, 308 };

/* Append s quoted for nginx: '"' and '\' escaped. */
void nginx_quote(struct buf *out, const char *s)
{
	buf_add_quoted(out, s);
}

/* Append s quoted as a value nginx expands (a map value, a rewrite): a
 * '$' there would start a variable, so it is written as the variable
 * $cgisnap_ID_dollar, which holds "$". */
void nginx_quote_value(struct buf *out, const char *s, const char *id)
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
void nginx_map_key(struct buf *out, const struct ti_entry *e)
{
	struct buf k = BUF_INIT;
	buf_addf(&k, "%s?%s", e->path, e->query ? e->query : "");
	nginx_quote(out, buf_str(&k));
	buf_release(&k);
}

/* True for an entry whose text cannot be written (control bytes, which
 * no canonical target has): it is left out. */
bool nginx_entry_unquotable(const struct ti_entry *e)
{
	return config_unquotable(e->path) || (e->query && config_unquotable(e->query)) ||
	       (e->location && config_unquotable(e->location)) || (e->key && config_unquotable(e->key));
}

/* True for an entry with an encoded '/' in its path: $uri decodes it
 * ("/x%2Fy" and "/x/y" would be one map key), so write_slashed matches it
 * on $request_uri instead of the maps. */
bool nginx_entry_slashed(const struct ti_entry *e)
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
void nginx_index_keys(struct hashmap *first, const struct treeinfo *ti)
{
	const struct ti_list *lists[] = { &ti->redirects, &ti->statuses, &ti->files };
	for (size_t l = 0; l < 3; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			const struct ti_entry *e = &lists[l]->items[i];
			if (nginx_entry_unquotable(e) || nginx_entry_slashed(e))
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
bool nginx_entry_twin(const struct hashmap *first, const struct ti_entry *e)
{
	if (nginx_entry_unquotable(e) || nginx_entry_slashed(e))
		return false;
	struct buf k = BUF_INIT;
	lower_key(&k, e);
	bool twin = hashmap_get(first, buf_str(&k)) != e;
	buf_release(&k);
	return twin;
}

/* True for an entry the maps list. */
bool nginx_entry_mapped(const struct hashmap *first, const struct ti_entry *e)
{
	return !nginx_entry_unquotable(e) && !nginx_entry_slashed(e) && !nginx_entry_twin(first, e);
}

/* True for the statuses "return CODE URL" can send. */
bool nginx_is_redirect_code(int status)
{
	for (size_t i = 0; i < sizeof nginx_redirect_codes / sizeof nginx_redirect_codes[0]; i++)
		if (nginx_redirect_codes[i] == status)
			return true;
	return false;
}

/* How many entries of l have status. */
size_t nginx_count_status(const struct ti_list *l, int status)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->items[i].status == status;
	return n;
}
