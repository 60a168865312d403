/* test_budget.c - --max-pages spent across URL families (budget.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "crawl/budget.h"
#include "unit.h"

TEST(budget_family_is_the_path_and_the_parameter_names)
{
	struct buf key = BUF_INIT;
	budget_family("/cal/month.cgi?y=2026&m=3", &key);
	CHECK_STR("/cal/month.cgi?m=…&y=…", buf_str(&key));
	budget_family("/cal/month.cgi?m=4&y=2027&m=5", &key);
	CHECK_STR("/cal/month.cgi?m=…&y=…", buf_str(&key));
	budget_family("/blog/2026/post.html", &key);
	CHECK_STR("/blog/2026/…", buf_str(&key));
	budget_family("/", &key);
	CHECK_STR("/…", buf_str(&key));
	buf_release(&key);
}

/* budget_round's taker for the tests: the targets, one a line. */
static void take_into(void *arg, char *target, long depth, unsigned how)
{
	buf_addf(arg, "%s %ld %u\n", target, depth, how);
	free(target);
}

static void drop_into(void *arg, const char *target)
{
	buf_addf(arg, "%s\n", target);
}

TEST(budget_a_family_waits_past_its_head_and_the_waiting_take_turns)
{
	struct budget b;
	budget_init(&b, 500); /* head: 1% of 500 is under the least, 10 */
	CHECK(b.head == BUDGET_HEAD_MIN);
	char t[64];
	for (int i = 1; i <= 13; i++) {
		snprintf(t, sizeof t, "/day?d=%d", i);
		CHECK(budget_note(&b, t, 1, 0, true) == (i <= 10));
	}
	CHECK(budget_note(&b, "/tag?t=1", 2, 0, true));
	for (int i = 2; i <= 12; i++) {
		snprintf(t, sizeof t, "/tag?t=%d", i);
		budget_note(&b, t, 2, 4, true);
	}
	/* A seed or a requisite never waits, and counts. */
	CHECK(budget_note(&b, "/day?d=99", 0, 2, false));
	CHECK(b.waiting == 3 + 2);
	struct buf got = BUF_INIT;
	CHECK(budget_round(&b, 3, take_into, &got) == 3);
	CHECK_STR("/day?d=11 1 0\n/tag?t=11 2 4\n/day?d=12 1 0\n", buf_str(&got));
	buf_reset(&got);
	CHECK(budget_drop(&b, drop_into, &got) == 2);
	CHECK_STR("/day?d=13\n/tag?t=12\n", buf_str(&got));
	CHECK(b.waiting == 0);
	CHECK(budget_round(&b, 10, take_into, &got) == 0);
	budget_clear(&b);
	buf_release(&got);
}

TEST(budget_without_a_bound_nothing_waits)
{
	struct budget b;
	budget_init(&b, 0);
	for (int i = 0; i < 50; i++)
		CHECK(budget_note(&b, "/day?d=1", 1, 0, true));
	CHECK(b.waiting == 0);
	budget_clear(&b);
	budget_init(&b, 100000);
	CHECK(b.head == 100000 / BUDGET_HEAD_SHARE);
	budget_clear(&b);
}
