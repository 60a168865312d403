/* crawl.c - the crawl engine: its workers and the runs (the queue: queue.c). */
#include "crawl/crawl.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "crawl/body.h"
#include "crawl/canonical.h"
#include "crawl/claims.h"
#include "crawl/commit.h"
#include "crawl/engine.h"
#include "crawl/kept.h"
#include "crawl/page.h"
#include "crawl/progress.h"
#include "crawl/tally.h"
#include "tree/publish.h"
#include "base/cpus.h"
#include "base/log.h"
#include "base/relist.h"
#include "base/xalloc.h"

void crawl_config_init(struct crawl_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->max_pages = CRAWL_MAX_PAGES;
	cfg->max_depth = -1;
	cfg->loop_warn = CRAWL_LOOP_WARN;
	cfg->noindex_sample = CRAWL_NOINDEX_SAMPLE;
	cfg->max_parse = CRAWL_MAX_PARSE;
	cfg->jobs = cpus_usable();
	cfg->gzip = true;
	cfg->prune = true;
}

int crawl_config_compile(struct crawl_config *cfg, char *err)
{
	if (relist_compile(&cfg->include, 0, "--include", &cfg->include_re, &cfg->ninclude, err) < 0 ||
	    relist_compile(&cfg->exclude, 0, "--exclude", &cfg->exclude_re, &cfg->nexclude, err) < 0 ||
	    relist_compile(&cfg->strip, 0, "--strip", &cfg->strip_re, &cfg->nstrip, err) < 0 ||
	    relist_compile(&cfg->render_alone, 0, "--render-alone", &cfg->alone_re, &cfg->nalone, err) < 0)
		return -1;
	cfg->render_query_rw = xcalloc(cfg->render_query.n ? cfg->render_query.n : 1, sizeof *cfg->render_query_rw);
	for (size_t i = 0; i < cfg->render_query.n; i++) {
		const char *spec = cfg->render_query.items[i];
		if (rewrite_parse(&cfg->render_query_rw[i], spec, "--render-query", err) < 0)
			return -1;
		cfg->nrender_query++;
		/* What is added must be parameters: the target stays a path. */
		const char *add = cfg->render_query_rw[i].url;
		if (strpbrk(add, "?# \t") || add[0] == '&' || !strchr(add, '='))
			return err_set(err, "bad --render-query rule '%s': expected 'REGEX => NAME=VALUE[&...]'", spec);
	}
	return 0;
}

void crawl_config_release(struct crawl_config *cfg)
{
	relist_free(cfg->include_re, cfg->ninclude);
	relist_free(cfg->exclude_re, cfg->nexclude);
	relist_free(cfg->strip_re, cfg->nstrip);
	relist_free(cfg->alone_re, cfg->nalone);
	cfg->include_re = cfg->exclude_re = cfg->strip_re = cfg->alone_re = NULL;
	cfg->ninclude = cfg->nexclude = cfg->nstrip = cfg->nalone = 0;
	for (size_t i = 0; i < cfg->nrender_query; i++)
		rewrite_release(&cfg->render_query_rw[i]);
	free(cfg->render_query_rw);
	cfg->render_query_rw = NULL;
	cfg->nrender_query = 0;
}

/* c->seed_targets: what each seed names (seeds not of the site name
 * nothing: crawl_full says so). */
static void seed_targets(struct crawl *c)
{
	const struct strlist *seeds = &c->cfg->seeds;
	for (size_t i = 0; i < (seeds->n ? seeds->n : 1); i++) {
		char *abs = url_resolve(c->site->url, seeds->n ? seeds->items[i] : c->site->url);
		char *t = abs ? site_target(c->site, abs) : NULL;
		if (t)
			strlist_add_owned(&c->seed_targets, t);
		free(abs);
	}
}

/* The whole manifest into c->manifest (an ordinary one from now on),
 * with the pending rows an interrupted run, or a failed save, left
 * replayed: the entries of the files it published are put (keeping the
 * dependencies their rows record) and saved at once, not at the end of
 * the next run, so that a reader (serve) describes those files as they
 * are. The time the sources were handled stays (manifest_set_handled). */
