/* serve/fallback.c - render from the origin, share renders between
 * concurrent requests, store what was rendered (see fallback.h). */
#include "fallback.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hashmap.h"
#include "log.h"
#include "origin.h"
#include "publish.h"
#include "sha256.h"
#include "urlkey.h"
#include "xalloc.h"

struct flight {
	unsigned refs;          /* requests holding it (fallback lock) */
	bool done;
	pthread_cond_t cond;
	struct fallback_answer answer;
};

struct fallback {
	struct server *s;
	struct origin *origin;
	bool share;             /* single flight (--fallback, not --dynamic) */
	bool fill;
	pthread_mutex_t lock;
	struct hashmap flights; /* target -> struct flight, while rendering */
};

struct fallback *fallback_open(struct server *s, char *err)
{
	origin_config.jobs = s->cfg.threads;
	struct origin *o = origin_open(&origin_config, &s->meta.site, err);
	if (!o)
		return NULL;
	struct fallback *f = xcalloc(1, sizeof *f);
	f->s = s;
	f->origin = o;
	f->share = !s->cfg.dynamic;
	f->fill = s->cfg.fill && !s->cfg.dynamic;
	pthread_mutex_init(&f->lock, NULL);
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
	if (rs->status < 200 || rs->status > 299 || rs->status == 204 || rs->status == 206)
		return;
	char *key = urlkey_for(target, rs->content_type, err);
	if (!key) {
		log_debug("not storing '%s': %s", target, err);
		return;
	}
	bool gzip = rs->content_type && mime_compressible(rs->content_type);
	int treefd = f->s->tree.fd;
	int rc = rs->static_path ? publish_copy(treefd, key, rs->static_path, gzip, err)
				 : publish_data(treefd, key, rs->body.data ? rs->body.data : "",
						rs->body.len, gzip, err);
	if (rc < 0) {
		log_warn("cannot store '%s': %s", target, err);
		free(key);
		return;
	}
	struct manifest_entry *e = manifest_entry_new(target);
	e->key = key;
	e->status = rs->status;
	e->content_type = rs->content_type ? xstrdup(rs->content_type) : NULL;
	e->bytes = rs->static_path ? rs->static_size : (long long)rs->body.len;
	if (!rs->static_path)
		sha256_hex(rs->body.data ? rs->body.data : "", rs->body.len, e->sha256);
	e->render_ms = rs->render_ms;
	e->changed = time(NULL);

	struct meta *m = &f->s->meta;
	pthread_rwlock_wrlock(&m->lock);
	manifest_put(&m->manifest, e);
	m->dirty = true;
	atomic_fetch_add(&m->gen, 1);
	pthread_rwlock_unlock(&m->lock);
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
		a->response = response_text(bad_gateway);
		a->bytes = (long long)sizeof bad_gateway - 1;
		if (a->response)
			MHD_add_response_header(a->response, MHD_HTTP_HEADER_CONTENT_TYPE,
						"text/html; charset=utf-8");
		a->status = 502;
		return;
	}
	if (f->fill)
		fill(f, target, &rs);
	to_answer(&rs, a);
	origin_response_release(&rs);
}

void fallback_answer(struct fallback *f, const char *target, const char *client,
		     struct fallback_answer *a)
{
	if (!f->share) {
		render(f, target, client, a);
		return;
	}
	pthread_mutex_lock(&f->lock);
	struct flight *fl = hashmap_get(&f->flights, target);
	if (fl) {
		/* Someone is rendering it: wait for that answer. */
		fl->refs++;
		while (!fl->done)
			pthread_cond_wait(&fl->cond, &f->lock);
		pthread_mutex_unlock(&f->lock);
		*a = fl->answer;
		a->flight = fl;
		return;
	}
	fl = xcalloc(1, sizeof *fl);
	fl->refs = 1;
	pthread_cond_init(&fl->cond, NULL);
	hashmap_put(&f->flights, target, fl);
	pthread_mutex_unlock(&f->lock);

	/* With --fill the page is in the tree and the manifest before the
	 * flight ends, so later requests find it there. */
	render(f, target, client, &fl->answer);

	pthread_mutex_lock(&f->lock);
	fl->done = true;
	hashmap_remove(&f->flights, target);
	pthread_cond_broadcast(&fl->cond);
	pthread_mutex_unlock(&f->lock);
	*a = fl->answer;
	a->flight = fl;
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
		pthread_cond_destroy(&fl->cond);
		free(fl);
	}
}

void fallback_close(struct fallback *f)
{
	if (!f)
		return;
	origin_close(f->origin);
	hashmap_release(&f->flights);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
