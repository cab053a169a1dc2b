/*
 * Report window accounting (see window.h). The collector adds every sample
 * that reaches it; the engine's own per-CPU summary follows the same rules,
 * and the end-to-end invariants check that the two agree.
 */
#include "stats/window.h"

#include <string.h>

void window_reset(struct interval_stats *w, int cpu)
{
    memset(w, 0, sizeof(*w));
    w->cpu = cpu;
    running_stats_init(&w->latency);
    running_stats_init(&w->period);
    running_stats_init(&w->error);
    running_stats_init(&w->exec);
}

void window_add(struct interval_stats *w, const struct window_rules *rules,
                const struct window_sample *s)
{
    w->samples++;
    w->missed += s->missed_before;
    running_stats_add(&w->latency, s->latency_ns);
    running_stats_add(&w->exec, s->exec_ns);
    if (response_misses_deadline(s->latency_ns, s->exec_ns, rules->deadline_ns))
        w->deadline_misses++;
    int64_t error = 0;
    if (s->period_ns > 0) {
        running_stats_add(&w->period, s->period_ns);
        error = s->period_ns - rules->interval_ns;
    }
    if (rules->tolerance_ns >= 0) {
        bool period_beyond = error > rules->tolerance_ns || -error > rules->tolerance_ns;
        if (period_beyond || s->latency_ns > rules->tolerance_ns)
            w->over_tolerance++;
        if (period_beyond)
            running_stats_add(&w->error, error);
    }
}
