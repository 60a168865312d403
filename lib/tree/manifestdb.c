/* manifestdb.c - opening the manifest's database, DIR/.cgisnap/tree.db
 * (SQLite): its schema, an old tree's migration, the connection and its
 * lock, the "handled" time and checkpoints; the helpers its parts share
 * (manifestdb_impl.h). manifest.h is its API, docs/tree-db.md its schema. */
#include "tree/manifestdb_impl.h"

#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "tree/publish.h"
#include "base/xalloc.h"

/* PRAGMA user_version of the schema below; a newer one is refused, an
 * older one migrated (migrate_v1, migrate_v2). */
#define SCHEMA_VERSION 3
/* For SQL text: the same constant as a string. */
#define STR_(x) #x
#define STR(x) STR_(x)

/* The dependency sets' tables, new in version 2 (docs/tree-db.md). */
#define DEPSET_SCHEMA \
	"CREATE TABLE dir (" \
	" id INTEGER PRIMARY KEY," \
	" path TEXT NOT NULL UNIQUE);" /* up to and with the last '/' */ \
	"CREATE TABLE depset (" \
	" id INTEGER PRIMARY KEY," \
	" dir_id INTEGER NOT NULL," \
	" kind TEXT NOT NULL,"  /* R, E, L, C, U, A or W */ \
	" many INTEGER NOT NULL," /* 1: more than one name */ \
	" hash INTEGER NOT NULL," /* mdb_names_hash(names) */ \
	" names TEXT NOT NULL);" /* sorted, '\n' between */ \
	/* Interning looks a set up by all four; manifest_dependents finds \
	 * a one-name set by its hash, and scans only the sets of many \
	 * names of a directory. */ \
	"CREATE INDEX depset_by_dir ON depset(dir_id, kind, many, hash);" \
	"CREATE INDEX depset_untraced ON depset(kind) WHERE kind = 'U';"

/* Which entries record a file (new in version 3): a writer that keeps no
 * manifest in memory asks it before replacing one. */
#define URL_BY_KEY "CREATE INDEX url_by_key ON url(key) WHERE key IS NOT NULL;"

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
	" fp INTEGER NOT NULL," /* fingerprint of the row and its dependencies */
	" sets BLOB);"          /* the ids of its sets (mdb_sets_encode) */
	URL_BY_KEY
	DEPSET_SCHEMA
	"CREATE TABLE url_dep ("
	" set_id INTEGER NOT NULL,"
	" url_id INTEGER NOT NULL,"
	" PRIMARY KEY (set_id, url_id)) WITHOUT ROWID;"
	"CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER) WITHOUT ROWID;" /* handled: ns */
	"CREATE TABLE pending ("
	" seq INTEGER PRIMARY KEY,"
	" line TEXT NOT NULL,"   /* the entry as a text manifest line */
	" remove INTEGER NOT NULL DEFAULT 0);"; /* 1: its file is to go */

/* Version 1 to 2: depset(hash, kind, dir, names) with two indexes, the
 * directory's text in each row and again in the index that covered the
 * names, became a table of directories and sets that name theirs by id
 * (half the bytes per page on DokuWiki). The set ids, hence url_dep,
 * stay as they were. */
static const char MIGRATE_V1[] =
	"ALTER TABLE depset RENAME TO depset_v1;"
	"DROP INDEX IF EXISTS depset_by_hash;"
	"DROP INDEX IF EXISTS depset_by_dir;"
	"DROP INDEX IF EXISTS depset_untraced;"
	DEPSET_SCHEMA
	"INSERT INTO dir (path) SELECT DISTINCT dir FROM depset_v1 ORDER BY dir;"
	"INSERT INTO depset (id, dir_id, kind, many, hash, names)"
	" SELECT s.id, d.id, s.kind, instr(s.names, char(10)) > 0, cgisnap_names_hash(s.names), s.names"
	" FROM depset_v1 s JOIN dir d ON d.path = s.dir;"
	"DROP TABLE depset_v1;"
	"PRAGMA user_version = 2;";

