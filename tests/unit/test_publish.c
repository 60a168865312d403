/* test_publish.c - atomic publishing, unchanged detection, .gz siblings. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/buf.h"
#include "base/log.h"
#include "tree/publish.h"
#include "base/sha256.h"
#include "helpers.h"
#include "unit.h"
#include "base/xalloc.h"

static int make_tree(char *path)
{
	if (!mkdtemp(path))
		return -1;
	return open(path, O_RDONLY | O_DIRECTORY);
}

/* A test's end: the tree at path, open as fd, goes. */
static void tree_done(int fd, const char *path)
{
	close(fd);
	unit_remove_tree(path);
}

static char *read_all(int dirfd, const char *name, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY);
	if (fd < 0)
		return NULL;
	struct buf b = BUF_INIT;
	buf_read_fd(&b, fd, (size_t)1 << 30);
	close(fd);
	return buf_detach(&b, len);
}

static struct timespec mtime_of(int dirfd, const char *name)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, 0) < 0)
		return (struct timespec){ 0, 0 };
	return st.st_mtim;
}

TEST(publish_new_unchanged_changed)
{
	char path[] = "/tmp/cgisnap-pub-XXXXXX";
	int fd = make_tree(path);
	char err[ERR_LEN];
	CHECK_INT(PUBLISH_NEW, publish_data(fd, "a/b/index.html", "one", 3, false, err));
	struct timespec t1 = mtime_of(fd, "a/b/index.html");
	CHECK_INT(PUBLISH_UNCHANGED, publish_data(fd, "a/b/index.html", "one", 3, false, err));
	struct timespec t2 = mtime_of(fd, "a/b/index.html");
	CHECK(t1.tv_sec == t2.tv_sec && t1.tv_nsec == t2.tv_nsec);
	CHECK_INT(PUBLISH_CHANGED, publish_data(fd, "a/b/index.html", "two!", 4, false, err));
	size_t len;
	CHECK_STR_FREE("two!", read_all(fd, "a/b/index.html", &len));
	/* same size, different bytes */
	CHECK_INT(PUBLISH_CHANGED, publish_data(fd, "a/b/index.html", "tw0!", 4, false, err));
	CHECK_INT(PUBLISH_NEW, publish_data(fd, "empty", "", 0, false, err));
	CHECK_INT(PUBLISH_UNCHANGED, publish_data(fd, "empty", "", 0, false, err));
	tree_done(fd, path);
}

TEST(publish_leaves_no_temp_files_and_reports_conflicts)
{
	char path[] = "/tmp/cgisnap-pub-XXXXXX";
	int fd = make_tree(path);
	char err[ERR_LEN];
	CHECK_INT(PUBLISH_NEW, publish_data(fd, "file", "x", 1, false, err));
	CHECK_INT(-1, publish_data(fd, "file/sub.html", "y", 1, false, err));
	CHECK_STR("cannot create directory 'file': a file is in the way", err);
	CHECK_INT(PUBLISH_NEW, publish_data(fd, "dir/x.html", "y", 1, false, err));
	CHECK_INT(-1, publish_data(fd, "dir", "z", 1, false, err));
	CHECK_STR("cannot publish 'dir': a directory is in the way", err);
	char *cmd = xasprintf("test -z \"$(find '%s' -name '.cgisnap-tmp-*')\"", path);
	CHECK_INT(0, system(cmd));
	free(cmd);
	tree_done(fd, path);
}