static int load_whole(struct crawl *c, char *err)
{
	if (manifest_is_lazy(&c->manifest)) {
		crawl_forget(c);
		manifest_set_lazy(&c->manifest, NULL);
	}
	long recovered = 0;
	if (manifest_load(&c->manifest, c->tree, err) < 0 ||
	    manifest_recover(&c->manifest, c->tree, &recovered, &c->recovered_new, err) < 0)
		return -1;
	c->recovered += recovered;
	if (recovered && (publish_sync_dirs(c->tree->fd, err) < 0 || manifest_save(&c->manifest, c->tree, err) < 0 ||
			  manifest_journal_reset(c->tree, err) < 0))
		return -1;
	return 0;
}

/* A lazy manifest before a run: where pending rows wait (a run killed,
 * or a save that failed, whose entries a lazy manifest forgot), the
 * whole manifest is read once to replay them (load_whole), then let go;
 * else nothing is read. */
static int replay_pending(struct crawl *c, char *err)
{
	int pending = manifest_has_pending(c->tree, err);
	if (pending > 0 && load_whole(c, err) < 0)
		pending = -1;
	if (pending != 0 || !manifest_is_lazy(&c->manifest))
		crawl_forget(c);
	return pending < 0 ? -1 : 0;
}

struct crawl *crawl_new(const struct crawl_config *cfg, struct origin *origin, const struct site *site,
			struct tree *tree, char *err)
{
	struct crawl *c = xcalloc(1, sizeof *c);
	c->cfg = cfg;
	c->origin = origin;
	c->site = site;
	c->tree = tree;
	pthread_mutex_init(&c->lock, NULL);
	/* Monotonic: the progress ticker's timed waits must not follow the
	 * wall clock. */
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &ca);
	pthread_condattr_destroy(&ca);
	int rc = cfg->lazy_manifest ? replay_pending(c, err) : load_whole(c, err);
	if (rc < 0) {
		crawl_free(c);
		return NULL;
	}
	/* What a killed run left in .cgisnap/ (manifest_recover's job, when
	 * it runs). */
	if (cfg->lazy_manifest && tree->meta_fd >= 0)
		publish_clean_temps(tree->meta_fd, MANIFEST_TEXT_FILE);
	if (!cfg->lazy_manifest)
		index_owned(c);
	kept_load(c);
	seed_targets(c);
	return c;
}

void crawl_set_removal_check(struct crawl *c, bool (*ok)(void *arg), void *arg)
{
	c->removal_ok = ok;
	c->removal_arg = arg;
}

/* Whether this run may remove files (asked once, after its renders). */
static bool removal_allowed(struct crawl *c)
{
	return !c->removal_ok || c->removal_ok(c->removal_arg);
}

const struct strlist *crawl_recovered_new(const struct crawl *c)
{
	return &c->recovered_new;
}

struct manifest *crawl_manifest(struct crawl *c)
{
	return &c->manifest;
}

void crawl_forget(struct crawl *c)
{
	if (!manifest_is_lazy(&c->manifest)) {
		manifest_set_lazy(&c->manifest, c->tree);
		c->lazy_reads_seen = 0; /* a new count */
	}
	manifest_forget(&c->manifest);
	owned_release(c);
}

void crawl_set_hooks(struct crawl *c, const struct crawl_hooks *h)
{
	c->hooks = *h;
}

/* Tell the hook about a render (e NULL: it failed, or records nothing).
 * Unlocked: renders run at once, the hook locks what it shares. */
void on_render(struct crawl *c, struct manifest_entry *e, const struct origin_response *rs)
{
	if (c->hooks.on_render)
		c->hooks.on_render(c->hooks.arg, e, rs);
}

const struct manifest_entry *entry_by_now_locked(struct crawl *c, const char *target)
{
	const struct manifest_entry *e = manifest_get(&c->next, target);
	if (!e && c->update_mode)
		e = manifest_find(&c->manifest, target); /* not rendered now: as it was */
	return e;
}

