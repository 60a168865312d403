/* manifest.h - DIR/.cgisnap/manifest and DIR/.cgisnap/deps.
 *
 * The manifest is the tree's index: one line per URL the crawler met, tab
 * separated, "-" for an empty field, a '#' line naming the columns:
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
 *   awk -F'\t' '$3 >= 300 && $3 < 400 { print $1, $9 }' DIR/.cgisnap/manifest
 *
 * deps holds what each page's render read, for watch: "TARGET\tKIND\tPATH"
 * lines, KIND being R (file read or stat'ed: any change matters), E (only
 * checked for existence: its creation or removal matters), L (directory
 * listed: a name appearing or going away in it matters) or C (directory
 * whose files the page read wholesale, as a backlinks page reads every
 * page: any change of a file directly in it matters; one C line stands for
 * what would be hundreds of R lines) or U (the render could not be traced,
 * PATH being the program that ran: any change may matter).
 * Both files are replaced atomically (temp + rename), never edited in place,
 * and only when their text changes. A page that answers a new render as
 * it did before keeps its line (render_ms and changed too: the render
 * that gave these bytes), so a run that changed nothing writes nothing.
 *
 * journal is the durable record of publishes between two saves: before a
 * file is renamed into place, its manifest line is appended to it (one
 * write, O_APPEND), so that a run killed at any moment (kill -9, a full
 * disk) leaves every file it published recorded. The next writer replays
 * it with manifest_recover() (lines whose file really holds the recorded
 * bytes become entries, hence cgisnap's own files, prunable as any
 * other); a crawl empties it once the manifest is saved. Lines are the
 * manifest's, each written with a leading newline; a torn line is skipped.
 */
#ifndef CGISNAP_MANIFEST_H
#define CGISNAP_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "buf.h"
#include "hashmap.h"
#include "tree.h"

/* The manifest's file name in the tree's metadata directory (a reader may
 * look at its modification time: watch does). */
#define MANIFEST_FILE "manifest"

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
};

struct manifest {
	struct hashmap entries; /* target -> struct manifest_entry * */
};

#define MANIFEST_INIT { HASHMAP_INIT }

/* Read the tree's manifest and deps; a tree without them gives an empty
 * manifest. -1 with err naming the file and line of a malformed line. */
int manifest_load(struct manifest *m, struct tree *t, char *err);
/* Write both files atomically, sorted by target; a file that already
 * holds that text is left alone. */
int manifest_save(const struct manifest *m, struct tree *t, char *err);

/* Append e's line to the journal: call before publishing e's file, and
 * publish only when this succeeded. Thread-safe (one append per line). */
int manifest_journal(struct tree *t, const struct manifest_entry *e, char *err);
/* Replay the journal into m (after manifest_load; the tree locked): an
 * entry whose file holds the recorded size and sha256 is put, others are
 * dropped; temp files interrupted runs left beside them (and in
 * .cgisnap/) are removed.
 * *recovered counts the entries put. */
int manifest_recover(struct manifest *m, struct tree *t, long *recovered, char *err);
/* Empty the journal, once the manifest saved records all it held. */
int manifest_journal_reset(struct tree *t, char *err);

struct manifest_entry *manifest_get(const struct manifest *m, const char *target);
/* Take ownership of e (allocated with manifest_entry_new), replacing and
 * freeing any entry for the same target. */
void manifest_put(struct manifest *m, struct manifest_entry *e);
/* Remove and free the entry for target, if any. */
void manifest_remove(struct manifest *m, const char *target);
size_t manifest_count(const struct manifest *m);

/* The dependency kinds, in the order the deps file lists them. */
#define MANIFEST_DEP_KINDS "RELCU"
/* The list of one kind ('R', 'E', 'L', 'C' or 'U'). */
struct strlist *manifest_deps(struct manifest_entry *e, char kind);
size_t manifest_deps_count(const struct manifest_entry *e);

struct manifest_entry *manifest_entry_new(const char *target);
void manifest_entry_free(struct manifest_entry *e);
/* A deep copy of e (dependencies included), for another manifest. */
struct manifest_entry *manifest_entry_dup(const struct manifest_entry *e);
/* Entries sorted by target (an array of borrowed pointers the caller frees). */
struct manifest_entry **manifest_sorted(const struct manifest *m, size_t *n);

void manifest_release(struct manifest *m);

#endif
