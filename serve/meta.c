/* serve/meta.c - the tree's settings, manifest and 404 page as the server
 * holds them, and the mapping of a request target to what the tree stores
 * for it (the same steps snapshot took to store it; answer.h decides). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "answer.h"
#include "buf.h"
#include "log.h"
#include "serve.h"
#include "urlkey.h"
#include "xalloc.h"

#define NOT_FOUND_HTML "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>" \
	"<body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>\n"
/* A 404 page larger than this is not the site's 404 page. */
#define NOT_FOUND_MAX (1024 * 1024)

/* The site for the tree: default_site_url, overridden by the settings the
 * snapshot recorded. */
static int load_site(struct site *s, struct tree *t, const char *default_site_url, char *err)
{
	if (site_init(s, default_site_url, err) < 0)
		return -1;
	if (t && tree_load_settings(t, s, err) < 0) {
		site_release(s);
		return -1;
	}
	return 0;
}

/* The 404 page as a response: DIR/.cgisnap/404.html, or a plain one. */
static struct fixed_response load_404(struct tree *t)
{
	struct buf b = BUF_INIT;
	int fd = t && t->meta_fd >= 0 ?
			 openat(t->meta_fd, "404.html", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK) :
			 -1;
	if (fd >= 0) {
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= NOT_FOUND_MAX) {
			/* One that grew past the cap since is not it either. */
			if (buf_read_fd(&b, fd, NOT_FOUND_MAX) < 0)
				buf_reset(&b);
		}
		close(fd);
	}
	struct fixed_response f;
	if (!b.len) {
		buf_release(&b);
		f = fixed_html(NOT_FOUND_HTML);
	} else {
		size_t len;
		char *data = buf_detach(&b, &len);
		f.r = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
		f.len = (long long)len;
		if (!f.r) {
			log_error("cannot create a response: out of memory");
			exit(3);
		}
		MHD_add_response_header(f.r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/html; charset=utf-8");
	}
	MHD_add_response_header(f.r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	return f;
}

int meta_init(struct meta *m, struct tree *t, const char *default_site_url, bool in_memory, char *err)
{
	memset(m, 0, sizeof *m);
	pthread_rwlock_init(&m->lock, NULL);
	struct manifest empty = MANIFEST_INIT;
	m->manifest = empty;
	if (load_site(&m->site, t, default_site_url, err) < 0)
		goto fail;
	m->have_site = true;
	m->default_site_url = default_site_url ? xstrdup(default_site_url) : NULL;
	if (t && !in_memory)
		m->db = t;
	else if (t && manifest_load(&m->manifest, t, err) < 0)
		goto fail;
	m->not_found = load_404(t);
	return 0;
fail:
	meta_release(m);
	return -1;
}

int meta_reload(struct meta *m, struct tree *t, const char *default_site_url, char *err)
{
	struct site site;
	struct manifest manifest = MANIFEST_INIT;
	if (load_site(&site, t, default_site_url, err) < 0)
		return -1;
	if (!m->db && manifest_load(&manifest, t, err) < 0) {
		manifest_release(&manifest);
		site_release(&site);
		return -1;
	}
	pthread_rwlock_wrlock(&m->lock);
	struct site old_site = m->site;
	struct manifest old_manifest = m->manifest;
	m->site = site;
	m->manifest = manifest;
	atomic_fetch_add(&m->gen, 1);
	pthread_rwlock_unlock(&m->lock);
	site_release(&old_site);
	manifest_release(&old_manifest);
	return 0;
}

int meta_reload_if_stale(struct meta *m, struct tree *t, char *err)
{
	/* Looked up per request: every answer is already the newest. */
	if (m->db)
		return 0;
	if (!manifest_changed(t))
		return 0;
	return meta_reload(m, t, m->default_site_url, err) < 0 ? -1 : 1;
}

void meta_reload_404(struct meta *m, struct tree *t)
{
	struct fixed_response f = load_404(t);
	pthread_rwlock_wrlock(&m->lock);
	struct MHD_Response *old = m->not_found.r;
	m->not_found = f;
	pthread_rwlock_unlock(&m->lock);
	/* Requests that queued the old page keep it alive until sent. */
	if (old)
		MHD_destroy_response(old);
}

int meta_save_if_dirty(struct meta *m, struct tree *t, char *err)
{
	int rc = 0;
	/* Saving only reads the manifest: a read lock lets requests go on;
	 * fills (which write) wait for the save. */
	pthread_rwlock_rdlock(&m->lock);
	bool dirty = m->dirty;
	pthread_rwlock_unlock(&m->lock);
	if (!dirty)
		return 0;
	pthread_rwlock_wrlock(&m->lock);
	m->dirty = false;
	rc = manifest_save(&m->manifest, t, err);
	if (rc < 0)
		m->dirty = true;
	/* A fill in flight has a journal line the saved manifest lacks: keep
	 * the journal for the next save (replaying a line twice is harmless). */
	else if (atomic_load(&m->fills_in_flight) == 0)
		rc = manifest_journal_reset(t, err);
	pthread_rwlock_unlock(&m->lock);
	return rc;
}

void meta_release(struct meta *m)
{
	if (m->have_site)
		site_release(&m->site);
	manifest_release(&m->manifest);
	free(m->default_site_url);
	if (m->not_found.r)
		MHD_destroy_response(m->not_found.r);
	pthread_rwlock_destroy(&m->lock);
	memset(m, 0, sizeof *m);
}

void meta_resolve(struct meta *m, const char *target, struct resolution *r)
{
	memset(r, 0, sizeof *r);

	pthread_rwlock_rdlock(&m->lock);
	r->gen = atomic_load(&m->gen);
	r->target = site_canonical_target(&m->site, target);
	if (!r->target) {
		r->kind = RESOLVE_BAD;
		goto out;
	}
	/* A --canonical rule answers before the manifest, as the generated
	 * configurations do: also for URLs the crawl never met. */
	size_t rule;
	char *to = site_canonical_redirect(&m->site, r->target, &rule);
	if (to) {
		r->kind = RESOLVE_REDIRECT;
		r->status = 302;
		r->location = site_url_for(&m->site, to);
		r->canonical = true;
		free(to);
		goto out;
	}
	struct tree_answer a;
	struct manifest_entry *row = NULL;
	if (m->db) {
		char err[ERR_LEN];
		if (manifest_lookup(m->db, r->target, &row, err) < 0)
			log_warn("%s", err); /* answered as missing */
	}
	tree_answer(m->db ? row : manifest_get(&m->manifest, r->target), r->target, &a);
	switch (a.kind) {
	case ANSWER_REDIRECT:
		r->kind = RESOLVE_REDIRECT;
		r->status = a.status;
		r->location = xstrdup(a.location);
		break;
	case ANSWER_GONE:
		r->kind = RESOLVE_GONE;
		r->status = a.status;
		break;
	case ANSWER_MISSING:
		r->kind = RESOLVE_MISSING;
		break;
	case ANSWER_FILE:
		r->kind = RESOLVE_FILE;
		r->listed = a.listed;
		if (a.slash_form) {
			char *slashed = xasprintf("%s/", r->target);
			r->slash_form = true;
			r->status = 301;
			r->location = site_url_for(&m->site, slashed);
			free(slashed);
		}
		r->key = a.key;
		a.key = NULL;
		/* The strings of a point into the manifest: copied before
		 * the lock is let go. */
		r->content_type = xstrdup(a.content_type ? a.content_type : mime_from_name(r->key));
		break;
	}
	tree_answer_release(&a);
	manifest_entry_free(row);
out:
	pthread_rwlock_unlock(&m->lock);
}

void resolution_release(struct resolution *r)
{
	free(r->target);
	free(r->key);
	free(r->content_type);
	free(r->location);
	memset(r, 0, sizeof *r);
}
