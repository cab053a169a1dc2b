/*
 * The collector of `jitterlab run`: on a housekeeping CPU it drains the
 * per-CPU rings, keeps the live view's figures, writes every sample to the
 * samples file and cuts --report-every windows. Windows are streamed (a line
 * on stdout, flushed; a row in the --intervals file) and only the newest
 * keep_windows of them stay in memory for the result document, in storage
 * allocated before the first cycle: a long run never grows.
 */
#ifndef JITTERLAB_CMD_RUN_COLLECTOR_H
#define JITTERLAB_CMD_RUN_COLLECTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"
#include "common/atomic_file.h"
#include "out/report.h"
#include "out/text_report.h"

struct collector_config {
    int64_t interval_ns;
    int64_t duration_ns; /* 0: bounded by loops */
    uint64_t loops;
    int64_t deadline_ns;
    int64_t tolerance_ns; /* < 0: none */
    int64_t report_every_ns;
    uint64_t report_every_samples;
    uint64_t keep_windows; /* windows kept for the result (all CPUs together) */
    bool quiet;
    bool wide;         /* every interval column (else fits 100 columns) */
    bool control_task; /* execution/response columns */
    bool counters;     /* counter columns in the samples file */
    const char *samples_path;
    const char *intervals_path;
};

struct collector {
    const struct collector_config *cfg;
    struct engine *eng;
    int n;
    struct live_cpu *live;
    struct latency_hist *live_hist;
    struct interval_stats *window; /* the open window per CPU */
    int64_t *window_index;
    /* the newest closed windows, a ring of kept_cap entries */
    struct interval_stats *kept;
    uint64_t kept_cap;
    uint64_t windows_closed; /* every window closed so far */
    bool kept_linear;        /* the ring was rotated oldest-first (at the end) */
    struct atomic_file samples;
    bool samples_open;
    struct atomic_file intervals;
    bool intervals_open;
    bool tty;
    int live_lines;
    bool header_printed;
    struct cycle_sample *buf;
};

static inline bool collector_periodic(const struct collector_config *cfg)
{
    return cfg->report_every_ns > 0 || cfg->report_every_samples > 0;
}

/* Allocates everything (before the engine starts). 0, or -1 with err. */
int collector_init(struct collector *c, const struct collector_config *cfg, struct engine *eng,
                   char *err, size_t errlen);
/* Drains every ring once. */
void collector_drain(struct collector *c);
/* Until every engine thread has ended: drains, draws the live view, and
 * asks the engine to stop (again and again) once a stop was requested. */
void collector_run(struct collector *c, bool *interrupted);
/* After engine_join: last drain, windows closed at end_ns. */
void collector_finish(struct collector *c, int64_t end_ns);
/* The kept windows, oldest first (reorders the ring in place); the number
 * of windows that were not kept goes to *dropped. */
const struct interval_stats *collector_windows(struct collector *c, uint64_t *count,
                                               uint64_t *dropped);
/* Commits the samples and intervals files; 0 or -1 with errno and the
 * option that failed in *opt. */
int collector_commit(struct collector *c, const char **opt, const char **path);
void collector_free(struct collector *c);

#endif
