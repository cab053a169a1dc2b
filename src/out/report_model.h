/*
 * What `jitterlab report` draws, read from the documents and checked
 * before anything is written: per run result its CPUs (histograms,
 * percentiles, the per-window series of intervals and telemetry), its
 * spikes, and its system and config objects (a noise result: its gaps,
 * noise share per window and causes); a compare document's
 * verdicts; an inspect document's findings; the tail analysis of a result
 * or of a tail document. Strings point into the parsed
 * documents (kept alive in root) and are escaped only when written.
 * out/report_read*.c fill these structs, out/report_html*.c draw them.
 */
#ifndef JITTERLAB_OUT_REPORT_MODEL_H
#define JITTERLAB_OUT_REPORT_MODEL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "out/result_read.h"

#define REPORT_MAX_RESULTS 10 /* one colour each */
#define REPORT_GROUP_MAX   32 /* runs in one --group (compare's limit too) */
#define REPORT_IDLE_STATES 8  /* idle states drawn per result */
#define REPORT_IDLE_NAME   32 /* bytes of a state's name kept, with its NUL */
/* Spike causes kept per spike (the writer keeps 8, and folds the rest). */
#define REPORT_SPIKE_CAUSES 16
/* Spikes (or spike windows) kept per result: the largest. */
#define REPORT_SPIKES_SHOWN 200

/* A histogram of a CPU entry (latency, exec_ns or response_ns, as
 * out/result_read.h read them). present is false when the document has none. */
struct report_hist {
    bool present;
    int nbins;
    const struct result_bin *bins;
    uint64_t total; /* values in bins and overflow */
    uint64_t overflow;
};

/* The figures of a telemetry window drawn against time. */
enum report_tm_figure {
    TM_MAX_NS,
    TM_P99_NS,
    TM_MEAN_NS,
    TM_AVG_MHZ,
    TM_BUSY_PCT,
    TM_IRQ_RATE, /* irqs per second of the window */
    TM_STEAL_PCT,
    TM_IDLE0, /* residency % of idle state k: TM_IDLE0 + k */
    TM_FIGURES = TM_IDLE0 + REPORT_IDLE_STATES,
};

struct report_cpu {
    int cpu; /* -1 for "all" */
    const struct result_cpu *core;
    int64_t deadline_misses; /* JR_ABSENT when the document has none */
    /* a --group of runs: how many, and the lowest, highest and geometric
     * mean (of max(p99, 1 ns), as compare means them) of the runs' own p99
     * (-1: none); runs 0 for a single document */
    int runs;
    int64_t run_p99_min, run_p99_max;
    double run_p99_geomean;
    struct report_hist latency, exec, response;
    /* intervals[] of this CPU, in time order */
    size_t n_iv;
    double *iv_t_s, *iv_max_ns, *iv_mean_ns; /* NaN: no samples in the window */
    /* telemetry[] of this CPU, in time order; NaN where absent */
    size_t n_tm;
    double *tm_t_s;
    double *tm[TM_FIGURES];
    /* noise results: windows[] of this CPU, in time order; the share of
     * each window's measured time lost to noise (NaN: nothing measured) */
    size_t n_nw;
    double *nw_t_s, *nw_share_pct, *nw_max_ns;
};

struct report_cause {
    const char *kind, *name;
    int64_t ns;  /* tracepoints: the part; JR_ABSENT for window causes */
    int64_t pid; /* JR_ABSENT unless a thread */
    const char *policy;
    int64_t priority;
    double value, baseline, excess; /* window method; NaN otherwise */
};

/* A spike (tracepoints) or a window with spikes (window method). */
struct report_spike {
    int cpu;
    double t_s;
    int64_t latency_ns; /* window method: the window's max_ns */
    int64_t spikes;     /* window method: spikes in the window; else JR_ABSENT */
    bool events_lost;
    bool has_dominant;
    struct report_cause dominant;
    int ncauses, causes_beyond; /* kept, and beyond REPORT_SPIKE_CAUSES */
    struct report_cause cause[REPORT_SPIKE_CAUSES];
};

/* A thread summary row's pids kept for the report (the writer lists 8). */
#define REPORT_ROW_PIDS 8

