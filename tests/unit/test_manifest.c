/* test_manifest.c - the manifest in tree.db, old trees' text files, the tree's lock and settings. */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "tree/manifest.h"
#include "tree/publish.h"
#include "base/sha256.h"
#include "tree/tree.h"
#include "helpers.h"
#include "manifestfix.h"
#include "unit.h"
#include "base/xalloc.h"

/* A copy owns its strings: freeing the original leaves it whole. */
TEST(manifest_entry_dup_is_deep)
{
	struct manifest_entry *e = unit_entry("/doku.php?id=start", 200, "doku.php@id=start.html", "text/html", NULL);
	e->bytes = 42;
	memset(e->sha256, 'b', 64);
	e->render_ms = 7;
	e->changed = 1700000000;
	strlist_add(&e->deps_read, "/site/a.txt");
	strlist_add(&e->deps_exist, "/site/b.txt");
	strlist_add(&e->deps_listed, "/site");
	strlist_add(&e->deps_contents, "/site/c");
	strlist_add(&e->deps_untraced, "/site/static.cgi");
	struct manifest_entry *d = manifest_entry_dup(e);
	manifest_entry_free(e);
	CHECK_STR("/doku.php?id=start", d->target);
	CHECK_STR("doku.php@id=start.html", d->key);
	CHECK_STR("text/html", d->content_type);
	CHECK(d->status == 200 && d->bytes == 42 && d->render_ms == 7 && d->changed == 1700000000);
	CHECK_INT(64, strlen(d->sha256));
	CHECK(d->location == NULL);
	CHECK_INT(5, manifest_deps_count(d));
	CHECK_STR("/site/c", d->deps_contents.n ? d->deps_contents.items[0] : NULL);
	CHECK_STR("/site/static.cgi", d->deps_untraced.n ? d->deps_untraced.items[0] : NULL);
	manifest_entry_free(d);
}

TEST(manifest_round_trip)
{
	struct tree t;
	char *treepath;
	char *path = mfix_open_scratch(&t, &treepath);
	char err[ERR_LEN];

	struct manifest m = MANIFEST_INIT;
	CHECK_INT(0, manifest_load(&m, &t, err)); /* none yet: empty */
	CHECK_INT(0, manifest_count(&m));
	struct manifest_entry *e =
		unit_entry("/doku.php?id=start", 200, "doku.php@id=start.html", "text/html; charset=utf-8", NULL);
	e->bytes = 1234;
	memset(e->sha256, 'a', 64);
	e->render_ms = 35;
	e->changed = 1700000000;
	strlist_add(&e->deps_read, "/site/data/pages/start.txt");
	strlist_add(&e->deps_listed, "/site/data/pages");
	strlist_add(&e->deps_exist, "/site/data/pages/other.txt");
	strlist_add(&e->deps_contents, "/site/data/pages/wiki");
	manifest_put(&m, e);
	e = unit_entry("/?p=5", 301, NULL, NULL, "http://localhost:8080/2025/03/x/");
	e->render_ms = -1;
	strlist_add(&e->deps_untraced, "/site/static.cgi");
	manifest_put(&m, e);
	CHECK_INT(0, manifest_save(&m, &t, err));
	manifest_release(&m);

	struct manifest m2 = MANIFEST_INIT;
	CHECK_INT(0, manifest_load(&m2, &t, err));
	CHECK_INT(2, manifest_count(&m2));
	e = manifest_get(&m2, "/doku.php?id=start");
	CHECK(e != NULL);
	if (e) {
		CHECK_STR("doku.php@id=start.html", e->key);
		CHECK_STR("text/html; charset=utf-8", e->content_type);
		CHECK_INT(1234, e->bytes);
		CHECK_INT(1700000000, e->changed);
		CHECK_INT(1, e->deps_read.n);
		CHECK_STR("/site/data/pages", e->deps_listed.n ? e->deps_listed.items[0] : NULL);
		CHECK_STR("/site/data/pages/other.txt", e->deps_exist.n ? e->deps_exist.items[0] : NULL);
		CHECK_STR("/site/data/pages/wiki", e->deps_contents.n ? e->deps_contents.items[0] : NULL);
		CHECK_INT(4, manifest_deps_count(e));
	}
	e = manifest_get(&m2, "/?p=5");
	CHECK(e && !e->key && e->status == 301 && !strcmp(e->location, "http://localhost:8080/2025/03/x/"));
	CHECK(e && e->deps_untraced.n == 1 && !strcmp(e->deps_untraced.items[0], "/site/static.cgi"));
	size_t n;
	struct manifest_entry **v = manifest_sorted(&m2, &n);
	CHECK_INT(2, n);
	CHECK_STR("/?p=5", v[0]->target);
	free(v);
	manifest_remove(&m2, "/?p=5");
	CHECK_INT(1, manifest_count(&m2));
	manifest_release(&m2);

	/* An old tree's malformed line is reported with its file and line
	 * number, and nothing is migrated. */
	char *oldpath = xasprintf("%s/old", path);
	struct tree o;
	CHECK_INT(0, tree_open(&o, oldpath, true, err));
	char *mpath = xasprintf("%s/.cgisnap/manifest", oldpath);
	FILE *f = fopen(mpath, "w");
	fputs("# header\n/a\ta.html\t200\n", f);
	fclose(f);
	free(mpath);
	struct manifest m3 = MANIFEST_INIT;
	CHECK_INT(-1, manifest_load(&m3, &o, err));
	CHECK_HAS(err, "/.cgisnap/manifest:2: malformed line");
	CHECK(faccessat(o.meta_fd, "manifest", F_OK, 0) == 0); /* kept */
	manifest_release(&m3);
	tree_close(&o);
	free(oldpath);
	tree_close(&t);
	mfix_remove_scratch(path, treepath);
}

