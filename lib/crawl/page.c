/* page.c - one page's way: render, take by status, parse, publish, record. */
#include "crawl/page.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crawl/archive.h"
#include "crawl/canonical.h"
#include "crawl/claims.h"
#include "crawl/excerpt.h"
#include "crawl/links.h"
#include "crawl/store.h"
#include "tree/publish.h"
#include "base/sha256.h"
#include "base/spill.h"
#include "base/xalloc.h"

/* The target as the origin is asked for it: with the query parameters of
 * the first --render-query rule that matches added (a fresh string), or
 * NULL when none does. */
static char *render_target(const struct crawl_config *cfg, const char *target)
{
	for (size_t i = 0; i < cfg->nrender_query; i++) {
		char *add = rewrite_apply(&cfg->render_query_rw[i], target);
		if (!add)
			continue;
		char *asked = xasprintf("%s%s%s", target, strchr(target, '?') ? "&" : "?", add);
		free(add);
		return asked;
	}
	return NULL;
}

/* The first bytes of rs's body, at most max, and their count in *n:
 * where it is in memory, else read into part from the file it waits in;
 * NULL when that read failed (load_body will say why). */
static const char *body_start(const struct origin_response *rs, size_t max, struct buf *part, size_t *n)
{
	if (!rs->body_in_file) {
		*n = rs->body.len < max ? rs->body.len : max;
		return buf_str(&rs->body);
	}
	char why[ERR_LEN];
	long long want = rs->body_size < (long long)max ? rs->body_size : (long long)max;
	if (spill_read(rs->body_fd, rs->body_off, want, part, "response body", why) < 0)
		return NULL;
	*n = part->len;
	return buf_str(part);
}

/* The start of an error response's body as text lines (appended to
 * out, at most max), when it is text; the origin's reason instead for a
 * path it refused. */
static void error_text(const struct origin_response *rs, size_t max, struct strlist *out)
{
	if (rs->refused) {
		strlist_add(out, rs->refused);
		return;
	}
	if (!excerpt_is_text(rs->content_type))
		return;
	struct buf part = BUF_INIT;
	size_t n;
	const char *text = body_start(rs, EXCERPT_SCAN_MAX, &part, &n);
	if (text)
		excerpt_lines(text, n, excerpt_is_html(rs->content_type), max, EXCERPT_LINE_MAX, out);
	buf_release(&part);
}

/* At -v, what a failed render wrote, or what an error response said,
 * prefixed with the target: the user sees "could not find
 * config-localhost.php", not only a status. */
static void show_failure_text(const char *target, const struct origin_response *rs, bool failed)
{
	if (!log_verbose())
		return;
	struct strlist lines = STRLIST_INIT;
	if (failed && rs->failed_output)
		excerpt_lines(rs->failed_output, strlen(rs->failed_output), true, EXCERPT_LINES,
			      EXCERPT_LINE_MAX, &lines);
	else if (!failed)
		error_text(rs, EXCERPT_LINES, &lines);
	for (size_t i = 0; i < lines.n; i++) {
		if (failed)
			log_info("%s: output: %s", target, lines.items[i]);
		else
			log_info("%s: %d: %s", target, rs->status, lines.items[i]);
	}
	strlist_clear(&lines);
}

/* A seed that answers an error fails the run: nothing else could be
 * reached from it, and a snapshot of nothing is no success. The message
 * for crawl_result.errors; the caller frees it. */
static char *seed_error(const char *target, const struct origin_response *rs)
{
	struct strlist first = STRLIST_INIT;
	error_text(rs, 1, &first);
	char *msg = first.n ? xasprintf("the seed '%s' answered %d: %s", target, rs->status, first.items[0])
			    : xasprintf("the seed '%s' answered %d", target, rs->status);
	strlist_clear(&first);
	return msg;
}

/* A target a --canonical rule matches is never rendered: it is recorded
 * as the rule's 302 to to, and to is crawled instead (a seed's
 * replacement is a seed). When a rule matches to as well, every client
 * would be sent on again (a loop, or a chain): the target fails instead,
 * naming both rules. Unlocked. */
