/* serve/cache.c - ready-made responses for the tree's files, sharded,
 * CLOCK-evicted, invalidated by inotify (see cache.h). */
#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hashmap.h"
#include "safeopen.h"
#include "base/xalloc.h"

#define SHARDS 16
#define ROUTES_PER_SHARD 4096
/* Files up to this size are held in memory (when the budget allows);
 * larger ones are mapped (see cache.h for why not sendfile). */
#define MEMORY_FILE_MAX (256 * 1024)
/* What an entry costs beyond its bytes: the struct, headers, responses. */
#define ENTRY_OVERHEAD 1024

/* Bytes shared by responses: read into memory (inline) or a mapping of
 * the file (mapped: its len bytes are unmapped with the last reference). */
struct blob {
	atomic_long refs;
	size_t len;
	bool mapped;
	char *data;
	char inline_data[];
};

struct shard {
	pthread_rwlock_t lock;
	struct hashmap files;      /* key -> struct fentry (the map holds a reference) */
	struct fentry *mem_hand;   /* CLOCK ring of memory entries */
	struct fentry *fd_hand;    /* CLOCK ring of big files (mapped or descriptors) */
	size_t bytes;
	size_t open_files;
	atomic_ulong seq;          /* invalidations so far */
	char pad[64];              /* keep neighbouring shards' locks apart */
};

struct route {
	char *key;
	char *content_type;
	unsigned gen;
};

struct route_shard {
	pthread_rwlock_t lock;
	struct hashmap routes;     /* raw target -> struct route */
	char pad[64];
};

struct cache {
	int rootfd;
	atomic_bool enabled;
	size_t shard_bytes;        /* memory budget of one shard */
	size_t shard_files;        /* big files one shard may keep */
	size_t memory_max;         /* largest file held in memory */
	char *cache_control;
	struct shard shards[SHARDS];
	struct route_shard routes[SHARDS];
};

static struct blob *blob_new(size_t len)
{
	struct blob *b = xmalloc(sizeof *b + len + 1);
	atomic_init(&b->refs, 1);
	b->len = len;
	b->mapped = false;
	b->data = b->inline_data;
	return b;
}

/* A blob over the first len bytes of fd, mapped; NULL when the file
 * cannot be mapped (the caller sends it with sendfile instead). */
static struct blob *blob_map(int fd, size_t len)
{
	void *addr = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (addr == MAP_FAILED)
		return NULL;
	struct blob *b = xmalloc(sizeof *b);
	atomic_init(&b->refs, 1);
	b->len = len;
	b->mapped = true;
	b->data = addr;
	return b;
}

static void blob_put(struct blob *b)
{
	if (!b || atomic_fetch_sub(&b->refs, 1) != 1)
		return;
	if (b->mapped)
		munmap(b->data, b->len);
	free(b);
}

/* libmicrohttpd calls this when a response over a blob is finally freed. */
static void blob_release_cb(void *cls)
{
	blob_put(cls);
}

static size_t shard_index(const char *s)
{
	/* The high bits: hashmap uses the low ones for its slots. */
	return (size_t)(hash_string(s) >> 60) & (SHARDS - 1);
}

struct cache *cache_new(int rootfd, size_t budget_bytes, size_t max_open_files,
			const char *cache_control)
{
	struct cache *c = xcalloc(1, sizeof *c);
	c->rootfd = rootfd;
	c->enabled = budget_bytes > 0;
	c->shard_bytes = budget_bytes / SHARDS;
	c->shard_files = max_open_files / SHARDS;
	/* A shard should hold several of its largest memory files. */
	c->memory_max = c->shard_bytes / 4 < MEMORY_FILE_MAX ? c->shard_bytes / 4 : MEMORY_FILE_MAX;
	c->cache_control = cache_control ? xstrdup(cache_control) : NULL;
	for (size_t i = 0; i < SHARDS; i++) {
		pthread_rwlock_init(&c->shards[i].lock, NULL);
		pthread_rwlock_init(&c->routes[i].lock, NULL);
	}
	return c;
}

