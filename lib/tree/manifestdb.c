/* manifestdb.c - the manifest in DIR/.cgisnap/tree.db (SQLite): load, save
 * of the changed rows only, the pending rows, old trees' migration.
 * manifest.h is its API, docs/tree-db.md its schema. */
#include "tree/manifest.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "tree/publish.h"
#include "url/urlkey.h"
#include "base/xalloc.h"

/* PRAGMA user_version of the schema below; a newer one is refused. */
#define SCHEMA_VERSION 1
/* How long a statement waits for another process's write (ms). */
#define BUSY_TIMEOUT_MS 10000

static const char SCHEMA[] =
	"CREATE TABLE url ("
	" id INTEGER PRIMARY KEY,"
	" target TEXT NOT NULL UNIQUE,"
	" key TEXT,"            /* NULL: no file */
	" status INTEGER NOT NULL,"
	" type TEXT,"
	" bytes INTEGER NOT NULL,"
	" sha256 BLOB,"         /* 32 bytes, NULL when no file */
	" render_ms INTEGER NOT NULL,"
	" changed INTEGER NOT NULL,"
	" location TEXT,"
	" fp INTEGER NOT NULL);" /* fingerprint of the row and its dependencies */
	"CREATE TABLE depset ("
	" id INTEGER PRIMARY KEY,"
	" hash INTEGER NOT NULL,"
	" kind TEXT NOT NULL,"  /* R, E, L, C or U */
	" dir TEXT NOT NULL,"   /* up to and with the last '/' */
	" names TEXT NOT NULL);" /* sorted, '\n' between */
	"CREATE INDEX depset_by_hash ON depset(hash);"
	/* Covering: manifest_dependents finds the sets of a directory and
	 * matches their names without reading depset's rows. */
	"CREATE INDEX depset_by_dir ON depset(dir, kind, names);"
	"CREATE INDEX depset_untraced ON depset(kind) WHERE kind = 'U';"
	"CREATE TABLE url_dep ("
	" set_id INTEGER NOT NULL,"
	" url_id INTEGER NOT NULL,"
	" PRIMARY KEY (set_id, url_id)) WITHOUT ROWID;"
	"CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER) WITHOUT ROWID;" /* handled: ns */
	"CREATE TABLE pending ("
	" seq INTEGER PRIMARY KEY,"
	" line TEXT NOT NULL,"   /* the entry as a text manifest line */
	" remove INTEGER NOT NULL DEFAULT 0);"; /* 1: its file is to go */

/* What the database holds for one target, as this process last read or
 * wrote it: what a save compares with. */
struct stored {
	long long id;
	uint64_t fp;
	size_t nsets;
	long long *sets;
};

/* Connections of manifest_lookup's callers: a thread takes the slot
 * thread_slot() gives it, so that up to this many threads look up at once,
 * each on a connection of its own (WAL lets readers read together). */
#define READERS_MAX 32
/* Each reader's page cache (KiB): the target index's upper pages stay
 * cached; a lookup reads a leaf or two more. SQLite's default (2 MiB)
 * per connection would make a server's memory grow with its threads. */
#define READER_CACHE_KIB 128

/* One read-only connection and its lookup statement. */
struct reader {
	pthread_mutex_t mu;   /* a slot shared by two threads past READERS_MAX */
	sqlite3 *db;
	sqlite3_stmt *lookup;
};

struct manifest_db {
	sqlite3 *db;
	pthread_mutex_t mu;   /* one user of the connection at a time */
	char *path;           /* the database's, for the readers */
	bool have_state;      /* stored reflects the database */
	bool vacuum_checked;  /* convert_vacuum ran on this connection */
	long long data_version; /* PRAGMA data_version at the last load */
	struct hashmap stored; /* target -> struct stored * */
	long long rows_written;
	long long rows_compared;
	/* manifest_lookup's connections, opened on first use (under
	 * readers_mu), closed with the database. */
	pthread_mutex_t readers_mu;
	struct reader *_Atomic readers[READERS_MAX];
};

static void stored_free(struct stored *s)
{
	if (s) {
		free(s->sets);
		free(s);
	}
}

static void state_clear(struct manifest_db *d)
{
	size_t it = 0;
	void *v;
	while (hashmap_next(&d->stored, &it, NULL, &v))
		stored_free(v);
	hashmap_release(&d->stored);
	d->have_state = false;
}

static int db_err(struct tree *t, char *err, const char *what)
{
	return err_set(err, "cannot %s '%s/%s/%s': %s", what, t->path, TREE_META_DIR, MANIFEST_DB_FILE,
		       t->db && t->db->db ? sqlite3_errmsg(t->db->db) : "out of memory");
}

