/*
 * `jitterlab run --wake MECH` options (see run_wake_cli.h). Kept apart from
 * run_cli.c so that the wake paths add a file, not a block in every part of
 * run's option handling.
 */
#include "cmd/run_wake_cli.h"

#include <stdio.h>
#include <string.h>

#include "cmd/options.h"

int run_wake_option(struct run_wake *w, int which, const char *arg)
{
    long v;
    int rc;
    switch (which) {
    case 0:
        w->mech_text = arg;
        if (wake_mech_parse(arg, &w->mech) != 0) {
            char why[160];
            snprintf(why, sizeof why, "unknown mechanism (one of %s)", wake_mech_list());
            return usage_error("--wake", arg, why);
        }
        return 0;
    case 1:
        w->waker_cpu_text = arg;
        if ((rc = parse_int_option("--waker-cpu", arg, 0, CPULIST_MAX_CPUS - 1, &v)) != 0)
            return rc;
        w->waker_cpu = (int)v;
        return 0;
    default:
        w->waker_priority_text = arg;
        if ((rc = parse_int_option("--waker-priority", arg, 1, 99, &v)) != 0)
            return rc;
        w->waker_priority = (int)v;
        return 0;
    }
}

int run_wake_finish(struct run_wake *w, bool realtime, int priority)
{
    const char *need = "needs --wake MECH other than timer";
    if (w->mech == WAKE_TIMER) {
        if (w->waker_cpu_text)
            return usage_error("--waker-cpu", w->waker_cpu_text, need);
        if (w->waker_priority_text)
            return usage_error("--waker-priority", w->waker_priority_text, need);
        return 0;
    }
    if (!realtime) {
        if (w->waker_priority_text)
            return usage_error("--waker-priority", w->waker_priority_text,
                               "has no meaning with --policy other");
        w->waker_priority = 0;
    } else if (!w->waker_priority_text) {
        w->waker_priority = priority < 99 ? priority + 1 : 99;
    }
    return 0;
}

int run_wake_validate(struct run_wake *w, const struct cpulist *measured,
                      const struct system_info *si)
{
    if (w->mech == WAKE_TIMER)
        return 0;
    if (w->waker_cpu_text) {
        struct cpulist one = {.count = 1};
        one.cpu[0] = w->waker_cpu;
        return check_cpus_online("--waker-cpu", w->waker_cpu_text, &one, si);
    }
    struct cpulist house;
    cpulist_subtract(&si->online, measured, &house);
    w->waker_cpu = house.count > 0 ? house.cpu[0] : measured->cpu[0];
    return 0;
}
