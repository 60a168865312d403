/* manifestsave.c - saving the manifest into tree.db: the rows that
 * changed only, whole or as a delta, the pending removals, and giving
 * free pages back (manifest.h). */
#include "tree/manifestdb_impl.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/log.h"
#include "base/xalloc.h"

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* l's strings in order: the list itself when it is (a recorder's lists
 * come sorted), else a sorted copy of its pointers, which the caller
 * frees (*copy set). Repeats stay. */
static char **in_order(const struct strlist *l, char ***copy)
{
	*copy = NULL;
	if (strlist_sorted(l))
		return l->items;
	*copy = xmalloc(l->n * sizeof **copy);
	memcpy(*copy, l->items, l->n * sizeof **copy);
	qsort(*copy, l->n, sizeof **copy, by_str);
	return *copy;
}

/* The fingerprint of e: its line and its dependencies of each kind,
 * sorted and without repeats, so that an entry read back from the
 * database (grouped by set) fingerprints as the one saved. */
static uint64_t fingerprint(const struct manifest_entry *e)
{
	struct buf line = BUF_INIT;
	manifest_format_entry(&line, e);
	uint64_t h = fnv1a64(FNV1A64_START, line.data, line.len + 1);
	buf_release(&line);
	for (const char *k = MANIFEST_DEP_KINDS; *k; k++) {
		const struct strlist *l = manifest_deps((struct manifest_entry *)e, *k);
		h = fnv1a64(h, k, 1);
		if (!l->n)
			continue;
		char **copy, **v = in_order(l, &copy);
		for (size_t i = 0; i < l->n; i++)
			if (i == 0 || strcmp(v[i], v[i - 1]))
				h = fnv1a64(h, v[i], strlen(v[i]) + 1);
		free(copy);
	}
	/* SQLite integers are signed: keep the top bit clear. */
	return h >> 1;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void bind_sha(sqlite3_stmt *st, int i, const char *hex)
{
	unsigned char raw[32];
	if (strlen(hex) != 64) {
		sqlite3_bind_null(st, i);
		return;
	}
	for (int j = 0; j < 32; j++) {
		int hi = hexval(hex[2 * j]), lo = hexval(hex[2 * j + 1]);
		if (hi < 0 || lo < 0) {
			sqlite3_bind_null(st, i);
			return;
		}
		raw[j] = (unsigned char)(hi << 4 | lo);
	}
	sqlite3_bind_blob(st, i, raw, sizeof raw, SQLITE_TRANSIENT);
}

/* Group e's dependencies by kind and directory into sets (the caller
 * frees each's dir and names, and the array). */
static struct depset *group_deps(const struct manifest_entry *e, size_t *nsets)
{
	struct depset *sets = NULL;
	size_t n = 0, cap = 0;
	for (const char *k = MANIFEST_DEP_KINDS; *k; k++) {
		const struct strlist *l = manifest_deps((struct manifest_entry *)e, *k);
		if (!l->n)
			continue;
		char **copy, **v = in_order(l, &copy);
		/* Sorted by full path, one directory's direct names are not
		 * always adjacent ("/a/b" sorts between "/a/" + "a" and "/a/"
		 * + "c" when "/a/b/x" is there too): a set per run is still
		 * correct, only less shared. */
		for (size_t i = 0; i < l->n; i++) {
			if (i && !strcmp(v[i], v[i - 1]))
				continue;
			const char *slash = strrchr(v[i], '/');
			size_t dlen = slash ? (size_t)(slash - v[i]) + 1 : 0;
			struct depset *s = n ? &sets[n - 1] : NULL;
			if (!s || s->kind != *k || strlen(s->dir) != dlen || strncmp(s->dir, v[i], dlen)) {
				if (n == cap) {
					cap = cap ? 2 * cap : 8;
					sets = xrealloc(sets, cap * sizeof *sets);
				}
				s = &sets[n++];
				s->kind = *k;
				s->dir = xstrndup(v[i], dlen);
				buf_init(&s->names);
			} else {
				buf_addc(&s->names, '\n');
			}
			buf_adds(&s->names, v[i] + dlen);
		}
		free(copy);
	}
	*nsets = n;
	return sets;
}

/* The prepared statements of one save. */
struct saver {
	struct tree *t;
	sqlite3_stmt *find_dir, *add_dir, *find_set, *add_set, *insert_url, *update_url, *delete_url, *add_ref,
		*drop_ref, *gc_set, *gc_dir;
	/* Without the stored state (a delta save of a process that did not
	 * load): a target's row and its sets, read per target. */
	sqlite3_stmt *find_url, *find_refs;
	/* The sets this save found or added: key_of_set -> id + 1. The pages
	 * of a site share most sets (the code every page reads); each would
	 * cost two queries. */
	struct hashmap set_ids;
	/* The target whose row's sets could not be decoded, for the error. */
	const char *malformed;
};

/* Past this many, set_ids starts again: a site's shared sets come back
 * at once, and a first save of a million pages stays small. */
#define SET_IDS_MAX 16384

/* kind, directory (ending in '/') and names (none holds a '/') of s, one
 * string that tells every set from every other. */
static void key_of_set(struct buf *key, const struct depset *s)
{
	buf_addc(key, s->kind);
	buf_adds(key, s->dir);
	buf_add(key, s->names.data ? s->names.data : "", s->names.len);
}

static void saver_release(struct saver *s)
{
	hashmap_release(&s->set_ids);
	sqlite3_finalize(s->find_url);
	sqlite3_finalize(s->find_refs);
	sqlite3_finalize(s->find_dir);
	sqlite3_finalize(s->add_dir);
	sqlite3_finalize(s->find_set);
	sqlite3_finalize(s->add_set);
	sqlite3_finalize(s->insert_url);
	sqlite3_finalize(s->update_url);
	sqlite3_finalize(s->delete_url);
	sqlite3_finalize(s->add_ref);
	sqlite3_finalize(s->drop_ref);
	sqlite3_finalize(s->gc_set);
	sqlite3_finalize(s->gc_dir);
}

static int saver_init(struct saver *s, struct tree *t)
{
	memset(s, 0, sizeof *s);
	s->t = t;
	s->find_dir = mdb_prepare(t, "SELECT id FROM dir WHERE path = ?1");
	s->add_dir = mdb_prepare(t, "INSERT INTO dir (path) VALUES (?1)");
	/* CAST: a bare "kind = ?2" would be compared with the partial index
	 * depset_untraced's "kind = 'U'", and SQLite then prepares the
	 * statement again after every new value bound to ?2 (its plan
	 * depends on the value): once per set saved. */
	s->find_set = mdb_prepare(t, "SELECT id FROM depset WHERE dir_id = ?1 AND kind = CAST(?2 AS TEXT) AND many = ?3"
				     " AND hash = ?4 AND names = ?5");
	s->add_set = mdb_prepare(t, "INSERT INTO depset (dir_id, kind, many, hash, names) VALUES (?1, ?2, ?3, ?4, ?5)");
	s->insert_url = mdb_prepare(t, "INSERT INTO url (target, key, status, type, bytes, sha256, render_ms, changed,"
				       " location, fp, sets) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
	s->update_url = mdb_prepare(t, "UPDATE url SET key = ?2, status = ?3, type = ?4, bytes = ?5, sha256 = ?6,"
				       " render_ms = ?7, changed = ?8, location = ?9, fp = ?10, sets = ?11 WHERE id = ?1");
	s->delete_url = mdb_prepare(t, "DELETE FROM url WHERE id = ?1");
	s->add_ref = mdb_prepare(t, "INSERT OR IGNORE INTO url_dep (set_id, url_id) VALUES (?1, ?2)");
	s->drop_ref = mdb_prepare(t, "DELETE FROM url_dep WHERE set_id = ?1 AND url_id = ?2");
	s->gc_set = mdb_prepare(t, "DELETE FROM depset WHERE id = ?1 AND NOT EXISTS"
				   " (SELECT 1 FROM url_dep WHERE set_id = ?1) RETURNING dir_id");
	s->gc_dir = mdb_prepare(t, "DELETE FROM dir WHERE id = ?1 AND NOT EXISTS"
				   " (SELECT 1 FROM depset WHERE dir_id = ?1)");
	if (!s->find_dir || !s->add_dir || !s->find_set || !s->add_set || !s->insert_url || !s->update_url ||
	    !s->delete_url || !s->add_ref || !s->drop_ref || !s->gc_set || !s->gc_dir)
		return -1;
	if (!t->db->have_state) {
		/* The row names its sets: url_dep's key is (set_id, url_id),
		 * and an index by url_id would cost each page ~10 bytes a set.
		 * A row without (an older cgisnap's writer, still running
		 * after the upgrade, wrote it) has them read by a scan. */
		s->find_url = mdb_prepare(t, "SELECT id, fp, sets FROM url WHERE target = ?1");
		s->find_refs = mdb_prepare(t, "SELECT set_id FROM url_dep WHERE url_id = ?1");
		if (!s->find_url || !s->find_refs)
			return -1;
	}
	return 0;
}

/* What the database holds for target k as *out (NULL: no row): the
 * stored state's entry (borrowed) when the process holds the state,
 * else read now (*fresh: the caller frees it with mdb_stored_free). 0 or -1. */
static int stored_for(struct saver *sv, const char *k, struct stored **out, bool *fresh)
{
	struct manifest_db *d = sv->t->db;
	*out = NULL;
	*fresh = false;
	if (d->have_state) {
		*out = hashmap_get(&d->stored, k);
		return 0;
	}
	sqlite3_bind_text(sv->find_url, 1, k, -1, SQLITE_STATIC);
	int rc = sqlite3_step(sv->find_url);
	struct stored *s = NULL;
	if (rc == SQLITE_ROW) {
		s = xcalloc(1, sizeof *s);
		s->id = sqlite3_column_int64(sv->find_url, 0);
		s->fp = (uint64_t)sqlite3_column_int64(sv->find_url, 1);
		int got = mdb_row_sets(sv->find_url, 2, s->id, sv->find_refs, &s->sets, &s->nsets);
		if (got < 0) {
			mdb_stored_free(s);
			rc = SQLITE_ERROR;
			if (got == -2)
				sv->malformed = k;
		}
	}
	sqlite3_reset(sv->find_url);
	sqlite3_clear_bindings(sv->find_url);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : -1;
	*out = s;
	*fresh = true;
	return 0;
}

/* The id that st (bound) finds in its first column, or else the one that
 * add (bound) inserts; -1 on error. */
static long long find_or_add(struct saver *sv, sqlite3_stmt *st, sqlite3_stmt *add)
{
	long long id = -1;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc == SQLITE_ROW) {
		sqlite3_clear_bindings(add);
		return id;
	}
	if (rc != SQLITE_DONE || mdb_step(add) < 0) {
		sqlite3_reset(add);
		sqlite3_clear_bindings(add);
		return -1;
	}
	return sqlite3_last_insert_rowid(sv->t->db->db);
}

static long long find_or_add_set(struct saver *sv, const struct depset *s);

/* The id of set s, added (and its directory) when the database has none
 * like it; -1 on error. */
static long long intern_set(struct saver *sv, const struct depset *s)
{
	struct buf key = BUF_INIT;
	key_of_set(&key, s);
	uintptr_t known = (uintptr_t)hashmap_get(&sv->set_ids, buf_str(&key));
	long long id = known ? (long long)(known - 1) : find_or_add_set(sv, s);
	if (!known && id >= 0) {
		if (sv->set_ids.count >= SET_IDS_MAX)
			hashmap_release(&sv->set_ids);
		hashmap_put(&sv->set_ids, buf_str(&key), (void *)(uintptr_t)(id + 1));
	}
	buf_release(&key);
	return id;
}

/* intern_set's queries. */
static long long find_or_add_set(struct saver *sv, const struct depset *s)
{
	sqlite3_bind_text(sv->find_dir, 1, s->dir, -1, SQLITE_STATIC);
	sqlite3_bind_text(sv->add_dir, 1, s->dir, -1, SQLITE_STATIC);
	long long dir_id = find_or_add(sv, sv->find_dir, sv->add_dir);
	if (dir_id < 0)
		return -1;
	char kind[2] = { s->kind, '\0' };
	const char *names = s->names.data ? s->names.data : "";
	int many = memchr(names, '\n', s->names.len) != NULL;
	long long hash = mdb_names_hash(names, s->names.len);
	sqlite3_stmt *each[] = { sv->find_set, sv->add_set };
	for (size_t i = 0; i < 2; i++) {
		sqlite3_bind_int64(each[i], 1, dir_id);
		sqlite3_bind_text(each[i], 2, kind, 1, SQLITE_STATIC);
		sqlite3_bind_int(each[i], 3, many);
		sqlite3_bind_int64(each[i], 4, hash);
		sqlite3_bind_text(each[i], 5, names, (int)s->names.len, SQLITE_STATIC);
	}
	return find_or_add(sv, sv->find_set, sv->add_set);
}

static int bind_row(sqlite3_stmt *st, const struct manifest_entry *e, uint64_t fp)
{
	bind_text(st, 2, e->key);
	sqlite3_bind_int(st, 3, e->status);
	bind_text(st, 4, e->content_type);
	sqlite3_bind_int64(st, 5, e->bytes);
	bind_sha(st, 6, e->sha256);
	sqlite3_bind_int64(st, 7, e->render_ms);
	sqlite3_bind_int64(st, 8, (long long)e->changed);
	bind_text(st, 9, e->location);
	sqlite3_bind_int64(st, 10, (long long)fp);
	return 0;
}

static bool has_id(const long long *v, size_t n, long long id)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == id)
			return true;
	return false;
}

