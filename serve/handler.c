/* serve/handler.c - one request, from the raw target to a queued
 * response.
 *
 * handler_begin (MHD's URI log callback) copies the raw target, before
 * libmicrohttpd decodes it in place, into a request record taken from the
 * worker thread's own free list (a connection stays on one worker, so the
 * record comes back to the same list). handler_request then:
 *   1. refuses methods other than GET and HEAD (405, Allow: GET, HEAD),
 *      and HTTP/1.1 requests without Host (400);
 *   2. fast path: the route cache maps the raw target straight to a cached
 *      file (no canonicalisation, no allocation);
 *   3. slow path: reqpath_check (400 for hostile targets; a hidden one,
 *      a dotfile name, is answered only as the manifest lists it), meta_resolve
 *      (canonical target, manifest entry or key), then redirect, 404/410,
 *      the file (cache_get; never a script's source), or the origin
 *      (--fallback: the connection is suspended while a render thread
 *      works, fallback.h) or 404;
 *   4. for a file: preconditions (If-Match, If-Unmodified-Since: 412),
 *      validators (If-None-Match, If-Modified-Since: 304), Range (206,
 *      416; If-Range), gzip negotiation, else the ready 200.
 * The access log line is written when the response is queued.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "accesslog.h"
#include "cache.h"
#include "daemons.h"
#include "fallback.h"
#include "http.h"
#include "base/log.h"
#include "url/reqpath.h"
#include "respond.h"
#include "serve.h"
#include "base/xalloc.h"

/* Targets up to this long live inside the record. */
#define INLINE_TARGET 472

struct request {
	struct request *next_free;
	char *target;            /* raw, as sent: inline_target or allocated */
	bool headers_seen;       /* the handler's first call happened */
	bool answered;
	bool rendering;          /* suspended for a render: wait.answer to come */
	atomic_bool rendered;    /* wait.answer is there (set by a render thread) */
	bool looked_again;       /* a render's answer was look_again (fallback.h) */
	struct MHD_Connection *c;
	struct fallback_waiter wait;
	char inline_target[INLINE_TARGET];
};

/* One worker's free records. Pools are chained globally so that they can
 * be freed after the workers are gone. */
struct pool {
	struct request *free;
	struct pool *next;
};

static __thread struct pool *my_pool;
static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pool *pools;

static struct pool *thread_pool(void)
{
	if (!my_pool) {
		my_pool = xcalloc(1, sizeof *my_pool);
		pthread_mutex_lock(&pools_lock);
		my_pool->next = pools;
		pools = my_pool;
		pthread_mutex_unlock(&pools_lock);
	}
	return my_pool;
}

void handler_release_pools(void)
{
	pthread_mutex_lock(&pools_lock);
	while (pools) {
		struct pool *p = pools;
		pools = p->next;
		while (p->free) {
			struct request *rq = p->free;
			p->free = rq->next_free;
			free(rq);
		}
		free(p);
	}
	my_pool = NULL;
	pthread_mutex_unlock(&pools_lock);
}

void *handler_begin(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct server *s = cls;
	struct pool *p = thread_pool();
	struct request *rq = p->free;
	if (rq)
		p->free = rq->next_free;
	else
		rq = xmalloc(sizeof *rq);
	size_t n = strlen(uri);
	if (n < INLINE_TARGET) {
		memcpy(rq->inline_target, uri, n + 1);
		rq->target = rq->inline_target;
	} else {
		rq->target = xstrdup(uri);
	}
	rq->headers_seen = false;
	rq->answered = false;
	rq->rendering = false;
	atomic_init(&rq->rendered, false);
	rq->looked_again = false;
	rq->c = c;
	atomic_fetch_add_explicit(&s->inflight, 1, memory_order_relaxed);
	return rq;
}

void handler_completed(void *cls, struct MHD_Connection *c, void **req_cls,
		       enum MHD_RequestTerminationCode toe)
{
	struct server *s = cls;
	struct request *rq = *req_cls;
	(void)toe;
	daemons_request_done(c);
	if (!rq)
		return;
	*req_cls = NULL;
	/* A render answered but the connection went before it was sent. */
	if (rq->rendering && atomic_load(&rq->rendered))
		fallback_release(s->fallback, &rq->wait.answer);
	if (rq->target != rq->inline_target)
		free(rq->target);
	struct pool *p = thread_pool();
	rq->next_free = p->free;
	p->free = rq;
	atomic_fetch_sub_explicit(&s->inflight, 1, memory_order_release);
}

