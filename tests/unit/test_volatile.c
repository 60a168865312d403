/* test_volatile.c - spans that change on every render (lib/crawl/volatile.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crawl/volatile.h"
#include "unit.h"
#include "base/buf.h"
#include "base/xalloc.h"

/* A MediaWiki-like page: a request id, a parse report, an Atom time. */
static char *page(const char *body, const char *id, const char *cpu, const char *when)
{
	return xasprintf("<html><script>RLCONF={\"wgRequestId\":\"%s\",\"wgUser\":null};</script>\n"
			 "<p>%s</p>\n<!-- CPU time usage: %s seconds -->\n<updated>%s</updated>\n"
			 "<a href=\"/p?id=3\">three</a></html>\n",
			 id, body, cpu, when);
}

static bool same(const struct volatiles *v, const char *a, const char *b)
{
	return volatiles_same(v, a, strlen(a), b, strlen(b));
}

/* v as volatiles_init left it, for the next case of a test. */
static void forget(struct volatiles *v)
{
	volatiles_release(v);
	volatiles_init(v);
}

/* volatiles_learn of two renders and the stored file (NULL: none). */
static long learn(struct volatiles *v, const char *a, const char *b, const char *stored)
{
	return (long)volatiles_learn(v, a, strlen(a), b, strlen(b), stored, stored ? strlen(stored) : 0);
}

/* volatiles_learn_times of a fresh render and the stored file. */
static long learn_times(struct volatiles *v, const char *fresh, const char *stored, time_t now)
{
	return (long)volatiles_learn_times(v, fresh, strlen(fresh), stored, strlen(stored), now);
}

/* The renders a and b teach want spans; then c, a later render, is the
 * same as a, and d, c with its content changed, is not. */
static void check_learned(struct volatiles *v, long want, const char *a, const char *b, const char *c, const char *d)
{
	CHECK_INT(want, learn(v, a, b, NULL));
	CHECK(same(v, a, c));
	CHECK(!same(v, a, d));
}

TEST(volatile_spans_learned_from_two_renders_are_left_out)
{
	struct volatiles v;
	volatiles_init(&v);
	char *first = page("Hello", "75419f245021cb51e9345336", "0.017", "2026-12-05T08:47:30Z");
	char *again = page("Hello", "e110f08178151b10c0bc5121", "0.005", "2026-12-05T08:47:44Z");
	char *later = page("Hello", "0123456789abcdef01234567", "1.250", "2026-12-06T10:00:00Z");
	char *edited = page("Hello, world", "0123456789abcdef01234567", "1.250", "2026-12-06T10:00:00Z");
	CHECK(!same(&v, first, later));
	CHECK_INT(3, learn(&v, first, again, NULL));
	CHECK(v.changed);
	CHECK(same(&v, first, later));
	CHECK(!same(&v, first, edited)); /* the words are content */
	/* Learning the same again adds nothing. */
	CHECK_INT(0, learn(&v, first, again, NULL));

	struct buf b = BUF_INIT;
	volatiles_format(&v, &b);
	CHECK_STR("# cgisnap: spans that change on every render; the bytes a span may hold, a tab, the text before it\n"
		  "0-9a-f\twgRequestId\":\"\n"
		  ".0-9\tusage: \n"
		  "\\-0-:A-Z\tupdated>\n",
		  buf_str(&b));
	/* Read back, the rules work the same. */
	struct volatiles w;
	volatiles_init(&w);
	volatiles_parse(&w, buf_str(&b), b.len);
	CHECK_INT(3, (long)w.n);
	CHECK(!w.changed);
	CHECK(same(&w, first, later));
	CHECK(!same(&w, first, edited));
	volatiles_release(&w);
	buf_release(&b);
	free(first);
	free(again);
	free(later);
	free(edited);
	volatiles_release(&v);
}

TEST(volatile_renders_that_do_not_line_up_teach_nothing)
{
	struct volatiles v;
	volatiles_init(&v);
	/* another structure: a quote of the day */
	const char *a = "<p>id 1234: <b>a</b></p>", *b = "<p>id 1235: <i>a</i> and more</p>";
	CHECK_INT(0, learn(&v, a, b, NULL));
	/* a changed word is content, not a span */
	const char *c = "<p>Quote: Tomorrow</p>", *d = "<p>Quote: Yesterday</p>";
	CHECK_INT(0, learn(&v, c, d, NULL));
	/* a number with no letter before it has no context */
	const char *e = "<p>12</p>", *f = "<p>13</p>";
	CHECK_INT(0, learn(&v, e, f, NULL));
	CHECK(!v.changed);
	CHECK(!same(&v, c, d));
	volatiles_release(&v);
}

TEST(volatile_a_nonce_in_an_attribute)
{
	struct volatiles v;
	volatiles_init(&v);
	check_learned(&v, 1, "<script nonce=\"Qm9vdHN0cmFwcGluZ0E=\">x()</script><p>body</p>",
		      "<script nonce=\"aGVsbG8gd29ybGQgISE=\">x()</script><p>body</p>",
		      "<script nonce=\"ZZZZvdHN0cmFwcGluZ0E=\">x()</script><p>body</p>",
		      "<script nonce=\"ZZZZvdHN0cmFwcGluZ0E=\">x()</script><p>Body</p>");
	volatiles_release(&v);
}