static void record_canonical(struct crawl *c, struct job *j, const char *to, size_t rule)
{
	size_t again;
	char *next = site_canonical_redirect(c->site, to, &again);
	pthread_mutex_lock(&c->lock);
	if (next) {
		char *why = xasprintf("--canonical '%s' rewrites it to '%s', which --canonical '%s' "
				      "rewrites again: a rule's URL must match no rule",
				      c->site->canonical[rule].spec, to, c->site->canonical[again].spec);
		fail_locked(c, j->target, why, NULL);
		free(why);
	} else {
		struct manifest_entry *e = manifest_entry_new(j->target);
		e->status = 302;
		e->location = site_url_for(c->site, to);
		e->changed = time(NULL);
		manifest_put(&c->next, e);
		tally_locked(c, j->target, OUTCOME_REDIRECT, 302, 0, 0);
		c->res->canonical++;
		j->yield.canonical_to = xstrdup(to);
		j->yield.seeds = j->seed;
	}
	pthread_mutex_unlock(&c->lock);
	free(next);
}

/* links_extract's callback: a link into the page's lists, as a target
 * of the site (others are not followed). */
static void collect_link(void *arg, const char *url, unsigned flags)
{
	struct found_links *f = arg;
	if ((flags & LINK_NOFOLLOW) && !f->c->cfg->follow_nofollow)
		return;
	char *t = site_target(f->c->site, url);
	if (t)
		strlist_add_owned(flags & LINK_RESOURCE ? &f->resources : &f->targets, t);
}


static void page_init(struct page *p, struct crawl *c, const struct job *j)
{
	memset(p, 0, sizeof *p);
	p->j = j;
	p->url = site_url_for(c->site, j->target);
	p->asked = render_target(c->cfg, j->target);
	origin_response_init(&p->rs);
	p->body = (struct body_file){ -1, false, 0, 0 };
	p->links = (struct found_links){ c, STRLIST_INIT, STRLIST_INIT };
	p->fate = PAGE_RECORDED;
}

static void page_release(struct page *p)
{
	close_body(&p->body);
	manifest_entry_free(p->e);
	strlist_clear(&p->links.targets);
	strlist_clear(&p->links.resources);
	strlist_clear(&p->written);
	strlist_clear(&p->removed);
	free(p->seed_failed);
	free(p->redirect_to);
	origin_response_release(&p->rs);
	free(p->url);
	free(p->asked);
}

/* Whether the hold hook holds the page (static_file: the file under
 * --root it is a copy of, read now; NULL for a render). */
static bool held(struct crawl *c, struct page *p, const char *static_file)
{
	return c->hooks.hold && c->hooks.hold(c->hooks.hold_arg, p->e, &p->rs, static_file);
}

/* Step 1: ask the origin. On success p->e is the entry being made for
 * the response (the hooks have seen it); a failed render is a failure,
 * or a skip when the output was over --max-output. */
static void render(struct crawl *c, struct page *p)
{
	const struct job *j = p->j;
	struct origin_request rq = { p->asked ? p->asked : j->target, "GET", NULL };
	if (origin_render(c->origin, &rq, &p->rs, p->err) < 0) {
		on_render(c, NULL, &p->rs);
		show_failure_text(j->target, &p->rs, true);
		if (p->rs.over_max_output) {
			p->fate = PAGE_SKIPPED;
			p->skip = CRAWL_SKIP_OVERSIZE;
		} else {
			p->fate = PAGE_FAILED;
		}
		return;
	}
	p->answered = true;
	if (p->rs.warning)
		log_warn("%s: %s", j->target, p->rs.warning);
	if (p->rs.status >= 400 && !j->optional)
		show_failure_text(j->target, &p->rs, false);
	p->e = manifest_entry_new(j->target);
	p->e->status = p->rs.status;
	p->e->render_ms = p->rs.render_ms;
	p->e->changed = time(NULL);
	on_render(c, p->e, &p->rs);
	/* A static file is asked about once read (take_page). */
	if (!j->optional && !p->rs.static_path && held(c, p, NULL))
		p->fate = PAGE_HELD;
}

