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

#define CHECK_KEYS(want, target) CHECK_STR_FREE(want, keys_of(target))

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

/* target queued, then decided at its turn as the crawl does: its
 * family (cut) or NULL; a rendered one settles saying `heard`. */
static const char *queue_and_decide(struct views *v, const char *target, enum view_heard heard)
{
	struct view_ticket *t = views_admit(v, target);
	CHECK(views_turn(t));
	const char *cut = views_cut(v, t);
	views_settle(t, cut ? VIEW_HEARD_NOTHING : heard);
	views_ticket_free(t);
	return cut;
}

TEST(views_a_family_of_noindex_renders_is_cut_after_the_sample)
{
	struct views v;
	views_init(&v, 3);
	char t[64];
	for (int i = 1; i <= 3; i++) {
		snprintf(t, sizeof t, "/i.php?title=P%d&action=edit", i);
		CHECK(!queue_and_decide(&v, t, VIEW_HEARD_NOINDEX));
	}
	CHECK_STR("/i.php?action=…&title=…",
		  queue_and_decide(&v, "/i.php?title=P4&action=history", VIEW_HEARD_NOINDEX));
	CHECK(queue_and_decide(&v, "/i.php?title=P5&action=edit", VIEW_HEARD_NOINDEX) != NULL);
	/* A page of one piece is no member. */
	CHECK(!views_admit(&v, "/i.php?title=P4"));
	struct buf b = BUF_INIT;
	views_summary(&v, false, 3, &b);
	CHECK_STR("2 URLs not rendered, in 1 family whose first 3 pages all said robots noindex "
		  "('/i.php?action=…&title=…' 2)", buf_str(&b));
	buf_release(&b);
	views_release(&v);
}

TEST(views_a_family_with_a_stored_member_is_never_cut)
{
	struct views v;
	views_init(&v, 2);
	CHECK(!queue_and_decide(&v, "/list?cat=a&page=2", VIEW_HEARD_STORED));
	for (int i = 0; i < 10; i++) {
		char t[64];
		snprintf(t, sizeof t, "/list?cat=b%d&page=%d", i, i);
		CHECK(!queue_and_decide(&v, t, VIEW_HEARD_NOINDEX));
	}
	views_release(&v);
	/* Sample 0: nothing is ever cut, nor waits. */
	views_init(&v, 0);
	CHECK(!views_admit(&v, "/x?a=1&b=2"));
	CHECK(views_turn(NULL) && !views_cut(&v, NULL));
	views_release(&v);
}

/* Renders end in any order; the families hear their members in the
 * order they were queued, and a member is decided only once every
 * earlier one has settled: what is cut never depends on timing. */
TEST(views_members_are_decided_in_the_order_they_were_queued)
{
	struct views v;
	views_init(&v, 2);
	struct view_ticket *m[4];
	for (int i = 0; i < 4; i++) {
		char t[64];
		snprintf(t, sizeof t, "/i.php?title=P%d&action=edit", i);
		m[i] = views_admit(&v, t);
	}
	CHECK(views_turn(m[0]));
	CHECK(!views_turn(m[1]) && !views_turn(m[2]) && !views_turn(m[3]));
	CHECK(!views_cut(&v, m[0]));
	views_settle(m[0], VIEW_HEARD_NOINDEX);
	views_settle(m[0], VIEW_HEARD_NOINDEX); /* once only */
	CHECK(views_turn(m[1]) && !views_turn(m[2]));
	CHECK(!views_cut(&v, m[1])); /* one of 2 heard: rendered */
	views_settle(m[1], VIEW_HEARD_NOINDEX);
	CHECK(views_turn(m[2]));
	CHECK_STR("/i.php?action=…&title=…", views_cut(&v, m[2]));
	views_settle(m[2], VIEW_HEARD_NOTHING);
	CHECK(views_turn(m[3]) && views_cut(&v, m[3]) != NULL);
	for (int i = 0; i < 4; i++)
		views_ticket_free(m[i]);
	/* A run stopped halfway leaves members unsettled: the next run's
	 * first member does not wait for them. */
	struct view_ticket *left = views_admit(&v, "/i.php?title=Q1&action=info");
	struct view_ticket *waits = views_admit(&v, "/i.php?title=Q2&action=info");
	CHECK(!views_turn(waits));
	views_ticket_free(left);
	views_ticket_free(waits);
	views_new_run(&v);
	struct view_ticket *first = views_admit(&v, "/i.php?title=Q3&action=info");
	CHECK(views_turn(first));
	CHECK(views_cut(&v, first) != NULL); /* what the families heard stays */
	views_ticket_free(first);
	views_release(&v);
}

