/*
 * What the engine sets up once, outside the cycle loop: whether --clock tsc
 * can work here and whether all memory may be locked.
 */
#include "engine/cycle_clock.h"
#include "engine/engine.h"

#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

bool engine_tsc_supported(void)
{
    return ENGINE_HAVE_TSC;
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
