/* test_serve_cache.c - the response cache (serve/cache.c) on a real
 * directory: loading, .gz freshness, routes, invalidation, eviction. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../serve/cache.h"
#include "helpers.h"
#include "unit.h"

static char dir[64];

static void write_file(const char *name, const char *content, size_t len)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		unit_fail(__FILE__, __LINE__, "cannot write %s", path);
		return;
	}
	fwrite(content, 1, len, f);
	fclose(f);
}

/* Give name the modification time of ref (as snapshot does for .gz). */
static void same_mtime(const char *name, const char *ref)
{
	char a[256], b[256];
	struct stat st;
	snprintf(a, sizeof a, "%s/%s", dir, name);
	snprintf(b, sizeof b, "%s/%s", dir, ref);
	if (stat(b, &st) == 0) {
		struct timespec t[2] = { st.st_mtim, st.st_mtim };
		utimensat(AT_FDCWD, a, t, 0);
	}
}

static int setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/cgisnap-cache.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static void teardown(int fd)
{
	close(fd);
	unit_remove_tree(dir);
}

TEST(serve_cache_loads_and_reuses)
{
	int root = setup();
	write_file("a.html", "hello", 5);
	struct cache *c = cache_new(root, 16 << 20, 64, "public, max-age=60");
	struct fentry *e = cache_get(c, "a.html", "text/html");
	CHECK(e != NULL);
	if (!e)
		goto out;
	CHECK(e->in_memory);
	CHECK_INT(5, e->plain.size);
	CHECK(e->plain.ok && e->plain.not_modified);
	CHECK(e->gz.ok == NULL);
	CHECK(e->plain.etag[0] == '"');
	struct fentry *again = cache_get(c, "a.html", "text/html");
	CHECK(again == e); /* the same entry, not a second load */
	fentry_put(again);

	/* A route leads straight to it, for its generation only. */
	CHECK(cache_lookup_route(c, "/a.html", 1) == NULL);
	cache_add_route(c, "/a.html", "a.html", "text/html", 1);
	struct fentry *r = cache_lookup_route(c, "/a.html", 1);
	CHECK(r == e);
	fentry_put(r);
	CHECK(cache_lookup_route(c, "/a.html", 2) == NULL);
	/* A route whose type no longer matches the entry misses. */
	cache_add_route(c, "/a.html", "a.html", "text/plain", 1);
	CHECK(cache_lookup_route(c, "/a.html", 1) == NULL);

	/* Invalidation drops it; the next get reads the new bytes. */
	write_file("a.html", "changed!", 8);
	cache_invalidate(c, "a.html");
	struct fentry *fresh = cache_get(c, "a.html", "text/html");
	CHECK(fresh != NULL && fresh != e);
	if (fresh)
		CHECK_INT(8, fresh->plain.size);
	fentry_put(fresh);
	fentry_put(e); /* still valid after eviction until the last put */

	/* Misses say why. */
	errno = 0;
	CHECK(cache_get(c, "missing.html", "text/html") == NULL);
	CHECK_INT(ENOENT, errno);
	char sub[128];
	snprintf(sub, sizeof sub, "%s/sub", dir);
	mkdir(sub, 0755);
	CHECK(cache_get(c, "sub", "text/html") == NULL);
out:
	cache_free(c);
	teardown(root);
}

TEST(serve_cache_gz_only_when_fresh)
{
	int root = setup();
	write_file("p.css", "body { color: red }", 19);
	write_file("p.css.gz", "not really gzip", 15);
	same_mtime("p.css.gz", "p.css");
	write_file("q.css", "q", 1);
	write_file("q.css.gz", "stale", 5);
	struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };
	char path[256];
	snprintf(path, sizeof path, "%s/q.css.gz", dir);
	utimensat(AT_FDCWD, path, old, 0);

	struct cache *c = cache_new(root, 16 << 20, 64, NULL);
	struct fentry *p = cache_get(c, "p.css", "text/css");
	struct fentry *q = cache_get(c, "q.css", "text/css");
	CHECK(p && p->gz.ok && p->gz.size == 15);
	CHECK(p && strcmp(p->gz.etag, p->plain.etag) != 0);
	CHECK(q && q->gz.ok == NULL);
	fentry_put(p);
	fentry_put(q);

	/* A change of the .gz alone is seen once invalidated. */
	cache_invalidate(c, "q.css");
	same_mtime("q.css.gz", "q.css");
	q = cache_get(c, "q.css", "text/css");
	CHECK(q && q->gz.ok);
	fentry_put(q);
	cache_free(c);
	teardown(root);
}

