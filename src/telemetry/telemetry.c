/*
 * Telemetry sources and snapshots (see telemetry.h). telemetry_open tries
 * each source in order of fidelity and keeps the first that works on the
 * CPUs asked for; under `quiet` a source that is read by interrupting the
 * CPU is refused with that reason, so a run never disturbs what it
 * measures. A snapshot reads /proc/stat, /proc/interrupts,
 * /proc/softirqs, cpuidle usage/time, the MSR group or device, the
 * frequency file, the sensors and the context-switch counts, and stamps
 * the time; telemetry_delta.c turns two snapshots into figures.
 */
#include "telemetry/telemetry.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/text.h"
#include "sys/cpu_topology.h"
#include "sys/msr.h"
#include "telemetry/telemetry_internal.h"

const char *const telemetry_figure_key[TELEMETRY_FIGURES] = {
    [TELEMETRY_AVG_MHZ] = "avg_mhz",
    [TELEMETRY_BUSY_PCT] = "busy_pct",
    [TELEMETRY_BZY_MHZ] = "bzy_mhz",
    [TELEMETRY_TSC_MHZ] = "tsc_mhz",
    [TELEMETRY_IDLE] = "idle",
    [TELEMETRY_IRQS] = "irqs",
    [TELEMETRY_SOFTIRQS] = "softirqs",
    [TELEMETRY_CTXT] = "ctxt",
    [TELEMETRY_STEAL] = "steal_pct",
    [TELEMETRY_CPU_TIME] = "irq_pct",
    [TELEMETRY_SMI] = "smi",
    [TELEMETRY_CORE_TEMP] = "core_temp_c",
    [TELEMETRY_PKG_TEMP] = "pkg_temp_c",
    [TELEMETRY_PKG_POWER] = "pkg_watts",
};

#define IPI_WHY "not read while measuring: the read interrupts the measured CPU"

bool kernel_release_at_least(const char *release, int major, int minor)
{
    int a, b;
    if (!release || sscanf(release, "%d.%d", &a, &b) != 2)
        return false;
    return a > major || (a == major && b >= minor);
}

static int64_t telemetry_now(const struct telemetry *t)
{
    return t->cfg.now_ns ? t->cfg.now_ns(t->cfg.now_ctx) : monotonic_now_ns();
}

const char *telemetry_irq_label(const struct telemetry_irq *irq)
{
    bool numeric = irq->id[0] != '\0';
    for (const char *c = irq->id; *c; c++)
        numeric &= isdigit((unsigned char)*c) != 0;
    return numeric ? irq->name : irq->id;
}

void telemetry_set_source(struct telemetry *t, enum telemetry_figure f, const char *name)
{
    t->source[f].name = name;
    t->source[f].why[0] = '\0';
}

void telemetry_set_absent(struct telemetry *t, enum telemetry_figure f, const char *why)
{
    t->source[f].name = NULL;
    text_copy(t->source[f].why, sizeof t->source[f].why, why); /* a long reason is cut */
}

