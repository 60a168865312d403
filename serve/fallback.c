/* serve/fallback.c - render from the origin, share renders between
 * concurrent requests, store what was rendered (see fallback.h). */
#include "fallback.h"

#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/hashmap.h"
#include "base/log.h"
#include "crawl/robots.h"
#include "origin/origin.h"
#include "respond.h"
#include "cli/originopts.h"
#include "tree/publish.h"
#include "base/relist.h"
#include "base/sha256.h"
#include "base/spill.h"
#include "url/urlkey.h"
#include "base/xalloc.h"

/* --fill stores no target with more path segments, nor a longer key: a
 * client asking for /a/a/a/... must not build a directory chain, and the
 * site's real pages are far shallower and shorter. */
#define FILL_MAX_SEGMENTS 32
#define FILL_MAX_KEY 1024

struct flight {
	unsigned refs;          /* requests holding it (fallback lock) */
	bool done;
	char *target, *client;
	struct fallback_waiter *waiters; /* to wake when done (fallback lock) */
	struct flight *next_queued;
	struct fallback_answer answer;
};

struct fallback {
	struct server *s;
	struct origin *origin;
	bool share;             /* single flight (--fallback, not --dynamic) */
	bool fill;
	pthread_mutex_t lock;
	struct hashmap flights; /* target -> struct flight, while rendering */
	/* The render threads and their queue (under lock). */
	pthread_cond_t work;
	struct flight *queue, *queue_tail;
	bool stopping;
	pthread_t *threads;
	size_t nthreads;
	/* --fill bounds: the crawl rules, and what was stored (under lock). */
	regex_t *include, *exclude;
	size_t ninclude, nexclude;
	long filled;
	long long filled_bytes;
	bool warned_full;
	/* The site's robots.txt, read once at open: --fill stores what a
	 * crawl would, no page it disallows. Only read after. */
	struct robots robots;
	bool have_robots;
};

static void *render_thread(void *arg);

/* Whether --fill may store target: the crawl's --include/--exclude and
 * the depth bound. The key and size bounds are checked in fill(). */
static bool fill_wanted(const struct fallback *f, const char *target)
{
	if (f->ninclude && !relist_match(f->include, f->ninclude, target))
		return false;
	if (relist_match(f->exclude, f->nexclude, target))
		return false;
	size_t segments = 0;
	for (const char *p = target; *p && *p != '?'; p++)
		segments += *p == '/';
	return segments <= FILL_MAX_SEGMENTS;
}

/* The largest robots.txt read: far beyond any real one. */
#define FILL_ROBOTS_MAX (1024 * 1024)

/* robots.txt as the origin answers it now, into f->robots (none: every
 * target allowed, as for a crawl). */
static void fill_read_robots(struct fallback *f)
{
	char err[ERR_LEN];
	struct origin_response rs;
	struct origin_request rq = { "/robots.txt", "GET", NULL };
	struct buf body = BUF_INIT;
	int rc = origin_render(f->origin, &rq, &rs, err);
	if (rc == 0 && rs.status == 200) {
		if (rs.static_path) {
			int fd = open(rs.static_path, O_RDONLY | O_CLOEXEC);
			if (fd < 0 || buf_read_fd(&body, fd, FILL_ROBOTS_MAX) < 0)
				rc = err_sys(err, "cannot read '%s'", rs.static_path);
			if (fd >= 0)
				close(fd);
		} else if (origin_body_size(&rs) > FILL_ROBOTS_MAX)
			rc = err_set(err, "over %d bytes", FILL_ROBOTS_MAX);
		else if ((rc = origin_body_load(&rs, err)) == 0)
			buf_add(&body, rs.body.data ? rs.body.data : "", rs.body.len);
		if (rc == 0) {
			robots_parse(&f->robots, body.data ? body.data : "", body.len);
			f->have_robots = true;
		}
	}
	if (rc < 0)
		log_debug("--fill: no robots.txt rules: %s", err);
	buf_release(&body);
	origin_response_release(&rs);
}

/* Take room for one more stored page of bytes; false when --fill-max or
 * --fill-max-mb is reached (said once). */