TEST(serve_cache_stays_within_budget)
{
	int root = setup();
	char name[32], content[4096];
	memset(content, 'x', sizeof content);
	/* 1 MiB over 16 shards: 64 KiB each, files of 4 KiB (+ overhead). */
	struct cache *c = cache_new(root, 1 << 20, 64, NULL);
	for (int i = 0; i < 600; i++) {
		snprintf(name, sizeof name, "f%d.txt", i);
		write_file(name, content, sizeof content);
		struct fentry *e = cache_get(c, name, "text/plain");
		CHECK(e != NULL);
		fentry_put(e);
	}
	size_t entries, bytes;
	cache_stats(c, &entries, &bytes);
	CHECK(bytes <= 1 << 20);
	CHECK(entries > 100);   /* most of the budget is in use */
	CHECK(entries < 600);   /* and something was evicted */

	/* Bigger than a memory file may be: mapped, no descriptor kept,
	 * not counted against the memory budget. */
	size_t bytes_before = bytes;
	char *big = malloc(300000);
	memset(big, 'y', 300000);
	write_file("big.bin", big, 300000);
	free(big);
	struct fentry *e = cache_get(c, "big.bin", "application/octet-stream");
	CHECK(e && !e->in_memory && e->plain.mapped && e->plain.fd < 0);
	cache_stats(c, &entries, &bytes);
	CHECK_INT(bytes_before, bytes);
	if (e) {
		struct MHD_Response *r = fentry_range(c, e, 10, 100);
		CHECK(r != NULL);
		if (r)
			MHD_destroy_response(r);
	}
	fentry_put(e);

	cache_invalidate_prefix(c, "nothing");
	cache_clear(c);
	cache_stats(c, &entries, &bytes);
	CHECK_INT(0, entries);
	CHECK_INT(0, bytes);
	cache_free(c);
	teardown(root);
}

TEST(serve_cache_disabled_keeps_nothing)
{
	int root = setup();
	write_file("a.txt", "abc", 3);
	struct cache *c = cache_new(root, 0, 0, NULL);
	struct fentry *a = cache_get(c, "a.txt", "text/plain");
	struct fentry *b = cache_get(c, "a.txt", "text/plain");
	CHECK(a && b && a != b);
	fentry_put(a);
	fentry_put(b);
	cache_add_route(c, "/a.txt", "a.txt", "text/plain", 0);
	CHECK(cache_lookup_route(c, "/a.txt", 0) == NULL);
	/* With the cache off, a big file is not mapped for one request:
	 * sendfile. */
	char *big = malloc(300000);
	memset(big, 'y', 300000);
	write_file("big.bin", big, 300000);
	free(big);
	struct fentry *e = cache_get(c, "big.bin", "application/octet-stream");
	CHECK(e && !e->in_memory && !e->plain.mapped && e->plain.fd >= 0);
	fentry_put(e);
	/* Likewise with a memory budget but no big file to keep (few
	 * descriptors). */
	struct cache *nofiles = cache_new(root, 1 << 20, 0, NULL);
	e = cache_get(nofiles, "big.bin", "application/octet-stream");
	CHECK(e && !e->in_memory && !e->plain.mapped && e->plain.fd >= 0);
	fentry_put(e);
	cache_free(nofiles);
	size_t entries, bytes;
	cache_stats(c, &entries, &bytes);
	CHECK_INT(0, entries);
	cache_free(c);
	teardown(root);
}
