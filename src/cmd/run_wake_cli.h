/*
 * The wake options of `jitterlab run` (--wake MECH, --waker-cpu CPU,
 * --waker-priority N): parsed beside run's other options (run_cli.c hands
 * them over), checked once all are known and again against the machine.
 */
#ifndef JITTERLAB_CMD_RUN_WAKE_CLI_H
#define JITTERLAB_CMD_RUN_WAKE_CLI_H

#include <stdbool.h>

#include "engine/wake.h"
#include "sys/cpulist.h"
#include "sys/system_info.h"

struct run_wake {
    enum wake_mech mech; /* WAKE_TIMER unless --wake */
    const char *mech_text;
    int waker_cpu; /* -1: the default, chosen by run_wake_validate */
    const char *waker_cpu_text;
    int waker_priority; /* 0: the default (set by run_wake_finish) */
    const char *waker_priority_text;
};

/* One option: --wake (which 0), --waker-cpu (1), --waker-priority (2).
 * 0, or EXIT_USAGE after the message. */
int run_wake_option(struct run_wake *w, int which, const char *arg);
/* After every option: the waker options need a mechanism other than the
 * timer; the waker's priority defaults to the measured threads' + 1 (at
 * most 99), 0 under --policy other. 0, or EXIT_USAGE after the message. */
int run_wake_finish(struct run_wake *w, bool realtime, int priority);
/* Against the machine, once the measured CPUs are chosen: --waker-cpu is
 * online; the default is the first online CPU not measured (the
 * collector's housekeeping CPUs), else the first measured CPU. 0, or
 * EXIT_USAGE after the message. */
int run_wake_validate(struct run_wake *w, const struct cpulist *measured,
                      const struct system_info *si);

#endif
