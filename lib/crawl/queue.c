/* queue.c - the crawl's queue (engine.h): what joins it and in which
 * order, the yields of finished jobs applied in the order the jobs were
 * queued, the URLs that wait their family's turn under --max-pages
 * (budget.h), and the next job a worker takes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "crawl/engine.h"
#include "base/log.h"
#include "base/relist.h"
#include "base/xalloc.h"

/* Once a run, when the URLs queued (not those waiting: budget.h) reach
 * 80% of --max-pages. Called locked. */
static void warn_near_bound_locked(struct crawl *c)
{
	long max = c->cfg->max_pages;
	size_t queued = c->seen.count - c->budget.waiting;
	if (max > 0 && !c->near_bound_said && (long)queued * 5 >= max * 4) {
		c->near_bound_said = true;
		log_warn("%zu of --max-pages %ld URLs: is a calendar or pager looping? "
			 "(--exclude it, or raise --max-pages; 0: no bound)", queued, max);
	}
}

/* A crawl that runs away (a pager or calendar linking ?n=N+1 for ever)
 * is said while it runs, not only when --max-pages stops it: once when
 * the URLs reach 80% of the bound, once per URL family that keeps taking
 * new values. Called locked, for each target new to the run. */
static void warn_runaway_locked(struct crawl *c, const char *target, long depth)
{
	char *msg = loops_note(&c->loops, target, depth);
	if (msg) {
		log_warn("%s", msg);
		free(msg);
	}
	warn_near_bound_locked(c);
}

/* Put j at the end of the queue, numbered. Called locked. */
void append_job_locked(struct crawl *c, struct job *j)
{
	j->seq = c->next_seq++;
	if (c->tail)
		c->tail->next = j;
	else
		c->head = j;
	c->tail = j;
	c->queued++;
}

struct job *requeue_locked(struct crawl *c, const char *target)
{
	struct job *j = xcalloc(1, sizeof *j);
	j->target = xstrdup(target);
	append_job_locked(c, j);
	return j;
}

/* A job for target (taken), at the end of the queue. Called locked. */
static struct job *new_job_locked(struct crawl *c, char *target, long depth, unsigned how)
{
	const struct crawl_config *cfg = c->cfg;
	struct job *j = xcalloc(1, sizeof *j);
	j->target = target;
	j->depth = depth;
	j->optional = how & ENQUEUE_OPTIONAL;
	j->requisite = how & ENQUEUE_REQUISITE;
	j->seed = how & ENQUEUE_SEED;
	j->alone = relist_match(cfg->alone_re, cfg->nalone, target);
	j->ticket = views_admit(&c->views, target);
	append_job_locked(c, j);
	return j;
}

/* Queue target unless seen, excluded or past a bound: its job, or NULL
 * when it was not queued (or waits its family's turn: budget.h). Called
 * locked. */
struct job *enqueue_locked(struct crawl *c, const char *target, long depth, unsigned how)
{
	const struct crawl_config *cfg = c->cfg;
	if (hashmap_get(&c->seen, target))
		return NULL;
	if (!(how & ENQUEUE_FORCED)) {
		if (c->have_robots && !robots_allowed(&c->robots, target))
			return NULL;
		if (cfg->ninclude && !(how & ENQUEUE_REQUISITE) &&
		    !relist_match(cfg->include_re, cfg->ninclude, target))
			return NULL;
		if (relist_match(cfg->exclude_re, cfg->nexclude, target))
			return NULL;
		if (c->update_mode && (manifest_has(&c->manifest, target) || views_noindex_known(&c->views, target)))
			return NULL; /* known page: only its dependencies re-render it */
		if (cfg->max_depth >= 0 && depth > cfg->max_depth) {
			c->dropped_depth++;
			return NULL;
		}
		if (cfg->max_pages > 0 && (long)(c->seen.count - c->budget.waiting) >= cfg->max_pages) {
			c->dropped_pages++;
			return NULL;
		}
	}
	hashmap_put(&c->seen, target, (void *)(intptr_t)(depth + 1));
	bool may_wait = !(how & (ENQUEUE_FORCED | ENQUEUE_OPTIONAL | ENQUEUE_REQUISITE | ENQUEUE_SEED));
	bool now = budget_note(&c->budget, target, depth, how, may_wait);
	warn_runaway_locked(c, target, depth);
	if (!now)
		return NULL; /* its family's head is full: it waits for the queue's end */
	return new_job_locked(c, xstrdup(target), depth, how);
}

