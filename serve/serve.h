/* serve/serve.h - what the parts of 'cgisnap serve' share.
 *
 * serve.c      command line, start, main loop (signals, inotify, log
 *              flushing), graceful stop
 * handler.c    one request: method, target, cache, conditionals, ranges
 * meta.c       the tree's settings and 404 page, reloadable; lookups in
 *              tree.db; --fill's entries until saved
 * cache.c      files as ready-made libmicrohttpd responses (cache.h)
 * treewatch.c  inotify on the tree, turned into cache invalidations
 * fallback.c   --fallback/--fill/--dynamic: pages from the origin
 * daemons.c    the HTTP daemons: one per thread, SO_REUSEPORT, limits
 * accesslog.c, http.c, safeopen.c, listen.c: one job each
 * From lib/, shared with config: reqpath.h (the request-target guard)
 * and answer.h (what the tree answers for a URL).
 *
 * Threads: one libmicrohttpd daemon per worker thread (daemons.c) runs
 * handler.c; the main thread runs everything else (inotify, signals, log
 * flushing, manifest saves).
 * Shared state is read under read locks on the hot path: the cache's
 * sharded rwlocks and, on the slow path only, meta's rwlock (held for
 * the settings and --fill's unsaved entries, never while SQLite reads:
 * each worker reads tree.db on a connection of its own, manifest.h).
 */
#ifndef CGISNAP_SERVE_SERVE_H
#define CGISNAP_SERVE_SERVE_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "respond.h"
#include "tree/manifest.h"
#include "tree/tree.h"
#include "url/url.h"

struct cache;
struct accesslog;
struct fallback;

struct serve_config {
	const char *dir;          /* the tree, NULL with --dynamic alone */
	long threads;
	long jobs;                /* renders at once (--fallback, --dynamic): render threads, workers */
	long cache_mb;
	long idle_timeout_s;
	long max_connections;
	long max_per_ip;
	long header_timeout_s;
	const char *cache_control; /* NULL: send none */
	bool fallback, fill, dynamic;
	bool any_dir;              /* DIR may be a plain directory (no .cgisnap/) */
	/* --fill bounds (fallback.c): entries and bytes this server stores at
	 * most, and the crawl rules a target must pass to be stored. */
	long fill_max;
	long long fill_max_bytes;
	const struct strlist *fill_include, *fill_exclude;
};

/* The tree's own files, reloaded when inotify sees them change. The
 * manifest is never held in memory: each target is looked up in tree.db
 * (manifest_lookup, on a connection of the serving thread's own), after
 * --fill's entries not yet saved, whatever the tree's size. */
struct meta {
	pthread_rwlock_t lock;
	struct site site;             /* query policy for canonical targets */
	/* --fill's entries not yet in tree.db, only those: fills stored
	 * since the last save, and the ones that save is writing (saving,
	 * written by the main thread alone, read by all under the lock). */
	struct manifest fills, saving;
	struct fixed_response not_found; /* the 404 page (or a plain one) */
	bool have_site;
	/* Fills between their journal line and their entry in fills: the
	 * journal is emptied at a save only when none is and fills is
	 * empty, under journal_mu, which each journal line is written under. */
	atomic_int fills_in_flight;
	/* The targets of those fills: answered as missing (their requests
	 * join the render under way), not from the file the fill may have
	 * renamed into place before its entry is in fills ("/x" would be
	 * answered as the unlisted directory x/: a 301 to "/x/"). Target ->
	 * how many (uintptr_t). */
	struct hashmap filling;
	pthread_mutex_t journal_mu;
	bool journaled;               /* pending rows since the last reset (journal_mu) */
	atomic_uint gen;              /* bumped whenever site or manifest change */
	char *default_site_url;       /* meta_init's, for the reloads */
	struct tree *db;              /* the tree, NULL with --dynamic alone */
};
struct server {
	struct serve_config cfg;
	struct tree tree;
	bool have_tree;
	struct meta meta;
	struct cache *cache;
	struct accesslog *log;
	struct fallback *fallback;    /* --fallback or --dynamic */
	/* Fixed answers, made once. */
	struct fixed_response bad_request, not_allowed, precondition_failed, unavailable;
	atomic_long inflight;         /* requests begun and not yet completed */
	struct strlist script_exts;   /* --cgi EXTs, never served as files (reqpath.h) */
};

