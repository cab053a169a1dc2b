/*
 * What telemetry.c (sources, snapshots) and telemetry_delta.c (figures
 * from two snapshots) share. Not for other modules.
 */
#ifndef JITTERLAB_TELEMETRY_TELEMETRY_INTERNAL_H
#define JITTERLAB_TELEMETRY_TELEMETRY_INTERNAL_H

#include "sys/msr.h"
#include "sys/percpu_table.h"
#include "sys/proc_stat.h"
#include "sys/sensors.h"
#include "telemetry/perf_counters.h"
#include "telemetry/telemetry.h"

/* Where the MSR-based figures come from. */
enum msr_via { MSR_VIA_NONE, MSR_VIA_PERF, MSR_VIA_DEV };
/* Where busy without MPERF comes from: the run time the scheduler adds
 * up in ns (every task on the CPU, or only the measured thread), else
 * /proc/stat's tick samples. */
enum busy_via { BUSY_VIA_NONE, BUSY_VIA_MSR, BUSY_VIA_SCHEDSTAT, BUSY_VIA_THREAD, BUSY_VIA_TICKS };
/* Where a frequency without APERF comes from. */
enum freq_via { FREQ_VIA_NONE, FREQ_VIA_CPUFREQ, FREQ_VIA_CPUINFO };

struct snap_cpu {
    int64_t msr_t_ns;
    bool msr_ok;
    uint64_t msr[MSR_COUNTERS];
    int64_t freq_khz; /* cpufreq / cpuinfo, at the snapshot; < 0 unknown */
    uint64_t ctxt;
    int64_t run_ns; /* schedstat run time at the snapshot; < 0 unknown */
    int64_t idle_usage[CPUIDLE_MAX_STATES];
    int64_t idle_time_us[CPUIDLE_MAX_STATES];
};

struct snapshot {
    bool taken;
    int64_t t_ns;
    struct proc_stat stat;
    bool stat_ok;
    struct percpu_table irqs;
    bool irqs_ok;
    struct percpu_table softirqs;
    bool softirqs_ok;
    struct snap_cpu *cpu;
    uint64_t energy_uj[SENSORS_MAX_ENERGY];
    bool energy_ok[SENSORS_MAX_ENERGY];
};

struct telemetry {
    struct telemetry_config cfg;
    struct sysroot sr;
    struct cpulist cpus;
    struct telemetry_source source[TELEMETRY_FIGURES];
    enum msr_via msr_via;
    bool msr_have[MSR_COUNTERS];
    struct perf_msr_group perf_msr;
    struct msr_file *msr_fd; /* MSR_VIA_DEV: one per CPU */
    enum busy_via busy_via;
    int *tid; /* BUSY_VIA_THREAD: the measured thread of each CPU, 0 unknown */
    int64_t (*run_ns_at_end)(void *ctx, int i); /* see telemetry_follow_thread_ends */
    void *run_ns_at_end_ctx;
    enum freq_via freq_via;
    int64_t *khz; /* FREQ_VIA_CPUINFO: per CPU, one pass over /proc/cpuinfo */
    bool use_idle, use_ctxt, use_temps, use_energy;
    struct perf_switch_counter switches;
    struct cpuidle_info idle;
    struct sensors *sensors;
    int64_t *core_id, *package_id; /* per CPU; -1 unknown */
    struct sysroot_buf buf;
    struct snapshot snap[2];
    int cur; /* snap[cur] is the newest */
    int nsoftirq;
    char softirq_name[TELEMETRY_SOFTIRQ_MAX][16];
    const char *softirq_ptr[TELEMETRY_SOFTIRQ_MAX]; /* softirq_name[k] */
    struct read_notes notes;
};

/* A figure's source, or its absence with the reason (telemetry.c). */
void telemetry_set_source(struct telemetry *t, enum telemetry_figure f, const char *name);
void telemetry_set_absent(struct telemetry *t, enum telemetry_figure f, const char *why);
/* telemetry_cpu_time.c: the busy and steal sources, and the run times of
 * a snapshot. */
void telemetry_choose_busy(struct telemetry *t);
void telemetry_choose_steal(struct telemetry *t);
void telemetry_read_run_times(struct telemetry *t, struct snapshot *s);

static inline const struct snapshot *snap_new(const struct telemetry *t)
{
    return &t->snap[t->cur];
}

static inline const struct snapshot *snap_old(const struct telemetry *t)
{
    return &t->snap[1 - t->cur];
}

#endif
