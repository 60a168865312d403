/* engine.h - the crawl's state, shared by the files of the engine
 * (crawl.c, queue.c, page.c, body.c, store.c, claims.c, commit.c,
 * tally.c, progress.c);
 * callers use crawl.h.
 *
 * A run: crawl.c queues the seeds and starts the workers; each worker
 * takes a job and carries its page through page.c's steps (render,
 * parse links, key, publish, record); after the queue, claims.c settles
 * the slash forms and commit.c makes the run's findings the manifest.
 */
#ifndef CGISNAP_CRAWL_ENGINE_H
#define CGISNAP_CRAWL_ENGINE_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "base/hashmap.h"
#include "crawl/budget.h"
#include "crawl/crawl.h"
#include "crawl/families.h"
#include "crawl/loops.h"
#include "crawl/robots.h"
#include "crawl/views.h"
#include "crawl/volatile.h"

/* Targets fetched by convention: their absence is not an error. */
#define ROBOTS_TARGET "/robots.txt"
#define SITEMAP_TARGET "/sitemap.xml"

/* What a finished job gives the run: applied in the order the jobs were
 * queued (drain_locked), never in the order their renders ended, so that
 * what a run queues, which views it cuts and where --max-pages stops
 * depend on the site, not on --jobs or timing. */
struct job_yield {
	struct strlist resources; /* requisites found: queued at the job's depth */
	struct strlist links;     /* pages found: queued one deeper */
	char *canonical_to;       /* a --canonical rule's URL: queued at the job's depth */
	bool seeds;               /* links and canonical_to are seeds */
	enum view_heard view;     /* what its page says to its view families */
	char *family_sha256;      /* for families_note: the body's hash, or NULL */
	char *family_type;        /* ... and its type */
};

struct job {
	char *target;
	long depth;
	unsigned long seq;        /* its place in the queue's order (append_job_locked) */
	bool finished;            /* processed: its yield waits for the drain */
	struct view_ticket *ticket; /* its place in its view families, or NULL */
	struct job_yield yield;
	bool optional; /* robots.txt, sitemaps: a 404 is neither recorded nor a failure */
	bool own_file; /* stored as itself, never as a redirect to its slash form */
	bool as_page;  /* stored as a page, its rel=canonical aside (canonical.h) */
	bool seed;     /* a --seed (or the default one): an error status fails the run */
	bool requisite; /* a page's stylesheet, script or image (ENQUEUE_REQUISITE) */
	bool alone;     /* --render-alone: no other render runs beside it */
	char *referrer; /* a requisite's: the page that asked for it first */
	struct job *next;
};

struct crawl {
	const struct crawl_config *cfg;
	struct origin *origin;
	const struct site *site;
	struct tree *tree;
	/* The tree as published, and its files by key: changed only between
	 * runs (crawl_new, commit), so the render threads read them unlocked.
	 * A lazy manifest (cfg.lazy_manifest) reads its entries as they are
	 * asked for (manifest_find, under its own lock), and owned is then
	 * empty: owned_get asks the database. */
	struct manifest manifest;
	struct hashmap owned;     /* key -> struct holders: the files cgisnap wrote */
	bool owned_stale;         /* owned lags the manifest (a full crawl's commit): made
				   * again before the next run, not when a snapshot ends */
	long long lazy_reads_seen; /* manifest_lazy_reads at the last run's end */
	long recovered;           /* journal entries manifest_recover put, for the next result */
	struct strlist recovered_new; /* the targets among them new to the manifest, without dependencies */

