/* test_deps_recorder.c - the dependency recorder: what a render read,
 * looked for and wrote becomes its page's dependencies, and what the
 * renders wrote is told from another program's write. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "base/log.h"
#include "deps/choice.h"
#include "origin/origin.h"
#include "../../watch/catchup.h"
#include "../../watch/deps.h"
#include "base/fswatch.h"
#include "helpers.h"
#include "unit.h"
#include "tree/tree.h"
#include "base/xalloc.h"

/* The start of a recorder test: r records what renders do under root
 * (and nothing else), rs is an empty response to fill; the crawl's
 * hooks into r. */
static struct crawl_hooks recorder_start(struct dep_recorder *r, const char *root, struct origin_response *rs)
{
	dep_recorder_init(r);
	strlist_add(&r->roots, root);
	origin_response_init(rs);
	return dep_recorder_hooks(r);
}

/* The crawl's hooks: a render's traced paths under the roots become the
 * page's dependencies, compacted; what any render wrote is no dependency
 * and is remembered until it is gone two runs in a row. */
TEST(watch_dep_recorder_hooks)
{
	char dir[] = "/tmp/cgisnap-rec-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *cache = xasprintf("%s/cache", dir);
	FILE *f = fopen(cache, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);

	struct dep_recorder r;
	struct origin_response rs;
	struct crawl_hooks h = recorder_start(&r, dir, &rs);
	char *page_txt = xasprintf("%s/page.txt", dir);
	f = fopen(page_txt, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	/* Looked for and not there (a stat, an include path tried, an
	 * access(2)): A, whatever call asked. */
	char *missing = xasprintf("%s/missing.txt", dir), *checked = xasprintf("%s/checked.txt", dir);
	char *under_file = xasprintf("%s/sub/x", page_txt); /* ENOTDIR */
	strlist_add(&rs.deps_read, "/etc/hosts"); /* outside the roots */
	strlist_add(&rs.deps_read, cache);        /* sorted, as the origin gives them */
	strlist_add(&rs.deps_read, missing);
	strlist_add(&rs.deps_read, page_txt);
	strlist_add(&rs.deps_read, under_file);
	strlist_add(&rs.deps_exist, checked);
	strlist_add(&rs.deps_exist, missing);
	strlist_add(&rs.deps_exist, page_txt); /* also read: says nothing more */
	strlist_add(&rs.deps_listed, dir);
	strlist_add(&rs.deps_written, cache);
	/* a PHP session's file, written by every render: no root's */
	strlist_add(&rs.deps_written, "/tmp/cgisnap-php-x/sess_1");
	struct manifest_entry *e = manifest_entry_new("/page");
	h.on_render(h.arg, e, &rs);
	/* As the render left them: sorted out at the run's end. */
	CHECK_INT(0, e->deps_absent.n);
	CHECK_INT(1, e->deps_listed.n);
	CHECK(dep_recorder_written(&r, cache));
	CHECK(!dep_recorder_written(&r, page_txt));
	CHECK(!dep_recorder_written(&r, "/tmp/cgisnap-php-x/sess_1"));

	/* A failed render's writes count too. */
	struct origin_response failed;
	origin_response_init(&failed);
	char *tmp = xasprintf("%s/cache.tmp", dir);
	strlist_add(&failed.deps_written, tmp);
	h.on_render(h.arg, NULL, &failed);
	CHECK(dep_recorder_written(&r, tmp));

	struct manifest m = MANIFEST_INIT;
	manifest_put(&m, e);
	h.on_commit(h.arg, &m, NULL, NULL);
	e = manifest_get(&m, "/page");
	CHECK_INT(1, e ? e->deps_read.n : 0);
	CHECK_STR(page_txt, e && e->deps_read.n ? e->deps_read.items[0] : NULL);
	CHECK_INT(0, e ? e->deps_exist.n : -1);
	CHECK_INT(3, e ? e->deps_absent.n : 0);
	CHECK(e && strlist_contains(&e->deps_absent, missing));
	CHECK(e && strlist_contains(&e->deps_absent, checked));
	CHECK(e && strlist_contains(&e->deps_absent, under_file));
	/* what it wrote and left there is kept with the page (W), for a
	 * later process */
	CHECK_INT(1, e ? e->deps_wrote.n : 0);
	CHECK(e && strlist_contains(&e->deps_wrote, cache));
	/* The renders' own write is no change; someone else's write is, and
	 * names the pages whose renders wrote the file. */
	CHECK(dep_recorder_own_change(&r, cache));
	CHECK(!dep_recorder_own_change(&r, page_txt));
	f = fopen(cache, "a");
	CHECK(f != NULL);
	if (f) {
		fputs("an edit by someone else\n", f);
		fclose(f);
	}
	CHECK(!dep_recorder_own_change(&r, cache));
	struct strlist writers = STRLIST_INIT;
	dep_recorder_writers(&r, cache, &writers);
	CHECK_INT(1, writers.n);
	CHECK_STR("/page", writers.n ? writers.items[0] : NULL);
	strlist_clear(&writers);
	/* cache.tmp never existed: forgotten at the end of the second run */
	CHECK(dep_recorder_written(&r, tmp));
	h.on_commit(h.arg, &m, NULL, NULL);
	CHECK(!dep_recorder_written(&r, tmp));
	CHECK(dep_recorder_written(&r, cache));

	manifest_release(&m);
	origin_response_release(&rs);
	origin_response_release(&failed);
	dep_recorder_release(&r);
	unlink(cache);
	unlink(page_txt);
	rmdir(dir); /* empty by now: each run left one behind */
	free(cache);
	free(tmp);
	free(page_txt);
	free(missing);
	free(checked);
	free(under_file);
}

/* A path the render looked for and did not find, which another render
 * of the same run then made (-j 2, a worker's next request), is E at the
 * run's end, not A: the lists never depend on the renders' order, and A
 * means "not there when the run ended", what a later catch-up compares
 * with. */
TEST(watch_dep_recorder_absent_as_the_run_left_it)
{
	char *dir = unit_temp_dir("rec-absent");
	char *later = xasprintf("%s/later.txt", dir), *never = xasprintf("%s/never.txt", dir);
	struct dep_recorder r;
	struct origin_response rs;
	struct crawl_hooks h = recorder_start(&r, dir, &rs);
	strlist_add(&rs.deps_exist, later);
	strlist_add(&rs.deps_exist, never);
	struct manifest_entry *e = manifest_entry_new("/page");
	h.on_render(h.arg, e, &rs);
	unit_put(dir, "later.txt", "made by another render of the run");
	struct manifest m = MANIFEST_INIT;
	manifest_put(&m, e);
	h.on_commit(h.arg, &m, NULL, NULL);
	CHECK_INT(1, e->deps_exist.n);
	CHECK_STR(later, e->deps_exist.n ? e->deps_exist.items[0] : NULL);
	CHECK_INT(1, e->deps_absent.n);
	CHECK_STR(never, e->deps_absent.n ? e->deps_absent.items[0] : NULL);
	manifest_release(&m);
	origin_response_release(&rs);
	dep_recorder_release(&r);
	unit_remove_tree(dir);
	free(dir);
	free(later);
	free(never);
}

/* A document root whose "data" is a link to a directory elsewhere
 * holding page.txt (a site's data kept apart, /var/lib/...). */
struct linked_root {
	char *root, *data, *link, *real_data;
};

static void linked_root_make(struct linked_root *l)
{
	l->root = unit_temp_dir("rec-root");
	l->data = unit_temp_dir("rec-data");
	unit_put(l->data, "page.txt", "text");
	l->link = xasprintf("%s/data", l->root);
	CHECK_INT(0, symlink(l->data, l->link));
	l->real_data = realpath(l->data, NULL);
}

static void linked_root_remove(struct linked_root *l)
{
	unlink(l->link);
	unit_remove_tree(l->root);
	unit_remove_tree(l->data);
	free(l->root);
	free(l->data);
	free(l->link);
	free(l->real_data);
}

/* A page reading through a link under the document root depends on the
 * real path, where inotify reports the change, when a root (a --source)
 * holds it; writes through the link are known at the real path too. */
TEST(watch_dep_recorder_resolves_links)
{
	struct linked_root lr;
	linked_root_make(&lr);
	char *root = lr.root, *link = lr.link, *real_data = lr.real_data;
	unit_put(root, "index.php", "<?php");
	char *via_link = xasprintf("%s/page.txt", link), *missing = xasprintf("%s/new.txt", link);
	char *cache = xasprintf("%s/cache.tmp", link);
	char *want_page = xasprintf("%s/page.txt", real_data), *want_new = xasprintf("%s/new.txt", real_data);
	char *want_cache = xasprintf("%s/cache.tmp", real_data), *script = xasprintf("%s/index.php", root);

	for (int data_is_root = 0; data_is_root < 2; data_is_root++) {
		struct dep_recorder r;
		struct origin_response rs;
		struct crawl_hooks h = recorder_start(&r, root, &rs);
		if (data_is_root)
			strlist_add(&r.roots, real_data);
		strlist_add(&rs.deps_read, via_link);
		strlist_add(&rs.deps_read, script);
		strlist_add(&rs.deps_exist, missing); /* not there: its directory resolves */
		strlist_add(&rs.deps_written, cache);
		struct manifest_entry *e = manifest_entry_new("/page");
		h.on_render(h.arg, e, &rs);
		struct manifest m = MANIFEST_INIT;
		manifest_put(&m, e);
		h.on_commit(h.arg, &m, NULL, NULL); /* the absent split out */
		CHECK_INT(2, e->deps_read.n);
		CHECK_INT(0, e->deps_exist.n);
		CHECK_INT(1, e->deps_absent.n);
		if (data_is_root) {
			CHECK(strlist_contains(&e->deps_read, want_page));
			CHECK(strlist_contains(&e->deps_read, script));
			CHECK_STR(want_new, e->deps_absent.n ? e->deps_absent.items[0] : NULL);
		} else {
			/* No root holds the real path: kept as traced. */
			CHECK(strlist_contains(&e->deps_read, via_link));
			CHECK_STR(missing, e->deps_absent.n ? e->deps_absent.items[0] : NULL);
		}
		CHECK(dep_recorder_written(&r, cache));
		/* its events come at the real path: recorded there when a
		 * root holds it (else no event ever comes) */
		CHECK_INT(data_is_root, dep_recorder_written(&r, want_cache));
		manifest_release(&m);
		origin_response_release(&rs);
		dep_recorder_release(&r);
	}
	linked_root_remove(&lr);
	free(via_link);
	free(missing);
	free(cache);
	free(want_page);
	free(want_new);
	free(want_cache);
	free(script);
}

/* A run keeps the choices of its first DEP_CHOICES_MAX paths only: past
 * them (a big site's pages each read a data file of their own) a path is
 * worked out each time, with the same answer: a path through a link by
 * its real path, one outside the roots not at all. */
TEST(watch_dep_choices_stop_growing_past_their_bound)
{
	struct linked_root lr;
	linked_root_make(&lr);
	char *root = lr.root;
	char *via_link = xasprintf("%s/page.txt", lr.link), *want_page = xasprintf("%s/page.txt", lr.real_data);

	struct dep_recorder r;
	dep_recorder_init(&r);
	strlist_add(&r.roots, root);
	strlist_add(&r.roots, lr.real_data);
	struct strlist in = STRLIST_INIT, out = STRLIST_INIT;
	for (long i = 0; i < DEP_CHOICES_MAX; i++)
		strlist_add_owned(&in, xasprintf("%s/pages/%ld.txt", root, i));
	dep_choice_filter(&r, &in, &out);
	CHECK_INT(DEP_CHOICES_MAX, out.n);
	CHECK_INT(DEP_CHOICES_MAX, dep_choices_kept(&r));
	strlist_clear(&in);
	strlist_clear(&out);

	/* Past the bound: the same answers, nothing more kept. */
	for (int round = 0; round < 2; round++) {
		strlist_add(&in, "/etc/hosts");
		strlist_add(&in, via_link);
		strlist_add_owned(&in, xasprintf("%s/pages/new.txt", root));
		dep_choice_filter(&r, &in, &out);
		CHECK_INT(2, out.n);
		CHECK(strlist_contains(&out, want_page));
		CHECK(!strlist_contains(&out, via_link));
		CHECK(!strlist_contains(&out, "/etc/hosts"));
		CHECK(dep_recorder_keeps(&r, via_link));
		CHECK(!dep_recorder_keeps(&r, "/etc/hosts"));
		CHECK_INT(DEP_CHOICES_MAX, dep_choices_kept(&r));
		strlist_clear(&in);
		strlist_clear(&out);
	}
	/* A path kept before the bound: the same answer. */
	strlist_add_owned(&in, xasprintf("%s/pages/7.txt", root));
	dep_choice_filter(&r, &in, &out);
	CHECK(out.n == 1 && !strcmp(out.items[0], in.items[0]));
	strlist_clear(&in);
	strlist_clear(&out);
	dep_choices_forget(&r);
	CHECK_INT(0, dep_choices_kept(&r));
	dep_recorder_release(&r);
	linked_root_remove(&lr);
	free(via_link);
	free(want_page);
}

/* A written list's line for path as sx describes it, but 5 s older
 * (not "as left"), born at birth (freed). */
static char *line_as_left(const char *path, const struct statx *sx, char *birth)
{
	char *line = xasprintf("%s\t%llu %llu %llu %lld.%09u %lld.%09u %s", path,
			       (unsigned long long)makedev(sx->stx_dev_major, sx->stx_dev_minor),
			       (unsigned long long)sx->stx_ino, (unsigned long long)sx->stx_size,
			       (long long)sx->stx_mtime.tv_sec - 5, sx->stx_mtime.tv_nsec,
			       (long long)sx->stx_ctime.tv_sec - 5, sx->stx_ctime.tv_nsec, birth);
	free(birth);
	return line;
}

/* The written list a snapshot leaves says how its renders left each
 * file: a watch reading it takes the file as it is, or replaced whole,
 * for the renders' own, and a write in place by anyone else since as a
 * change. A line of an older cgisnap (the path alone) is the renders'
 * whatever it holds. */
TEST(watch_dep_recorder_written_lines_keep_how_the_renders_left_a_file)
{
	char dir[] = "/tmp/cgisnap-wlines-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *db = xasprintf("%s/site.sqlite", dir), *old = xasprintf("%s/old.cache", dir);
	unit_put(dir, "site.sqlite", "the renders' write");
	unit_put(dir, "old.cache", "x");
	struct dep_recorder snap;
	struct origin_response rs;
	struct crawl_hooks h = recorder_start(&snap, dir, &rs);
	strlist_add(&rs.deps_written, db);
	h.on_render(h.arg, NULL, &rs);
	struct strlist lines = STRLIST_INIT;
	dep_recorder_written_lines(&snap, &lines);
	CHECK_INT(1, lines.n);
	CHECK(lines.n && !strncmp(lines.items[0], db, strlen(db)) && lines.items[0][strlen(db)] == '\t');
	/* device, inode, size, then mtime, ctime and birth time */
	size_t fields = 0;
	for (const char *c = lines.n ? strchr(lines.items[0], '\t') : NULL; c && *c; c++)
		fields += *c == ' ';
	CHECK_INT(5, fields); /* spaces between six numbers */

	struct dep_recorder w;
	dep_recorder_init(&w);
	for (size_t i = 0; i < lines.n; i++)
		dep_recorder_note_written(&w, lines.items[i]);
	dep_recorder_note_written(&w, old);
	CHECK(dep_recorder_own_change(&w, db));
	CHECK(dep_recorder_own_change(&w, old));
	unit_put(dir, "site.sqlite", "an edit saved by another program");
	unit_put(dir, "old.cache", "y");
	CHECK(!dep_recorder_own_change(&w, db));
	CHECK(dep_recorder_own_change(&w, old));
	/* replaced whole (renamed over: a cache made again by a render
	 * elsewhere) is the site's own */
	char *tmp = xasprintf("%s/site.sqlite.tmp", dir);
	unit_put(dir, "site.sqlite.tmp", "made again by the web server's render");
	CHECK_INT(0, rename(tmp, db));
	CHECK(dep_recorder_own_change(&w, db));
	free(tmp);

	/* ext4 gives a file made after another was removed the freed inode
	 * number again: a cache made again can keep its number, and only
	 * its birth time says it is another file. The lines are made by
	 * hand from the file as it is now, with another birth time, or
	 * none known, and another mtime (so not "as left"). */
	struct statx sx;
	CHECK_INT(0, statx(AT_FDCWD, db, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME, &sx));
	if (sx.stx_mask & STATX_BTIME) {
		struct dep_recorder born;
		dep_recorder_init(&born);
		char *again = line_as_left(db, &sx, xasprintf("%lld.%09u", (long long)sx.stx_btime.tv_sec - 5,
							      sx.stx_btime.tv_nsec));
		dep_recorder_note_written(&born, again);
		CHECK(dep_recorder_own_change(&born, db));
		free(again);
		char *unknown = line_as_left(db, &sx, xstrdup("0.000000000"));
		dep_recorder_note_written(&born, unknown);
		CHECK(!dep_recorder_own_change(&born, db));
		free(unknown);
		dep_recorder_release(&born);
	}

	origin_response_release(&rs);
	strlist_clear(&lines);
	dep_recorder_release(&snap);
	dep_recorder_release(&w);
	unlink(db);
	unlink(old);
	rmdir(dir);
	free(db);
	free(old);
}