/* A 3xx: recorded as the redirect, its target followed. */
static void take_redirect(struct crawl *c, struct page *p)
{
	const struct job *j = p->j;
	char *abs = url_resolve(p->url, p->rs.location);
	if (!abs) {
		snprintf(p->err, sizeof p->err, "bad Location '%.200s'", p->rs.location);
		p->fate = PAGE_FAILED;
		return;
	}
	p->e->location = abs;
	char *t = site_target(c->site, abs);
	if (t)
		strlist_add_owned(&p->links.targets, t);
	if (j->seed && t)
		p->seed_moved = true;
	else if (j->seed)
		p->seed_failed = xasprintf("the seed '%s' redirects to '%.300s', outside the site "
					   "'%s': check --site-url", j->target, abs, c->site->url);
}

/* Whether the page's robots meta says it is no page of the static site
 * (crawl.h: enum robots_meta). A seed is one whatever it says. */
static bool not_a_page(const struct crawl *c, const struct page *p, const struct page_meta *meta)
{
	return meta->noindex && !p->j->seed && c->cfg->robots_meta != ROBOTS_META_IGNORE;
}

/* Bring the body into memory to parse it for links and --strip (only
 * up to --max-parse: bigger bodies stay in their file and are streamed),
 * and find its links. 0, or -1 with p->err. */
static int parse_links(struct crawl *c, struct page *p, struct page_meta *meta)
{
	const struct crawl_config *cfg = c->cfg;
	struct origin_response *rs = &p->rs;
	const char *type = rs->content_type;
	long long size = p->body.fd >= 0 ? p->body.len : (long long)rs->body.len;
	bool wanted = has_links(type) || (cfg->nstrip && is_text_type(type));
	bool parse = wanted && size <= cfg->max_parse;
	if (wanted && !parse)
		log_debug("%s was not parsed for links or --strip: %lld bytes, larger than --max-parse %lld",
			  p->url, size, cfg->max_parse);
	if (parse && p->body.fd >= 0) {
		close_body(&p->body);
		if (load_body(rs, p->err) < 0)
			return -1;
	}
	if (parse && is_text_type(type))
		strip_volatile(cfg, &rs->body);
	if (parse && has_links(type))
		links_extract(type, p->url, buf_str(&rs->body), rs->body.len, collect_link, &p->links, meta);
	if (meta->nofollow && (cfg->robots_meta == ROBOTS_META_ALL || not_a_page(c, p, meta)))
		strlist_clear(&p->links.targets);
	return 0;
}

/* The sha256 of the body as it will be stored, into p->e. */
static int hash_body(struct page *p)
{
	const struct body_file *f = &p->body;
	if (f->fd < 0) {
		sha256_hex(buf_str(&p->rs.body), p->rs.body.len, p->e->sha256);
		return 0;
	}
	return spill_sha256_hex(f->fd, f->off, f->len, p->e->sha256,
				p->rs.static_path ? p->rs.static_path : p->url, p->err);
}

/* One more render of p, to learn what changes on every render (from it
 * and p's body, and times near now from p's body and its stored file
 * prev): how many rules it taught, -1 when the render could not be
 * compared. Unlocked. */
static long learning_render(struct crawl *c, struct page *p, const struct buf *prev)
{
	struct origin_request rq = { p->asked ? p->asked : p->j->target, "GET", NULL };
	struct origin_response again;
	char err[ERR_LEN];
	long learned = -1;
	origin_response_init(&again);
	int rc = origin_render(c->origin, &rq, &again, err);
	on_render(c, NULL, &again); /* what it wrote is the render's own */
	if (rc < 0 || again.status != p->rs.status || origin_body_size(&again) > c->cfg->max_parse ||
	    load_body(&again, err) < 0)
		goto out;
	/* A source the page read that changed meanwhile (watch's hold hook
	 * says) makes the two renders differ in content, not in what
	 * changes on every render: nothing is learned from them. */
	if (held(c, p, NULL))
		goto out;
	strip_volatile(c->cfg, &again.body);
	const struct buf *now = &p->rs.body;
	bool twin = again.body.len == now->len && !memcmp(buf_str(&again.body), buf_str(now), now->len);
	pthread_mutex_lock(&c->lock);
	/* Times to the second often agree in two renders made in the same
	 * second: those near now are learned from the stored file too. */
	learned = (long)volatiles_learn_times(&c->volatiles, buf_str(now), now->len, buf_str(prev), prev->len,
					      time(NULL));
	if (!twin)
		learned += (long)volatiles_learn(&c->volatiles, buf_str(now), now->len, buf_str(&again.body),
						 again.body.len, buf_str(prev), prev->len);
	c->volatile_idle = learned > 0 ? 0 : c->volatile_idle + 1;
	pthread_mutex_unlock(&c->lock);
out:
	origin_response_release(&again);
	return learned;
}