/* A delta save writes the changed entries and deletes the dropped
 * targets; the rows it is not told of stay, though the manifest it is
 * given lacks them; a process that never loaded can save one too. */
TEST(manifest_save_delta_touches_only_what_it_is_given)
{
	struct tree t;
	char *treepath;
	char *path = mfix_open_scratch(&t, &treepath);
	char err[ERR_LEN];
	struct manifest m = MANIFEST_INIT;
	mfix_put_pages(&m, 50);
	CHECK_INT(0, manifest_save(&m, &t, err));
	manifest_release(&m);
	CHECK_INT(50, manifest_rows_written(&t));

	struct manifest delta = MANIFEST_INIT;
	struct strlist dropped = STRLIST_INIT;
	manifest_put(&delta, mfix_entry("/p4", 40)); /* other bytes */
	manifest_put(&delta, mfix_entry("/p5", 5));  /* the same: no write */
	manifest_put(&delta, mfix_entry("/new", 7));
	strlist_add(&dropped, "/p6");
	strlist_add(&dropped, "/p6");
	strlist_add(&dropped, "/never");
	CHECK_INT(0, manifest_save_delta(&delta, &dropped, NULL, &t, err));
	CHECK_INT(53, manifest_rows_written(&t));
	manifest_release(&delta);
	tree_close(&t);

	/* Another process, without a load. */
	CHECK_INT(0, tree_open(&t, treepath, false, err));
	manifest_put(&delta, mfix_entry("/p7", 70));
	CHECK_INT(0, manifest_save_delta(&delta, NULL, NULL, &t, err));
	CHECK_INT(1, manifest_rows_written(&t));
	manifest_release(&delta);
	tree_close(&t);

	CHECK_INT(0, tree_open(&t, treepath, false, err));
	struct manifest r = MANIFEST_INIT;
	CHECK_INT(0, manifest_load(&r, &t, err));
	CHECK_INT(50, manifest_count(&r));
	CHECK(manifest_get(&r, "/p6") == NULL);
	CHECK(manifest_get(&r, "/new") != NULL);
	CHECK(manifest_get(&r, "/p0") != NULL && manifest_get(&r, "/p49") != NULL);
	struct manifest_entry *e = manifest_get(&r, "/p4");
	struct manifest_entry *want = mfix_entry("/p4", 40);
	CHECK(e && e->bytes == 40 && !strcmp(e->key, want->key));
	manifest_entry_free(want);
	e = manifest_get(&r, "/p7");
	CHECK(e && e->bytes == 70 && strlist_contains(&e->deps_read, "/site/data/p70.txt"));
	manifest_release(&r);
	strlist_clear(&dropped);
	tree_close(&t);
	mfix_remove_scratch(path, treepath);
}

