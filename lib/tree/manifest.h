/* manifest.h - the tree's index: DIR/.cgisnap/tree.db (SQLite; the schema
 * is in docs/tree-db.md) and its text form.
 *
 * One entry per URL the crawler met. Its text form, what 'cgisnap ls DIR'
 * prints (and what old trees kept in .cgisnap/manifest), is one line per
 * URL, tab separated, "-" for an empty field, a '#' line naming the columns:
 *
 *   target  key  status  type  bytes  sha256  render_ms  changed  location
 *
 * target is the canonical request target ("/doku.php?id=start"); key the
 * file (urlkey.h) or "-" for redirects and errors, which store no file;
 * status the HTTP status the origin gave; type its Content-Type; bytes and
 * sha256 describe the stored file; render_ms how long the render took;
 * changed the Unix time the stored bytes last changed; location the
 * absolute redirect target for 3xx. grep and awk read it as it is:
 *
 *   cgisnap ls DIR | awk -F'\t' '$3 >= 300 && $3 < 400 { print $1, $9 }'
 *
 * Each entry also holds what its render read, for watch ('cgisnap ls
 * --deps' prints "TARGET\tKIND\tPATH" lines): KIND R (file read or
 * stat'ed: any change matters), E (only
 * checked for existence: its creation or removal matters), L (directory
 * listed: a name appearing or going away in it matters), C (directory
 * whose files the page read wholesale, as a backlinks page reads every
 * page: any change of a file directly in it matters; one C line stands for
 * what would be hundreds of R lines), U (the render could not be traced,
 * PATH being the program that ran: any change may matter), A (looked
 * for, read or checked, and not there: its creation matters; its being
 * gone later is no change, so a catch-up never counts it) or W (written
 * by the render, a database the pages read and write alike: never a
 * dependency of another kind, but a write by anyone else re-renders
 * the page).
 *
 * In tree.db the dependencies are grouped by (kind, directory) into sets
 * stored once and shared by every page that read the same names there
 * (DokuWiki's ~200 PHP files per page become a few references).
 * manifest_save writes, in one transaction, only the rows of entries that
 * differ from what the database holds (a page that answers a new render as
 * it did before keeps its row, render_ms and changed too: a run that
 * changed nothing writes nothing), and deletes those of entries gone.
 * Readers (serve, config, a second process) see one committed state or
 * the next, never half of a save (SQLite's WAL mode).
 *
 * The pending table is the durable record of publishes between two saves:
 * before a file is renamed into place, its entry is committed there
 * (manifest_journal), so that a run killed at any moment (kill -9, a full
 * disk) leaves every file it published recorded. The next writer replays
 * it with manifest_recover() (rows whose file really holds the recorded
 * bytes become entries, hence cgisnap's own files, prunable as any
 * other); a crawl empties it once the manifest is saved. The files of
 * URLs gone are removed only after the save that drops their entries,
 * which commits them as pending removals (manifest_save_removing).
 *
 * A tree of an older cgisnap (.cgisnap/manifest, deps and journal text
 * files) is migrated on first use: the files are imported in one
 * transaction, then removed, with a log line.
 */
#ifndef CGISNAP_MANIFEST_H
#define CGISNAP_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "base/buf.h"
#include "base/hashmap.h"
#include "tree/tree.h"

/* The database's file name in the tree's metadata directory. */
#define MANIFEST_DB_FILE "tree.db"
/* The text files of trees made before tree.db, migrated on first use. */
#define MANIFEST_TEXT_FILE "manifest"
#define MANIFEST_DEPS_FILE "deps"
#define MANIFEST_JOURNAL_FILE "journal"

struct manifest_entry {
	char *target;
	char *key;          /* NULL: no file */
	int status;
	char *content_type; /* NULL: none */
	long long bytes;
	char sha256[65];    /* "" when no file */
	long render_ms;
	time_t changed;
	char *location;     /* NULL unless a redirect */
	struct strlist deps_read;     /* R */
	struct strlist deps_exist;    /* E */
	struct strlist deps_listed;   /* L */
	struct strlist deps_contents; /* C */
	struct strlist deps_untraced; /* U */
	struct strlist deps_absent;   /* A */
	struct strlist deps_wrote;    /* W */
};

struct manifest_lazy;

struct manifest {
	struct hashmap entries; /* target -> struct manifest_entry * */
	struct manifest_lazy *lazy; /* NULL: entries is the whole manifest */
};

#define MANIFEST_INIT { HASHMAP_INIT, NULL }

/* Read the tree's entries and dependencies in one read transaction
 * (migrating an old tree first); a tree without a database gives an empty
 * manifest. -1 with err naming the database (or an old file's line). */
int manifest_load(struct manifest *m, struct tree *t, char *err);
/* Make the database hold m, in one transaction: only the rows of entries
 * that changed since the last load or save (of this process) are written,
 * those of entries no longer in m deleted. Creates the database. */
