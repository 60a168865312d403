/* manifestpending.c - tree.db's pending rows: a published file's entry
 * committed before its rename, a removal before its unlink, and the
 * recovery that a restart after kill -9 makes of them (manifest.h). */
#include "tree/manifestdb_impl.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "tree/publish.h"
#include "url/urlkey.h"
#include "base/xalloc.h"

int manifest_journal(struct tree *t, const struct manifest_entry *e, char *err)
{
	if (mdb_lock(t, true, err) < 0)
		return -1;
	struct buf line = BUF_INIT;
	manifest_format_entry(&line, e);
	if (!t->db->journal)
		t->db->journal = mdb_prepare(t, "INSERT INTO pending (line) VALUES (?1)");
	sqlite3_stmt *st = t->db->journal;
	int rc = 0;
	if (st)
		sqlite3_bind_text(st, 1, line.data, (int)line.len, SQLITE_STATIC);
	if (!st || mdb_step(st) < 0) /* mdb_step resets it for the next */
		rc = err_set(err, "cannot record '%s' in '%s/%s/%s': %s", e->key ? e->key : e->target, t->path,
			     TREE_META_DIR, MANIFEST_DB_FILE, mdb_reason(t->db->db, (char[MDB_REASON_LEN]){ 0 }));
	buf_release(&line);
	mdb_unlock(t);
	return rc;
}

/* Give e what had records as read (had's lists are left empty). */
static void keep_deps(struct manifest_entry *e, struct manifest_entry *had)
{
	struct strlist *to[] = { &e->deps_read, &e->deps_exist, &e->deps_listed, &e->deps_contents,
				 &e->deps_untraced, &e->deps_absent, &e->deps_wrote };
	struct strlist *from[] = { &had->deps_read, &had->deps_exist, &had->deps_listed, &had->deps_contents,
				   &had->deps_untraced, &had->deps_absent, &had->deps_wrote };
	for (size_t i = 0; i < sizeof to / sizeof *to; i++) {
		if (to[i]->n)
			continue;
		struct strlist tmp = *to[i];
		*to[i] = *from[i];
		*from[i] = tmp;
	}
}

int manifest_recover(struct manifest *m, struct tree *t, long *recovered, struct strlist *new_targets, char *err)
{
	*recovered = 0;
	/* A run killed while writing settings or profile, or an old tree's
	 * manifest, leaves its temp file in .cgisnap/. */
	if (t->meta_fd >= 0)
		publish_clean_temps(t->meta_fd, MANIFEST_TEXT_FILE);
	if (mdb_lock(t, false, err) < 0)
		return -1;
	if (!t->db)
		return 0;
	struct hashmap cleaned = HASHMAP_INIT; /* directories whose temp files went */
	sqlite3_stmt *st = mdb_prepare(t, "SELECT line, remove FROM pending ORDER BY seq");
	sqlite3_stmt *has_row = mdb_prepare(t, "SELECT 1 FROM url WHERE target = ?1");
	int rc = st && has_row ? SQLITE_ROW : SQLITE_ERROR;
	while (st && has_row && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		char *line = xstrdup(mdb_column_text(st, 0) ? mdb_column_text(st, 0) : "");
		bool removal = sqlite3_column_int(st, 1) != 0;
		struct manifest_entry *e;
		int bad = manifest_parse_entry(line, &e);
		free(line);
		if (bad < 0)
			continue;
		if (!e->key || !urlkey_is_safe(e->key)) {
			manifest_entry_free(e);
			continue;
		}
		const char *slash = strrchr(e->key, '/');
		char *dir = xstrndup(e->key, slash ? (size_t)(slash - e->key) : 0);
		if (!hashmap_get(&cleaned, dir)) {
			publish_clean_temps(t->fd, e->key);
			hashmap_put(&cleaned, dir, (void *)1);
		}
		free(dir);
		/* Committed before its rename: only a file that really holds
		 * these bytes was published. Otherwise the manifest's entry
		 * (the file before) still describes it. */
		char ignored[ERR_LEN];
		if (removal) {
			/* Saved as gone, killed before its file went: it goes now
			 * if still ours; a removal that fails keeps the entry, to
			 * be pruned as any other, unless the target has one (in
			 * m, or in the database when m holds only what the
			 * caller changes: serve --fill loads no manifest). */
			if (publish_remove(t->fd, e->key, e->bytes, e->sha256, ignored) < 0 && !manifest_get(m, e->target)) {
				sqlite3_bind_text(has_row, 1, e->target, -1, SQLITE_TRANSIENT);
				int found = sqlite3_step(has_row);
				sqlite3_reset(has_row);
				sqlite3_clear_bindings(has_row);
				if (found != SQLITE_ROW && found != SQLITE_DONE) {
					manifest_entry_free(e);
					rc = found;
					break;
				}
				if (found == SQLITE_DONE) {
					manifest_put(m, e);
					continue;
				}
			}
			manifest_entry_free(e);
			continue;
		}
		if (publish_owner(t->fd, e->key, e->bytes, e->sha256, ignored) == PUBLISH_OURS) {
			/* The pending line holds no dependencies (it stays one
			 * short row per publish): the render that published it
			 * read what the target's row recorded, so its sets stay,
			 * or its sources' later edits would never be followed. */
			struct manifest_entry *had = manifest_get(m, e->target);
			if (had)
				keep_deps(e, had);
			else if (new_targets)
				strlist_add(new_targets, e->target);
			manifest_put(m, e);
			(*recovered)++;
		} else {
			manifest_entry_free(e);
		}
	}
	int out = rc == SQLITE_DONE ? 0 : mdb_err(t, err, "read");
	sqlite3_finalize(st);
	sqlite3_finalize(has_row);
	hashmap_release(&cleaned);
	mdb_unlock(t);
	return out;
}

int manifest_has_pending(struct tree *t, char *err)
{
	if (mdb_lock(t, false, err) < 0)
		return -1;
	if (!t->db)
		return 0;
	long long n = mdb_query_int(t, "SELECT EXISTS (SELECT 1 FROM pending)");
	if (n < 0)
		mdb_err(t, err, "read");
	mdb_unlock(t);
	return n < 0 ? -1 : n > 0;
}

int manifest_journal_reset(struct tree *t, char *err)
{
	if (mdb_lock(t, false, err) < 0)
		return -1;
	if (!t->db)
		return 0;
	/* Nothing pending, nothing written: a DELETE of the empty table still
	 * rewrites its root page, and watch --poll resets after every poll. */
	int rc = 0;
	if (mdb_query_int(t, "SELECT EXISTS (SELECT 1 FROM pending)") != 0) {
		rc = mdb_exec(t, "DELETE FROM pending", err);
		if (rc == 0)
			mdb_trim_free(t); /* a crawl's pending rows were a row per page */
	}
	mdb_unlock(t);
	return rc;
}