/* Drop the references of url id to the sets of old not in keep, and the
 * sets no page refers to any more. */
static int drop_refs(struct saver *sv, long long id, const long long *old, size_t nold, const long long *keep,
		     size_t nkeep)
{
	for (size_t i = 0; i < nold; i++) {
		if (has_id(keep, nkeep, old[i]))
			continue;
		sqlite3_bind_int64(sv->drop_ref, 1, old[i]);
		sqlite3_bind_int64(sv->drop_ref, 2, id);
		if (mdb_step(sv->drop_ref) < 0)
			return -1;
		/* The set gone, its directory too when no other set is in it. */
		sqlite3_bind_int64(sv->gc_set, 1, old[i]);
		int rc = sqlite3_step(sv->gc_set);
		long long dir_id = rc == SQLITE_ROW ? sqlite3_column_int64(sv->gc_set, 0) : -1;
		while (rc == SQLITE_ROW)
			rc = sqlite3_step(sv->gc_set);
		sqlite3_reset(sv->gc_set);
		sqlite3_clear_bindings(sv->gc_set);
		if (rc != SQLITE_DONE)
			return -1;
		if (dir_id >= 0) {
			/* A set gone: an id this save knew may be no more. */
			hashmap_release(&sv->set_ids);
			sqlite3_bind_int64(sv->gc_dir, 1, dir_id);
			if (mdb_step(sv->gc_dir) < 0)
				return -1;
		}
	}
	return 0;
}