/* A delta save of a process that did not load (serve --fill) compares
 * each target with its row as the database holds it now, not as an
 * earlier save of the process saw it: a row another writer changed since
 * is written back; the references of a replaced or dropped row go with it. */
TEST(manifest_save_delta_without_a_load_reads_each_row_now)
{
	struct tree a, b;
	char *path = unit_tree_open(&b, "man", "tree");
	char *treepath = xasprintf("%s/tree", path);
	char err[ERR_LEN];
	struct manifest m = MANIFEST_INIT;
	manifest_put(&m, mfix_entry("/p1", 1));
	manifest_put(&m, mfix_entry("/p2", 2));
	manifest_put(&m, mfix_entry("/p3", 3));
	CHECK_INT(0, manifest_save(&m, &b, err));
	manifest_release(&m);

	CHECK_INT(0, tree_open(&a, treepath, false, err));
	struct manifest delta = MANIFEST_INIT;
	manifest_put(&delta, mfix_entry("/p4", 4));
	CHECK_INT(0, manifest_save_delta(&delta, NULL, NULL, &a, err));
	manifest_release(&delta);
	/* The other writer changes /p1; a's save of /p1 as it was is a change. */
	manifest_put(&delta, mfix_entry("/p1", 10));
	CHECK_INT(0, manifest_save_delta(&delta, NULL, NULL, &b, err));
	manifest_release(&delta);
	manifest_put(&delta, mfix_entry("/p1", 1));
	manifest_put(&delta, mfix_entry("/p2", 20)); /* another set of its own */
	struct strlist dropped = STRLIST_INIT;
	strlist_add(&dropped, "/p3");
	CHECK_INT(0, manifest_save_delta(&delta, &dropped, NULL, &a, err));
	CHECK_INT(4, manifest_rows_written(&a));
	manifest_release(&delta);
	strlist_clear(&dropped);
	tree_close(&a);
	tree_close(&b);

	CHECK_INT(0, tree_open(&a, treepath, false, err));
	struct manifest r = MANIFEST_INIT;
	CHECK_INT(0, manifest_load(&r, &a, err));
	CHECK_INT(3, manifest_count(&r));
	struct manifest_entry *e = manifest_get(&r, "/p1");
	CHECK(e && e->bytes == 1);
	e = manifest_get(&r, "/p2");
	CHECK(e && e->bytes == 20 && e->deps_read.n == 3 && strlist_contains(&e->deps_read, "/site/data/p20.txt"));
	CHECK(manifest_get(&r, "/p3") == NULL);
	struct strlist deps = STRLIST_INIT;
	CHECK_INT(0, manifest_dependents(&a, 'R', "/site/data/p2.txt", &deps, err));
	CHECK_INT(0, deps.n);
	CHECK_INT(0, manifest_dependents(&a, 'R', "/site/data/p3.txt", &deps, err));
	CHECK_INT(0, deps.n);
	CHECK_INT(0, manifest_dependents(&a, 'R', "/site/data/p20.txt", &deps, err));
	CHECK(deps.n == 1 && !strcmp(deps.items[0], "/p2"));
	strlist_clear(&deps);
	CHECK_INT(0, manifest_dependents(&a, 'R', "/site/lib/a.php", &deps, err));
	CHECK_INT(3, deps.n); /* the shared set stays, referred to by each */
	strlist_clear(&deps);
	manifest_release(&r);
	tree_close(&a);
	mfix_remove_scratch(path, treepath);
}

/* References left without their page or their set (a tree.db edited by
 * hand) are skipped as the load reads them: no page, no crash. */
