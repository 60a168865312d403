/* manifestread.c - reading tree.db: the whole manifest, the targets that
 * depend on a path, and one target's row through a connection per thread
 * (manifest.h). */
#include "tree/manifestdb_impl.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/sha256.h"
#include "base/xalloc.h"

static void column_sha(sqlite3_stmt *st, int i, char *hex)
{
	const unsigned char *raw = sqlite3_column_blob(st, i);
	*hex = '\0';
	if (raw && sqlite3_column_bytes(st, i) == 32)
		sha256_to_hex(raw, hex);
}

/* The row's columns from col on, in ROW_COLUMNS' order, as a new entry
 * for target (no dependencies; the caller frees it): what load and
 * lookup both decode. */
static struct manifest_entry *row_entry(sqlite3_stmt *st, int col, const char *target)
{
	struct manifest_entry *e = manifest_entry_new(target);
	const char *v;
	e->key = (v = mdb_column_text(st, col)) ? xstrdup(v) : NULL;
	e->status = sqlite3_column_int(st, col + 1);
	e->content_type = (v = mdb_column_text(st, col + 2)) ? xstrdup(v) : NULL;
	e->bytes = sqlite3_column_int64(st, col + 3);
	column_sha(st, col + 4, e->sha256);
	e->render_ms = (long)sqlite3_column_int64(st, col + 5);
	e->changed = (time_t)sqlite3_column_int64(st, col + 6);
	e->location = (v = mdb_column_text(st, col + 7)) ? xstrdup(v) : NULL;
	return e;
}

/* Append to e's list of kind the path of each name of a set (names
 * '\n' separated, dir ending in '/'). */
static void add_set_paths(struct manifest_entry *e, char kind, const char *dir, const char *names)
{
	struct strlist *l = manifest_deps(e, kind);
	const char *p = names;
	for (;;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		strlist_add_owned(l, xasprintf("%s%.*s", dir, (int)len, p));
		if (!nl)
			break;
		p = nl + 1;
	}
}

/* The rows read, by id: a url's stored state and entry, a set. SQLite's
 * scans give ascending ids, so the arrays are sorted as read (or sorted
 * once, when a plan gave another order) and found by bisection: a
 * million pages' references are looked up without a string key each.
 * Each row begins with its id: one comparison and one search serve both. */
struct url_row {
	long long id;
	struct stored *s;
	struct manifest_entry *e; /* NULL: no manifest asked for */
};

struct set_row {
	long long id;
	struct depset set;
};