/* A spike_summary.by_cause row; fields a method lacks are JR_ABSENT. */
struct report_cause_row {
    const char *kind, *name;
    int64_t pid;
    const char *policy; /* thread; NULL when absent */
    int64_t priority;   /* thread; JR_ABSENT when absent */
    /* a thread source's pids with their spikes, as listed; pids_other: the
     * spikes of pids beyond them (the writer's unlisted ones included) */
    size_t npid;
    struct {
        int64_t pid, count;
    } pids[REPORT_ROW_PIDS];
    int64_t pids_other;
    int64_t folded; /* "other": the smaller causes folded into it; JR_ABSENT */
    int64_t count;  /* tracepoints: spikes; window: windows */
    int64_t spikes; /* window method */
    double share;   /* 0 .. 1 */
    int64_t total_ns, max_ns, median_ns;
};

/* The tail analysis of a run result (its `tail`, run --tail) or of a tail
 * document (docs/result-schema.md): per CPU entry the verdict, estimates,
 * checks and fitted curve. Strings point into the document. Numbers read
 * as NaN where null. */
#define REPORT_TAIL_CHECKS      16
#define REPORT_TAIL_ESTIMATES   16
#define REPORT_TAIL_CURVE       256   /* the writer gives at most 64 */
#define REPORT_TAIL_PROBABILITY 1e-15 /* the smallest per-cycle probability drawn */

struct report_tail_value {
    double value, lo, hi; /* NaN: null (hi: unbounded or not computed) */
};

struct report_tail_check {
    const char *name, *method, *why;
    double statistic, p_value, level; /* NaN: null */
    int state;                        /* 1 passed, 0 failed, -1 not run */
};

struct report_tail_point {
    double probability;          /* per cycle */
    struct report_tail_value ns; /* the latency exceeded with it */
};

struct report_tail_entry {
    int cpu; /* -1: "all" */
    bool estimate;
    const char *reason, *advice, *data, *threshold_rule, *shape_meaning; /* NULL: null */
    int64_t samples, exceedances, fitted;
    double threshold_ns, exceedance_rate, empirical_max_ns, upper_endpoint_ns, more_hours_1e9;
    double confidence;
    struct report_tail_value shape, scale;
    size_t nest;
    struct report_tail_point est[REPORT_TAIL_ESTIMATES];
    bool has_budget;
    double budget_ns, per_hour, per_year;
    struct report_tail_value per_cycle;
    size_t ncheck;
    struct report_tail_check check[REPORT_TAIL_CHECKS];
    size_t ncurve;
    struct report_tail_point *curve; /* owned */
};

struct report_tail {
    double confidence, budget_ns, interval_ns; /* NaN: null */
    size_t nentry;
    struct report_tail_entry *entry; /* cpus[] in order, then "all" */
};

/* A tail document (kind "tail", jitterlab tail --json) given to report. */
#define REPORT_MAX_TAILS 4
struct report_tail_doc {
    const char *path;
    json_t *root;
    const char *started_at;
    const json_t *inputs; /* array of strings */
    struct report_tail tail;
    int run; /* the given result whose histograms it fitted (its one input), or -1 */
};

struct report_run {
    const char *path;
    int runs; /* a --group: the runs merged into this result; else 0 */
    char label[128];
    json_t *root;
    struct result_doc core;
    bool noise; /* a noise result (kind "noise"): gaps in place of latencies */
    const char *version, *started_at, *hostname, *kernel;
    double duration_s; /* NaN when absent */
    bool interrupted;
    const json_t *system, *config; /* NULL when absent */
    bool workload;                 /* config.workload is set */
    int ncpu;
    struct report_cpu *cpu; /* in the order of the document */
    struct report_cpu all;
    bool has_intervals, has_telemetry;
    int nidle;
    char idle_name[REPORT_IDLE_STATES][REPORT_IDLE_NAME]; /* copied: the tree's telemetry goes */
    char freq_source[24]; /* telemetry_sources.avg_mhz.source; "" when absent */
    char steal_why[160];  /* telemetry_sources.steal_pct.why: steal unknown; "" otherwise */
    /* --explain */
    bool has_explain;
    const char *explain_method, *explain_reason;
    int64_t explain_threshold_ns, explain_spikes, explain_events_lost;
    bool window_method;
    size_t spikes_listed; /* entries of spikes[] (spike_windows[]) */
    size_t nspike;        /* the largest of them, largest first */
    struct report_spike *spike;
    const char *summary_method; /* spike_summary.method; NULL: no summary */
    size_t nrow;
    struct report_cause_row *row;
    struct report_tail *tail; /* its `tail` (run --tail); NULL when absent */
};

