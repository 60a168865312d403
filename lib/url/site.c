/* site.c - a site's canonical request targets: its addresses, its query
 * policy and its --canonical rules (url.h). */
#include "url/url.h"
#include "url/url_impl.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/rewrite.h"
#include "base/xalloc.h"

int site_init(struct site *s, const char *url, char *err)
{
	memset(s, 0, sizeof(*s));
	const char *why;
	char *norm = url_normalize_why(url, &why);
	if (!norm)
		return err_set(err, "invalid site URL '%s': %s", url, why);
	s->url = norm;
	s->origin = url_origin(norm);
	return 0;
}

int site_add_alias(struct site *s, const char *url, char *err)
{
	const char *why;
	char *norm = url_normalize_why(url, &why);
	if (!norm)
		return err_set(err, "invalid alias URL '%s': %s", url, why);
	char *origin = url_origin(norm);
	free(norm);
	if ((s->origin && !strcmp(origin, s->origin)) || strlist_contains(&s->aliases, origin))
		free(origin);
	else
		strlist_add_owned(&s->aliases, origin);
	return 0;
}

int site_add_canonical(struct site *s, const char *spec, char *err)
{
	/* The rule is saved in .cgisnap/settings, one line. */
	for (const char *c = spec; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return err_set(err, "bad --canonical rule '%s': it holds a control character", spec);
	struct rewrite rw;
	if (rewrite_parse(&rw, spec, "--canonical", err) < 0)
		return -1;
	if (rw.url[0] != '/') {
		err_set(err, "bad --canonical rule '%s': the URL '%s' must start with '/'", spec, rw.url);
		rewrite_release(&rw);
		return -1;
	}
	s->canonical = xrealloc(s->canonical, (s->ncanonical + 1) * sizeof *s->canonical);
	s->canonical[s->ncanonical++] = rw;
	return 0;
}

char *site_canonical_redirect(const struct site *s, const char *target, size_t *rule)
{
	for (size_t i = 0; i < s->ncanonical; i++) {
		char *to = rewrite_apply(&s->canonical[i], target);
		if (!to)
			continue;
		char *canon = site_canonical_target(s, to);
		free(to);
		if (!canon) /* cannot happen: the URL starts with '/' */
			continue;
		*rule = i;
		return canon;
	}
	return NULL;
}

int site_check_canonical(const struct site *s, char *err)
{
	for (size_t i = 0; i < s->ncanonical; i++) {
		const struct rewrite *rw = &s->canonical[i];
		if (strchr(rw->url, '$'))
			continue;
		char *to = site_canonical_target(s, rw->url);
		size_t k;
		char *again = to ? site_canonical_redirect(s, to, &k) : NULL;
		if (again) {
			err_set(err, "bad --canonical rule '%s': its URL '%s' is matched by --canonical '%s': "
				"a redirect loop", rw->spec, to, s->canonical[k].spec);
			free(again);
			free(to);
			return -1;
		}
		free(to);
	}
	return 0;
}

void site_release(struct site *s)
{
	for (size_t i = 0; i < s->ncanonical; i++)
		rewrite_release(&s->canonical[i]);
	free(s->canonical);
	free(s->url);
	free(s->origin);
	strlist_clear(&s->aliases);
	strlist_clear(&s->ignore_params);
	memset(s, 0, sizeof(*s));
}

static bool policy_active(const struct site *s)
{
	return s->sort_query || s->ignore_params.n;
}

/* One "name=value" piece of a query, and where it stood. */
struct param {
	const char *p;
	size_t len, name_len, order;
};

static int compare_params(const void *a, const void *b)
{
	const struct param *x = a, *y = b;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(x->p, y->p, n);
	if (c)
		return c;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	/* Equal names keep their order: qsort is not stable by itself. */
	return x->order < y->order ? -1 : 1;
}

/* True when the parameter's raw name matches an --ignore-param glob. */
static bool ignored(const struct site *s, const struct param *pa)
{
	if (!s->ignore_params.n)
		return false;
	char small[128];
	char *name = pa->name_len < sizeof(small) ? small : xmalloc(pa->name_len + 1);
	memcpy(name, pa->p, pa->name_len);
	name[pa->name_len] = '\0';
	bool hit = false;
	for (size_t i = 0; i < s->ignore_params.n && !hit; i++)
		hit = !fnmatch(s->ignore_params.items[i], name, 0);
	if (name != small)
		free(name);
	return hit;
}

/* Append the query q[0..len) after the site's policy: empty parameters
 * and ignored names dropped, names sorted (stable) when asked. Without a
 * policy the query is appended as it is. */
static void add_policy_query(const struct site *s, struct buf *out, const char *q, size_t len)
{
	if (!policy_active(s)) {
		buf_add(out, q, len);
		return;
	}
	size_t n = 1;
	for (size_t i = 0; i < len; i++)
		n += q[i] == '&';
	struct param small[32];
	struct param *params = n <= 32 ? small : xmalloc(n * sizeof(*params));

	size_t kept = 0;
	for (const char *p = q, *end = q + len; p <= end;) {
		const char *amp = memchr(p, '&', (size_t)(end - p));
		if (!amp)
			amp = end;
		struct param pa = { p, (size_t)(amp - p), 0, kept };
		const char *eq = memchr(p, '=', pa.len);
		pa.name_len = eq ? (size_t)(eq - p) : pa.len;
		if (pa.len && !ignored(s, &pa))
			params[kept++] = pa;
		p = amp + 1;
	}
	if (s->sort_query && kept > 1)
		qsort(params, kept, sizeof(*params), compare_params);
	for (size_t i = 0; i < kept; i++) {
		if (i)
			buf_addc(out, '&');
		buf_add(out, params[i].p, params[i].len);
	}
	if (params != small)
		free(params);
}

char *site_canonical_query(const struct site *s, const char *query)
{
	struct buf out = BUF_INIT;
	add_policy_query(s, &out, query, strlen(query));
	return buf_detach(&out, NULL);
}

/* Append "?" and the query after policy, or nothing when none is left. */
static void add_query_part(const struct site *s, struct buf *out, const char *q, size_t len)
{
	size_t mark = out->len;
	buf_addc(out, '?');
	add_policy_query(s, out, q, len);
	if (out->len == mark + 1)
		buf_truncate(out, mark);
}

static bool is_site_origin(const struct site *s, const char *origin, size_t len)
{
	if (s->origin && strlen(s->origin) == len && !memcmp(s->origin, origin, len))
		return true;
	for (size_t i = 0; i < s->aliases.n; i++)
		if (strlen(s->aliases.items[i]) == len && !memcmp(s->aliases.items[i], origin, len))
			return true;
	return false;
}

char *site_target(const struct site *s, const char *absurl)
{
	char *norm = url_normalize(absurl);
	if (!norm)
		return NULL;
	char *result = NULL;
	size_t olen = url_origin_length(norm);
	if (is_site_origin(s, norm, olen)) {
		const char *target = norm + olen;
		const char *q = strchr(target, '?');
		struct buf out = BUF_INIT;
		buf_add(&out, target, q ? (size_t)(q - target) : strlen(target));
		if (q)
			add_query_part(s, &out, q + 1, strlen(q + 1));
		result = buf_detach(&out, NULL);
	}
	free(norm);
	return result;
}

char *site_canonical_target(const struct site *s, const char *raw)
{
	if (raw[0] != '/')
		return NULL;
	size_t len = strcspn(raw, "#");
	const char *q = memchr(raw, '?', len);
	size_t path_len = q ? (size_t)(q - raw) : len;
	struct buf out = BUF_INIT;

	url_add_path(&out, raw, path_len);
	if (q) {
		size_t mark = out.len;
		buf_addc(&out, '?');
		url_add_normalized(&out, q + 1, len - path_len - 1);
		if (policy_active(s) && out.len > mark + 1) {
			/* The policy reads the normalised query (so "utm%5Fx" is
			 * "utm_x") and writes into out: work from a copy. */
			char *query = xstrndup(out.data + mark + 1, out.len - mark - 1);
			buf_truncate(&out, mark);
			add_query_part(s, &out, query, strlen(query));
			free(query);
		}
		if (out.len == mark + 1)
			buf_truncate(&out, mark);
	}
	return buf_detach(&out, NULL);
}

char *site_url_for(const struct site *s, const char *target)
{
	return xasprintf("%s%s%s", s->origin, target[0] == '/' ? "" : "/", target);
}
