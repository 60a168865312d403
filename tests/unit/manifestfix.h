/* manifestfix.h - what the tests of the manifest in tree.db
 * (test_manifest.c, test_manifestdb.c) share: pages with shared and own
 * dependency sets, and the database read or changed behind the
 * manifest's back, as a hand could.
 *
 *     struct manifest m = MANIFEST_INIT;
 *     mfix_put_pages(&m, 40);    // /p0 .. /p39
 *     ... manifest_save(&m, &t, err) ...
 *     CHECK_INT(40, mfix_db_count(treepath, "SELECT count(*) FROM url"));
 */
#ifndef CGISNAP_UNIT_MANIFESTFIX_H
#define CGISNAP_UNIT_MANIFESTFIX_H

#include "tree/manifest.h"
#include "tree/tree.h"

/* A scratch tree opened in t at *treepath (freed by mfix_remove_scratch)
 * below the directory returned. */
char *mfix_open_scratch(struct tree *t, char **treepath);
/* Remove the scratch directory of unit_tree_open and free treepath. */
void mfix_remove_scratch(char *path, char *treepath);
/* The page target, numbered i: its file p<i>.html of i bytes; it reads
 * /site/lib/a.php and b.php (sets every page shares) and its own
 * /site/data/p<i>.txt, and lists /site/data. */
struct manifest_entry *mfix_entry(const char *target, int i);
/* The entries /p0 .. /p<n-1> of mfix_entry(), put in m. */
void mfix_put_pages(struct manifest *m, int n);
/* mfix_put_pages(n) saved as t's whole manifest: 0, or -1 with err. */
int mfix_save_pages(struct tree *t, int n, char *err);
/* The count sql gives on tree.db at treepath, read on a connection of
 * its own (-1 on error). */
long long mfix_db_count(const char *treepath, const char *sql);
/* Run sql on tree.db at treepath, on a connection of its own (no foreign
 * keys enforced: it damages the database as a hand could): 0 or -1. */
int mfix_db_exec(const char *treepath, const char *sql);

#endif
