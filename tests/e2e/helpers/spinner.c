/*
 * spinner: injects a known delay for the known-delay test.
 *
 *     spinner CPU PRIO SPIN_US PERIOD_US DURATION_S
 *
 * Pins itself to CPU, becomes SCHED_FIFO PRIO (exit 77 when that is not
 * permitted, so that the test can skip), locks its memory, then every
 * PERIOD_US -- absolute wake-ups at start + k * period on CLOCK_MONOTONIC,
 * k = 1, 2, ... -- busy-spins SPIN_US measured with clock_gettime, until
 * DURATION_S have passed. It is hard bounded: every spin also stops once the
 * whole run has lasted DURATION_S + 1 s, whatever the arguments or the clock
 * did. Prints the number of injections done on stdout at exit.
 * Exit codes: 0 ok, 1 runtime failure, 2 bad usage, 77 no permission for
 * SCHED_FIFO.
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "helper.h"

int main(int argc, char **argv)
{
    long cpu, prio, spin_us, period_us, duration_s;
    if (argc != 6 || parse(argv[1], 0, CPU_SETSIZE - 1, &cpu) || parse(argv[2], 1, 99, &prio) ||
        parse(argv[3], 1, 10000000, &spin_us) || parse(argv[4], 1, 100000000, &period_us) ||
        parse(argv[5], 1, 3600, &duration_s)) {
        fprintf(stderr, "usage: spinner CPU PRIO SPIN_US PERIOD_US DURATION_S\n");
        return 2;
    }

    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
        fprintf(stderr, "spinner: cannot run on CPU %ld: %s\n", cpu, strerror(errno));
        return 1;
    }
    struct sched_param sp = {.sched_priority = (int)prio};
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
        int e = errno;
        fprintf(stderr, "spinner: SCHED_FIFO %ld: %s\n", prio, strerror(e));
        return e == EPERM ? 77 : 1;
    }
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
        fprintf(stderr, "spinner: mlockall: %s (going on)\n", strerror(errno));

    const int64_t spin = (int64_t)spin_us * 1000;
    const int64_t period = (int64_t)period_us * 1000;
    const int64_t start = now_ns();
    const int64_t end = start + (int64_t)duration_s * 1000000000;
    const int64_t hard_end = end + 1000000000; /* the absolute bound on spinning */
    long injections = 0;

    for (int64_t k = 1;; k++) {
        int64_t planned = start + k * period;
        if (planned >= end)
            break;
        struct timespec ts = {.tv_sec = planned / 1000000000, .tv_nsec = planned % 1000000000};
        int rc;
        while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
            ;
        if (rc != 0) {
            fprintf(stderr, "spinner: clock_nanosleep: %s\n", strerror(rc));
            break;
        }
        int64_t t0 = now_ns(), t = t0;
        while (t - t0 < spin && t < hard_end)
            t = now_ns();
        injections++;
        if (t >= hard_end)
            break;
    }
    printf("%ld\n", injections);
    return 0;
}