TEST(publish_gzip_sibling_in_step)
{
	char path[] = "/tmp/cgisnap-pub-XXXXXX";
	int fd = make_tree(path);
	char err[ERR_LEN];
	struct buf page = BUF_INIT;
	for (int i = 0; i < 200; i++)
		buf_addf(&page, "<p>paragraph %d of a page</p>\n", i);
	CHECK_INT(PUBLISH_NEW, publish_data(fd, "p.html", page.data, page.len, true, err));
	struct timespec tp = mtime_of(fd, "p.html"), tg = mtime_of(fd, "p.html.gz");
	CHECK(tp.tv_sec == tg.tv_sec && tp.tv_nsec == tg.tv_nsec);

	/* The .gz really is gzip of the page. */
	size_t gzlen;
	char *gz = read_all(fd, "p.html.gz", &gzlen);
	CHECK(gz && gzlen > 18 && (unsigned char)gz[0] == 0x1f && (unsigned char)gz[1] == 0x8b);
	char *plain = xmalloc(page.len + 1);
	z_stream z = { 0 };
	inflateInit2(&z, 15 + 16);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)gzlen;
	z.next_out = (Bytef *)plain;
	z.avail_out = (uInt)page.len + 1;
	CHECK_INT(Z_STREAM_END, inflate(&z, Z_FINISH));
	CHECK_INT(page.len, z.total_out);
	CHECK(!memcmp(plain, page.data, page.len));
	inflateEnd(&z);
	free(plain);
	free(gz);

	/* A stale .gz (other mtime) is rewritten even when the page is unchanged. */
	struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };
	utimensat(fd, "p.html.gz", old, 0);
	CHECK_INT(PUBLISH_UNCHANGED, publish_data(fd, "p.html", page.data, page.len, true, err));
	tg = mtime_of(fd, "p.html.gz");
	CHECK(tp.tv_sec == tg.tv_sec && tp.tv_nsec == tg.tv_nsec);

	/* Small pages and gzip off: no .gz left behind. */
	CHECK_INT(PUBLISH_CHANGED, publish_data(fd, "p.html", "small", 5, true, err));
	CHECK(faccessat(fd, "p.html.gz", F_OK, 0) < 0);
	CHECK_INT(PUBLISH_CHANGED, publish_data(fd, "p.html", page.data, page.len, true, err));
	CHECK(faccessat(fd, "p.html.gz", F_OK, 0) == 0);
	CHECK_INT(PUBLISH_UNCHANGED, publish_data(fd, "p.html", page.data, page.len, false, err));
	CHECK(faccessat(fd, "p.html.gz", F_OK, 0) < 0);
	buf_release(&page);
	tree_done(fd, path);
}

/* "a, b, " of a list: what the noted calls said they did. */
static char *joined(struct strlist *l)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < l->n; i++)
		buf_addf(&b, "%s, ", l->items[i]);
	buf_adds(&b, "");
	strlist_clear(l);
	return buf_detach(&b, NULL);
}

#define CHECK_NOTED(want, list) CHECK_STR_FREE(want, joined(list))

TEST(publish_notes_every_path_it_writes_and_removes)
{
	char path[] = "/tmp/cgisnap-pub-XXXXXX";
	int fd = make_tree(path);
	char err[ERR_LEN];
	struct strlist w = STRLIST_INIT, r = STRLIST_INIT;
	struct publish_paths paths = { &w, &r };
	struct buf page = BUF_INIT;
	for (int i = 0; i < 200; i++)
		buf_addf(&page, "<p>paragraph %d of a page</p>\n", i);

	CHECK_INT(PUBLISH_NEW, publish_data_noted(fd, "d/e/p.html", page.data, page.len, true, &paths, err));
	CHECK_NOTED("d/e/p.html.gz, d/e/p.html, ", &w);
	CHECK_NOTED("", &r);
	/* unchanged: nothing; a stale .gz repaired: the .gz alone */
	CHECK_INT(PUBLISH_UNCHANGED, publish_data_noted(fd, "d/e/p.html", page.data, page.len, true, &paths, err));
	CHECK_NOTED("", &w);
	struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };
	int dfd = openat(fd, "d/e", O_RDONLY | O_DIRECTORY);
	utimensat(dfd, "p.html.gz", old, 0);
	CHECK_INT(PUBLISH_UNCHANGED, publish_data_noted(fd, "d/e/p.html", page.data, page.len, true, &paths, err));
	CHECK_NOTED("d/e/p.html.gz, ", &w);
	/* a page that shrank: written, its .gz removed */
	CHECK_INT(PUBLISH_CHANGED, publish_data_noted(fd, "d/e/p.html", "small", 5, true, &paths, err));
	CHECK_NOTED("d/e/p.html, ", &w);
	CHECK_NOTED("d/e/p.html.gz, ", &r);
	/* removed: the file, no .gz (none there), the directories left empty */
	CHECK_INT(PUBLISH_NEW, publish_data_noted(fd, "d/q.html", "q", 1, true, &paths, err));
	CHECK_NOTED("d/q.html, ", &w);
	CHECK_INT(0, publish_remove_noted(fd, "d/e/p.html", -1, NULL, &paths, err));
	CHECK_NOTED("d/e/p.html, d/e/, ", &r);
	CHECK_INT(0, publish_remove_noted(fd, "d/q.html", -1, NULL, &paths, err));
	CHECK_NOTED("d/q.html, d/, ", &r);
	/* what is not there is not noted */
	CHECK_INT(0, publish_remove_noted(fd, "d/q.html", -1, NULL, &paths, err));
	CHECK_NOTED("", &r);
	CHECK_NOTED("", &w);

	close(dfd);
	buf_release(&page);
	tree_done(fd, path);
}