TEST(manifest_load_skips_references_to_missing_rows)
{
	struct tree t;
	char *treepath;
	char *path = mfix_open_scratch(&t, &treepath);
	char err[ERR_LEN];
	struct manifest m = MANIFEST_INIT;
	mfix_put_pages(&m, 3);
	CHECK_INT(0, manifest_save(&m, &t, err));
	manifest_release(&m);
	tree_close(&t);
	CHECK_INT(0, mfix_db_exec(treepath, "PRAGMA foreign_keys = OFF; DELETE FROM depset;"));
	CHECK(mfix_db_count(treepath, "SELECT count(*) FROM url_dep") > 0);
	CHECK_INT(0, tree_open(&t, treepath, false, err));
	CHECK_INT(0, manifest_load(&m, &t, err));
	CHECK_INT(3, manifest_count(&m));
	CHECK_INT(0, manifest_get(&m, "/p1")->deps_read.n); /* its sets are gone */
	manifest_release(&m);
	tree_close(&t);
	CHECK_INT(0, mfix_db_exec(treepath, "PRAGMA foreign_keys = OFF; DELETE FROM url;"));
	CHECK_INT(0, tree_open(&t, treepath, false, err));
	CHECK_INT(0, manifest_load(&m, &t, err));
	CHECK_INT(0, manifest_count(&m));
	manifest_release(&m);
	tree_close(&t);
	mfix_remove_scratch(path, treepath);
}

/* A set of one name is found by its name's hash, one of many by a scan
 * of its directory's; a directory's pages below it; and a set, or a
 * directory, goes with the last page that refers to it. */
TEST(manifest_dependents_by_name_and_below_and_the_sets_collected)
{
	struct tree t;
	char *treepath;
	char *path = mfix_open_scratch(&t, &treepath);
	char err[ERR_LEN];
	struct manifest m = MANIFEST_INIT;
	mfix_put_pages(&m, 3);
	CHECK_INT(0, manifest_save(&m, &t, err));
	/* /site/lib/, /site/data/ and /site/ (the listing of /site/data) */
	CHECK_INT(3, mfix_db_count(treepath, "SELECT count(*) FROM dir"));
	CHECK_INT(5, mfix_db_count(treepath, "SELECT count(*) FROM depset"));
	struct strlist deps = STRLIST_INIT;
	CHECK_INT(0, manifest_dependents(&t, 'R', "/site/data/p1.txt", &deps, err));
	CHECK(deps.n == 1 && !strcmp(deps.items[0], "/p1"));
	strlist_clear(&deps);
	CHECK_INT(0, manifest_dependents(&t, 'R', "/site/lib/b.php", &deps, err));
	CHECK_INT(3, deps.n);
	strlist_clear(&deps);
	CHECK_INT(0, manifest_dependents(&t, 'R', "/site/lib/c.php", &deps, err));
	CHECK_INT(0, deps.n);
	CHECK_INT(0, manifest_dependents(&t, 'E', "/site/lib/a.php", &deps, err));
	CHECK_INT(0, deps.n);
	CHECK_INT(0, manifest_dependents(&t, 'R', "/site/lib/a", &deps, err));
	CHECK_INT(0, deps.n); /* a prefix of a name is not the name */
	CHECK_INT(0, manifest_dependents(&t, 0, "/site/lib", &deps, err));
	CHECK_INT(3, deps.n);
	strlist_clear(&deps);
	CHECK_INT(0, manifest_dependents(&t, 0, "/site/li", &deps, err));
	CHECK_INT(0, deps.n); /* below "/site/li/", not "/site/lib/" */
	CHECK_INT(0, manifest_dependents(&t, 'L', "/site/data", &deps, err));
	CHECK_INT(3, deps.n);
	strlist_clear(&deps);

	struct manifest_entry *e = manifest_get(&m, "/p1");
	strlist_clear(&e->deps_read);
	strlist_add(&e->deps_read, "/site/lib/a.php");
	CHECK_INT(0, manifest_save(&m, &t, err));
	CHECK_INT(0, manifest_dependents(&t, 'R', "/site/data/p1.txt", &deps, err));
	CHECK_INT(0, deps.n);
	CHECK_INT(0, manifest_dependents(&t, 'R', "/site/lib/a.php", &deps, err));
	CHECK_INT(3, deps.n); /* /p1 by a set of one name now */
	strlist_clear(&deps);
	CHECK_INT(5, mfix_db_count(treepath, "SELECT count(*) FROM depset")); /* p1.txt's gone, {a.php} new */

	manifest_release(&m);
	CHECK_INT(0, manifest_save(&m, &t, err));
	CHECK_INT(0, mfix_db_count(treepath, "SELECT count(*) FROM url"));
	CHECK_INT(0, mfix_db_count(treepath, "SELECT count(*) FROM depset"));
	CHECK_INT(0, mfix_db_count(treepath, "SELECT count(*) FROM dir"));
	tree_close(&t);
	mfix_remove_scratch(path, treepath);
}