	/* The lock guards what the render threads share while a run goes:
	 * the queue and its counts, seen, claims, demoted, next, res,
	 * outcomes, fetched and not_found_404, loops, families, views and
 * volatiles, the
	 * bound counts and current. cond wakes a worker waiting for a job,
	 * a takeover waiting for a claim's write, and the progress ticker. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct job *head, *tail;
	long queued;
	/* The drain: jobs numbered as queued, their yields applied in that
	 * order. deferred: views taken from the queue before their turn
	 * (views_turn), done: finished jobs whose turn to drain has not
	 * come; each list in seq order. */
	unsigned long next_seq, drain_seq;
	struct job *deferred, *done;
	int busy;
	bool alone_running;       /* a --render-alone job is being rendered */
	bool update_mode;
	struct hashmap seen;   /* target -> depth + 1 */
	struct hashmap claims; /* key -> struct claim * */
	struct hashmap demoted; /* "/a" -> key: to be a redirect to "/a/" (settle_slash_forms) */
	struct manifest next;  /* what this run found */
	struct crawl_result *res;
	long dropped_depth, dropped_pages;
	bool stop_cut;          /* the stop left a job undone (crawl_result.not_reached) */
	struct loops loops;     /* URL families taking ever-new values */
	struct budget budget;   /* --max-pages across families: the URLs that wait their turn */
	struct families families; /* what the query parameters did: full crawls only */
	struct views views;     /* families of noindex views: sampled by a full crawl, cut by it and the updates after */
	struct buf views_saved; /* .cgisnap/views as last read or written */
	struct volatiles volatiles; /* spans that change on every render (.cgisnap/volatile) */
	long volatile_idle;     /* learning renders in a row that taught nothing (page.c) */
	bool near_bound_said;  /* the 80% of --max-pages line was printed */
	/* robots.txt is rendered alone, before the workers start: set then,
	 * only read after. */
	struct robots robots;
	bool have_robots;
	struct timespec start;
	bool (*removal_ok)(void *arg); /* NULL: always */
	void *removal_arg;
	struct crawl_hooks hooks;
	long fetched;                 /* URLs rendered this run, robots.txt and sitemaps aside */
	struct strlist not_found_404; /* ... of them, those that answered 404 */
	struct strlist missing_requisites; /* ... of them, requisites: "TARGET\tREFERRER" */
	struct hashmap outcomes;      /* target -> enum outcome: its category in the result */
	struct hashmap canonical_from; /* target -> the page its rel=canonical names: recorded
					* as a redirect to it this run (canonical.h) */
	struct strlist seed_targets;  /* the seeds' targets (the site URL's without --seed) */
	long prev_total;              /* URLs the manifest held when the run began (full crawls) */
	char current[256];            /* the target the latest render started on, for the progress */
	long running;                 /* worker threads not yet done */
};

/* How enqueue_locked takes a target. */
#define ENQUEUE_OPTIONAL 1  /* robots.txt, sitemaps: a 404 is no failure */
#define ENQUEUE_FORCED 2    /* a seed: queued unless seen, whatever the rules */
#define ENQUEUE_REQUISITE 4 /* a page's stylesheet, script or image: --include
			     * does not apply (wget -p), --exclude does */
#define ENQUEUE_SEED 8      /* a seed's own link (a redirect's target): a seed */
/* Queue target unless seen, excluded or past a bound (as how says): its
 * job, or NULL when it was not queued. Locked. */
struct job *enqueue_locked(struct crawl *c, const char *target, long depth, unsigned how);
/* Free a job and what it holds. */
void job_free(struct job *j);
/* j is processed: apply its yield, and those of the jobs finished after
 * it that were queued after it, as soon as every job queued before them
 * is done. Locked. */
void finish_job_locked(struct crawl *c, struct job *j);
/* Put j at the end of the queue. Locked. */
void append_job_locked(struct crawl *c, struct job *j);
/* The next job to process (a deferred view whose turn came, else the
 * queue's first that may go), or NULL when none may now. Locked. */
struct job *take_job_locked(struct crawl *c);
/* A stopped run leaves jobs that will never run, or never drain: freed
 * (stop_cut says so). Locked. */
void drop_queue_locked(struct crawl *c);
/* The queue ran dry: the URLs waiting their family's turn (budget.h)
 * join it as far as --max-pages has room, the rest are links not
 * crawled. The count queued. Takes the lock. */
long admit_waiting_round(struct crawl *c);
/* Queue target, already seen this run, to be rendered again (a spelling
 * or an alias whose holder did not keep the file): its job, for the
 * caller to mark how. Locked. */
struct job *requeue_locked(struct crawl *c, const char *target);
/* target's entry as this run leaves it so far: rendered now or, in an
 * update run (which renders some pages only), as the last run left it;
 * NULL for none. Locked. */
const struct manifest_entry *entry_by_now_locked(struct crawl *c, const char *target);
/* A lazy manifest (cfg.lazy_manifest) drops what a run read, and the
 * index of files by key: the next run reads them again. An ordinary one
 * becomes lazy. */
void crawl_forget(struct crawl *c);
/* Whether cfg.stop asks the run to stop. */
bool stopped(const struct crawl *c);
/* Tell the on_render hook about a render (e NULL: it failed, or records
 * nothing). Unlocked: renders run at once, the hook locks what it shares. */
void on_render(struct crawl *c, struct manifest_entry *e, const struct origin_response *rs);

#endif
