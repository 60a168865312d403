/* test_loops.c - spotting pager and calendar loops (lib/crawl/loops.c). */
#include <stdio.h>
#include <stdlib.h>

#include "crawl/loops.h"
#include "unit.h"
#include "base/xalloc.h"

TEST(loops_a_pager_is_named_once)
{
	struct loops l;
	int said = 0;
	loops_init(&l, 5);
	for (long n = 1; n <= 20; n++) {
		char *t = xasprintf("/list?n=%ld", n);
		char *msg = loops_note(&l, t, n - 1);
		if (msg && !said)
			CHECK_INT(5, n); /* the fifth value reaches the threshold */
		if (msg) {
			CHECK_STR("'/list?n=…' has 5+ distinct values of 'n' (a pager or calendar loop? "
				  "use --exclude or --max-pages)", msg);
			said++;
		}
		free(msg);
		free(t);
	}
	CHECK_INT(1, said);
	loops_release(&l);
}

TEST(loops_names_the_parameter_that_moves)
{
	struct loops l;
	char *last = NULL;
	loops_init(&l, 4);
	/* The month cycles, the year only grows: each page links the next
	 * month, so both change, the month at every step. */
	for (long i = 0; i < 30; i++) {
		char *t = xasprintf("/cal?view=month&y=%ld&m=%ld", 2020 + i / 12, 1 + i % 12);
		char *msg = loops_note(&l, t, i);
		if (msg) {
			free(last);
			last = msg;
		}
		free(t);
	}
	CHECK_STR("'/cal?m=…&view=…&y=…' has 4+ distinct values of 'm' (a pager or calendar loop? "
		  "use --exclude or --max-pages)", last);
	free(last);
	loops_release(&l);
}

TEST(loops_links_side_by_side_are_no_loop)
{
	struct loops l;
	loops_init(&l, 3);
	/* An index of many items at one depth, each item page one deeper. */
	for (long i = 0; i < 500; i++) {
		char *t = xasprintf("/item?id=%ld", i);
		CHECK_STR_FREE(NULL, loops_note(&l, t, 1));
		free(t);
	}
	char *msg = loops_note(&l, "/item?id=x&do=edit", 2); /* another family */
	CHECK_STR(NULL, msg);
	free(msg);
	msg = loops_note(&l, "/item?id=9999", 2);
	CHECK_STR(NULL, msg); /* two steps, two values */
	free(msg);
	/* Targets without a query, and no threshold, are never counted. */
	CHECK_STR(NULL, loops_note(&l, "/a", 5));
	loops_release(&l);
	loops_init(&l, 0);
	for (long n = 0; n < 10; n++) {
		char *t = xasprintf("/p?n=%ld", n);
		CHECK_STR(NULL, loops_note(&l, t, n));
		free(t);
	}
	loops_release(&l);
}

TEST(loops_memory_is_bounded)
{
	struct loops l;
	loops_init(&l, 2);
	for (long i = 0; i < LOOPS_FAMILIES + 100; i++) {
		char *t = xasprintf("/f%ld?x=1", i);
		free(loops_note(&l, t, 0));
		free(t);
	}
	CHECK_INT(LOOPS_FAMILIES, l.families.count);
	/* A family past the cap is not counted; the known ones still are. */
	char *msg = loops_note(&l, "/f0?x=2", 1);
	CHECK(msg != NULL);
	free(msg);
	CHECK_STR_FREE(NULL, loops_note(&l, "/new?x=2", 1));
	loops_release(&l);
	CHECK_INT(0, l.families.count);
}
