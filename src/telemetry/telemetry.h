/*
 * Telemetry: what the CPUs did, turbostat-style, between two snapshots.
 * One snapshot reads every source for the CPUs asked for; the figures of
 * a window are the deltas between the last two. Each figure has one
 * source, chosen at open time in order of fidelity (an effective
 * frequency from APERF/MPERF before a requested one from cpufreq), or is
 * absent with the reason. `stat` reads every source it can; `run` opens
 * telemetry `quiet`: no source that interrupts a CPU to read it (MSR
 * reads by IPI, coretemp, RAPL) is used on the measured CPUs.
 * Everything is allocated by telemetry_open; a snapshot allocates only
 * while a procfs file grows. Runs on the collector, never on a measuring
 * thread.
 */
#ifndef JITTERLAB_TELEMETRY_TELEMETRY_H
#define JITTERLAB_TELEMETRY_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/cpuidle.h"
#include "sys/cpulist.h"
#include "sys/read_notes.h"
#include "sys/sysroot.h"

enum telemetry_figure {
    TELEMETRY_AVG_MHZ,
    TELEMETRY_BUSY_PCT,
    TELEMETRY_BZY_MHZ,
    TELEMETRY_TSC_MHZ,
    TELEMETRY_IDLE,
    TELEMETRY_IRQS,
    TELEMETRY_SOFTIRQS,
    TELEMETRY_CTXT,
    TELEMETRY_STEAL,    /* steal share of the CPU's time */
    TELEMETRY_CPU_TIME, /* irq and softirq shares of the CPU's time */
    TELEMETRY_SMI,
    TELEMETRY_CORE_TEMP,
    TELEMETRY_PKG_TEMP,
    TELEMETRY_PKG_POWER,
    TELEMETRY_FIGURES
};

/* The key of each figure in documents ("avg_mhz", ...). */
extern const char *const telemetry_figure_key[TELEMETRY_FIGURES];

struct telemetry_source {
    const char *name; /* "perf-msr", "proc-stat", ...; NULL when absent */
    char why[224];    /* absent: why, in words */
};

#define TELEMETRY_TOP_IRQS    8
#define TELEMETRY_SOFTIRQ_MAX 16
#define TELEMETRY_IRQ_NAME    40

struct telemetry_irq {
    char id[16];                   /* "36", "LOC" */
    char name[TELEMETRY_IRQ_NAME]; /* device name ("virtio1-req.0") or description */
    uint64_t count;
};

/* What people read for a line: the device name of a numbered IRQ, the id
 * ("LOC", "CAL") of an architecture line. */
const char *telemetry_irq_label(const struct telemetry_irq *irq);

struct telemetry_idle {
    char name[16];
    double residency_pct; /* NAN when unknown */
    int64_t entries;      /* -1 when unknown */
};

/* One CPU over one window. Doubles are NAN and counts -1 where absent. */
struct telemetry_cpu_figures {
    int cpu;
    double avg_mhz;  /* APERF / elapsed; else the requested or reported frequency */
    double busy_pct; /* MPERF / TSC (C0); else scheduler run time (schedstat); else
                      * non-idle, non-steal ticks of /proc/stat */
    double bzy_mhz;  /* TSC rate x APERF / MPERF */
    double tsc_mhz;
    double steal_pct, irq_pct, softirq_pct;
    int64_t smi;
    int64_t ctxt;
    int64_t irqs; /* every interrupt line of /proc/interrupts */
    int nirq;     /* the largest, in count order, nonzero only */
    struct telemetry_irq irq[TELEMETRY_TOP_IRQS];
    int64_t softirqs;
    uint64_t softirq[TELEMETRY_SOFTIRQ_MAX]; /* by vector, names from telemetry_softirq_name */
    int nidle;
    struct telemetry_idle idle[CPUIDLE_MAX_STATES];
    double core_temp_c, pkg_temp_c, pkg_watts;
};

struct telemetry_config {
    const struct sysroot *sr;
    const struct cpulist *cpus;
    bool quiet;                 /* never interrupt a CPU of cpus to read a source */
    const char *kernel_release; /* "6.1.0-13-amd64"; decides which reads are IPI-free */
    /* The caller runs one thread per CPU and names it (telemetry_set_threads):
     * without per-CPU run time, busy may be that thread's own. */
    bool measured_threads;
    /* The clock of the snapshots; NULL: CLOCK_MONOTONIC. Tests that replay
     * fixture snapshots give their own, so that rates are exact. */
    int64_t (*now_ns)(void *ctx);
    void *now_ctx;
};

struct telemetry;

/* Chooses the sources and takes the first snapshot. NULL only when out of
 * memory (err says so). */
struct telemetry *telemetry_open(const struct telemetry_config *cfg, char *err, size_t errlen);
/* The CPUs, in the order of the figures' index i. */
int telemetry_cpu_count(const struct telemetry *t);
const struct telemetry_source *telemetry_source(const struct telemetry *t, enum telemetry_figure f);
/* What avg_mhz is, by its source: turbostat's Avg_MHz (cycles run per
 * us, from APERF) only from "perf-msr" and "msr"; "cpufreq-requested" is
 * the frequency the governor asked for, "cpuinfo" the kernel's "cpu MHz"
 * estimate. The column's name in tables ("Avg_MHz", "Req_MHz", "CPU_MHz"),
 * and the meaning in words for captions and help; a NULL or unknown
 * source gives the APERF ones. */
const char *telemetry_freq_column(const char *source);
const char *telemetry_freq_meaning(const char *source);
/* One line naming the absent figures and why, for people ("" when none):
 * what `stat` and `run` print once. */
void telemetry_absent_line(const struct telemetry *t, char *buf, size_t len);
/* The measured thread of each CPU, in the order of telemetry_cpu_count
 * (kernel thread ids), before the snapshot the first window starts from. */
void telemetry_set_threads(struct telemetry *t, const int *tid);
/* How to learn the run time (ns) a measured thread had when it ended:
 * run_ns_at_end(ctx, i) for the thread of index i, -1 while it runs. The
 * last snapshot of a run is taken after the threads exited, and their
 * /proc/TID/schedstat went with them. */
void telemetry_follow_thread_ends(struct telemetry *t, int64_t (*run_ns_at_end)(void *ctx, int i),
                                  void *ctx);
/* Counts what accumulates between snapshots (the context-switch rings);
 * call at least every 100 ms. */
void telemetry_poll(struct telemetry *t);
/* Takes a snapshot; the previous one becomes the base of the deltas. */
void telemetry_snapshot(struct telemetry *t);
/* Seconds between the last two snapshots. */
double telemetry_elapsed_s(const struct telemetry *t);
/* The figures of the CPU of index i between the last two snapshots. */
void telemetry_cpu_delta(const struct telemetry *t, int i, struct telemetry_cpu_figures *out);
/* Machine-wide context switches between the last two snapshots (/proc/stat),
 * -1 when unknown. */
int64_t telemetry_system_ctxt(const struct telemetry *t);
int telemetry_softirq_count(const struct telemetry *t);
/* The vector names, telemetry_softirq_count of them. */
const char *const *telemetry_softirq_names(const struct telemetry *t);
const char *telemetry_softirq_name(const struct telemetry *t, int k);
const struct read_notes *telemetry_notes(const struct telemetry *t);
void telemetry_close(struct telemetry *t);

/* True when a release ("5.15.0-91-generic") is at least major.minor; false
 * for text that does not start with a version. */
bool kernel_release_at_least(const char *release, int major, int minor);

#endif
