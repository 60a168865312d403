/* manifestlazy.c - a manifest that reads its entries from tree.db as they
 * are asked for, and forgets them after a save (manifest.h). */
#include "tree/manifestdb_impl.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/xalloc.h"

struct manifest_lazy {
	struct tree *t;
	pthread_mutex_t mu;     /* the entries and the marks below */
	struct hashmap absent;  /* targets without a row: target -> 1 */
	struct hashmap present; /* targets with a row not read yet: target -> 1 */
	char *error;            /* the first failed read since manifest_forget */
	long long reads;        /* entries read, for manifest_lazy_reads */
};

static void forget_marks(struct manifest_lazy *l)
{
	hashmap_release(&l->absent);
	hashmap_release(&l->present);
	free(l->error);
	l->error = NULL;
}

void manifest_set_lazy(struct manifest *m, struct tree *t)
{
	manifest_clear(m);
	if (m->lazy) {
		forget_marks(m->lazy);
		pthread_mutex_destroy(&m->lazy->mu);
		free(m->lazy);
		m->lazy = NULL;
	}
	if (!t)
		return;
	m->lazy = xcalloc(1, sizeof *m->lazy);
	m->lazy->t = t;
	pthread_mutex_init(&m->lazy->mu, NULL);
}

bool manifest_is_lazy(const struct manifest *m)
{
	return m->lazy != NULL;
}

/* Keep the first failure's message. Locked. */
static void note_error(struct manifest_lazy *l, const char *err)
{
	if (!l->error) {
		l->error = xstrdup(err);
		log_debug("%s", err);
	}
}

/* target's entry, read when not yet asked for. Locked. */
static struct manifest_entry *find_locked(struct manifest *m, const char *target)
{
	struct manifest_lazy *l = m->lazy;
	struct manifest_entry *e = manifest_get(m, target);
	if (e || hashmap_get(&l->absent, target))
		return e;
	char err[ERR_LEN];
	if (mdb_lock(l->t, false, err) < 0) {
		note_error(l, err);
		return NULL;
	}
	int rc = l->t->db ? mdb_read_entry(l->t, target, &e, err) : 0;
	mdb_unlock(l->t);
	if (rc < 0) {
		note_error(l, err);
		return NULL;
	}
	l->reads++;
	if (e)
		manifest_put(m, e);
	else
		hashmap_put(&l->absent, target, (void *)1);
	hashmap_remove(&l->present, target);
	return e;
}

struct manifest_entry *manifest_find(struct manifest *m, const char *target)
{
	if (!m->lazy)
		return manifest_get(m, target);
	pthread_mutex_lock(&m->lazy->mu);
	struct manifest_entry *e = find_locked(m, target);
	pthread_mutex_unlock(&m->lazy->mu);
	return e;
}

/* The first column of each row sql gives for text (one parameter) on
 * the locked connection, prepared once as *stmt, appended to out. 0, or
 * -1 with err. */
static int query_texts(struct tree *t, sqlite3_stmt **stmt, const char *sql, const char *text,
		       struct strlist *out, char *err)
{
	if (!*stmt && !(*stmt = mdb_prepare(t, sql)))
		return mdb_err(t, err, "read");
	sqlite3_bind_text(*stmt, 1, text, -1, SQLITE_STATIC);
	int rc = mdb_collect(t, *stmt, out, err);
	sqlite3_reset(*stmt);
	sqlite3_clear_bindings(*stmt);
	return rc;
}

bool manifest_has(struct manifest *m, const char *target)
{
	struct manifest_lazy *l = m->lazy;
	if (!l)
		return manifest_get(m, target) != NULL;
	pthread_mutex_lock(&l->mu);
	bool has = manifest_get(m, target) || hashmap_get(&l->present, target);
	if (!has && !hashmap_get(&l->absent, target)) {
		char err[ERR_LEN];
		struct strlist found = STRLIST_INIT;
		int rc = mdb_lock(l->t, false, err);
		if (rc == 0 && l->t->db)
			rc = query_texts(l->t, &l->t->db->lazy_has, "SELECT target FROM url WHERE target = ?1", target,
					 &found, err);
		mdb_unlock(l->t);
		if (rc < 0)
			note_error(l, err);
		has = found.n > 0;
		if (rc == 0)
			hashmap_put(has ? &l->present : &l->absent, target, (void *)1);
		strlist_clear(&found);
	}
	pthread_mutex_unlock(&l->mu);
	return has;
}

