/* hashmap.c - string-keyed hash table: open addressing with linear
 * probing, tombstones for removed keys, FNV-1a 64 hashes. */
#include "base/hashmap.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* A slot is empty (key NULL), deleted (key == TOMBSTONE) or live. A
 * tombstone keeps probe chains intact after a removal; it is reused by a
 * later insert of a key that is not in the map, and cleared by a rehash. */
struct hashmap_slot {
	char *key;
	void *value;
	uint64_t hash;
};

static char tombstone_mark;
#define TOMBSTONE (&tombstone_mark)

#define MIN_CAP 16

uint64_t hash_string(const char *s)
{
	/* fnv1a64's, to the NUL without a strlen first: the hot path */
	uint64_t h = FNV1A64_START;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		h ^= *p;
		h *= FNV1A64_PRIME;
	}
	return h;
}

static bool is_live(const struct hashmap_slot *slot)
{
	return slot->key && slot->key != TOMBSTONE;
}

/* The slot holding key, or NULL when it is not in the map. */
static struct hashmap_slot *find(const struct hashmap *m, const char *key, uint64_t hash)
{
	if (!m->cap)
		return NULL;
	size_t mask = m->cap - 1;
	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct hashmap_slot *slot = &m->slots[i];
		if (!slot->key)
			return NULL;
		if (slot->key != TOMBSTONE && slot->hash == hash && !strcmp(slot->key, key))
			return slot;
	}
}

/* Move every live key into a fresh table of cap slots (tombstones vanish). */
static void rehash(struct hashmap *m, size_t cap)
{
	struct hashmap_slot *old = m->slots;
	size_t old_cap = m->cap;
	m->slots = xcalloc(cap, sizeof(*m->slots));
	m->cap = cap;
	m->used = m->count;
	for (size_t i = 0; i < old_cap; i++) {
		if (!is_live(&old[i]))
			continue;
		size_t j = old[i].hash & (cap - 1);
		while (m->slots[j].key)
			j = (j + 1) & (cap - 1);
		m->slots[j] = old[i];
	}
	free(old);
}

void *hashmap_get(const struct hashmap *m, const char *key)
{
	struct hashmap_slot *slot = find(m, key, hash_string(key));
	return slot ? slot->value : NULL;
}

void *hashmap_put(struct hashmap *m, const char *key, void *value)
{
	uint64_t hash = hash_string(key);
	struct hashmap_slot *slot = find(m, key, hash);
	if (slot) {
		void *previous = slot->value;
		slot->value = value;
		return previous;
	}

	/* Keep live + deleted slots at most 70% of the table, so probes stay
	 * short and an empty slot always ends a search. The new size is
	 * chosen from the live keys alone: a table full of tombstones is
	 * rebuilt at the same size (or smaller) rather than doubled. */
	if ((m->used + 1) * 10 > m->cap * 7) {
		size_t cap = MIN_CAP;
		while ((m->count + 1) * 10 > cap * 7 / 2)
			cap *= 2;
		rehash(m, cap);
	}

	size_t mask = m->cap - 1;
	size_t i = hash & mask;
	while (is_live(&m->slots[i]))
		i = (i + 1) & mask;
	slot = &m->slots[i];
	if (!slot->key)
		m->used++; /* a reused tombstone was already counted */
	slot->key = xstrdup(key);
	slot->value = value;
	slot->hash = hash;
	m->count++;
	return NULL;
}

void *hashmap_remove(struct hashmap *m, const char *key)
{
	struct hashmap_slot *slot = find(m, key, hash_string(key));
	if (!slot)
		return NULL;
	void *value = slot->value;
	free(slot->key);
	slot->key = TOMBSTONE;
	slot->value = NULL;
	m->count--;
	return value;
}

bool hashmap_next(const struct hashmap *m, size_t *iter, const char **key, void **value)
{
	for (size_t i = *iter; i < m->cap; i++) {
		if (!is_live(&m->slots[i]))
			continue;
		if (key)
			*key = m->slots[i].key;
		if (value)
			*value = m->slots[i].value;
		*iter = i + 1;
		return true;
	}
	*iter = m->cap;
	return false;
}

void hashmap_release_with(struct hashmap *m, void (*free_value)(void *))
{
	for (size_t i = 0; i < m->cap; i++)
		if (is_live(&m->slots[i]))
			free_value(m->slots[i].value);
	hashmap_release(m);
}

void hashmap_release(struct hashmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		if (is_live(&m->slots[i]))
			free(m->slots[i].key);
	free(m->slots);
	m->slots = NULL;
	m->cap = m->count = m->used = 0;
}
