/*
 * The cycle loop's clock. CLOCK_MONOTONIC (vDSO), or the TSC read with
 * rdtscp and converted to CLOCK_MONOTONIC nanoseconds from a (monotonic,
 * TSC) pair read together just before each sleep: nothing that happens
 * between two reads of one clock can leak into the other's conversion.
 * Inline: the measuring loop calls these every cycle.
 */
#ifndef JITTERLAB_ENGINE_CYCLE_CLOCK_H
#define JITTERLAB_ENGINE_CYCLE_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/clock.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define ENGINE_HAVE_TSC 1
#else
#define ENGINE_HAVE_TSC 0
#endif

static inline uint64_t read_tsc(void)
{
#if ENGINE_HAVE_TSC
    unsigned aux;
    return __rdtscp(&aux);
#else
    return 0;
#endif
}

/* CLOCK_MONOTONIC and the TSC read as one pair: the pair whose monotonic
 * reads lie closest together out of a few tries, its time the midpoint.
 * Returns the pair's uncertainty (half the spread) in ns. */
static inline int64_t tsc_pair(int tries, int64_t *mono_ns, uint64_t *tsc)
{
    int64_t best = INT64_MAX;
    for (int i = 0; i < tries; i++) {
        int64_t m0 = monotonic_now_ns();
        uint64_t t = read_tsc();
        int64_t m1 = monotonic_now_ns();
        if (m1 - m0 < best) {
            best = m1 - m0;
            *mono_ns = m0 + (m1 - m0) / 2;
            *tsc = t;
        }
    }
    return best / 2;
}

/* The cycle loop's clock: CLOCK_MONOTONIC, or the TSC converted from an
 * anchor pair taken just before the cycle's sleep. */
struct cycle_clock {
    bool use_tsc;
    double ns_per_tick;
    int64_t anchor_mono;
    uint64_t anchor_tsc;
};

static inline int64_t cycle_clock_now(const struct cycle_clock *c)
{
    if (!c->use_tsc)
        return monotonic_now_ns();
    int64_t ticks = (int64_t)(read_tsc() - c->anchor_tsc);
    return c->anchor_mono + (int64_t)((double)ticks * c->ns_per_tick);
}

/* Ticks per second of the TSC, measured against CLOCK_MONOTONIC over
 * 100 ms. 0, or -1 with err filled. */
int tsc_calibrate(double *tsc_hz, char *err, size_t errlen);
/* Memory: whether this process may lock any amount (CAP_IPC_LOCK or an
 * unlimited RLIMIT_MEMLOCK). */
bool memory_may_lock_everything(void);

#endif