TEST(publish_copy_and_remove)
{
	char path[] = "/tmp/cgisnap-pub-XXXXXX";
	int fd = make_tree(path);
	char err[ERR_LEN];
	char *src = xasprintf("%s/.src", path);
	FILE *f = fopen(src, "w");
	fputs("body { color: red }\n", f);
	fclose(f);
	CHECK_INT(PUBLISH_NEW, publish_copy(fd, "x/y/style.css", src, true, err));
	CHECK_INT(PUBLISH_UNCHANGED, publish_copy(fd, "x/y/style.css", src, true, err));
	CHECK_INT(-1, publish_copy(fd, "x/z.css", "/nonexistent/file", false, err));
	CHECK_STR("cannot read '/nonexistent/file': No such file or directory", err);
	CHECK_INT(0, publish_remove(fd, "x/y/style.css", -1, NULL, err));
	CHECK(faccessat(fd, "x", F_OK, 0) < 0); /* empty parents removed */
	CHECK_INT(0, publish_remove(fd, "x/y/style.css", -1, NULL, err)); /* missing is fine */
	CHECK_INT(0, write_file_atomic(fd, "meta", "abc", 3, err));
	size_t len;
	CHECK_STR_FREE("abc", read_all(fd, "meta", &len));
	free(src);
	tree_done(fd, path);
}

/* make_tree(path), and a directory outside the tree, made from the
 * mkdtemp template outside, holding page/index.html, with a symbolic
 * link x -> it inside the tree (the repro of issue 9, item 1). */
static int make_tree_linking_out(char *path, char *outside)
{
	int fd = make_tree(path);
	CHECK(mkdtemp(outside) != NULL);
	unit_make_dir(outside, "page");
	unit_put(outside, "page/index.html", "outside");
	CHECK_INT(0, symlinkat(outside, fd, "x"));
	return fd;
}

TEST(publish_never_writes_through_a_symbolic_link)
{
	char path[] = "/tmp/cgisnap-pub-XXXXXX", outside[] = "/tmp/cgisnap-out-XXXXXX";
	int fd = make_tree_linking_out(path, outside);
	char err[ERR_LEN];
	CHECK_INT(-1, publish_data(fd, "x/page/index.html", "mine", 4, false, err));
	CHECK_STR("'x' is a symbolic link: cgisnap never writes or removes through one", err);
	CHECK_INT(-1, publish_data(fd, "x/new/index.html", "mine", 4, false, err));
	CHECK_STR("'x' is a symbolic link: cgisnap never writes or removes through one", err);
	/* Nothing was written outside, not even a directory or a temp file. */
	char *cmd = xasprintf("test \"$(cd '%s' && find . | sort | tr '\\n' ' ')\" = '. ./page ./page/index.html '",
			      outside);
	CHECK_INT(0, system(cmd));
	free(cmd);
	int ofd = open(outside, O_RDONLY | O_DIRECTORY);
	size_t len;
	CHECK_STR_FREE("outside", read_all(ofd, "page/index.html", &len));
	/* A link deeper down, and the key itself a link. */
	CHECK_INT(PUBLISH_NEW, publish_data(fd, "a/b.html", "b", 1, false, err));
	CHECK_INT(0, symlinkat(outside, fd, "a/c"));
	CHECK_INT(-1, publish_data(fd, "a/c/page/index.html", "mine", 4, true, err));
	CHECK_STR("'a/c' is a symbolic link: cgisnap never writes or removes through one", err);
	CHECK_INT(0, symlinkat("b.html", fd, "a/l.html"));
	CHECK_INT(-1, publish_data(fd, "a/l.html", "mine", 4, false, err));
	CHECK_STR("cannot publish 'a/l.html': a symbolic link is in the way", err);
	CHECK_STR_FREE("b", read_all(fd, "a/b.html", &len));
	close(ofd);
	tree_done(fd, path);
	unit_remove_tree(outside);
}