static void choose_msr(struct telemetry *t)
{
    char why_perf[160] = "", why_dev[160] = "";
    if (t->cfg.quiet) {
        snprintf(why_perf, sizeof why_perf, "%s (APERF/MPERF/TSC/SMI MSRs)", IPI_WHY);
    } else if (perf_msr_open(&t->perf_msr, &t->sr, &t->cpus, why_perf, sizeof why_perf) == 0) {
        t->msr_via = MSR_VIA_PERF;
        memcpy(t->msr_have, t->perf_msr.have, sizeof t->msr_have);
    } else {
        t->msr_fd = malloc((size_t)t->cpus.count * sizeof *t->msr_fd);
        int opened = 0;
        for (int i = 0; t->msr_fd && i < t->cpus.count; i++) {
            int rc = msr_open(&t->sr, t->cpus.cpu[i], &t->msr_fd[i]);
            if (rc == 0)
                opened++;
            else if (!why_dev[0])
                snprintf(why_dev, sizeof why_dev, "/dev/cpu/%d/msr: %s", t->cpus.cpu[i],
                         strerror(-rc));
        }
        if (opened == t->cpus.count && opened > 0) {
            /* Each register counts only if every CPU has it. */
            static const uint32_t reg[MSR_COUNTERS] = {MSR_IA32_TSC, MSR_IA32_APERF, MSR_IA32_MPERF,
                                                       MSR_SMI_COUNT};
            for (int k = 0; k < MSR_COUNTERS; k++) {
                t->msr_have[k] = true;
                for (int i = 0; i < t->cpus.count && t->msr_have[k]; i++) {
                    uint64_t v;
                    t->msr_have[k] = msr_read(&t->msr_fd[i], reg[k], &v) == 0;
                }
            }
            t->msr_via = MSR_VIA_DEV;
        }
    }
    static const char *const what[MSR_COUNTERS] = {"TSC", "APERF", "MPERF", "SMI count"};
    static const char *const event[MSR_COUNTERS] = {"tsc", "aperf", "mperf", "smi"};
    const char *via = t->msr_via == MSR_VIA_PERF ? "perf-msr" : "msr";
    /* why each register is missing */
    char why[MSR_COUNTERS][400]; /* cut to the source's why by set_absent */
    for (int k = 0; k < MSR_COUNTERS; k++) {
        if (t->cfg.quiet)
            snprintf(why[k], sizeof why[k], "%s", why_perf);
        else if (t->msr_via == MSR_VIA_PERF)
            snprintf(why[k], sizeof why[k], "the msr PMU has no %s event (msr/%s/)", what[k],
                     event[k]);
        else if (t->msr_via == MSR_VIA_DEV)
            snprintf(why[k], sizeof why[k], "/dev/cpu/N/msr: no %s register", what[k]);
        else
            snprintf(why[k], sizeof why[k], "%s, and %s", why_perf,
                     why_dev[0] ? why_dev : "no /dev/cpu/N/msr");
    }
    bool have[MSR_COUNTERS];
    for (int k = 0; k < MSR_COUNTERS; k++)
        have[k] = t->msr_via != MSR_VIA_NONE && t->msr_have[k];
    if (have[MSR_COUNTER_TSC])
        telemetry_set_source(t, TELEMETRY_TSC_MHZ, via);
    else
        telemetry_set_absent(t, TELEMETRY_TSC_MHZ, why[MSR_COUNTER_TSC]);
    if (have[MSR_COUNTER_SMI])
        telemetry_set_source(t, TELEMETRY_SMI, via);
    else
        telemetry_set_absent(t, TELEMETRY_SMI, why[MSR_COUNTER_SMI]);
    int need = !have[MSR_COUNTER_APERF]   ? MSR_COUNTER_APERF
               : !have[MSR_COUNTER_MPERF] ? MSR_COUNTER_MPERF
               : !have[MSR_COUNTER_TSC]   ? MSR_COUNTER_TSC
                                          : -1;
    if (need < 0)
        telemetry_set_source(t, TELEMETRY_BZY_MHZ, via);
    else
        telemetry_set_absent(t, TELEMETRY_BZY_MHZ, why[need]);
    if (have[MSR_COUNTER_APERF])
        telemetry_set_source(t, TELEMETRY_AVG_MHZ, via);
    if (have[MSR_COUNTER_MPERF] && have[MSR_COUNTER_TSC]) {
        t->busy_via = BUSY_VIA_MSR;
        telemetry_set_source(t, TELEMETRY_BUSY_PCT, via);
    }
}

/* Index of cpu in the ascending list, or -1. */
static int cpu_index(const int *cpu, int n, int want)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (cpu[mid] == want)
            return mid;
        if (cpu[mid] < want)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* "cpu MHz : 2096.011" of each processor block of /proc/cpuinfo, into
 * khz[i] for the i-th of the n ascending CPUs (-1 where absent). One pass
 * that looks only at the lines it needs: the file has ~30 lines per CPU,
 * 600 KB at 256 CPUs, and a scan per CPU, or sscanf's strlen of the rest
 * on every line, made a snapshot quadratic in the CPU count. */