struct report_metric {
    const char *metric, *unit, *test, *verdict;
    double baseline, value, ratio; /* NaN: null */
    double ci_lo, ci_hi;           /* NaN: no interval */
    double p_value;                /* NaN: null */
};

struct report_cmp_cpu {
    int cpu;             /* -1 for "all" */
    const char *verdict; /* this CPU's, NULL when the document has none */
    size_t nmetric;
    struct report_metric *metric;
    double p_greater, rank_p; /* NaN: no rank test */
};

struct report_comparison {
    const char *label, *verdict;
    size_t ncpu;
    struct report_cmp_cpu *cpu;
};

struct report_cmp_input {
    const char *label;
    const json_t *files; /* array of strings */
    int64_t runs;
};

struct report_compare {
    const char *path;
    json_t *root;
    double alpha;
    const char *baseline;
    size_t ninput;
    struct report_cmp_input *input;
    size_t ncmp;
    struct report_comparison *cmp;
};

struct report_finding {
    const char *id, *area, *severity, *effect, *fix;
    const json_t *cpus;     /* array of integers */
    const json_t *evidence; /* array of {path, value} strings */
};

struct report_unknown {
    const char *id, *why;
};

struct report_inspect {
    const char *path;
    json_t *root;
    const char *verdict, *verdict_reason, *hostname;
    int64_t budget_ns;
    const json_t *cpus;
    size_t nfinding;
    struct report_finding *finding;
    size_t nunknown;
    struct report_unknown *unknown;
};

/* A c2c document (kind "c2c"): the one-way latency matrix of every
 * ordered CPU pair, the topology of its CPUs and the summary per group. */
#define REPORT_C2C_MAX_CPUS 1024
#define REPORT_MAX_C2C      4
#define REPORT_C2C_GROUPS   8

struct report_c2c_group {
    const char *group;
    int64_t pairs;
    double min_ns, median_ns, max_ns, best_min_ns; /* NaN: null */
};

struct report_c2c_cpu {
    int cpu;
    int64_t core_id, package_id, llc_id; /* JR_ABSENT: unknown */
};

struct report_c2c {
    const char *path;
    json_t *root;
    const char *hostname, *started_at, *mode, *clock;
    bool interrupted, realtime;
    int64_t round_trips, rounds;
    int ncpu;
    struct report_c2c_cpu *cpu; /* the matrix's order; topology where given */
    double *median_ns, *min_ns; /* ncpu x ncpu, row = from; NaN: null */
    size_t ngroup;
    struct report_c2c_group group[REPORT_C2C_GROUPS];
};

/* Each reader: 0, or -1 with err saying why (and the struct freed).
 * The path is kept, not copied. report_run_read takes kind "run" and
 * kind "noise" (run->noise). */
int report_run_read(const char *path, struct report_run *run, char *err, size_t errlen);
/* report --group (out/report_group.c): the CPU figures of more[0..nmore)
 * added into first's (histograms summed, percentiles of the sum, each
 * run's p99 kept as a spread); first keeps its header and series. 0, or
 * -1 with err. more stays the caller's to free. */
int report_run_merge(struct report_run *first, struct report_run *more, int nmore, char *err,
                     size_t errlen);
void report_run_free(struct report_run *run);
int report_compare_read(const char *path, struct report_compare *c, char *err, size_t errlen);
void report_compare_free(struct report_compare *c);
int report_inspect_read(const char *path, struct report_inspect *in, char *err, size_t errlen);
void report_inspect_free(struct report_inspect *in);
int report_c2c_read(const char *path, struct report_c2c *c, char *err, size_t errlen);
void report_c2c_free(struct report_c2c *c);

int report_tail_doc_read(const char *path, struct report_tail_doc *d, char *err, size_t errlen);
void report_tail_doc_free(struct report_tail_doc *d);

/* The same readers on text in memory (tests, fuzzing). */
int report_run_read_buffer(const char *text, size_t len, struct report_run *run, char *err,
                           size_t errlen);
int report_c2c_read_buffer(const char *text, size_t len, struct report_c2c *c, char *err,
                           size_t errlen);
int report_tail_doc_read_buffer(const char *text, size_t len, struct report_tail_doc *d, char *err,
                                size_t errlen);

#endif
