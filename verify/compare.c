/* verify/compare.c - one URL's two answers compared (compare.h). */
#include "compare.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/sha256.h"
#include "base/textesc.h"
#include "base/xalloc.h"
#include "crawl/body.h"
#include "crawl/charset.h"

static const struct {
	const char *name, *title;
} causes[NCAUSES] = {
	[CAUSE_ALIKE] = { "alike", "answer alike" },
	[CAUSE_NOT_IN_TREE] = { "not-in-tree", "not in the tree" },
	[CAUSE_GONE_IN_TREE] = { "404-in-tree", "a 404 in the tree where the origin answers" },
	[CAUSE_REDIRECT] = { "redirect-differs", "a redirect that differs" },
	[CAUSE_STATUS] = { "status-differs", "a status that differs" },
	[CAUSE_TYPE] = { "type-differs", "a Content-Type that differs" },
	[CAUSE_BODY] = { "body-differs", "a body that differs" },
	[CAUSE_TREE_FAILED] = { "tree-failed", "the tree's server gave no answer" },
	[CAUSE_ORIGIN_FAILED] = { "origin-failed", "the origin itself fails" },
};

const char *cause_name(enum cause c)
{
	return causes[c].name;
}

const char *cause_title(enum cause c)
{
	return causes[c].title;
}

static bool is_redirect(int status)
{
	return status >= 300 && status < 400;
}

/* The Location of rs resolved against the URL asked, fresh; NULL when
 * there is none (or it does not resolve: then its text as sent). */
static char *resolved_location(const struct compare_ctx *ctx, const char *target, const struct origin_response *rs)
{
	if (!rs->location)
		return NULL;
	char *base = site_url_for(ctx->site, target);
	char *abs = url_resolve(base, rs->location);
	free(base);
	return abs ? abs : xstrdup(rs->location);
}

/* The media type of a Content-Type (lower case, no parameters) into
 * media; "" when there is none. Its charset is charset_of_type's. */
static void media_type_of(const char *type, char *media, size_t len)
{
	size_t n = 0;
	while (type && *type == ' ')
		type++;
	for (; type && *type && *type != ';' && *type != ' ' && n + 1 < len; type++)
		media[n++] = (char)tolower((unsigned char)*type);
	media[n] = '\0';
}

/* Whether two Content-Types say the same: one media type, and one
 * charset when both name one. */
static bool same_type(const char *a, const char *b)
{
	char am[128], bm[128], ac[CHARSET_NAME_MAX], bc[CHARSET_NAME_MAX];
	media_type_of(a, am, sizeof am);
	media_type_of(b, bm, sizeof bm);
	const char *acs = a ? charset_of_type(a, ac) : NULL, *bcs = b ? charset_of_type(b, bc) : NULL;
	return !strcmp(am, bm) && (!acs || !bcs || !strcmp(acs, bcs));
}

/* At most COMPARE_EXCERPT bytes of the line from p (to end), control
 * bytes and bytes of no valid UTF-8 character (a Latin-1 page) as '?',
 * never cut inside a UTF-8 character; "..." where the line goes on. */
#define COMPARE_EXCERPT 80
static void add_line(struct buf *out, const char *p, const char *end)
{
	size_t n = 0;
	while (p < end && *p != '\n' && n < COMPARE_EXCERPT) {
		const unsigned char *u = (const unsigned char *)p;
		size_t len = *u >= 0x80 ? utf8_char_len(u) : 1;
		if (len > 1 && (p + len > end || n + len > COMPARE_EXCERPT))
			break;
		if (len > 1)
			buf_add(out, p, len);
		else
			buf_addc(out, *u < 0x20 || *u == 0x7f || *u >= 0x80 ? '?' : *p);
		p += len ? len : 1;
		n += len ? len : 1;
	}
	if (p < end && *p != '\n')
		buf_adds(out, "...");
}

/* Where an excerpt of a line that differs at diff (the line starting at
 * start) begins: the line's start, or some way before the difference on
 * a long line (minified HTML is one line), at a character's start. */
static size_t excerpt_start(const char *a, size_t start, size_t diff)
{
	if (diff - start <= COMPARE_EXCERPT / 2)
		return start;
	size_t at = diff - COMPARE_EXCERPT / 4;
	while (at > start && ((unsigned char)a[at] & 0xc0) == 0x80)
		at--;
	return at;
}

char *compare_first_line(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i = 0, line = 1, start = 0;
	for (; i < alen && i < blen && a[i] == b[i]; i++)
		if (a[i] == '\n') {
			line++;
			start = i + 1;
		}
	size_t from = excerpt_start(a, start, i);
	struct buf out = BUF_INIT;
	buf_addf(&out, "line %zu: origin '%s", line, from > start ? "..." : "");
	add_line(&out, a + from, a + alen);
	buf_addf(&out, "', tree '%s", from > start ? "..." : "");
	add_line(&out, b + from, b + blen);
	buf_addc(&out, '\'');
	return buf_detach(&out, NULL);
}

/* The size of rs's body, wherever it is. */
static long long body_size(const struct origin_response *rs)
{
	return rs->static_path ? rs->static_size : origin_body_size(rs);
}

/* The largest body compared in memory, as the crawl parses (and strips)
 * bodies up to --max-parse and stores bigger ones as they are. */
static long long in_memory_max(const struct compare_ctx *ctx)
{
	return ctx->crawl && ctx->crawl->max_parse >= 0 ? ctx->crawl->max_parse : CRAWL_MAX_PARSE;
}

/* The sha256 of rs's body as it is, read a piece at a time from its file
 * (a static file, or one the origin spilled it to); -1 with err. */