/* Write e's row and references; *out (new, the caller's) what is stored. */
static int save_entry(struct saver *sv, const struct manifest_entry *e, uint64_t fp, const struct stored *old,
		      struct stored **out)
{
	struct stored *s = xcalloc(1, sizeof *s);
	size_t nsets;
	struct depset *sets = group_deps(e, &nsets);
	struct buf blob = BUF_INIT;
	int rc = -1;
	s->fp = fp;
	s->sets = xmalloc((nsets + 1) * sizeof *s->sets);
	for (size_t i = 0; i < nsets; i++) {
		long long id = intern_set(sv, &sets[i]);
		if (id < 0)
			goto out;
		if (!has_id(s->sets, s->nsets, id))
			s->sets[s->nsets++] = id;
	}
	/* The row first (a new one's id), naming its sets. */
	sqlite3_stmt *st = old ? sv->update_url : sv->insert_url;
	if (old)
		sqlite3_bind_int64(st, 1, old->id);
	else
		sqlite3_bind_text(st, 1, e->target, -1, SQLITE_TRANSIENT);
	bind_row(st, e, fp);
	mdb_sets_encode(s->sets, s->nsets, &blob);
	sqlite3_bind_blob(st, 11, blob.data ? blob.data : "", (int)blob.len, SQLITE_STATIC);
	if (mdb_step(st) < 0)
		goto out;
	s->id = old ? old->id : sqlite3_last_insert_rowid(sv->t->db->db);
	for (size_t i = 0; i < s->nsets; i++) {
		if (old && has_id(old->sets, old->nsets, s->sets[i]))
			continue;
		sqlite3_bind_int64(sv->add_ref, 1, s->sets[i]);
		sqlite3_bind_int64(sv->add_ref, 2, s->id);
		if (mdb_step(sv->add_ref) < 0)
			goto out;
	}
	if (old && drop_refs(sv, s->id, old->sets, old->nsets, s->sets, s->nsets) < 0)
		goto out;
	rc = 0;
out:
	for (size_t i = 0; i < nsets; i++) {
		free(sets[i].dir);
		buf_release(&sets[i].names);
	}
	free(sets);
	buf_release(&blob);
	if (rc < 0) {
		mdb_stored_free(s);
		s = NULL;
	}
	*out = s;
	return rc;
}

