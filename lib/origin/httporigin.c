/* httporigin.c - the HTTP origin: pages fetched from a running web server
 * through libcurl's multi interface.
 *
 * One background thread drives a single multi handle, so up to "jobs"
 * transfers run at once and its connection cache keeps connections alive
 * between them. origin_render, from any thread, prepares an easy handle,
 * queues it, wakes the thread (curl_multi_wakeup is the one multi call
 * that is safe from other threads) and waits on its own condition
 * variable. Redirects are not followed (a 3xx is a response like any
 * other). The tree stores bodies identity-encoded, as the site's own
 * bytes: "Accept-Encoding: identity" is asked for, and a server that
 * compresses anyway (gzip, deflate, whatever this libcurl decodes) has its
 * body decoded as it arrives, the Content-Encoding header dropped, and the
 * --max-output limit applied to the decoded bytes. A body larger than the
 * memory limit goes to a temporary file as it arrives (spill.h).
 *
 * Politeness, as wget's: with --wait a request starts at least that long
 * after the previous one started, whatever the number of connections and
 * of open origins in the process (a crawl opens one to look at the first
 * page, then its own): the origin sees one request per S seconds at
 * most, the rate a person asked for, not one per connection; --user-agent,
 * --header lines and --netrc's basic auth go with every request.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "base/log.h"
#include "origin/origin_impl.h"
#include "base/xalloc.h"

struct http_request {
	CURL *easy;
	struct origin_response *rs;
	size_t max_output;
	struct spill body;
	bool over;                      /* the body passed max_output */
	bool write_failed;              /* the temporary file could not be written */
	char write_err[ERR_LEN];
	CURLcode result;
	bool done;
	pthread_cond_t done_cond;
	struct http_request *next;      /* in the queue */
	char errbuf[CURL_ERROR_SIZE];
};

struct http_origin {
	pthread_mutex_t lock;
	pthread_t thread;
	bool thread_started;
	bool stop;
	CURLM *multi;
	struct http_request *head, *tail; /* waiting to be added to multi */
	long in_flight;
	long jobs;
	char *base;                     /* "http://127.0.0.1:8080" */
	struct curl_slist *headers;     /* Host when the site is elsewhere, then --header's */
	long long wait_us;              /* --wait, between request starts */
	char *user_agent;
	char *netrc;                    /* or NULL */
	long timeout_s;
	size_t max_output;
	size_t memory_max;
	int spill_dirfd;
};

/* Collects the last response's headers (a 100 Continue, say, comes
 * first); folded lines join the header before them. */
static size_t on_header(char *data, size_t size, size_t count, void *arg)
{
	struct http_request *rq = arg;
	struct origin_response *rs = rq->rs;
	size_t len = size * count, n = len;

	while (n && (data[n - 1] == '\n' || data[n - 1] == '\r'))
		n--;
	if (n >= 5 && !strncmp(data, "HTTP/", 5)) {
		for (size_t i = 0; i < rs->nheaders; i++) {
			free(rs->headers[i].name);
			free(rs->headers[i].value);
		}
		rs->nheaders = 0;
		return len;
	}
	if (!n)
		return len;
	if ((data[0] == ' ' || data[0] == '\t') && rs->nheaders) {
		struct origin_header *h = &rs->headers[rs->nheaders - 1];
		size_t skip = 0;
		while (skip < n && (data[skip] == ' ' || data[skip] == '\t'))
			skip++;
		char *joined = xasprintf("%s %.*s", h->value, (int)(n - skip), data + skip);
		free(h->value);
		h->value = joined;
		return len;
	}
	const char *colon = memchr(data, ':', n);
	if (!colon)
		return len;
	const char *v = colon + 1, *end = data + n;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	rs->headers = xrealloc(rs->headers, (rs->nheaders + 1) * sizeof *rs->headers);
	rs->headers[rs->nheaders].name = xstrndup(data, (size_t)(colon - data));
	rs->headers[rs->nheaders].value = xstrndup(v, (size_t)(end - v));
	rs->nheaders++;
	return len;
}