struct manifest_entry *manifest_find_by_key(struct manifest *m, const char *key)
{
	struct manifest_lazy *l = m->lazy;
	if (!l)
		return NULL;
	char err[ERR_LEN];
	struct strlist targets = STRLIST_INIT;
	struct manifest_entry *e = NULL;
	pthread_mutex_lock(&l->mu);
	int rc = mdb_lock(l->t, false, err);
	if (rc == 0 && l->t->db)
		rc = query_texts(l->t, &l->t->db->lazy_by_key, "SELECT target FROM url WHERE key = ?1 ORDER BY id", key,
				 &targets, err);
	mdb_unlock(l->t);
	if (rc < 0)
		note_error(l, err);
	for (size_t i = 0; !e && i < targets.n; i++) {
		e = find_locked(m, targets.items[i]);
		if (e && (!e->key || strcmp(e->key, key)))
			e = NULL; /* put since with another file */
	}
	pthread_mutex_unlock(&l->mu);
	strlist_clear(&targets);
	return e;
}

void manifest_lazy_error_clear(struct manifest *m)
{
	struct manifest_lazy *l = m->lazy;
	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	free(l->error);
	l->error = NULL;
	pthread_mutex_unlock(&l->mu);
}

long long manifest_lazy_reads(const struct manifest *m)
{
	if (!m->lazy)
		return 0;
	pthread_mutex_lock(&m->lazy->mu);
	long long n = m->lazy->reads;
	pthread_mutex_unlock(&m->lazy->mu);
	return n;
}

int manifest_lazy_error(struct manifest *m, char *err)
{
	struct manifest_lazy *l = m->lazy;
	if (!l)
		return 0;
	pthread_mutex_lock(&l->mu);
	int rc = l->error ? err_set(err, "%s", l->error) : 0;
	pthread_mutex_unlock(&l->mu);
	return rc;
}

int manifest_targets(struct manifest *m, struct strlist *out, char *err)
{
	if (!m->lazy) {
		size_t it = 0;
		const char *k;
		while (hashmap_next(&m->entries, &it, &k, NULL))
			strlist_add(out, k);
		return 0;
	}
	struct tree *t = m->lazy->t;
	if (mdb_lock(t, false, err) < 0)
		return -1;
	int rc = 0;
	if (t->db) {
		sqlite3_stmt *st = mdb_prepare(t, "SELECT target FROM url");
		rc = st ? mdb_collect(t, st, out, err) : mdb_err(t, err, "read");
		sqlite3_finalize(st);
	}
	mdb_unlock(t);
	return rc;
}

bool manifest_empty(struct manifest *m)
{
	if (!m->lazy)
		return manifest_count(m) == 0;
	char err[ERR_LEN];
	if (mdb_lock(m->lazy->t, false, err) < 0)
		return false; /* the database is there: what it holds, the next read says */
	bool empty = !m->lazy->t->db || mdb_query_int(m->lazy->t, "SELECT EXISTS (SELECT 1 FROM url)") == 0;
	mdb_unlock(m->lazy->t);
	return empty;
}

void manifest_forget(struct manifest *m)
{
	struct manifest_lazy *l = m->lazy;
	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	manifest_clear(m);
	forget_marks(l);
	pthread_mutex_unlock(&l->mu);
	char err[ERR_LEN];
	if (mdb_lock(l->t, false, err) == 0 && l->t->db)
		mdb_state_clear(l->t->db);
	mdb_unlock(l->t);
}