TEST(publish_remove_walks_without_links_and_checks_ownership)
{
	char path[] = "/tmp/cgisnap-pub-XXXXXX", outside[] = "/tmp/cgisnap-out-XXXXXX";
	int fd = make_tree_linking_out(path, outside);
	char err[ERR_LEN];
	/* Through the link: refused, the outside file and directory stay. */
	CHECK_INT(-1, publish_remove(fd, "x/page/index.html", -1, NULL, err));
	CHECK_INT(ELOOP, errno);
	CHECK_STR("'x' is a symbolic link: cgisnap never writes or removes through one", err);
	int ofd = open(outside, O_RDONLY | O_DIRECTORY);
	CHECK(faccessat(ofd, "page/index.html", F_OK, 0) == 0);
	CHECK_INT(PUBLISH_FOREIGN, publish_owner(fd, "x", 7, NULL, err)); /* the link itself */

	/* Ownership: the recorded size and hash must still match. */
	char sha[65];
	sha256_hex("mine", 4, sha);
	CHECK_INT(PUBLISH_NEW, publish_data(fd, "d/e/f.html", "mine", 4, false, err));
	CHECK_INT(PUBLISH_OURS, publish_owner(fd, "d/e/f.html", 4, sha, err));
	CHECK_INT(PUBLISH_OURS, publish_owner(fd, "d/e/f.html", 4, "", err)); /* size only */
	CHECK_INT(PUBLISH_FOREIGN, publish_owner(fd, "d/e/f.html", -1, NULL, err)); /* unrecorded */
	CHECK_INT(PUBLISH_ABSENT, publish_owner(fd, "d/e/g.html", 4, sha, err));
	CHECK_INT(PUBLISH_ABSENT, publish_owner(fd, "nothere/g.html", 4, sha, err));
	CHECK_INT(PUBLISH_CHANGED, publish_data(fd, "d/e/f.html", "user", 4, false, err));
	CHECK_INT(PUBLISH_FOREIGN, publish_owner(fd, "d/e/f.html", 4, sha, err));
	CHECK_INT(PUBLISH_KEPT, publish_remove(fd, "d/e/f.html", 4, sha, err));
	CHECK(faccessat(fd, "d/e/f.html", F_OK, 0) == 0);
	CHECK_INT(PUBLISH_CHANGED, publish_data(fd, "d/e/f.html", "mine", 4, false, err));
	CHECK_INT(0, publish_remove(fd, "d/e/f.html", 4, sha, err));
	CHECK(faccessat(fd, "d", F_OK, 0) < 0);

	/* Empty parents are removed up to a link, never through it. */
	CHECK_INT(0, mkdirat(fd, "p", 0755));
	CHECK_INT(0, symlinkat(outside, fd, "p/q"));
	CHECK_INT(-1, publish_remove(fd, "p/q/page/index.html", -1, NULL, err));
	CHECK(faccessat(ofd, "page/index.html", F_OK, 0) == 0);
	CHECK(faccessat(fd, "p/q", F_OK, AT_SYMLINK_NOFOLLOW) == 0);
	close(ofd);
	tree_done(fd, path);
	unit_remove_tree(outside);
}

TEST(publish_clean_temps_removes_only_temp_files)
{
	char path[] = "/tmp/cgisnap-pub-XXXXXX";
	int fd = make_tree(path);
	char err[ERR_LEN];
	CHECK_INT(PUBLISH_NEW, publish_data(fd, "a/page.html", "p", 1, false, err));
	int t = openat(fd, "a/.cgisnap-tmp-1-2", O_WRONLY | O_CREAT, 0644);
	CHECK(t >= 0);
	close(t);
	t = openat(fd, "a/.hidden", O_WRONLY | O_CREAT, 0644);
	close(t);
	CHECK_INT(1, publish_clean_temps(fd, "a/other.html"));
	CHECK(faccessat(fd, "a/.cgisnap-tmp-1-2", F_OK, 0) < 0);
	CHECK(faccessat(fd, "a/.hidden", F_OK, 0) == 0);
	CHECK(faccessat(fd, "a/page.html", F_OK, 0) == 0);
	tree_done(fd, path);
}

/* A temp file holding prefix then data (a spilled body after its header). */
static int file_with(const char *prefix, const struct buf *data)
{
	char path[] = "/tmp/cgisnap-body-XXXXXX";
	int fd = mkstemp(path);
	unlink(path);
	if (write(fd, prefix, strlen(prefix)) < 0 || write(fd, data->data, data->len) < 0)
		unit_fail(__FILE__, __LINE__, "cannot write %s", path);
	return fd;
}

