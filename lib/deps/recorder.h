/* recorder.h - the dependency policy of the crawl's render hooks (struct
 * dep_recorder): which traced paths become a page's R/E/L/C/U/A/W
 * dependencies, and which paths are the site's own writes. Used by watch
 * and by snapshot, so that both record the same dependencies.
 */
#ifndef CGISNAP_DEPS_RECORDER_H
#define CGISNAP_DEPS_RECORDER_H

#include <pthread.h>
#include <stdbool.h>

#include "base/buf.h"
#include "crawl/crawl.h"
#include "base/hashmap.h"
#include "deps/realpaths.h"

/* The dependency policy of the crawl's hooks (crawl.h): each page keeps
 * the traced paths it read, checked or listed under the roots (the
 * sources and the document root), by its real path when that is under
 * a root too (a page reading through a link under --root depends on the
 * --source the link leads to, where inotify reports), compacted (an
 * existence check of a
 * file also read is dropped; CONTENTS_MIN reads in one directory become
 * one C line for it); a path read or checked that is not there is an A
 * dependency (its creation matters, its absence later is no change);
 * paths any render wrote (a cache, an index, a database) are the site's
 * own state: never a page's R, E or A dependency, and their events start
 * nothing while they are as the renders left them
 * (dep_recorder_own_change, at their real path too); one written by
 * anyone else since re-renders the pages whose renders wrote it
 * (dep_recorder_writers in this process, the pages' W dependencies in
 * the tree for later ones). A written path gone at the end of two runs in
 * a row is forgotten. A
 * render that could not be traced leaves the page a U line naming its
 * program, and a warning, once per program.
 *
 *     struct dep_recorder r;
 *     dep_recorder_init(&r);
 *     strlist_add(&r.roots, "/srv/wiki");
 *     struct crawl_hooks h = dep_recorder_hooks(&r);
 *     crawl_set_hooks(crawl, &h);
 *     ... crawl_full(), crawl_update(), dep_recorder_written(&r, path) ...
 *     crawl_free(crawl); dep_recorder_release(&r);
 */
struct dep_recorder {
	struct strlist roots;     /* absolute directories or files; empty: nothing recorded */
	/* Record paths outside the roots too, but for those starting with
	 * a prefix in skip ("/usr/": the system's directories): a snapshot
	 * does not know watch's sources. */
	bool anywhere;
	struct strlist skip;
	pthread_mutex_t lock;     /* the hooks run on the render threads */
	struct hashmap written;   /* paths a render opened for writing */
	struct hashmap run_written; /* ... of them, those written by this run's renders */
	struct strlist fresh;     /* ... of them, those not written before: older pages'
				   * lists may hold them (on_commit drops them there) */
	size_t round;             /* where the next look for vanished writes goes on */
	struct hashmap vanished;  /* written paths found gone after the last run */
	struct hashmap left;      /* written path -> struct left_as: how the last run
				   * that wrote it left it */
	struct hashmap writers;   /* written path -> struct strlist *: the pages whose
				   * renders wrote it (in this process; the pages' W
				   * dependencies keep it for later runs) */
	struct hashmap untraced;  /* programs already warned about */
	struct real_paths real;   /* the traced paths' real paths, for a run */
	pthread_mutex_t chosen_lock;
	struct hashmap chosen;    /* traced path -> what it is recorded as (recorder.c), for a run */
};

/* The version of this policy: a tree's dependencies recorded by another
 * (depstate.h) are not taken as they are. Raise it whenever what is
 * recorded for the same renders changes. */
#define DEPREC_POLICY 2

void dep_recorder_init(struct dep_recorder *r);
/* The hooks to give crawl_set_hooks(); r must outlive the crawl's runs. */
struct crawl_hooks dep_recorder_hooks(struct dep_recorder *r);
/* Whether the recorder can use a traced path (its real path or itself
 * recordable): origin_set_trace_keep's keep, with r as arg. */
bool dep_recorder_keeps(void *arg, const char *path);
/* Whether any render so far wrote path. */
bool dep_recorder_written(struct dep_recorder *r, const char *path);
/* Whether a change of path seen after a run is the renders' own: a
 * render wrote path, and it is as the last run that wrote it left it
 * (there or not, its inode, size and times), or replaced whole since
 * (another inode, or the same inode number with another birth time: a
 * cache made again by a render elsewhere, the web server's), or no run
 * has said how (a path an older cgisnap's renders
 * wrote). A write in place by anyone else (an editor, a maintenance
 * script, the web server) to a file the renders write too, a database,
 * is a change: the file is no longer as left. */
bool dep_recorder_own_change(struct dep_recorder *r, const char *path);
/* The pages whose renders (in this process) wrote path, appended to out
 * unless there: what a change of it by someone else re-renders, since a
 * file the renders write is no page's dependency (a database the pages
 * read and write alike). */
void dep_recorder_writers(struct dep_recorder *r, const char *path, struct strlist *out);
/* Count path as written by a render, one an earlier run's renders wrote:
 * a line of depstate.h's written list, "PATH" or "PATH<TAB>STATE", STATE
 * how that run left it (dep_recorder_written_lines), so that a write by
 * anyone else since is a change. */
void dep_recorder_note_written(struct dep_recorder *r, const char *line);
/* The written paths that exist now, sorted, as lines for
 * dep_recorder_note_written ("PATH<TAB>STATE": its device, inode, size,
 * mtime, ctime and birth time as they are now), appended to out. */
void dep_recorder_written_lines(struct dep_recorder *r, struct strlist *out);
void dep_recorder_release(struct dep_recorder *r);

#endif
