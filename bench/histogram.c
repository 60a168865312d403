/* bench/histogram.c - latency histogram and percentiles (histogram.h). */
#include "histogram.h"

#include <string.h>

void histogram_init(struct histogram *h)
{
	memset(h, 0, sizeof *h);
}

/* The bucket of a value (already clamped). */
static unsigned bucket_of(uint64_t v)
{
	if (v < HISTOGRAM_EXACT)
		return (unsigned)v;
	/* 2^(9+shift) <= v < 2^(10+shift): keep v's top 10 bits. */
	unsigned shift = (unsigned)(63 - __builtin_clzll(v)) - 9;
	return HISTOGRAM_EXACT + (shift - 1) * HISTOGRAM_SUB + (unsigned)((v >> shift) - HISTOGRAM_SUB);
}

/* The highest value that falls into bucket b. */
static uint64_t bucket_top(unsigned b)
{
	if (b < HISTOGRAM_EXACT)
		return b;
	unsigned shift = (b - HISTOGRAM_EXACT) / HISTOGRAM_SUB + 1;
	uint64_t top_bits = (b - HISTOGRAM_EXACT) % HISTOGRAM_SUB + HISTOGRAM_SUB;
	return ((top_bits + 1) << shift) - 1;
}

void histogram_add(struct histogram *h, uint64_t us)
{
	if (us > HISTOGRAM_MAX_US)
		us = HISTOGRAM_MAX_US;
	h->buckets[bucket_of(us)]++;
	if (!h->count || us < h->min)
		h->min = us;
	if (us > h->max)
		h->max = us;
	h->count++;
	h->sum += us;
}

void histogram_merge(struct histogram *into, const struct histogram *from)
{
	if (!from->count)
		return;
	for (unsigned b = 0; b < HISTOGRAM_BUCKETS; b++)
		into->buckets[b] += from->buckets[b];
	if (!into->count || from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
	into->count += from->count;
	into->sum += from->sum;
}

uint64_t histogram_percentile(const struct histogram *h, double p)
{
	if (!h->count)
		return 0;
	if (p > 100)
		p = 100;
	/* Nearest rank: the ceil(p% of n)-th smallest sample, at least the first. */
	double want = p / 100.0 * (double)h->count;
	uint64_t rank = (uint64_t)want;
	if ((double)rank < want - 1e-9)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	uint64_t seen = 0;
	for (unsigned b = 0; b < HISTOGRAM_BUCKETS; b++) {
		seen += h->buckets[b];
		if (seen >= rank) {
			uint64_t top = bucket_top(b);
			return top > h->max ? h->max : top < h->min ? h->min : top;
		}
	}
	return h->max;
}

uint64_t histogram_count_upto(const struct histogram *h, uint64_t us)
{
	if (us > HISTOGRAM_MAX_US)
		us = HISTOGRAM_MAX_US;
	uint64_t n = 0;
	for (unsigned b = 0, last = bucket_of(us); b <= last; b++)
		n += h->buckets[b];
	return n;
}

double histogram_mean(const struct histogram *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0;
}
