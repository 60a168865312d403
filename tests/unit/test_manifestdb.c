/* test_manifestdb.c - tree.db's schema version 3 (each row's sets, the
 * index of keys) and the lazy manifest that reads entries as asked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "tree/manifest.h"
#include "tree/tree.h"
#include "helpers.h"
#include "manifestfix.h"
#include "unit.h"
#include "base/xalloc.h"

/* A tree of schema version 2 (no url.sets, no url_by_key) is upgraded by
 * its first writer: each row then names the sets url_dep gives it, so
 * that a save that did not load drops a replaced row's old references;
 * a row with no sets column read from url_dep. */
TEST(manifest_version_2_is_upgraded_with_each_rows_sets)
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
	CHECK_INT(0, mfix_db_exec(treepath, "DROP INDEX url_by_key; ALTER TABLE url DROP COLUMN sets;"
				       " PRAGMA user_version = 2;"));
	CHECK_INT(0, tree_open(&t, treepath, false, err));
	struct manifest delta = MANIFEST_INIT;
	manifest_put(&delta, mfix_entry("/p2", 20)); /* its own file another */
	CHECK_INT(0, manifest_save_delta(&delta, NULL, NULL, &t, err));
	manifest_release(&delta);
	CHECK_INT(3, mfix_db_count(treepath, "PRAGMA user_version"));
	CHECK_INT(3, mfix_db_count(treepath, "SELECT count(*) FROM url WHERE length(sets) > 0"));
	CHECK_INT(1, mfix_db_count(treepath, "SELECT count(*) FROM sqlite_master WHERE name = 'url_by_key'"));
	struct strlist deps = STRLIST_INIT;
	CHECK_INT(0, manifest_dependents(&t, 'R', "/site/data/p2.txt", &deps, err));
	CHECK_INT(0, deps.n);
	CHECK_INT(0, manifest_dependents(&t, 'R', "/site/data/p20.txt", &deps, err));
	CHECK(deps.n == 1 && !strcmp(deps.items[0], "/p2"));
	strlist_clear(&deps);
	CHECK_INT(0, manifest_dependents(&t, 'R', "/site/lib/a.php", &deps, err));
	CHECK_INT(3, deps.n);
	strlist_clear(&deps);
	CHECK_INT(0, mfix_db_count(treepath, "SELECT count(*) FROM depset WHERE names = 'p2.txt'"));
	/* A row an older cgisnap's writer wrote after the upgrade names no
	 * sets: they are read from url_dep. */
	tree_close(&t);
	CHECK_INT(0, mfix_db_exec(treepath, "UPDATE url SET sets = NULL WHERE target = '/p1'"));
	CHECK_INT(0, tree_open(&t, treepath, false, err));
	manifest_put(&delta, mfix_entry("/p1", 10));
	CHECK_INT(0, manifest_save_delta(&delta, NULL, NULL, &t, err));
	manifest_release(&delta);
	CHECK_INT(0, manifest_dependents(&t, 'R', "/site/data/p1.txt", &deps, err));
	CHECK_INT(0, deps.n);
	CHECK_INT(0, mfix_db_count(treepath, "SELECT count(*) FROM depset WHERE names = 'p1.txt'"));
	CHECK_INT(3, mfix_db_count(treepath, "SELECT count(*) FROM url WHERE length(sets) > 0"));
	tree_close(&t);
	mfix_remove_scratch(path, treepath);
}

/* A lazy manifest reads an entry, with its dependencies, when asked for
 * it (by target or by its file's key), knows a target without one, and
 * forgets what it read; a save of what it holds writes only that. */