int manifest_save(const struct manifest *m, struct tree *t, char *err);
/* manifest_save, committing in the same transaction each entry of gone
 * (NULL: none) as a pending removal: the caller removes their files once
 * this returned (a reader never finds an entry whose file is gone), then
 * calls manifest_journal_reset. A run killed before it removed them
 * leaves them to manifest_recover, which removes each file that still
 * holds the recorded bytes. */
int manifest_save_removing(const struct manifest *m, const struct manifest *gone, struct tree *t, char *err);
/* manifest_save_removing for a writer that knows what it changed (a
 * watch batch, serve --fill): changed holds only the entries rendered or
 * altered since the last load or save, dropped (NULL: none) the targets
 * whose rows go; every other row stays as the database holds it. Its
 * cost grows with the change, never with the tree. A process that loaded
 * compares with what it read; one that did not (serve --fill) holds
 * nothing per row: each target of changed and dropped is looked up in
 * the save's transaction (url's unique index), and the sets a target
 * with a row refers to are read by a scan of url_dep (its key is
 * (set_id, url_id)), a cost paid only for a target that has a row: a
 * fill is nearly always of a target that has none. */
int manifest_save_delta(const struct manifest *changed, const struct strlist *dropped, const struct manifest *gone,
			struct tree *t, char *err);
/* When the sources were last handled: a crawl's save that changed
 * something and a watch batch set it to now (watch compares it with the
 * sources' times at start-up); a migrated tree has its old manifest's
 * time. The file's own time cannot say it: a reader's checkpoint writes
 * the file. manifest_handled: 0, 1 when never set, -1 with err. */
int manifest_handled(struct tree *t, struct timespec *when, char *err);
int manifest_set_handled(struct tree *t, char *err);
/* Move what is committed from the write-ahead log into tree.db itself, so
 * that the log does not grow with every batch. whole: wait for readers
 * and empty the log, so that a copy of tree.db alone (a mirror, watch
 * --exec) holds the whole manifest; otherwise copy only what no reader
 * holds, waiting for none, and empty the log file when all of it was
 * copied and no reader is in it. Best effort while readers read. */
int manifest_checkpoint(struct tree *t, bool whole, char *err);
/* The entry of target as the database holds it now (one indexed row, no
 * dependencies; the last committed state): *out NULL when none (the
 * caller frees it). For readers that keep no manifest in memory (serve).
 * Thread-safe, and concurrent: each calling thread reads on a read-only
 * connection of its own (up to 32 threads, then two share one), opened
 * on its first call and closed by manifest_db_close. -1 with err. */
int manifest_lookup(struct tree *t, const char *target, struct manifest_entry **out, char *err);
/* Whether another process committed to the tree's database since this
 * one last loaded it (false without a database). */
bool manifest_changed(struct tree *t);
/* Rows written and deleted by this process's saves so far (tests, bench). */
long long manifest_rows_written(const struct tree *t);
/* Entries this process's saves compared with the database's rows so far:
 * a delta save compares only its own (tests, bench). */
long long manifest_rows_compared(const struct tree *t);

/* The targets of the pages whose recorded dependencies hold path with
 * kind ('R', 'E', 'L', 'C' or 'U'), appended to out (repeats possible):
 * lookups in the database's indexes, never a scan of the pages, so
 * their cost does not grow with the tree. kind 0: every page depending
 * on anything strictly below the directory path; path NULL: every page
 * with an untraced (U) render. A tree without a database has none. */
int manifest_dependents(struct tree *t, char kind, const char *path, struct strlist *out, char *err);

/* Each dependency set of a kind in kinds whose directory want(arg, dir)
 * takes (dir its path, ending in '/'; asked once per directory, the
 * database locked): each(arg, dir, kind, names), names '\n' separated,
 * once the database is unlocked (each may take other locks). Its cost grows with the
 * directories and the sets of those taken, not with the pages (watch's
 * catch-up: the recorded paths of the directories that changed). -1
 * with err. */
int manifest_each_set(struct tree *t, const char *kinds, bool (*want)(void *arg, const char *dir),
		      void (*each)(void *arg, const char *dir, char kind, const char *names), void *arg, char *err);

/* Commit e as pending: call before publishing e's file, and publish
 * only when this succeeded. Thread-safe (one transaction per entry). */
int manifest_journal(struct tree *t, const struct manifest_entry *e, char *err);
/* Replay the pending rows into m (after manifest_load, or into an empty
 * m that a delta save then writes; the tree locked): an entry whose file
 * holds the recorded size and sha256 is put, others are dropped; temp
 * files interrupted runs left beside them are removed. A pending removal
 * whose file could not be removed is put only when its target has no
 * entry, in m nor in the database. *recovered counts the entries put.
 * An entry new to m has no dependencies (a pending row holds none): its
 * target is added to new_targets (unless NULL), for the caller to render
 * again where it follows sources. */
