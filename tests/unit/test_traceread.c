/* test_traceread.c - the tracer's stream read into lists (traceread.h). */
#include <string.h>

#include "base/buf.h"
#include "trace/traceread.h"
#include "unit.h"

TEST(traceread_paths_made_absolute_and_clean)
{
	struct strlist read = STRLIST_INIT, exist = STRLIST_INIT, listed = STRLIST_INIT, written = STRLIST_INIT;
	struct trace_lists to = { &read, &exist, &listed, &written };
	struct trace_read tr = TRACE_READ_INIT;
	/* Clean paths are taken as they are; every other spelling is
	 * rebuilt, and both give the same list. */
	const char *stream = "H 12\n"
			     "R /srv/wiki/doku.php\n"
			     "R /srv//wiki/./inc/../inc/init.php\n"
			     "R /srv/wiki/inc/init.php\n"
			     "R /srv/wiki/data/\n"
			     "R /srv/wiki/.hidden/..x/.../a\n"
			     "R /srv/wiki/data/..\n"
			     "R /srv/wiki/.\n"
			     "R /..\n"
			     "R /\n"
			     "E conf/local.php\n"
			     "E ./conf/../conf/x.php\n"
			     "L /srv/wiki/data/pages/\n"
			     "W /srv/wiki/data/cache/a.tmp\n"
			     "Rbad line\n";
	trace_read_feed(&tr, "/srv/wiki", stream, strlen(stream), &to);
	trace_read_finish(&to);
	CHECK(tr.hello);
	const char *want_read[] = { "/", "/srv/wiki", "/srv/wiki/.hidden/..x/.../a", "/srv/wiki/data",
				    "/srv/wiki/doku.php", "/srv/wiki/inc/init.php" };
	CHECK_INT(COUNT(want_read), read.n);
	for (size_t i = 0; i < COUNT(want_read) && i < read.n; i++)
		CHECK_STR(want_read[i], read.items[i]);
	CHECK_INT(2, exist.n);
	CHECK_STR("/srv/wiki/conf/local.php", exist.items[0]);
	CHECK_STR("/srv/wiki/conf/x.php", exist.items[1]);
	CHECK_INT(1, listed.n);
	CHECK_STR("/srv/wiki/data/pages", listed.items[0]);
	CHECK_INT(1, written.n);
	trace_read_release(&tr);
	strlist_clear(&read);
	strlist_clear(&exist);
	strlist_clear(&listed);
	strlist_clear(&written);
}

TEST(traceread_a_childs_end_stops_the_reading_and_keeps_the_next_childs_lines)
{
	struct strlist read = STRLIST_INIT, exist = STRLIST_INIT, listed = STRLIST_INIT, written = STRLIST_INIT;
	struct trace_lists to = { &read, &exist, &listed, &written };
	struct trace_read tr = TRACE_READ_INIT;
	/* A slot of php-cgi's children (protocol.h): a child's lines, its
	 * end (SIGKILL's wait status), then the next child's. */
	const char *stream = "H 4242\nB 1\nR /a\nH 77\nD 9\nH 4243\nR /b\nB 1\n";
	tr.slot = true;
	trace_read_add(&tr, stream, strlen(stream));
	CHECK(trace_read_holds(&tr, 'D'));
	CHECK(!trace_read_holds(&tr, 'X'));
	trace_read_feed(&tr, "/", "", 0, &to);
	CHECK_INT(4242, tr.pid); /* the child's: H 77 is a program it started */
	CHECK_INT(9, tr.died);
	CHECK_INT(1, read.n);
	CHECK_STR("/a", read.items[0]);
	CHECK_STR("H 4243\nR /b\nB 1\n", buf_str(&tr.pending));
	/* Read again from there, as a fresh slot does. */
	struct trace_read next = TRACE_READ_INIT;
	next.slot = true;
	trace_read_feed(&next, "/", tr.pending.data, tr.pending.len, &to);
	CHECK_INT(4243, next.pid);
	CHECK_INT(-1, next.died);
	CHECK_INT(2, read.n);
	CHECK_INT(1, next.boundary);
	/* Elsewhere (a process per render) a D line is nothing, and no pid
	 * beyond what a process can have is taken. */
	struct trace_read fork_mode = TRACE_READ_INIT, forged = TRACE_READ_INIT;
	const char *other = "H 12\nD 9\nR /c\n";
	trace_read_feed(&fork_mode, "/", other, strlen(other), &to);
	CHECK_INT(-1, fork_mode.died);
	CHECK_INT(3, read.n);
	forged.slot = true;
	trace_read_feed(&forged, "/", "H 4294967295\n", 14, &to);
	CHECK_INT(0, forged.pid);
	trace_read_release(&fork_mode);
	trace_read_release(&forged);
	trace_read_release(&tr);
	trace_read_release(&next);
	strlist_clear(&read);
	strlist_clear(&exist);
	strlist_clear(&listed);
	strlist_clear(&written);
}

TEST(traceread_a_connection_is_told_by_its_id_not_by_its_count)
{
	struct strlist read = STRLIST_INIT, exist = STRLIST_INIT, listed = STRLIST_INIT, written = STRLIST_INIT;
	struct trace_lists to = { &read, &exist, &listed, &written };
	struct trace_read tr = TRACE_READ_INIT;
	/* Connection 5 was given up on, and a worker served it all the same
	 * before connection 7, the one wanted. */
	const char *stream = "H 12\nB 1\nA 5\nR /given-up\nB 2\nA 7\nR /wanted\nB 3\nA 9\nR /next\n";
	trace_read_want(&tr, 7);
	trace_read_feed(&tr, "/", stream, strlen(stream), &to);
	CHECK(trace_read_done(&tr));
	CHECK_INT(1, read.n);
	CHECK_STR("/wanted", read.items[0]);
	CHECK_STR("A 9\nR /next\n", buf_str(&tr.pending)); /* the next request's */
	trace_read_want(&tr, 9);
	trace_read_feed(&tr, "/", "B 4\n", 4, &to);
	CHECK(trace_read_done(&tr));
	CHECK_INT(2, read.n);
	trace_read_release(&tr);
	strlist_clear(&read);
	strlist_clear(&exist);
	strlist_clear(&listed);
	strlist_clear(&written);
}