TEST(volatile_content_beside_a_nonce_is_no_part_of_it)
{
	/* "v2" holds a digit and stands two spaces before the nonce: a span
	 * grows left only over a date's parts (tokens that start with a
	 * digit), so an edit of it is still an edit. */
	struct volatiles v;
	volatiles_init(&v);
	check_learned(&v, 1, "<p>doc v2  dfc6c9c9454910c7</p>", "<p>doc v2  0a1b2c3d4e5f6789</p>",
		      "<p>doc v2  ffffeeeeddddcccc</p>", "<p>doc v3  ffffeeeeddddcccc</p>");
	volatiles_release(&v);
}

TEST(volatile_short_words_after_a_number_are_a_context)
{
	/* A footer as repository browsers print it: the render time, then the
	 * time of day; the words before the date are short and follow a
	 * number that changes too. */
	struct volatiles v;
	volatiles_init(&v);
	check_learned(&v, 2, "<footer>rendered in 0.0012 s at 2026-12-05 13:07:29</footer><p>x</p>",
		      "<footer>rendered in 0.0049 s at 2026-12-05 13:07:30</footer><p>x</p>",
		      "<footer>rendered in 1.5000 s at 2026-12-07 01:00:00</footer><p>x</p>",
		      "<footer>rendered in 1.5000 s at 2026-12-07 01:00:00</footer><p>y</p>");
	struct buf f = BUF_INIT;
	volatiles_format(&v, &f);
	CHECK_STR("# cgisnap: spans that change on every render; the bytes a span may hold, a tab, the text before it\n"
		  ".0-9\trendered in \n"
		  " \\-0-:\t s at \n",
		  buf_str(&f));
	buf_release(&f);
	/* One short word after a number is no context: "<p>12 px 14</p>". */
	forget(&v);
	const char *e = "<p>12 px 14</p>", *g = "<p>13 px 15</p>";
	CHECK_INT(0, learn(&v, e, g, NULL));
	volatiles_release(&v);
}

TEST(volatile_times_near_now_are_learned_from_the_stored_file)
{
	struct volatiles v;
	volatiles_init(&v);
	time_t now = 1796460000; /* 2026-12-05T07:20:00Z */
	const char *stored = "<feed><updated>2026-12-05T07:19:51Z</updated><id>42</id><p>x</p></feed>";
	const char *fresh = "<feed><updated>2026-12-05T07:20:06Z</updated><id>43</id><p>x</p></feed>";
	const char *old = "<feed><updated>2024-03-01T12:00:00Z</updated><id>42</id><p>x</p></feed>";
	/* The time is learned; the id, no time, is not. */
	CHECK_INT(1, learn_times(&v, fresh, stored, now));
	CHECK(!same(&v, fresh, stored));
	struct buf b = BUF_INIT;
	volatiles_format(&v, &b);
	CHECK_STR("# cgisnap: spans that change on every render; the bytes a span may hold, a tab, the text before it\n"
		  "\\-0-:A-Z\tupdated>\n",
		  buf_str(&b));
	buf_release(&b);
	/* A time long past is content (a post's date). */
	forget(&v);
	CHECK_INT(0, learn_times(&v, old, stored, now));
	/* Fourteen digits and Unix seconds too. */
	const char *a = "<p>Cached time: 20261205071951</p><i data-time=\"1796459991\">";
	const char *c = "<p>Cached time: 20261205072006</p><i data-time=\"1796460006\">";
	CHECK_INT(2, learn_times(&v, c, a, now));
	CHECK(same(&v, a, c));
	/* A render time the back-to-back renders shared, from the stored
	 * file; a price (two digits after the point) is content. */
	forget(&v);
	const char *r1 = "<p>price 19.99</p><i>rendered in 0.0004 s</i>";
	const char *r2 = "<p>price 19.99</p><i>rendered in 0.0003 s</i>";
	const char *p2 = "<p>price 18.99</p><i>rendered in 0.0003 s</i>";
	CHECK_INT(1, learn_times(&v, r2, r1, now));
	CHECK(same(&v, r1, r2));
	CHECK_INT(0, learn_times(&v, p2, r2, now));
	CHECK(!same(&v, r2, p2));
	volatiles_release(&v);
}

TEST(volatile_a_small_count_needs_a_third_value_in_the_stored_file)
{
	struct volatiles v;
	volatiles_init(&v);
	/* A page rewritten between two renders: its version is content. */
	const char *v16 = "<p>Inplace begin 16.</p><p>Inplace end 16.</p>";
	const char *v17 = "<p>Inplace begin 17.</p><p>Inplace end 17.</p>";
	const char *v18 = "<p>Inplace begin 18.</p><p>Inplace end 18.</p>";
	CHECK_INT(0, learn(&v, v17, v18, NULL));
	CHECK_INT(0, learn(&v, v17, v18, v17));
	CHECK_INT(0, learn(&v, v17, v18, v18));
	CHECK(!v.changed);
	/* A time in milliseconds, a third value in the stored file: learned. */
	const char *a = "<script>mw.config.set({\"wgBackendResponseTime\":364});</script>";
	const char *b = "<script>mw.config.set({\"wgBackendResponseTime\":187});</script>";
	const char *old = "<script>mw.config.set({\"wgBackendResponseTime\":250});</script>";
	CHECK_INT(1, learn(&v, a, b, old));
	CHECK(same(&v, a, old));
	/* the k-th occurrence of the context is compared with the k-th */
	forget(&v);
	const char *a2 = "<i>count: 1</i><i>count: 5</i>", *b2 = "<i>count: 1</i><i>count: 6</i>";
	const char *o2 = "<i>count: 1</i><i>count: 5</i>";
	CHECK_INT(0, learn(&v, a2, b2, o2));
	const char *o3 = "<i>count: 1</i><i>count: 7</i>";
	CHECK_INT(1, learn(&v, a2, b2, o3));
	volatiles_release(&v);
	(void)v16;
}