uint32_t mdb_names_hash(const char *names, size_t len)
{
	/* FNV-1a 32, kept to 31 bits: SQLite stores it in 4 bytes. */
	uint32_t h = 0x811c9dc5u;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)names[i];
		h *= 0x01000193u;
	}
	return h & 0x7fffffffu;
}

/* cgisnap_names_hash(names) for migrate_v1's SQL. */
static void names_hash_sql(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	const char *names = (const char *)sqlite3_value_text(argv[0]);
	sqlite3_result_int64(ctx, mdb_names_hash(names ? names : "", names ? (size_t)sqlite3_value_bytes(argv[0]) : 0));
}

/* A version 1 database made version 2, inside the caller's transaction. */
static int migrate_v1(struct tree *t, char *err)
{
	if (sqlite3_create_function(t->db->db, "cgisnap_names_hash", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
				    names_hash_sql, NULL, NULL) != SQLITE_OK)
		return mdb_err(t, err, "update");
	int rc = mdb_exec(t, MIGRATE_V1, err);
	sqlite3_create_function(t->db->db, "cgisnap_names_hash", 1, SQLITE_UTF8, NULL, NULL, NULL, NULL);
	return rc;
}

static int by_value(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

void mdb_sets_encode(const long long *ids, size_t n, struct buf *out)
{
	long long *v = xreallocarray(NULL, n ? n : 1, sizeof *v);
	if (n)
		memcpy(v, ids, n * sizeof *v);
	qsort(v, n, sizeof *v, by_value);
	buf_reset(out);
	unsigned long long prev = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned long long d = (unsigned long long)v[i] - prev;
		prev = (unsigned long long)v[i];
		do {
			unsigned char byte = d & 0x7f;
			d >>= 7;
			buf_addc(out, (char)(d ? byte | 0x80 : byte));
		} while (d);
	}
	free(v);
}

/* Append id to the array *ids of *n, grown by doubling (*cap). */
static void push_id(long long **ids, size_t *n, size_t *cap, long long id)
{
	if (*n == *cap)
		*ids = xreallocarray(*ids, *cap = *cap ? 2 * *cap : 8, sizeof **ids);
	(*ids)[(*n)++] = id;
}

int mdb_sets_decode(const void *blob, size_t len, long long **ids, size_t *n)
{
	const unsigned char *p = blob, *end = p + len;
	*ids = NULL;
	*n = 0;
	size_t cap = 0;
	unsigned long long prev = 0;
	while (p < end) {
		unsigned long long d = 0;
		unsigned shift = 0;
		for (;;) {
			if (p == end || shift > 63)
				goto bad;
			d |= (unsigned long long)(*p & 0x7f) << shift;
			shift += 7;
			if (!(*p++ & 0x80))
				break;
		}
		prev += d;
		push_id(ids, n, &cap, (long long)prev);
	}
	return 0;
bad:
	free(*ids);
	*ids = NULL;
	*n = 0;
	return -1;
}

int mdb_row_sets(sqlite3_stmt *st, int col, long long id, sqlite3_stmt *refs, long long **ids,
		 size_t *n)
{
	if (sqlite3_column_type(st, col) != SQLITE_NULL)
		return mdb_sets_decode(sqlite3_column_blob(st, col), (size_t)sqlite3_column_bytes(st, col), ids, n) < 0
			       ? -2
			       : 0;
	*ids = NULL;
	*n = 0;
	size_t cap = 0;
	int rc;
	sqlite3_bind_int64(refs, 1, id);
	while ((rc = sqlite3_step(refs)) == SQLITE_ROW)
		push_id(ids, n, &cap, sqlite3_column_int64(refs, 0));
	sqlite3_reset(refs);
	sqlite3_clear_bindings(refs);
	if (rc == SQLITE_DONE)
		return 0;
	free(*ids);
	*ids = NULL;
	*n = 0;
	return -1;
}

/* Version 2 to 3: each url row names its sets (url.sets, what url_dep
 * holds by set first), and url_by_key finds a file's entries. Inside the
 * caller's transaction. */
