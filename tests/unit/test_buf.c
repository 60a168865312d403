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