static size_t on_body(char *data, size_t size, size_t count, void *arg)
{
	struct http_request *rq = arg;
	size_t len = size * count;
	if ((unsigned long long)rq->body.len + len > rq->max_output) {
		rq->over = true;
		return 0; /* ends the transfer with CURLE_WRITE_ERROR */
	}
	if (spill_add(&rq->body, data, len, rq->write_err) < 0) {
		rq->write_failed = true;
		return 0;
	}
	return len;
}

static void finish(struct http_origin *h, struct http_request *rq, CURLcode result)
{
	pthread_mutex_lock(&h->lock);
	rq->result = result;
	rq->done = true;
	pthread_cond_signal(&rq->done_cond);
	pthread_mutex_unlock(&h->lock);
}

/* When the next request may start (CLOCK_MONOTONIC, us), for every HTTP
 * origin of the process. */
static pthread_mutex_t pace_lock = PTHREAD_MUTEX_INITIALIZER;
static long long pace_next_us;

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Whether --wait lets a request start now; if not, *poll_ms is cut to
 * the time left (rounded up, so the thread does not wake too early). */
static bool may_start(struct http_origin *h, int *poll_ms)
{
	if (!h->wait_us)
		return true;
	pthread_mutex_lock(&pace_lock);
	long long now = now_us(), left = pace_next_us - now;
	if (left <= 0)
		pace_next_us = now + h->wait_us;
	pthread_mutex_unlock(&pace_lock);
	if (left <= 0)
		return true;
	long long ms = (left + 999) / 1000;
	if (ms < *poll_ms)
		*poll_ms = (int)ms;
	return false;
}

static void *run_multi(void *arg)
{
	struct http_origin *h = arg;
	for (;;) {
		int poll_ms = 1000;
		pthread_mutex_lock(&h->lock);
		while (h->head && h->in_flight < h->jobs && may_start(h, &poll_ms)) {
			struct http_request *rq = h->head;
			h->head = rq->next;
			if (!h->head)
				h->tail = NULL;
			h->in_flight++;
			CURLMcode mc = curl_multi_add_handle(h->multi, rq->easy);
			if (mc != CURLM_OK) {
				h->in_flight--;
				snprintf(rq->errbuf, sizeof rq->errbuf, "%s", curl_multi_strerror(mc));
				rq->result = CURLE_FAILED_INIT;
				rq->done = true;
				pthread_cond_signal(&rq->done_cond);
			}
		}
		bool stop = h->stop && !h->head && !h->in_flight;
		pthread_mutex_unlock(&h->lock);
		if (stop)
			break;

		int running;
		curl_multi_perform(h->multi, &running);
		CURLMsg *msg;
		int left;
		while ((msg = curl_multi_info_read(h->multi, &left))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			struct http_request *rq = NULL;
			CURL *easy = msg->easy_handle;
			CURLcode result = msg->data.result;
			curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&rq);
			curl_multi_remove_handle(h->multi, easy);
			pthread_mutex_lock(&h->lock);
			h->in_flight--;
			pthread_mutex_unlock(&h->lock);
			finish(h, rq, result);
		}
		curl_multi_poll(h->multi, NULL, 0, poll_ms, NULL);
	}
	return NULL;
}

/* err from a finished transfer's result. */
static void transfer_error(const struct http_origin *h, struct http_request *rq, char *err)
{
	long os_errno = 0;
	if (rq->over) {
		err_set(err, "output over %zu MiB", h->max_output >> 20);
		return;
	}
	if (rq->write_failed) {
		err_set(err, "%s", rq->write_err);
		return;
	}
	switch (rq->result) {
	case CURLE_OPERATION_TIMEDOUT:
		err_set(err, "timed out after %ld s", h->timeout_s);
		return;
	case CURLE_COULDNT_CONNECT:
		curl_easy_getinfo(rq->easy, CURLINFO_OS_ERRNO, &os_errno);
		if (os_errno == ECONNREFUSED) {
			err_set(err, "connection refused");
			return;
		}
		break;
	default:
		break;
	}
	const char *msg = rq->errbuf[0] ? rq->errbuf : curl_easy_strerror(rq->result);
	err_set(err, "%c%s", tolower((unsigned char)msg[0]), msg[0] ? msg + 1 : "");
}

