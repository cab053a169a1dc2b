/*
 * Out-of-line half of the log-linear latency histogram (histogram.h holds the
 * layout and the inline add used on the real-time path). Here live the parts
 * that only run when a run is summarised: bucket bounds (the exact inverse of
 * latency_hist_bucket_index), merging per-CPU histograms into one, and
 * nearest-rank percentiles. Percentiles are answered from bucket midpoints, so
 * they are within half a bucket (< 0.4%) of the true value, exact below
 * 128 ns, and exact at the ends, where the kept min and max are known.
 */
#include "stats/histogram.h"

#include <float.h>
#include <math.h>
#include <string.h>

void latency_hist_init(struct latency_hist *h)
{
    memset(h, 0, sizeof(*h));
    h->min_ns = INT64_MAX;
    h->max_ns = INT64_MIN;
}

void latency_hist_bucket_bounds(size_t idx, int64_t *lo_ns, int64_t *hi_ns)
{
    if (idx < LATENCY_HIST_SUB_COUNT) {
        *lo_ns = (int64_t)idx;
        *hi_ns = (int64_t)idx;
        return;
    }
    if (idx >= LATENCY_HIST_BUCKETS) {
        /* Past the last bucket is where the overflow counter lives. */
        *lo_ns = LATENCY_HIST_MAX_NS + 1;
        *hi_ns = INT64_MAX;
        return;
    }
    /* Group g >= 1 holds [2^(g+6), 2^(g+7)) in 128 steps of 2^(g-1). */
    unsigned shift = (unsigned)(idx / LATENCY_HIST_SUB_COUNT) - 1u;
    uint64_t sub = idx % LATENCY_HIST_SUB_COUNT;
    uint64_t lo = ((uint64_t)LATENCY_HIST_SUB_COUNT + sub) << shift;
    *lo_ns = (int64_t)lo;
    *hi_ns = (int64_t)(lo + (UINT64_C(1) << shift) - 1u);
}

void latency_hist_merge(struct latency_hist *dst, const struct latency_hist *src)
{
    dst->count += src->count;
    dst->overflow += src->overflow;
    dst->underflow += src->underflow;
    if (src->min_ns < dst->min_ns)
        dst->min_ns = src->min_ns;
    if (src->max_ns > dst->max_ns)
        dst->max_ns = src->max_ns;
    for (size_t i = 0; i < LATENCY_HIST_BUCKETS; i++)
        dst->buckets[i] += src->buckets[i];
}

/*
 * ceil(pct/100 * count), at least 1. Percentages arrive as decimals that a
 * double cannot hold exactly (99.9 is 99.900000000000006), so a product that
 * lands a few ulps above an integer is taken to be that integer; otherwise
 * p99.9 of 100000 values could read rank 99901 instead of 99900.
 */
static uint64_t nearest_rank(double pct, uint64_t count)
{
    double x = pct * (double)count / 100.0;
    double r = ceil(x - x * 8 * DBL_EPSILON);
    if (r < 1.0)
        return 1;
    if (r >= (double)count)
        return count;
    return (uint64_t)r;
}

int64_t latency_hist_percentile(const struct latency_hist *h, double pct)
{
    if (h->count == 0)
        return 0;
    if (!(pct > 0.0)) /* also NaN */
        return h->min_ns;
    if (pct >= 100.0)
        return h->max_ns;

    uint64_t rank = nearest_rank(pct, h->count);
    /* The first and the last ranked values are the kept min and max. */
    if (rank == 1)
        return h->min_ns;
    if (rank == h->count)
        return h->max_ns;

    uint64_t seen = 0;
    for (size_t i = 0; i < LATENCY_HIST_BUCKETS; i++) {
        seen += h->buckets[i];
        if (seen < rank)
            continue;
        int64_t lo, hi;
        latency_hist_bucket_bounds(i, &lo, &hi);
        int64_t mid = lo + (hi - lo) / 2;
        if (mid < h->min_ns)
            return h->min_ns;
        if (mid > h->max_ns)
            return h->max_ns;
        return mid;
    }
    /* Past every bucket: the rank is among the overflowed values. */
    return h->max_ns;
}
