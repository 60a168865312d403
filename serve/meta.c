/* serve/meta.c - the tree's settings, manifest and 404 page as the server
 * holds them, and the mapping of a request target to what the tree stores
 * for it (the same steps snapshot took to store it; answer.h decides). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree/answer.h"
#include "tree/publish.h"
#include "base/buf.h"
#include "base/log.h"
#include "respond.h"
#include "serve.h"
#include "url/urlkey.h"
#include "base/xalloc.h"

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

int meta_init(struct meta *m, struct tree *t, const char *default_site_url, char *err)
{
	memset(m, 0, sizeof *m);
	pthread_rwlock_init(&m->lock, NULL);
	pthread_mutex_init(&m->journal_mu, NULL);
	struct manifest empty = MANIFEST_INIT;
	m->fills = m->saving = empty;
	if (load_site(&m->site, t, default_site_url, err) < 0)
		goto fail;
	m->have_site = true;
	m->default_site_url = default_site_url ? xstrdup(default_site_url) : NULL;
	m->db = t;
	m->not_found = load_404(t);
	return 0;
fail:
	meta_release(m);
	return -1;
}

int meta_reload(struct meta *m, struct tree *t, const char *default_site_url, char *err)
{
	struct site site;
	if (load_site(&site, t, default_site_url, err) < 0)
		return -1;
	pthread_rwlock_wrlock(&m->lock);
	struct site old_site = m->site;
	m->site = site;
	/* Also when only tree.db changed: the route cache's answers were
	 * read from the rows before. */
	atomic_fetch_add(&m->gen, 1);
	pthread_rwlock_unlock(&m->lock);
	site_release(&old_site);
	return 0;
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

/* A copy of --fill's entry for target not yet in tree.db, NULL when
 * none; the lock held. The newest first: a fill since the last save,
 * then that save's. A save's entries leave saving only after its commit:
 * a target in neither map when it was looked at is, if anywhere, in a
 * row committed by then, so tree.db is read after the lock is let go. */
static struct manifest_entry *unsaved(struct meta *m, const char *target)
{
	const struct manifest_entry *e = manifest_get(&m->fills, target);
	if (!e)
		e = manifest_get(&m->saving, target);
	return e ? manifest_entry_dup(e) : NULL;
}

int meta_entry(struct meta *m, const char *target, struct manifest_entry **out, char *err)
{
	pthread_rwlock_rdlock(&m->lock);
	*out = unsaved(m, target);
	pthread_rwlock_unlock(&m->lock);
	/* Not under the lock: a reload or a fill does not wait for SQLite,
	 * nor lookups for them. */
	if (!*out && m->db)
		return manifest_lookup(m->db, target, out, err);
	return 0;
}

/* Count a fill of target in or out of m->filling (two may overlap: a
 * request that missed a flight's end starts another). Locked. */
static void filling_add(struct meta *m, const char *target, int by)
{
	uintptr_t n = (uintptr_t)hashmap_get(&m->filling, target) + (uintptr_t)(intptr_t)by;
	if (n)
		hashmap_put(&m->filling, target, (void *)n);
	else
		hashmap_remove(&m->filling, target);
}

void meta_fill_begin(struct meta *m, const char *target)
{
	pthread_rwlock_wrlock(&m->lock);
	filling_add(m, target, 1);
	atomic_fetch_add(&m->fills_in_flight, 1);
	pthread_rwlock_unlock(&m->lock);
}

int meta_fill_journal(struct meta *m, struct tree *t, const struct manifest_entry *e, char *err)
{
	/* Under journal_mu: a save that found no fill in flight empties the
	 * journal before this line or after it, never over it. */
	pthread_mutex_lock(&m->journal_mu);
	int rc = manifest_journal(t, e, err);
	if (rc == 0)
		m->journaled = true;
	pthread_mutex_unlock(&m->journal_mu);
	return rc;
}

void meta_fill_put(struct meta *m, struct manifest_entry *e)
{
	pthread_rwlock_wrlock(&m->lock);
	filling_add(m, e->target, -1);
	manifest_put(&m->fills, e);
	/* Routes read before may name the file this one replaced. */
	atomic_fetch_add(&m->gen, 1);
	atomic_fetch_sub(&m->fills_in_flight, 1);
	pthread_rwlock_unlock(&m->lock);
}

void meta_fill_abort(struct meta *m, const char *target)
{
	pthread_rwlock_wrlock(&m->lock);
	filling_add(m, target, -1);
	atomic_fetch_sub(&m->fills_in_flight, 1);
	pthread_rwlock_unlock(&m->lock);
}