static int migrate_v2(struct tree *t, char *err)
{
	if (mdb_exec(t, "ALTER TABLE url ADD COLUMN sets BLOB;" URL_BY_KEY, err) < 0)
		return -1;
	sqlite3_stmt *refs = mdb_prepare(t, "SELECT url_id, set_id FROM url_dep ORDER BY url_id");
	sqlite3_stmt *put = mdb_prepare(t, "UPDATE url SET sets = ?2 WHERE id = ?1");
	struct buf blob = BUF_INIT;
	long long *ids = NULL, url = -1;
	size_t n = 0, cap = 0;
	int rc = refs && put ? sqlite3_step(refs) : SQLITE_ERROR;
	for (;;) {
		bool more = rc == SQLITE_ROW;
		if (n && (!more || sqlite3_column_int64(refs, 0) != url)) {
			mdb_sets_encode(ids, n, &blob);
			sqlite3_bind_int64(put, 1, url);
			sqlite3_bind_blob(put, 2, blob.data, (int)blob.len, SQLITE_STATIC);
			if (mdb_step(put) < 0) {
				rc = SQLITE_ERROR;
				break;
			}
			n = 0;
		}
		if (!more)
			break;
		url = sqlite3_column_int64(refs, 0);
		push_id(&ids, &n, &cap, sqlite3_column_int64(refs, 1));
		rc = sqlite3_step(refs);
	}
	free(ids);
	buf_release(&blob);
	sqlite3_finalize(refs);
	sqlite3_finalize(put);
	if (rc != SQLITE_DONE)
		return mdb_err(t, err, "update");
	/* Pages with no sets: an empty list, not NULL (what rows of an
	 * older writer have, read from url_dep). */
	return mdb_exec(t, "UPDATE url SET sets = x'' WHERE sets IS NULL; PRAGMA user_version = 3", err);
}

void mdb_stored_free(struct stored *s)
{
	if (s) {
		free(s->sets);
		free(s);
	}
}

void mdb_state_clear(struct manifest_db *d)
{
	size_t it = 0;
	void *v;
	while (hashmap_next(&d->stored, &it, NULL, &v))
		mdb_stored_free(v);
	hashmap_release(&d->stored);
	d->have_state = false;
}

const char *mdb_reason(sqlite3 *db, char *buf)
{
	if (!db)
		return "out of memory";
	int code = sqlite3_errcode(db) & 0xff, sys = sqlite3_system_errno(db);
	if (sys && (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN))
		snprintf(buf, MDB_REASON_LEN, "%s (%s)", sqlite3_errmsg(db), strerror(sys));
	else
		snprintf(buf, MDB_REASON_LEN, "%s", sqlite3_errmsg(db));
	return buf;
}

int mdb_err(struct tree *t, char *err, const char *what)
{
	char why[MDB_REASON_LEN];
	return err_set(err, "cannot %s '%s/%s/%s': %s", what, t->path, TREE_META_DIR, MANIFEST_DB_FILE,
		       mdb_reason(t->db ? t->db->db : NULL, why));
}