bool stopped(const struct crawl *c)
{
	return c->cfg->stop && *c->cfg->stop;
}

static void *worker(void *arg)
{
	struct crawl *c = arg;
	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct job *j;
		while (!(j = take_job_locked(c)) && c->busy > 0 && !stopped(c))
			pthread_cond_wait(&c->cond, &c->lock);
		if (!j && c->deferred && !stopped(c)) {
			/* Nothing runs, yet a view waits for its turn: cannot
			 * be (its earlier members run, or wait for earlier
			 * ones still); should it, it goes now, not for ever. */
			j = c->deferred;
			c->deferred = j->next;
			c->queued--;
			views_settle(j->ticket, VIEW_HEARD_NOTHING);
		}
		if (!j)
			break;
		if (stopped(c)) {
			c->stop_cut = true;
			job_free(j);
			break;
		}
		c->busy++;
		c->alone_running = j->alone;
		snprintf(c->current, sizeof c->current, "%s", j->target);
		pthread_mutex_unlock(&c->lock);

		page_process(c, j);

		pthread_mutex_lock(&c->lock);
		if (j->alone)
			c->alone_running = false;
		finish_job_locked(c, j);
		c->busy--;
		progress_show_locked(c, false);
		pthread_cond_broadcast(&c->cond);
	}
	c->running--;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* Run the queue to its end (or a stop) on cfg->jobs threads. */