/* --view-family: the family's first `sample` members are rendered (their
 * links count, as in the sampled run), the rest cut whatever those said;
 * the summary names them apart. */
TEST(views_a_given_family_renders_its_sample_then_cuts)
{
	struct views v;
	views_init(&v, 2);
	CHECK(views_family_shape("/i.php?action=…&title=…"));
	CHECK(!views_family_shape("edit") && !views_family_shape("/i.php?action=edit"));
	views_give(&v, "/i.php?action=…&title=…");
	/* stored, which would keep a sampled family whole */
	CHECK(!queue_and_decide(&v, "/i.php?title=P1&action=edit", VIEW_HEARD_STORED));
	CHECK(!queue_and_decide(&v, "/i.php?title=P2&action=edit", VIEW_HEARD_STORED));
	CHECK_STR("/i.php?action=…&title=…", queue_and_decide(&v, "/i.php?title=P3&action=edit", VIEW_HEARD_STORED));
	struct buf b = BUF_INIT;
	views_summary(&v, true, 3, &b);
	CHECK_STR("1 URL not rendered, in 1 family --view-family names ('/i.php?action=…&title=…' 1)", buf_str(&b));
	buf_reset(&b);
	views_summary(&v, false, 3, &b);
	CHECK_STR("", buf_str(&b));
	struct strlist cut = STRLIST_INIT;
	views_cut_list(&v, &cut);
	CHECK(cut.n == 1 && !strcmp(cut.items[0], "/i.php?action=…&title=…\t1"));
	strlist_clear(&cut);
	buf_release(&b);
	views_release(&v);
	/* With no sample (--robots-meta ignore), cut from the first. */
	views_init(&v, 0);
	views_give(&v, "/i.php?action=…&title=…");
	CHECK(queue_and_decide(&v, "/i.php?title=P1&action=edit", VIEW_HEARD_STORED) != NULL);
	views_release(&v);
}

/* .cgisnap/views: the families a full crawl cut by their sample, for a
 * later process's updates, which cut them from their first member; a
 * given family is the options' to say, and nothing is learned without a
 * sample. */
TEST(views_what_a_sample_cut_is_kept_and_learned)
{
	struct views v;
	views_init(&v, 2);
	views_give(&v, "/i.php?do=…&id=…");
	CHECK(!queue_and_decide(&v, "/i.php?title=P1&action=edit", VIEW_HEARD_NOINDEX));
	CHECK(!queue_and_decide(&v, "/i.php?title=P2&action=edit", VIEW_HEARD_NOINDEX));
	CHECK(!queue_and_decide(&v, "/w/Special:History/P1", VIEW_HEARD_NOINDEX)); /* one heard: not cut */
	views_note_noindex(&v, "/i.php?title=Special:Log", false);
	views_note_noindex(&v, "/i.php?title=P3", false);
	views_note_noindex(&v, "/i.php?title=P3", true); /* stored since */
	CHECK(views_noindex_known(&v, "/i.php?title=Special:Log") && !views_noindex_known(&v, "/i.php?title=P3"));
	struct buf b = BUF_INIT;
	views_format_learned(&v, &b);
	CHECK_STR("/i.php?action=edit&title=…\n/i.php?action=…&title=…\n/i.php?title=Special:Log\n", buf_str(&b));
	views_release(&v);

	views_init(&v, 2);
	views_learn(&v, "/i.php?action=…&title=…", true);
	views_learn(&v, "not a family", true);
	CHECK_STR("/i.php?action=…&title=…", queue_and_decide(&v, "/i.php?title=P9&action=edit", VIEW_HEARD_NOINDEX));
	CHECK(!queue_and_decide(&v, "/i.php?title=P9&action=view&x=1", VIEW_HEARD_STORED));
	views_learn(&v, "/i.php?title=Special:Log", true);
	CHECK(views_noindex_known(&v, "/i.php?title=Special:Log"));
	buf_reset(&b);
	views_format_learned(&v, &b);
	CHECK_STR("/i.php?action=…&title=…\n/i.php?title=Special:Log\n", buf_str(&b));
	views_release(&v);

	views_init(&v, 0); /* --noindex-sample 0, --robots-meta ignore */
	views_learn(&v, "/i.php?action=…&title=…", false);
	views_learn(&v, "/i.php?title=Special:Log", false);
	CHECK(!queue_and_decide(&v, "/i.php?title=P9&action=edit", VIEW_HEARD_NOINDEX));
	CHECK(!views_noindex_known(&v, "/i.php?title=Special:Log"));
	buf_reset(&b);
	views_format_learned(&v, &b);
	CHECK_STR("", buf_str(&b));
	buf_release(&b);
	views_release(&v);
}