static bool fill_reserve(struct fallback *f, long long bytes)
{
	const struct serve_config *cfg = &f->s->cfg;
	pthread_mutex_lock(&f->lock);
	bool ok = (!cfg->fill_max || f->filled < cfg->fill_max) &&
		  (!cfg->fill_max_bytes || f->filled_bytes + bytes <= cfg->fill_max_bytes);
	bool warn = !ok && !f->warned_full;
	if (ok) {
		f->filled++;
		f->filled_bytes += bytes;
	} else {
		f->warned_full = true;
	}
	pthread_mutex_unlock(&f->lock);
	if (warn)
		log_warn("--fill stored %ld pages (%lld MiB): storing no more (--fill-max, --fill-max-mb)",
			 f->filled, f->filled_bytes >> 20);
	return ok;
}

void fallback_describe(const struct fallback *f, char *buf, size_t len)
{
	origin_describe(f->origin, buf, len);
}

long fallback_timeout_s(const struct fallback *f)
{
	return origin_timeout_s(f->origin);
}

static void fill_unreserve(struct fallback *f, long long bytes)
{
	pthread_mutex_lock(&f->lock);
	f->filled--;
	f->filled_bytes -= bytes;
	pthread_mutex_unlock(&f->lock);
}

/* --fill writes into the tree, as snapshot does (crawlopts.c): -1 with
 * err when it overlaps --root or a mounted directory, where publishing
 * would overwrite the site's own files. */
static int tree_apart(const char *dir, struct origin *o, char *err)
{
	if (origin_options.root && tree_check_apart(dir, origin_options.root, err) < 0)
		return -1;
	struct strlist mounted = STRLIST_INIT;
	origin_exposed_dirs(o, &mounted);
	int rc = 0;
	for (size_t i = 0; i < mounted.n && !rc; i++)
		rc = tree_check_apart_named(dir, mounted.items[i], "the mounted directory", err);
	strlist_clear(&mounted);
	return rc;
}

struct fallback *fallback_open(struct server *s, char *err)
{
	/* One HTTP connection per render thread, in this open's own copy of
	 * the configuration (strings borrowed), not in the options. */
	struct origin_config cfg = origin_options;
	cfg.jobs = s->cfg.jobs;
	cfg.passed_on = s->cfg.dynamic && !s->cfg.fill;
	struct origin *o = origin_open(&cfg, &s->meta.site, err);
	if (!o)
		return NULL;
	if (s->cfg.fill && !s->cfg.dynamic && tree_apart(s->cfg.dir, o, err) < 0) {
		origin_close(o);
		return NULL;
	}
	if (s->have_tree && s->tree.meta_fd >= 0)
		origin_spill_in(o, s->tree.meta_fd);
	if (s->have_tree)
		origin_keep_out(o, s->cfg.dir); /* no link under --root serves the tree's files */
	struct fallback *f = xcalloc(1, sizeof *f);
	f->s = s;
	f->origin = o;
	f->share = !s->cfg.dynamic;
	f->fill = s->cfg.fill && !s->cfg.dynamic;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->work, NULL);
	if (relist_compile(s->cfg.fill_include, REG_NOSUB, "--include", &f->include, &f->ninclude, err) < 0 ||
	    relist_compile(s->cfg.fill_exclude, REG_NOSUB, "--exclude", &f->exclude, &f->nexclude, err) < 0) {
		fallback_close(f);
		return NULL;
	}
	if (f->fill)
		fill_read_robots(f);
	/* As many render threads as the origin has workers (--jobs): a
	 * request past them waits in the queue, not for a process of its own. */
	size_t n = s->cfg.jobs > 0 ? (size_t)s->cfg.jobs : 1;
	f->threads = xcalloc(n, sizeof *f->threads);
	for (; f->nthreads < n; f->nthreads++) {
		if (pthread_create(&f->threads[f->nthreads], NULL, render_thread, f) != 0) {
			err_set(err, "cannot start a render thread");
			fallback_close(f);
			return NULL;
		}
	}
	return f;
}

/* Headers that describe one hop, that MHD writes itself, or that must not
 * reach every visitor of a cached page. */
