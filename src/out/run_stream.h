/*
 * What a run shows and writes while it goes on: the live view (redrawn on a
 * terminal, plain lines once a second otherwise), one line per closed
 * report window (flushed at once, also into a pipe), every sample as a CSV
 * row (--samples) and every window as a CSV row (--intervals). cmd/run.c
 * hands these to the collector as its sinks; the files appear whole at
 * commit, or not at all, except in a run without an end, where they are
 * logs that grow as it goes on.
 */
#ifndef JITTERLAB_OUT_RUN_STREAM_H
#define JITTERLAB_OUT_RUN_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/atomic_file.h"
#include "engine/collector.h"

struct run_stream_config {
    bool quiet;
    bool wide;         /* every interval column (else fits 100 columns) */
    bool periodic;     /* --report-every: window lines instead of plain live lines */
    bool control_task; /* execution/response columns */
    bool deadline;     /* deadline misses counted: else the column stays empty */
    bool counters;     /* counter columns in the samples file */
    int64_t interval_ns;
    int64_t tolerance_ns;
    const char *samples_path;
    const char *intervals_path;
    bool append; /* a run without an end: the files are logs, appended to as
                    the run goes on and reopened on request (logrotate) */
};

struct run_stream {
    struct run_stream_config cfg;
    struct atomic_file samples;
    bool samples_open;
    struct async_write *samples_writer; /* while samples_open */
    struct atomic_file intervals;
    bool intervals_open;
    bool tty;
    int live_lines;
    bool header_printed;
    char samples_header[160];
    char intervals_header[200];
};

/* Opens the files. 0, or -1 with err naming the option. */
int run_stream_open(struct run_stream *rs, const struct run_stream_config *cfg, char *err,
                    size_t errlen);
/* The collector's sinks, writing into rs. */
struct collector_sinks run_stream_sinks(struct run_stream *rs);
/* After each drain pass: a log's rows reach the file. */
void run_stream_flush(struct run_stream *rs);
/* Closes and reopens the logs (after logrotate moved them); 0, or -1 with
 * err naming the option (the file stays closed: its rows are dropped). */
int run_stream_reopen(struct run_stream *rs, char *err, size_t errlen);
/* Erases the live view before the summary. */
void run_stream_end_live(struct run_stream *rs);
/* Commits the files; 0 or -1 with errno and the failing option and path. */
int run_stream_commit(struct run_stream *rs, const char **opt, const char **path);
/* Removes what was not committed. */
void run_stream_close(struct run_stream *rs);

#endif