/* The gunzipped bytes of dirfd/name, fresh. */
static char *gunzip_file(int dirfd, const char *name, size_t max, size_t *len)
{
	size_t gzlen;
	char *gz = read_all(dirfd, name, &gzlen);
	char *plain = xmalloc(max + 1);
	z_stream z = { 0 };
	*len = 0;
	if (!gz)
		return plain;
	inflateInit2(&z, 15 + 16);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)gzlen;
	z.next_out = (Bytef *)plain;
	z.avail_out = (uInt)max + 1;
	if (inflate(&z, Z_FINISH) == Z_STREAM_END)
		*len = z.total_out;
	inflateEnd(&z);
	free(gz);
	return plain;
}

TEST(publish_fd_streams_a_range_compares_and_gzips_it)
{
	char path[] = "/tmp/cgisnap-pub-XXXXXX";
	int tree = make_tree(path);
	char err[ERR_LEN];
	const char *head = "Content-Type: text/html\r\n\r\n";
	long long off = (long long)strlen(head);
	struct buf page = BUF_INIT;
	/* Several of publish's chunks, so every loop goes round. */
	for (int i = 0; i < 20000; i++)
		buf_addf(&page, "<p>paragraph %d of a big page</p>\n", i);
	int fd = file_with(head, &page);

	CHECK_INT(PUBLISH_NEW, publish_fd(tree, "a/big.html", fd, off, (long long)page.len, true, err));
	size_t len;
	char *got = read_all(tree, "a/big.html", &len);
	CHECK_INT(page.len, len);
	CHECK(got && !memcmp(got, page.data, page.len));
	free(got);
	got = gunzip_file(tree, "a/big.html.gz", page.len, &len);
	CHECK_INT(page.len, len);
	CHECK(!memcmp(got, page.data, page.len));
	free(got);
	struct timespec tp = mtime_of(tree, "a/big.html"), tg = mtime_of(tree, "a/big.html.gz");
	CHECK(tp.tv_sec == tg.tv_sec && tp.tv_nsec == tg.tv_nsec);

	/* The same bytes: unchanged, whether they come from memory or a file;
	 * a missing .gz is put back. */
	CHECK_INT(PUBLISH_UNCHANGED, publish_fd(tree, "a/big.html", fd, off, (long long)page.len, true, err));
	CHECK_INT(PUBLISH_UNCHANGED, publish_data(tree, "a/big.html", page.data, page.len, true, err));
	unlinkat(tree, "a/big.html.gz", 0);
	CHECK_INT(PUBLISH_UNCHANGED, publish_fd(tree, "a/big.html", fd, off, (long long)page.len, true, err));
	got = gunzip_file(tree, "a/big.html.gz", page.len, &len);
	CHECK_INT(page.len, len);
	free(got);
	tg = mtime_of(tree, "a/big.html.gz");
	CHECK(tp.tv_sec == tg.tv_sec && tp.tv_nsec == tg.tv_nsec);

	/* One byte less, or one byte different near the end: changed. */
	CHECK_INT(PUBLISH_CHANGED, publish_fd(tree, "a/big.html", fd, off, (long long)page.len - 1, true, err));
	got = read_all(tree, "a/big.html", &len);
	CHECK_INT(page.len - 1, len);
	free(got);
	page.data[page.len - 2] = 'X';
	CHECK_INT(PUBLISH_CHANGED, publish_data(tree, "a/big.html", page.data, page.len - 1, false, err));
	page.data[page.len - 2] = '>';
	CHECK_INT(PUBLISH_CHANGED, publish_fd(tree, "a/big.html", fd, off, (long long)page.len - 1, false, err));
	CHECK(faccessat(tree, "a/big.html.gz", F_OK, 0) < 0);

	/* A range past the file's end fails and publishes nothing. */
	CHECK_INT(-1, publish_fd(tree, "b.html", fd, off, (long long)page.len + 10, false, err));
	CHECK_STR("cannot read the body to publish: it became shorter", err);
	CHECK(faccessat(tree, "b.html", F_OK, 0) < 0);
	CHECK_INT(-1, publish_fd(tree, "a", fd, off, 10, false, err));
	CHECK_STR("cannot publish 'a': a directory is in the way", err);

	char *cmd = xasprintf("find '%s' -name '.cgisnap-tmp-*' | grep -q .", path);
	CHECK(system(cmd) != 0); /* no temporary file left */
	free(cmd);
	close(fd);
	buf_release(&page);
	tree_done(tree, path);
}