static int raw_body_sha(struct origin_response *rs, char hex[65], char *err)
{
	struct body_file f;
	if (open_body(rs, &f, err) < 0)
		return -1;
	if (f.fd < 0) {
		sha256_hex(rs->body.data ? rs->body.data : "", rs->body.len, hex);
		return 0;
	}
	struct sha256 c;
	char piece[64 * 1024];
	int rc = 0;
	sha256_init(&c);
	for (long long off = f.off, left = f.len; left > 0;) {
		ssize_t n = pread(f.fd, piece, left < (long long)sizeof piece ? (size_t)left : sizeof piece, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? err_sys(err, "cannot read a body") : err_set(err, "a body ended early");
			break;
		}
		sha256_update(&c, piece, (size_t)n);
		off += n;
		left -= n;
	}
	unsigned char digest[32];
	sha256_final(&c, digest);
	sha256_to_hex(digest, hex);
	close_body(&f);
	return rc;
}

/* The body of rs in memory, --strip applied to text as the crawl applies
 * it; -1 with err when it cannot be read. */
static int comparable_body(const struct compare_ctx *ctx, struct origin_response *rs, char *err)
{
	if (load_body(rs, err) < 0)
		return -1;
	if (ctx->crawl && ctx->crawl->nstrip && is_text_type(rs->content_type))
		strip_volatile(ctx->crawl, &rs->body);
	return 0;
}

enum cause compare_answers(const struct compare_ctx *ctx, const char *target, struct origin_response *o,
			   struct origin_response *t, char **detail)
{
	*detail = NULL;
	if (o->status >= 500) {
		*detail = xasprintf("the origin answers %d", o->status);
		return CAUSE_ORIGIN_FAILED;
	}
	bool tree_missing = (t->status == 404 || t->status == 410) && o->status != 404 && o->status != 410 &&
			    o->status < 400;
	if (tree_missing) {
		char *loc = resolved_location(ctx, target, o);
		*detail = loc ? xasprintf("the origin redirects (%d) to '%s'", o->status, loc) : NULL;
		free(loc);
		return CAUSE_NOT_IN_TREE;
	}
	if (is_redirect(o->status) || is_redirect(t->status)) {
		char *ol = resolved_location(ctx, target, o), *tl = resolved_location(ctx, target, t);
		enum cause c = CAUSE_ALIKE;
		if (o->status != t->status || (ol && tl && strcmp(ol, tl)) || !ol != !tl) {
			c = CAUSE_REDIRECT;
			*detail = xasprintf("origin %d%s%s%s, tree %d%s%s%s", o->status, ol ? " to '" : "", ol ? ol : "",
					    ol ? "'" : "", t->status, tl ? " to '" : "", tl ? tl : "", tl ? "'" : "");
		}
		free(ol);
		free(tl);
		return c;
	}
	if (o->status != t->status) {
		*detail = xasprintf("origin %d, tree %d", o->status, t->status);
		return CAUSE_STATUS;
	}
	if (o->status < 200 || o->status >= 300)
		return CAUSE_ALIKE;
	if (!same_type(o->content_type, t->content_type)) {
		*detail = xasprintf("origin '%s', tree '%s'", o->content_type ? o->content_type : "(none)",
				    t->content_type ? t->content_type : "(none)");
		return CAUSE_TYPE;
	}
	char err[ERR_LEN];
	long long osize = body_size(o), tsize = body_size(t);
	if (osize > in_memory_max(ctx) || tsize > in_memory_max(ctx)) {
		/* Stored as they are: their bytes, hashed from their files. */
		char oh[65], th[65];
		if (osize == tsize) {
			if (raw_body_sha(o, oh, err) < 0) {
				*detail = xasprintf("the origin's body: %s", err);
				return CAUSE_ORIGIN_FAILED;
			}
			if (raw_body_sha(t, th, err) < 0) {
				*detail = xasprintf("the tree's body: %s", err);
				return CAUSE_TREE_FAILED;
			}
			if (!strcmp(oh, th))
				return CAUSE_ALIKE;
		}
		*detail = xasprintf("origin %lld bytes, tree %lld bytes%s", osize, tsize,
				    osize == tsize ? ", not the same" : "");
		return CAUSE_BODY;
	}
	if (comparable_body(ctx, o, err) < 0) {
		*detail = xasprintf("the origin's body: %s", err);
		return CAUSE_ORIGIN_FAILED;
	}
	if (comparable_body(ctx, t, err) < 0) {
		*detail = xasprintf("the tree's body: %s", err);
		return CAUSE_TREE_FAILED;
	}
	const struct buf *ob = &o->body, *tb = &t->body;
	if (ob->len == tb->len && (!ob->len || !memcmp(ob->data, tb->data, ob->len)))
		return CAUSE_ALIKE;
	if (ctx->volatiles && volatiles_same(ctx->volatiles, ob->data, ob->len, tb->data, tb->len))
		return CAUSE_ALIKE;
	if (is_text_type(o->content_type))
		*detail = compare_first_line(ob->data ? ob->data : "", ob->len, tb->data ? tb->data : "", tb->len);
	else
		*detail = xasprintf("origin %zu bytes, tree %zu bytes", ob->len, tb->len);
	return CAUSE_BODY;
}

void compare_body_sha(const struct compare_ctx *ctx, struct origin_response *o, char hex[65])
{
	char err[ERR_LEN];
	hex[0] = '\0';
	if (body_size(o) > in_memory_max(ctx)) {
		if (raw_body_sha(o, hex, err) < 0)
			hex[0] = '\0';
	} else if (comparable_body(ctx, o, err) == 0) {
		sha256_hex(o->body.data ? o->body.data : "", o->body.len, hex);
	}
}
