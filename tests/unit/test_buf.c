/* test_buf.c - struct buf and struct strlist. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "base/buf.h"
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

TEST(buf_read_fd_whole_capped_and_failed)
{
	struct buf b = BUF_INIT;
	int p[2];
	CHECK_INT(0, pipe(p));
	CHECK_INT(5, write(p[1], "hello", 5));
	close(p[1]);
	buf_adds(&b, "> ");
	CHECK_INT(0, buf_read_fd(&b, p[0], 5));
	close(p[0]);
	CHECK_STR("> hello", b.data);

	/* Past the cap: EFBIG, and no more than one byte past it was read. */
	buf_reset(&b);
	int fd = open("/dev/zero", O_RDONLY);
	CHECK(fd >= 0);
	errno = 0;
	CHECK_INT(-1, buf_read_fd(&b, fd, 100000));
	CHECK_INT(EFBIG, errno);
	CHECK_INT(100001, b.len);
	close(fd);

	/* A read error: the errno of read. */
	buf_reset(&b);
	fd = open("/", O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0);
	errno = 0;
	CHECK_INT(-1, buf_read_fd(&b, fd, 10));
	CHECK_INT(EISDIR, errno);
	close(fd);
	buf_release(&b);
}

TEST(strlist_merge_makes_the_union_of_two_sets)
{
	struct strlist a = STRLIST_INIT, b = STRLIST_INIT, none = STRLIST_INIT;
	strlist_split(&a, "/b,/d,/f", ',');
	strlist_split(&b, "/a,/b,/c,/f,/g", ',');
	strlist_merge(&a, &b);
	const char *want[] = { "/a", "/b", "/c", "/d", "/f", "/g" };
	CHECK_INT(COUNT(want), a.n);
	for (size_t i = 0; i < COUNT(want) && i < a.n; i++)
		CHECK_STR(want[i], a.items[i]);
	/* other's strings were copied: it is whole after a's are freed */
	CHECK(a.items[0] != b.items[0]);
	strlist_merge(&a, &none);
	CHECK_INT(COUNT(want), a.n);
	strlist_clear(&a);
	CHECK_STR("/g", b.items[4]);
	strlist_merge(&none, &b);
	CHECK_INT(5, none.n);
	CHECK_STR("/a", none.items[0]);
	strlist_clear(&none);
	strlist_clear(&b);
}

TEST(strlist_sort_of_a_sorted_list_and_of_one_sorted_but_for_its_end)
{
	struct strlist l = STRLIST_INIT;
	strlist_split(&l, "a,b,b,c", ',');
	CHECK(strlist_sorted(&l)); /* repeats allowed */
	strlist_sort(&l);
	CHECK_STR("a", l.items[0]);
	CHECK_STR("c", l.items[3]);
	strlist_add(&l, "0");
	CHECK(!strlist_sorted(&l));
	strlist_sort(&l);
	CHECK_STR("0", l.items[0]);
	CHECK_STR("c", l.items[4]);
	strlist_clear(&l);
}