static void variant_release(struct variant *v)
{
	if (v->ok)
		MHD_destroy_response(v->ok);
	else if (v->fd >= 0)
		close(v->fd);
	if (v->not_modified)
		MHD_destroy_response(v->not_modified);
	blob_put(v->body);
	v->ok = v->not_modified = NULL;
	v->body = NULL;
	v->mapped = false;
	v->fd = -1;
}

void fentry_put(struct fentry *e)
{
	if (!e || atomic_fetch_sub(&e->refs, 1) != 1)
		return;
	variant_release(&e->plain);
	variant_release(&e->gz);
	free(e->key);
	free(e->content_type);
	free(e);
}

static void fentry_get(struct fentry *e)
{
	atomic_fetch_add(&e->refs, 1);
	atomic_store_explicit(&e->referenced, true, memory_order_relaxed);
}

/* Read the open file fd (st describes it) into v: into memory when
 * in_memory, else map it when map (entries the cache can keep), else
 * keep the descriptor. Takes fd. 0, or -1 with errno. */
static int fill_variant(struct variant *v, int fd, const struct stat *st, bool in_memory, bool map)
{
	v->size = (uint64_t)st->st_size;
	if (!in_memory) {
		/* 32-bit: a few big files would take the address space (and
		 * on 64 bits a size_t holds any file's size). */
		if (map && SIZE_MAX > UINT32_MAX && (v->body = blob_map(fd, (size_t)v->size))) {
			v->mapped = true;
			close(fd);
			return 0;
		}
		v->fd = fd;
		return 0;
	}
	struct blob *b = blob_new(v->size);
	size_t got = 0;
	while (got < v->size) {
		ssize_t n = pread(fd, b->data + got, v->size - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;
			free(b);
			close(fd);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break; /* shrank under us: serve what is there */
		got += (size_t)n;
	}
	close(fd);
	b->len = got;
	v->size = got;
	v->body = b;
	return 0;
}

/* A strong validator from size and mtime in ns. snapshot and watch give
 * every changed file a fresh mtime and leave unchanged files alone, and
 * rsync -t keeps mtimes: the same tree copied to several servers gives the
 * same ETags (the inode would not). */
static void make_etag(char *out, size_t n, const struct stat *st, const char *suffix)
{
	uint64_t ns = (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec;
	snprintf(out, n, "\"%" PRIx64 "-%" PRIx64 "%s\"", (uint64_t)st->st_size, ns, suffix);
}

static void add_validators(struct cache *c, struct MHD_Response *r, const struct fentry *e,
			   const struct variant *v)
{
	MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, v->etag);
	MHD_add_response_header(r, MHD_HTTP_HEADER_LAST_MODIFIED, e->last_modified);
	if (c->cache_control)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, c->cache_control);
	if (e->gz.fd >= 0 || e->gz.body)
		MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
}

/* A response over bytes [off, off+len) of v; NULL when out of resources. */
static struct MHD_Response *body_response(const struct variant *v, uint64_t off, uint64_t len)
{
	struct MHD_Response *r;
	if (v->body) {
		atomic_fetch_add(&v->body->refs, 1);
		r = MHD_create_response_from_buffer_with_free_callback_cls(
			(size_t)len, v->body->data + off, blob_release_cb, v->body);
		if (!r)
			blob_put(v->body);
		return r;
	}
	int fd = v->fd;
	if (off || len != v->size) {
		/* A response closes its descriptor: a range gets its own. */
		fd = fcntl(v->fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			return NULL;
	}
	r = MHD_create_response_from_fd_at_offset64(len, fd, off);
	if (!r && fd != v->fd)
		close(fd);
	return r;
}

/* The headers of a whole-file 200 of variant v. */
static void add_body_headers(struct cache *c, struct MHD_Response *r, const struct fentry *e,
			     const struct variant *v)
{
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, e->content_type);
	if (v == &e->gz)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	else
		MHD_add_response_header(r, MHD_HTTP_HEADER_ACCEPT_RANGES, "bytes");
	add_validators(c, r, e, v);
}

/* Build v's 200 and 304 responses. 0, or -1 (ENOMEM). */
static int make_responses(struct cache *c, struct fentry *e, struct variant *v)
{
	v->ok = body_response(v, 0, v->size);
	v->not_modified = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	if (!v->ok || !v->not_modified) {
		errno = ENOMEM;
		return -1;
	}
	add_body_headers(c, v->ok, e, v);
	add_validators(c, v->not_modified, e, v);
	return 0;
}