/* A save writes only the rows of entries that changed: a save of the same
 * manifest writes nothing (a watch --poll that changed nothing), a batch
 * touching 3 pages writes 3 rows, a page gone deletes 1; an entry read
 * back (its dependencies regrouped, in another order) is no change. */
TEST(manifest_save_writes_only_changed_rows)
{
	struct tree t;
	char *treepath;
	char *path = mfix_open_scratch(&t, &treepath);
	char err[ERR_LEN];
	struct manifest m = MANIFEST_INIT;
	mfix_put_pages(&m, 100);
	CHECK_INT(0, manifest_save(&m, &t, err));
	CHECK_INT(100, manifest_rows_written(&t));
	CHECK_INT(0, manifest_save(&m, &t, err));
	CHECK_INT(100, manifest_rows_written(&t));
	manifest_get(&m, "/p3")->render_ms = 12;
	manifest_put(&m, mfix_entry("/p50", 51)); /* a new render, other bytes */
	strlist_add(&manifest_get(&m, "/p7")->deps_exist, "/site/new.txt");
	manifest_put(&m, mfix_entry("/p8", 8)); /* a new render, the same */
	CHECK_INT(0, manifest_save(&m, &t, err));
	CHECK_INT(103, manifest_rows_written(&t));
	manifest_remove(&m, "/p9");
	CHECK_INT(0, manifest_save(&m, &t, err));
	CHECK_INT(104, manifest_rows_written(&t));
	tree_close(&t);

	CHECK_INT(0, tree_open(&t, treepath, false, err));
	struct manifest r = MANIFEST_INIT;
	CHECK_INT(0, manifest_load(&r, &t, err));
	CHECK_INT(99, manifest_count(&r));
	struct manifest_entry *e = manifest_get(&r, "/p7");
	CHECK(e && e->deps_read.n == 3 && e->deps_exist.n == 1 && e->deps_listed.n == 1);
	CHECK(e && strlist_contains(&e->deps_read, "/site/data/p7.txt"));
	CHECK(e && strlist_contains(&e->deps_listed, "/site/data"));
	CHECK(manifest_get(&r, "/p9") == NULL);
	CHECK_INT(12, manifest_get(&r, "/p3") ? manifest_get(&r, "/p3")->render_ms : -1);
	/* The render of every page again, as a crawl makes it: same rows. */
	char target[32];
	for (int i = 0; i < 100; i++) {
		snprintf(target, sizeof target, "/p%d", i);
		if (i != 3 && i != 7 && i != 9 && i != 50)
			manifest_put(&r, mfix_entry(target, i));
	}
	CHECK_INT(0, manifest_save(&r, &t, err));
	CHECK_INT(0, manifest_rows_written(&t));
	manifest_release(&r);
	manifest_release(&m);
	tree_close(&t);
	mfix_remove_scratch(path, treepath);
}

/* An old tree's three files are read by one line loop: each is named when
 * it cannot be read, here because it is a directory (read gives EISDIR). */
TEST(manifest_old_files_that_cannot_be_read_are_named)
{
	char path[] = "/tmp/cgisnap-man-XXXXXX";
	CHECK(mkdtemp(path) != NULL);
	const char *names[] = { "deps", "manifest", "journal" };
	for (int i = 0; i < 3; i++) {
		char *treepath = xasprintf("%s/t%d", path, i);
		struct tree t;
		char err[ERR_LEN];
		CHECK_INT(0, tree_open(&t, treepath, true, err));
		if (i != 1)
			close(openat(t.meta_fd, "manifest", O_WRONLY | O_CREAT, 0644));
		CHECK_INT(0, mkdirat(t.meta_fd, names[i], 0755));
		struct manifest m = MANIFEST_INIT;
		err[0] = '\0';
		CHECK_INT(-1, manifest_load(&m, &t, err));
		char *want = xasprintf("cannot read '%s/.cgisnap/%s'", treepath, names[i]);
		CHECK_HAS(err, want);
		free(want);
		CHECK_INT(0, manifest_count(&m));
		manifest_release(&m);
		tree_close(&t);
		free(treepath);
	}
	unit_remove_tree(path);
}