/* meta.c */

/* Load the site (default_site_url, then the tree's settings) and 404
 * page; t may be NULL (--dynamic without a tree). -1 with err. */
int meta_init(struct meta *m, struct tree *t, const char *default_site_url, char *err);
/* Read the settings again and swap them in (the generation bumped, so
 * that the route cache asks again); the old ones stay when the new ones
 * cannot be read (-1 with err). */
int meta_reload(struct meta *m, struct tree *t, const char *default_site_url, char *err);
/* Read .cgisnap/404.html again. */
void meta_reload_404(struct meta *m, struct tree *t);
/* What the tree records for the canonical target: --fill's unsaved
 * entry, else tree.db's row; *out NULL when none, else a copy the caller
 * frees. -1 with err (the database could not be read). */
int meta_entry(struct meta *m, const char *target, struct manifest_entry **out, char *err);
/* A fill's steps (--fill, fallback.c): meta_fill_begin before checking
 * the file's owner, meta_fill_journal before publishing (publish only
 * when it succeeded), then meta_fill_put (takes e; the generation is
 * bumped) or, when the fill is given up, meta_fill_abort. From begin to
 * put or abort, meta_resolve answers the target as missing. */
void meta_fill_begin(struct meta *m, const char *target);
int meta_fill_journal(struct meta *m, struct tree *t, const struct manifest_entry *e, char *err);
void meta_fill_put(struct meta *m, struct manifest_entry *e);
void meta_fill_abort(struct meta *m, const char *target);
/* Whether a fill of target is under way, or meta changed since gen: an
 * answer read at gen from a file found on disk may be of a fill's
 * half-stored state (renamed into place, its entry not yet put). */
bool meta_fill_since(struct meta *m, const char *target, unsigned gen);
/* Write --fill's entries (manifest_save_delta: only their rows), then
 * empty the journal when no fill is in flight; -1 with err, the entries
 * kept for the next save. Main thread only. */
int meta_save_if_dirty(struct meta *m, struct tree *t, char *err);
void meta_release(struct meta *m);

enum resolve_kind {
	RESOLVE_BAD,      /* not a valid target: 400 */
	RESOLVE_FILE,     /* key and content_type are set */
	RESOLVE_REDIRECT, /* status and location: replay the recorded redirect */
	RESOLVE_GONE,     /* the manifest says 404 or 410 (status) */
	RESOLVE_MISSING,  /* nothing stored: 404, or the origin with --fallback */
};

struct resolution {
	enum resolve_kind kind;
	int status;
	char *target;        /* canonical target (all but RESOLVE_BAD) */
	char *key;
	char *content_type;  /* what to send: the manifest's type, else by extension */
	char *location;
	unsigned gen;        /* meta's generation the answer was read from */
	bool listed;         /* RESOLVE_FILE: the manifest names the key (cgisnap stored it) */
	bool canonical;      /* RESOLVE_REDIRECT made by a --canonical rule of the settings */
	bool slash_form;     /* RESOLVE_FILE: when the file is there, answer a 301 to
			      * location, the target's slash form (answer.h) */
};

/* Map a request target (origin form, already checked by reqpath_check)
 * to what the tree holds for it, the way snapshot stored it: its
 * canonical form, the first --canonical rule matching it (a 302), then
 * answer_for (answer.h), which config follows too.
 * The strings in r are fresh; resolution_release frees them. */
void meta_resolve(struct meta *m, const char *target, struct resolution *r);
void resolution_release(struct resolution *r);

/* handler.c: libmicrohttpd callbacks; cls is the struct server. */
void *handler_begin(void *cls, const char *uri, struct MHD_Connection *c);
enum MHD_Result handler_request(void *cls, struct MHD_Connection *c, const char *url,
				const char *method, const char *version, const char *upload_data,
				size_t *upload_data_size, void **req_cls);
void handler_completed(void *cls, struct MHD_Connection *c, void **req_cls,
		       enum MHD_RequestTerminationCode toe);
/* Free the per-thread pools of request records (after the daemon stopped). */
void handler_release_pools(void);

#endif
