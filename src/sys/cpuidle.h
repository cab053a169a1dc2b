/*
 * cpuidle as sysfs shows it: the driver and governor, and per CPU every idle
 * state (name, desc, exit latency, target residency, disable, usage, time,
 * above/below) and the per-CPU PM QoS resume latency limit.
 */
#ifndef JITTERLAB_SYS_CPUIDLE_H
#define JITTERLAB_SYS_CPUIDLE_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/cpulist.h"
#include "sys/read_notes.h"
#include "sys/sysroot.h"

#define CPUIDLE_MAX_STATES 16

/* Integers are VALUE_UNKNOWN where the file is missing or unreadable. */
struct cpuidle_state_info {
    int index; /* N of stateN */
    char name[32];
    char desc[64];
    int64_t latency_us;   /* exit latency */
    int64_t residency_us; /* target residency */
    int64_t disable;      /* 1 = disabled by the user */
    int64_t usage;
    int64_t time_us;
    int64_t above; /* entered, but woken before the target residency */
    int64_t below; /* a deeper state would have fitted */
};

/* resume latency: pm_qos_resume_latency_us, "0" = no limit, "n/a" = no
 * latency allowed (only polling). */
#define RESUME_LATENCY_NO_LIMIT     0
#define RESUME_LATENCY_NONE_ALLOWED (-1)

struct cpuidle_cpu {
    int cpu;
    int nstates;
    struct cpuidle_state_info state[CPUIDLE_MAX_STATES];
    int64_t resume_latency_us; /* µs, 0, -1 (n/a) or VALUE_UNKNOWN */
};

struct cpuidle_info {
    char driver[64];   /* "" unknown, "none" when no driver is active */
    char governor[64]; /* "" unknown */
    char available_governors[256];
    int ncpu;
    struct cpuidle_cpu *cpu; /* one per CPU asked for, in that order */
};

/* Reads the driver, the governor and the states of every CPU in cpus.
 * Returns 0 or -1 when out of memory. Free with cpuidle_free. */
int cpuidle_read(const struct sysroot *sr, const struct cpulist *cpus, struct cpuidle_info *out,
                 struct read_notes *notes);
/* Re-reads only usage and time of the states cpuidle_read found (two
 * files per state: what telemetry needs every window). */
void cpuidle_refresh_counters(const struct sysroot *sr, struct cpuidle_info *ci,
                              struct read_notes *notes);
void cpuidle_free(struct cpuidle_info *ci);
/* Why nothing chooses idle states here, in words, or NULL when a cpuidle
 * driver is active: without one the CPU idles in the architecture's
 * default way, and exit-latency limits (PM QoS) have nothing to act on. */
const char *cpuidle_no_driver_why(const struct sysroot *sr);
const struct cpuidle_cpu *cpuidle_find_cpu(const struct cpuidle_info *ci, int cpu);

#endif