TEST(tree_lock_excludes_a_second_writer)
{
	struct tree a, b;
	char *path = unit_tree_open(&a, "lock", NULL);
	char err[ERR_LEN];
	CHECK_INT(0, tree_lock(&a, err));
	/* flock is per open file description: a second open in another process
	 * must fail while the first holds it. */
	pid_t pid = fork();
	if (pid == 0) {
		char cerr[ERR_LEN];
		struct tree c;
		if (tree_open(&c, path, false, cerr) < 0)
			_exit(3);
		int r = tree_lock(&c, cerr);
		_exit(r < 0 && strstr(cerr, "is locked by another cgisnap (pid ") ? 0 : 1);
	}
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	tree_close(&a);
	CHECK_INT(0, tree_open(&b, path, false, err));
	CHECK_INT(0, tree_lock(&b, err));
	tree_close(&b);
	struct tree missing;
	CHECK_INT(-1, tree_open(&missing, "/nonexistent/tree", false, err));
	CHECK_STR("cannot open tree '/nonexistent/tree': No such file or directory", err);
	unit_drop_dir(path);
}

TEST(tree_settings_round_trip)
{
	struct tree t;
	char *path = unit_tree_open(&t, "set", NULL);
	char err[ERR_LEN];
	struct site s = { 0 }, r = { 0 };
	CHECK_INT(0, site_init(&s, "http://Example.org:8080/", err));
	CHECK_INT(0, site_add_alias(&s, "https://www.example.org/", err));
	strlist_add(&s.ignore_params, "utm_*");
	s.sort_query = true;
	CHECK_INT(0, tree_save_settings(&t, &s, err));
	CHECK_INT(0, tree_load_settings(&t, &r, err));
	CHECK_STR(s.url, r.url);
	CHECK_INT(1, r.aliases.n);
	CHECK_INT(1, r.ignore_params.n);
	CHECK(r.sort_query);
	site_release(&s);
	site_release(&r);
	tree_close(&t);
	unit_drop_dir(path);
}

/* A page published and pending, one pending whose rename never happened
 * and leftover temp files: what an interrupted run leaves. */
TEST(manifest_journal_recovers_only_published_files)
{
	struct tree t;
	char *path = unit_tree_open(&t, "man", NULL);
	char err[ERR_LEN];
	struct manifest_entry *e = unit_entry("/a/", 200, "a/index.html", NULL, NULL);
	e->bytes = 4;
	sha256_hex("page", 4, e->sha256);
	CHECK_INT(0, manifest_journal(&t, e, err));
	CHECK_INT(PUBLISH_NEW, publish_data(t.fd, e->key, "page", 4, false, err));
	free(e->target);
	e->target = xstrdup("/b/");
	free(e->key);
	e->key = xstrdup("a/b.html");
	CHECK_INT(0, manifest_journal(&t, e, err)); /* killed before its rename */
	manifest_entry_free(e);
	int fd = openat(t.fd, "a/.cgisnap-tmp-99-1", O_WRONLY | O_CREAT, 0644);
	close(fd);
	fd = openat(t.meta_fd, ".cgisnap-tmp-99-2", O_WRONLY | O_CREAT, 0644);
	close(fd);

	struct manifest m = MANIFEST_INIT;
	long n;
	CHECK_INT(0, manifest_load(&m, &t, err));
	CHECK_INT(0, manifest_recover(&m, &t, &n, NULL, err));
	CHECK_INT(1, n);
	CHECK_INT(1, manifest_count(&m));
	e = manifest_get(&m, "/a/");
	CHECK(e && e->key && !strcmp(e->key, "a/index.html"));
	CHECK(faccessat(t.fd, "a/.cgisnap-tmp-99-1", F_OK, 0) < 0);
	CHECK(faccessat(t.meta_fd, ".cgisnap-tmp-99-2", F_OK, 0) < 0);
	CHECK(faccessat(t.fd, "a/index.html", F_OK, 0) == 0);
	CHECK_INT(0, manifest_save(&m, &t, err));
	CHECK_INT(0, manifest_journal_reset(&t, err));
	CHECK_INT(0, manifest_recover(&m, &t, &n, NULL, err));
	CHECK_INT(0, n); /* none pending now */
	CHECK_INT(0, manifest_journal_reset(&t, err)); /* none is fine */
	manifest_release(&m);
	tree_close(&t);
	unit_drop_dir(path);
}