static int delete_entry(struct saver *sv, const struct stored *old)
{
	sqlite3_bind_int64(sv->delete_url, 1, old->id);
	if (mdb_step(sv->delete_url) < 0)
		return -1;
	return drop_refs(sv, old->id, old->sets, old->nsets, NULL, 0);
}

/* Make k's row what e says (NULL: no row), writing only when it differs
 * from the stored one; what it will be goes to next (NULL: deleted). */
static int update_row(struct saver *sv, const char *k, const struct manifest_entry *e, struct hashmap *next,
		      long long *written)
{
	struct stored *old, *now = NULL;
	bool fresh;
	if (stored_for(sv, k, &old, &fresh) < 0)
		return -1;
	int rc = 0;
	uint64_t fp = e ? fingerprint(e) : 0;
	if (e ? !old || old->fp != fp : old != NULL) {
		rc = e ? save_entry(sv, e, fp, old, &now) : delete_entry(sv, old);
		if (rc == 0) {
			hashmap_put(next, k, now);
			(*written)++;
		}
	}
	if (fresh)
		mdb_stored_free(old);
	return rc;
}

/* The save itself, inside the caller's write transaction: the rows of
 * m's entries that differ from what the database holds written; with
 * dropped NULL, the rows of targets m lacks deleted (m is the whole
 * manifest, and the stored state is read), else only those of the
 * targets dropped names (m holds what changed; without the stored state
 * each of these targets is looked up, and the state stays unread). */
