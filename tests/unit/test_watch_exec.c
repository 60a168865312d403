/* test_watch_exec.c - the --exec hook (a real /bin/sh: its directory, its
 * stdin, its exit status) and the source scan (directories counted, the
 * newest file's mtime). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "../../watch/exec.h"
#include "../../watch/scan.h"
#include "helpers.h"
#include "unit.h"

static char *slurp(const char *path)
{
	struct buf b = BUF_INIT;
	FILE *f = fopen(path, "r");
	char chunk[512];
	size_t n;
	while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, n);
	if (f)
		fclose(f);
	buf_adds(&b, "");
	return buf_detach(&b, NULL);
}

TEST(watch_exec_runs_in_the_tree_with_the_lists_on_stdin_and_in_files)
{
	char err[ERR_LEN];
	char *d = unit_temp_dir("exec");
	struct strlist keys = STRLIST_INIT, removed = STRLIST_INIT;
	strlist_add(&keys, "index.html");
	strlist_add(&keys, "doku.php@id=wiki:syntax.html");
	strlist_add(&removed, "old/x.html");
	strlist_add(&removed, "old/");

	/* $CGISNAP_WRITTEN can be read besides stdin, and twice */
	CHECK_INT(0, watch_exec("cat > got && pwd > where && cat \"$CGISNAP_WRITTEN\" \"$CGISNAP_WRITTEN\" > w2 && "
				"cat \"$CGISNAP_REMOVED\" > rm",
				d, &keys, &removed, err));
	char *got_path = xasprintf("%s/got", d), *where_path = xasprintf("%s/where", d);
	char *w2_path = xasprintf("%s/w2", d), *rm_path = xasprintf("%s/rm", d);
	char *got = slurp(got_path), *where = slurp(where_path), *w2 = slurp(w2_path), *rm = slurp(rm_path);
	CHECK_STR("index.html\ndoku.php@id=wiki:syntax.html\n", got);
	CHECK_STR("index.html\ndoku.php@id=wiki:syntax.html\nindex.html\ndoku.php@id=wiki:syntax.html\n", w2);
	CHECK_STR("old/x.html\nold/\n", rm);
	char *want = xasprintf("%s\n", d);
	CHECK_STR(want, where);

	/* the status comes back; a command that never reads stdin is fine */
	CHECK_INT(3, watch_exec("exit 3", d, &keys, &removed, err));
	for (int i = 0; i < 20000; i++)
		strlist_add(&keys, "a/long/enough/key/to/fill/any/pipe/buffer.html");
	CHECK_INT(0, watch_exec("true", d, &keys, &removed, err));
	CHECK_INT(-1, watch_exec("kill -9 $$", d, &keys, &removed, err));
	CHECK_STR("--exec 'kill -9 $$' was killed by signal 9", err);

	/* descriptors 3 and 4 closed in watch: the lists still get there */
	int saved3 = fcntl(3, F_DUPFD_CLOEXEC, 10), saved4 = fcntl(4, F_DUPFD_CLOEXEC, 10);
	close(3);
	close(4);
	struct strlist one = STRLIST_INIT;
	strlist_add(&one, "a.html");
	CHECK_INT(0, watch_exec("cat \"$CGISNAP_REMOVED\" > rm", d, &keys, &one, err));
	if (saved3 >= 0)
		dup3(saved3, 3, O_CLOEXEC), close(saved3);
	if (saved4 >= 0)
		dup3(saved4, 4, O_CLOEXEC), close(saved4);
	free(rm);
	rm = slurp(rm_path);
	CHECK_STR("a.html\n", rm);

	strlist_clear(&keys);
	strlist_clear(&removed);
	strlist_clear(&one);
	unit_remove_tree(d);
	free(got_path);
	free(where_path);
	free(w2_path);
	free(rm_path);
	free(got);
	free(where);
	free(w2);
	free(rm);
	free(want);
	free(d);
}