/* Whether p's body is its stored file's (prev) once the spans known are
 * left out. Unlocked. */
static bool same_but_volatile(struct crawl *c, struct page *p, const struct buf *prev)
{
	const struct buf *now = &p->rs.body;
	pthread_mutex_lock(&c->lock);
	bool same = volatiles_same(&c->volatiles, buf_str(now), now->len, buf_str(prev), prev->len);
	pthread_mutex_unlock(&c->lock);
	return same;
}

/* Whether learning renders are still worth their cost: not once
 * VOLATILE_IDLE_RENDERS of them in a row taught nothing (every page of
 * the site changed, a template edited: each would cost a render more). */
static bool still_learning(struct crawl *c)
{
	pthread_mutex_lock(&c->lock);
	bool learning = c->volatile_idle < VOLATILE_IDLE_RENDERS;
	pthread_mutex_unlock(&c->lock);
	return learning;
}

/* p's body differs from prev beyond the spans known: renders that may
 * teach more, and whether it is the same after all. A second learning
 * render is made only when the first taught something and did not
 * explain the change: two renders may share a value by chance (a parse
 * time of 0.005 seconds both times). */
static bool learn_volatile(struct crawl *c, struct page *p, const struct buf *prev)
{
	for (int i = 0; i < 2 && still_learning(c); i++) {
		long learned = learning_render(c, p, prev);
		/* Asked even when it taught nothing: another page's render
		 * may have taught it meanwhile. */
		if (learned >= 0 && same_but_volatile(c, p, prev))
			return true;
		if (learned <= 0)
			return false;
	}
	return false;
}

/* A page whose text differs from its stored file only in spans that
 * change on every render (volatile.h: request ids, render times, nonces)
 * keeps that file: its body becomes the file's bytes, so that it is
 * unchanged and nothing is written. When the spans known do not explain
 * the difference, the page is rendered once more to learn them. */
static void settle_volatile(struct crawl *c, struct page *p)
{
	struct manifest_entry *e = p->e;
	const char *type = p->rs.content_type;
	if (p->body.fd >= 0 || p->static_file || !is_text_type(type))
		return;
	/* The manifest is not changed while pages render: no lock needed
	 * (a lazy one locks its reads). */
	const struct manifest_entry *old = manifest_find(&c->manifest, e->target);
	if (!old || !old->key || !*old->sha256 || !strcmp(old->sha256, e->sha256) || !old->content_type ||
	    strcmp(old->content_type, type))
		return;
	char err[ERR_LEN], hex[65];
	struct buf prev = BUF_INIT;
	/* A file that is not what cgisnap published is the publish step's
	 * to refuse. */
	if (publish_read(c->tree->fd, old->key, c->cfg->max_parse, &prev, err) < 0)
		goto out;
	sha256_hex(buf_str(&prev), prev.len, hex);
	if (strcmp(hex, old->sha256))
		goto out;
	if (!same_but_volatile(c, p, &prev) && !learn_volatile(c, p, &prev))
		goto out;
	struct buf rendered = p->rs.body;
	p->rs.body = prev;
	prev = rendered;
	memcpy(e->sha256, old->sha256, sizeof e->sha256);
out:
	buf_release(&prev);
}

/* A 2xx: its links parsed, its file keyed and published, unless the
 * page asks not to be stored (robots noindex, Cache-Control no-store,
 * with the respect options) or the hold hook holds a static file. */
