/*
 * What `jitterlab tsc` (and `run --clock tsc`) conclude, without touching
 * the machine: warp counting over a sequence of TSC reads, the offset of a
 * CPU's TSC from the minimum round trip (NTP-style), the per-CPU rates'
 * spread, the kernel log's TSC lines classified, and the verdict from the
 * flags, the kernel's own findings and the measurements. The structs the
 * measurement (tsc_check.c) fills are declared here, once, so that unit
 * tests build them from synthetic data.
 */
#ifndef JITTERLAB_CROSSCPU_TSC_VERDICT_H
#define JITTERLAB_CROSSCPU_TSC_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An offset counts when its bound excludes zero by more than this: the
 * slack for when, within one rdtscp, the counter is sampled. */
#define TSC_OFFSET_TOLERANCE_CYCLES 100
/* Per-CPU rates may differ by this much plus their own uncertainty. */
#define TSC_RATE_TOLERANCE_PPM 100.0

#define TSC_TEXT_MAX      320
#define TSC_LOG_LINES_MAX 32
#define TSC_VERDICT_MAX   48
/* Per kind (warping pairs, CPUs off the reference, ...), the sentences
 * beyond this are summed up in one "and N more". */
#define TSC_VERDICT_PER_KIND 8

/* ---- warps ------------------------------------------------------------ */

struct tsc_warp_count {
    uint64_t reads;           /* TSC reads compared with the last value published */
    uint64_t warps;           /* reads below that value */
    uint64_t max_warp_cycles; /* the largest step back */
};

/* One read: now was read after prev had been published (by this CPU or the
 * other), so now < prev is a step back of prev - now cycles. */
static inline void tsc_warp_observe(struct tsc_warp_count *w, uint64_t prev, uint64_t now)
{
    w->reads++;
    if (now < prev) {
        w->warps++;
        if (prev - now > w->max_warp_cycles)
            w->max_warp_cycles = prev - now;
    }
}

/* Counts the warps of a sequence of values in the order they were
 * published (seq[0] is the first value, compared with nothing). */
void tsc_warp_scan(const uint64_t *seq, size_t n, struct tsc_warp_count *out);
void tsc_warp_merge(struct tsc_warp_count *into, const struct tsc_warp_count *from);

/* ---- offsets ---------------------------------------------------------- */

/* The reference reads t0, asks; the other CPU reads tk when it sees the
 * request; the reference reads t1 when it sees the answer. The estimate of
 * the round with the smallest t1 - t0 is kept. */
struct tsc_offset_est {
    uint64_t samples;        /* rounds taken */
    uint64_t rejected;       /* rounds with t1 < t0 (the reference's own TSC went back) */
    bool valid;              /* at least one round taken */
    int64_t offset_cycles;   /* tk - (t0 + t1) / 2: positive, the other CPU is ahead */
    uint64_t bound_cycles;   /* the true offset is within offset +- bound */
    uint64_t rtt_min_cycles; /* t1 - t0 of that round */
};

void tsc_offset_init(struct tsc_offset_est *e);
void tsc_offset_add(struct tsc_offset_est *e, uint64_t t0, uint64_t tk, uint64_t t1);
/* By how many cycles the bound excludes zero (0 when it contains it). */
uint64_t tsc_offset_excess(const struct tsc_offset_est *e);

/* ---- rates ------------------------------------------------------------ */

struct tsc_rate {
    bool valid;
    double hz;             /* TSC ticks per second of CLOCK_MONOTONIC_RAW */
    double uncertainty_hz; /* from the spread of the two clock pairs */
    double interval_s;     /* between the two pairs */
};

struct tsc_rate_summary {
    int n; /* valid rates */
    double min_hz, max_hz, median_hz;
    double spread_ppm;  /* (max - min) / median */
    double allowed_ppm; /* TSC_RATE_TOLERANCE_PPM + the min's and max's uncertainty */
    bool disagree;      /* spread_ppm > allowed_ppm */
};

void tsc_rate_summarize(const struct tsc_rate *rates, int n, struct tsc_rate_summary *out);

/* ---- the kernel log --------------------------------------------------- */

enum tsc_kmsg_kind {
    TSC_KMSG_NONE,        /* nothing about the TSC */
    TSC_KMSG_NOTE,        /* about the TSC, no verdict ("TSC deadline timer available") */
    TSC_KMSG_DETECTED,    /* "tsc: Detected 2096.011 MHz processor" */
    TSC_KMSG_REFINED,     /* "tsc: Refined TSC clocksource calibration: 2095.999 MHz" */
    TSC_KMSG_BOOT_PARAM,  /* "Marking TSC unstable due to boot parameter": tsc=unstable */
    TSC_KMSG_WATCHDOG,    /* the clocksource watchdog marked the TSC unstable */
    TSC_KMSG_SYNC_FAILED, /* the boot-time warp check failed ("Measured N cycles TSC warp") */
    TSC_KMSG_SKEW,        /* "CPUs 0-1 ahead of CPU 2 for clocksource tsc" */
    TSC_KMSG_UNSTABLE,    /* marked unstable for another reason (TSC halts in idle, ...) */
    TSC_KMSG_AFTER_BOOT,  /* "TSC found unstable after boot": that some verdict came late */
};