static bool passes(const char *name)
{
	static const char *const dropped[] = {
		"Set-Cookie", "Set-Cookie2", "Status", "Content-Length", "Transfer-Encoding",
		"Connection", "Keep-Alive", "Proxy-Connection", "TE", "Trailer", "Upgrade",
		"Date", "Server", NULL
	};
	for (size_t i = 0; dropped[i]; i++)
		if (!strcasecmp(name, dropped[i]))
			return false;
	return true;
}

/* Store a successful render into the tree and the manifest (--fill). */
static void fill(struct fallback *f, const char *target, const struct origin_response *rs)
{
	char err[ERR_LEN];
	/* Only pages: a 404 (or any error) stored per URL would let every
	 * distinct miss add a file. */
	if (rs->status < 200 || rs->status > 299 || rs->status == 204 || rs->status == 206)
		return;
	if (!fill_wanted(f, target)) {
		log_debug("not storing '%s': outside --include/--exclude or over %d segments", target,
			  FILL_MAX_SEGMENTS);
		return;
	}
	if (f->have_robots && !robots_allowed(&f->robots, target)) {
		log_debug("not storing '%s': robots.txt disallows it", target);
		return;
	}
	char *key = urlkey_for(target, rs->content_type, err);
	if (!key) {
		log_debug("not storing '%s': %s", target, err);
		return;
	}
	long long bytes = rs->static_path ? rs->static_size : origin_body_size(rs);
	if (strlen(key) > FILL_MAX_KEY || !fill_reserve(f, bytes)) {
		free(key);
		return;
	}
	bool gzip = rs->content_type && mime_compressible(rs->content_type);
	int treefd = f->s->tree.fd;
	struct manifest_entry *e = manifest_entry_new(target);
	e->key = key;
	e->status = rs->status;
	e->content_type = rs->content_type ? xstrdup(rs->content_type) : NULL;
	e->bytes = rs->static_path ? rs->static_size : origin_body_size(rs);
	/* The hash is what later runs check ownership by: every kind of body
	 * gets one, a static file of any size included. */
	int hashed = 0;
	if (rs->static_path) {
		int sfd = open(rs->static_path, O_RDONLY | O_CLOEXEC);
		hashed = sfd < 0 ? err_sys(err, "cannot read '%s'", rs->static_path)
				 : spill_sha256_hex(sfd, 0, rs->static_size, e->sha256, rs->static_path, err);
		if (sfd >= 0)
			close(sfd);
	} else if (rs->body_in_file) {
		hashed = spill_sha256_hex(rs->body_fd, rs->body_off, rs->body_size, e->sha256, target, err);
	} else {
		sha256_hex(rs->body.data ? rs->body.data : "", rs->body.len, e->sha256);
	}
	if (hashed < 0) {
		log_warn("cannot store '%s': %s", target, err);
		fill_unreserve(f, bytes);
		manifest_entry_free(e);
		return;
	}
	e->render_ms = rs->render_ms;
	e->changed = time(NULL);

	/* As snapshot does: only over the file the manifest records for this
	 * target (tree.db's row, or a fill not yet saved), and recorded in
	 * the journal before it appears. */
	struct meta *m = &f->s->meta;
	long long rec_bytes = -1;
	char rec_sha[65] = "";
	struct manifest_entry *old = NULL;
	meta_fill_begin(m, target);
	int rc = meta_entry(m, target, &old, err);
	if (rc == 0 && old && old->key && !strcmp(old->key, key)) {
		rec_bytes = old->bytes;
		memcpy(rec_sha, old->sha256, sizeof rec_sha);
	}
	manifest_entry_free(old);
	/* Who owns the file cannot be known without the row: not stored. */
	if (rc >= 0)
		rc = publish_owner(treefd, key, rec_bytes, rec_sha, err);
	if (rc == PUBLISH_FOREIGN)
		rc = err_set(err, "'%s' was not published by cgisnap: not overwriting it", key);
	if (rc >= 0)
		rc = meta_fill_journal(m, &f->s->tree, e, err);
	if (rc >= 0)
		rc = rs->static_path    ? publish_copy(treefd, key, rs->static_path, gzip, err)
		     : rs->body_in_file ? publish_fd(treefd, key, rs->body_fd, rs->body_off, rs->body_size,
						     gzip, err)
					: publish_data(treefd, key, rs->body.data ? rs->body.data : "",
						       rs->body.len, gzip, err);
	if (rc < 0) {
		log_warn("cannot store '%s': %s", target, err);
		fill_unreserve(f, bytes);
		manifest_entry_free(e);
		meta_fill_abort(m, target);
		return;
	}

	meta_fill_put(m, e);
	log_debug("stored '%s' as '%s'", target, key);
}

