/*
 * Out-of-line half of the running statistics (running_stats.h holds the
 * struct and the Welford update used on the real-time path). Here: the empty
 * state, Chan et al.'s pairwise combination so that per-CPU (or per-interval)
 * accumulators can be merged without revisiting values, and the population
 * standard deviation that the result document reports.
 */
#include "stats/running_stats.h"

#include <math.h>

void running_stats_init(struct running_stats *s)
{
    s->count = 0;
    s->min = INT64_MAX;
    s->max = INT64_MIN;
    s->mean = 0.0;
    s->m2 = 0.0;
}

void running_stats_merge(struct running_stats *dst, const struct running_stats *src)
{
    if (src->count == 0)
        return;
    if (dst->count == 0) {
        *dst = *src;
        return;
    }
    double na = (double)dst->count;
    double nb = (double)src->count;
    double n = na + nb;
    double delta = src->mean - dst->mean;

    dst->count += src->count;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    dst->mean += delta * (nb / n);
    dst->m2 += src->m2 + delta * delta * (na * nb / n);
}

double running_stats_stddev(const struct running_stats *s)
{
    if (s->count < 2)
        return 0.0;
    return sqrt(s->m2 / (double)s->count);
}
