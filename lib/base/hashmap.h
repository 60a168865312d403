/* hashmap.h - string-keyed hash table (open addressing, FNV-1a).
 *
 * Keys are copied and owned by the map; values are the caller's. A NULL
 * value cannot be told from a missing key by hashmap_get. Not thread-safe:
 * callers lock. The table grows when live plus removed slots would pass
 * 70%. Iterate with hashmap_next (order unspecified):
 *
 *     size_t it = 0; const char *k; void *v;
 *     while (hashmap_next(&m, &it, &k, &v)) ...
 *
 * Removing the key just returned while iterating is safe; inserting while
 * iterating is not (a growth moves every key).
 */
#ifndef CGISNAP_HASHMAP_H
#define CGISNAP_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashmap_slot;

struct hashmap {
	struct hashmap_slot *slots;
	size_t cap;   /* power of two, or 0 */
	size_t count; /* live keys */
	size_t used;  /* live + deleted slots */
};

#define HASHMAP_INIT { NULL, 0, 0, 0 }

/* The value stored for key, NULL if none. */
void *hashmap_get(const struct hashmap *m, const char *key);
/* Insert or replace; returns the previous value (NULL if none). */
void *hashmap_put(struct hashmap *m, const char *key, void *value);
/* Remove; returns the value that was there (NULL if none). */
void *hashmap_remove(struct hashmap *m, const char *key);
/* The next live entry after *iter (start at 0); false at the end. key and
 * value may be NULL when not wanted; the key stays the map's. */
bool hashmap_next(const struct hashmap *m, size_t *iter, const char **key, void **value);
/* Free the table and the keys (not the values); the map is empty and
 * usable again. */
void hashmap_release(struct hashmap *m);
/* hashmap_release, after free_value(value) for each value (free(3) for
 * plain allocations). */
void hashmap_release_with(struct hashmap *m, void (*free_value)(void *));
/* FNV-1a 64 of a NUL-terminated string. */
uint64_t hash_string(const char *s);

/* FNV-1a 64 of n bytes, continued from h (FNV1A64_START to begin): for
 * hashes built of several pieces. Stored fingerprints depend on it: it
 * never changes. */
#define FNV1A64_START 0xcbf29ce484222325ULL
#define FNV1A64_PRIME 0x100000001b3ULL
static inline uint64_t fnv1a64(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= FNV1A64_PRIME;
	}
	return h;
}

#endif