/* libcurl decoded the body: the headers describing the encoded one go. */
static void drop_decoded_headers(struct origin_response *rs)
{
	size_t kept = 0;
	for (size_t i = 0; i < rs->nheaders; i++) {
		struct origin_header *hd = &rs->headers[i];
		bool encoded = !strcasecmp(hd->name, "Content-Encoding") && strcasecmp(hd->value, "identity");
		if (!encoded) {
			rs->headers[kept++] = *hd;
			continue;
		}
		free(hd->name);
		free(hd->value);
	}
	if (kept == rs->nheaders)
		return;
	/* Its length was the encoded body's. */
	for (size_t i = 0; i < kept; i++) {
		if (strcasecmp(rs->headers[i].name, "Content-Length"))
			continue;
		free(rs->headers[i].name);
		free(rs->headers[i].value);
		memmove(&rs->headers[i], &rs->headers[i + 1], (kept - i - 1) * sizeof *rs->headers);
		kept--;
		i--;
	}
	rs->nheaders = kept;
}

int http_origin_render(struct http_origin *h, const char *method, const char *target,
		       struct origin_response *rs, char *err)
{
	struct http_request rq;
	char *url = xasprintf("%s%s", h->base, target);
	int rc = 0;

	memset(&rq, 0, sizeof rq);
	rq.rs = rs;
	rq.max_output = h->max_output;
	spill_init(&rq.body, h->memory_max, h->spill_dirfd);
	pthread_cond_init(&rq.done_cond, NULL);
	rq.easy = curl_easy_init();
	if (!rq.easy) {
		rc = err_set(err, "cannot start a transfer (libcurl)");
		goto out;
	}
	CURL *e = rq.easy;
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)&rq);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_PATH_AS_IS, 1L);
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT, h->timeout_s);
	curl_easy_setopt(e, CURLOPT_USERAGENT, h->user_agent);
	if (h->netrc) {
		/* Credentials for the origin's host only: redirects are not
		 * followed, so they never go elsewhere. */
		curl_easy_setopt(e, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
		curl_easy_setopt(e, CURLOPT_NETRC_FILE, h->netrc);
	}
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, rq.errbuf);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, &rq);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &rq);
	/* Any value turns libcurl's decoding on; this one asks for none. */
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "identity");
	if (h->headers)
		curl_easy_setopt(e, CURLOPT_HTTPHEADER, h->headers);
	if (!strcmp(method, "HEAD"))
		curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
	else if (strcmp(method, "GET"))
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);

	pthread_mutex_lock(&h->lock);
	if (h->tail)
		h->tail->next = &rq;
	else
		h->head = &rq;
	h->tail = &rq;
	pthread_mutex_unlock(&h->lock);
	curl_multi_wakeup(h->multi);

	pthread_mutex_lock(&h->lock);
	while (!rq.done)
		pthread_cond_wait(&rq.done_cond, &h->lock);
	pthread_mutex_unlock(&h->lock);

	if (rq.result != CURLE_OK) {
		rs->over_max_output = rq.over;
		transfer_error(h, &rq, err);
		rc = -1;
		goto out;
	}
	long status = 0;
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	rs->status = (int)status;
	const char *type = origin_header(rs, "Content-Type");
	const char *location = origin_header(rs, "Location");
	rs->content_type = type ? xstrdup(type) : NULL;
	rs->location = location ? xstrdup(location) : NULL;
	drop_decoded_headers(rs);
	if (rq.body.fd >= 0) {
		rs->body_size = rq.body.len;
		rs->body_off = 0;
		rs->body_fd = spill_take_fd(&rq.body);
		rs->body_in_file = true;
	} else {
		buf_release(&rs->body);
		rs->body = rq.body.mem;
		buf_init(&rq.body.mem);
	}
