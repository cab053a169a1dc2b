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
#include "common/tsc.h"

#define ENGINE_HAVE_TSC TSC_SUPPORTED

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

/* Memory: whether this process may lock any amount (CAP_IPC_LOCK or an
 * unlimited RLIMIT_MEMLOCK). */
bool memory_may_lock_everything(void);

#endif
