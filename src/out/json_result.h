/*
 * The result document (schema 1, docs/result-schema.md) built
 * with jansson and written atomically. The pieces (latency statistics,
 * histogram, system object) are exposed for the other documents that embed
 * the same shapes.
 */
#ifndef JITTERLAB_OUT_JSON_RESULT_H
#define JITTERLAB_OUT_JSON_RESULT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "out/report.h"
#include "stats/histogram.h"
#include "stats/running_stats.h"
#include "sys/system_info.h"

/* {min, mean, stddev, max, p50, p90, p99, p999, p9999[, over_tolerance][, max_at_s]} */
json_t *json_latency_stats(const struct running_stats *s, const struct latency_hist *h);
/* {unit: "ns", bins: [[lo, hi, count], ...], overflow, underflow, max_ns} */
json_t *json_histogram(const struct latency_hist *h);
json_t *json_system_info(const struct system_info *si);
/* The header every document starts with: tool, schema, kind, version,
 * argv (with "jitterlab" first: argv here starts at the subcommand),
 * started_at. */
json_t *json_document_new(const char *kind, const char *version, int argc, char **argv,
                          const char *started_at);
json_t *json_run_result(const struct run_report *rep);
struct timebase;
/* "clock" ("tsc" or "monotonic") and "tsc_hz" (whole Hz; null with
 * monotonic) of the cross-CPU documents, set on doc. */
void json_timebase_fields(json_t *doc, const struct timebase *tb);
/* One explained spike {cpu, t_s (from start_ns), latency_ns, causes, dominant,
 * events_lost}; policy[j] names a thread cause's policy (NULL: "?"). */
json_t *json_spike(const struct spike *s, const char *const *policy, int64_t start_ns);
struct cause_pids;
/* A thread source's pids (trace/cause_source.h) into summary row o: "pids":
 * [{pid, COUNT_KEY, NS_KEY}], most time first when by_ns, else most spikes
 * first, and "pids_unlisted": {COUNT_KEY, NS_KEY} of the pids beyond the
 * listed ones (zero when none). */
void json_cause_pids(json_t *o, const struct cause_pids *p, bool by_ns, const char *count_key,
                     const char *ns_key);
/* The window method's "spike_windows" entries into windows and its summary
 * rows into by_cause. */
void json_window_explanation(const struct window_explanation *wx, json_t *windows,
                             json_t *by_cause);
/* "explain", "spikes" (tracepoints) or "spike_windows" (window method),
 * and "spike_summary" {method, by_cause} of a run with --explain, on doc
 * (json_explain.c). */
void json_run_explain(json_t *doc, const struct run_report *rep, int64_t start_ns);
/* Writes a document atomically (pretty, keys in insertion order, every
 * array of scalars on one line). 0 or -1 (errno). */
int json_write_file(json_t *doc, const char *path);
/* That one-line form of scalar arrays, in place on dumped JSON text. */
void json_compact_scalar_arrays(char *text);

#endif