out:
	spill_release(&rq.body);
	if (rq.easy)
		curl_easy_cleanup(rq.easy);
	pthread_cond_destroy(&rq.done_cond);
	free(url);
	return rc;
}

struct http_origin *http_origin_open(const char *origin_url, const char *site_origin,
				     long jobs, long timeout_s, size_t max_output,
				     size_t memory_max, const struct http_polite *polite,
				     char *err)
{
	struct http_origin *h;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		err_set(err, "cannot initialise libcurl");
		return NULL;
	}
	h = xcalloc(1, sizeof *h);
	pthread_mutex_init(&h->lock, NULL);
	h->jobs = jobs > 0 ? jobs : 4;
	h->base = xstrdup(origin_url);
	h->timeout_s = timeout_s;
	h->max_output = max_output;
	h->memory_max = memory_max;
	h->spill_dirfd = -1;
	h->wait_us = (long long)(polite->wait_s * 1e6 + 0.5);
	h->user_agent = xstrdup(polite->user_agent);
	h->netrc = polite->netrc ? xstrdup(polite->netrc) : NULL;
	h->multi = curl_multi_init();
	if (!h->multi) {
		err_set(err, "cannot initialise libcurl");
		goto fail;
	}
	curl_multi_setopt(h->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, h->jobs);
	curl_multi_setopt(h->multi, CURLMOPT_MAXCONNECTS, h->jobs);

	/* Like a reverse proxy: the application sees the site's name, unless
	 * the user's --header names the Host. */
	bool own_host = false;
	for (size_t i = 0; i < polite->headers->n; i++)
		if (!strncasecmp(polite->headers->items[i], "Host:", 5))
			own_host = true;
	if (!own_host && strcasecmp(origin_url, site_origin)) {
		const char *host = strstr(site_origin, "://");
		char *line = xasprintf("Host: %s", host ? host + 3 : site_origin);
		h->headers = curl_slist_append(h->headers, line);
		free(line);
		if (!strncasecmp(site_origin, "https:", 6) && strncasecmp(origin_url, "https:", 6))
			h->headers = curl_slist_append(h->headers, "X-Forwarded-Proto: https");
	}
	for (size_t i = 0; i < polite->headers->n; i++)
		h->headers = curl_slist_append(h->headers, polite->headers->items[i]);

	if (pthread_create(&h->thread, NULL, run_multi, h)) {
		err_set(err, "cannot start the HTTP thread");
		goto fail;
	}
	h->thread_started = true;

	/* The server must answer now, not at the first page: any status will do. */
	struct origin_response rs;
	char why[ERR_LEN];
	origin_response_init(&rs);
	int rc = http_origin_render(h, "GET", "/", &rs, why);
	origin_response_release(&rs);
	if (rc < 0) {
		err_set(err, "cannot reach HTTP origin '%s': %s", origin_url, why);
		goto fail;
	}
	return h;
fail:
	http_origin_close(h);
	return NULL;
}

void http_origin_spill_in(struct http_origin *h, int dirfd)
{
	h->spill_dirfd = dirfd;
}

void http_origin_close(struct http_origin *h)
{
	if (!h)
		return;
	if (h->thread_started) {
		pthread_mutex_lock(&h->lock);
		h->stop = true;
		pthread_mutex_unlock(&h->lock);
		curl_multi_wakeup(h->multi);
		pthread_join(h->thread, NULL);
	}
	if (h->multi)
		curl_multi_cleanup(h->multi);
	curl_slist_free_all(h->headers);
	free(h->base);
	free(h->user_agent);
	free(h->netrc);
	pthread_mutex_destroy(&h->lock);
	free(h);
	curl_global_cleanup();
}