int manifest_recover(struct manifest *m, struct tree *t, long *recovered, struct strlist *new_targets, char *err);
/* 1 when the database holds pending rows (manifest_recover has work),
 * 0 when not (or there is no database), -1 with err. */
int manifest_has_pending(struct tree *t, char *err);
/* Delete the pending rows, once the manifest saved records all they held. */
int manifest_journal_reset(struct tree *t, char *err);
/* Close the tree's database (tree_close calls it). */
void manifest_db_close(struct tree *t);

/* A lazy manifest holds none of the tree's entries until asked for one:
 * manifest_find reads it from the database (its row and dependencies)
 * and keeps it until manifest_forget. A writer that must not hold every
 * URL in memory (watch, between full crawls) keeps one: its memory and
 * start-up then grow with what a batch touches, not with the tree. What
 * it holds is the database's last committed state, and what the writer
 * put since; the writer saves with manifest_save_delta. */
/* Make m lazy on t's database (what m held is released; t NULL: m is an
 * ordinary, empty manifest again). */
void manifest_set_lazy(struct manifest *m, struct tree *t);
bool manifest_is_lazy(const struct manifest *m);
/* target's entry: manifest_get's, or, in a lazy manifest, read from the
 * database on first ask and kept (NULL: none). Thread-safe on a lazy
 * manifest, whose reads take its lock; a read that fails gives NULL and
 * is kept for manifest_lazy_error. */
struct manifest_entry *manifest_find(struct manifest *m, const char *target);
/* Whether target has an entry, without reading its dependencies. */
bool manifest_has(struct manifest *m, const char *target);
/* An entry that records the file key (NULL: none): a lazy manifest asks
 * the database's index of keys. Not for an ordinary one (NULL). */
struct manifest_entry *manifest_find_by_key(struct manifest *m, const char *key);
/* -1 with err when a read of the lazy manifest failed since the last
 * manifest_forget: what the caller decided from it may be wrong. */
int manifest_lazy_error(struct manifest *m, char *err);
/* Forget a failed read (a failed read is never kept as an answer: the
 * entry is read again when asked for). */
void manifest_lazy_error_clear(struct manifest *m);
/* Every target (a lazy manifest's from the database), appended to out. */
int manifest_targets(struct manifest *m, struct strlist *out, char *err);
/* How many entries a lazy manifest read from the database so far (its
 * whole life: manifest_forget leaves the count). */
long long manifest_lazy_reads(const struct manifest *m);
/* Whether the manifest has no entry (a lazy one asks the database). */
bool manifest_empty(struct manifest *m);
/* A lazy manifest drops what it read (the entries freed), and the tree's
 * copy of the saved rows (what manifest_load kept for the next save's
 * comparisons) goes with them: after a save, nothing per URL is held. */
void manifest_forget(struct manifest *m);

struct manifest_entry *manifest_get(const struct manifest *m, const char *target);
/* Take ownership of e (allocated with manifest_entry_new), replacing and
 * freeing any entry for the same target. */
void manifest_put(struct manifest *m, struct manifest_entry *e);
/* Remove and free the entry for target, if any. */
void manifest_remove(struct manifest *m, const char *target);
size_t manifest_count(const struct manifest *m);

/* The dependency kinds, in the order the deps file lists them. */
#define MANIFEST_DEP_KINDS "RELCUAW"
/* The list of one kind ('R', 'E', 'L', 'C', 'U', 'A' or 'W'). */
struct strlist *manifest_deps(struct manifest_entry *e, char kind);
size_t manifest_deps_count(const struct manifest_entry *e);

struct manifest_entry *manifest_entry_new(const char *target);
void manifest_entry_free(struct manifest_entry *e);
/* A deep copy of e (dependencies included), for another manifest. */
struct manifest_entry *manifest_entry_dup(const struct manifest_entry *e);
/* Entries sorted by target (an array of borrowed pointers the caller frees). */
struct manifest_entry **manifest_sorted(const struct manifest *m, size_t *n);

/* Free every entry held; a lazy manifest stays lazy. */
void manifest_clear(struct manifest *m);
void manifest_release(struct manifest *m);

/* The text form. One line of an entry, without its newline. */
void manifest_format_entry(struct buf *out, const struct manifest_entry *e);
/* Parse one line (modified in place): 0, or -1 when malformed. */
int manifest_parse_entry(char *line, struct manifest_entry **out);
/* The entries' lines (deps: the dependency lines instead), sorted by
 * target, after the '#' line naming the columns. -1 on a write error. */
int manifest_write_text(const struct manifest *m, bool deps, FILE *f);
/* Read an old tree's manifest and deps files into m and its journal's
 * lines into journal; absent files are empty. -1 with err naming the
 * file and line of a malformed line. */
int manifest_load_text(struct manifest *m, struct strlist *journal, struct tree *t, char *err);

#endif