static void run_queue(struct crawl *c)
{
	long n = c->cfg->jobs > 0 ? c->cfg->jobs : 1;
	pthread_t *threads = xcalloc((size_t)n, sizeof *threads);
	long started = 0;
	pthread_mutex_lock(&c->lock);
	c->running = n;
	pthread_mutex_unlock(&c->lock);
	for (; started < n; started++)
		if (pthread_create(&threads[started], NULL, worker, c) != 0)
			break;
	pthread_mutex_lock(&c->lock);
	c->running -= n - started; /* those that never started */
	pthread_mutex_unlock(&c->lock);
	if (started == 0) { /* no thread could start: work on this one */
		c->running = 1;
		worker(c);
	} else if (c->cfg->progress != CRAWL_PROGRESS_NONE) {
		progress_tick_until_done(c);
	}
	for (long i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
}

static void begin_run(struct crawl *c, struct crawl_result *res, bool update)
{
	if (c->owned_stale)
		index_owned(c);
	memset(res, 0, sizeof *res);
	c->res = res;
	c->update_mode = update;
	c->dropped_depth = c->dropped_pages = 0;
	c->stop_cut = false;
	c->next_seq = c->drain_seq = 0;
	loops_init(&c->loops, c->cfg->loop_warn);
	/* watch's batches render what changed, the bound as found */
	budget_clear(&c->budget);
	budget_init(&c->budget, update ? 0 : c->cfg->max_pages);
	/* A full crawl samples the families afresh; an update (watch's
	 * batches) cuts what the last full crawl found, or nothing. */
	if (!update)
		kept_init_views(c);
	views_new_run(&c->views);
	families_release(&c->families);
	families_set_now(&c->families, (long long)time(NULL));
	c->near_bound_said = false;
	c->fetched = 0;
	strlist_clear(&c->not_found_404);
	strlist_clear(&c->missing_requisites);
	hashmap_release(&c->outcomes);
	free_canonicals(c);
	c->prev_total = update ? 0 : (long)manifest_count(&c->manifest);
	c->current[0] = '\0';
	res->recovered = c->recovered;
	c->recovered = 0;
	clock_gettime(CLOCK_MONOTONIC, &c->start);
}

/* Run the queue, then settle the slash forms, until nothing is left. */
static void run_all(struct crawl *c)
{
	long again;
	do {
		run_queue(c);
		again = settle_slash_forms(c);
		again += settle_canonicals(c);
		if (!again && !stopped(c))
			again = admit_waiting_round(c);
	} while (again > 0 && !stopped(c));
	if (stopped(c)) {
		pthread_mutex_lock(&c->lock);
		drop_queue_locked(c);
		pthread_mutex_unlock(&c->lock);
	}
}

static void finish_result(struct crawl *c, struct crawl_result *res)
{
	res->seconds = progress_seconds(c);
	res->bounded = c->dropped_depth || c->dropped_pages;
	if (c->dropped_pages) {
		char *families = budget_families(c, 3);
		res->bound_note = xasprintf("--max-pages %ld reached: %ld links not crawled; the URLs by family: %s",
					    c->cfg->max_pages, c->dropped_pages, families ? families : "");
		free(families);
		res->cut_short = true;
	}
	else if (c->dropped_depth)
		res->bound_note = xasprintf("--max-depth %ld reached: %ld links not crawled",
					    c->cfg->max_depth, c->dropped_depth);
	res->interrupted = stopped(c);
	res->not_reached = c->stop_cut;
	views_cut_list(&c->views, &res->views_cut);
	kept_volatile_lines(c, &res->volatile_rules);
	res->complete = !res->failed && !res->held && !res->bounded && !res->errors.n && !res->interrupted;
	skip_notes(c, res);
	strlist_clear(&c->not_found_404);
	strlist_clear(&c->missing_requisites);
	/* An update renders a few pages: what their parameters did says
	 * nothing about the site. */
	if (!c->update_mode)
		families_report(&c->families, &res->family_notes, &res->family_table);
	families_release(&c->families);
	hashmap_release(&c->seen);
	hashmap_release(&c->outcomes);
	free_canonicals(c);
	loops_release(&c->loops);
	budget_clear(&c->budget);
	if (c->cfg->progress == CRAWL_PROGRESS_BAR)
		progress_end();
}

/* Keep the site's "not found" page as .cgisnap/404.html. */
static void save_not_found_page(struct crawl *c)
{
	if (!c->cfg->not_found || !*c->cfg->not_found || c->tree->meta_fd < 0)
		return;
	char err[ERR_LEN];
	struct origin_request rq = { c->cfg->not_found, "GET", NULL };
	struct origin_response rs;
	origin_response_init(&rs);
	int rc = origin_render(c->origin, &rq, &rs, err);
	on_render(c, NULL, &rs);
	if (rc == 0 && rs.warning)
		log_warn("%s: %s", c->cfg->not_found, rs.warning);
	if (rc == 0 && (rs.status == 404 || rs.status == 410) &&
	    rs.content_type && !strncasecmp(rs.content_type, "text/html", 9) && rs.body.len) {
		strip_volatile(c->cfg, &rs.body);
		if (publish_data(c->tree->meta_fd, "404.html", rs.body.data, rs.body.len, false, err) < 0)
			log_warn("%s", err);
	}
	origin_response_release(&rs);
}

int crawl_full(struct crawl *c, struct crawl_result *res, char *err)
{
	/* A full crawl compares every page with its entry: the whole
	 * manifest, for this run. */
	if (manifest_is_lazy(&c->manifest)) {
		if (load_whole(c, err) < 0) {
			crawl_forget(c);
			memset(res, 0, sizeof *res); /* what the caller reports: nothing ran */
			return -1;
		}
		index_owned(c);
	}
	begin_run(c, res, false);
	pthread_mutex_lock(&c->lock);
	progress_show_locked(c, true);
	pthread_mutex_unlock(&c->lock);

	/* robots.txt first, alone: its rules decide what else is crawled. */
	robots_release(&c->robots);
	memset(&c->robots, 0, sizeof c->robots);
	c->have_robots = false;
	pthread_mutex_lock(&c->lock);
	enqueue_locked(c, ROBOTS_TARGET, 0, ENQUEUE_OPTIONAL | ENQUEUE_FORCED);
	pthread_mutex_unlock(&c->lock);
	struct job *first = c->head;
	c->head = c->tail = NULL;
	c->queued = 0;
	page_process(c, first);

	pthread_mutex_lock(&c->lock);
	finish_job_locked(c, first);
	if (c->cfg->seeds.n == 0) {
		char *t = site_target(c->site, c->site->url);
		struct job *j = enqueue_locked(c, t ? t : "/", 0, ENQUEUE_FORCED);
		if (j)
			j->seed = true;
		families_set_default_seed(&c->families, t ? t : "/");
		free(t);
	}
	for (size_t i = 0; i < c->cfg->seeds.n; i++) {
		char *abs = url_resolve(c->site->url, c->cfg->seeds.items[i]);
		char *t = abs ? site_target(c->site, abs) : NULL;
		struct job *j = t ? enqueue_locked(c, t, 0, ENQUEUE_FORCED) : NULL;
		if (j)
			j->seed = true;
		if (!t)
			add_failure_locked(c, c->cfg->seeds.items[i], "seed is not a URL of the site", NULL);
		free(t);
		free(abs);
	}
	enqueue_locked(c, SITEMAP_TARGET, 0, ENQUEUE_OPTIONAL);
	for (size_t i = 0; c->have_robots && i < c->robots.sitemaps.n; i++) {
		char *abs = url_resolve(c->site->url, c->robots.sitemaps.items[i]);
		char *t = abs ? site_target(c->site, abs) : NULL;
		if (t)
			enqueue_locked(c, t, 0, ENQUEUE_OPTIONAL);
		free(t);
		free(abs);
	}
	pthread_mutex_unlock(&c->lock);

	run_all(c);
	if (!stopped(c)) {
		save_not_found_page(c);
		check_not_found(c, res);
		missing_requisites_note(c, res);
	}
	finish_result(c, res);
	kept_save(c, !res->interrupted);
	int rc = commit_run(c, c->cfg->prune && res->complete && removal_allowed(c), err);
	if (c->cfg->lazy_manifest)
		crawl_forget(c);
	return rc;
}

int crawl_update(struct crawl *c, const struct strlist *targets, struct crawl_result *res, char *err)
{
	if (manifest_is_lazy(&c->manifest)) {
		/* A read that failed before the run (watch's picks, which only
		 * order the pages) is read again by the run, if asked. */
		manifest_lazy_error_clear(&c->manifest);
		if (replay_pending(c, err) < 0) {
			memset(res, 0, sizeof *res); /* what the caller reports: nothing ran */
			return -1;
		}
	}
	begin_run(c, res, true);
	pthread_mutex_lock(&c->lock);
	/* In the order given (watch's: the edited page first), but a
	 * --render-alone target (a feed that renders every page it lists)
	 * after the rest: it holds up every render while it runs. */
	for (int alone = 0; alone < 2; alone++)
		for (size_t i = 0; i < targets->n; i++)
			if (relist_match(c->cfg->alone_re, c->cfg->nalone, targets->items[i]) == alone)
				enqueue_locked(c, targets->items[i], 0, ENQUEUE_FORCED);
	pthread_mutex_unlock(&c->lock);
	run_all(c);
	finish_result(c, res);
	kept_save(c, true);

	/* Pages not rendered now stay as they are (commit_update). Pages
	 * that now answer 404 go at once: watch has no later prune. */
	int rc = commit_run(c, removal_allowed(c), err);
	/* Read for this run: by the caller before it too (watch's picks). */
	res->entries_read = manifest_lazy_reads(&c->manifest) - c->lazy_reads_seen;
	c->lazy_reads_seen += res->entries_read;
	if (c->cfg->lazy_manifest)
		crawl_forget(c);
	return rc;
}

void crawl_free(struct crawl *c)
{
	if (!c)
		return;
	manifest_release(&c->manifest);
	manifest_release(&c->next);
	owned_release(c);
	strlist_clear(&c->recovered_new);
	hashmap_release(&c->seen);
	hashmap_release(&c->outcomes);
	free_canonicals(c);
	strlist_clear(&c->seed_targets);
	loops_release(&c->loops);
	budget_clear(&c->budget);
	families_release(&c->families);
	views_release(&c->views);
	buf_release(&c->views_saved);
	volatiles_release(&c->volatiles);
	free_claims(c);
	free_demoted(c);
	robots_release(&c->robots);
	strlist_clear(&c->not_found_404);
	strlist_clear(&c->missing_requisites);
	drop_queue_locked(c);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	free(c);
}