static void cpuinfo_khz(const char *text, const int *cpu, int n, int64_t *khz)
{
    for (int i = 0; i < n; i++)
        khz[i] = -1;
    int current = -1;
    for (const char *line = text; line && *line;) {
        const char *eol = strchr(line, '\n');
        const char *colon = strchr(line, ':');
        if (colon && eol && colon > eol)
            colon = NULL;
        if (colon && strncmp(line, "processor", 9) == 0) {
            char *end;
            long v = strtol(colon + 1, &end, 10);
            current =
                end != colon + 1 && v >= 0 && v < CPULIST_MAX_CPUS ? cpu_index(cpu, n, (int)v) : -1;
        } else if (colon && current >= 0 && strncmp(line, "cpu MHz", 7) == 0) {
            char *end;
            double mhz = strtod(colon + 1, &end);
            if (end != colon + 1 && mhz > 0 && mhz < 1e6)
                khz[current] = (int64_t)(mhz * 1000 + 0.5);
            current = -1;
        }
        line = eol ? eol + 1 : NULL;
    }
}

static int64_t cpufreq_khz(const struct telemetry *t, int cpu)
{
    char path[128];
    int64_t v;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
    return sysroot_read_int64(&t->sr, path, &v) == 0 && v > 0 ? v : -1;
}

static const struct {
    const char *source, *column, *meaning;
} freq_names[] = {
    {"cpufreq-requested", "Req_MHz",
     "Req_MHz (cpufreq-requested): the frequency cpufreq asked for at the end of the window "
     "(scaling_cur_freq), not cycles run"},
    {"cpuinfo", "CPU_MHz",
     "CPU_MHz (cpuinfo): the kernel's \"cpu MHz\" in /proc/cpuinfo at the end of the window, "
     "an estimate or a nominal value, not cycles run"},
};

const char *telemetry_freq_column(const char *source)
{
    for (size_t k = 0; source && k < sizeof freq_names / sizeof freq_names[0]; k++)
        if (strcmp(source, freq_names[k].source) == 0)
            return freq_names[k].column;
    return "Avg_MHz";
}

const char *telemetry_freq_meaning(const char *source)
{
    for (size_t k = 0; source && k < sizeof freq_names / sizeof freq_names[0]; k++)
        if (strcmp(source, freq_names[k].source) == 0)
            return freq_names[k].meaning;
    return "Avg_MHz (APERF): cycles run per microsecond of the window";
}

static void choose_frequency(struct telemetry *t)
{
    if (t->source[TELEMETRY_AVG_MHZ].name)
        return;
    /* Before 5.18, x86 computed both from APERF/MPERF by IPI. */
    if (t->cfg.quiet && !kernel_release_at_least(t->cfg.kernel_release, 5, 18)) {
        telemetry_set_absent(t, TELEMETRY_AVG_MHZ,
                             IPI_WHY " (scaling_cur_freq and cpuinfo on kernels before 5.18)");
        return;
    }
    int first = t->cpus.count > 0 ? t->cpus.cpu[0] : 0;
    if (cpufreq_khz(t, first) > 0) {
        t->freq_via = FREQ_VIA_CPUFREQ;
        telemetry_set_source(t, TELEMETRY_AVG_MHZ, "cpufreq-requested");
        return;
    }
    int64_t first_khz = -1;
    if (sysroot_read_file(&t->sr, "/proc/cpuinfo", &t->buf) > 0 &&
        (cpuinfo_khz(t->buf.text, &first, 1, &first_khz), first_khz > 0) &&
        (t->khz = malloc((size_t)t->cpus.count * sizeof *t->khz)) != NULL) {
        t->freq_via = FREQ_VIA_CPUINFO;
        telemetry_set_source(t, TELEMETRY_AVG_MHZ, "cpuinfo");
        return;
    }
    telemetry_set_absent(t, TELEMETRY_AVG_MHZ,
                         "no APERF, no cpufreq scaling_cur_freq, no cpu MHz in "
                         "/proc/cpuinfo");
}