bool meta_fill_since(struct meta *m, const char *target, unsigned gen)
{
	pthread_rwlock_rdlock(&m->lock);
	bool since = hashmap_get(&m->filling, target) || atomic_load(&m->gen) != gen;
	pthread_rwlock_unlock(&m->lock);
	return since;
}

/* Give the entries of m->saving back to m->fills (a save failed), but
 * those a later fill replaced; lock held for writing. */
static void unsave(struct meta *m)
{
	size_t it = 0;
	const char *k;
	void *v;
	while (hashmap_next(&m->saving.entries, &it, &k, &v)) {
		if (manifest_get(&m->fills, k))
			manifest_entry_free(v);
		else
			manifest_put(&m->fills, v);
	}
	hashmap_release(&m->saving.entries);
}

int meta_save_if_dirty(struct meta *m, struct tree *t, char *err)
{
	int rc = 0;
	/* The fills so far become the save's; later ones go to fills again
	 * and wait for the next save. Requests and fills go on meanwhile. */
	pthread_rwlock_rdlock(&m->lock);
	bool any = manifest_count(&m->fills) > 0;
	pthread_rwlock_unlock(&m->lock);
	if (any) {
		pthread_rwlock_wrlock(&m->lock);
		m->saving = m->fills;
		struct manifest empty = MANIFEST_INIT;
		m->fills = empty;
		pthread_rwlock_unlock(&m->lock);
	}
	if (manifest_count(&m->saving)) {
		/* Reads saving without the lock: only this thread writes it.
		 * The renames of the fills it holds (each published before it
		 * joined fills) are synced first (publish.h). */
		rc = publish_sync_dirs(t->fd, err);
		if (rc == 0)
			rc = manifest_save_delta(&m->saving, NULL, NULL, t, err);
		pthread_rwlock_wrlock(&m->lock);
		if (rc < 0)
			unsave(m);
		else
			manifest_release(&m->saving);
		pthread_rwlock_unlock(&m->lock);
	}
	if (rc < 0)
		return -1;
	/* A fill in flight or not yet saved has a journal line tree.db's
	 * rows lack: keep the journal for the next save (replaying a line
	 * twice is harmless). */
	pthread_mutex_lock(&m->journal_mu);
	if (m->journaled) {
		pthread_rwlock_rdlock(&m->lock);
		bool settled = atomic_load(&m->fills_in_flight) == 0 && !manifest_count(&m->fills);
		pthread_rwlock_unlock(&m->lock);
		if (settled) {
			rc = manifest_journal_reset(t, err);
			if (rc == 0)
				m->journaled = false;
		}
	}
	pthread_mutex_unlock(&m->journal_mu);
	return rc;
}

void meta_release(struct meta *m)
{
	if (m->have_site)
		site_release(&m->site);
	manifest_release(&m->fills);
	manifest_release(&m->saving);
	hashmap_release(&m->filling);
	free(m->default_site_url);
	if (m->not_found.r)
		MHD_destroy_response(m->not_found.r);
	pthread_mutex_destroy(&m->journal_mu);
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
		pthread_rwlock_unlock(&m->lock);
		return;
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
		pthread_rwlock_unlock(&m->lock);
		return;
	}
	struct manifest_entry *row = unsaved(m, r->target);
	bool filling = !row && hashmap_get(&m->filling, r->target);
	pthread_rwlock_unlock(&m->lock);
	if (filling) {
		r->kind = RESOLVE_MISSING;
		return;
	}
	/* The row as last committed, on this thread's own connection: a
	 * reload (settings changed) or a fill does not wait for it. Should
	 * one come in between, the answer still carries the generation it
	 * began with, which the route cache then takes as stale. */
	char err[ERR_LEN];
	if (!row && m->db && manifest_lookup(m->db, r->target, &row, err) < 0)
		log_warn("%s", err); /* answered as missing */
	struct answer a;
	answer_for(row, r->target, &a);
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
			pthread_rwlock_rdlock(&m->lock);
			r->location = site_url_for(&m->site, slashed);
			pthread_rwlock_unlock(&m->lock);
			free(slashed);
		}
		r->key = a.key;
		a.key = NULL;
		/* The strings of a point into row: copied before it goes. */
		r->content_type = xstrdup(a.content_type ? a.content_type : mime_from_name(r->key));
		break;
	}
	answer_release(&a);
	manifest_entry_free(row);
}

void resolution_release(struct resolution *r)
{
	free(r->target);
	free(r->key);
	free(r->content_type);
	free(r->location);
	memset(r, 0, sizeof *r);
}