/* budget_round's taker: a URL whose turn came joins the queue. */
static void admit_waiting(void *arg, char *target, long depth, unsigned how)
{
	new_job_locked(arg, target, depth, how);
	warn_near_bound_locked(arg);
}

static void forget_waiting(void *arg, const char *target)
{
	struct crawl *c = arg;
	hashmap_remove(&c->seen, target);
	c->dropped_pages++;
}

/* The queue ran dry: the URLs that waited behind their family's head
 * join it, one per family in turn, as far as --max-pages has room; those
 * beyond are links not crawled. The count queued. */
long admit_waiting_round(struct crawl *c)
{
	pthread_mutex_lock(&c->lock);
	long room = c->cfg->max_pages - (long)(c->seen.count - c->budget.waiting);
	size_t n = budget_round(&c->budget, room, admit_waiting, c);
	if (!n)
		budget_drop(&c->budget, forget_waiting, c);
	pthread_mutex_unlock(&c->lock);
	return (long)n;
}

void job_free(struct job *j)
{
	free(j->target);
	free(j->referrer);
	views_ticket_free(j->ticket);
	strlist_clear(&j->yield.resources);
	strlist_clear(&j->yield.links);
	free(j->yield.canonical_to);
	free(j->yield.family_sha256);
	free(j->yield.family_type);
	free(j);
}

/* Insert j into the list at *list, kept in seq order. */
static void insert_by_seq(struct job **list, struct job *j)
{
	while (*list && (*list)->seq < j->seq)
		list = &(*list)->next;
	j->next = *list;
	*list = j;
}

/* What j found, into the queue; what it said, to its families. */
static void apply_yield_locked(struct crawl *c, struct job *j)
{
	struct job_yield *y = &j->yield;
	views_settle(j->ticket, y->view);
	if (y->family_sha256)
		families_note(&c->families, j->target, y->family_sha256, y->family_type);
	unsigned seeded = y->seeds ? ENQUEUE_SEED : 0;
	if (y->canonical_to)
		enqueue_locked(c, y->canonical_to, j->depth, seeded);
	for (size_t i = 0; i < y->resources.n; i++) {
		struct job *r = enqueue_locked(c, y->resources.items[i], j->depth, ENQUEUE_REQUISITE);
		if (r)
			r->referrer = xstrdup(j->target);
	}
	for (size_t i = 0; i < y->links.n; i++)
		enqueue_locked(c, y->links.items[i], j->depth + 1, seeded);
}

void finish_job_locked(struct crawl *c, struct job *j)
{
	j->finished = true;
	insert_by_seq(&c->done, j);
	while (c->done && c->done->seq == c->drain_seq) {
		struct job *d = c->done;
		c->done = d->next;
		c->drain_seq++;
		apply_yield_locked(c, d);
		job_free(d);
	}
}

/* Whether j may not be decided yet: a view candidate whose families
 * have not heard every member queued before it. */
static bool before_its_turn(const struct job *j)
{
	return j->ticket && !j->seed && !j->optional && !views_turn(j->ticket);
}

/* The next job to process: a deferred one whose turn came, else the
 * queue's first that may go (those before their turn are deferred);
 * NULL when none may. Locked. */
struct job *take_job_locked(struct crawl *c)
{
	/* A --render-alone job runs with no other: while it runs nothing
	 * starts, and when it is next, nothing starts before it either
	 * (the renders under way end, then it goes). */
	if (c->alone_running)
		return NULL;
	for (struct job **pp = &c->deferred; *pp; pp = &(*pp)->next) {
		struct job *j = *pp;
		if (!before_its_turn(j)) {
			if (j->alone && c->busy > 0)
				return NULL;
			*pp = j->next;
			c->queued--;
			return j;
		}
	}
	while (c->head) {
		struct job *j = c->head;
		if (!before_its_turn(j) && j->alone && c->busy > 0)
			return NULL;
		c->head = j->next;
		if (!c->head)
			c->tail = NULL;
		if (!before_its_turn(j)) {
			c->queued--;
			return j;
		}
		insert_by_seq(&c->deferred, j);
	}
	return NULL;
}

static void free_jobs(struct job *j)
{
	while (j) {
		struct job *next = j->next;
		job_free(j);
		j = next;
	}
}

/* A stopped run leaves jobs that will never run, or never drain. Locked. */
void drop_queue_locked(struct crawl *c)
{
	c->stop_cut |= c->head || c->deferred || c->done || c->budget.waiting;
	budget_clear(&c->budget);
	free_jobs(c->head);
	free_jobs(c->deferred);
	free_jobs(c->done);
	c->head = c->tail = c->deferred = c->done = NULL;
	c->queued = 0;
}