static void choose_idle(struct telemetry *t)
{
    if (cpuidle_read(&t->sr, &t->cpus, &t->idle, &t->notes) != 0) {
        telemetry_set_absent(t, TELEMETRY_IDLE, "out of memory");
        return;
    }
    for (int i = 0; i < t->idle.ncpu; i++)
        if (t->idle.cpu[i].nstates > 0)
            t->use_idle = true;
    if (t->use_idle) {
        telemetry_set_source(t, TELEMETRY_IDLE, "cpuidle");
    } else {
        char why[160];
        snprintf(why, sizeof why, "no cpuidle states (driver %s)",
                 t->idle.driver[0] ? t->idle.driver : "unknown");
        telemetry_set_absent(t, TELEMETRY_IDLE, why);
    }
}

static void choose_ctxt(struct telemetry *t)
{
    char why[224];
    if (t->sr.prefix[0]) {
        telemetry_set_absent(t, TELEMETRY_CTXT,
                             "per-CPU context switches need perf on the live machine");
        return;
    }
    if (t->cfg.quiet) {
        /* measured here: about 0.45 us more per context switch of the CPU
         * (bench/telemetry-overhead.sh), paid by every wake-up measured */
        telemetry_set_absent(
            t, TELEMETRY_CTXT,
            "not counted while measuring: the kernel's record of every switch delays "
            "the measured CPU's wake-ups");
        return;
    }
    if (perf_switch_open(&t->switches, &t->cpus, why, sizeof why) == 0) {
        t->use_ctxt = true;
        telemetry_set_source(t, TELEMETRY_CTXT, "perf-switches");
    } else {
        telemetry_set_absent(t, TELEMETRY_CTXT, why);
    }
}

/* coretemp and x86_pkg_temp read an MSR on a CPU of the package, RAPL on
 * its lead CPU, both by IPI; k10temp and zenpower read the SMN over PCI
 * and interrupt nobody. */
static bool read_without_ipi(const struct sensor_temp *s)
{
    return strcmp(s->source, "coretemp") != 0 && strcmp(s->source, "thermal") != 0;
}

static const char *sensor_label(const struct sensor_temp *s)
{
    static const char *const names[] = {"coretemp", "k10temp", "zenpower", "thermal"};
    static const char *const labels[] = {"hwmon-coretemp", "hwmon-k10temp", "hwmon-zenpower",
                                         "thermal"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(s->source, names[k]) == 0)
            return labels[k];
    return "hwmon";
}

static void choose_sensors(struct telemetry *t)
{
    struct cpu_topology topo;
    t->core_id = malloc((size_t)t->cpus.count * sizeof *t->core_id);
    t->package_id = malloc((size_t)t->cpus.count * sizeof *t->package_id);
    t->sensors = calloc(1, sizeof *t->sensors);
    if (!t->core_id || !t->package_id || !t->sensors ||
        cpu_topology_read(&t->sr, &t->cpus, &topo, &t->notes) != 0) {
        telemetry_set_absent(t, TELEMETRY_CORE_TEMP, "out of memory");
        telemetry_set_absent(t, TELEMETRY_PKG_TEMP, "out of memory");
        telemetry_set_absent(t, TELEMETRY_PKG_POWER, "out of memory");
        return;
    }
    for (int i = 0; i < t->cpus.count; i++) {
        /* A machine without topology files has one package. */
        t->core_id[i] = topo.cpu[i].core_id == VALUE_UNKNOWN ? -1 : topo.cpu[i].core_id;
        t->package_id[i] = topo.cpu[i].package_id == VALUE_UNKNOWN ? 0 : topo.cpu[i].package_id;
    }
    cpu_topology_free(&topo);
    sensors_find(&t->sr, t->sensors, &t->notes);
    int found_temps = t->sensors->ntemp, found_energy = t->sensors->nenergy;
    if (t->cfg.quiet)
        sensors_keep(t->sensors, read_without_ipi, false);
    /* Each figure names the sensor kind it reads: the first package (core)
     * sensor decides. */
    const char *pkg_label = NULL, *core_label = NULL;
    for (int i = 0; i < t->sensors->ntemp; i++) {
        const struct sensor_temp *s = &t->sensors->temp[i];
        if (s->core < 0 && !pkg_label)
            pkg_label = sensor_label(s);
        if (s->core >= 0 && !core_label)
            core_label = sensor_label(s);
    }
    const char *none = found_temps > 0 && t->sensors->ntemp == 0
                           ? IPI_WHY " (coretemp/x86_pkg_temp read an MSR by IPI)"
                           : "no coretemp, k10temp, zenpower hwmon or x86_pkg_temp zone";
    t->use_temps = pkg_label || core_label;
    if (pkg_label)
        telemetry_set_source(t, TELEMETRY_PKG_TEMP, pkg_label);
    else
        telemetry_set_absent(t, TELEMETRY_PKG_TEMP, t->use_temps ? "no package sensor" : none);
    if (core_label)
        telemetry_set_source(t, TELEMETRY_CORE_TEMP, core_label);
    else
        telemetry_set_absent(t, TELEMETRY_CORE_TEMP,
                             t->use_temps ? "the sensor has no per-core values" : none);
    if (found_energy == 0) {
        telemetry_set_absent(t, TELEMETRY_PKG_POWER,
                             "no powercap RAPL domain (/sys/class/powercap)");
    } else if (t->cfg.quiet) {
        telemetry_set_absent(t, TELEMETRY_PKG_POWER, IPI_WHY " (RAPL energy MSR by IPI)");
    } else {
        t->use_energy = true;
        telemetry_set_source(t, TELEMETRY_PKG_POWER, "powercap");
    }
}

