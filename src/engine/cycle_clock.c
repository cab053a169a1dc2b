/*
 * What the engine sets up once, outside the cycle loop: the TSC frequency
 * for --clock tsc and the question whether all memory may be locked.
 */
#include "engine/cycle_clock.h"
#include "engine/engine.h"

#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define TSC_CALIBRATION_NS (100 * 1000 * 1000)

bool engine_tsc_supported(void)
{
    return ENGINE_HAVE_TSC;
}

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
        snprintf(err, errlen, "--clock tsc: the TSC did not advance during calibration");
        return -1;
    }
    *tsc_hz = (double)(t1 - t0) * 1e9 / (double)(m1 - m0);
    return 0;
}

/* Whether this process may lock any amount of memory: CAP_IPC_LOCK in the
 * effective set (bit 14 of CapEff) or no RLIMIT_MEMLOCK. */
bool memory_may_lock_everything(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY)
        return true;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return geteuid() == 0;
    char line[256];
    unsigned long long cap = 0;
    bool found = false;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "CapEff: %llx", &cap) == 1) {
            found = true;
            break;
        }
    fclose(f);
    return found ? (cap >> 14) & 1 : geteuid() == 0;
}
