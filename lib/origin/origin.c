/* origin.c - the origin interface (origin.h), the dispatcher: defaults,
 * what an open origin tells, and the dispatch of a render to the CGI,
 * FastCGI or HTTP back end. Opening and closing it is open.c's; what a
 * target names under the document root, docroot.c's; the CGI
 * environment, cgienv.c's; the response type, response.c's. */
#include "origin/origin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "origin/cgienv.h"
#include "origin/cgiresp.h"
#include "base/clock.h"
#include "origin/docroot.h"
#include "base/log.h"
#include "base/opts.h"
#include "origin/origin_impl.h"
#include "base/spill.h"
#include "url/urlkey.h"
#include "origin/workers.h"
#include "base/xalloc.h"

/* RFC 3875 6.2.2 lets a script hand a request on; this many times at most. */
#define MAX_LOCAL_REDIRECTS 10

void origin_defaults(struct origin_config *cfg)
{
	opts_default(&cfg->index, ORIGIN_INDEX);
	opts_default(&cfg->site_url, cfg->origin_url ? cfg->origin_url : ORIGIN_SITE_URL);
	if (cfg->timeout_s <= 0)
		cfg->timeout_s = ORIGIN_TIMEOUT_S;
	if (cfg->max_output_mb <= 0)
		cfg->max_output_mb = ORIGIN_MAX_OUTPUT_MB;
}

void origin_config_release(struct origin_config *cfg)
{
	free(cfg->root);
	strlist_clear(&cfg->cgi);
	strlist_clear(&cfg->cgi_spawn);
	strlist_clear(&cfg->static_exts);
	free(cfg->index);
	free(cfg->cgi_mode);
	free(cfg->front_controller);
	strlist_clear(&cfg->env);
	strlist_clear(&cfg->script_aliases);
	strlist_clear(&cfg->path_aliases);
	free(cfg->origin_url);
	strlist_clear(&cfg->fastcgi);
	free(cfg->wait);
	free(cfg->user_agent);
	strlist_clear(&cfg->headers);
	free(cfg->netrc);
	free(cfg->site_url);
	strlist_clear(&cfg->aliases);
	char *trace_lib = cfg->trace_lib; /* borrowed, see origin.h */
	memset(cfg, 0, sizeof *cfg);
	cfg->trace_lib = trace_lib;
}

/* ---- rendering ---- */

static void respond_not_found(struct origin_response *rs)
{
	rs->status = 404;
	rs->content_type = xstrdup("text/html");
	origin_response_add_header(rs, "Content-Type", rs->content_type);
	buf_adds(&rs->body, "Not Found");
}

/* The start of what a program wrote, for messages about its failure:
 * at most ORIGIN_OUTPUT_EXCERPT bytes, NUL-terminated, or NULL. */
