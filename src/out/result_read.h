/*
 * Reading back a document this program wrote (docs/result-schema.md): the
 * header every document carries (tool "jitterlab", schema 1, kind) and, for
 * kind "run", what report and compare work from: per CPU the samples,
 * missed periods, deadline misses, latency statistics and histogram (and
 * those of the execution and response times where the document has them),
 * the same for all CPUs merged, and the budget and interval of the run. Input is untrusted: wrong
 * types, negative counts, bins out of order or not adding up to the samples, and absurd sizes are
 * refused with a reason, never half-read.
 */
#ifndef JITTERLAB_OUT_RESULT_READ_H
#define JITTERLAB_OUT_RESULT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Larger files are refused before parsing: a run on 4096 CPUs with every
 * histogram bin filled is well below this. */
#define RESULT_READ_MAX_BYTES (256u * 1024u * 1024u)

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

struct result_cpu {
    int cpu; /* the real CPU id; -1 for the merged "all" entry */
    uint64_t samples, missed;
    struct result_latency latency;
    int nbins;
    struct result_bin *bins; /* ascending, not overlapping */
    uint64_t overflow;       /* values beyond the histogram's range */
    bool has_deadline_misses;
    uint64_t deadline_misses;
    struct result_dist exec, response; /* present = false in documents without them */
};

struct result_doc {
    char kind[32]; /* "run", "inspect", "load", ... */
    char version[64];
    bool interrupted;
    int ncpus; /* 0 unless kind is "run" */
    struct result_cpu *cpus;
    struct result_cpu all; /* kind "run" only */
    int64_t budget_ns;     /* config.budget_ns; -1 when none */
    int64_t interval_ns;   /* config.interval_ns; -1 when unknown */
    bool control_task;     /* a workload or counters ran: execution times mean something */
    bool realtime;         /* config.realtime: the threads got a real-time policy */
    double duration_s;     /* duration_s: how long it measured; 0 when absent */
};

/* 0, or -1 with err saying why (and *doc left empty). */
int result_read_buffer(const char *text, size_t len, struct result_doc *doc, char *err,
                       size_t errlen);
int result_read_file(const char *path, struct result_doc *doc, char *err, size_t errlen);
void result_doc_free(struct result_doc *doc);

#endif