/* The request headers handler_request looks at, read in one pass. */
struct headers {
	const char *if_none_match, *if_modified_since, *if_match, *if_unmodified_since;
	const char *if_range, *range, *accept_encoding, *referer, *user_agent, *host;
};

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *name,
				      const char *value)
{
	struct headers *h = cls;
	(void)kind;
	switch (name[0] | 0x20) {
	case 'i':
		if (!strcasecmp(name, "If-None-Match"))
			h->if_none_match = value;
		else if (!strcasecmp(name, "If-Modified-Since"))
			h->if_modified_since = value;
		else if (!strcasecmp(name, "If-Match"))
			h->if_match = value;
		else if (!strcasecmp(name, "If-Unmodified-Since"))
			h->if_unmodified_since = value;
		else if (!strcasecmp(name, "If-Range"))
			h->if_range = value;
		break;
	case 'r':
		if (!strcasecmp(name, "Range"))
			h->range = value;
		else if (!strcasecmp(name, "Referer"))
			h->referer = value;
		break;
	case 'a':
		if (!strcasecmp(name, "Accept-Encoding"))
			h->accept_encoding = value;
		break;
	case 'u':
		if (!strcasecmp(name, "User-Agent"))
			h->user_agent = value;
		break;
	case 'h':
		if (!strcasecmp(name, "Host"))
			h->host = value;
		break;
	}
	return MHD_YES;
}

/* Everything about the request being answered. */
struct ctx {
	struct server *s;
	struct MHD_Connection *c;
	struct request *rq;
	const char *method;
	const char *version;
	bool head;
	struct headers h;
};

/* The client's address as text into out (64 bytes). */
static void client_address(struct MHD_Connection *c, char *out, size_t n)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	strcpy(out, "-");
	if (!ci || !ci->client_addr)
		return;
	const struct sockaddr *sa = ci->client_addr;
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)n);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)n);
}

static void log_request(struct ctx *x, unsigned status, long long bytes)
{
	/* The formatted time changes once a second: keep it per thread. */
	static __thread time_t last;
	static __thread char when[ACCESSLOG_TIME_LEN];
	char client[64], line[ACCESSLOG_LINE_MAX];
	time_t now = time(NULL);
	if (now != last) {
		accesslog_time(now, when);
		last = now;
	}
	client_address(x->c, client, sizeof client);
	struct access_record r = {
		client, when, x->method, x->rq->target, x->version, (int)status,
		x->head ? 0 : bytes, x->h.referer, x->h.user_agent,
	};
	size_t n = accesslog_format(line, &r);
	accesslog_add(x->s->log, line, n);
}

/* Queue r (NULL: out of memory, close the connection) and log it. */
static enum MHD_Result reply(struct ctx *x, unsigned status, struct MHD_Response *r, long long bytes)
{
	if (!r)
		return MHD_NO;
	enum MHD_Result res = MHD_queue_response(x->c, status, r);
	x->rq->answered = true;
	if (x->s->log)
		log_request(x, status, bytes);
	return res;
}

static enum MHD_Result reply_fixed(struct ctx *x, unsigned status, const struct fixed_response *f)
{
	return reply(x, status, f->r, f->len);
}

/* Queue a response made for this request only, and let it go. */
static enum MHD_Result reply_once(struct ctx *x, unsigned status, struct MHD_Response *r,
				 long long bytes)
{
	enum MHD_Result res = reply(x, status, r, bytes);
	if (r)
		MHD_destroy_response(r);
	return res;
}

static enum MHD_Result reply_not_found(struct ctx *x, unsigned status)
{
	struct meta *m = &x->s->meta;
	pthread_rwlock_rdlock(&m->lock);
	/* Queued under the lock: a reload cannot free the page meanwhile. */
	enum MHD_Result res = reply(x, status, m->not_found.r, m->not_found.len);
	pthread_rwlock_unlock(&m->lock);
	return res;
}

/* If-Range (RFC 9110 13.1.5): the range applies only to the representation
 * the client already has part of (a strong tag or the exact date). */
static bool if_range_holds(const char *value, const struct fentry *e)
{
	time_t t;
	if (!value)
		return true;
	if (value[0] == '"' || value[0] == 'W')
		return http_etag_matches(value, e->plain.etag, false);
	return http_parse_date(value, &t) == 0 && t == e->mtime;
}

static enum MHD_Result serve_entry(struct ctx *x, struct fentry *e)
{
	const struct headers *h = &x->h;
	bool ranged = h->range && if_range_holds(h->if_range, e);
	bool gz = !ranged && e->gz.ok && h->accept_encoding && http_accepts_gzip(h->accept_encoding);
	const struct variant *v = gz ? &e->gz : &e->plain;
	time_t t;

