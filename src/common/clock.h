/*
 * Time as the program reads it outside the measuring loop: CLOCK_MONOTONIC
 * in nanoseconds (vDSO, cheap) and the wall-clock time stamp that result
 * documents carry.
 */
#ifndef JITTERLAB_COMMON_CLOCK_H
#define JITTERLAB_COMMON_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Inline: the measuring loop calls it twice per cycle. */
static inline int64_t monotonic_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* t + d for a time t >= 0 and a duration d >= 0, or INT64_MAX ("never")
 * where the sum would overflow. */
static inline int64_t deadline_after_ns(int64_t t_ns, int64_t d_ns)
{
    return d_ns > INT64_MAX - t_ns ? INT64_MAX : t_ns + d_ns;
}

/* Sleeps until the absolute CLOCK_MONOTONIC time t_ns, or until a signal
 * handler runs (then earlier: callers look at their stop flags). */
void sleep_until_ns(int64_t t_ns);

/* Now as RFC 3339 UTC with milliseconds, e.g. "2026-11-29T22:26:27.123Z". */
void rfc3339_now(char *buf, size_t len);

#endif