/* The response for a render; rs's body is handed to libmicrohttpd. */
static void to_answer(struct origin_response *rs, struct fallback_answer *a)
{
	struct MHD_Response *r = NULL;
	a->bytes = 0;
	if (rs->static_path) {
		int fd = open(rs->static_path, O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
			r = MHD_create_response_from_fd64((uint64_t)st.st_size, fd);
			a->bytes = st.st_size;
		} else {
			r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
		}
		if (fd >= 0 && (!r || !a->bytes))
			close(fd);
	} else if (rs->body_in_file) {
		/* libmicrohttpd sends the file from its offset and closes it. */
		r = MHD_create_response_from_fd_at_offset64((uint64_t)rs->body_size, rs->body_fd,
							    (uint64_t)rs->body_off);
		if (r) {
			rs->body_in_file = false;
			rs->body_fd = -1;
		}
		a->bytes = rs->body_size;
	} else {
		size_t len;
		char *data = buf_detach(&rs->body, &len);
		r = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
		if (!r)
			free(data);
		a->bytes = (long long)len;
	}
	a->response = r;
	a->status = rs->status >= 200 && rs->status <= 599 ? (unsigned)rs->status : 502;
	if (!r)
		return;
	bool have_type = false;
	for (size_t i = 0; i < rs->nheaders; i++) {
		const struct origin_header *h = &rs->headers[i];
		if (!passes(h->name))
			continue;
		if (!strcasecmp(h->name, "Content-Type"))
			have_type = true;
		MHD_add_response_header(r, h->name, h->value);
	}
	if (!have_type && rs->content_type)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rs->content_type);
}

/* A fixed page of cgisnap's own (502, 503) as the answer. */
static void html_answer(struct fallback_answer *a, int status, const char *html, size_t len)
{
	a->response = response_text(html);
	a->bytes = (long long)len;
	if (a->response)
		MHD_add_response_header(a->response, MHD_HTTP_HEADER_CONTENT_TYPE, "text/html; charset=utf-8");
	a->status = status;
}

/* One render, start to answer. */
static void render(struct fallback *f, const char *target, const char *client,
		   struct fallback_answer *a)
{
	char err[ERR_LEN];
	struct origin_response rs;
	struct origin_request rq = { target, "GET", client };

	memset(a, 0, sizeof *a);
	if (origin_render(f->origin, &rq, &rs, err) < 0) {
		origin_response_release(&rs);
		log_warn("cannot render '%s': %s", target, err);
		static const char bad_gateway[] =
			"<!DOCTYPE html>\n<title>502 Bad Gateway</title><h1>Bad Gateway</h1>\n";
		html_answer(a, 502, bad_gateway, sizeof bad_gateway - 1);
		return;
	}
	/* Answered as sent (as Apache does), and said once per render. */
	if (rs.warning)
		log_warn("%s: %s", target, rs.warning);
	if (f->fill)
		fill(f, target, &rs);
	to_answer(&rs, a);
	origin_response_release(&rs);
}

/* Hand the finished flight to each waiter; called unlocked, fl done and
 * out of the map, its waiter list taken. */
static void wake(struct flight *fl, struct fallback_waiter *w)
{
	while (w) {
		struct fallback_waiter *next = w->next;
		w->answer = fl->answer;
		w->answer.flight = fl;
		w->done(w);
		w = next;
	}
}

/* The answer when no render will run (the server stops). */
static void unavailable(struct fallback_answer *a)
{
	static const char html[] = "<!DOCTYPE html>\n<title>503 Service Unavailable</title>"
				   "<h1>Service Unavailable</h1>\n";
	memset(a, 0, sizeof *a);
	html_answer(a, 503, html, sizeof html - 1);
}

