/*
 * Reading back a document this program wrote (docs/result-schema.md): the
 * header every document carries (tool "jitterlab", schema 1, kind) and, for
 * kind "run", what report and compare work from: per CPU the samples,
 * missed periods, deadline misses, latency statistics and histogram (and
 * those of the execution and response times where the document has them),
 * the same for all CPUs merged, the budget and interval of the run, and
 * whether the figures are exact (a result written while the run went on
 * lacks what the rings dropped: samples_lacking, exact), and each CPU's
 * report windows in time order (their maxima and samples: intervals[]
 * when the document has them, else telemetry[]; the merged entry's are the
 * maxima over CPUs per window time), the block maxima of the tail
 * analysis (windows that fail their checks leave the document readable,
 * without windows, and say why in windows_error). For
 * kind "noise" the same structs carry the gaps: per CPU (and merged) the
 * gap count as samples, gap_ns as the statistics and the gap histogram,
 * beside the noise figures (struct result_noise: noise and measured time,
 * floor, the report windows and the causes). Input is untrusted: wrong
 * types, negative counts, bins out of order or not adding up to the samples, and absurd sizes are
 * refused with a reason, never half-read.
 */
#ifndef JITTERLAB_OUT_RESULT_READ_H
#define JITTERLAB_OUT_RESULT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* Larger files are refused before parsing: a run on 4096 CPUs with every
 * histogram bin filled is well below this. */
#define RESULT_READ_MAX_BYTES (256u * 1024u * 1024u)

/* All the documents one report or compare reads together. Each is parsed
 * whole (about 8 times its size while it is read, freed once its figures
 * are taken) and its figures kept (under its size): a day's run on 256
 * CPUs with three full histograms per CPU is 37 MB, so ten of them fit,
 * in about half a GiB (docs/benchmarks.md, input memory). */
#define RESULT_READ_TOTAL_MAX_BYTES (512u * 1024u * 1024u)

/* latency_ns: null in the document (no samples) leaves known = false. */
struct result_latency {
    bool known;
    int64_t min, mean, stddev, max;
    int64_t p50, p90, p99, p999, p9999;
};

struct result_bin {
    int64_t lo, hi; /* ns, inclusive */
    uint64_t count;
};

/* A distribution with its histogram: exec_ns, response_ns. */
struct result_dist {
    bool present; /* the document has it */
    struct result_latency stats;
    int nbins;
    struct result_bin *bins;
    uint64_t overflow;
};

/* Limits of a noise document per CPU entry: far above what a run writes
 * (a window a second for 11 days; the writer keeps tens of causes). */
#define RESULT_NOISE_MAX_WINDOWS 1000000
#define RESULT_NOISE_MAX_CAUSES  4096

/* One report window of a noise CPU entry (windows[]). */
struct result_noise_window {
    double t_s; /* its end, from the start */
    int64_t duration_ns, measured_ns, noise_ns, max_ns;
    uint64_t gaps;
};

/* A thread row's pids kept (the writer lists 8). */
#define RESULT_NOISE_CAUSE_PIDS 8

/* One row of a noise CPU entry's causes[]. */
struct result_noise_cause {
    char kind[32];
    char *name;  /* owned */
    int64_t pid; /* -1 unless a thread */
    /* a thread source's pids (pids[]) with their time and gaps, as listed;
     * other_ns: the time of pids beyond them (the writer's unlisted ones
     * included) */
    size_t npid;
    struct {
        int64_t pid, ns;
        uint64_t gaps;
    } pids[RESULT_NOISE_CAUSE_PIDS];
    int64_t pids_other_ns;
    uint64_t folded; /* "other": the smaller causes folded into it; 0 when absent */
    char policy[32]; /* "" unless a thread */
    int64_t priority;
    int64_t ns;
    double share; /* of the CPU's attributed noise, 0 .. 1 */
    uint64_t gaps;
};

/* The noise figures of a CPU entry (or "all") of kind "noise". */
struct result_noise {
    bool present;
    int64_t measured_ns, noise_ns;
    int64_t floor_ns; /* -1: null (no iteration) */
    size_t nwin;      /* not in "all" */
    struct result_noise_window *win;
    size_t ncause; /* not in "all" */
    struct result_noise_cause *cause;
};

/* At most this many entries in intervals[] or telemetry[] (all CPUs
 * together): a window a second on 4 CPUs for 3 days. */
#define RESULT_MAX_WINDOWS 1000000

/* One report window of a CPU entry that had samples: its end (s after
 * cycle 0), its largest latency and its samples. */
struct result_window {
    double t_s;
    int64_t max_ns;
    uint64_t samples;
};

struct result_cpu {
    int cpu; /* the real CPU id; -1 for the merged "all" entry */
    uint64_t samples, missed;
    uint64_t samples_lacking; /* samples the figures do not count; 0 when absent */
    uint64_t ring_drops;      /* samples the collector never saw; 0 when absent */
    struct result_latency latency;
    int nbins;
    struct result_bin *bins; /* ascending, not overlapping */
    uint64_t overflow;       /* values beyond the histogram's range */
    bool has_deadline_misses;
    uint64_t deadline_misses;
    struct result_dist exec, response; /* present = false in documents without them */
    struct result_noise noise;         /* kind "noise" only; gaps are the samples */
    /* kind "run": the windows with samples in time order (none without
     * intervals[] or telemetry[]); "all": per window time the largest of
     * the CPUs' maxima and the sum of their samples. */
    size_t nwindows;
    struct result_window *windows;
};

struct result_doc {
    char kind[32]; /* "run", "inspect", "load", ... */
    char version[64];
    bool interrupted;
    bool in_progress; /* written while the run went on (SIGUSR1) */
    bool exact;       /* run: false when samples_lacking > 0 (a result so far); true when absent */
    int ncpus;        /* 0 unless kind is "run" or "noise" */
    struct result_cpu *cpus;
    struct result_cpu all; /* kind "run" or "noise" only */
    int64_t budget_ns;     /* config.budget_ns; -1 when none */
    int64_t interval_ns;   /* config.interval_ns; -1 when unknown */
    char wake[16];         /* run: config.wake, "timer" when absent (older documents) */
    bool control_task;     /* a workload or counters ran: execution times mean something */
    bool realtime;         /* config.realtime: the threads got a real-time policy */
    double duration_s;     /* duration_s: how long it measured; 0 when absent */
    int64_t threshold_ns;  /* noise: config.threshold_ns, the shortest gap; -1 otherwise */
    char windows_from[16]; /* run: "intervals", "telemetry" or "" (no windows) */
    /* Why the windows could not be taken ("intervals[3]: not in time order
     * for CPU 2"), then none are: the document itself reads (report and
     * compare do not need them), the tail analysis refuses it. "" when
     * they were taken or there were none. */
    char windows_error[160];
};

/* 0, or -1 with err saying why (and *doc left empty). result_read_tree
 * reads a document parsed already; the others parse it first. */
int result_read_tree(const json_t *root, struct result_doc *doc, char *err, size_t errlen);
int result_read_buffer(const char *text, size_t len, struct result_doc *doc, char *err,
                       size_t errlen);
int result_read_file(const char *path, struct result_doc *doc, char *err, size_t errlen);
void result_doc_free(struct result_doc *doc);

/* The regular file path (at most RESULT_READ_MAX_BYTES) parsed as JSON
 * straight from the file, duplicate keys refused: the caller's tree to
 * json_decref, or NULL with the reason in err. Nothing of it is checked. */
json_t *result_load_file(const char *path, char *err, size_t errlen);

#endif