	/* Preconditions first (RFC 9110 13.2.2), then validators, then Range. */
	if (h->if_match) {
		if (!http_etag_matches(h->if_match, v->etag, false))
			return reply_fixed(x, MHD_HTTP_PRECONDITION_FAILED, &x->s->precondition_failed);
	} else if (h->if_unmodified_since && http_parse_date(h->if_unmodified_since, &t) == 0 &&
		   e->mtime > t) {
		return reply_fixed(x, MHD_HTTP_PRECONDITION_FAILED, &x->s->precondition_failed);
	}
	if (h->if_none_match) {
		if (http_etag_matches(h->if_none_match, v->etag, true))
			return reply(x, MHD_HTTP_NOT_MODIFIED, v->not_modified, 0);
	} else if (h->if_modified_since && http_parse_date(h->if_modified_since, &t) == 0 &&
		   e->mtime <= t) {
		return reply(x, MHD_HTTP_NOT_MODIFIED, v->not_modified, 0);
	}
	if (ranged) {
		uint64_t first, len;
		switch (http_parse_range(h->range, e->plain.size, &first, &len)) {
		case HTTP_RANGE_ONE:
			return reply_once(x, MHD_HTTP_PARTIAL_CONTENT,
					 fentry_range(x->s->cache, e, first, len), (long long)len);
		case HTTP_RANGE_UNSATISFIABLE: {
			struct MHD_Response *r = response_text("");
			char cr[64];
			snprintf(cr, sizeof cr, "bytes */%llu", (unsigned long long)e->plain.size);
			if (r) {
				MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_RANGE, cr);
				MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, e->plain.etag);
			}
			return reply_once(x, MHD_HTTP_RANGE_NOT_SATISFIABLE, r, 0);
		}
		case HTTP_RANGE_NONE:
			break;
		}
	}
	if (!v->body)
		return reply_once(x, MHD_HTTP_OK, fentry_whole(x->s->cache, e, v), (long long)v->size);
	return reply(x, MHD_HTTP_OK, v->ok, (long long)v->size);
}

static enum MHD_Result reply_redirect(struct ctx *x, const struct resolution *res)
{
	struct MHD_Response *r = response_text("");
	if (r) {
		MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, res->location);
		/* Only permanent redirects are cacheable like the pages. */
		if (x->s->cfg.cache_control && (res->status == 301 || res->status == 308))
			MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, x->s->cfg.cache_control);
	}
	return reply_once(x, (unsigned)res->status, r, 0);
}

/* A render thread has the answer: let the connection's worker send it. */
static void render_done(struct fallback_waiter *w)
{
	struct request *rq = (struct request *)((char *)w - offsetof(struct request, wait));
	atomic_store(&rq->rendered, true);
	MHD_resume_connection(rq->c);
}

/* Suspend the connection while a render thread asks the origin: the
 * worker goes on with other connections, and libmicrohttpd calls
 * handler_request again once render_done resumed this one. */
static enum MHD_Result reply_from_origin(struct ctx *x, const char *target, unsigned seen_gen)
{
	char client[64];
	client_address(x->c, client, sizeof client);
	x->rq->rendering = true;
	x->rq->wait.done = render_done;
	MHD_suspend_connection(x->c);
	fallback_start(x->s->fallback, target, client, seen_gen, !x->rq->looked_again, &x->rq->wait);
	return MHD_YES;
}

static enum MHD_Result resolve_and_reply(struct ctx *x);

/* The render's answer, after the connection was resumed. */
static enum MHD_Result reply_rendered(struct ctx *x)
{
	struct fallback_answer *a = &x->rq->wait.answer;
	if (a->look_again) {
		/* Stored since the lookup: answered from the tree now, once. */
		x->rq->rendering = false;
		atomic_store(&x->rq->rendered, false);
		x->rq->looked_again = true;
		return resolve_and_reply(x);
	}
	enum MHD_Result res = reply(x, a->status, a->response, a->bytes);
	x->rq->rendering = false;
	fallback_release(x->s->fallback, a);
	return res;
}

/* The slow path: everything the route cache did not answer. */
static enum MHD_Result resolve_and_reply(struct ctx *x)
{
	struct server *s = x->s;
	const char *target;
	int bad = reqpath_check(x->rq->target, &target);
	if (bad && bad != 404)
		return reply_fixed(x, MHD_HTTP_BAD_REQUEST, &s->bad_request);