static void take_page(struct crawl *c, struct page *p)
{
	const struct crawl_config *cfg = c->cfg;
	struct origin_response *rs = &p->rs;
	if (open_body(rs, &p->body, p->err) < 0) {
		p->fate = PAGE_FAILED;
		return;
	}
	p->static_file = rs->static_path != NULL;
	/* load_body lets go of it: kept for the hold hook */
	char *static_path = p->static_file && !p->j->optional && c->hooks.hold ? xstrdup(rs->static_path) : NULL;
	struct page_meta meta = { .noindex = false };
	if (parse_links(c, p, &meta) < 0) {
		p->fate = PAGE_FAILED;
	} else if (not_a_page(c, p, &meta) || (cfg->respect_no_store && no_store(rs))) {
		strlist_clear(&p->links.resources); /* nothing will display them */
		p->fate = PAGE_SKIPPED;
		p->skip = not_a_page(c, p, &meta) ? CRAWL_SKIP_NOINDEX : CRAWL_SKIP_NO_STORE;
	} else if (canonical_alias(c, p, &meta)) {
		strlist_clear(&p->links.resources); /* that page shows its own */
	} else if (hash_body(p) < 0) {
		p->fate = PAGE_FAILED;
	} else if (static_path && held(c, p, static_path)) {
		/* A file under --root is read here, not by the render: whether
		 * it was being written meanwhile is asked now. */
		p->fate = PAGE_HELD;
	} else {
		settle_volatile(c, p);
		if (page_publish(c, p) < 0)
			p->fate = PAGE_FAILED;
		else if (p->stored == OUTCOME_REDIRECT)
			make_redirect_to(c, p->e, p->redirect_to);
	}
	close_body(&p->body);
	free(static_path);
}

/* Is rs an archive made on the fly: by its headers, else by its first
 * bytes (a tarball sent with PHP's default text/html)? */
static bool is_archive(const struct origin_response *rs)
{
	if (archive_response(rs->content_type, origin_header(rs, "Content-Disposition")))
		return true;
	struct buf part = BUF_INIT;
	size_t n;
	const char *head = body_start(rs, ARCHIVE_HEAD_MAX, &part, &n);
	bool archive = head && archive_content(rs->content_type, origin_header(rs, "Content-Encoding"), head, n);
	buf_release(&part);
	return archive;
}

/* Step 2: take the response by its status. */
static void take(struct crawl *c, struct page *p)
{
	const struct job *j = p->j;
	const struct origin_response *rs = &p->rs;
	if (j->seed && rs->status >= 400)
		p->seed_failed = seed_error(j->target, rs);
	if (rs->status >= 300 && rs->status < 400 && rs->location) {
		take_redirect(c, p);
	} else if (rs->status == 404 || rs->status == 410) {
		if (j->optional) /* no robots.txt: nothing to count either */
			p->fate = PAGE_ABSENT;
	} else if (rs->status >= 200 && rs->status < 300 && !c->cfg->keep_archives && !rs->static_path &&
		   !j->optional && is_archive(rs)) {
		/* A file under --root is the site's own, whatever it holds, and
		 * a sitemap.xml.gz robots.txt names is no snapshot tarball. */
		p->fate = PAGE_SKIPPED;
		p->skip = CRAWL_SKIP_ARCHIVE;
	} else if (rs->status >= 200 && rs->status < 300) {
		take_page(c, p);
	} else {
		snprintf(p->err, sizeof p->err, "HTTP status %d", rs->status);
		p->fate = PAGE_FAILED;
	}
}

/* robots.txt's rules, read once: its job runs alone, before the
 * workers start, so c->robots needs no lock. */
static void read_robots(struct crawl *c, struct page *p)
{
	char why[ERR_LEN];
	struct origin_response *rs = &p->rs;
	if (p->j->optional && p->e && p->fate != PAGE_ABSENT && !strcmp(p->j->target, ROBOTS_TARGET) &&
	    rs->status == 200 && !c->have_robots &&
	    (rs->static_path ? rs->static_size : origin_body_size(rs)) <= c->cfg->max_parse &&
	    load_body(rs, why) == 0) {
		robots_parse(&c->robots, buf_str(&rs->body), rs->body.len);
		c->have_robots = true;
	}
}

/* Step 3: what the page gave, into the run's result and manifest; its
 * links, and what it says to its families, into the job's yield (for
 * the queue, in queue order: finish_job_locked). Locked. */