static int by_id(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

/* The row of n (each size bytes) whose id is id, or NULL. bsearch's array
 * may not be NULL, even empty (a url_dep row of a tree.db with no url
 * rows). */
static void *find_row(void *rows, size_t n, size_t size, long long id)
{
	return n ? bsearch(&id, rows, n, size, by_id) : NULL;
}

/* Read every row into m (NULL: only the stored state) and the stored
 * state into d, inside the caller's transaction. */
int mdb_read_all(struct tree *t, struct manifest *m, char *err)
{
	struct manifest_db *d = t->db;
	int rc = -1, src = SQLITE_ERROR;
	struct url_row *urls_v = NULL;
	struct set_row *sets_v = NULL;
	size_t nurls = 0, urls_cap = 0, nsets = 0, sets_cap = 0;
	bool urls_sorted = true, sets_sorted = true;
	sqlite3_stmt *urls = mdb_prepare(t, "SELECT id, target, fp, " ROW_COLUMNS " FROM url");
	sqlite3_stmt *ds = mdb_prepare(t, mdb_schema(t) == 1 ? "SELECT id, kind, dir, names FROM depset"
							    : "SELECT s.id, s.kind, d.path, s.names FROM depset s"
							      " JOIN dir d ON d.id = s.dir_id");
	sqlite3_stmt *refs = mdb_prepare(t, "SELECT set_id, url_id FROM url_dep");
	mdb_state_clear(d);
	if (!urls || !ds || !refs)
		goto out;
	while ((src = sqlite3_step(urls)) == SQLITE_ROW) {
		const char *target = mdb_column_text(urls, 1);
		if (!target)
			continue;
		struct stored *s = xcalloc(1, sizeof *s);
		s->id = sqlite3_column_int64(urls, 0);
		s->fp = (uint64_t)sqlite3_column_int64(urls, 2);
		mdb_stored_free(hashmap_put(&d->stored, target, s));
		struct manifest_entry *e = NULL;
		if (m) {
			e = row_entry(urls, 3, target);
			manifest_put(m, e);
		}
		if (nurls == urls_cap)
			urls_v = xreallocarray(urls_v, urls_cap = urls_cap ? 2 * urls_cap : 1024, sizeof *urls_v);
		urls_sorted = urls_sorted && (!nurls || urls_v[nurls - 1].id < s->id);
		urls_v[nurls++] = (struct url_row){ s->id, s, e };
	}
	if (src != SQLITE_DONE)
		goto out;
	if (!urls_sorted)
		qsort(urls_v, nurls, sizeof *urls_v, by_id);
	while ((src = sqlite3_step(ds)) == SQLITE_ROW) {
		const char *kind = mdb_column_text(ds, 1), *dir = mdb_column_text(ds, 2), *names = mdb_column_text(ds, 3);
		if (nsets == sets_cap)
			sets_v = xreallocarray(sets_v, sets_cap = sets_cap ? 2 * sets_cap : 1024, sizeof *sets_v);
		struct set_row *r = &sets_v[nsets];
		r->id = sqlite3_column_int64(ds, 0);
		r->set.kind = kind && *kind ? *kind : 'R';
		r->set.dir = xstrdup(dir ? dir : "");
		r->set.names = (struct buf)BUF_INIT;
		buf_adds(&r->set.names, names ? names : "");
		sets_sorted = sets_sorted && (!nsets || sets_v[nsets - 1].id < r->id);
		nsets++;
	}
	if (src != SQLITE_DONE)
		goto out;
	if (!sets_sorted)
		qsort(sets_v, nsets, sizeof *sets_v, by_id);
	while ((src = sqlite3_step(refs)) == SQLITE_ROW) {
		long long set_id = sqlite3_column_int64(refs, 0);
		struct url_row *u = find_row(urls_v, nurls, sizeof *urls_v, sqlite3_column_int64(refs, 1));
		if (!u)
			continue; /* cannot be: a reference outlives no page */
		struct stored *s = u->s;
		s->sets = xrealloc(s->sets, (s->nsets + 1) * sizeof *s->sets);
		s->sets[s->nsets++] = set_id;
		struct set_row *sr = u->e ? find_row(sets_v, nsets, sizeof *sets_v, set_id) : NULL;
		if (!sr)
			continue;
		add_set_paths(u->e, sr->set.kind, sr->set.dir, buf_str(&sr->set.names));
	}
	if (src != SQLITE_DONE)
		goto out;
	d->have_state = true;
	rc = 0;
out:
	if (rc < 0) {
		mdb_state_clear(d);
		mdb_err(t, err, "read");
	}
	for (size_t i = 0; i < nsets; i++) {
		free(sets_v[i].set.dir);
		buf_release(&sets_v[i].set.names);
	}
	free(sets_v);
	free(urls_v);
	sqlite3_finalize(urls);
	sqlite3_finalize(ds);
	sqlite3_finalize(refs);
	return rc;
}

/* stmt prepared once on the locked connection: NULL on error. */
static sqlite3_stmt *prepared(struct tree *t, sqlite3_stmt **stmt, const char *sql)
{
	if (!*stmt)
		*stmt = mdb_prepare(t, sql);
	return *stmt;
}

int mdb_read_entry(struct tree *t, const char *target, struct manifest_entry **out, char *err)
{
	struct manifest_db *d = t->db;
	*out = NULL;
	sqlite3_stmt *row = prepared(t, &d->lazy_row, "SELECT id, sets, " ROW_COLUMNS " FROM url WHERE target = ?1");
	sqlite3_stmt *set = prepared(t, &d->lazy_set, "SELECT s.kind, d.path, s.names FROM depset s"
						     " JOIN dir d ON d.id = s.dir_id WHERE s.id = ?1");
	sqlite3_stmt *refs = prepared(t, &d->lazy_refs, "SELECT set_id FROM url_dep WHERE url_id = ?1");
	if (!row || !set || !refs)
		return mdb_err(t, err, "read");
	long long *ids = NULL;
	size_t n = 0;
	struct manifest_entry *e = NULL;
	sqlite3_bind_text(row, 1, target, -1, SQLITE_STATIC);
	int rc = sqlite3_step(row);
	bool malformed = false;
	if (rc == SQLITE_ROW) {
		e = row_entry(row, 2, target);
		int srs = mdb_row_sets(row, 1, sqlite3_column_int64(row, 0), refs, &ids, &n);
		malformed = srs == -2;
		if (srs < 0)
			rc = SQLITE_ERROR;
	}
	sqlite3_reset(row);
	sqlite3_clear_bindings(row);
	for (size_t i = 0; rc == SQLITE_ROW && i < n; i++) {
		sqlite3_bind_int64(set, 1, ids[i]);
		int src = sqlite3_step(set);
		const char *kind = mdb_column_text(set, 0), *dir = mdb_column_text(set, 1),
			   *names = mdb_column_text(set, 2);
		if (src == SQLITE_ROW && kind && dir && names)
			add_set_paths(e, *kind, dir, names);
		else if (src != SQLITE_ROW && src != SQLITE_DONE)
			rc = src; /* a set gone (a tree edited by hand) is skipped, as a load does */
		sqlite3_reset(set);
		sqlite3_clear_bindings(set);
	}
	free(ids);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		manifest_entry_free(e);
		if (malformed)
			return mdb_err_malformed(t, err, target);
		return mdb_err(t, err, "read");
	}
	*out = e;
	return 0;
}