static int exec(struct tree *t, const char *sql, char *err)
{
	if (sqlite3_exec(t->db->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_err(t, err, "update");
	return 0;
}

static sqlite3_stmt *prepare(struct tree *t, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(t->db->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	return st;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static const char *column_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* FNV-1a 64, continued from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_START 0xcbf29ce484222325ULL

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The fingerprint of e: its line and its dependencies of each kind,
 * sorted and without repeats, so that an entry read back from the
 * database (grouped by set) fingerprints as the one saved. */
static uint64_t fingerprint(const struct manifest_entry *e)
{
	struct buf line = BUF_INIT;
	manifest_format_entry(&line, e);
	uint64_t h = fnv(FNV_START, line.data, line.len + 1);
	buf_release(&line);
	for (const char *k = MANIFEST_DEP_KINDS; *k; k++) {
		const struct strlist *l = manifest_deps((struct manifest_entry *)e, *k);
		h = fnv(h, k, 1);
		if (!l->n)
			continue;
		char **v = xmalloc(l->n * sizeof *v);
		memcpy(v, l->items, l->n * sizeof *v);
		qsort(v, l->n, sizeof *v, by_str);
		for (size_t i = 0; i < l->n; i++)
			if (i == 0 || strcmp(v[i], v[i - 1]))
				h = fnv(h, v[i], strlen(v[i]) + 1);
		free(v);
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

static void column_sha(sqlite3_stmt *st, int i, char *hex)
{
	const unsigned char *raw = sqlite3_column_blob(st, i);
	*hex = '\0';
	if (raw && sqlite3_column_bytes(st, i) == 32)
		for (int j = 0; j < 32; j++)
			snprintf(hex + 2 * j, 3, "%02x", raw[j]);
}

/* The row's columns from col on, in ROW_COLUMNS' order, as a new entry
 * for target (no dependencies; the caller frees it): what load and
 * lookup both decode. */
#define ROW_COLUMNS "key, status, type, bytes, sha256, render_ms, changed, location"

static struct manifest_entry *row_entry(sqlite3_stmt *st, int col, const char *target)
{
	struct manifest_entry *e = manifest_entry_new(target);
	const char *v;
	e->key = (v = column_text(st, col)) ? xstrdup(v) : NULL;
	e->status = sqlite3_column_int(st, col + 1);
	e->content_type = (v = column_text(st, col + 2)) ? xstrdup(v) : NULL;
	e->bytes = sqlite3_column_int64(st, col + 3);
	column_sha(st, col + 4, e->sha256);
	e->render_ms = (long)sqlite3_column_int64(st, col + 5);
	e->changed = (time_t)sqlite3_column_int64(st, col + 6);
	e->location = (v = column_text(st, col + 7)) ? xstrdup(v) : NULL;
	return e;
}

/* One dependency set: a kind, a directory and names in it. */
struct depset {
	char kind;
	char *dir;
	struct buf names; /* sorted, '\n' between */
};

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
		char **v = xmalloc(l->n * sizeof *v);
		memcpy(v, l->items, l->n * sizeof *v);
		qsort(v, l->n, sizeof *v, by_str);
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
		free(v);
	}
	*nsets = n;
	return sets;
}

static uint64_t depset_hash(const struct depset *s)
{
	uint64_t h = fnv(FNV_START, &s->kind, 1);
	h = fnv(h, s->dir, strlen(s->dir) + 1);
	return fnv(h, s->names.data ? s->names.data : "", s->names.len) >> 1;
}

/* The prepared statements of one save. */
struct saver {
	struct tree *t;
	sqlite3_stmt *find_set, *add_set, *insert_url, *update_url, *delete_url, *add_ref, *drop_ref, *gc_set;
	/* Without the stored state (a delta save of a process that did not
	 * load): a target's row and its references, read per target. */
	sqlite3_stmt *find_url, *find_refs;
};

static void saver_release(struct saver *s)
{
	sqlite3_finalize(s->find_url);
	sqlite3_finalize(s->find_refs);
	sqlite3_finalize(s->find_set);
	sqlite3_finalize(s->add_set);
	sqlite3_finalize(s->insert_url);
	sqlite3_finalize(s->update_url);
	sqlite3_finalize(s->delete_url);
	sqlite3_finalize(s->add_ref);
	sqlite3_finalize(s->drop_ref);
	sqlite3_finalize(s->gc_set);
}

static int saver_init(struct saver *s, struct tree *t)
{
	memset(s, 0, sizeof *s);
	s->t = t;
	s->find_set = prepare(t, "SELECT id FROM depset WHERE hash = ?1 AND kind = ?2 AND dir = ?3 AND names = ?4");
	s->add_set = prepare(t, "INSERT INTO depset (hash, kind, dir, names) VALUES (?1, ?2, ?3, ?4)");
	s->insert_url = prepare(t, "INSERT INTO url (target, key, status, type, bytes, sha256, render_ms, changed,"
				   " location, fp) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
	s->update_url = prepare(t, "UPDATE url SET key = ?2, status = ?3, type = ?4, bytes = ?5, sha256 = ?6,"
				   " render_ms = ?7, changed = ?8, location = ?9, fp = ?10 WHERE id = ?1");
	s->delete_url = prepare(t, "DELETE FROM url WHERE id = ?1");
	s->add_ref = prepare(t, "INSERT OR IGNORE INTO url_dep (set_id, url_id) VALUES (?1, ?2)");
	s->drop_ref = prepare(t, "DELETE FROM url_dep WHERE set_id = ?1 AND url_id = ?2");
	s->gc_set = prepare(t, "DELETE FROM depset WHERE id = ?1 AND NOT EXISTS"
			       " (SELECT 1 FROM url_dep WHERE set_id = ?1)");
	if (!s->find_set || !s->add_set || !s->insert_url || !s->update_url || !s->delete_url || !s->add_ref ||
	    !s->drop_ref || !s->gc_set)
		return -1;
	if (!t->db->have_state) {
		s->find_url = prepare(t, "SELECT id, fp FROM url WHERE target = ?1");
		/* url_dep's key is (set_id, url_id): by url_id this scans
		 * the table. Only a target that has a row pays it, and an
		 * index on url_id would add to every page's metadata. */
		s->find_refs = prepare(t, "SELECT set_id FROM url_dep WHERE url_id = ?1");
		if (!s->find_url || !s->find_refs)
			return -1;
	}
	return 0;
}

/* What the database holds for target k as *out (NULL: no row): the
 * stored state's entry (borrowed) when the process holds the state,
 * else read now (*fresh: the caller frees it with stored_free). 0 or -1. */
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
	}
	sqlite3_reset(sv->find_url);
	sqlite3_clear_bindings(sv->find_url);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : -1;
	sqlite3_bind_int64(sv->find_refs, 1, s->id);
	size_t cap = 0;
	while ((rc = sqlite3_step(sv->find_refs)) == SQLITE_ROW) {
		if (s->nsets == cap) {
			cap = cap ? 2 * cap : 8;
			s->sets = xrealloc(s->sets, cap * sizeof *s->sets);
		}
		s->sets[s->nsets++] = sqlite3_column_int64(sv->find_refs, 0);
	}
	sqlite3_reset(sv->find_refs);
	sqlite3_clear_bindings(sv->find_refs);
	if (rc != SQLITE_DONE) {
		stored_free(s);
		return -1;
	}
	*out = s;
	*fresh = true;
	return 0;
}

/* Run st once (bindings done), then reset it: 0 or -1. */
static int step(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

/* The id of set s, added when the database has none like it; -1 on error. */
static long long intern_set(struct saver *sv, const struct depset *s)
{
	char kind[2] = { s->kind, '\0' };
	const char *names = s->names.data ? s->names.data : "";
	long long h = (long long)depset_hash(s), id = -1;
	sqlite3_bind_int64(sv->find_set, 1, h);
	sqlite3_bind_text(sv->find_set, 2, kind, 1, SQLITE_STATIC);
	sqlite3_bind_text(sv->find_set, 3, s->dir, -1, SQLITE_STATIC);
	sqlite3_bind_text(sv->find_set, 4, names, (int)s->names.len, SQLITE_STATIC);
	int rc = sqlite3_step(sv->find_set);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(sv->find_set, 0);
	sqlite3_reset(sv->find_set);
	sqlite3_clear_bindings(sv->find_set);
	if (rc == SQLITE_ROW)
		return id;
	if (rc != SQLITE_DONE)
		return -1;
	sqlite3_bind_int64(sv->add_set, 1, h);
	sqlite3_bind_text(sv->add_set, 2, kind, 1, SQLITE_STATIC);
	sqlite3_bind_text(sv->add_set, 3, s->dir, -1, SQLITE_STATIC);
	sqlite3_bind_text(sv->add_set, 4, names, (int)s->names.len, SQLITE_STATIC);
	if (step(sv->add_set) < 0)
		return -1;
	return sqlite3_last_insert_rowid(sv->t->db->db);
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
		if (step(sv->drop_ref) < 0)
			return -1;
		sqlite3_bind_int64(sv->gc_set, 1, old[i]);
		if (step(sv->gc_set) < 0)
			return -1;
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
	int rc = -1;
	s->fp = fp;
	sqlite3_stmt *st = old ? sv->update_url : sv->insert_url;
	if (old)
		sqlite3_bind_int64(st, 1, old->id);
	else
		sqlite3_bind_text(st, 1, e->target, -1, SQLITE_TRANSIENT);
	bind_row(st, e, fp);
	if (step(st) < 0)
		goto out;
	s->id = old ? old->id : sqlite3_last_insert_rowid(sv->t->db->db);
	s->sets = xmalloc((nsets + 1) * sizeof *s->sets);
	for (size_t i = 0; i < nsets; i++) {
		long long id = intern_set(sv, &sets[i]);
		if (id < 0)
			goto out;
		if (has_id(s->sets, s->nsets, id))
			continue;
		s->sets[s->nsets++] = id;
		if (old && has_id(old->sets, old->nsets, id))
			continue;
		sqlite3_bind_int64(sv->add_ref, 1, id);
		sqlite3_bind_int64(sv->add_ref, 2, s->id);
		if (step(sv->add_ref) < 0)
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
	if (rc < 0) {
		stored_free(s);
		s = NULL;
	}
	*out = s;
	return rc;
}

static int delete_entry(struct saver *sv, const struct stored *old)
{
	sqlite3_bind_int64(sv->delete_url, 1, old->id);
	if (step(sv->delete_url) < 0)
		return -1;
	return drop_refs(sv, old->id, old->sets, old->nsets, NULL, 0);
}

/* Read every row into m (NULL: only the stored state) and the stored
 * state into d, inside the caller's transaction. */
static int read_all(struct tree *t, struct manifest *m, char *err)
{
	struct manifest_db *d = t->db;
	int rc = -1, src = SQLITE_ERROR;
	struct hashmap byid = HASHMAP_INIT;        /* "id" -> target's entry (m) */
	struct hashmap stored_byid = HASHMAP_INIT; /* "id" -> struct stored * */
	struct hashmap sets = HASHMAP_INIT;        /* "id" -> struct depset * */
	sqlite3_stmt *urls = prepare(t, "SELECT id, target, fp, " ROW_COLUMNS " FROM url");
	sqlite3_stmt *ds = prepare(t, "SELECT id, kind, dir, names FROM depset");
	sqlite3_stmt *refs = prepare(t, "SELECT set_id, url_id FROM url_dep");
	char idbuf[32];
	state_clear(d);
	if (!urls || !ds || !refs)
		goto out;
	while ((src = sqlite3_step(urls)) == SQLITE_ROW) {
		const char *target = column_text(urls, 1);
		if (!target)
			continue;
		struct stored *s = xcalloc(1, sizeof *s);
		s->id = sqlite3_column_int64(urls, 0);
		s->fp = (uint64_t)sqlite3_column_int64(urls, 2);
		stored_free(hashmap_put(&d->stored, target, s));
		snprintf(idbuf, sizeof idbuf, "%lld", s->id);
		hashmap_put(&stored_byid, idbuf, s);
		if (!m)
			continue;
		struct manifest_entry *e = row_entry(urls, 3, target);
		manifest_put(m, e);
		hashmap_put(&byid, idbuf, e);
	}
	if (src != SQLITE_DONE)
		goto out;
	while ((src = sqlite3_step(ds)) == SQLITE_ROW) {
		struct depset *s = xcalloc(1, sizeof *s);
		const char *kind = column_text(ds, 1), *dir = column_text(ds, 2), *names = column_text(ds, 3);
		s->kind = kind && *kind ? *kind : 'R';
		s->dir = xstrdup(dir ? dir : "");
		buf_adds(&s->names, names ? names : "");
		snprintf(idbuf, sizeof idbuf, "%lld", (long long)sqlite3_column_int64(ds, 0));
		hashmap_put(&sets, idbuf, s);
	}
	if (src != SQLITE_DONE)
		goto out;
	while ((src = sqlite3_step(refs)) == SQLITE_ROW) {
		long long set_id = sqlite3_column_int64(refs, 0);
		snprintf(idbuf, sizeof idbuf, "%lld", (long long)sqlite3_column_int64(refs, 1));
		struct stored *s = hashmap_get(&stored_byid, idbuf);
		struct manifest_entry *e = hashmap_get(&byid, idbuf);
		if (!s)
			continue; /* cannot be: a reference outlives no page */
		s->sets = xrealloc(s->sets, (s->nsets + 1) * sizeof *s->sets);
		s->sets[s->nsets++] = set_id;
		snprintf(idbuf, sizeof idbuf, "%lld", set_id);
		struct depset *set = hashmap_get(&sets, idbuf);
		if (!e || !set)
			continue;
		struct strlist *l = manifest_deps(e, set->kind);
		const char *p = buf_str(&set->names);
		for (;;) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			strlist_add_owned(l, xasprintf("%s%.*s", set->dir, (int)len, p));
			if (!nl)
				break;
			p = nl + 1;
		}
	}
	if (src != SQLITE_DONE)
		goto out;
	d->have_state = true;
	rc = 0;
out:
	if (rc < 0) {
		state_clear(d);
		db_err(t, err, "read");
	}
	size_t it = 0;
	void *v;
	while (hashmap_next(&sets, &it, NULL, &v)) {
		struct depset *s = v;
		free(s->dir);
		buf_release(&s->names);
		free(s);
	}
	hashmap_release(&sets);
	hashmap_release(&stored_byid);
	hashmap_release(&byid);
	sqlite3_finalize(urls);
	sqlite3_finalize(ds);
	sqlite3_finalize(refs);
	return rc;
}

/* The save itself, inside the caller's write transaction: the rows of
 * m's entries that differ from what the database holds written; with
 * dropped NULL, the rows of targets m lacks deleted (m is the whole
 * manifest, and the stored state is read), else only those of the
 * targets dropped names (m holds what changed; without the stored state
 * each of these targets is looked up, and the state stays unread). */
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
		stored_free(old);
	return rc;
}

static int write_changes(struct tree *t, const struct manifest *m, const struct strlist *dropped, char *err)
{
	struct manifest_db *d = t->db;
	struct saver sv;
	struct hashmap next = HASHMAP_INIT; /* target -> struct stored *, what will be */
	struct hashmap deleted = HASHMAP_INIT; /* the dropped targets deleted */
	int rc = -1;
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
	if (rc < 0)
		db_err(t, err, "update");
	saver_release(&sv);
	/* Applied to the state only once the caller commits: here, as a
	 * failed commit clears the whole state. Without the state, nothing
	 * is kept: the next save reads again what it needs. */
	it = 0;
	while (hashmap_next(&next, &it, &k, &v)) {
		if (rc < 0 || !d->have_state) {
			stored_free(v);
			continue;
		}
		if (v)
			stored_free(hashmap_put(&d->stored, k, v));
		else
			stored_free(hashmap_remove(&d->stored, k));
	}
	hashmap_release(&next);
	hashmap_release(&deleted);
	return rc;
}

static int put_handled(struct tree *t, const struct timespec *when, char *err)
{
	sqlite3_stmt *st = prepare(t, "INSERT OR REPLACE INTO meta (name, value) VALUES ('handled', ?1)");
	if (st)
		sqlite3_bind_int64(st, 1, (long long)when->tv_sec * 1000000000LL + when->tv_nsec);
	int rc = st && step(st) == 0 ? 0 : db_err(t, err, "update");
	sqlite3_finalize(st);
	return rc;
}

/* Import an old tree's text files, inside the caller's write transaction:
 * *migrated counts the URLs, -1 when there were no files. */
static int import_text(struct tree *t, long *migrated, char *err)
{
	struct manifest m = MANIFEST_INIT;
	struct strlist journal = STRLIST_INIT;
	struct stat st;
	int rc = 0;
	*migrated = -1;
	if (fstatat(t->meta_fd, MANIFEST_TEXT_FILE, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
	    fstatat(t->meta_fd, MANIFEST_JOURNAL_FILE, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (manifest_load_text(&m, &journal, t, err) < 0) {
		rc = -1;
		goto out;
	}
	rc = write_changes(t, &m, NULL, err);
	sqlite3_stmt *ins = rc == 0 ? prepare(t, "INSERT INTO pending (line) VALUES (?1)") : NULL;
	if (rc == 0 && !ins)
		rc = db_err(t, err, "update");
	for (size_t i = 0; rc == 0 && i < journal.n; i++) {
		sqlite3_bind_text(ins, 1, journal.items[i], -1, SQLITE_STATIC);
		if (step(ins) < 0)
			rc = db_err(t, err, "update");
	}
	sqlite3_finalize(ins);
	/* The old manifest's time said until when the sources were handled. */
	if (rc == 0 && fstatat(t->meta_fd, MANIFEST_TEXT_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0)
		rc = put_handled(t, &st.st_mtim, err);
	*migrated = (long)manifest_count(&m);
out:
	manifest_release(&m);
	strlist_clear(&journal);
	return rc;
}

/* Remove an old tree's text files, once tree.db holds what they did. */
static void remove_text(struct tree *t)
{
	unlinkat(t->meta_fd, MANIFEST_TEXT_FILE, 0);
	unlinkat(t->meta_fd, MANIFEST_DEPS_FILE, 0);
	unlinkat(t->meta_fd, MANIFEST_JOURNAL_FILE, 0);
	/* A save of the old format killed midway left its temp files. */
	publish_clean_temps(t->meta_fd, MANIFEST_TEXT_FILE);
}

static bool has_rows(struct tree *t)
{
	sqlite3_stmt *st = prepare(t, "SELECT 1 FROM url LIMIT 1");
	bool any = st && sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return any;
}

static bool meta_has(struct tree *t, const char *name)
{
	struct stat st;
	return t->meta_fd >= 0 && fstatat(t->meta_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static void reader_close(struct reader *r)
{
	if (!r)
		return;
	sqlite3_finalize(r->lookup);
	sqlite3_close_v2(r->db);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

/* A tree made before depset_by_dir covered (kind, names) gets the index
 * of SCHEMA, in one transaction: without it each manifest_dependents
 * reads a depset row per set of the directory. Best effort: a tree this
 * process cannot write (or that another writer holds past the busy
 * timeout) is read with the old index, only slower. */
static void upgrade_indexes(struct tree *t)
{
	sqlite3_stmt *st = prepare(t, "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'depset_by_dir'");
	bool old = st && sqlite3_step(st) == SQLITE_ROW && column_text(st, 0) && !strstr(column_text(st, 0), "names");
	sqlite3_finalize(st);
	if (!old)
		return;
	char err[ERR_LEN];
	if (exec(t, "BEGIN IMMEDIATE", err) < 0)
		return;
	if (exec(t, "DROP INDEX depset_by_dir; CREATE INDEX depset_by_dir ON depset(dir, kind, names)", err) < 0 ||
	    exec(t, "COMMIT", err) < 0) {
		sqlite3_exec(t->db->db, "ROLLBACK", NULL, NULL, NULL);
		log_debug("%s: index depset_by_dir not upgraded: %s", MANIFEST_DB_FILE, err);
	}
}

/* Open (create: make it when missing) the tree's database, creating the
 * schema and migrating an old tree on the way. 0 with t->db NULL when
 * there is none and !create and nothing to migrate. Call with open_mu
 * held: t->db is set (atomically: manifest_lookup reads it without the
 * lock) only once the database is ready. */
static int open_db(struct tree *t, bool create, char *err)
{
	if (t->db)
		return 0;
	if (t->meta_fd < 0) {
		if (!create)
			return 0;
		return err_set(err, "tree '%s' has no %s directory", t->path, TREE_META_DIR);
	}
	bool old = meta_has(t, MANIFEST_TEXT_FILE) || meta_has(t, MANIFEST_JOURNAL_FILE);
	if (!create && !old && !meta_has(t, MANIFEST_DB_FILE))
		return 0;
	/* By the descriptor's path, the directory the tree was opened at
	 * even after a chdir; SQLite names its -wal and -shm files after it. */
	char *path = xasprintf("/proc/self/fd/%d/%s", t->meta_fd, MANIFEST_DB_FILE);
	char *real = NULL;
	char link[64];
	snprintf(link, sizeof link, "/proc/self/fd/%d", t->meta_fd);
	real = realpath(link, NULL);
	if (real) {
		free(path);
		path = xasprintf("%s/%s", real, MANIFEST_DB_FILE);
		free(real);
	}
	struct manifest_db *d = xcalloc(1, sizeof *d);
	pthread_mutex_init(&d->mu, NULL);
	pthread_mutex_init(&d->readers_mu, NULL);
	d->path = path;
	/* The helpers below take a tree: this copy's, until d is ready. */
	struct tree tmp = *t;
	tmp.db = d;
	int rc = sqlite3_open_v2(path, &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
				 NULL);
	long migrated = -1;
	if (rc != SQLITE_OK) {
		db_err(&tmp, err, "open");
		goto fail;
	}
	sqlite3_busy_timeout(d->db, BUSY_TIMEOUT_MS);
	/* WAL: readers go on beside the writer and see the last commit.
	 * synchronous NORMAL: a commit survives kill -9 (it is in the WAL
	 * file); only a power loss may take the last ones back. */
	/* auto_vacuum INCREMENTAL: takes only on a database without tables
	 * (a new one); an older one is converted by its next writer
	 * (convert_vacuum). journal_size_limit 0: the log is trimmed each
	 * time a write restarts it, not left at its largest batch's size. */
	/* Set only on a database without pages: on any other the pragma
	 * writes its header, and a reader (ls, a refused serve) must leave
	 * the file as it found it. */
	sqlite3_stmt *pages = prepare(&tmp, "PRAGMA page_count");
	bool empty = pages && sqlite3_step(pages) == SQLITE_ROW && sqlite3_column_int64(pages, 0) == 0;
	sqlite3_finalize(pages);
	if ((empty && sqlite3_exec(d->db, "PRAGMA auto_vacuum = INCREMENTAL", NULL, NULL, NULL) != SQLITE_OK) ||
	    sqlite3_exec(d->db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 0;",
			 NULL, NULL, NULL) != SQLITE_OK) {
		db_err(&tmp, err, "open"); /* "file is not a database" */
		goto fail;
	}
	sqlite3_stmt *ver = prepare(&tmp, "PRAGMA user_version");
	int version = ver && sqlite3_step(ver) == SQLITE_ROW ? sqlite3_column_int(ver, 0) : -1;
	sqlite3_finalize(ver);
	if (version < 0) {
		db_err(&tmp, err, "read");
		goto fail;
	}
	if (version > SCHEMA_VERSION) {
		err_set(err, "'%s/%s/%s' has schema version %d, newer than this cgisnap's (%d)", t->path, TREE_META_DIR,
			MANIFEST_DB_FILE, version, SCHEMA_VERSION);
		goto fail;
	}
	if (version == SCHEMA_VERSION && !old)
		goto ready;
	/* Schema and migration in one transaction: a second process waits,
	 * then finds both done. */
	if (exec(&tmp, "BEGIN IMMEDIATE", err) < 0)
		goto fail;
	ver = prepare(&tmp, "PRAGMA user_version");
	version = ver && sqlite3_step(ver) == SQLITE_ROW ? sqlite3_column_int(ver, 0) : -1;
	sqlite3_finalize(ver);
	if (version == 0 && (exec(&tmp, SCHEMA, err) < 0 || exec(&tmp, "PRAGMA user_version = 1", err) < 0))
		goto rollback;
	/* Old files beside a database that holds URLs: a run killed between
	 * the migration's commit and their removal left them. */
	if (old && !has_rows(&tmp)) {
		if (read_all(&tmp, NULL, err) < 0 || import_text(&tmp, &migrated, err) < 0)
			goto rollback;
	}
	if (exec(&tmp, "COMMIT", err) < 0)
		goto rollback;
	state_clear(d); /* read again by the caller's load or save */
	/* Committed: the text files are now only a copy (also when a run
	 * killed right here left them, the database being older). */
	if (old)
		remove_text(t);
	if (migrated >= 0)
		log_info("migrated %s/%s/%s to %s (%ld URLs)", t->path, TREE_META_DIR, MANIFEST_TEXT_FILE,
			 MANIFEST_DB_FILE, migrated);
ready:
	upgrade_indexes(&tmp);
	__atomic_store_n(&t->db, d, __ATOMIC_RELEASE);
	return 0;
rollback:
	sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
fail:
	manifest_db_close(&tmp);
	return -1;
}

void manifest_db_close(struct tree *t)
{
	struct manifest_db *d = t->db;
	if (!d)
		return;
	state_clear(d);
	for (size_t i = 0; i < READERS_MAX; i++)
		reader_close(atomic_load(&d->readers[i]));
	sqlite3_close_v2(d->db);
	pthread_mutex_destroy(&d->readers_mu);
	pthread_mutex_destroy(&d->mu);
	free(d->path);
	free(d);
	t->db = NULL;
}

/* The database opened (create or not) and locked for this thread; 0
 * with t->db NULL (nothing locked) when there is none. */
static pthread_mutex_t open_mu = PTHREAD_MUTEX_INITIALIZER;

static int lock_db(struct tree *t, bool create, char *err)
{
	pthread_mutex_lock(&open_mu);
	int rc = open_db(t, create, err);
	if (rc == 0 && t->db)
		pthread_mutex_lock(&t->db->mu);
	pthread_mutex_unlock(&open_mu);
	return rc;
}

static void unlock_db(struct tree *t)
{
	if (t->db)
		pthread_mutex_unlock(&t->db->mu);
}

/* Changes when another connection commits (-1 on error). */
static long long data_version(struct tree *t)
{
	sqlite3_stmt *st = prepare(t, "PRAGMA data_version");
	long long v = st && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	return v;
}

bool manifest_changed(struct tree *t)
{
	char err[ERR_LEN];
	if (lock_db(t, false, err) < 0)
		return true; /* a database that appeared, or one that cannot be read */
	if (!t->db)
		return false;
	bool changed = data_version(t) != t->db->data_version;
	unlock_db(t);
	return changed;
}

int manifest_load(struct manifest *m, struct tree *t, char *err)
{
	if (lock_db(t, false, err) < 0)
		return -1;
	if (!t->db)
		return 0;
	int rc = exec(t, "BEGIN", err);
	if (rc == 0) {
		rc = read_all(t, m, err);
		if (rc == 0)
			t->db->data_version = data_version(t);
		sqlite3_exec(t->db->db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
	}
	unlock_db(t);
	return rc;
}

/* Commit each entry of gone as a pending removal, inside the caller's
 * transaction. */
static int add_removals(struct tree *t, const struct manifest *gone, char *err)
{
	if (!gone || !manifest_count(gone))
		return 0;
	sqlite3_stmt *ins = prepare(t, "INSERT INTO pending (line, remove) VALUES (?1, 1)");
	int rc = ins ? 0 : db_err(t, err, "update");
	size_t it = 0;
	void *v;
	while (rc == 0 && hashmap_next(&gone->entries, &it, NULL, &v)) {
		struct buf line = BUF_INIT;
		manifest_format_entry(&line, v);
		sqlite3_bind_text(ins, 1, line.data, (int)line.len, SQLITE_TRANSIENT);
		if (step(ins) < 0)
			rc = db_err(t, err, "update");
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

/* The first column of sql's first row, or -1. */
static long long query_int(struct tree *t, const char *sql)
{
	sqlite3_stmt *st = prepare(t, sql);
	long long v = st && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	return v;
}

/* PRAGMA name's value, or -1. */
static long long pragma_int(struct tree *t, const char *name)
{
	char *sql = xasprintf("PRAGMA %s", name);
	long long v = query_int(t, sql);
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
		return db_err(t, err, "read");
	if (mode == 0) {
		if (exec(t, "PRAGMA auto_vacuum = INCREMENTAL; VACUUM", err) < 0)
			return -1;
		log_info("converted %s/%s/%s to incremental auto-vacuum", t->path, TREE_META_DIR, MANIFEST_DB_FILE);
	}
	d->vacuum_checked = true;
	return 0;
}

/* Give the free pages back to the file system once they are more than a
 * sixteenth of the file: a batch that replaced many rows leaves them. */
static void trim_free(struct tree *t)
{
	long long nfree = pragma_int(t, "freelist_count"), pages = pragma_int(t, "page_count");
	if (nfree > 0 && pages > 0 && nfree * 16 > pages)
		sqlite3_exec(t->db->db, "PRAGMA incremental_vacuum", NULL, NULL, NULL);
}

static int save(const struct manifest *m, const struct strlist *dropped, const struct manifest *gone,
		struct tree *t, char *err)
{
	if (lock_db(t, true, err) < 0)
		return -1;
	struct manifest_db *d = t->db;
	long long before = d->rows_written;
	if (convert_vacuum(t, err) < 0 || exec(t, "BEGIN IMMEDIATE", err) < 0)
		goto fail;
	/* A delta save needs no whole state: it looks its targets up. */
	if (!d->have_state && !dropped && read_all(t, NULL, err) < 0)
		goto rollback;
	if (write_changes(t, m, dropped, err) < 0 || add_removals(t, gone, err) < 0)
		goto rollback;
	if (exec(t, "COMMIT", err) < 0)
		goto rollback;
	trim_free(t);
	unlock_db(t);
	return 0;
rollback:
	sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
	state_clear(d); /* the state may hold what was rolled back */
	d->rows_written = before;
fail:
	unlock_db(t);
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

int manifest_journal(struct tree *t, const struct manifest_entry *e, char *err)
{
	if (lock_db(t, true, err) < 0)
		return -1;
	struct buf line = BUF_INIT;
	manifest_format_entry(&line, e);
	sqlite3_stmt *st = prepare(t, "INSERT INTO pending (line) VALUES (?1)");
	int rc = 0;
	if (st)
		sqlite3_bind_text(st, 1, line.data, (int)line.len, SQLITE_STATIC);
	if (!st || step(st) < 0)
		rc = err_set(err, "cannot record '%s' in '%s/%s/%s': %s", e->key ? e->key : e->target, t->path,
			     TREE_META_DIR, MANIFEST_DB_FILE, sqlite3_errmsg(t->db->db));
	sqlite3_finalize(st);
	buf_release(&line);
	unlock_db(t);
	return rc;
}

/* Give e what had records as read (had's lists are left empty). */
static void keep_deps(struct manifest_entry *e, struct manifest_entry *had)
{
	struct strlist *to[] = { &e->deps_read, &e->deps_exist, &e->deps_listed, &e->deps_contents,
				 &e->deps_untraced };
	struct strlist *from[] = { &had->deps_read, &had->deps_exist, &had->deps_listed, &had->deps_contents,
				   &had->deps_untraced };
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
	if (lock_db(t, false, err) < 0)
		return -1;
	if (!t->db)
		return 0;
	struct hashmap cleaned = HASHMAP_INIT; /* directories whose temp files went */
	sqlite3_stmt *st = prepare(t, "SELECT line, remove FROM pending ORDER BY seq");
	sqlite3_stmt *has_row = prepare(t, "SELECT 1 FROM url WHERE target = ?1");
	int rc = st && has_row ? SQLITE_ROW : SQLITE_ERROR;
	while (st && has_row && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		char *line = xstrdup(column_text(st, 0) ? column_text(st, 0) : "");
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
	int out = rc == SQLITE_DONE ? 0 : db_err(t, err, "read");
	sqlite3_finalize(st);
	sqlite3_finalize(has_row);
	hashmap_release(&cleaned);
	unlock_db(t);
	return out;
}

int manifest_journal_reset(struct tree *t, char *err)
{
	if (lock_db(t, false, err) < 0)
		return -1;
	if (!t->db)
		return 0;
	/* Nothing pending, nothing written: a DELETE of the empty table still
	 * rewrites its root page, and watch --poll resets after every poll. */
	int rc = 0;
	if (query_int(t, "SELECT EXISTS (SELECT 1 FROM pending)") != 0) {
		rc = exec(t, "DELETE FROM pending", err);
		if (rc == 0)
			trim_free(t); /* a crawl's pending rows were a row per page */
	}
	unlock_db(t);
	return rc;
}

/* Append the targets st yields (column 0) to out: 0, or -1 with err. */
static int collect(struct tree *t, sqlite3_stmt *st, struct strlist *out, char *err)
{
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (column_text(st, 0))
			strlist_add(out, column_text(st, 0));
	return rc == SQLITE_DONE ? 0 : db_err(t, err, "read");
}

#define DEPENDENTS "SELECT u.target FROM depset s JOIN url_dep d ON d.set_id = s.id JOIN url u ON u.id = d.url_id "

int manifest_dependents(struct tree *t, char kind, const char *path, struct strlist *out, char *err)
{
	if (lock_db(t, false, err) < 0)
		return -1;
	if (!t->db)
		return 0;
	sqlite3_stmt *st;
	char k[2] = { kind, '\0' };
	if (!path) {
		st = prepare(t, DEPENDENTS "WHERE s.kind = 'U'");
	} else if (!kind) {
		/* Below path: the directories from "path/" up to, not with,
		 * "path0" ('0' follows '/'), in the index's order. */
		st = prepare(t, DEPENDENTS "WHERE s.dir >= ?1 || '/' AND s.dir < ?1 || '0'");
		if (st)
			sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	} else {
		const char *slash = strrchr(path, '/');
		size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
		st = prepare(t, DEPENDENTS "WHERE s.dir = ?1 AND s.kind = ?2"
				" AND instr(char(10) || s.names || char(10), char(10) || ?3 || char(10)) > 0");
		if (st) {
			sqlite3_bind_text(st, 1, path, (int)dlen, SQLITE_STATIC);
			sqlite3_bind_text(st, 2, k, 1, SQLITE_STATIC);
			sqlite3_bind_text(st, 3, path + dlen, -1, SQLITE_STATIC);
		}
	}
	int rc = st ? collect(t, st, out, err) : db_err(t, err, "read");
	sqlite3_finalize(st);
	unlock_db(t);
	return rc;
}

int manifest_handled(struct tree *t, struct timespec *when, char *err)
{
	if (lock_db(t, false, err) < 0)
		return -1;
	if (!t->db)
		return 1;
	sqlite3_stmt *st = prepare(t, "SELECT value FROM meta WHERE name = 'handled'");
	int rc = st ? sqlite3_step(st) : SQLITE_ERROR;
	if (rc == SQLITE_ROW) {
		long long ns = sqlite3_column_int64(st, 0);
		when->tv_sec = (time_t)(ns / 1000000000LL);
		when->tv_nsec = (long)(ns % 1000000000LL);
	}
	int out = rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : db_err(t, err, "read");
	sqlite3_finalize(st);
	unlock_db(t);
	return out;
}

int manifest_set_handled(struct tree *t, char *err)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	if (lock_db(t, true, err) < 0)
		return -1;
	int rc = put_handled(t, &now, err);
	unlock_db(t);
	return rc;
}

int manifest_checkpoint(struct tree *t, bool whole, char *err)
{
	if (lock_db(t, false, err) < 0)
		return -1;
	int rc = 0;
	/* TRUNCATE: every committed page is in tree.db and the log is empty,
	 * but it waits up to the busy timeout for a long reader; PASSIVE
	 * waits for nobody (journal_size_limit trims the log when the next
	 * write restarts it). A reader in the middle of a read makes either
	 * busy, which is no error (the next batch checkpoints again). */
	int mode = whole ? SQLITE_CHECKPOINT_TRUNCATE : SQLITE_CHECKPOINT_PASSIVE;
	if (t->db && sqlite3_wal_checkpoint_v2(t->db->db, NULL, mode, NULL, NULL) != SQLITE_OK &&
	    sqlite3_errcode(t->db->db) != SQLITE_BUSY)
		rc = err_set(err, "cannot checkpoint '%s/%s/%s': %s", t->path, TREE_META_DIR, MANIFEST_DB_FILE,
			     sqlite3_errmsg(t->db->db));
	unlock_db(t);
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
				r->db ? sqlite3_errmsg(r->db) : "out of memory");
			reader_close(r);
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
		pthread_mutex_lock(&open_mu);
		int rc = open_db(t, false, err);
		d = t->db;
		pthread_mutex_unlock(&open_mu);
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
				    sqlite3_errmsg(r->db));
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	pthread_mutex_unlock(&r->mu);
	return ret;
}
