/* settle.h - when the batch of gathered changes may start: at once when
 * they end in finished saves, after a short quiet while a save may still
 * be under way, and never later than a cap after the first change. No
 * fixed wait is paid by an edit that is plainly done.
 *
 * A path is left complete by a file closed after writing, a name renamed
 * in (sed -i, gedit's .goutputstream-XXXXXX, any write-temp-then-rename),
 * a directory made, its attributes changed, or an editor's temporary file
 * removed or renamed away. It is left open (a save may be under way) by a
 * write to a file still open, a file created and not closed yet (a link,
 * which never closes, waits out the quiet), a name removed or renamed away
 * (vim renames the file to its backup before writing it anew; a rename's
 * other half comes next), an editor's temporary file that is still there
 * (settle_temp_name), or vim's probe file (4913) removed, until a real
 * name in its directory is saved. The batch is due at once when no path is left
 * open; else when no change came for the quiet window, or at the cap.
 *
 * A file the site's renders write too (a database), written by another
 * program that has not closed it yet (a maintenance script saving an
 * edit in several transactions), keeps the batch waiting until that
 * close, up to the tree cap: a batch started in between renders pages
 * from half the edit, and the writes that finish it, made while renders
 * write the same file, could not be told from theirs. A program that
 * kept it open until the cap (a daemon holding its database) is not
 * waited for again until it is seen closed.
 *
 * A whole tree going or coming is slower than a save and may pause (a
 * loaded machine, a busy disk): a name removed may be the start of a
 * source's deletion (rm -rf removes the files first, the source last),
 * and a source that came back may still be being copied (cp -a, a
 * deploy); an editor too may pause that long between vim's probe and its
 * save, between creating its temporary (sed's, gedit's, x.tmp) and
 * writing it, or between closing the file it saved and removing its
 * backup x~ (so a backup kept, emacs' or vim's 'backup', makes its save
 * wait the tree window too; a swap file or emacs' lock, there while the
 * file is edited, does not). While a removal, a probe or a save's
 * temporary or backup is left open, or after a source came back, the
 * batch waits for the longer tree window of quiet, and the cap is the
 * tree cap's (after a return: counted from the return, not from a change
 * made before it, which would start the re-crawl at once on half a
 * copy).
 *
 * Steps:
 *   1. settle_init(s, window_ms, cap_ms); settle_set_tree() for the
 *      tree window and cap (by default the same as the others).
 *   2. settle_note() for each change of a file, settle_note_now() for a
 *      change that has nothing to finish (a notify, a signal, a poll),
 *      settle_note_back() for a source that came back.
 *   3. settle_due() says when the batch is due and why.
 *   4. settle_reset() when the batch starts (changes from then on are the
 *      next batch's); settle_release() at the end.
 */
#ifndef CGISNAP_WATCH_SETTLE_H
#define CGISNAP_WATCH_SETTLE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/fswatch.h"
#include "base/hashmap.h"

/* Why a batch is due. */
enum settle_why {
	SETTLE_NONE,    /* nothing noted: no batch */
	SETTLE_AT_ONCE, /* every path left complete */
	SETTLE_QUIET,   /* a save may be under way: due when no change came for the window */
	SETTLE_CAP,     /* a save still under way at the cap after the first change */
	SETTLE_BACK,    /* a source came back: due when no change came for the tree window */
	SETTLE_WRITER   /* a file the renders write is open for writing by another program: due at its
			 * close, or at the tree cap */
};

/* With settle_note's flags: the path is a file the site's renders write
 * too (a database). */
#define SETTLE_SHARED FSW_FIRST_FREE

struct settle {
	struct hashmap open;          /* path -> left open (settle.c says how) */
	size_t probes;                /* of them, vim's probe files removed */
	size_t removed;               /* of them, names removed (not temporaries) */
	size_t save_temps;            /* of them, a save's temporaries and backups still there */
	size_t writers;               /* of them, files the renders write, open for writing elsewhere */
	struct hashmap kept_open;     /* such files whose writer kept them open until the cap:
				       * not waited for again until seen closed */
	long long first_ms, last_ms;  /* now_ms of the first and last change noted; 0: none */
	long long back_ms;            /* now_ms a source first came back; 0: none did */
	long window_ms, cap_ms;
	long tree_window_ms, tree_cap_ms; /* a tree going or coming (settle_set_tree) */
	long quiet_ms;               /* --settle: no batch before this much quiet, even at once */
};

void settle_init(struct settle *s, long window_ms, long cap_ms);
/* An application's one save writes several files (DokuWiki: the page, its
 * changelogs, its index): wait for quiet_ms without events before any batch
 * (never past the cap). 0, the default: a finished save starts at once. */
void settle_set_quiet(struct settle *s, long quiet_ms);
/* While a removal is left open, or after a source came back: no batch
 * before window_ms without events, nor later than cap_ms after the first
 * change (after a return: after the return); each never less than
 * settle_init's. */
void settle_set_tree(struct settle *s, long window_ms, long cap_ms);

/* A change of path (absolute) with FSW_* flags (fswatch.h), and
 * SETTLE_SHARED for a file the renders write, at now_ms. */
void settle_note(struct settle *s, const char *path, unsigned flags, long long now);

/* A change with nothing to finish, at now_ms. */
void settle_note_now(struct settle *s, long long now);

/* A source came back at now_ms: a copy of it may be under way. */
void settle_note_back(struct settle *s, long long now);

/* When (now_ms) the batch is due, why in *why; -1 and SETTLE_NONE when
 * nothing was noted. A time already past means now. */
long long settle_due(const struct settle *s, enum settle_why *why);

/* Paths left open now. */
size_t settle_open_count(const struct settle *s);

/* Words for why, for the log ("at once: no save under way"). */
const char *settle_why_text(enum settle_why why);

/* Forget what was noted: the next change starts a new batch (a file the
 * renders write still open elsewhere is not waited for again until it
 * is seen closed). */
void settle_reset(struct settle *s);

void settle_release(struct settle *s);

/* Whether a file name (no directory) is an editor's or tool's temporary
 * or backup file: vim's 4913 probe (and 5036, 5159...) and x~ backup,
 * .swp/.swx/.swo swap files, sed -i's sedXXXXXX, gedit's
 * .goutputstream-XXXXXX, emacs' .#x lock and #x# auto-save, *.tmp. */
bool settle_temp_name(const char *name);

#endif