struct MHD_Response *fentry_whole(struct cache *c, struct fentry *e, const struct variant *v)
{
	if (v->body)
		return NULL;
	/* libmicrohttpd locks a response for each chunk it sends from a file:
	 * one shared response would make every connection sending the file
	 * wait for the others. A response of its own costs a dup(2). */
	int fd = fcntl(v->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	struct MHD_Response *r = MHD_create_response_from_fd_at_offset64(v->size, fd, 0);
	if (!r) {
		close(fd);
		return NULL;
	}
	add_body_headers(c, r, e, v);
	return r;
}

/* Open key and, when fresh, key.gz, and build a new entry (one
 * reference); NULL with errno. */
static struct fentry *load_entry(struct cache *c, const char *key, const char *content_type)
{
	struct stat st, gst;
	int fd = safeopen(c->rootfd, key);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		int saved = errno;
		close(fd);
		errno = saved;
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : ENOENT;
		return NULL;
	}

	struct fentry *e = xcalloc(1, sizeof *e);
	atomic_init(&e->refs, 1);
	e->plain.fd = e->gz.fd = -1;
	e->key = xstrdup(key);
	e->content_type = xstrdup(content_type);
	e->mtime = st.st_mtim.tv_sec;
	http_format_date(e->mtime, e->last_modified);
	/* Empty files live in memory: libmicrohttpd has no use for a
	 * descriptor of nothing. */
	e->in_memory = st.st_size == 0 || (uint64_t)st.st_size <= c->memory_max;
	make_etag(e->plain.etag, sizeof e->plain.etag, &st, "");
	/* Mapped only where the cache can keep the file: mapping it for one
	 * request costs more than sendfile. */
	bool map = c->enabled && c->shard_files > 0;
	if (fill_variant(&e->plain, fd, &st, e->in_memory, map) < 0)
		goto fail;

	/* The .gz sibling counts only with exactly the file's mtime: snapshot
	 * gives both the same; anything else is stale. */
	size_t klen = strlen(key);
	char *gzkey = xmalloc(klen + 4);
	memcpy(gzkey, key, klen);
	memcpy(gzkey + klen, ".gz", 4);
	int gfd = safeopen(c->rootfd, gzkey);
	free(gzkey);
	if (gfd >= 0) {
		/* A memory entry's .gz must fit in memory too; one larger than
		 * its page is not worth sending anyway. */
		if (fstat(gfd, &gst) == 0 && S_ISREG(gst.st_mode) &&
		    gst.st_mtim.tv_sec == st.st_mtim.tv_sec && gst.st_mtim.tv_nsec == st.st_mtim.tv_nsec &&
		    (!e->in_memory || (uint64_t)gst.st_size <= c->memory_max) && gst.st_size > 0) {
			make_etag(e->gz.etag, sizeof e->gz.etag, &gst, "-gz");
			if (fill_variant(&e->gz, gfd, &gst, e->in_memory, map) < 0)
				goto fail;
		} else {
			close(gfd);
		}
	}

	if (make_responses(c, e, &e->plain) < 0)
		goto fail;
	if ((e->gz.body || e->gz.fd >= 0) && make_responses(c, e, &e->gz) < 0)
		goto fail;
	e->cost = ENTRY_OVERHEAD + klen + strlen(content_type);
	if (e->in_memory)
		e->cost += e->plain.size + e->gz.size;
	return e;
fail:
	{
		int saved = errno;
		fentry_put(e);
		errno = saved;
	}
	return NULL;
}

static void ring_add(struct fentry **hand, struct fentry *e)
{
	if (!*hand) {
		e->next = e->prev = e;
		*hand = e;
		return;
	}
	/* Just behind the hand: the last to be looked at. */
	e->next = *hand;
	e->prev = (*hand)->prev;
	e->prev->next = e;
	(*hand)->prev = e;
}

static void ring_remove(struct fentry **hand, struct fentry *e)
{
	if (e->next == e) {
		*hand = NULL;
	} else {
		e->prev->next = e->next;
		e->next->prev = e->prev;
		if (*hand == e)
			*hand = e->next;
	}
	e->next = e->prev = NULL;
}