	struct resolution res;
	enum MHD_Result ret;
	bool reread = false;
again:
	meta_resolve(&s->meta, target, &res);
	/* A hidden target (a dotfile name) is answered only as the manifest
	 * records it, never from a file it does not list nor by the origin. */
	if (bad == 404 && res.kind != RESOLVE_REDIRECT && res.kind != RESOLVE_GONE &&
	    !(res.kind == RESOLVE_FILE && res.listed)) {
		ret = reply_not_found(x, 404);
		goto out;
	}
	/* --dynamic renders everything but what a --canonical rule redirects. */
	if (s->cfg.dynamic && res.kind != RESOLVE_BAD && !res.canonical) {
		ret = reply_from_origin(x, res.target, res.gen);
		goto out;
	}
	switch (res.kind) {
	case RESOLVE_BAD:
		ret = reply_fixed(x, MHD_HTTP_BAD_REQUEST, &s->bad_request);
		goto out;
	case RESOLVE_REDIRECT:
		ret = reply_redirect(x, &res);
		goto out;
	case RESOLVE_GONE:
		ret = reply_not_found(x, (unsigned)res.status);
		goto out;
	case RESOLVE_FILE: {
		/* A script's source is never served: only a render the
		 * manifest lists under that name (see reqpath.h). */
		if (!res.listed && reqpath_is_script(res.key, &s->script_exts))
			break;
		struct fentry *e = cache_get(s->cache, res.key, res.content_type);
		if (e && res.slash_form) {
			fentry_put(e);
			/* A fill may have renamed x/index.html into place
			 * after the lookup, its entry not yet put: look
			 * again (the fill's target is missing until then). */
			if (!reread && meta_fill_since(&s->meta, res.target, res.gen)) {
				reread = true;
				resolution_release(&res);
				goto again;
			}
			/* "/x" of the page x/index.html: its slash form's. */
			ret = reply_redirect(x, &res);
			goto out;
		}
		if (e) {
			cache_add_route(s->cache, x->rq->target, res.key, res.content_type, res.gen);
			ret = serve_entry(x, e);
			fentry_put(e);
			goto out;
		}
		if (errno == EMFILE || errno == ENFILE || errno == ENOMEM) {
			ret = reply_fixed(x, MHD_HTTP_SERVICE_UNAVAILABLE, &s->unavailable);
			goto out;
		}
		/* Not there: a writer removes a file only after the save that
		 * drops its entry, which may have committed between the lookup
		 * and the open. Look the target up once more and answer from
		 * that row, never from half of two states. */
		if (!reread && s->have_tree) {
			reread = true;
			resolution_release(&res);
			goto again;
		}
		break; /* not there after all */
	}
	case RESOLVE_MISSING:
		break;
	}
	if (s->fallback)
		ret = reply_from_origin(x, res.target, res.gen);
	else
		ret = reply_not_found(x, 404);
out:
	resolution_release(&res);
	return ret;
}

enum MHD_Result handler_request(void *cls, struct MHD_Connection *c, const char *url,
				const char *method, const char *version, const char *upload_data,
				size_t *upload_data_size, void **req_cls)
{
	struct server *s = cls;
	struct request *rq = *req_cls;
	(void)url;
	(void)upload_data;

	if (!rq)
		return MHD_NO;
	if (rq->rendering) {
		if (!atomic_load(&rq->rendered))
			return MHD_YES; /* not resumed by the render: keep waiting */
		struct ctx x = { s, c, rq, method, version, false, { 0 } };
		x.head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
		MHD_get_connection_values(c, MHD_HEADER_KIND, collect_header, &x.h);
		return reply_rendered(&x);
	}
	if (rq->answered) {
		/* A body after an early answer (405 to a POST): discard it. */
		*upload_data_size = 0;
		return MHD_YES;
	}
	struct ctx x = { s, c, rq, method, version, false, { 0 } };
	x.head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
	bool get = x.head || !strcmp(method, MHD_HTTP_METHOD_GET);
	if (!rq->headers_seen) {
		rq->headers_seen = true;
		/* Other methods are refused at once, before any body is read;
		 * libmicrohttpd then closes the connection after the answer. */
		if (!get) {
			daemons_request_busy(c);
			MHD_get_connection_values(c, MHD_HEADER_KIND, collect_header, &x.h);
			return reply_fixed(&x, MHD_HTTP_METHOD_NOT_ALLOWED, &s->not_allowed);
		}
		/* Answering a GET in this first call would be "early" too:
		 * wait for the last call, after the (normally empty) body. */
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0; /* a GET's body means nothing here */
		return MHD_YES;
	}
	daemons_request_busy(c);
	MHD_get_connection_values(c, MHD_HEADER_KIND, collect_header, &x.h);
	/* RFC 9112 3.2: a server must answer 400 to an HTTP/1.1 request
	 * without Host (libmicrohttpd only checks in its strict mode, which
	 * also refuses targets this server answers on its own terms). */
	if (!x.h.host && strcmp(version, MHD_HTTP_VERSION_1_0))
		return reply_fixed(&x, MHD_HTTP_BAD_REQUEST, &s->bad_request);

	if (!s->cfg.dynamic) {
		struct fentry *e = cache_lookup_route(s->cache, rq->target, atomic_load(&s->meta.gen));
		if (e) {
			enum MHD_Result res = serve_entry(&x, e);
			fentry_put(e);
			return res;
		}
	}
	return resolve_and_reply(&x);
}
