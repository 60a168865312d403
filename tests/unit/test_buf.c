/* test_buf.c - struct buf and struct strlist. */
#include <stdlib.h>

#include "buf.h"
#include "unit.h"

TEST(buf_formats_and_grows)
{
	struct buf b = BUF_INIT;
	CHECK_STR("", buf_str(&b));
	for (int i = 0; i < 1000; i++)
		buf_addf(&b, "%d,", i);
	CHECK_INT(3890, b.len);
	CHECK(!strncmp(b.data, "0,1,2,", 6));
	CHECK_INT('\0', b.data[b.len]);
	buf_truncate(&b, 2);
	CHECK_STR("0,", b.data);
	buf_release(&b);
}

TEST(strlist_split_sort_uniq)
{
	struct strlist l = STRLIST_INIT;
	strlist_split(&l, "b,,a,b,c,", ',');
	CHECK_INT(4, l.n);
	strlist_sort(&l);
	strlist_uniq(&l);
	CHECK_INT(3, l.n);
	CHECK_STR("a", l.items[0]);
	CHECK_STR("c", l.items[2]);
	CHECK(strlist_contains(&l, "b"));
	CHECK(!strlist_contains(&l, "d"));
	strlist_clear(&l);
}
