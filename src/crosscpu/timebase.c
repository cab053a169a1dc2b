/*
 * Which clock the cross-CPU measurements read, decided once.
 */
#include "crosscpu/timebase.h"

#include <stdio.h>
#include <string.h>

void timebase_init(struct timebase *tb, bool tsc_invariant)
{
    memset(tb, 0, sizeof *tb);
    if (!TSC_SUPPORTED) {
        snprintf(tb->why, sizeof tb->why, "this CPU architecture has no TSC");
    } else if (!tsc_invariant) {
        snprintf(tb->why, sizeof tb->why,
                 "the TSC is not invariant (constant_tsc and nonstop_tsc missing)");
    } else {
        char err[128];
        double hz = 0;
        if (tsc_calibrate(&hz, err, sizeof err) == 0 && hz > 0) {
            tb->tsc = true;
            tb->hz = hz;
            tb->ns_per_tick = 1e9 / hz;
            return;
        }
        snprintf(tb->why, sizeof tb->why, "%s", err);
    }
    tb->hz = 1e9;
    tb->ns_per_tick = 1.0;
}
