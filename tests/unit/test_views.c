/* test_views.c - URL families cut as an application's views (lib/crawl/views.c). */
#include <stdio.h>
#include <stdlib.h>

#include "crawl/views.h"
#include "unit.h"
#include "base/buf.h"
#include "base/xalloc.h"

/* The families of target, joined by " | ". */
static char *keys_of(const char *target)
{
	char *keys[VIEWS_MAX_KEYS];
	size_t n = views_keys(target, keys, VIEWS_MAX_KEYS);
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		buf_addf(&b, "%s%s", i ? " | " : "", keys[i]);
		free(keys[i]);
	}
	return buf_detach(&b, NULL);
}

#define CHECK_KEYS(want, target)                 \
	do {                                     \
		char *got_ = keys_of(target);    \
		CHECK_STR(want, got_);           \
		free(got_);                      \
	} while (0)

TEST(views_keys_of_views_and_of_pages)
{
	/* A page: one piece, a short path: no family at all. */
	CHECK_KEYS("", "/index.php?title=Page_01");
	CHECK_KEYS("", "/wiki/Page_01");
	CHECK_KEYS("", "/doku.php?id=wiki:start");
	CHECK_KEYS("", "/");
	/* Two pieces: the shape, then the shape with each value spelled
	 * (names sorted). */
	CHECK_KEYS("/index.php?action=…&title=… | /index.php?action=edit&title=… | /index.php?action=…&title=P",
		   "/index.php?title=P&action=edit");
	/* A value with a slash inside: cut after its last one. */
	CHECK_KEYS("/index.php?title=Special:WhatLinksHere/…", "/index.php?title=Special:WhatLinksHere/Page_01");
	CHECK_KEYS("/browse?name=docs%2F…", "/browse?name=docs%2Fa.md");
	/* A path of three segments or more: cut after its last slash. */
	CHECK_KEYS("/w/index.php/…", "/w/index.php/Special:Log");
	CHECK_KEYS("/blog/2024/…", "/blog/2024/post/");
	/* A bare token varies like a value. */
	CHECK_KEYS("/t.php?…&id=… | /t.php?1700000000&id=… | /t.php?…&id=x", "/t.php?id=x&1700000000");
	/* Too many pieces: none looked at. */
	CHECK_KEYS("", "/x?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9");
}

TEST(views_a_family_of_noindex_renders_is_cut_after_the_sample)
{
	struct views v;
	views_init(&v, 3);
	char t[64];
	for (int i = 1; i <= 3; i++) {
		snprintf(t, sizeof t, "/i.php?title=P%d&action=edit", i);
		CHECK(!views_cut(&v, t));
		views_note(&v, t, true);
	}
	CHECK_STR("/i.php?action=…&title=…", views_cut(&v, "/i.php?title=P4&action=history"));
	CHECK(views_cut(&v, "/i.php?title=P5&action=edit") != NULL);
	/* A page of one piece is no member. */
	CHECK(!views_cut(&v, "/i.php?title=P4"));
	struct buf b = BUF_INIT;
	views_summary(&v, 3, &b);
	CHECK_STR("2 URLs not rendered, in 1 family whose first 3 pages all said robots noindex "
		  "('/i.php?action=…&title=…' 2)", buf_str(&b));
	buf_release(&b);
	views_release(&v);
}

TEST(views_a_family_with_a_stored_member_is_never_cut)
{
	struct views v;
	views_init(&v, 2);
	views_note(&v, "/list?cat=a&page=2", false);
	for (int i = 0; i < 10; i++) {
		char t[64];
		snprintf(t, sizeof t, "/list?cat=b%d&page=%d", i, i);
		views_note(&v, t, true);
	}
	CHECK(!views_cut(&v, "/list?cat=z&page=9"));
	views_release(&v);
	/* Sample 0: nothing is ever cut. */
	views_init(&v, 0);
	for (int i = 0; i < 10; i++)
		views_note(&v, "/x?a=1&b=2", true);
	CHECK(!views_cut(&v, "/x?a=1&b=3"));
	struct buf b = BUF_INIT;
	views_summary(&v, 3, &b);
	CHECK_STR("", buf_str(&b));
	buf_release(&b);
	views_release(&v);
}
