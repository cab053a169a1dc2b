/*
 * The time stamp counter: reading it (rdtscp, which waits for the
 * instructions before it), reading it together with CLOCK_MONOTONIC, and
 * its rate measured against CLOCK_MONOTONIC. Inline where the measuring
 * loops call it. On a CPU without a TSC, TSC_SUPPORTED is 0 and read_tsc()
 * returns 0.
 */
#ifndef JITTERLAB_COMMON_TSC_H
#define JITTERLAB_COMMON_TSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/clock.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define TSC_SUPPORTED 1
#else
#define TSC_SUPPORTED 0
#endif

static inline uint64_t read_tsc(void)
{
#if TSC_SUPPORTED
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

/* Ticks per second of the TSC, measured against CLOCK_MONOTONIC over
 * 100 ms. 0, or -1 with err filled. */
int tsc_calibrate(double *tsc_hz, char *err, size_t errlen);

#endif