/* A render thread: take a flight, render it, wake its waiters. */
static void *render_thread(void *arg)
{
	struct fallback *f = arg;
	pthread_mutex_lock(&f->lock);
	for (;;) {
		while (!f->queue && !f->stopping)
			pthread_cond_wait(&f->work, &f->lock);
		struct flight *fl = f->queue;
		if (!fl)
			break; /* stopping, and nothing left */
		f->queue = fl->next_queued;
		if (!f->queue)
			f->queue_tail = NULL;
		bool stopping = f->stopping;
		pthread_mutex_unlock(&f->lock);

		/* With --fill the page is in the tree and the manifest before
		 * the flight ends, so later requests find it there. */
		if (stopping)
			unavailable(&fl->answer);
		else
			render(f, fl->target, fl->client, &fl->answer);

		pthread_mutex_lock(&f->lock);
		fl->done = true;
		if (f->share)
			hashmap_remove(&f->flights, fl->target);
		struct fallback_waiter *w = fl->waiters;
		fl->waiters = NULL;
		pthread_mutex_unlock(&f->lock);
		wake(fl, w);
		pthread_mutex_lock(&f->lock);
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

void fallback_start(struct fallback *f, const char *target, const char *client, unsigned seen_gen, bool check,
		    struct fallback_waiter *w)
{
	pthread_mutex_lock(&f->lock);
	if (f->stopping) {
		/* No render thread will take it: answer at once. */
		pthread_mutex_unlock(&f->lock);
		struct flight *late = xcalloc(1, sizeof *late);
		late->refs = 1;
		late->done = true;
		unavailable(&late->answer);
		w->next = NULL;
		wake(late, w);
		return;
	}
	struct flight *fl = f->share ? hashmap_get(&f->flights, target) : NULL;
	if (fl) {
		/* Someone is rendering it: wait for that answer. */
		fl->refs++;
		w->next = fl->waiters;
		fl->waiters = w;
		pthread_mutex_unlock(&f->lock);
		log_debug("'%s': waiting for the render under way", target);
		return;
	}
	if (f->share && check && atomic_load(&f->s->meta.gen) != seen_gen) {
		pthread_mutex_unlock(&f->lock);
		memset(&w->answer, 0, sizeof w->answer);
		w->answer.look_again = true;
		w->next = NULL;
		w->done(w);
		return;
	}
	fl = xcalloc(1, sizeof *fl);
	fl->refs = 1;
	fl->target = xstrdup(target);
	fl->client = xstrdup(client);
	w->next = NULL;
	fl->waiters = w;
	if (f->share)
		hashmap_put(&f->flights, target, fl);
	if (f->queue_tail)
		f->queue_tail->next_queued = fl;
	else
		f->queue = fl;
	f->queue_tail = fl;
	pthread_cond_signal(&f->work);
	pthread_mutex_unlock(&f->lock);
}

void fallback_stop(struct fallback *f)
{
	if (!f || !f->nthreads)
		return;
	pthread_mutex_lock(&f->lock);
	f->stopping = true;
	pthread_cond_broadcast(&f->work);
	pthread_mutex_unlock(&f->lock);
	for (size_t i = 0; i < f->nthreads; i++)
		pthread_join(f->threads[i], NULL);
	free(f->threads);
	f->threads = NULL;
	f->nthreads = 0;
}

void fallback_release(struct fallback *f, struct fallback_answer *a)
{
	struct flight *fl = a->flight;
	if (!fl) {
		if (a->response)
			MHD_destroy_response(a->response);
		return;
	}
	pthread_mutex_lock(&f->lock);
	bool last = --fl->refs == 0;
	pthread_mutex_unlock(&f->lock);
	if (last) {
		if (fl->answer.response)
			MHD_destroy_response(fl->answer.response);
		free(fl->target);
		free(fl->client);
		free(fl);
	}
}

void fallback_close(struct fallback *f)
{
	if (!f)
		return;
	fallback_stop(f);
	relist_free(f->include, f->ninclude);
	relist_free(f->exclude, f->nexclude);
	robots_release(&f->robots);
	pthread_cond_destroy(&f->work);
	origin_close(f->origin);
	hashmap_release(&f->flights);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