static char *output_excerpt(const struct spill *raw)
{
	long long n = raw->len < ORIGIN_OUTPUT_EXCERPT ? raw->len : ORIGIN_OUTPUT_EXCERPT;
	char why[ERR_LEN];
	if (n <= 0)
		return NULL;
	if (raw->fd < 0)
		return xstrndup(raw->mem.data, (size_t)n);
	struct buf b = BUF_INIT;
	if (spill_read(raw->fd, 0, n, &b, "program output", why) < 0) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* Run the script and parse what it wrote. A non-zero exit status after a
 * complete response is a warning, not a failure: RFC 3875 makes stdout
 * the response, and Apache sends it. 0, CGIRESP_LOCAL_REDIRECT or -1. */
static int run_script(const struct origin *o, const char *target, const struct origin_script *script,
		      const struct strlist *env, struct spill *raw, struct origin_response *rs, char *err)
{
	unsigned long status = 0;
	int rc;
	if (script->handler && script->handler->workers) {
		rc = workers_run(script->handler->workers, target, env, o->timeout_s, o->max_output,
				 raw, &status, rs, script->dir, err);
		/* A --cgi-spawn worker runs without the tracer: watch treats
		 * its pages as depending on everything. */
		if (o->trace_lib && script->handler->command && !rs->untraced) {
			origin_mark_untraced(rs, script->handler->command,
					     "runs as a --cgi-spawn FastCGI worker, which is not traced");
		}
	} else if (o->kind == ORIGIN_CGI) {
		int code;
		rc = cgi_run(o, target, script, env, raw, rs, &code, err);
		status = (unsigned long)code;
	} else {
		rc = upstream_run(o->fcgi, target, env, o->timeout_s, o->max_output, raw, &status, err);
	}
	/* both stop reading just past the limit */
	if (rc < 0 && (unsigned long long)raw->len > o->max_output)
		rs->over_max_output = true;
	/* The parser takes the output: what a failure said is copied first. */
	char *excerpt = output_excerpt(raw);
	if (rc == 0)
		rc = cgiresp_parse_spill(raw, rs, err);
	if (rc >= 0 && status)
		rs->warning = o->kind == ORIGIN_CGI
				      ? xasprintf("the CGI program exited with status %lu after a complete "
						  "response", status)
				      : xasprintf("the FastCGI application ended with status %lu after a "
						  "complete response", status);
	else if (rc < 0 && status)
		err_set(err, "exited with status %lu", status);
	if (rc < 0)
		rs->failed_output = excerpt;
	else
		free(excerpt);
	return rc;
}

/* One render without following local redirects: 0, CGIRESP_LOCAL_REDIRECT
 * or -1. */
static int render_once(const struct origin *o, const char *method, const char *target,
		       const char *remote_addr, struct origin_response *rs, char *err)
{
	if (target[0] != '/')
		return err_set(err, "bad target '%s'", target);
	if (o->kind == ORIGIN_HTTP)
		return http_origin_render(o->http, method, target, rs, err);

	const char *query = strchr(target, '?');
	size_t path_len = query ? (size_t)(query - target) : strlen(target);
	struct resolved r;
	struct strlist env = STRLIST_INIT;
	struct spill raw;
	int rc = 0;

	spill_init(&raw, o->memory_max, o->spill_dirfd);
	docroot_resolve(o, target, path_len, query ? query + 1 : NULL, &r);
	if (r.kind == RESOLVE_MISSING && o->front_controller)
		docroot_front_controller(o, &r);

	switch (r.kind) {
	case RESOLVE_MISSING:
	case RESOLVE_REFUSED:
		respond_not_found(rs);
		rs->refused = r.why; /* a refused index file, or the path itself */
		r.why = NULL;
		break;
	case RESOLVE_SLASH:
		rs->status = 301;
		rs->location = xstrdup(r.path);
		origin_response_add_header(rs, "Location", r.path);
		break;
	case RESOLVE_SOURCE: {
		/* Named from the root, or whole when a --path-alias DIR holds it. */
		size_t n = o->root && strcmp(o->root, "/") ? strlen(o->root) : 0;
		const char *rel = o->root && !strncmp(r.path, o->root, n) && r.path[n] == '/' ? r.path + n + 1 : r.path;
		char *what = xasprintf("'%s'", rel);
		rc = docroot_source_error(o, what, r.path, err);
		free(what);
		break;
	}
	case RESOLVE_STATIC:
		rs->status = 200;
		rs->content_type = xstrdup(mime_from_name(strrchr(r.path, '/') + 1));
		origin_response_add_header(rs, "Content-Type", rs->content_type);
		rs->static_path = xstrdup(r.path);
		rs->static_size = r.size;
		break;
	case RESOLVE_SCRIPT:
		origin_cgi_env(o, method, target, remote_addr, &r.script, &env);
		rc = run_script(o, target, &r.script, &env, &raw, rs, err);
		break;
	}
	/* A server sends no body for HEAD, whatever the program wrote. */
	if (rc == CGIRESP_DOCUMENT && !strcmp(method, "HEAD"))
		origin_body_drop(rs);
	strlist_clear(&env);
	spill_release(&raw);
	docroot_release(&r);
	return rc;
}

/* Move the strings of from to the end of to. */
static void strlist_move(struct strlist *to, struct strlist *from)
{
	for (size_t i = 0; i < from->n; i++)
		strlist_add_owned(to, from->items[i]);
	free(from->items);
	memset(from, 0, sizeof *from);
}

static void strlist_set(struct strlist *l)
{
	strlist_sort(l);
	strlist_uniq(l);
}

/* The trace lists of a response, in one array so they move together. */
#define NDEPS 4
static void deps_lists(struct origin_response *rs, struct strlist *out[NDEPS])
{
	out[0] = &rs->deps_read;
	out[1] = &rs->deps_exist;
	out[2] = &rs->deps_listed;
	out[3] = &rs->deps_written;
}

int origin_render(struct origin *o, const struct origin_request *rq, struct origin_response *rs,
		  char *err)
{
	const char *method = rq->method ? rq->method : "GET";
	long long start = now_ms();
	char *target = xstrdup(rq->target);
	/* The dependencies of scripts that redirected locally count too. */
	struct strlist kept[NDEPS];
	struct strlist *lists[NDEPS];
	char *untraced = NULL, *untraced_why = NULL; /* of a script that redirected */
	bool any = false;
	int rc;

	memset(kept, 0, sizeof kept);
	origin_response_init(rs);
	for (int hops = 0;; hops++) {
		rc = render_once(o, method, target, rq->remote_addr, rs, err);
		if (rc != CGIRESP_LOCAL_REDIRECT)
			break;
		if (hops == MAX_LOCAL_REDIRECTS) {
			rc = err_set(err, "local redirect loop");
			break;
		}
		free(target);
		target = rs->location;
		rs->location = NULL;
		deps_lists(rs, lists);
		for (int i = 0; i < NDEPS; i++) {
			any = any || lists[i]->n;
			strlist_move(&kept[i], lists[i]);
		}
		if (rs->untraced && !untraced) {
			untraced = rs->untraced, untraced_why = rs->untraced_why;
			rs->untraced = rs->untraced_why = NULL;
		}
		origin_response_release(rs);
	}
	free(target);
	if (rc >= 0 && untraced && !rs->untraced) {
		rs->untraced = untraced, rs->untraced_why = untraced_why;
		untraced = untraced_why = NULL;
	}
	free(untraced);
	free(untraced_why);
	if (rc < 0) {
		/* What a failed render wrote is still the site's own state:
		 * watch must know it, or the write starts a batch. */
		struct strlist written = STRLIST_INIT;
		bool over = rs->over_max_output;
		strlist_move(&written, &kept[3]);
		strlist_move(&written, &rs->deps_written);
		char *output = rs->failed_output;
		rs->failed_output = NULL;
		origin_response_release(rs);
		for (int i = 0; i < NDEPS; i++)
			strlist_clear(&kept[i]);
		strlist_set(&written);
		rs->deps_written = written;
		rs->over_max_output = over;
		rs->failed_output = output;
		return -1;
	}
	if (any) {
		deps_lists(rs, lists);
		for (int i = 0; i < NDEPS; i++) {
			strlist_move(lists[i], &kept[i]);
			strlist_set(lists[i]);
		}
	}
	rs->render_ms = (long)(now_ms() - start);
	return 0;
}

/* ---- what an open origin tells ---- */

void origin_set_trace_keep(struct origin *o, bool (*keep)(void *arg, const char *path), void *arg)
{
	for (size_t i = 0; i < o->nhandlers; i++)
		if (o->handlers[i].workers)
			workers_set_trace_keep(o->handlers[i].workers, keep, arg);
}

enum origin_kind origin_kind(const struct origin *o)
{
	return o->kind;
}

void origin_describe(const struct origin *o, char *buf, size_t len)
{
	struct buf b = BUF_INIT;
	bool forks = false;
	if (o->kind != ORIGIN_CGI) {
		buf_addf(&b, "%s %s", o->kind == ORIGIN_FASTCGI ? "fastcgi" : "http", o->server_addr);
		goto out;
	}
	for (size_t i = 0; i < o->nhandlers; i++) {
		const struct origin_handler *h = &o->handlers[i];
		if (!h->workers) {
			forks = true;
			continue;
		}
		const char *base = h->prog ? strrchr(h->prog, '/') : NULL;
		if (b.len)
			buf_adds(&b, ", ");
		if (h->command)
			buf_addf(&b, "'%s' workers (%zu)", h->command, workers_size(h->workers));
		else
			buf_addf(&b, "%s workers (%zu)", base ? base + 1 : h->prog, workers_size(h->workers));
	}
	/* *.cgi programs, other handlers: a process per render. */
	if (forks || !b.len)
		buf_addf(&b, "%sfork", b.len ? ", " : "");
out:
	snprintf(buf, len, "%s", b.data ? b.data : "");
	buf_release(&b);
}

void origin_mount_dirs(const struct origin *o, struct strlist *out)
{
	for (size_t i = 0; i < o->nmounts; i++) {
		const char *path = o->mounts[i].path, *slash = strrchr(path, '/');
		if (!o->mounts[i].script || o->mounts[i].dir)
			strlist_add(out, path);
		else
			strlist_add_owned(out, slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path)));
	}
}