int mdb_exec(struct tree *t, const char *sql, char *err)
{
	if (sqlite3_exec(t->db->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return mdb_err(t, err, "update");
	return 0;
}

sqlite3_stmt *mdb_prepare(struct tree *t, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(t->db->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	return st;
}

const char *mdb_column_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* Run st once (bindings done), then reset it: 0 or -1. */
int mdb_step(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

/* The first column of sql's first row, or -1. */
long long mdb_query_int(struct tree *t, const char *sql)
{
	sqlite3_stmt *st = mdb_prepare(t, sql);
	long long v = st && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	return v;
}

static int put_handled(struct tree *t, const struct timespec *when, char *err)
{
	sqlite3_stmt *st = mdb_prepare(t, "INSERT OR REPLACE INTO meta (name, value) VALUES ('handled', ?1)");
	if (st)
		sqlite3_bind_int64(st, 1, (long long)when->tv_sec * 1000000000LL + when->tv_nsec);
	int rc = st && mdb_step(st) == 0 ? 0 : mdb_err(t, err, "update");
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
	rc = mdb_write_changes(t, &m, NULL, err);
	sqlite3_stmt *ins = rc == 0 ? mdb_prepare(t, "INSERT INTO pending (line) VALUES (?1)") : NULL;
	if (rc == 0 && !ins)
		rc = mdb_err(t, err, "update");
	for (size_t i = 0; rc == 0 && i < journal.n; i++) {
		sqlite3_bind_text(ins, 1, journal.items[i], -1, SQLITE_STATIC);
		if (mdb_step(ins) < 0)
			rc = mdb_err(t, err, "update");
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
	sqlite3_stmt *st = mdb_prepare(t, "SELECT 1 FROM url LIMIT 1");
	bool any = st && sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return any;
}

static bool meta_has(struct tree *t, const char *name)
{
	struct stat st;
	return t->meta_fd >= 0 && fstatat(t->meta_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* The refusal of a database a newer cgisnap made (its schema version). */
static void err_newer_schema(char *err, const struct tree *t, int version)
{
	err_set(err, "'%s/%s/%s' has schema version %d, newer than this cgisnap's (%d)", t->path, TREE_META_DIR,
		MANIFEST_DB_FILE, version, SCHEMA_VERSION);
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
		mdb_err(&tmp, err, "open");
		goto fail;
	}
	sqlite3_busy_timeout(d->db, BUSY_TIMEOUT_MS);
	/* WAL: readers go on beside the writer and see the last commit.
	 * synchronous FULL: each commit is synced (the WAL, one fdatasync)
	 * before it returns. A commit is either a pending row, which must be
	 * on disk before the rename it announces can be (else a power cut
	 * may leave a published file with no record of it, which no later
	 * run would dare overwrite), or a run's save, after which cgisnap
	 * says the pages are published. NORMAL would survive kill -9 alike
	 * but let a power cut take the last commits back. With --no-sync
	 * (publish_sync() false) NORMAL, as the files go unsynced too. */
	/* auto_vacuum INCREMENTAL: takes only on a database without tables
	 * (a new one); an older one is converted by its next writer
	 * (convert_vacuum). journal_size_limit 0: the log is trimmed each
	 * time a write restarts it, not left at its largest batch's size. */
	/* Set only on a database without pages: on any other the pragma
	 * writes its header, and a reader (ls, a refused serve) must leave
	 * the file as it found it. */
	sqlite3_stmt *pages = mdb_prepare(&tmp, "PRAGMA page_count");
	bool empty = pages && sqlite3_step(pages) == SQLITE_ROW && sqlite3_column_int64(pages, 0) == 0;
	sqlite3_finalize(pages);
	if ((empty && sqlite3_exec(d->db, "PRAGMA auto_vacuum = INCREMENTAL", NULL, NULL, NULL) != SQLITE_OK) ||
	    sqlite3_exec(d->db,
			 publish_sync() ? "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA journal_size_limit = 0;"
					: "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 0;",
			 NULL, NULL, NULL) != SQLITE_OK) {
		mdb_err(&tmp, err, "open"); /* "file is not a database" */
		goto fail;
	}
	sqlite3_stmt *ver = mdb_prepare(&tmp, "PRAGMA user_version");
	int version = ver && sqlite3_step(ver) == SQLITE_ROW ? sqlite3_column_int(ver, 0) : -1;
	sqlite3_finalize(ver);
	if (version < 0) {
		mdb_err(&tmp, err, "read");
		goto fail;
	}
	if (version > SCHEMA_VERSION) {
		err_newer_schema(err, t, version);
		goto fail;
	}
	d->schema = SCHEMA_VERSION;
	if (version == SCHEMA_VERSION && !old)
		goto ready;
	/* A process that may not write (serve run as another user) reads an
	 * older version as it is (mdb_schema); a save asks for a writer's
	 * upgrade first (mdb_need_schema). */
	if (version >= 1 && !old && sqlite3_db_readonly(d->db, "main") == 1) {
		d->schema = version;
		goto ready;
	}
	/* Schema and migration in one transaction: a second process waits,
	 * then finds both done. */
	if (mdb_exec(&tmp, "BEGIN IMMEDIATE", err) < 0)
		goto fail;
	ver = mdb_prepare(&tmp, "PRAGMA user_version");
	version = ver && sqlite3_step(ver) == SQLITE_ROW ? sqlite3_column_int(ver, 0) : -1;
	sqlite3_finalize(ver);
	if (version == 0 &&
	    (mdb_exec(&tmp, SCHEMA, err) < 0 || mdb_exec(&tmp, "PRAGMA user_version = " STR(SCHEMA_VERSION), err) < 0))
		goto rollback;
	if (version < 0 || version > SCHEMA_VERSION) { /* another binary, newer, upgraded it meanwhile */
		if (version < 0)
			mdb_err(&tmp, err, "read");
		else
			err_newer_schema(err, t, version);
		goto rollback;
	}
	bool upgraded = version >= 1 && version < SCHEMA_VERSION;
	if ((version == 1 && migrate_v1(&tmp, err) < 0) || (upgraded && migrate_v2(&tmp, err) < 0))
		goto rollback;
	/* Old files beside a database that holds URLs: a run killed between
	 * the migration's commit and their removal left them. */
	if (old && !has_rows(&tmp)) {
		if (mdb_read_all(&tmp, NULL, err) < 0 || import_text(&tmp, &migrated, err) < 0)
			goto rollback;
	}
	if (mdb_exec(&tmp, "COMMIT", err) < 0)
		goto rollback;
	mdb_state_clear(d); /* read again by the caller's load or save */
	/* Committed: the text files are now only a copy (also when a run
	 * killed right here left them, the database being older). */
	if (old)
		remove_text(t);
	if (migrated >= 0)
		log_info("migrated %s/%s/%s to %s (%ld URLs)", t->path, TREE_META_DIR, MANIFEST_TEXT_FILE,
			 MANIFEST_DB_FILE, migrated);
	if (upgraded)
		log_info("upgraded %s/%s/%s to schema version %d", t->path, TREE_META_DIR, MANIFEST_DB_FILE,
			 SCHEMA_VERSION);
ready:
	__atomic_store_n(&t->db, d, __ATOMIC_RELEASE);
	return 0;
rollback:
	sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
fail:
	manifest_db_close(&tmp);
	return -1;
}

int mdb_schema(struct tree *t)
{
	struct manifest_db *d = t->db;
	if (d->schema < SCHEMA_VERSION) { /* a writer may have upgraded it since */
		long long v = mdb_query_int(t, "PRAGMA user_version");
		if (v > d->schema && v <= SCHEMA_VERSION)
			d->schema = (int)v;
	}
	return d->schema;
}

int mdb_need_schema(struct tree *t, char *err)
{
	if (mdb_schema(t) == SCHEMA_VERSION)
		return 0;
	return err_set(err,
		       "'%s/%s/%s' has schema version %d, older than this cgisnap's (%d); this user cannot upgrade it,"
		       " the tree's writer (snapshot, watch) does",
		       t->path, TREE_META_DIR, MANIFEST_DB_FILE, t->db->schema, SCHEMA_VERSION);
}

void manifest_db_close(struct tree *t)
{
	struct manifest_db *d = t->db;
	if (!d)
		return;
	mdb_state_clear(d);
	sqlite3_finalize(d->journal);
	sqlite3_finalize(d->lazy_row);
	sqlite3_finalize(d->lazy_set);
	sqlite3_finalize(d->lazy_refs);
	sqlite3_finalize(d->lazy_has);
	sqlite3_finalize(d->lazy_by_key);
	for (size_t i = 0; i < READERS_MAX; i++)
		mdb_reader_close(atomic_load(&d->readers[i]));
	sqlite3_close_v2(d->db);
	pthread_mutex_destroy(&d->readers_mu);
	pthread_mutex_destroy(&d->mu);
	free(d->path);
	free(d);
	t->db = NULL;
}

/* Held while the database is opened (open_db): the first caller opens
 * it, the others wait and find it open. */
static pthread_mutex_t open_mu = PTHREAD_MUTEX_INITIALIZER;

int mdb_lock(struct tree *t, bool create, char *err)
{
	pthread_mutex_lock(&open_mu);
	int rc = open_db(t, create, err);
	if (rc == 0 && t->db)
		pthread_mutex_lock(&t->db->mu);
	pthread_mutex_unlock(&open_mu);
	return rc;
}

void mdb_unlock(struct tree *t)
{
	if (t->db)
		pthread_mutex_unlock(&t->db->mu);
}

int mdb_open(struct tree *t, char *err)
{
	pthread_mutex_lock(&open_mu);
	int rc = open_db(t, false, err);
	pthread_mutex_unlock(&open_mu);
	return rc;
}

int manifest_handled(struct tree *t, struct timespec *when, char *err)
{
	if (mdb_lock(t, false, err) < 0)
		return -1;
	if (!t->db)
		return 1;
	sqlite3_stmt *st = mdb_prepare(t, "SELECT value FROM meta WHERE name = 'handled'");
	int rc = st ? sqlite3_step(st) : SQLITE_ERROR;
	if (rc == SQLITE_ROW) {
		long long ns = sqlite3_column_int64(st, 0);
		when->tv_sec = (time_t)(ns / 1000000000LL);
		when->tv_nsec = (long)(ns % 1000000000LL);
	}
	int out = rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : mdb_err(t, err, "read");
	sqlite3_finalize(st);
	mdb_unlock(t);
	return out;
}

int manifest_set_handled(struct tree *t, char *err)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	if (mdb_lock(t, true, err) < 0)
		return -1;
	int rc = put_handled(t, &now, err);
	mdb_unlock(t);
	return rc;
}

/* A checkpoint that did not succeed: busy is no error (a reader holds
 * the log; the next batch checkpoints again), anything else is: -1. */
static int checkpoint_failed(struct tree *t, char *err)
{
	if (sqlite3_errcode(t->db->db) == SQLITE_BUSY)
		return 0;
	return err_set(err, "cannot checkpoint '%s/%s/%s': %s", t->path, TREE_META_DIR, MANIFEST_DB_FILE,
		       mdb_reason(t->db->db, (char[MDB_REASON_LEN]){ 0 }));
}

int manifest_checkpoint(struct tree *t, bool whole, char *err)
{
	if (mdb_lock(t, false, err) < 0)
		return -1;
	int rc = 0;
	/* TRUNCATE: every committed page is in tree.db and the log is empty,
	 * but it waits up to the busy timeout for a long reader; PASSIVE
	 * waits for nobody (journal_size_limit trims the log when the next
	 * write restarts it). A reader in the middle of a read makes either
	 * busy, which is no error (the next batch checkpoints again). */
	int mode = whole ? SQLITE_CHECKPOINT_TRUNCATE : SQLITE_CHECKPOINT_PASSIVE;
	int logged = -1, copied = -1;
	int src = t->db ? sqlite3_wal_checkpoint_v2(t->db->db, NULL, mode, &logged, &copied) : SQLITE_OK;
	if (src != SQLITE_OK)
		rc = checkpoint_failed(t, err);
	/* All of the log copied and no reader in it: empty the log file too
	 * (else it keeps the size of the largest batch since it was last
	 * restarted: most of the tree's metadata on a small site). Tried
	 * without waiting: a reader that holds it keeps it for the next
	 * batch. */
	if (t->db && !whole && src == SQLITE_OK && logged > 0 && logged == copied) {
		sqlite3_busy_timeout(t->db->db, 0);
		if (sqlite3_wal_checkpoint_v2(t->db->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL) != SQLITE_OK)
			rc = checkpoint_failed(t, err);
		sqlite3_busy_timeout(t->db->db, BUSY_TIMEOUT_MS);
	}
	mdb_unlock(t);
	return rc;
}