int mdb_write_changes(struct tree *t, const struct manifest *m, const struct strlist *dropped, char *err)
{
	struct manifest_db *d = t->db;
	struct saver sv;
	struct hashmap next = HASHMAP_INIT; /* target -> struct stored *, what will be */
	struct hashmap deleted = HASHMAP_INIT; /* the dropped targets deleted */
	int rc = -1;
	if (mdb_need_schema(t, err) < 0)
		return -1;
	if (saver_init(&sv, t) < 0)
		goto out;
	size_t it = 0;
	const char *k;
	void *v;
	long long written = 0;
	while (hashmap_next(&m->entries, &it, &k, &v)) {
		d->rows_compared++;
		if (update_row(&sv, k, v, &next, &written) < 0)
			goto out;
	}
	it = 0;
	while (!dropped && hashmap_next(&d->stored, &it, &k, &v)) {
		d->rows_compared++;
		if (manifest_get(m, k))
			continue;
		if (delete_entry(&sv, v) < 0)
			goto out;
		hashmap_put(&next, k, NULL);
		written++;
	}
	for (size_t i = 0; dropped && i < dropped->n; i++) {
		k = dropped->items[i];
		/* Deleted once, however often named (the state changes only after the commit). */
		if (manifest_get(m, k) || hashmap_get(&deleted, k))
			continue;
		d->rows_compared++;
		hashmap_put(&deleted, k, (void *)1);
		if (update_row(&sv, k, NULL, &next, &written) < 0)
			goto out;
	}
	d->rows_written += written;
	rc = 0;
out:
	if (rc < 0 && sv.malformed)
		mdb_err_malformed(t, err, sv.malformed);
	else if (rc < 0)
		mdb_err(t, err, "update");
	saver_release(&sv);
	/* Applied to the state only once the caller commits: here, as a
	 * failed commit clears the whole state. Without the state, nothing
	 * is kept: the next save reads again what it needs. */
	it = 0;
	while (hashmap_next(&next, &it, &k, &v)) {
		if (rc < 0 || !d->have_state) {
			mdb_stored_free(v);
			continue;
		}
		if (v)
			mdb_stored_free(hashmap_put(&d->stored, k, v));
		else
			mdb_stored_free(hashmap_remove(&d->stored, k));
	}
	hashmap_release(&next);
	hashmap_release(&deleted);
	return rc;
}

/* Commit each entry of gone as a pending removal, inside the caller's
 * transaction. */
