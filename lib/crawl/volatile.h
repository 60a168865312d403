/* volatile.h - the spans of a site's pages that change on every render
 * (request ids, render times, parse reports, nonces), found by itself, so
 * that a page whose only change is such a span is unchanged: a second
 * run with no edit rewrites no file, and watch republishes nothing.
 *
 * The crawl asks only about a page whose bytes differ from its stored
 * file: first whether the two are the same once the spans the rules know
 * are left out (volatiles_same); if not, it renders the page again and,
 * when that render differs from the first, learns the spans that differ
 * (volatiles_learn) and asks again; when that taught something but did not
 * explain the change, once more (two renders may share a value by
 * chance). A real edit costs one more render; after VOLATILE_IDLE_RENDERS
 * learning renders in a row that taught nothing, a crawl makes none.
 *
 * Learning lines the two renders up as runs of token bytes
 * ([A-Za-z0-9+/_.-]) between runs of other bytes; the other runs must be
 * equal and the tokens as many, else nothing is learned. Each token that
 * differs is a span; spans with at most two bytes between them are one
 * (08:47:30), and a span grows to the left over tokens that start with
 * a digit so joined (a whole date; "v2" before a nonce is content). A span is kept only when both of its
 * values hold a digit or are 16 bytes or more (ids, times, nonces; a word
 * that changes is content). Its rule: the context (the nearest word
 * before it, a token of three bytes or more with a letter, and what lies
 * between, at most VOLATILE_CONTEXT bytes: `"wgRequestId":"`, `time: `,
 * `Rendered in `), and the bytes a span may
 * hold (every digit for a digit, a-f for a hex letter, other bytes as
 * they are; a letter beyond hex makes it a random token: every letter,
 * digit and "+/_-", base64's bytes). Leaving out: after
 * each occurrence of a context, the longest run of its bytes.
 *
 * The rules are saved in the tree (.cgisnap/volatile: "SET<TAB>CONTEXT"
 * per line, tabs, newlines and backslashes in CONTEXT escaped), so that
 * the next run and watch start with them.
 *
 *     struct volatiles v;
 *     volatiles_init(&v);
 *     if (!volatiles_same(&v, new, n, old, m) &&
 *         volatiles_learn(&v, new, n, again, k) && volatiles_same(&v, new, n, old, m))
 *             ... keep the old file
 *     volatiles_release(&v);
 *
 * Two renders made in the same second agree on a time to the second:
 * spans between the render and the stored file that hold a time near now
 * are learned too (volatiles_learn_times).
 *
 * Not thread-safe: the crawl calls it under its lock.
 */
#ifndef CGISNAP_VOLATILE_H
#define CGISNAP_VOLATILE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "base/buf.h"

#define VOLATILE_FILE "volatile"
#define VOLATILE_MAX_RULES 256
#define VOLATILE_CONTEXT 32
/* Learning renders in a row that taught nothing, after which a crawl
 * makes no more (every page changed: each would cost a render more). */
#define VOLATILE_IDLE_RENDERS 16

struct volatile_rule {
	char *context;
	size_t len;
	unsigned char set[32]; /* bit b: byte b may be in a span */
};

struct volatiles {
	struct volatile_rule *rules;
	size_t n;
	bool changed; /* learned something since init or parse */
};

void volatiles_init(struct volatiles *v);
void volatiles_release(struct volatiles *v);

/* Learn the spans in which two renders of one page, a and b, differ:
 * how many rules are new or wider (0: none, or the two do not line up).
 * A small count (digits, fewer than nine: a render's milliseconds, or a
 * version of the page rewritten between the renders) is learned only
 * when stored (the page's stored file; NULL: none) holds a third value
 * after the same context. */
size_t volatiles_learn(struct volatiles *v, const char *a, size_t alen, const char *b, size_t blen,
		       const char *stored, size_t storedlen);

/* Two renders a second apart may hold the same time: learn the spans in
 * which a page (now_page) and its stored file (old) differ whose value
 * in now_page is a time within a day of now (an ISO date and time,
 * fourteen digits, Unix seconds: a feed's <updated>), or whose two
 * values are measurements, decimals with three fractional digits or
 * more (a render time two back-to-back renders share). */
size_t volatiles_learn_times(struct volatiles *v, const char *now_page, size_t len, const char *old,
			     size_t oldlen, time_t now);

/* Whether a and b are equal once every span the rules match is left out
 * of each. */
bool volatiles_same(const struct volatiles *v, const char *a, size_t alen, const char *b, size_t blen);

/* The rules as the file's text, and back (added to v; a bad line is
 * skipped). */
void volatiles_format(const struct volatiles *v, struct buf *out);
void volatiles_parse(struct volatiles *v, const char *text, size_t len);

#endif
