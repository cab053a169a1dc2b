/*
 * cpufreq per policy (driver, governor, limits, EPP, boost) and the
 * driver-wide switches: cpufreq/boost, intel_pstate/{status,no_turbo},
 * amd_pstate/status. Frequencies in kHz as sysfs gives them.
 */
#ifndef JITTERLAB_SYS_CPUFREQ_H
#define JITTERLAB_SYS_CPUFREQ_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/read_notes.h"
#include "sys/sysroot.h"

/* Integers are VALUE_UNKNOWN, strings "" where a file is missing. */
struct cpufreq_policy_info {
    int id; /* N of policyN */
    char affected_cpus[256];
    char related_cpus[256];
    char driver[32];
    char governor[32];
    char available_governors[256];
    char available_frequencies[512];
    int64_t min_khz, max_khz, cur_khz;
    int64_t cpuinfo_min_khz, cpuinfo_max_khz;
    int64_t base_khz;
    int64_t transition_latency_ns;
    char epp[64]; /* energy_performance_preference */
    char epp_available[256];
    int64_t boost; /* per-policy boost (newer kernels) */
};

struct cpufreq_info {
    int npolicy;
    struct cpufreq_policy_info *policy; /* ascending policy id */
    int64_t boost;                      /* cpufreq/boost */
    char intel_pstate_status[32];
    int64_t intel_no_turbo;
    char amd_pstate_status[32];
};

/* Returns 0, or -1 when out of memory. Free with cpufreq_free. */
int cpufreq_read(const struct sysroot *sr, struct cpufreq_info *out, struct read_notes *notes);
void cpufreq_free(struct cpufreq_info *cf);
/* The policy whose affected (else related) CPUs include cpu, or NULL. */
const struct cpufreq_policy_info *cpufreq_policy_of(const struct cpufreq_info *cf, int cpu);

#endif
