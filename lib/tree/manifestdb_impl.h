/* manifestdb_impl.h - what the parts of the manifest's database share:
 * manifestdb.c (opening, schema, migration, the lock), manifestread.c
 * (load, dependents, lookup), manifestsave.c (saves) and
 * manifestpending.c (the pending rows, recovery). Not for use outside
 * those files.
 *
 * A public call (manifest.h) takes the connection with mdb_lock (which
 * opens the database on first use), runs its statements (mdb_prepare,
 * mdb_step; mdb_err says what failed), and gives it back with mdb_unlock.
 */
#ifndef CGISNAP_MANIFESTDB_IMPL_H
#define CGISNAP_MANIFESTDB_IMPL_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/hashmap.h"
#include "tree/manifest.h"
#include "tree/tree.h"

/* How long a statement waits for another process's write (ms). */
#define BUSY_TIMEOUT_MS 10000

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
	int schema;           /* its version: older only on a reader that may not write */
	bool have_state;      /* stored reflects the database */
	bool vacuum_checked;  /* convert_vacuum ran on this connection */
	long long data_version; /* PRAGMA data_version at the last load */
	struct hashmap stored; /* target -> struct stored * */
	long long rows_written;
	long long rows_compared;
	/* manifest_journal's insert, prepared once (under mu): one a page
	 * published, and preparing it cost as much as running it. */
	sqlite3_stmt *journal;
	/* manifest_lookup's connections, opened on first use (under
	 * readers_mu), closed with the database. */
	pthread_mutex_t readers_mu;
	struct reader *_Atomic readers[READERS_MAX];
	/* A lazy manifest's reads (manifestlazy.c), prepared on first use
	 * (under mu): a batch reads a row, and its sets, per page. */
	sqlite3_stmt *lazy_row, *lazy_set, *lazy_refs, *lazy_has, *lazy_by_key;
};

/* One dependency set: a kind, a directory and names in it. */
struct depset {
	char kind;
	char *dir;
	struct buf names; /* sorted, '\n' between */
};

/* The url row's columns that load and lookup both decode (row_entry). */
#define ROW_COLUMNS "key, status, type, bytes, sha256, render_ms, changed, location"

/* The helpers, manifestdb.c. */
void mdb_stored_free(struct stored *s);
/* Forget the stored state (read again by the next load or save). */
void mdb_state_clear(struct manifest_db *d);
/* SQLite's reason for db's last error, with the system's where there is
 * one ("disk I/O error (No space left on device)"): SQLite's own words
 * do not say the disk is full. In buf (MDB_REASON_LEN), returned. */
#define MDB_REASON_LEN 256
const char *mdb_reason(sqlite3 *db, char *buf);
/* err says "cannot WHAT 'DIR/.cgisnap/tree.db'" and SQLite's reason: -1. */
int mdb_err(struct tree *t, char *err, const char *what);
/* err says the sets of target's row (url.sets) cannot be decoded: -1. */
int mdb_err_malformed(struct tree *t, char *err, const char *target);
int mdb_exec(struct tree *t, const char *sql, char *err);
/* A statement on t's connection, NULL on error (the caller finalizes it). */
sqlite3_stmt *mdb_prepare(struct tree *t, const char *sql);
const char *mdb_column_text(sqlite3_stmt *st, int i);
int mdb_step(sqlite3_stmt *st);
/* Step st to its end, appending column 0 of each row (NULLs skipped) to
 * out: 0, or -1 with err. The caller resets or finalizes st. */
int mdb_collect(struct tree *t, sqlite3_stmt *st, struct strlist *out, char *err);
long long mdb_query_int(struct tree *t, const char *sql);
/* The hash of a set's names (depset.hash): 31 bits. */
uint32_t mdb_names_hash(const char *names, size_t len);
/* A url row's sets column: the ids in ascending order, each as its
 * difference from the one before in LEB128 (DokuWiki's ~100 sets a page
 * take a byte or two each). decode: -1 on a malformed blob. */
void mdb_sets_encode(const long long *ids, size_t n, struct buf *out);
int mdb_sets_decode(const void *blob, size_t len, long long **ids, size_t *n);
/* The set ids of url row id, whose sets column is column col of st (on
 * its row): decoded, or, where the row has none (NULL: written by an
 * older cgisnap), read from url_dep with refs (SELECT set_id FROM url_dep
 * WHERE url_id = ?1; reset here). -2 when malformed, -1 on error. */
int mdb_row_sets(sqlite3_stmt *st, int col, long long id, sqlite3_stmt *refs, long long **ids,
		 size_t *n);
/* The database's schema version: SCHEMA_VERSION, or an older one (1) on
 * a process that may not write it, read as it is, until a writer has
 * upgraded it. */
int mdb_schema(struct tree *t);
/* 0 when the database has this cgisnap's schema, else -1 with err saying
 * that it awaits a writer's upgrade (before a save). */
int mdb_need_schema(struct tree *t, char *err);

/* The database opened (create: made when missing) and locked for this
 * thread: 0 with t->db NULL (nothing locked) when there is none. */
int mdb_lock(struct tree *t, bool create, char *err);
void mdb_unlock(struct tree *t);
/* The database opened, not created, without the lock (manifest_lookup
 * reads on connections of its own): 0 with t->db NULL when there is none. */
int mdb_open(struct tree *t, char *err);

/* manifestread.c */
int mdb_read_all(struct tree *t, struct manifest *m, char *err);
/* target's row and dependencies, as a new entry (*out NULL: no row),
 * on the locked connection: 0, or -1 with err. */
int mdb_read_entry(struct tree *t, const char *target, struct manifest_entry **out, char *err);
void mdb_reader_close(struct reader *r);

/* manifestsave.c */
int mdb_write_changes(struct tree *t, const struct manifest *m, const struct strlist *dropped, char *err);
void mdb_trim_free(struct tree *t);

#endif