/* Softirq vector names from the first /proc/softirqs read. */
static void keep_softirq_names(struct telemetry *t, const struct percpu_table *sq)
{
    t->nsoftirq = sq->nrow < TELEMETRY_SOFTIRQ_MAX ? sq->nrow : TELEMETRY_SOFTIRQ_MAX;
    for (int k = 0; k < t->nsoftirq; k++) {
        text_copy(t->softirq_name[k], sizeof t->softirq_name[k], sq->row[k].id);
        t->softirq_ptr[k] = t->softirq_name[k];
    }
}

static void read_msrs(struct telemetry *t, struct snapshot *s)
{
    static const uint32_t reg[MSR_COUNTERS] = {MSR_IA32_TSC, MSR_IA32_APERF, MSR_IA32_MPERF,
                                               MSR_SMI_COUNT};
    for (int i = 0; i < t->cpus.count; i++) {
        struct snap_cpu *c = &s->cpu[i];
        c->msr_ok = false;
        if (t->msr_via == MSR_VIA_PERF) {
            c->msr_ok = perf_msr_read(&t->perf_msr, i, c->msr) == 0;
        } else if (t->msr_via == MSR_VIA_DEV) {
            c->msr_ok = true;
            for (int k = 0; k < MSR_COUNTERS; k++)
                if (t->msr_have[k] && msr_read(&t->msr_fd[i], reg[k], &c->msr[k]) != 0)
                    c->msr_ok = false;
        }
        c->msr_t_ns = telemetry_now(t);
    }
}

static void read_frequencies(struct telemetry *t, struct snapshot *s)
{
    bool cpuinfo =
        t->freq_via == FREQ_VIA_CPUINFO && sysroot_read_file(&t->sr, "/proc/cpuinfo", &t->buf) > 0;
    if (cpuinfo) {
        cpuinfo_khz(t->buf.text, t->cpus.cpu, t->cpus.count, t->khz);
        for (int i = 0; i < t->cpus.count; i++)
            s->cpu[i].freq_khz = t->khz[i];
        return;
    }
    for (int i = 0; i < t->cpus.count; i++)
        s->cpu[i].freq_khz = t->freq_via == FREQ_VIA_CPUFREQ ? cpufreq_khz(t, t->cpus.cpu[i]) : -1;
}

static bool read_table(struct telemetry *t, const char *path, struct percpu_table *pt)
{
    const char *why = NULL;
    if (sysroot_read_file(&t->sr, path, &t->buf) < 0)
        return false;
    int rc = percpu_table_parse(pt, t->buf.text, &why);
    if (rc == -1)
        read_notes_add(&t->notes, path, why);
    return rc == 0;
}