static void record_locked(struct crawl *c, struct page *p, struct job_yield *y)
{
	const struct job *j = p->j;
	struct manifest_entry *e = p->e;
	struct publish_paths paths = { &p->written, &p->removed };
	paths_merge(c, &paths);
	if (!j->optional) {
		c->fetched++;
		if (p->answered && p->fate != PAGE_HELD && p->rs.status == 404) {
			strlist_add(&c->not_found_404, j->target);
			if (j->requisite)
				strlist_add_owned(&c->missing_requisites,
						  xasprintf("%s\t%s", j->target, j->referrer ? j->referrer : ""));
		}
	}
	if (p->seed_failed && p->fate != PAGE_HELD) {
		strlist_add_owned(&c->res->errors, p->seed_failed);
		p->seed_failed = NULL;
	}
	switch (p->fate) {
	case PAGE_RECORDED: {
		bool published = p->stored == OUTCOME_NEW || p->stored == OUTCOME_CHANGED ||
				 p->stored == OUTCOME_UNCHANGED;
		if (published) {
			c->res->bytes += e->bytes;
			if (p->stored != OUTCOME_UNCHANGED)
				strlist_add(&c->res->changed_keys, e->key);
		}
		enum outcome o = e->location ? OUTCOME_REDIRECT
				 : e->status == 404 || e->status == 410 ? OUTCOME_NOT_FOUND
				 : p->stored;
		tally_locked(c, j->target, o, e->status, e->render_ms, e->key ? e->bytes : 0);
		strlist_add(&c->res->rendered, j->target);
		if (!c->update_mode && e->key) {
			y->family_sha256 = xstrdup(e->sha256);
			y->family_type = e->content_type ? xstrdup(e->content_type) : NULL;
		}
		if (e->key && e->status >= 200 && e->status < 300) {
			y->view = VIEW_HEARD_STORED;
			views_note_noindex(&c->views, j->target, true);
		}
		manifest_put(&c->next, e);
		p->e = NULL; /* the run's manifest has it */
		break;
	}
	case PAGE_ABSENT:
		break;
	case PAGE_FAILED: /* links found before a publish failed are followed still */
		fail_locked(c, j->target, p->err, &p->rs);
		break;
	case PAGE_HELD:
		hold_locked(c, j->target, &p->rs);
		return;
	case PAGE_SKIPPED:
		skip_locked(c, j->target, p->skip, &p->rs);
		if (p->skip == CRAWL_SKIP_NOINDEX) {
			y->view = VIEW_HEARD_NOINDEX;
			views_note_noindex(&c->views, j->target, false);
		}
		break;
	}
	y->resources = p->links.resources;
	y->links = p->links.targets;
	p->links.resources = (struct strlist)STRLIST_INIT;
	p->links.targets = (struct strlist)STRLIST_INIT;
	y->seeds = p->seed_moved;
}

/* Whether j's target is one of a family of views (views.h): not
 * rendered, counted as skipped. A seed always is rendered. Asked at the
 * job's turn (the worker takes it then). */
static bool skip_view(struct crawl *c, const struct job *j)
{
	if (j->seed || j->optional || !j->ticket)
		return false;
	pthread_mutex_lock(&c->lock);
	bool cut = views_cut(&c->views, j->ticket) != NULL;
	if (cut) {
		skip_locked(c, j->target, CRAWL_SKIP_VIEW, NULL);
		views_settle(j->ticket, VIEW_HEARD_NOTHING); /* the next member need not wait */
	}
	pthread_mutex_unlock(&c->lock);
	return cut;
}

void page_process(struct crawl *c, struct job *j)
{
	size_t rule;
	if (skip_view(c, j))
		return;
	char *canon = site_canonical_redirect(c->site, j->target, &rule);
	if (canon) {
		record_canonical(c, j, canon, rule);
		free(canon);
		return;
	}
	struct page p;
	page_init(&p, c, j);
	render(c, &p);
	if (p.answered && p.fate == PAGE_RECORDED)
		take(c, &p);
	read_robots(c, &p);
	pthread_mutex_lock(&c->lock);
	record_locked(c, &p, &j->yield);
	pthread_mutex_unlock(&c->lock);
	page_release(&p);
}
