/*
 * Exact running statistics over int64 nanosecond values: count, min, max,
 * mean and standard deviation by Welford's update (doubles), mergeable with
 * Chan's parallel formula. Plain data, safe on the real-time path.
 */
#ifndef JITTERLAB_STATS_RUNNING_STATS_H
#define JITTERLAB_STATS_RUNNING_STATS_H

#include <stdint.h>

struct running_stats {
    uint64_t count;
    int64_t min; /* INT64_MAX when empty */
    int64_t max; /* INT64_MIN when empty */
    double mean;
    double m2; /* sum of squared deviations from the mean */
};

static inline void running_stats_add(struct running_stats *s, int64_t value)
{
    s->count++;
    if (value < s->min)
        s->min = value;
    if (value > s->max)
        s->max = value;
    double delta = (double)value - s->mean;
    s->mean += delta / (double)s->count;
    s->m2 += delta * ((double)value - s->mean);
}

void running_stats_init(struct running_stats *s);
void running_stats_merge(struct running_stats *dst, const struct running_stats *src);
/* Population standard deviation (divides by n); 0 for fewer than 2 values. */
double running_stats_stddev(const struct running_stats *s);

#endif
