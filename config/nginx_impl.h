/* config/nginx_impl.h - what the parts of the nginx writer share: the
 * server block (nginx.c), the http-level maps (nginxmaps.c) and what both
 * agree on (nginxkeys.c). Not for use outside them.
 *
 * nginx_write's steps: nginx_index_keys (which entries the maps can
 * hold), nginx_orders (the query orders), nginx_write_maps, then the
 * server block, whose rules match on $request_uri what the maps cannot
 * hold (nginx_entry_slashed, nginx_entry_twin).
 */
#ifndef CGISNAP_CONFIG_NGINX_IMPL_H
#define CGISNAP_CONFIG_NGINX_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/hashmap.h"
#include "config.h"
#include "treeinfo.h"

/* The name of the variable holding the query as the policy leaves it
 * (write_policy), which the server block sets $args to. */
#define NGINX_POLICY_ARGS "$cgisnap_%s_args"

/* The statuses nginx's "return CODE URL" sends with a Location. */
#define NGINX_REDIRECT_CODES 5
extern const int nginx_redirect_codes[NGINX_REDIRECT_CODES];
/* True for the statuses "return CODE URL" can send. */
bool nginx_is_redirect_code(int status);
/* How many entries of l have status. */
size_t nginx_count_status(const struct ti_list *l, int status);

/* Append s quoted for nginx: '"' and '\' escaped. */
void nginx_quote(struct buf *out, const char *s);
/* Append s quoted as a value nginx expands (a map value, a rewrite): a
 * '$' there is written as the variable $cgisnap_ID_dollar, which holds
 * "$". */
void nginx_quote_value(struct buf *out, const char *s, const char *id);
/* Append the map key of an entry: what "$uri?$args" holds for it. */
void nginx_map_key(struct buf *out, const struct ti_entry *e);

/* An entry whose text cannot be written (control bytes): left out. */
bool nginx_entry_unquotable(const struct ti_entry *e);
/* An entry with an encoded '/' in its path, which $uri decodes: matched
 * on $request_uri instead of the maps. */
bool nginx_entry_slashed(const struct ti_entry *e);
/* Fill first (lowercased key -> entry) with the first entry of each key
 * the maps can hold: nginx refuses a map with two keys alike but for
 * case. */
void nginx_index_keys(struct hashmap *first, const struct treeinfo *ti);
/* An entry whose key is an earlier one's but for case: the maps cannot
 * hold it, so it is matched on $request_uri. */
bool nginx_entry_twin(const struct hashmap *first, const struct ti_entry *e);
/* An entry the maps list. */
bool nginx_entry_mapped(const struct hashmap *first, const struct ti_entry *e);

/* The orders of the tree's queries that the map of orders can hold, from
 * and to in step (nginxmaps.c). */
void nginx_orders(const struct treeinfo *ti, struct strlist *from, struct strlist *to);
/* The http-level part: hash sizes, the query policy, the maps of recorded
 * answers and the Cache-Control by status. */
void nginx_write_maps(struct buf *out, const struct treeinfo *ti, const struct config_params *p,
		      const struct hashmap *first, const struct strlist *from, const struct strlist *to);

#endif