static size_t open_files_of(const struct fentry *e)
{
	return (e->plain.fd >= 0 || e->plain.mapped) + (e->gz.fd >= 0 || e->gz.mapped);
}

/* Take e out of the shard (write lock held) and drop the map's reference. */
static void drop_locked(struct shard *s, struct fentry *e)
{
	hashmap_remove(&s->files, e->key);
	if (e->in_memory) {
		ring_remove(&s->mem_hand, e);
		s->bytes -= e->cost;
	} else {
		ring_remove(&s->fd_hand, e);
		s->open_files -= open_files_of(e);
	}
	fentry_put(e);
}

/* CLOCK: pass over entries used since the last pass (clearing their bit)
 * and evict the first one that was not. */
static void evict_one(struct shard *s, struct fentry **hand)
{
	for (;;) {
		struct fentry *e = *hand;
		if (atomic_exchange(&e->referenced, false)) {
			*hand = e->next;
			continue;
		}
		drop_locked(s, e);
		return;
	}
}

struct fentry *cache_get(struct cache *c, const char *key, const char *content_type)
{
	struct shard *s = &c->shards[shard_index(key)];
	struct fentry *e;

	if (c->enabled) {
		pthread_rwlock_rdlock(&s->lock);
		e = hashmap_get(&s->files, key);
		if (e && !strcmp(e->content_type, content_type))
			fentry_get(e);
		else
			e = NULL;
		pthread_rwlock_unlock(&s->lock);
		if (e)
			return e;
	}

	unsigned long seq = atomic_load(&s->seq);
	e = load_entry(c, key, content_type);
	if (!e || !c->enabled)
		return e;
	bool fits = e->in_memory ? e->cost <= c->shard_bytes : open_files_of(e) <= c->shard_files;
	if (!fits)
		return e;

	pthread_rwlock_wrlock(&s->lock);
	if (atomic_load(&s->seq) != seq) {
		/* A file of this shard changed while we read: ours may be the
		 * old bytes. Serve them this once (the request began before the
		 * change) but do not keep them. */
		pthread_rwlock_unlock(&s->lock);
		return e;
	}
	struct fentry *old = hashmap_get(&s->files, key);
	if (old) {
		if (!strcmp(old->content_type, content_type)) {
			/* Another worker loaded it meanwhile: keep one copy. */
			fentry_get(old);
			pthread_rwlock_unlock(&s->lock);
			fentry_put(e);
			return old;
		}
		drop_locked(s, old);
	}
	if (e->in_memory) {
		while (s->mem_hand && s->bytes + e->cost > c->shard_bytes)
			evict_one(s, &s->mem_hand);
		ring_add(&s->mem_hand, e);
		s->bytes += e->cost;
	} else {
		while (s->fd_hand && s->open_files + open_files_of(e) > c->shard_files)
			evict_one(s, &s->fd_hand);
		ring_add(&s->fd_hand, e);
		s->open_files += open_files_of(e);
	}
	hashmap_put(&s->files, key, e);
	fentry_get(e); /* the map's reference */
	pthread_rwlock_unlock(&s->lock);
	return e;
}

struct fentry *cache_lookup_route(struct cache *c, const char *raw, unsigned gen)
{
	if (!c->enabled)
		return NULL;
	struct route_shard *rs = &c->routes[shard_index(raw)];
	struct fentry *e = NULL;

	pthread_rwlock_rdlock(&rs->lock);
	const struct route *r = hashmap_get(&rs->routes, raw);
	if (r && r->gen == gen) {
		/* Lock order: a route shard, then a file shard; never back. */
		struct shard *s = &c->shards[shard_index(r->key)];
		pthread_rwlock_rdlock(&s->lock);
		e = hashmap_get(&s->files, r->key);
		if (e && !strcmp(e->content_type, r->content_type))
			fentry_get(e);
		else
			e = NULL;
		pthread_rwlock_unlock(&s->lock);
	}
	pthread_rwlock_unlock(&rs->lock);
	return e;
}

static void route_free(struct route *r)
{
	if (!r)
		return;
	free(r->key);
	free(r->content_type);
	free(r);
}

