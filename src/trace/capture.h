/*
 * Kernel tracepoints on the measured CPUs, read while the run goes on:
 * tracefs for the event formats (mounted on demand) and, where it can be
 * made, a tracefs instance of the run's own ("jitterlab-PID-N": the
 * kernel's trace ring, CLOCK_MONOTONIC timestamps, only the measured CPUs
 * recording, each CPU's sub-buffers read from its trace_pipe_raw); else one
 * perf_event_open per tracepoint and CPU, all of a CPU's events in one
 * mmap'ed ring buffer. Both decode into struct trace_event
 * (trace_decode.h). The ftrace ring is traced from one write (perf enables
 * each event on each CPU with a call of its own); on the wake-up path both
 * cost the same (docs/benchmarks.md). Needs root (or CAP_PERFMON for perf);
 * without it open fails with a one-line reason and the caller falls back
 * to what it has.
 *
 * Life cycle: trace_capture_open (before the engine starts) ->
 * trace_capture_enable -> trace_capture_read* (collector) ->
 * trace_capture_disable -> trace_capture_close.
 */
#ifndef JITTERLAB_TRACE_CAPTURE_H
#define JITTERLAB_TRACE_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/cpulist.h"
#include "trace/trace_event.h"

struct trace_capture;
struct trace_decoder;

/* Opens every tracepoint on every CPU of cpus, with a ring buffer of
 * bytes_per_cpu (rounded up to a power-of-two number of pages), disabled.
 * 0, or -1 with a one-line reason in err (no tracefs, perf refused, ...). */
int trace_capture_open(const struct cpulist *cpus, size_t bytes_per_cpu, struct trace_capture **out,
                       char *err, size_t errlen);
/* A kernel-side filter on one event ("timer:hrtimer_start") of every CPU:
 * only records whose field ("common_pid") is the CPU's own tid (tids[i]
 * for the CPU of index i; in the ftrace ring, whose filter is one for all
 * CPUs, any of the tids, as a few ranges) are written, which spares the
 * measured CPUs the others' cost. 0, or -1 when the event is not open or
 * the kernel refused the filter somewhere. Before trace_capture_enable. */
int trace_capture_filter_tids(struct trace_capture *tc, const char *event, const char *field,
                              const int *tids);
/* The ftrace filter that passes field in the n tids: at most
 * TRACE_FILTER_RANGES ranges ("common_pid == 5" or "(common_pid >= 5 &&
 * common_pid <= 9)", joined by "||"). The measuring threads' tids run
 * mostly in a row; where they do not, the ranges with the smallest gaps
 * between them are joined (a few other tids pass: the attribution reads
 * each record's own tid). 0, or -1 when it does not fit in len or n < 1. */
#define TRACE_FILTER_RANGES 8
int trace_capture_tid_filter(const char *field, const int *tids, int n, char *out, size_t len);
/* Stops recording one event ("sched:sched_waking") on every CPU before the
 * capture is enabled: it costs nothing from then on. 0, or -1 when it
 * could not be stopped somewhere (a perf ring's first event owns it). */
int trace_capture_drop_event(struct trace_capture *tc, const char *event);
int trace_capture_enable(struct trace_capture *tc);
int trace_capture_disable(struct trace_capture *tc);
/* Decodes up to max events recorded on the CPU of index cpu_index (in the
 * cpulist given to open) into out; 0 when nothing new. Collector only. */
size_t trace_capture_read(struct trace_capture *tc, int cpu_index, struct trace_event *out,
                          size_t max);
/* True while the CPU's ring may have dropped records whose
 * PERF_RECORD_LOST has not been read yet: it was close to full at a read,
 * and nothing the kernel wrote after that read made room has been read
 * since. The kernel writes that record only with the next record that
 * fits, so until then the trace covers time only up to its last record. */
bool trace_capture_may_have_lost(const struct trace_capture *tc, int cpu_index);
/* Records the kernel dropped (buffer full) or that could not be decoded. */
uint64_t trace_capture_lost(const struct trace_capture *tc);
/* Events decoded so far, all CPUs. */
uint64_t trace_capture_events(const struct trace_capture *tc);
/* The records decoded so far of each tracepoint ("sched:sched_switch",
 * "irq_vectors:local_timer_entry", ...), all CPUs, those with none left
 * out: up to max into event and count; returns how many. */
size_t trace_capture_counts(const struct trace_capture *tc, const char **event, uint64_t *count,
                            size_t max);
/* The wanted tracepoints this kernel lacks, comma-separated ("" if none). */
const char *trace_capture_missing(const struct trace_capture *tc);
/* The ring buffer size actually used per CPU. */
size_t trace_capture_buffer_bytes(const struct trace_capture *tc);
/* Where the records are written: "ftrace" (a tracefs instance of the
 * run's own), "perf" or "memory". */
const char *trace_capture_ring(const struct trace_capture *tc);
/* Removes the tracefs instances a jitterlab that is gone left behind (a
 * crash or SIGKILL): their events would go on costing their CPUs. Returns
 * how many it removed; their names, comma-separated, go into names (may
 * be NULL; cut at len). */
int trace_capture_remove_stale(char *names, size_t len);
void trace_capture_close(struct trace_capture *tc);

/* A capture over rings in plain memory, with no tracepoint and no system
 * call, read exactly as the live ones: tests write perf records into them
 * with trace_capture_memory_write (which plays the kernel: it writes at
 * the head and publishes it, and never looks at the tail). 0, or -1 when
 * out of memory. */
int trace_capture_open_memory(const struct cpulist *cpus, size_t bytes_per_cpu,
                              const struct trace_decoder *decoder, struct trace_capture **out);
void trace_capture_memory_write(struct trace_capture *tc, int cpu_index, const void *bytes,
                                size_t len);

/* The ring buffer size for a run: enough for what the collector's poll
 * period collects at this interval with a wide margin, within 1..16 MiB. */
size_t trace_capture_bytes_for(int64_t interval_ns, int64_t poll_period_ns);

#endif
