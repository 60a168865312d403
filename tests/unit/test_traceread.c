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