/* Free every route of a shard (write lock held). */
static void clear_routes_locked(struct route_shard *rs)
{
	size_t it = 0;
	void *v;
	while (hashmap_next(&rs->routes, &it, NULL, &v))
		route_free(v);
	hashmap_release(&rs->routes);
}

void cache_add_route(struct cache *c, const char *raw, const char *key,
		     const char *content_type, unsigned gen)
{
	if (!c->enabled)
		return;
	struct route_shard *rs = &c->routes[shard_index(raw)];
	struct route *r = xmalloc(sizeof *r);
	r->key = xstrdup(key);
	r->content_type = xstrdup(content_type);
	r->gen = gen;
	pthread_rwlock_wrlock(&rs->lock);
	/* Routes are cheap to recompute: a full shard starts over rather
	 * than paying for an eviction order. */
	if (rs->routes.count >= ROUTES_PER_SHARD)
		clear_routes_locked(rs);
	route_free(hashmap_put(&rs->routes, raw, r));
	pthread_rwlock_unlock(&rs->lock);
}

struct MHD_Response *fentry_range(struct cache *c, struct fentry *e, uint64_t first, uint64_t len)
{
	struct MHD_Response *r = body_response(&e->plain, first, len);
	if (!r)
		return NULL;
	char range[96];
	snprintf(range, sizeof range, "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64, first,
		 first + len - 1, e->plain.size);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_RANGE, range);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, e->content_type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_ACCEPT_RANGES, "bytes");
	add_validators(c, r, e, &e->plain);
	return r;
}

void cache_invalidate(struct cache *c, const char *key)
{
	struct shard *s = &c->shards[shard_index(key)];
	pthread_rwlock_wrlock(&s->lock);
	atomic_fetch_add(&s->seq, 1);
	struct fentry *e = hashmap_get(&s->files, key);
	if (e)
		drop_locked(s, e);
	pthread_rwlock_unlock(&s->lock);
}

/* Drop the entries of a shard whose key starts with prefix (all when
 * prefix is NULL). */
static void drop_matching(struct shard *s, const char *prefix)
{
	size_t plen = prefix ? strlen(prefix) : 0;
	size_t it = 0;
	void *v;
	pthread_rwlock_wrlock(&s->lock);
	atomic_fetch_add(&s->seq, 1);
	/* Removal leaves tombstones, so iterating on is safe. */
	while (hashmap_next(&s->files, &it, NULL, &v)) {
		struct fentry *e = v;
		if (!prefix || !strncmp(e->key, prefix, plen))
			drop_locked(s, e);
	}
	pthread_rwlock_unlock(&s->lock);
}

void cache_invalidate_prefix(struct cache *c, const char *dir)
{
	char *prefix = xasprintf("%s/", dir);
	for (size_t i = 0; i < SHARDS; i++)
		drop_matching(&c->shards[i], prefix);
	free(prefix);
}

void cache_clear(struct cache *c)
{
	for (size_t i = 0; i < SHARDS; i++) {
		drop_matching(&c->shards[i], NULL);
		pthread_rwlock_wrlock(&c->routes[i].lock);
		clear_routes_locked(&c->routes[i]);
		pthread_rwlock_unlock(&c->routes[i].lock);
	}
}

void cache_disable(struct cache *c)
{
	atomic_store(&c->enabled, false);
	cache_clear(c);
}

void cache_stats(struct cache *c, size_t *entries, size_t *bytes)
{
	*entries = *bytes = 0;
	for (size_t i = 0; i < SHARDS; i++) {
		struct shard *s = &c->shards[i];
		pthread_rwlock_rdlock(&s->lock);
		*entries += s->files.count;
		*bytes += s->bytes;
		pthread_rwlock_unlock(&s->lock);
	}
}

void cache_free(struct cache *c)
{
	if (!c)
		return;
	cache_clear(c);
	for (size_t i = 0; i < SHARDS; i++) {
		hashmap_release(&c->shards[i].files);
		pthread_rwlock_destroy(&c->shards[i].lock);
		pthread_rwlock_destroy(&c->routes[i].lock);
	}
	free(c->cache_control);
	free(c);
}