void origin_private_dirs(const struct origin *o, struct strlist *out)
{
	if (o->php_session_dir)
		strlist_add(out, o->php_session_dir);
}

void origin_exposed_dirs(const struct origin *o, struct strlist *out)
{
	for (size_t i = 0; i < o->nmounts; i++)
		if (!o->mounts[i].script || o->mounts[i].dir)
			strlist_add(out, o->mounts[i].path);
}

int origin_mount_seeds(const struct origin *o, const char *page, struct strlist *seeds)
{
	size_t rest;
	for (size_t i = 0; page && i < o->nmounts; i++)
		if (mount_match(o->mounts[i].prefix, page, strcspn(page, "?"), &rest))
			return 0;
	size_t had = seeds->n;
	for (size_t i = 0; i < o->nmounts; i++) /* the programs, as given */
		if (o->mounts[i].script && !o->mounts[i].dir)
			strlist_add(seeds, *o->mounts[i].prefix ? o->mounts[i].prefix : "/");
	for (size_t i = 0; i < o->nmounts; i++) /* the directories' indexes */
		if (!o->mounts[i].script)
			strlist_add_owned(seeds, xasprintf("%s/", o->mounts[i].prefix));
	return seeds->n > had ? 0 : -1;
}

bool origin_has_nothing_at(const struct origin *o, const char *dir)
{
	if (o->kind == ORIGIN_HTTP)
		return false;
	/* Without its slash: a directory there is a redirect to its slash
	 * form, whether or not it has an index file. */
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	struct resolved r;
	docroot_resolve(o, dir, n, NULL, &r);
	bool nothing = r.kind == RESOLVE_MISSING && !r.why;
	docroot_release(&r);
	return nothing;
}

bool origin_config_has_docroot(const struct origin_config *cfg)
{
	return cfg->root || cfg->script_aliases.n || cfg->path_aliases.n;
}

long origin_timeout_s(const struct origin *o)
{
	return o->timeout_s;
}

long origin_max_output_mb(const struct origin *o)
{
	return o->max_output_mb;
}

void origin_spill_in(struct origin *o, int dirfd)
{
	o->spill_dirfd = dirfd;
	if (o->http)
		http_origin_spill_in(o->http, dirfd);
}

void origin_keep_out(struct origin *o, const char *dir)
{
	free(o->keep_out);
	o->keep_out = realpath(dir, NULL);
}
