/*
 * disturber: known causes of latency for the cause-by-cause explain test
 * (tests/e2e/run_explain.sh). Each mode runs its disturbing threads for
 * DURATION_S and is hard bounded: every loop also stops once the run has
 * lasted DURATION_S + 1 s, whatever the arguments or the clock did.
 *
 *     disturber spin CPU PRIO SPIN_US PERIOD_US DURATION_S [NAME]
 *         a thread named "disturb" (or NAME, any bytes, cut at 15 by the
 *         kernel) on CPU at SCHED_FIFO PRIO busy-spins
 *         SPIN_US every PERIOD_US (absolute wake-ups on CLOCK_MONOTONIC).
 *         Prints "tid N" (the pid the kernel reports for that thread) as
 *         soon as it runs, and "injections N" at exit.
 *     disturber ipi CPU DURATION_S
 *     disturber busy CPU DURATION_S
 *         a SCHED_OTHER thread named "ipi-target" busy on CPU (so that the
 *         CPU runs this process's memory map, and is not idle); in `ipi`
 *         the main thread, pinned to another CPU, issues private expedited
 *         membarrier(2) calls back to back, each an IPI (call_function) to
 *         CPU while the busy thread runs there; `busy` is the control
 *         without them. Prints "calls N" at exit.
 *
 * Exit codes: 0 ok, 1 runtime failure, 2 bad usage, 77 not permitted
 * (SCHED_FIFO) or not supported (membarrier), so that the test can skip.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

struct job {
    int cpu;
    int prio; /* 0: SCHED_OTHER */
    int64_t spin_ns, period_ns;
    int64_t end_ns, hard_end_ns;
    const char *name;
    long done;  /* injections */
    int status; /* exit code of the thread's part */
};

static atomic_bool stop_busy;

static int pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    if (rc != 0)
        fprintf(stderr, "disturber: cannot run on CPU %d: %s\n", cpu, strerror(rc));
    return rc;
}

/* The "disturb" thread: spins spin_ns every period_ns at SCHED_FIFO. */
static void *spin_thread(void *arg)
{
    struct job *j = arg;
    prctl(PR_SET_NAME, j->name, 0, 0, 0);
    if (pin(j->cpu) != 0) {
        j->status = 1;
        return NULL;
    }
    struct sched_param sp = {.sched_priority = j->prio};
    int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    if (rc != 0) {
        fprintf(stderr, "disturber: SCHED_FIFO %d: %s\n", j->prio, strerror(rc));
        j->status = rc == EPERM ? 77 : 1;
        return NULL;
    }
    printf("tid %ld\n", (long)syscall(SYS_gettid));
    fflush(stdout);
    const int64_t start = now_ns();
    for (int64_t k = 1;; k++) {
        int64_t planned = start + k * j->period_ns;
        if (planned >= j->end_ns)
            break;
        struct timespec ts = {.tv_sec = planned / 1000000000, .tv_nsec = planned % 1000000000};
        while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
            ;
        if (rc != 0) {
            fprintf(stderr, "disturber: clock_nanosleep: %s\n", strerror(rc));
            j->status = 1;
            break;
        }
        int64_t t0 = now_ns(), t = t0;
        while (t - t0 < j->spin_ns && t < j->hard_end_ns)
            t = now_ns();
        j->done++;
        if (t >= j->hard_end_ns)
            break;
    }
    return NULL;
}

/* The "ipi-target" thread: busy at SCHED_OTHER until told or the end. */
static void *busy_thread(void *arg)
{
    struct job *j = arg;
    prctl(PR_SET_NAME, j->name, 0, 0, 0);
    if (pin(j->cpu) != 0) {
        j->status = 1;
        return NULL;
    }
    volatile uint64_t x = 0;
    while (!atomic_load(&stop_busy) && now_ns() < j->end_ns)
        for (int i = 0; i < 1000; i++)
            x = x + 1;
    return NULL;
}

static int membarrier(int cmd)
{
    return (int)syscall(SYS_membarrier, cmd, 0, 0);
}

static int run_spin(struct job *j)
{
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
        fprintf(stderr, "disturber: mlockall: %s (going on)\n", strerror(errno));
    pthread_t th;
    if (pthread_create(&th, NULL, spin_thread, j) != 0) {
        fprintf(stderr, "disturber: cannot start the thread\n");
        return 1;
    }
    pthread_join(th, NULL);
    if (j->status == 0)
        printf("injections %ld\n", j->done);
    return j->status;
}

static int run_ipi(struct job *j, int with_ipis)
{
    /* The caller's CPU: any other than the target (CPU 0 on a 2-CPU VM). */
    int other = j->cpu == 0 ? 1 : 0;
    if (with_ipis && membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0) {
        fprintf(stderr, "disturber: membarrier register: %s\n", strerror(errno));
        return errno == EINVAL || errno == ENOSYS ? 77 : 1;
    }
    if (pin(other) != 0)
        return 1;
    pthread_t th;
    if (pthread_create(&th, NULL, busy_thread, j) != 0) {
        fprintf(stderr, "disturber: cannot start the thread\n");
        return 1;
    }
    long calls = 0;
    int status = 0;
    for (int64_t t = now_ns(); t < j->end_ns && t < j->hard_end_ns; t = now_ns()) {
        if (!with_ipis) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
            continue;
        }
        if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
            fprintf(stderr, "disturber: membarrier: %s\n", strerror(errno));
            status = 1;
            break;
        }
        calls++;
    }
    atomic_store(&stop_busy, true);
    pthread_join(th, NULL);
    if (status == 0 && j->status == 0)
        printf("calls %ld\n", calls);
    return status ? status : j->status;
}

static int usage(void)
{
    fprintf(stderr, "usage: disturber spin CPU PRIO SPIN_US PERIOD_US DURATION_S [NAME]\n"
                    "       disturber ipi|busy CPU DURATION_S\n");
    return 2;
}

int main(int argc, char **argv)
{
    long cpu, prio = 0, spin_us = 0, period_us = 1, duration_s;
    struct job j = {0};
    if ((argc == 7 || argc == 8) && strcmp(argv[1], "spin") == 0) {
        if (parse(argv[2], 0, CPU_SETSIZE - 1, &cpu) || parse(argv[3], 1, 99, &prio) ||
            parse(argv[4], 1, 10000000, &spin_us) || parse(argv[5], 1, 100000000, &period_us) ||
            parse(argv[6], 1, 3600, &duration_s))
            return usage();
        j.name = argc == 8 ? argv[7] : "disturb";
    } else if (argc == 4 && (strcmp(argv[1], "ipi") == 0 || strcmp(argv[1], "busy") == 0)) {
        if (parse(argv[2], 0, CPU_SETSIZE - 1, &cpu) || parse(argv[3], 1, 3600, &duration_s))
            return usage();
        j.name = "ipi-target";
    } else {
        return usage();
    }
    j.cpu = (int)cpu;
    j.prio = (int)prio;
    j.spin_ns = (int64_t)spin_us * 1000;
    j.period_ns = (int64_t)period_us * 1000;
    j.end_ns = now_ns() + (int64_t)duration_s * 1000000000;
    j.hard_end_ns = j.end_ns + 1000000000; /* the absolute bound on every loop */
    if (strcmp(argv[1], "spin") == 0)
        return run_spin(&j);
    return run_ipi(&j, strcmp(argv[1], "ipi") == 0);
}