void telemetry_poll(struct telemetry *t)
{
    if (t->use_ctxt)
        perf_switch_poll(&t->switches);
}

void telemetry_snapshot(struct telemetry *t)
{
    t->cur = 1 - t->cur;
    struct snapshot *s = &t->snap[t->cur];
    s->t_ns = telemetry_now(t);
    s->stat_ok = proc_stat_read(&t->sr, &t->buf, &s->stat, &t->notes) == 0;
    s->irqs_ok = read_table(t, "/proc/interrupts", &s->irqs);
    s->softirqs_ok = read_table(t, "/proc/softirqs", &s->softirqs);
    if (s->softirqs_ok && t->nsoftirq == 0)
        keep_softirq_names(t, &s->softirqs);
    if (t->msr_via)
        read_msrs(t, s);
    if (t->freq_via)
        read_frequencies(t, s);
    if (t->busy_via == BUSY_VIA_SCHEDSTAT || t->busy_via == BUSY_VIA_THREAD)
        telemetry_read_run_times(t, s);
    if (t->use_idle) {
        cpuidle_refresh_counters(&t->sr, &t->idle, &t->notes);
        for (int i = 0; i < t->cpus.count; i++)
            for (int k = 0; k < t->idle.cpu[i].nstates; k++) {
                s->cpu[i].idle_usage[k] = t->idle.cpu[i].state[k].usage;
                s->cpu[i].idle_time_us[k] = t->idle.cpu[i].state[k].time_us;
            }
    }
    if (t->use_ctxt) {
        perf_switch_poll(&t->switches);
        for (int i = 0; i < t->cpus.count; i++)
            s->cpu[i].ctxt = perf_switch_count(&t->switches, i);
    }
    if (t->use_temps || t->use_energy) {
        sensors_read(&t->sr, t->sensors, &t->notes);
        for (int e = 0; e < t->sensors->nenergy; e++) {
            s->energy_uj[e] = t->sensors->energy[e].energy_uj;
            s->energy_ok[e] = t->sensors->energy[e].ok;
        }
    }
    s->taken = true;
}

static int snapshot_init(struct snapshot *s, const struct cpulist *cpus)
{
    memset(s, 0, sizeof *s);
    s->cpu = calloc(cpus->count > 0 ? (size_t)cpus->count : 1, sizeof *s->cpu);
    if (!s->cpu || proc_stat_init(&s->stat, cpus) != 0 || percpu_table_init(&s->irqs, cpus) != 0 ||
        percpu_table_init(&s->softirqs, cpus) != 0)
        return -1;
    for (int i = 0; i < cpus->count; i++)
        s->cpu[i].run_ns = -1;
    return 0;
}

static void snapshot_free(struct snapshot *s)
{
    free(s->cpu);
    proc_stat_free(&s->stat);
    percpu_table_free(&s->irqs);
    percpu_table_free(&s->softirqs);
}