static int add_removals(struct tree *t, const struct manifest *gone, char *err)
{
	if (!gone || !manifest_count(gone))
		return 0;
	sqlite3_stmt *ins = mdb_prepare(t, "INSERT INTO pending (line, remove) VALUES (?1, 1)");
	int rc = ins ? 0 : mdb_err(t, err, "update");
	size_t it = 0;
	void *v;
	while (rc == 0 && hashmap_next(&gone->entries, &it, NULL, &v)) {
		struct buf line = BUF_INIT;
		manifest_format_entry(&line, v);
		sqlite3_bind_text(ins, 1, line.data, (int)line.len, SQLITE_TRANSIENT);
		if (mdb_step(ins) < 0)
			rc = mdb_err(t, err, "update");
		buf_release(&line);
	}
	sqlite3_finalize(ins);
	return rc;
}

int manifest_save(const struct manifest *m, struct tree *t, char *err)
{
	return manifest_save_removing(m, NULL, t, err);
}

static int save(const struct manifest *m, const struct strlist *dropped, const struct manifest *gone,
		struct tree *t, char *err);

int manifest_save_removing(const struct manifest *m, const struct manifest *gone, struct tree *t, char *err)
{
	return save(m, NULL, gone, t, err);
}

int manifest_save_delta(const struct manifest *changed, const struct strlist *dropped, const struct manifest *gone,
			struct tree *t, char *err)
{
	static const struct strlist none = STRLIST_INIT;
	return save(changed, dropped ? dropped : &none, gone, t, err);
}

/* PRAGMA name's value, or -1. */
static long long pragma_int(struct tree *t, const char *name)
{
	char *sql = xasprintf("PRAGMA %s", name);
	long long v = mdb_query_int(t, sql);
	free(sql);
	return v;
}

/* A database made before auto_vacuum (NONE) keeps every page it ever
 * had: rewritten once, by its first writer, so that pages freed by later
 * saves can be given back (trim_free). */
static int convert_vacuum(struct tree *t, char *err)
{
	struct manifest_db *d = t->db;
	if (d->vacuum_checked)
		return 0;
	long long mode = pragma_int(t, "auto_vacuum");
	if (mode < 0)
		return mdb_err(t, err, "read");
	if (mode == 0) {
		if (mdb_exec(t, "PRAGMA auto_vacuum = INCREMENTAL; VACUUM", err) < 0)
			return -1;
		log_info("converted %s/%s/%s to incremental auto-vacuum", t->path, TREE_META_DIR, MANIFEST_DB_FILE);
	}
	d->vacuum_checked = true;
	return 0;
}

/* Give the free pages back to the file system once they are more than a
 * sixteenth of the file: a batch that replaced many rows leaves them. */
void mdb_trim_free(struct tree *t)
{
	long long nfree = pragma_int(t, "freelist_count"), pages = pragma_int(t, "page_count");
	if (nfree > 0 && pages > 0 && nfree * 16 > pages)
		sqlite3_exec(t->db->db, "PRAGMA incremental_vacuum", NULL, NULL, NULL);
}

static int save(const struct manifest *m, const struct strlist *dropped, const struct manifest *gone,
		struct tree *t, char *err)
{
	if (mdb_lock(t, true, err) < 0)
		return -1;
	struct manifest_db *d = t->db;
	long long before = d->rows_written;
	if (convert_vacuum(t, err) < 0 || mdb_exec(t, "BEGIN IMMEDIATE", err) < 0)
		goto fail;
	/* A delta save needs no whole state: it looks its targets up. */
	if (!d->have_state && !dropped && mdb_read_all(t, NULL, err) < 0)
		goto rollback;
	if (mdb_write_changes(t, m, dropped, err) < 0 || add_removals(t, gone, err) < 0)
		goto rollback;
	if (mdb_exec(t, "COMMIT", err) < 0)
		goto rollback;
	mdb_trim_free(t);
	mdb_unlock(t);
	return 0;
rollback:
	sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
	mdb_state_clear(d); /* the state may hold what was rolled back */
	d->rows_written = before;
fail:
	mdb_unlock(t);
	return -1;
}

long long manifest_rows_written(const struct tree *t)
{
	return t->db ? t->db->rows_written : 0;
}

long long manifest_rows_compared(const struct tree *t)
{
	return t->db ? t->db->rows_compared : 0;
}
