/*
 * The TSC's rate, measured against CLOCK_MONOTONIC.
 */
#include "common/tsc.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>

#define TSC_CALIBRATION_NS (100 * 1000 * 1000)

int tsc_calibrate(double *tsc_hz, char *err, size_t errlen)
{
    int64_t m0 = 0, m1 = 0;
    uint64_t t0 = 0, t1 = 0;
    tsc_pair(50, &m0, &t0);
    struct timespec pause = {0, TSC_CALIBRATION_NS};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
        ;
    tsc_pair(50, &m1, &t1);
    if (t1 <= t0 || m1 <= m0) {
        snprintf(err, errlen, "the TSC did not advance during calibration");
        return -1;
    }
    *tsc_hz = (double)(t1 - t0) * 1e9 / (double)(m1 - m0);
    return 0;
}
