/*
 * Log-linear latency histogram: exact 1 ns buckets below 128 ns, then 128
 * sub-buckets per power of two, so every bucket is at most 1/128 (< 1%) of
 * its lower bound wide. Covers 0 .. 60 s; larger values are counted in
 * `overflow` and negative ones (only possible with a mis-calibrated clock)
 * in `underflow`, with the exact min and max always kept. Nothing is dropped.
 * The struct is plain data (no pointers) so it can live in a per-CPU slot
 * written by the real-time thread; latency_hist_add() is inline and never
 * allocates or blocks.
 */
#ifndef JITTERLAB_STATS_HISTOGRAM_H
#define JITTERLAB_STATS_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#define LATENCY_HIST_SUB_BITS  7
#define LATENCY_HIST_SUB_COUNT (1 << LATENCY_HIST_SUB_BITS) /* 128 */
#define LATENCY_HIST_MAX_NS    INT64_C(60000000000)         /* 60 s */
/* 60 s < 2^36 ns: exponents 7..35 each hold 128 sub-buckets. */
#define LATENCY_HIST_TOP_EXP 36
#define LATENCY_HIST_BUCKETS                                                                       \
    (LATENCY_HIST_SUB_COUNT +                                                                      \
     (LATENCY_HIST_TOP_EXP - LATENCY_HIST_SUB_BITS) * LATENCY_HIST_SUB_COUNT)

struct latency_hist {
    uint64_t count;     /* every value added, in range or not */
    uint64_t overflow;  /* values > LATENCY_HIST_MAX_NS */
    uint64_t underflow; /* values < 0 */
    int64_t min_ns;     /* exact; INT64_MAX when empty */
    int64_t max_ns;     /* exact; INT64_MIN when empty */
    uint64_t buckets[LATENCY_HIST_BUCKETS];
};

static inline size_t latency_hist_bucket_index(int64_t value_ns)
{
    uint64_t v = (uint64_t)value_ns;
    if (v < LATENCY_HIST_SUB_COUNT)
        return (size_t)v;
    unsigned exp = 63u - (unsigned)__builtin_clzll(v); /* >= 7 */
    unsigned shift = exp - LATENCY_HIST_SUB_BITS;
    size_t sub = (size_t)((v >> shift) & (LATENCY_HIST_SUB_COUNT - 1));
    return (size_t)(exp - LATENCY_HIST_SUB_BITS + 1) * LATENCY_HIST_SUB_COUNT + sub;
}

/* The counter a value adds to: its bucket, or the overflow count; for a
 * negative value the underflow count (which also adds to bucket 0). */
static inline uint64_t *latency_hist_counter(struct latency_hist *h, int64_t value_ns)
{
    if (value_ns < 0)
        return &h->underflow;
    if (value_ns > LATENCY_HIST_MAX_NS)
        return &h->overflow;
    return &h->buckets[latency_hist_bucket_index(value_ns)];
}

/* The bucket part of latency_hist_add: count, min and max of the header are
 * left alone (written only for a value out of range), so that a value
 * usually writes one cache line. For a writer that keeps count, min and max
 * elsewhere anyway (the measuring thread's running statistics) and sets them
 * with latency_hist_set_range before the histogram is read. */
static inline void latency_hist_add_bucket(struct latency_hist *h, int64_t value_ns)
{
    (*latency_hist_counter(h, value_ns))++;
    if (value_ns < 0)
        h->buckets[0]++;
}

/* The same for a histogram that two threads add to (each add atomic; read
 * it only once both have ended, or from one of them). */
static inline void latency_hist_add_bucket_shared(struct latency_hist *h, int64_t value_ns)
{
    __atomic_fetch_add(latency_hist_counter(h, value_ns), 1, __ATOMIC_RELAXED);
    if (value_ns < 0)
        __atomic_fetch_add(&h->buckets[0], 1, __ATOMIC_RELAXED);
}

static inline void latency_hist_add(struct latency_hist *h, int64_t value_ns)
{
    h->count++;
    if (value_ns < h->min_ns)
        h->min_ns = value_ns;
    if (value_ns > h->max_ns)
        h->max_ns = value_ns;
    latency_hist_add_bucket(h, value_ns);
}

/* Completes a histogram filled by latency_hist_add_bucket: count, min and
 * max of the values added (INT64_MAX and INT64_MIN when there were none). */
static inline void latency_hist_set_range(struct latency_hist *h, uint64_t count, int64_t min_ns,
                                          int64_t max_ns)
{
    h->count = count;
    h->min_ns = min_ns;
    h->max_ns = max_ns;
}

void latency_hist_init(struct latency_hist *h);
/* Inclusive value range [lo, hi] of bucket idx. */
void latency_hist_bucket_bounds(size_t idx, int64_t *lo_ns, int64_t *hi_ns);
void latency_hist_merge(struct latency_hist *dst, const struct latency_hist *src);
/*
 * Nearest-rank percentile (pct in 0..100): the value of rank ceil(pct/100*count).
 * Returns the bucket's midpoint clamped to [min, max] (exact for buckets of
 * width 1), the exact max when the rank lands in the overflow, 0 when empty.
 */
int64_t latency_hist_percentile(const struct latency_hist *h, double pct);

#endif
