/* test_watch_exec.c - the --exec hook (a real /bin/sh: its directory, its
 * stdin, its exit status) and the source scan (directories counted, the
 * newest file's mtime). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "xalloc.h"
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

TEST(watch_exec_runs_in_the_tree_with_keys_on_stdin)
{
	char err[ERR_LEN];
	char *d = unit_temp_dir("exec");
	struct strlist keys = STRLIST_INIT;
	strlist_add(&keys, "index.html");
	strlist_add(&keys, "doku.php@id=wiki:syntax.html");

	CHECK_INT(0, watch_exec("cat > got && pwd > where", d, &keys, err));
	char *got_path = xasprintf("%s/got", d), *where_path = xasprintf("%s/where", d);
	char *got = slurp(got_path), *where = slurp(where_path);
	CHECK_STR("index.html\ndoku.php@id=wiki:syntax.html\n", got);
	char *want = xasprintf("%s\n", d);
	CHECK_STR(want, where);

	/* the status comes back; a command that never reads stdin is fine */
	CHECK_INT(3, watch_exec("exit 3", d, &keys, err));
	for (int i = 0; i < 20000; i++)
		strlist_add(&keys, "a/long/enough/key/to/fill/any/pipe/buffer.html");
	CHECK_INT(0, watch_exec("true", d, &keys, err));
	CHECK_INT(-1, watch_exec("kill -9 $$", d, &keys, err));
	CHECK_STR("--exec 'kill -9 $$' was killed by signal 9", err);

	strlist_clear(&keys);
	unit_remove_tree(d);
	free(got_path);
	free(where_path);
	free(got);
	free(where);
	free(want);
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
