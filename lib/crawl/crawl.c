/* crawl.c - the crawler: render, publish, follow links, keep the manifest. */
#include "crawl/crawl.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crawl/archive.h"
#include "crawl/claims.h"
#include "crawl/commit.h"
#include "crawl/engine.h"
#include "crawl/progress.h"
#include "crawl/tally.h"
#include "crawl/excerpt.h"
#include "crawl/families.h"
#include "base/hashmap.h"
#include "crawl/links.h"
#include "base/log.h"
#include "crawl/loops.h"
#include "tree/publish.h"
#include "base/relist.h"
#include "base/sha256.h"
#include "base/spill.h"
#include "url/urlkey.h"
#include "base/xalloc.h"

/* publish_page gave the file to the slash form: the page is recorded as
 * a redirect to it. */
#define STORED_AS_REDIRECT 2
/* The hold hook held a static file read at store time (crawl_hooks.hold). */
#define STORED_HELD 3

void crawl_config_init(struct crawl_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->max_pages = CRAWL_MAX_PAGES;
	cfg->max_depth = -1;
	cfg->loop_warn = CRAWL_LOOP_WARN;
	cfg->max_parse = CRAWL_MAX_PARSE;
	cfg->jobs = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
	cfg->gzip = true;
	cfg->prune = true;
}

