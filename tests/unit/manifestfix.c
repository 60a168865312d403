/* manifestfix.c - the manifest tests' shared pages and database access
 * (manifestfix.h). */
#include "manifestfix.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sha256.h"
#include "base/xalloc.h"
#include "helpers.h"

char *mfix_open_scratch(struct tree *t, char **treepath)
{
	char *path = unit_tree_open(t, "man", "tree");
	*treepath = xasprintf("%s/tree", path);
	return path;
}

/* Remove the scratch directory of unit_tree_open and free its names. */
void mfix_remove_scratch(char *path, char *treepath)
{
	unit_drop_dir(path);
	free(treepath);
}

struct manifest_entry *mfix_entry(const char *target, int i)
{
	struct manifest_entry *e = manifest_entry_new(target);
	e->key = xasprintf("p%d.html", i);
	e->status = 200;
	e->bytes = i;
	sha256_hex(target, strlen(target), e->sha256);
	/* Shared sets (the same names in /site/lib/) and one of its own. */
	strlist_add(&e->deps_read, "/site/lib/b.php");
	strlist_add(&e->deps_read, "/site/lib/a.php");
	strlist_add_owned(&e->deps_read, xasprintf("/site/data/p%d.txt", i));
	strlist_add(&e->deps_listed, "/site/data");
	return e;
}

/* The entries /p0 .. /p<n-1> of mfix_entry(), put in m. */
void mfix_put_pages(struct manifest *m, int n)
{
	char target[32];
	for (int i = 0; i < n; i++) {
		snprintf(target, sizeof target, "/p%d", i);
		manifest_put(m, mfix_entry(target, i));
	}
}

int mfix_save_pages(struct tree *t, int n, char *err)
{
	struct manifest m = MANIFEST_INIT;
	mfix_put_pages(&m, n);
	int rc = manifest_save(&m, t, err);
	manifest_release(&m);
	return rc;
}

/* The count sql gives on tree.db at treepath, read on a connection of its own. */
long long mfix_db_count(const char *treepath, const char *sql)
{
	char *db_path = xasprintf("%s/.cgisnap/tree.db", treepath);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long n = -1;
	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(db_path);
	return n;
}

/* Run sql on tree.db at treepath, on a connection of its own (no foreign
 * keys enforced: it damages the database as a hand could). */
int mfix_db_exec(const char *treepath, const char *sql)
{
	char *db_path = xasprintf("%s/.cgisnap/tree.db", treepath);
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
			 sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK
		     ? 0
		     : -1;
	sqlite3_close(db);
	free(db_path);
	return rc;
}

