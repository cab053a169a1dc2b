/*
 * Report windows (--report-every): what one window of one CPU adds up, by
 * the same rules the engine applies to the whole run. A sample counts
 * against the tolerance when its latency or its period error (consecutive
 * cycles only) exceeds it, and misses the deadline when its response time
 * (latency + execution time) exceeds the deadline. A run without a
 * deadline (deadline_ns 0: no --workload and no --deadline) counts no
 * misses. Plain data.
 */
#ifndef JITTERLAB_STATS_WINDOW_H
#define JITTERLAB_STATS_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "stats/running_stats.h"

/* One --report-every window of one CPU. */
struct interval_stats {
    int64_t t_ns; /* end of the window, relative to the run start */
    int cpu;
    uint64_t samples;
    uint64_t missed;
    struct running_stats latency;
    struct running_stats period;
    uint64_t over_tolerance;
    struct running_stats error; /* period errors of the samples beyond tolerance */
    struct running_stats exec;
    uint64_t deadline_misses;
};

struct window_rules {
    int64_t interval_ns;
    int64_t deadline_ns;  /* 0: none */
    int64_t tolerance_ns; /* < 0: none */
};

/* One sample as the windows see it; period_ns 0 when it has no period. */
struct window_sample {
    int64_t latency_ns;
    int64_t exec_ns;
    int64_t period_ns;
    uint32_t missed_before;
};

static inline bool response_misses_deadline(int64_t latency_ns, int64_t exec_ns,
                                            int64_t deadline_ns)
{
    return deadline_ns > 0 && latency_ns + exec_ns > deadline_ns;
}

void window_reset(struct interval_stats *w, int cpu);
void window_add(struct interval_stats *w, const struct window_rules *rules,
                const struct window_sample *s);

#endif