void mdb_reader_close(struct reader *r)
{
	if (!r)
		return;
	sqlite3_finalize(r->lookup);
	sqlite3_close_v2(r->db);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

/* Changes when another connection commits (-1 on error). */
static long long data_version(struct tree *t)
{
	sqlite3_stmt *st = mdb_prepare(t, "PRAGMA data_version");
	long long v = st && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	return v;
}

bool manifest_changed(struct tree *t)
{
	char err[ERR_LEN];
	if (mdb_lock(t, false, err) < 0)
		return true; /* a database that appeared, or one that cannot be read */
	if (!t->db)
		return false;
	bool changed = data_version(t) != t->db->data_version;
	mdb_unlock(t);
	return changed;
}

int manifest_load(struct manifest *m, struct tree *t, char *err)
{
	if (mdb_lock(t, false, err) < 0)
		return -1;
	if (!t->db)
		return 0;
	int rc = mdb_exec(t, "BEGIN", err);
	if (rc == 0) {
		rc = mdb_read_all(t, m, err);
		if (rc == 0)
			t->db->data_version = data_version(t);
		sqlite3_exec(t->db->db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
	}
	mdb_unlock(t);
	return rc;
}

int mdb_err_malformed(struct tree *t, char *err, const char *target)
{
	return err_set(err, "cannot read '%s/%s/%s': the sets of '%s' are malformed", t->path, TREE_META_DIR,
		       MANIFEST_DB_FILE, target);
}

int mdb_collect(struct tree *t, sqlite3_stmt *st, struct strlist *out, char *err)
{
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (mdb_column_text(st, 0))
			strlist_add(out, mdb_column_text(st, 0));
	return rc == SQLITE_DONE ? 0 : mdb_err(t, err, "read");
}

#define DEPENDENTS "SELECT u.target FROM depset s JOIN url_dep d ON d.set_id = s.id JOIN url u ON u.id = d.url_id "
#define DIR_ID "(SELECT id FROM dir WHERE path = ?1)"
#define KIND "CAST(?2 AS TEXT)"
/* s.names holds the name ?3. */
#define NAMES_HOLD "instr(char(10) || s.names || char(10), char(10) || ?3 || char(10)) > 0"

int manifest_dependents(struct tree *t, char kind, const char *path, struct strlist *out, char *err)
{
	if (mdb_lock(t, false, err) < 0)
		return -1;
	if (!t->db)
		return 0;
	sqlite3_stmt *st;
	char k[2] = { kind, '\0' };
	bool v1 = mdb_schema(t) == 1; /* read as it is by a process that may not write it */
	if (!path) {
		st = mdb_prepare(t, DEPENDENTS "WHERE s.kind = 'U'");
	} else if (!kind) {
		/* Below path: the directories from "path/" up to, not with,
		 * "path0" ('0' follows '/'), in dir's index order. */
		st = mdb_prepare(t, v1 ? DEPENDENTS "WHERE s.dir >= ?1 || '/' AND s.dir < ?1 || '0'"
				       : DEPENDENTS "WHERE s.dir_id IN (SELECT id FROM dir WHERE path >= ?1 || '/' AND path < ?1 || '0')");
		if (st)
			sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	} else {
		/* The sets of one name found by its hash, through the index;
		 * only those of many names are scanned. */
		const char *slash = strrchr(path, '/');
		size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
		const char *name = path + dlen;
		/* KIND, not "s.kind = ?2": see find_set in manifestsave.c. */
		st = mdb_prepare(t, v1 ? DEPENDENTS "WHERE s.dir = ?1 AND s.kind = " KIND " AND " NAMES_HOLD
				       : DEPENDENTS "WHERE s.dir_id = " DIR_ID " AND s.kind = " KIND " AND s.many = 0"
						    " AND s.hash = ?4 AND s.names = ?3"
					 " UNION ALL " DEPENDENTS "WHERE s.dir_id = " DIR_ID " AND s.kind = " KIND
						    " AND s.many = 1 AND " NAMES_HOLD);
		if (st) {
			sqlite3_bind_text(st, 1, path, (int)dlen, SQLITE_STATIC);
			sqlite3_bind_text(st, 2, k, 1, SQLITE_STATIC);
			sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 4, mdb_names_hash(name, strlen(name)));
		}
	}
	int rc = st ? mdb_collect(t, st, out, err) : mdb_err(t, err, "read");
	sqlite3_finalize(st);
	mdb_unlock(t);
	return rc;
}

/* A set manifest_each_set found, given to its caller once the database
 * is unlocked (each may take locks of its own). */
struct found_set {
	char kind;
	char *dir, *names;
};

int manifest_each_set(struct tree *t, const char *kinds, bool (*want)(void *arg, const char *dir),
		      void (*each)(void *arg, const char *dir, char kind, const char *names), void *arg, char *err)
{
	if (mdb_lock(t, false, err) < 0)
		return -1;
	if (!t->db)
		return 0;
	struct found_set *found = NULL;
	size_t nfound = 0, cap = 0;
	int rc = mdb_need_schema(t, err);
	if (rc < 0)
		goto out;
	sqlite3_stmt *dirs = mdb_prepare(t, "SELECT id, path FROM dir");
	sqlite3_stmt *sets = mdb_prepare(t, "SELECT kind, names FROM depset WHERE dir_id = ?1");
	int src = dirs && sets ? SQLITE_ROW : SQLITE_ERROR;
	while (dirs && sets && (src = sqlite3_step(dirs)) == SQLITE_ROW) {
		const char *dir = mdb_column_text(dirs, 1);
		if (!dir || !want(arg, dir))
			continue;
		sqlite3_bind_int64(sets, 1, sqlite3_column_int64(dirs, 0));
		while ((src = sqlite3_step(sets)) == SQLITE_ROW) {
			const char *kind = mdb_column_text(sets, 0), *names = mdb_column_text(sets, 1);
			if (!kind || !*kind || !strchr(kinds, *kind) || !names)
				continue;
			if (nfound == cap)
				found = xreallocarray(found, cap = cap ? 2 * cap : 64, sizeof *found);
			found[nfound++] = (struct found_set){ *kind, xstrdup(dir), xstrdup(names) };
		}
		sqlite3_reset(sets);
		if (src != SQLITE_DONE)
			break;
	}
	if (src != SQLITE_DONE)
		rc = mdb_err(t, err, "read");
	sqlite3_finalize(dirs);
	sqlite3_finalize(sets);
out:
	mdb_unlock(t);
	for (size_t i = 0; i < nfound; i++) {
		if (rc == 0)
			each(arg, found[i].dir, found[i].kind, found[i].names);
		free(found[i].dir);
		free(found[i].names);
	}
	free(found);
	return rc;
}

/* This thread's reader slot: threads take slots in turn, so that the
 * first READERS_MAX threads to look up each have their own. */
static unsigned thread_slot(void)
{
	static atomic_uint next_slot;
	static _Thread_local int slot = -1;
	if (slot < 0)
		slot = (int)(atomic_fetch_add(&next_slot, 1) % READERS_MAX);
	return (unsigned)slot;
}

/* The reader of this thread's slot, opened on first use (read-only: it
 * takes no write lock, and WAL lets it read beside the writer and the
 * other readers). NULL with err when it cannot be opened. */
static struct reader *reader_for(struct tree *t, struct manifest_db *d, char *err)
{
	unsigned slot = thread_slot();
	struct reader *r = atomic_load_explicit(&d->readers[slot], memory_order_acquire);
	if (r)
		return r;
	pthread_mutex_lock(&d->readers_mu);
	r = atomic_load(&d->readers[slot]);
	if (!r) {
		r = xcalloc(1, sizeof *r);
		pthread_mutex_init(&r->mu, NULL);
		/* Guarded by r->mu: SQLite's own mutexes are not needed. */
		int rc = sqlite3_open_v2(d->path, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
		char pragma[64];
		snprintf(pragma, sizeof pragma, "PRAGMA cache_size = -%d", READER_CACHE_KIB);
		if (rc == SQLITE_OK) {
			sqlite3_busy_timeout(r->db, BUSY_TIMEOUT_MS);
			rc = sqlite3_exec(r->db, pragma, NULL, NULL, NULL);
		}
		if (rc == SQLITE_OK)
			rc = sqlite3_prepare_v2(r->db, "SELECT " ROW_COLUMNS " FROM url WHERE target = ?1", -1,
						&r->lookup, NULL);
		if (rc != SQLITE_OK) {
			err_set(err, "cannot open '%s/%s/%s': %s", t->path, TREE_META_DIR, MANIFEST_DB_FILE,
				mdb_reason(r->db, (char[MDB_REASON_LEN]){ 0 }));
			mdb_reader_close(r);
			r = NULL;
		} else {
			atomic_store_explicit(&d->readers[slot], r, memory_order_release);
		}
	}
	pthread_mutex_unlock(&d->readers_mu);
	return r;
}

int manifest_lookup(struct tree *t, const char *target, struct manifest_entry **out, char *err)
{
	*out = NULL;
	/* Once open, t->db stays until tree_close: no lock to read it. */
	struct manifest_db *d = __atomic_load_n(&t->db, __ATOMIC_ACQUIRE);
	if (!d) {
		int rc = mdb_open(t, err);
		d = __atomic_load_n(&t->db, __ATOMIC_ACQUIRE);
		if (rc < 0)
			return -1;
		if (!d)
			return 0;
	}
	struct reader *r = reader_for(t, d, err);
	if (!r)
		return -1;
	pthread_mutex_lock(&r->mu);
	/* One statement, one read transaction: the row of one committed
	 * state. */
	sqlite3_stmt *st = r->lookup;
	sqlite3_bind_text(st, 1, target, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = row_entry(st, 0, target);
	int ret = rc == SQLITE_ROW || rc == SQLITE_DONE
			  ? 0
			  : err_set(err, "cannot read '%s/%s/%s': %s", t->path, TREE_META_DIR, MANIFEST_DB_FILE,
				    mdb_reason(r->db, (char[MDB_REASON_LEN]){ 0 }));
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	pthread_mutex_unlock(&r->mu);
	return ret;
}