struct tsc_kmsg_match {
    enum tsc_kmsg_kind kind;
    double mhz;          /* DETECTED, REFINED */
    int64_t warp_cycles; /* SYNC_FAILED with a count; else -1 */
    char reason[128];    /* UNSTABLE, BOOT_PARAM: after "due to" */
};

/* Classifies one kernel record's text by the kernel's own phrases, each
 * anchored at the start after its subsystem's prefix ("tsc: ",
 * "clocksource: "): a phrase elsewhere in a record is not the kernel's. */
enum tsc_kmsg_kind tsc_kmsg_classify(const char *text, struct tsc_kmsg_match *m);

struct tsc_kernel_log {
    bool readable;
    char why[160];                    /* why not ("not readable: Permission denied") */
    bool start_lost;                  /* the first record kept is not the boot's first */
    uint64_t first_seq;               /* of the first record read */
    double detected_mhz, refined_mhz; /* 0: not in the log */
    int nlines;                       /* the TSC lines kept, in log order */
    uint64_t lines_dropped;           /* beyond TSC_LOG_LINES_MAX */
    char lines[TSC_LOG_LINES_MAX][TSC_TEXT_MAX];
    /* the kernel's verdicts: the first line of each kind */
    bool boot_param, watchdog, sync_failed, skew, unstable;
    bool after_boot; /* "TSC found unstable after boot": follows any of them */
    char watchdog_text[TSC_TEXT_MAX], sync_text[TSC_TEXT_MAX], skew_text[TSC_TEXT_MAX];
    char unstable_reason[128];
    int64_t sync_warp_cycles; /* -1 unknown */
};

void tsc_kernel_log_init(struct tsc_kernel_log *log);
void tsc_kernel_log_add(struct tsc_kernel_log *log, const char *text);

/* ---- what the machine says, read once ------------------------------- */

struct tsc_flags {
    bool readable; /* /proc/cpuinfo had a flags line */
    bool tsc, constant_tsc, nonstop_tsc, tsc_reliable, tsc_known_freq, rdtscp;
};

struct tsc_static {
    struct tsc_flags flags; /* present on every CPU listed */
    char clocksource[64];   /* current_clocksource */
    char available[256];    /* available_clocksource, as read */
    char cmdline_tsc[128];  /* every tsc= value, comma-joined */
    char hypervisor[64];    /* "" on bare metal */
    char sysroot[4096];     /* "" for the live machine, else the tree read */
    struct tsc_kernel_log log;
};

/* ---- what was measured ----------------------------------------------- */

struct tsc_pair_result {
    int a, b;          /* CPU ids; a == b: one CPU alone, its monotonicity */
    char group[24];    /* cpu_pair_group_name, "" when unknown */
    uint64_t reads;    /* TSC reads of both CPUs */
    uint64_t handoffs; /* reads that compared with the other CPU's value */
    uint64_t warps, max_warp_cycles;
    double duration_s; /* wall time the pair was measured */
    bool measured;
};

struct tsc_cpu_result {
    int cpu;
    struct tsc_offset_est offset; /* against cpu[0]; unused for cpu[0] */
    uint64_t rounds, timeouts;    /* offset rounds tried, unanswered */
    struct tsc_rate rate;
};

struct tsc_results {
    bool arch_tsc; /* this build reads a TSC (x86) */
    int ncpu;
    struct tsc_cpu_result *cpu; /* cpu[0] is the reference */
    int npairs;                 /* planned pairs */
    uint64_t pairs_possible;    /* every pair of the CPUs */
    struct tsc_pair_result *pair;
    int64_t pair_ns; /* each pair's share of the warp test */
    bool warp_measured, offsets_measured, rates_measured;
    bool no_rdtscp; /* not measured: bare metal without rdtscp, which would fault */
    bool interrupted, realtime;
    double warp_duration_s;
    struct tsc_warp_count warp_total; /* every measured pair */
};

/* ---- the verdict ----------------------------------------------------- */

struct tsc_verdict {
    bool safe;
    int nreasons, nnotes;
    char reasons[TSC_VERDICT_MAX][TSC_TEXT_MAX]; /* why unsafe */
    char notes[TSC_VERDICT_MAX][TSC_TEXT_MAX];   /* worth knowing, not evidence */
    struct tsc_rate_summary rates;
    double kernel_mhz;    /* refined, else detected; 0 unknown */
    bool vs_kernel_known; /* rates measured on the machine whose log gave kernel_mhz */
    double vs_kernel_ppm; /* the measured median against kernel_mhz */
};

/* Judges --clock tsc on the CPUs of r from st and r. r may hold nothing
 * measured (the static part alone); then only the static rules apply. */
void tsc_verdict_decide(const struct tsc_static *st, const struct tsc_results *r,
                        struct tsc_verdict *v);

#endif