struct telemetry *telemetry_open(const struct telemetry_config *cfg, char *err, size_t errlen)
{
    struct telemetry *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "telemetry: out of memory");
        return NULL;
    }
    t->cfg = *cfg;
    t->sr = *cfg->sr;
    t->cpus = *cfg->cpus;
    t->cfg.sr = &t->sr;
    t->cfg.cpus = &t->cpus;
    if (snapshot_init(&t->snap[0], &t->cpus) != 0 || snapshot_init(&t->snap[1], &t->cpus) != 0) {
        snprintf(err, errlen, "telemetry: out of memory");
        telemetry_close(t);
        return NULL;
    }
    choose_msr(t);
    telemetry_choose_busy(t);
    choose_frequency(t);
    telemetry_choose_steal(t);
    choose_idle(t);
    choose_ctxt(t);
    choose_sensors(t);
    telemetry_set_source(t, TELEMETRY_IRQS, "proc-interrupts");
    telemetry_set_source(t, TELEMETRY_SOFTIRQS, "proc-softirqs");
    telemetry_set_source(t, TELEMETRY_CPU_TIME, "proc-stat");
    telemetry_snapshot(t);
    /* Files the machine lacks entirely make their figures absent. */
    const struct snapshot *s = snap_new(t);
    if (!s->irqs_ok)
        telemetry_set_absent(t, TELEMETRY_IRQS,
                             "/proc/interrupts missing, or not in the kernel's format");
    if (!s->softirqs_ok)
        telemetry_set_absent(t, TELEMETRY_SOFTIRQS,
                             "/proc/softirqs missing, or not in the kernel's format");
    if (!s->stat_ok) {
        telemetry_set_absent(t, TELEMETRY_CPU_TIME,
                             "/proc/stat missing, or not in the kernel's format");
        telemetry_set_absent(t, TELEMETRY_STEAL,
                             "/proc/stat missing, or not in the kernel's format");
        if (t->busy_via == BUSY_VIA_TICKS)
            telemetry_set_absent(
                t, TELEMETRY_BUSY_PCT,
                "no MPERF/TSC, and /proc/stat missing or not in the kernel's format");
    }
    return t;
}

int telemetry_cpu_count(const struct telemetry *t)
{
    return t->cpus.count;
}

const struct telemetry_source *telemetry_source(const struct telemetry *t, enum telemetry_figure f)
{
    return &t->source[f];
}

void telemetry_absent_line(const struct telemetry *t, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int f = 0; f < TELEMETRY_FIGURES; f++) {
        if (t->source[f].name)
            continue;
        /* figures absent for the same reason are named together */
        bool seen = false;
        for (int g = 0; g < f; g++)
            seen |= !t->source[g].name && strcmp(t->source[g].why, t->source[f].why) == 0;
        if (seen)
            continue;
        int n = snprintf(buf + used, len - used, "%s", used ? "; " : "");
        for (int g = f; g < TELEMETRY_FIGURES && n >= 0 && used + (size_t)n < len; g++)
            if (!t->source[g].name && strcmp(t->source[g].why, t->source[f].why) == 0) {
                int m = snprintf(buf + used + (size_t)n, len - used - (size_t)n, "%s%s",
                                 g == f ? "" : ", ", telemetry_figure_key[g]);
                n = m < 0 ? n : n + m;
            }
        if (n >= 0 && used + (size_t)n < len) {
            int m =
                snprintf(buf + used + (size_t)n, len - used - (size_t)n, ": %s", t->source[f].why);
            n = m < 0 ? n : n + m;
        }
        used = n < 0 || used + (size_t)n >= len ? len - 1 : used + (size_t)n;
    }
}

double telemetry_elapsed_s(const struct telemetry *t)
{
    const struct snapshot *a = snap_old(t), *b = snap_new(t);
    return a->taken && b->taken ? (double)(b->t_ns - a->t_ns) / 1e9 : 0;
}

int telemetry_softirq_count(const struct telemetry *t)
{
    return t->nsoftirq;
}

const char *const *telemetry_softirq_names(const struct telemetry *t)
{
    return t->softirq_ptr;
}

const char *telemetry_softirq_name(const struct telemetry *t, int k)
{
    return k >= 0 && k < t->nsoftirq ? t->softirq_name[k] : "";
}

const struct read_notes *telemetry_notes(const struct telemetry *t)
{
    return &t->notes;
}

void telemetry_close(struct telemetry *t)
{
    if (!t)
        return;
    perf_msr_close(&t->perf_msr);
    if (t->msr_fd)
        for (int i = 0; i < t->cpus.count; i++)
            msr_close(&t->msr_fd[i]);
    free(t->msr_fd);
    perf_switch_close(&t->switches);
    cpuidle_free(&t->idle);
    if (t->sensors)
        sensors_free(t->sensors);
    free(t->sensors);
    free(t->core_id);
    free(t->khz);
    free(t->tid);
    free(t->package_id);
    sysroot_buf_free(&t->buf);
    snapshot_free(&t->snap[0]);
    snapshot_free(&t->snap[1]);
    free(t);
}
