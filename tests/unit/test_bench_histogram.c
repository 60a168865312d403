/* test_bench_histogram.c - latency histogram and percentiles
 * (bench/histogram.c): exact nearest-rank percentiles below 1024 us,
 * within 0.2% above, merging, and the edges. */
#include <stdint.h>
#include <stdlib.h>

#include "../../bench/histogram.h"
#include "unit.h"

static struct histogram *fresh(void)
{
	struct histogram *h = malloc(sizeof *h);
	histogram_init(h);
	return h;
}

TEST(bench_histogram_percentiles_of_1_to_100)
{
	struct histogram *h = fresh();
	/* Added in a scrambled order: the order must not matter. */
	for (uint64_t i = 0; i < 100; i++)
		histogram_add(h, (i * 37) % 100 + 1);
	CHECK_INT(100, h->count);
	CHECK_INT(1, h->min);
	CHECK_INT(100, h->max);
	CHECK_INT(50, histogram_percentile(h, 50));
	CHECK_INT(90, histogram_percentile(h, 90));
	CHECK_INT(99, histogram_percentile(h, 99));
	CHECK_INT(100, histogram_percentile(h, 100));
	CHECK_INT(1, histogram_percentile(h, 0.5));
	CHECK_INT(1, histogram_percentile(h, 1));
	CHECK_INT(2, histogram_percentile(h, 1.5));
	CHECK(histogram_mean(h) == 50.5);
	free(h);
}

TEST(bench_histogram_nearest_rank_table)
{
	static const struct {
		uint64_t values[8];
		size_t n;
		double p;
		uint64_t want;
	} cases[] = {
		{ { 7 }, 1, 50, 7 },
		{ { 7 }, 1, 99, 7 },
		{ { 3, 1, 2 }, 3, 50, 2 },
		{ { 3, 1, 2 }, 3, 33.3, 1 },
		{ { 3, 1, 2 }, 3, 33.4, 2 },
		{ { 3, 1, 2 }, 3, 66.7, 3 },
		{ { 10, 20, 30, 40 }, 4, 50, 20 },   /* ceil(0.5 * 4) = 2nd */
		{ { 10, 20, 30, 40 }, 4, 75, 30 },
		{ { 10, 20, 30, 40 }, 4, 76, 40 },
		{ { 0, 0, 0, 5 }, 4, 75, 0 },
		{ { 0, 0, 0, 5 }, 4, 90, 5 },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct histogram *h = fresh();
		for (size_t j = 0; j < cases[i].n; j++)
			histogram_add(h, cases[i].values[j]);
		uint64_t got = histogram_percentile(h, cases[i].p);
		if (got != cases[i].want)
			unit_fail(__FILE__, __LINE__, "case %zu: p%g = %llu, expected %llu", i, cases[i].p,
				  (unsigned long long)got, (unsigned long long)cases[i].want);
		free(h);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

TEST(bench_histogram_large_values_within_0_2_percent)
{
	enum { N = 20000 };
	uint64_t *v = malloc(N * sizeof *v);
	struct histogram *h = fresh();
	uint64_t x = 88172645463325252ULL;
	for (size_t i = 0; i < N; i++) {
		/* xorshift: values from 0 to about 1000 s, many orders of magnitude */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = (x % 1000000000ULL) >> (x % 20);
		histogram_add(h, v[i]);
	}
	qsort(v, N, sizeof *v, cmp_u64);
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9, 100 };
	for (size_t i = 0; i < COUNT(ps); i++) {
		size_t rank = (size_t)(ps[i] / 100 * N + 0.999999);
		uint64_t exact = v[rank - 1], got = histogram_percentile(h, ps[i]);
		/* Never below the true value, at most 1/512 above it. */
		if (got < exact || (double)(got - exact) > (double)exact / 512 + 1)
			unit_fail(__FILE__, __LINE__, "p%g: %llu, exact %llu", ps[i],
				  (unsigned long long)got, (unsigned long long)exact);
	}
	CHECK_INT(v[N - 1], histogram_percentile(h, 100));
	CHECK_INT(v[0], h->min);
	free(v);
	free(h);
}

TEST(bench_histogram_merge_and_empty)
{
	struct histogram *a = fresh(), *b = fresh(), *empty = fresh();
	CHECK_INT(0, histogram_percentile(empty, 50));
	CHECK(histogram_mean(empty) == 0);
	for (uint64_t i = 1; i <= 50; i++)
		histogram_add(a, i);
	for (uint64_t i = 51; i <= 100; i++)
		histogram_add(b, i);
	histogram_merge(a, empty);
	CHECK_INT(50, a->count);
	histogram_merge(empty, b);
	CHECK_INT(51, empty->min);
	histogram_merge(a, b);
	CHECK_INT(100, a->count);
	CHECK_INT(1, a->min);
	CHECK_INT(100, a->max);
	CHECK_INT(90, histogram_percentile(a, 90));
	CHECK_INT(5050, a->sum);
	free(a);
	free(b);
	free(empty);
}

TEST(bench_histogram_clamps_huge_values)
{
	struct histogram *h = fresh();
	histogram_add(h, UINT64_MAX);
	histogram_add(h, HISTOGRAM_MAX_US);
	CHECK_INT(HISTOGRAM_MAX_US, h->max);
	CHECK_INT(HISTOGRAM_MAX_US, histogram_percentile(h, 50));
	/* Bucket boundaries around the exact range. */
	histogram_init(h);
	histogram_add(h, 1023);
	histogram_add(h, 1024);
	histogram_add(h, 1025);
	CHECK_INT(1023, histogram_percentile(h, 33));
	CHECK_INT(1025, histogram_percentile(h, 100));
	uint64_t mid = histogram_percentile(h, 66);
	CHECK(mid >= 1024 && mid <= 1025);
	free(h);
}

TEST(bench_histogram_count_upto_for_a_distribution)
{
	struct histogram *h = fresh();
	CHECK_INT(0, (long long)histogram_count_upto(h, 1000));
	for (uint64_t v = 1; v <= 100; v++)
		histogram_add(h, v * 10); /* 10 .. 1000 us, exact */
	histogram_add(h, 200000);
	histogram_add(h, 300000);
	CHECK_INT(0, (long long)histogram_count_upto(h, 9));
	CHECK_INT(1, (long long)histogram_count_upto(h, 10));
	CHECK_INT(50, (long long)histogram_count_upto(h, 500));
	CHECK_INT(100, (long long)histogram_count_upto(h, 1000));
	CHECK_INT(100, (long long)histogram_count_upto(h, 199000));
	/* 200 ms's bucket holds it whatever value of the bucket is asked. */
	CHECK_INT(101, (long long)histogram_count_upto(h, 200000));
	CHECK_INT(102, (long long)histogram_count_upto(h, UINT64_MAX));
	/* Bins add up to the count. */
	CHECK_INT(102, (long long)(histogram_count_upto(h, 1000) +
				   (histogram_count_upto(h, 250000) - histogram_count_upto(h, 1000)) +
				   (histogram_count_upto(h, 400000) - histogram_count_upto(h, 250000))));
	free(h);
}
