/* bench/histogram.h - latency samples in constant memory, and their
 * percentiles.
 *
 * Values are microseconds. Below 1024 every value has its own bucket;
 * above, each power of two is split into 512 buckets, so a percentile is
 * reported within 0.2% of the true sample (the bucket's highest value, and
 * never more than the largest sample). Values beyond HISTOGRAM_MAX_US are
 * counted as HISTOGRAM_MAX_US. One histogram is about 135 KiB: allocate it,
 * or embed it in something allocated, rather than put it on a stack.
 * Percentiles use the nearest-rank definition: the p-th percentile is the
 * smallest sample such that at least p% of the samples are not larger.
 */
#ifndef CGISNAP_BENCH_HISTOGRAM_H
#define CGISNAP_BENCH_HISTOGRAM_H

#include <stdint.h>

#define HISTOGRAM_EXACT 1024    /* values below this are exact */
#define HISTOGRAM_SUB 512       /* buckets per power of two above */
#define HISTOGRAM_MAX_SHIFT 31  /* up to 2^41 us, about 25 days */
#define HISTOGRAM_BUCKETS (HISTOGRAM_EXACT + HISTOGRAM_MAX_SHIFT * HISTOGRAM_SUB)
#define HISTOGRAM_MAX_US ((UINT64_C(1) << (HISTOGRAM_MAX_SHIFT + 9)) * 2 - 1)

struct histogram {
	uint64_t count;
	uint64_t sum;   /* of the values as added (clamped to HISTOGRAM_MAX_US) */
	uint64_t min, max;
	uint64_t buckets[HISTOGRAM_BUCKETS];
};

/* Empty h. */
void histogram_init(struct histogram *h);
/* Count one sample of us microseconds. */
void histogram_add(struct histogram *h, uint64_t us);
/* Add every sample of from to into. */
void histogram_merge(struct histogram *into, const struct histogram *from);
/* The p-th percentile (0 < p <= 100) in microseconds; 0 for no samples. */
uint64_t histogram_percentile(const struct histogram *h, double p);
/* How many samples are at most us, by bucket: the whole bucket us falls
 * into counts (within 0.2% above 1024 us, exact below). For a
 * distribution: the samples in (a, b] are count_upto(b) - count_upto(a). */
uint64_t histogram_count_upto(const struct histogram *h, uint64_t us);
/* The mean in microseconds; 0 for no samples. */
double histogram_mean(const struct histogram *h);

#endif
