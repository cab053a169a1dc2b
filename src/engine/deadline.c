/*
 * SCHED_DEADLINE for the calling thread (see deadline.h): sched_setattr and
 * sched_getattr through syscall(2), since the C library wraps neither, and
 * the SIGXCPU handler that counts runtime overruns.
 *
 * The kernel raises an overrun flag when the thread exhausts its runtime
 * and turns it into SIGXCPU at its next tick (posix-cpu-timers): overruns
 * between two ticks are one signal, so the count is a lower bound. The
 * signal is sent to the process but delivered to the thread that overran,
 * which runs at that moment; the handler finds that thread's counter in a
 * thread-local pointer, one atomic add, nothing else (async-signal-safe).
 */
#include "engine/deadline.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SCHED_FLAG_DL_OVERRUN
#define SCHED_FLAG_DL_OVERRUN 0x04
#endif

/* The kernel's struct sched_attr (include/uapi/linux/sched/types.h, the
 * first version, 48 bytes); its header clashes with glibc's sched.h. */
struct dl_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
};

/* The counter of the thread the signal interrupts; NULL on every thread
 * but a SCHED_DEADLINE measuring thread. */
static _Thread_local _Atomic uint64_t *overrun_counter;

static void overrun_handler(int sig)
{
    (void)sig;
    _Atomic uint64_t *c = overrun_counter;
    if (c)
        atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

void deadline_overrun_handler_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = overrun_handler;
    sa.sa_flags = SA_RESTART; /* an interrupted sleep is slept again by the loop anyway */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGXCPU, &sa, NULL);
}

/* Every CPU the process may use: the kernel intersects the mask with the
 * cpuset's CPUs, so a mask of all possible CPUs is the widest allowed. */
static int widen_affinity(void)
{
    enum { MAX_CPUS = 8192 };
    size_t setsize = CPU_ALLOC_SIZE(MAX_CPUS);
    cpu_set_t *set = CPU_ALLOC(MAX_CPUS);
    if (!set)
        return ENOMEM;
    memset(set, 0xff, setsize);
    int rc = sched_setaffinity(0, setsize, set) == 0 ? 0 : errno;
    CPU_FREE(set);
    return rc;
}

int deadline_enter(const struct deadline_reservation *res, _Atomic uint64_t *overruns)
{
    int rc = widen_affinity();
    if (rc != 0)
        return rc;
    struct dl_sched_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    attr.sched_policy = SCHED_DEADLINE;
    attr.sched_flags = SCHED_FLAG_DL_OVERRUN;
    attr.sched_runtime = (uint64_t)res->runtime_ns;
    attr.sched_deadline = (uint64_t)res->deadline_ns;
    attr.sched_period = (uint64_t)res->period_ns;
    overrun_counter = overruns; /* before: the first overrun may come at once */
    sigset_t xcpu;
    sigemptyset(&xcpu);
    sigaddset(&xcpu, SIGXCPU);
    pthread_sigmask(SIG_UNBLOCK, &xcpu, NULL);
    if (syscall(SYS_sched_setattr, 0, &attr, 0) != 0) {
        rc = errno;
        pthread_sigmask(SIG_BLOCK, &xcpu, NULL);
        overrun_counter = NULL;
        return rc;
    }
    return 0;
}

int deadline_read_back(struct deadline_reservation *res)
{
    struct dl_sched_attr attr;
    memset(&attr, 0, sizeof(attr));
    if (syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0) != 0 ||
        attr.sched_policy != SCHED_DEADLINE)
        return -1;
    res->runtime_ns = (int64_t)attr.sched_runtime;
    res->deadline_ns = (int64_t)attr.sched_deadline;
    res->period_ns = (int64_t)attr.sched_period;
    return 0;
}
