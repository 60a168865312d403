/* test_hashmap.c - the string-keyed hash table. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/hashmap.h"
#include "unit.h"

#define N 10000

/* Values are small integers stored as pointers; 0 is never used. */
static void *val(size_t i)
{
	return (void *)(uintptr_t)(i + 1);
}

static void key(char out[32], size_t i)
{
	snprintf(out, 32, "/page/%zu?x", i);
}

TEST(hash_string_is_fnv1a_64)
{
	/* Published FNV-1a 64 test values. */
	CHECK(hash_string("") == 0xcbf29ce484222325ULL);
	CHECK(hash_string("a") == 0xaf63dc4c8601ec8cULL);
	CHECK(hash_string("foobar") == 0x85944171f73967e8ULL);
}

TEST(hashmap_empty_map)
{
	struct hashmap m = HASHMAP_INIT;
	CHECK(hashmap_get(&m, "x") == NULL);
	CHECK(hashmap_remove(&m, "x") == NULL);
	size_t it = 0;
	CHECK(!hashmap_next(&m, &it, NULL, NULL));
	hashmap_release(&m);
	hashmap_release(&m);
}

TEST(hashmap_put_get_replace_remove_10000)
{
	struct hashmap m = HASHMAP_INIT;
	char k[32];
	for (size_t i = 0; i < N; i++) {
		key(k, i);
		CHECK(hashmap_put(&m, k, val(i)) == NULL);
	}
	CHECK_INT(N, m.count);
	/* Growth at 70% of live + deleted slots, power-of-two size. */
	CHECK(m.used * 10 <= m.cap * 7);
	CHECK_INT(0, m.cap & (m.cap - 1));

	int bad = 0;
	for (size_t i = 0; i < N; i++) {
		key(k, i);
		bad += hashmap_get(&m, k) != val(i);
	}
	CHECK_INT(0, bad);
	CHECK(hashmap_get(&m, "/page/10000?x") == NULL);
	CHECK(hashmap_get(&m, "") == NULL);

	/* Replace the even keys: the old value comes back, count unchanged. */
	bad = 0;
	for (size_t i = 0; i < N; i += 2) {
		key(k, i);
		bad += hashmap_put(&m, k, val(i + N)) != val(i);
	}
	CHECK_INT(0, bad);
	CHECK_INT(N, m.count);

	/* Remove every third key. */
	size_t removed = 0;
	bad = 0;
	for (size_t i = 0; i < N; i += 3) {
		key(k, i);
		void *want = i % 2 ? val(i) : val(i + N);
		bad += hashmap_remove(&m, k) != want;
		bad += hashmap_remove(&m, k) != NULL;
		removed++;
	}
	CHECK_INT(0, bad);
	CHECK_INT(N - removed, m.count);

	bad = 0;
	for (size_t i = 0; i < N; i++) {
		key(k, i);
		void *want = i % 3 == 0 ? NULL : i % 2 ? val(i) : val(i + N);
		bad += hashmap_get(&m, k) != want;
	}
	CHECK_INT(0, bad);

	/* Iteration visits each live key exactly once with its value. */
	char *seen = calloc(N, 1);
	size_t it = 0, visits = 0;
	const char *ik;
	void *iv;
	bad = 0;
	while (hashmap_next(&m, &it, &ik, &iv)) {
		size_t i;
		if (sscanf(ik, "/page/%zu?x", &i) != 1 || i >= N || seen[i]) {
			bad++;
			continue;
		}
		seen[i] = 1;
		void *want = i % 2 ? val(i) : val(i + N);
		bad += iv != want || i % 3 == 0;
		visits++;
	}
	CHECK_INT(0, bad);
	CHECK_INT(N - removed, visits);
	free(seen);
	hashmap_release(&m);
	CHECK_INT(0, m.count);
	CHECK(hashmap_get(&m, "/page/1?x") == NULL);
}

TEST(hashmap_remove_then_reinsert)
{
	struct hashmap m = HASHMAP_INIT;
	char k[32];
	/* Churn: the same few keys removed and put back many times. The
	 * tombstones must not make the table grow without bound, and a key
	 * must never be found twice (reinsert over its own tombstone). */
	for (int round = 0; round < 2000; round++) {
		for (size_t i = 0; i < 8; i++) {
			key(k, i);
			CHECK(hashmap_put(&m, k, val(i)) == NULL);
		}
		for (size_t i = 0; i < 8; i++) {
			key(k, i);
			CHECK(hashmap_remove(&m, k) == val(i));
		}
	}
	CHECK_INT(0, m.count);
	CHECK(m.cap <= 64);
	CHECK(m.used * 10 <= m.cap * 7);

	/* A key inserted after removals of colliding keys stays unique. */
	hashmap_put(&m, "a", val(1));
	hashmap_put(&m, "b", val(2));
	hashmap_remove(&m, "a");
	CHECK(hashmap_put(&m, "b", val(3)) == val(2));
	CHECK_INT(1, m.count);
	CHECK(hashmap_put(&m, "a", val(4)) == NULL);
	CHECK(hashmap_get(&m, "a") == val(4));
	CHECK(hashmap_get(&m, "b") == val(3));
	CHECK_INT(2, m.count);
	hashmap_release(&m);
}

TEST(hashmap_keys_are_copied)
{
	struct hashmap m = HASHMAP_INIT;
	char k[8] = "abc";
	hashmap_put(&m, k, val(1));
	k[0] = 'x';
	CHECK(hashmap_get(&m, "abc") == val(1));
	CHECK(hashmap_get(&m, "xbc") == NULL);
	hashmap_release(&m);
}

TEST(hashmap_remove_while_iterating)
{
	struct hashmap m = HASHMAP_INIT;
	char k[32];
	for (size_t i = 0; i < 1000; i++) {
		key(k, i);
		hashmap_put(&m, k, val(i));
	}
	size_t it = 0, visits = 0;
	const char *ik;
	while (hashmap_next(&m, &it, &ik, NULL)) {
		char copy[32];
		snprintf(copy, sizeof(copy), "%s", ik);
		CHECK(hashmap_remove(&m, copy) != NULL);
		visits++;
	}
	CHECK_INT(1000, visits);
	CHECK_INT(0, m.count);
	hashmap_release(&m);
}
