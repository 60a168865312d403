/* serve/cache.h - files of the tree as ready-made libmicrohttpd responses.
 *
 * An entry (struct fentry) holds one file: its 200 response, its 304
 * response, and the same pair for a fresh .gz sibling, all built once with
 * every header (Content-Type, ETag, Last-Modified, Cache-Control, Vary,
 * Accept-Ranges). libmicrohttpd responses are reference-counted, so one
 * response is queued on any number of connections at once; when an entry
 * is evicted its responses are "destroyed", and libmicrohttpd frees each
 * only after its last send.
 *
 * Small files (up to a 64th of the budget, at most 256 KiB) are read
 * into memory and counted against --cache-mb; larger ones are mapped
 * (mmap(2), never read by us: only the kernel copies them into sockets)
 * and counted against the bound on open files. Both kinds are evicted by
 * CLOCK (second chance), per shard. Why not sendfile: libmicrohttpd sends
 * a file 128 KiB per sendfile(2) call and goes back to its event loop
 * between pieces, while a mapped body goes out in one send(2) per socket
 * buffer; measured against nginx (docs/benchmarks.md), a 1 MiB file went
 * from 0.7x its requests/s to 1.1x, a 100 MiB one from 1.0x to 1.3x. A
 * mapped file truncated under us makes that send fail (EFAULT, not
 * SIGBUS: the kernel reads it), which ends that one connection. With the
 * cache off (--cache-mb 0) every request opens the file and uses sendfile:
 * mapping it anew each time would cost more than it saves; likewise when
 * the bound on kept files is 0 (few descriptors), or where the address
 * space is 32 bits.
 *
 * Two maps, each split into shards with their own rwlock so that the hot
 * path takes only read locks:
 *   routes: the raw request target ("/a/b?x=1", as the client sent it) ->
 *           the key and content type it resolved to, tagged with the
 *           manifest generation; a hit skips canonicalisation and the
 *           manifest: two hash lookups and no allocation per request;
 *   files:  key -> entry.
 *
 * Freshness: the cache never stats. treewatch (inotify) calls
 * cache_invalidate() when a file is replaced, so the next request loads
 * the new bytes. Each shard counts its invalidations; a load that raced
 * with one (opened the old file, finished after the event) is served once
 * but not kept. The window left is the time between a rename and the main
 * thread reading its inotify event (normally well under a millisecond).
 */
#ifndef CGISNAP_SERVE_CACHE_H
#define CGISNAP_SERVE_CACHE_H

#include <microhttpd.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "http.h"

/* Bytes shared by a memory entry's responses (refcounted). */
struct blob;

/* One representation of a file: as it is, or its .gz sibling. */
struct variant {
	struct MHD_Response *ok;           /* 200; NULL when absent (no .gz) */
	struct MHD_Response *not_modified; /* 304 with the same validators */
	struct blob *body;                 /* memory and mapped entries */
	bool mapped;                       /* body maps the file */
	int fd;                            /* sendfile entries (owned by ok), else -1 */
	uint64_t size;
	char etag[80];                     /* quoted, strong */
};

struct fentry {
	atomic_long refs;
	char *key;
	char *content_type;
	struct variant plain, gz;
	time_t mtime;
	char last_modified[HTTP_DATE_LEN];
	size_t cost;                       /* bytes counted against the budget */
	bool in_memory;
	atomic_bool referenced;            /* CLOCK's second-chance bit */
	struct fentry *prev, *next;        /* CLOCK ring, under the shard lock */
};

struct cache;

/* A cache of budget_bytes (0: nothing is kept, every request reads the
 * file) over the tree at rootfd, sending cache_control (NULL: none) with
 * every file. max_open_files bounds the large files kept (mapped, or by
 * their descriptor where mapping is not possible). */
struct cache *cache_new(int rootfd, size_t budget_bytes, size_t max_open_files,
			const char *cache_control);
void cache_free(struct cache *c);

/* Fast path: the entry a raw target resolved to, when its route is known
 * for manifest generation gen and the file is cached; a reference the
 * caller drops with fentry_put(), or NULL. */
struct fentry *cache_lookup_route(struct cache *c, const char *raw, unsigned gen);

/* Remember that raw resolved to key with content_type under gen. */
void cache_add_route(struct cache *c, const char *raw, const char *key,
		     const char *content_type, unsigned gen);

/* The entry for key, loading the file on a miss (and caching it when it
 * fits). A reference, or NULL with errno: ENOENT (or EISDIR, ELOOP,
 * EXDEV... whatever the kernel said: no such servable file), EMFILE/ENFILE
 * or ENOMEM (the server is out of resources). */
struct fentry *cache_get(struct cache *c, const char *key, const char *content_type);

void fentry_put(struct fentry *e);

/* A 200 of its own for a file variant sent from its descriptor (big
 * files when the cache is off), so that its sends lock nobody else's;
 * NULL for variants held in memory or mapped (queue v->ok, shared) or
 * when out of resources. */
struct MHD_Response *fentry_whole(struct cache *c, struct fentry *e, const struct variant *v);
/* A fresh 206 response for bytes [first, first+len) of e's plain variant
 * (the caller destroys it after queueing); NULL when out of resources. */
struct MHD_Response *fentry_range(struct cache *c, struct fentry *e, uint64_t first, uint64_t len);

/* Forget key (a file of the tree changed or went away). */
void cache_invalidate(struct cache *c, const char *key);
/* Forget every key under the directory dir ("a/b": keys "a/b/..."). */
void cache_invalidate_prefix(struct cache *c, const char *dir);
/* Forget everything (inotify overflow). */
void cache_clear(struct cache *c);

/* Stop keeping anything (the tree can no longer be watched completely):
 * from now on every request reads its file. */
void cache_disable(struct cache *c);

/* Counters for tests and --verbose: entries and bytes held. */
void cache_stats(struct cache *c, size_t *entries, size_t *bytes);

#endif