/* A pending removal whose file could not be removed (a symbolic link on
 * its way) is kept as an entry only when its target has none: replayed
 * into an empty manifest (serve --fill loads none), a target that moved
 * to another file keeps its row as the database holds it. */
TEST(manifest_recover_keeps_a_failed_removal_only_for_a_target_without_a_row)
{
	struct tree t;
	char *path = unit_tree_open(&t, "man", NULL);
	char err[ERR_LEN];
	char *elsewhere = xasprintf("%s/elsewhere", path);
	CHECK_INT(0, mkdir(elsewhere, 0755));
	CHECK_INT(0, symlinkat(elsewhere, t.fd, "l"));
	struct manifest m = MANIFEST_INIT, gone = MANIFEST_INIT;
	manifest_put(&m, mfix_entry("/moved", 1));
	struct manifest_entry *was = mfix_entry("/moved", 2), *lost = mfix_entry("/lost", 3);
	free(was->key);
	was->key = xstrdup("l/moved.html");
	free(lost->key);
	lost->key = xstrdup("l/lost.html");
	manifest_put(&gone, was);
	manifest_put(&gone, lost);
	/* Killed before the removals: the pending rows stay. */
	CHECK_INT(0, manifest_save_removing(&m, &gone, &t, err));
	manifest_release(&gone);
	tree_close(&t);

	CHECK_INT(0, tree_open(&t, path, false, err));
	struct manifest fills = MANIFEST_INIT;
	long n;
	CHECK_INT(0, manifest_recover(&fills, &t, &n, NULL, err));
	CHECK_INT(1, manifest_count(&fills));
	CHECK(manifest_get(&fills, "/moved") == NULL);
	struct manifest_entry *e = manifest_get(&fills, "/lost");
	CHECK(e && !strcmp(e->key, "l/lost.html"));
	CHECK_INT(0, manifest_save_delta(&fills, NULL, NULL, &t, err));
	manifest_release(&fills);
	struct manifest r = MANIFEST_INIT;
	CHECK_INT(0, manifest_load(&r, &t, err));
	e = manifest_get(&r, "/moved");
	CHECK(e && !strcmp(e->key, "p1.html"));
	CHECK_INT(2, manifest_count(&r));
	manifest_release(&r);
	manifest_release(&m);
	tree_close(&t);
	free(elsewhere);
	unit_drop_dir(path);
}

TEST(tree_claim_and_apart)
{
	char path[] = "/tmp/cgisnap-man-XXXXXX";
	CHECK(mkdtemp(path) != NULL);
	char err[ERR_LEN];
	struct tree t;
	char *users = xasprintf("%s/users", path), *file = xasprintf("%s/users/mine.html", path);
	CHECK_INT(0, mkdir(users, 0755));
	FILE *f = fopen(file, "w");
	fclose(f);
	CHECK_INT(-1, tree_claim(&t, users, false, err));
	char *want = xasprintf("'%s' is not empty and not a cgisnap tree (use --force to adopt it)", users);
	CHECK_STR(want, err);
	CHECK_INT(0, tree_claim(&t, users, true, err)); /* adopted */
	tree_close(&t);
	CHECK_INT(0, tree_claim(&t, users, false, err)); /* a tree now */
	tree_close(&t);

	char *real = tree_real_path(path);
	char *p = xasprintf("%s/no/such/../dir", path), *expect = xasprintf("%s/no/dir", real);
	char *got = tree_real_path(p);
	CHECK_STR(expect, got);
	CHECK_INT(-1, tree_check_apart(p, path, err));
	CHECK_INT(-1, tree_check_apart(path, users, err));
	CHECK_INT(0, tree_check_apart(users, p, err));
	free(got);
	free(p);
	p = xasprintf("%s/users/../../elsewhere", path);
	CHECK_INT(0, tree_check_apart(p, path, err));
	free(real);
	free(p);
	free(expect);
	free(want);
	free(users);
	free(file);
	unit_remove_tree(path);
}
