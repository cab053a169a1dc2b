/*
 * SCHED_DEADLINE for a measuring thread (run --policy deadline): the
 * reservation (runtime every period, done within deadline), the
 * sched_setattr(2) call glibc has no wrapper for, and the count of runtime
 * overruns the kernel signals with SIGXCPU (SCHED_FLAG_DL_OVERRUN).
 *
 * A SCHED_DEADLINE thread cannot be pinned: the kernel admits it only when
 * it may run on every CPU of its root domain (EPERM otherwise), and refuses
 * to narrow its affinity afterwards (EBUSY). So the thread is created on
 * its CPU, prepares there (stack, workload, counters), then widens its
 * affinity to every CPU the process may use and asks for the reservation;
 * from then on the scheduler's global EDF places it (docs/deadline.md).
 */
#ifndef JITTERLAB_ENGINE_DEADLINE_H
#define JITTERLAB_ENGINE_DEADLINE_H

#include <stdatomic.h>
#include <stdint.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

/* The kernel's smallest runtime (and deadline, period): 2^DL_SCALE ns. */
#define DEADLINE_MIN_NS 1024

struct deadline_reservation {
    int64_t runtime_ns;
    int64_t deadline_ns;
    int64_t period_ns;
};

/* Installs the process's SIGXCPU handler (once, before the threads start):
 * it counts an overrun on the thread it interrupts, if that thread called
 * deadline_enter, and ignores it elsewhere (SIGXCPU would otherwise end
 * the process). */
void deadline_overrun_handler_install(void);

/* Makes the calling thread SCHED_DEADLINE with res and SCHED_FLAG_DL_OVERRUN,
 * after widening its affinity to every CPU the process may use; each
 * overrun signalled from then on adds one to *overruns. 0, or the errno of
 * the refusal (EPERM, EBUSY, EINVAL, ...). */
int deadline_enter(const struct deadline_reservation *res, _Atomic uint64_t *overruns);

/* The reservation the kernel holds for the calling thread, read back with
 * sched_getattr(2): 0 and *res filled when it is SCHED_DEADLINE, else -1. */
int deadline_read_back(struct deadline_reservation *res);

#endif