TEST(manifest_lazy_reads_what_is_asked_and_forgets_it)
{
	struct tree t;
	char *treepath;
	char *path = mfix_open_scratch(&t, &treepath);
	char err[ERR_LEN];
	struct manifest m = MANIFEST_INIT;
	manifest_set_lazy(&m, &t);
	CHECK(manifest_is_lazy(&m));
	CHECK(manifest_empty(&m)); /* no database yet */
	CHECK(manifest_find(&m, "/p1") == NULL);
	CHECK_INT(0, mfix_save_pages(&t, 40, err));
	manifest_forget(&m); /* "/p1: none" was read before the save */
	CHECK(!manifest_empty(&m));
	CHECK_INT(0, manifest_count(&m));
	struct manifest_entry *e = manifest_find(&m, "/p7");
	CHECK(e && e->bytes == 7 && !strcmp(e->key, "p7.html"));
	CHECK(e && e->deps_read.n == 3 && strlist_contains(&e->deps_read, "/site/data/p7.txt") &&
	      strlist_contains(&e->deps_read, "/site/lib/a.php"));
	CHECK(e && e->deps_listed.n == 1 && !strcmp(e->deps_listed.items[0], "/site/data"));
	CHECK(manifest_find(&m, "/p7") == e); /* kept */
	CHECK(manifest_find(&m, "/none") == NULL);
	CHECK(manifest_has(&m, "/p8") && !manifest_has(&m, "/none"));
	e = manifest_find_by_key(&m, "p9.html");
	CHECK(e && !strcmp(e->target, "/p9"));
	CHECK(manifest_find_by_key(&m, "nobody.html") == NULL);
	CHECK_INT(2, manifest_count(&m)); /* /p7, /p9: /p8 only known to be there */
	CHECK_INT(4, manifest_lazy_reads(&m)); /* /p1 (none then), /p7, /none, /p9 */
	struct strlist targets = STRLIST_INIT;
	CHECK_INT(0, manifest_targets(&m, &targets, err));
	CHECK_INT(40, targets.n);
	strlist_clear(&targets);
	/* What it holds, changed, saved as a delta: the other rows stay. */
	manifest_put(&m, mfix_entry("/p7", 70));
	CHECK_INT(0, manifest_save_delta(&m, NULL, NULL, &t, err));
	CHECK_INT(41, manifest_rows_written(&t)); /* 40, then /p7 (/p9 as it was) */
	CHECK_INT(0, manifest_lazy_error(&m, err));
	manifest_forget(&m);
	CHECK_INT(0, manifest_count(&m));
	e = manifest_find(&m, "/p7");
	CHECK(e && e->bytes == 70 && strlist_contains(&e->deps_read, "/site/data/p70.txt"));
	CHECK(manifest_find(&m, "/p8") && manifest_find(&m, "/p8")->bytes == 8);
	manifest_release(&m);
	CHECK(!manifest_is_lazy(&m));
	tree_close(&t);
	mfix_remove_scratch(path, treepath);
}

/* A lazy manifest's failed read gives no entry and is kept, to be said
 * by the caller (watch's batch fails rather than take a page for new). */
TEST(manifest_lazy_keeps_a_failed_read)
{
	struct tree t;
	char *treepath;
	char *path = mfix_open_scratch(&t, &treepath);
	char err[ERR_LEN];
	CHECK_INT(0, mfix_save_pages(&t, 3, err));
	tree_close(&t);
	CHECK_INT(0, mfix_db_exec(treepath, "UPDATE url SET sets = x'80' WHERE target = '/p1'")); /* cut short */
	CHECK_INT(0, tree_open(&t, treepath, false, err));
	struct manifest m = MANIFEST_INIT;
	manifest_set_lazy(&m, &t);
	CHECK(manifest_find(&m, "/p2") != NULL);
	CHECK_INT(0, manifest_lazy_error(&m, err));
	CHECK(manifest_find(&m, "/p1") == NULL);
	CHECK_INT(-1, manifest_lazy_error(&m, err));
	CHECK(strstr(err, "tree.db") != NULL);
	CHECK(strstr(err, "the sets of '/p1' are malformed") != NULL);
	manifest_forget(&m);
	CHECK_INT(0, manifest_lazy_error(&m, err));
	manifest_release(&m);
	/* A save that reads the row to compare it (no state loaded) names it too. */
	struct manifest delta = MANIFEST_INIT;
	manifest_put(&delta, mfix_entry("/p1", 11));
	err[0] = '\0';
	CHECK_INT(-1, manifest_save_delta(&delta, NULL, NULL, &t, err));
	CHECK(strstr(err, "the sets of '/p1' are malformed") != NULL);
	manifest_release(&delta);
	tree_close(&t);
	mfix_remove_scratch(path, treepath);
}