int crawl_config_compile(struct crawl_config *cfg, char *err)
{
	if (relist_compile(&cfg->include, 0, "--include", &cfg->include_re, &cfg->ninclude, err) < 0 ||
	    relist_compile(&cfg->exclude, 0, "--exclude", &cfg->exclude_re, &cfg->nexclude, err) < 0 ||
	    relist_compile(&cfg->strip, 0, "--strip", &cfg->strip_re, &cfg->nstrip, err) < 0)
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

void crawl_config_release(struct crawl_config *cfg)
{
	relist_free(cfg->include_re, cfg->ninclude);
	relist_free(cfg->exclude_re, cfg->nexclude);
	relist_free(cfg->strip_re, cfg->nstrip);
	cfg->include_re = cfg->exclude_re = cfg->strip_re = NULL;
	cfg->ninclude = cfg->nexclude = cfg->nstrip = 0;
	for (size_t i = 0; i < cfg->nrender_query; i++)
		rewrite_release(&cfg->render_query_rw[i]);
	free(cfg->render_query_rw);
	cfg->render_query_rw = NULL;
	cfg->nrender_query = 0;
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
	if (manifest_load(&c->manifest, tree, err) < 0 ||
	    manifest_recover(&c->manifest, tree, &c->recovered, &c->recovered_new, err) < 0) {
		crawl_free(c);
		return NULL;
	}
	/* Saved at once, not at the end of the first run: a reader (serve)
	 * then describes the interrupted run's files as they are. The
	 * time the sources were handled stays (manifest_set_handled). */
	if (c->recovered &&
	    (manifest_save(&c->manifest, tree, err) < 0 || manifest_journal_reset(tree, err) < 0)) {
		crawl_free(c);
		return NULL;
	}
	index_owned(c);
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

const struct manifest *crawl_manifest(const struct crawl *c)
{
	return &c->manifest;
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

/* A crawl that runs away (a pager or calendar linking ?n=N+1 for ever)
 * is said while it runs, not only when --max-pages stops it: once when
 * the URLs reach 80% of the bound, once per URL family that keeps taking
 * new values. Called locked, for each target new to the run. */
static void warn_runaway_locked(struct crawl *c, const char *target, long depth)
{
	long max = c->cfg->max_pages;
	char *msg = loops_note(&c->loops, target, depth);
	if (msg) {
		log_warn("%s", msg);
		free(msg);
	}
	if (max > 0 && !c->near_bound_said && (long)c->seen.count * 5 >= max * 4) {
		c->near_bound_said = true;
		log_warn("%zu of --max-pages %ld URLs: is a calendar or pager looping? "
			 "(--exclude it, or raise --max-pages; 0: no bound)", c->seen.count, max);
	}
}

/* Put j at the end of the queue. Called locked. */
void append_job_locked(struct crawl *c, struct job *j)
{
	if (c->tail)
		c->tail->next = j;
	else
		c->head = j;
	c->tail = j;
	c->queued++;
}

/* Queue target unless seen, excluded or past a bound: its job, or NULL
 * when it was not queued. Called locked. */
struct job *enqueue_locked(struct crawl *c, const char *target, long depth, bool optional, bool forced)
{
	const struct crawl_config *cfg = c->cfg;
	if (hashmap_get(&c->seen, target))
		return NULL;
	if (!forced) {
		if (c->have_robots && !robots_allowed(&c->robots, target))
			return NULL;
		if (cfg->ninclude && !relist_match(cfg->include_re, cfg->ninclude, target))
			return NULL;
		if (relist_match(cfg->exclude_re, cfg->nexclude, target))
			return NULL;
		if (c->update_mode && manifest_get(&c->manifest, target))
			return NULL; /* known page: only its dependencies re-render it */
		if (cfg->max_depth >= 0 && depth > cfg->max_depth) {
			c->dropped_depth++;
			return NULL;
		}
		if (cfg->max_pages > 0 && (long)c->seen.count >= cfg->max_pages) {
			c->dropped_pages++;
			return NULL;
		}
	}
	hashmap_put(&c->seen, target, (void *)(intptr_t)(depth + 1));
	warn_runaway_locked(c, target, depth);
	struct job *j = xcalloc(1, sizeof *j);
	j->target = xstrdup(target);
	j->depth = depth;
	j->optional = optional;
	append_job_locked(c, j);
	return j;
}

static bool is_text_type(const char *type)
{
	if (!type)
		return false;
	return !strncasecmp(type, "text/", 5) || strcasestr(type, "xml") || strcasestr(type, "javascript") ||
	       strcasestr(type, "json");
}

static bool has_links(const char *type)
{
	if (!type)
		return false;
	return !strncasecmp(type, "text/html", 9) || !strncasecmp(type, "application/xhtml+xml", 21) ||
	       !strncasecmp(type, "text/css", 8) || strcasestr(type, "xml");
}

/* Remove every match of the --strip regexes. NUL bytes split the text:
 * regexec cannot see past them. */
static void strip_volatile(const struct crawl_config *cfg, struct buf *body)
{
	for (size_t r = 0; r < cfg->nstrip; r++) {
		struct buf out = BUF_INIT;
		size_t pos = 0;
		bool changed = false;
		while (pos < body->len) {
			const char *seg = body->data + pos;
			size_t seglen = strlen(seg);
			const char *p = seg;
			regmatch_t m;
			int eflags = 0;
			while (p < seg + seglen && regexec(&cfg->strip_re[r], p, 1, &m, eflags) == 0) {
				if (m.rm_eo == 0) { /* an empty match: step over one byte */
					buf_add(&out, p, 1);
					p++;
				} else {
					buf_add(&out, p, (size_t)m.rm_so);
					p += m.rm_eo;
					changed = true;
				}
				eflags = REG_NOTBOL;
			}
			buf_add(&out, p, (size_t)(seg + seglen - p));
			pos += seglen;
			if (pos < body->len) { /* keep the NUL */
				buf_addc(&out, '\0');
				pos++;
			}
		}
		if (changed) {
			buf_release(body);
			*body = out;
		} else {
			buf_release(&out);
		}
	}
}

static bool no_store(const struct origin_response *rs)
{
	for (size_t i = 0; i < rs->nheaders; i++) {
		if (strcasecmp(rs->headers[i].name, "Cache-Control"))
			continue;
		const char *v = rs->headers[i].value;
		if (strcasestr(v, "no-store") || strcasestr(v, "private") || strcasestr(v, "no-cache"))
			return true;
	}
	return false;
}

/* A page's links: other pages, a step further from the seeds, and the
 * resources it needs to display (stylesheets, images, icons, manifests;
 * links.h), fetched with the page as wget -p does - no step further, and
 * even when a robots nofollow meta stops its page links. */
struct found_links {
	const struct crawl *c;
	struct strlist targets;
	struct strlist resources;
};

static void collect_link(void *arg, const char *url, unsigned flags)
{
	struct found_links *f = arg;
	if ((flags & LINK_NOFOLLOW) && !f->c->cfg->follow_nofollow)
		return;
	char *t = site_target(f->c->site, url);
	if (t)
		strlist_add_owned(flags & LINK_RESOURCE ? &f->resources : &f->targets, t);
}

/* Where a body is when it is not in memory: len bytes of fd from off (a
 * static file under --root, or a body the origin kept in a file). */
struct body_file {
	int fd;
	bool owned;    /* opened here: close it */
	long long off, len;
};

/* The body of rs as a file, or fd -1 when it is in rs->body; 0 or -1. */
static int open_body(struct origin_response *rs, struct body_file *f, char *err)
{
	*f = (struct body_file){ -1, false, 0, 0 };
	if (rs->static_path) {
		struct stat st;
		f->fd = open(rs->static_path, O_RDONLY | O_CLOEXEC);
		if (f->fd < 0 || fstat(f->fd, &st) < 0) {
			err_sys(err, "cannot read '%s'", rs->static_path);
			if (f->fd >= 0)
				close(f->fd);
			f->fd = -1;
			return -1;
		}
		f->owned = true;
		f->len = (long long)st.st_size;
	} else if (rs->body_in_file) {
		f->fd = rs->body_fd;
		f->off = rs->body_off;
		f->len = rs->body_size;
	}
	return 0;
}

static void close_body(struct body_file *f)
{
	if (f->owned && f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

/* Bring the whole body of rs into rs->body, as if the origin had sent it
 * so (a static file's path is forgotten); 0 or -1 with err. */
static int load_body(struct origin_response *rs, char *err)
{
	if (!rs->static_path)
		return origin_body_load(rs, err);
	struct body_file f;
	if (open_body(rs, &f, err) < 0)
		return -1;
	buf_reset(&rs->body);
	int rc = spill_read(f.fd, 0, f.len, &rs->body, rs->static_path, err);
	close_body(&f);
	if (rc == 0) {
		free(rs->static_path);
		rs->static_path = NULL;
	}
	return rc;
}

/* Publish the file e claimed: only over a file cgisnap published, and
 * only while it still holds what cgisnap wrote (the manifest's record,
 * or with taken_over what another target wrote in this run: prev_bytes
 * and prev_sha). A publish_result, or -1 with err. */
static int write_claimed(struct crawl *c, struct origin_response *rs, struct manifest_entry *e,
			 const struct body_file *f, bool taken_over, long long prev_bytes, const char *prev_sha,
			 struct publish_paths *paths, char *err)
{
	const char *key = e->key, *type = rs->content_type;
	bool gz = c->cfg->gzip && mime_compressible(type);
	/* c->owned is not changed while pages render: no lock needed. */
	const struct manifest_entry *rec = owned_get(c, key);
	long long bytes = taken_over ? prev_bytes : rec ? rec->bytes : -1;
	const char *sha = taken_over ? prev_sha : rec ? rec->sha256 : NULL;
	int own = publish_owner(c->tree->fd, key, bytes, sha, err);
	if (own < 0)
		return -1;
	if (own == PUBLISH_FOREIGN)
		return err_set(err, rec || taken_over ? "'%s' was changed since cgisnap published it: not overwriting it"
						      : "'%s' was not published by cgisnap: not overwriting it", key);
	/* Recorded before it appears, so that no kill or full disk can leave
	 * a published file unrecorded; a file already recorded with these
	 * bytes needs no new record. */
	bool recorded = own == PUBLISH_OURS && *e->sha256 && sha && !strcmp(sha, e->sha256);
	e->changed = time(NULL);
	if (!recorded && manifest_journal(c->tree, e, err) < 0)
		return -1;
	return f->fd >= 0 ? publish_fd_noted(c->tree->fd, key, f->fd, f->off, f->len, gz, paths, err)
			  : publish_data_noted(c->tree->fd, key, buf_str(&rs->body), rs->body.len, gz, paths, err);
}

/* The key of target's file: with static_query_ignore, a file under
 * --root asked for with a query ("/x.css?ver=6.1", a cache-buster the
 * site changes with each release) is the file without the query, as a
 * static server answers it, so that every such URL shares one copy
 * named as the site names it. The manifest still lists each URL, so
 * serve and the generated configurations answer it exactly. Fresh, or
 * NULL with err. */
static char *static_key(const struct crawl_config *cfg, bool static_file, const char *target, const char *type,
			char *err)
{
	const char *q = strchr(target, '?');
	if (!cfg->static_query_ignore || !static_file || !q)
		return urlkey_for(target, type, err);
	char *path = xstrndup(target, (size_t)(q - target));
	char *key = urlkey_for(path, type, err);
	free(path);
	return key;
}

/* Claim and publish the file of a page whose sha256 e holds; the rest of
 * store_page. STORED_AS_REDIRECT when the file is its slash form's (e is
 * left for the caller to make a redirect). own_file: never that.
 * static_file: the body is a file under --root (rs may have forgotten its
 * path since: load_body). */
static int publish_page(struct crawl *c, struct origin_response *rs, struct manifest_entry *e,
			const struct body_file *f, bool own_file, bool static_file, enum outcome *how_stored,
			char *err)
{
	const struct crawl_config *cfg = c->cfg;
	const char *type = rs->content_type;
	bool copy = f->fd >= 0;
	char *key = static_key(cfg, static_file, e->target, type, err);
	if (!key)
		return -1;
	e->key = key; /* e owns it from here: freed with e on failure */
	e->bytes = copy ? f->len : (long long)rs->body.len;
	e->content_type = type ? xstrdup(type) : NULL;
	char *slash = own_file ? NULL : slash_form(e->target, key);

	/* Two URLs may map to one file (/a/ and /a/index.html): fine when the
	 * bytes agree; "/a" against "/a/" see resolve_collision_locked; other
	 * pairs fail. */
	pthread_mutex_lock(&c->lock);
	struct claim *cl = hashmap_get(&c->claims, key);
	bool alias = false;
	/* What the file holds before this publish, when another target of
	 * this run wrote it (a takeover); else the manifest says. */
	bool taken_over = false;
	long long prev_bytes = -1;
	char prev_sha[65] = "";
	if (cl && strcmp(cl->target, e->target)) {
		int how = strcmp(cl->sha256, e->sha256) ? resolve_collision_locked(c, cl, e, slash, key, err) : 0;
		if (how < 0 || how == 1) {
			if (how == 1)
				demote_locked(c, e->target, key);
			pthread_mutex_unlock(&c->lock);
			free(slash);
			return how < 0 ? -1 : STORED_AS_REDIRECT;
		}
		if (how == 2) {
			while (cl->writing)
				pthread_cond_wait(&c->cond, &c->lock);
			demote_locked(c, cl->target, key);
			taken_over = cl->written; /* else the file is as the manifest says */
			prev_bytes = cl->bytes;
			memcpy(prev_sha, cl->sha256, sizeof prev_sha);
			free(cl->target);
			cl->target = xstrdup(e->target);
			memcpy(cl->sha256, e->sha256, sizeof cl->sha256);
			cl->bytes = e->bytes;
			cl->writing = true;
		} else {
			alias = true;
		}
	} else if (!cl) {
		/* Last run's "/a/" holds the file: "/a" leaves it alone, so
		 * that re-runs do not write it twice (settle_slash_forms
		 * checks that "/a/" still holds it). */
		const struct manifest_entry *rec = owned_get(c, key);
		if (slash && !cfg->nstrip && rec && !strcmp(rec->target, slash) && strcmp(rec->sha256, e->sha256)) {
			demote_locked(c, e->target, key);
			pthread_mutex_unlock(&c->lock);
			free(slash);
			return STORED_AS_REDIRECT;
		}
		cl = xcalloc(1, sizeof *cl);
		cl->target = xstrdup(e->target);
		memcpy(cl->sha256, e->sha256, sizeof cl->sha256);
		cl->bytes = e->bytes;
		cl->writing = true;
		hashmap_put(&c->claims, key, cl);
	}
	pthread_mutex_unlock(&c->lock);
	free(slash);

	/* What the publish wrote and removed, gathered apart from the lock
	 * (the page, its .gz: an unchanged page may get its .gz repaired). */
	struct strlist written = STRLIST_INIT, removed = STRLIST_INIT;
	struct publish_paths paths = { &written, &removed };
	int pr = alias ? PUBLISH_UNCHANGED
		       : write_claimed(c, rs, e, f, taken_over, prev_bytes, prev_sha, &paths, err);
	if (!alias) {
		pthread_mutex_lock(&c->lock);
		cl->writing = false;
		cl->written = pr >= 0;
		pthread_cond_broadcast(&c->cond);
		paths_merge(c, &paths);
		pthread_mutex_unlock(&c->lock);
	}
	strlist_clear(&written);
	strlist_clear(&removed);
	if (pr < 0)
		return -1;

	const struct manifest_entry *old = manifest_get(&c->manifest, e->target);
	pthread_mutex_lock(&c->lock);
	if (pr == PUBLISH_UNCHANGED) {
		*how_stored = OUTCOME_UNCHANGED;
		e->changed = old && old->key && !strcmp(old->key, key) ? old->changed : time(NULL);
	} else {
		*how_stored = pr == PUBLISH_NEW ? OUTCOME_NEW : OUTCOME_CHANGED;
		e->changed = time(NULL);
		strlist_add(&c->res->changed_keys, key);
	}
	c->res->bytes += e->bytes;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* Store a 2xx response; fills e, *how_stored (new, changed, unchanged)
 * and the links found. Unlocked; takes the
 * lock only to claim the file. Returns 0 (stored), 1 (not stored, by the
 * page's own request: a robots noindex meta or Cache-Control no-store,
 * with the respect options; the caller records nothing for it),
 * STORED_AS_REDIRECT (the file is the slash form's; see publish_page),
 * STORED_HELD (a static file the hold hook held, when may_hold: nothing
 * published), or -1 with err. */
static int store_page(struct crawl *c, const char *url, struct origin_response *rs, struct manifest_entry *e,
		      struct found_links *links, bool own_file, bool may_hold, enum outcome *how_stored, char *err)
{
	const struct crawl_config *cfg = c->cfg;
	const char *type = rs->content_type;
	struct body_file f;
	int rc = -1;

	if (open_body(rs, &f, err) < 0)
		return -1;
	long long size = f.fd >= 0 ? f.len : (long long)rs->body.len;
	bool static_file = rs->static_path != NULL;
	/* load_body lets go of it: kept for the hold hook */
	char *static_path = static_file && may_hold && c->hooks.hold ? xstrdup(rs->static_path) : NULL;
	/* Parsing and --strip need the whole body in memory: only up to
	 * --max-parse. Bigger bodies stay in their file and are streamed. */
	bool wanted = has_links(type) || (cfg->nstrip && is_text_type(type));
	bool parse = wanted && size <= cfg->max_parse;
	if (wanted && !parse)
		log_debug("%s was not parsed for links or --strip: %lld bytes, larger than --max-parse %lld",
			  url, size, cfg->max_parse);
	if (parse && f.fd >= 0) {
		close_body(&f);
		if (load_body(rs, err) < 0)
			goto out;
	}
	if (parse && is_text_type(type))
		strip_volatile(cfg, &rs->body);

	struct page_meta meta = { false, false };
	if (parse && has_links(type))
		links_extract(type, url, buf_str(&rs->body), rs->body.len, collect_link, links, &meta);
	if (cfg->respect_robots_meta && meta.nofollow)
		strlist_clear(&links->targets);
	if ((cfg->respect_robots_meta && meta.noindex) || (cfg->respect_no_store && no_store(rs))) {
		strlist_clear(&links->resources); /* nothing will display them */
		rc = 1; /* not stored, by request */
		goto out;
	}

	if (f.fd >= 0) {
		if (spill_sha256_hex(f.fd, f.off, f.len, e->sha256, rs->static_path ? rs->static_path : url,
				     err) < 0)
			goto out;
	} else {
		sha256_hex(buf_str(&rs->body), rs->body.len, e->sha256);
	}
	/* A file under --root is read here, not by the render: whether it
	 * was being written meanwhile is asked now. (A body too big to parse
	 * is still copied from the file after this.) */
	if (static_path && c->hooks.hold(c->hooks.hold_arg, e, rs, static_path)) {
		rc = STORED_HELD;
		goto out;
	}
	rc = publish_page(c, rs, e, &f, own_file, static_file, how_stored, err);
out:
	close_body(&f);
	free(static_path);
	return rc;
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
	const struct buf *text = &rs->body;
	char why[ERR_LEN];
	if (rs->body_in_file) {
		long long n = rs->body_size < EXCERPT_SCAN_MAX ? rs->body_size : EXCERPT_SCAN_MAX;
		if (spill_read(rs->body_fd, rs->body_off, n, &part, "response body", why) < 0) {
			buf_release(&part);
			return;
		}
		text = &part;
	}
	excerpt_lines(buf_str(text), text->len, excerpt_is_html(rs->content_type), max, EXCERPT_LINE_MAX,
		      out);
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
static void record_canonical(struct crawl *c, const struct job *j, const char *to, size_t rule)
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
		struct job *nj = enqueue_locked(c, to, j->depth, false, false);
		if (nj && j->seed)
			nj->seed = true;
	}
	pthread_mutex_unlock(&c->lock);
	free(next);
}

/* Render one target and record what it gave. Unlocked. */
static void process(struct crawl *c, struct job *j)
{
	char err[ERR_LEN], why[ERR_LEN];
	size_t rule;
	char *canon = site_canonical_redirect(c->site, j->target, &rule);
	if (canon) {
		record_canonical(c, j, canon, rule);
		free(canon);
		return;
	}
	char *url = site_url_for(c->site, j->target);
	/* Links resolve against url: the page is where it was crawled. */
	char *asked = render_target(c->cfg, j->target);
	struct origin_request rq = { asked ? asked : j->target, "GET", NULL };
	struct origin_response rs;
	struct found_links links = { c, STRLIST_INIT, STRLIST_INIT };
	struct manifest_entry *e = NULL;

	origin_response_init(&rs);
	if (origin_render(c->origin, &rq, &rs, err) < 0) {
		on_render(c, NULL, &rs);
		show_failure_text(j->target, &rs, true);
		pthread_mutex_lock(&c->lock);
		if (rs.over_max_output)
			skip_locked(c, j->target, CRAWL_SKIP_OVERSIZE, &rs);
		else
			fail_locked(c, j->target, err, &rs);
		c->fetched += !j->optional;
		pthread_mutex_unlock(&c->lock);
		goto out;
	}
	if (rs.warning)
		log_warn("%s: %s", j->target, rs.warning);
	if (rs.status >= 400 && !j->optional)
		show_failure_text(j->target, &rs, false);
	e = manifest_entry_new(j->target);
	e->status = rs.status;
	e->render_ms = rs.render_ms;
	e->changed = time(NULL);
	on_render(c, e, &rs);
	/* A static file is asked about once read (store_page). */
	if (!j->optional && !rs.static_path && c->hooks.hold && c->hooks.hold(c->hooks.hold_arg, e, &rs, NULL))
		goto held;

	int stored = 0;
	enum outcome how_stored = OUTCOME_NONE;
	bool archive = false;
	char *seed_failed = j->seed && rs.status >= 400 ? seed_error(j->target, &rs) : NULL;
	bool seed_moved = false; /* a seed redirects inside: its target is a seed */
	if (rs.status >= 300 && rs.status < 400 && rs.location) {
		char *abs = url_resolve(url, rs.location);
		if (!abs) {
			snprintf(err, sizeof err, "bad Location '%.200s'", rs.location);
			stored = -1;
		} else {
			e->location = abs;
			char *t = site_target(c->site, abs);
			if (t)
				strlist_add_owned(&links.targets, t);
			if (j->seed && t)
				seed_moved = true;
			else if (j->seed)
				seed_failed = xasprintf("the seed '%s' redirects to '%.300s', outside the site "
							"'%s': check --site-url", j->target, abs, c->site->url);
		}
	} else if (rs.status == 404 || rs.status == 410) {
		if (j->optional) { /* no robots.txt: nothing to count either */
			manifest_entry_free(e);
			e = NULL;
		}
	} else if (rs.status >= 200 && rs.status < 300 && !c->cfg->keep_archives && !rs.static_path &&
		   !j->optional && archive_response(rs.content_type, origin_header(&rs, "Content-Disposition"))) {
		/* A file under --root is the site's own, whatever it holds, and
		 * a sitemap.xml.gz robots.txt names is no snapshot tarball. */
		archive = true;
	} else if (rs.status >= 200 && rs.status < 300) {
		stored = store_page(c, url, &rs, e, &links, j->own_file, !j->optional, &how_stored, err);
		if (stored == STORED_HELD) {
			free(seed_failed);
			goto held;
		}
		if (stored == STORED_AS_REDIRECT) {
			make_slash_redirect(c, e);
			stored = 0;
		}
	} else {
		snprintf(err, sizeof err, "HTTP status %d", rs.status);
		stored = -1;
	}

	if (j->optional && e && !strcmp(j->target, ROBOTS_TARGET) && rs.status == 200 && !c->have_robots &&
	    (rs.static_path ? rs.static_size : origin_body_size(&rs)) <= c->cfg->max_parse &&
	    load_body(&rs, why) == 0) {
		robots_parse(&c->robots, buf_str(&rs.body), rs.body.len);
		c->have_robots = true; /* the first job runs alone: no lock needed */
	}

	pthread_mutex_lock(&c->lock);
	if (!j->optional) {
		c->fetched++;
		if (rs.status == 404)
			strlist_add(&c->not_found_404, j->target);
	}
	if (seed_failed)
		strlist_add_owned(&c->res->errors, seed_failed);
	if (stored < 0) {
		fail_locked(c, j->target, err, &rs);
		manifest_entry_free(e);
	} else if (e && stored == 0 && !archive) {
		enum outcome o = e->location ? OUTCOME_REDIRECT
				 : e->status == 404 || e->status == 410 ? OUTCOME_NOT_FOUND
				 : how_stored;
		tally_locked(c, j->target, o, e->status, e->render_ms, e->key ? e->bytes : 0);
		strlist_add(&c->res->rendered, j->target);
		if (!c->update_mode && e->key)
			families_note(&c->families, j->target, e->sha256, e->content_type);
		manifest_put(&c->next, e);
	} else if (e) { /* an archive, or by request (robots meta, no-store: store_page's 1) */
		skip_locked(c, j->target, archive ? CRAWL_SKIP_ARCHIVE : CRAWL_SKIP_REQUESTED, &rs);
		manifest_entry_free(e);
	}
	for (size_t i = 0; i < links.resources.n; i++)
		enqueue_locked(c, links.resources.items[i], j->depth, false, false);
	for (size_t i = 0; i < links.targets.n; i++) {
		struct job *next = enqueue_locked(c, links.targets.items[i], j->depth + 1, false, false);
		if (next && seed_moved)
			next->seed = true;
	}
	pthread_mutex_unlock(&c->lock);
	goto out;
held:
	manifest_entry_free(e);
	pthread_mutex_lock(&c->lock);
	c->fetched++;
	hold_locked(c, j->target, &rs);
	pthread_mutex_unlock(&c->lock);
out:
	strlist_clear(&links.targets);
	strlist_clear(&links.resources);
	origin_response_release(&rs);
	free(url);
	free(asked);
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
		while (!c->head && c->busy > 0 && !stopped(c))
			pthread_cond_wait(&c->cond, &c->lock);
		if (!c->head || stopped(c))
			break;
		struct job *j = c->head;
		c->head = j->next;
		if (!c->head)
			c->tail = NULL;
		c->queued--;
		c->busy++;
		snprintf(c->current, sizeof c->current, "%s", j->target);
		pthread_mutex_unlock(&c->lock);

		process(c, j);
		free(j->target);
		free(j);

		pthread_mutex_lock(&c->lock);
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

/* A stopped run leaves jobs that will never run. Locked. */
static void drop_queue_locked(struct crawl *c)
{
	while (c->head) {
		struct job *j = c->head;
		c->head = j->next;
		free(j->target);
		free(j);
	}
	c->tail = NULL;
	c->queued = 0;
}

static void begin_run(struct crawl *c, struct crawl_result *res, bool update)
{
	memset(res, 0, sizeof *res);
	c->res = res;
	c->update_mode = update;
	c->dropped_depth = c->dropped_pages = 0;
	loops_init(&c->loops, c->cfg->loop_warn);
	families_release(&c->families);
	families_set_now(&c->families, (long long)time(NULL));
	c->near_bound_said = false;
	c->fetched = 0;
	strlist_clear(&c->not_found_404);
	hashmap_release(&c->outcomes);
	c->prev_total = update ? 0 : (long)manifest_count(&c->manifest);
	c->current[0] = '\0';
	res->recovered = c->recovered;
	c->recovered = 0;
	clock_gettime(CLOCK_MONOTONIC, &c->start);
}

/* Run the queue, then settle the slash forms, until nothing is left. */
static void run_all(struct crawl *c)
{
	do
		run_queue(c);
	while (settle_slash_forms(c) > 0 && !stopped(c));
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
	if (c->dropped_pages)
		res->bound_note = xasprintf("--max-pages %ld reached: %ld links not crawled",
					    c->cfg->max_pages, c->dropped_pages);
	else if (c->dropped_depth)
		res->bound_note = xasprintf("--max-depth %ld reached: %ld links not crawled",
					    c->cfg->max_depth, c->dropped_depth);
	res->interrupted = stopped(c);
	res->complete = !res->failed && !res->held && !res->bounded && !res->errors.n && !res->interrupted;
	skip_notes(c, res);
	strlist_clear(&c->not_found_404);
	/* An update renders a few pages: what their parameters did says
	 * nothing about the site. */
	if (!c->update_mode)
		families_report(&c->families, &res->family_notes, &res->family_table);
	families_release(&c->families);
	hashmap_release(&c->seen);
	hashmap_release(&c->outcomes);
	loops_release(&c->loops);
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
	begin_run(c, res, false);
	pthread_mutex_lock(&c->lock);
	progress_show_locked(c, true);
	pthread_mutex_unlock(&c->lock);

	/* robots.txt first, alone: its rules decide what else is crawled. */
	robots_release(&c->robots);
	memset(&c->robots, 0, sizeof c->robots);
	c->have_robots = false;
	pthread_mutex_lock(&c->lock);
	enqueue_locked(c, ROBOTS_TARGET, 0, true, true);
	pthread_mutex_unlock(&c->lock);
	struct job *first = c->head;
	c->head = c->tail = NULL;
	c->queued = 0;
	process(c, first);
	free(first->target);
	free(first);

	pthread_mutex_lock(&c->lock);
	if (c->cfg->seeds.n == 0) {
		char *t = site_target(c->site, c->site->url);
		struct job *j = enqueue_locked(c, t ? t : "/", 0, false, true);
		if (j)
			j->seed = true;
		families_set_default_seed(&c->families, t ? t : "/");
		free(t);
	}
	for (size_t i = 0; i < c->cfg->seeds.n; i++) {
		char *abs = url_resolve(c->site->url, c->cfg->seeds.items[i]);
		char *t = abs ? site_target(c->site, abs) : NULL;
		struct job *j = t ? enqueue_locked(c, t, 0, false, true) : NULL;
		if (j)
			j->seed = true;
		if (!t)
			add_failure_locked(c, c->cfg->seeds.items[i], "seed is not a URL of the site", NULL);
		free(t);
		free(abs);
	}
	enqueue_locked(c, SITEMAP_TARGET, 0, true, false);
	for (size_t i = 0; c->have_robots && i < c->robots.sitemaps.n; i++) {
		char *abs = url_resolve(c->site->url, c->robots.sitemaps.items[i]);
		char *t = abs ? site_target(c->site, abs) : NULL;
		if (t)
			enqueue_locked(c, t, 0, true, false);
		free(t);
		free(abs);
	}
	pthread_mutex_unlock(&c->lock);

	run_all(c);
	if (!stopped(c)) {
		save_not_found_page(c);
		check_not_found(c, res);
	}
	finish_result(c, res);
	return commit_run(c, c->cfg->prune && res->complete && removal_allowed(c), err);
}

int crawl_update(struct crawl *c, const struct strlist *targets, struct crawl_result *res, char *err)
{
	begin_run(c, res, true);
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < targets->n; i++)
		enqueue_locked(c, targets->items[i], 0, false, true);
	pthread_mutex_unlock(&c->lock);
	run_all(c);
	finish_result(c, res);

	/* Pages not rendered now stay as they are (commit_update). Pages
	 * that now answer 404 go at once: watch has no later prune. */
	return commit_run(c, removal_allowed(c), err);
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
	loops_release(&c->loops);
	families_release(&c->families);
	free_claims(c);
	free_demoted(c);
	robots_release(&c->robots);
	strlist_clear(&c->not_found_404);
	while (c->head) {
		struct job *j = c->head;
		c->head = j->next;
		free(j->target);
		free(j);
	}
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	free(c);
}
