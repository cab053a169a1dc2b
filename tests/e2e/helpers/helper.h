/*
 * What the e2e helper programs (spinner.c, disturber.c) share: the clock
 * every bounded loop reads and the parser of their numeric arguments.
 */
#ifndef JITTERLAB_TESTS_HELPER_H
#define JITTERLAB_TESTS_HELPER_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static inline int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A decimal in [min, max]: 0, or -1. */
static inline int parse(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || end == s || *end || x < min || x > max)
        return -1;
    *out = x;
    return 0;
}

#endif