TEST(watch_exec_orders_the_lists_removed_contents_before_their_directory)
{
	struct strlist w = STRLIST_INIT, r = STRLIST_INIT;
	strlist_add(&w, "b.html");
	strlist_add(&w, "a.html.gz");
	strlist_add(&w, "b.html");
	strlist_add(&w, "a.html");
	strlist_add(&r, "x/");
	strlist_add(&r, "x/y/p.html");
	strlist_add(&r, "top.html.gz");
	strlist_add(&r, "x/y/");
	strlist_add(&r, "x/q.html");
	exec_order(&w, &r);
	CHECK_STR_FREE("a.html | a.html.gz | b.html", unit_joined(&w, " | "));
	CHECK_STR_FREE("x/y/p.html | x/y/ | x/q.html | x/ | top.html.gz", unit_joined(&r, " | "));
	strlist_clear(&w);
	strlist_clear(&r);
}

TEST(watch_exec_lists_the_metadata_files_that_changed)
{
	char *d = unit_temp_dir("exec");
	int fd = open(d, O_RDONLY | O_DIRECTORY);
	unit_put(d, "tree.db", "m1");
	unit_put(d, "settings", "s1");
	unit_put(d, "404.html", "nf");
	unit_put(d, "lock", "d1");
	struct exec_meta before;
	exec_meta_snap(fd, &before);
	struct strlist w = STRLIST_INIT, r = STRLIST_INIT;
	exec_meta_changes(fd, &before, &w, &r);
	CHECK_INT(0, w.n + r.n); /* nothing changed */

	/* replaced by rename (a new inode), removed, and the lock (watch's own) */
	unit_put(d, "tree.db.new", "m1");
	char *a = xasprintf("%s/tree.db.new", d), *b = xasprintf("%s/tree.db", d), *nf = xasprintf("%s/404.html", d);
	CHECK_INT(0, rename(a, b));
	CHECK_INT(0, unlink(nf));
	unit_put(d, "lock", "d2");
	exec_meta_changes(fd, &before, &w, &r);
	CHECK_INT(1, w.n);
	CHECK_STR(".cgisnap/tree.db", w.items[0]);
	CHECK_INT(1, r.n);
	CHECK_STR(".cgisnap/404.html", r.items[0]);

	strlist_clear(&w);
	strlist_clear(&r);
	close(fd);
	unit_remove_tree(d);
	free(a);
	free(b);
	free(nf);
	free(d);
}

static void file_at(const char *dir, const char *name, time_t mtime)
{
	char *p = xasprintf("%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct timespec ts[2] = { { mtime, 0 }, { mtime, 0 } };
	if (fd >= 0) {
		futimens(fd, ts);
		close(fd);
	}
	free(p);
}

TEST(watch_scan_counts_directories_and_finds_the_newest_file)
{
	char *d = unit_temp_dir("exec");
	char *a = xasprintf("%s/a", d), *b = xasprintf("%s/a/b", d), *link = xasprintf("%s/link", d);
	mkdir(a, 0755);
	mkdir(b, 0755);
	file_at(d, "top.txt", 1000);
	file_at(d, "a/b/deep.txt", 3000);
	file_at(d, "a/mid.txt", 2000);
	CHECK_INT(0, symlink("/usr", link)); /* not followed */
	struct timespec old[2] = { { 500, 0 }, { 500, 0 } };
	CHECK_INT(0, utimensat(AT_FDCWD, link, old, AT_SYMLINK_NOFOLLOW));

	struct scan_stats st;
	memset(&st, 0, sizeof st);
	scan_path(d, &st);
	CHECK_INT(3, st.dirs);
	CHECK_INT(4, st.files); /* the link counts as a file */
	CHECK_INT(3000, st.newest.tv_sec);

	/* a single file, added to what was counted */
	char *top = xasprintf("%s/top.txt", d);
	memset(&st, 0, sizeof st);
	scan_path(top, &st);
	CHECK_INT(0, st.dirs);
	CHECK_INT(1, st.files);
	CHECK_INT(1000, st.newest.tv_sec);
	scan_path("/nonexistent/cgisnap", &st);
	CHECK_INT(1, st.files);

	struct timespec x = { 5, 1 }, y = { 5, 0 }, z = { 4, 999999999 };
	CHECK(timespec_after(&x, &y));
	CHECK(timespec_after(&y, &z));
	CHECK(!timespec_after(&y, &x));
	CHECK(!timespec_after(&y, &y));

	unit_remove_tree(d);
	free(a);
	free(b);
	free(link);
	free(top);
	free(d);
}
