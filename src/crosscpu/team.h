/*
 * A team of threads, one pinned to each of a list of CPUs, started together:
 * what c2c, tsc and rendezvous measure with. Each thread runs body(arg,
 * index) on cpus[index] at SCHED_FIFO when asked and allowed (else
 * SCHED_OTHER, and the report says so), with every signal blocked (the
 * calling thread takes them; bodies poll stop_requested()). Bodies start
 * only once every thread is running on its CPU. A body must end by itself
 * in bounded time: every spin loop in it has a deadline.
 */
#ifndef JITTERLAB_CROSSCPU_TEAM_H
#define JITTERLAB_CROSSCPU_TEAM_H

#include <stdbool.h>
#include <stddef.h>

struct team_config {
    const int *cpus;
    int n;
    bool fifo;    /* ask for SCHED_FIFO */
    int priority; /* its priority */
    void (*body)(void *arg, int index);
    void *arg;
};

struct team_report {
    bool realtime; /* every thread ran at SCHED_FIFO */
    int stuck_cpu; /* the first CPU whose thread never ran within the start
                      time (a higher-priority thread holds it), else -1 */
};

/* 0 after every body returned; -1 with err filled when a thread could not
 * be started or pinned or did not run within 2 s (then no body ran). */
int team_run(const struct team_config *cfg, struct team_report *rep, char *err, size_t errlen);

#endif
