/*
 * The explain part of a run result for the report: `explain` (method,
 * threshold, counts), the spikes of the tracepoint method or the spike
 * windows of the window method, and `spike_summary`. Every entry is
 * checked, but only the REPORT_SPIKES_SHOWN largest are kept (a run may
 * keep a million spikes; a report table of more than a few hundred rows
 * is read by nobody), largest first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/report_read_internal.h"
#include "sys/cpulist.h"

#define NS_LIMIT    INT64_C(1000000000000000) /* 1e15 ns */
#define SPIKES_MAX  1000000                   /* run --explain-keep at most */
#define ROWS_MAX    100000
#define CAUSES_READ 4096 /* causes of one spike checked at most */

static int read_cause(struct jreader *r, const json_t *c, const char *where, bool window,
                      struct report_cause *out)
{
    memset(out, 0, sizeof *out);
    out->value = out->baseline = out->excess = NAN;
    if (!json_is_object(c))
        return jr_fail(r, where, "not an object");
    if (jr_string(r, c, where, "kind", JR_REQUIRED, &out->kind) != 0 ||
        jr_string(r, c, where, "name", JR_OPTIONAL, &out->name) != 0 ||
        jr_int(r, c, where, "pid", 0, INT32_MAX, JR_OPTIONAL, &out->pid) != 0)
        return -1;
    if (window)
        return jr_number(r, c, where, "value", -1e15, 1e15, JR_OPTIONAL, &out->value) != 0 ||
                       jr_number(r, c, where, "baseline", -1e15, 1e15, JR_OPTIONAL,
                                 &out->baseline) != 0 ||
                       jr_number(r, c, where, "excess", -1e15, 1e15, JR_OPTIONAL, &out->excess) != 0
                   ? -1
                   : 0;
    return jr_int(r, c, where, "ns", 0, NS_LIMIT, JR_OPTIONAL, &out->ns) != 0 ||
                   jr_string(r, c, where, "policy", JR_OPTIONAL, &out->policy) != 0 ||
                   jr_int(r, c, where, "priority", -1000, 1000, JR_OPTIONAL, &out->priority) != 0
               ? -1
               : 0;
}

/* One entry of spikes[] (window false) or spike_windows[] (true). */
static int read_spike(struct jreader *r, const struct report_run *run, const json_t *e,
                      const char *where, bool window, struct report_spike *s)
{
    memset(s, 0, sizeof *s);
    int64_t cpu;
    const json_t *causes, *dom;
    if (!json_is_object(e))
        return jr_fail(r, where, "not an object");
    if (jr_int(r, e, where, "cpu", 0, CPULIST_MAX_CPUS - 1, JR_REQUIRED, &cpu) != 0 ||
        jr_number(r, e, where, "t_s", 0, 1e9, JR_REQUIRED, &s->t_s) != 0 ||
        jr_int(r, e, where, window ? "max_ns" : "latency_ns", -NS_LIMIT, NS_LIMIT, JR_REQUIRED,
               &s->latency_ns) != 0 ||
        jr_int(r, e, where, "spikes", 0, INT64_MAX, window ? JR_REQUIRED : JR_OPTIONAL,
               &s->spikes) != 0 ||
        jr_bool(r, e, where, "events_lost", JR_OPTIONAL, false, &s->events_lost) != 0 ||
        jr_array(r, e, where, "causes", JR_OPTIONAL, CAUSES_READ, &causes) != 0 ||
        jr_object(r, e, where, "dominant", JR_OPTIONAL, &dom) != 0)
        return -1;
    bool measured = false;
    for (int i = 0; i < run->ncpu; i++)
        measured = measured || run->cpu[i].cpu == cpu;
    if (!measured)
        return jr_fail(r, where, "cpu: CPU %lld is not in cpus[]", (long long)cpu);
    s->cpu = (int)cpu;
    for (size_t k = 0; causes && k < json_array_size(causes); k++) {
        char w[140];
        snprintf(w, sizeof w, "%s.causes[%zu]", where, k);
        struct report_cause c;
        if (read_cause(r, json_array_get(causes, k), w, window, &c) != 0)
            return -1;
        if (s->ncauses < REPORT_SPIKE_CAUSES)
            s->cause[s->ncauses++] = c;
        else
            s->causes_beyond++;
    }
    if (dom) {
        char w[140];
        snprintf(w, sizeof w, "%s.dominant", where);
        if (read_cause(r, dom, w, false, &s->dominant) != 0)
            return -1;
        s->has_dominant = true;
    }
    return 0;
}

struct spike_rank {
    int64_t latency_ns;
    size_t index;
};

static int by_latency_desc(const void *a, const void *b)
{
    const struct spike_rank *x = a, *y = b;
    if (x->latency_ns != y->latency_ns)
        return x->latency_ns < y->latency_ns ? 1 : -1;
    return (x->index > y->index) - (x->index < y->index);
}

static int read_spikes(struct jreader *r, struct report_run *run, const json_t *arr, bool window)
{
    const char *key = window ? "spike_windows" : "spikes";
    size_t n = json_array_size(arr);
    run->window_method = window;
    run->spikes_listed = n;
    struct spike_rank *rank = calloc(n ? n : 1, sizeof *rank);
    struct report_spike *s = malloc(sizeof *s);
    if (!rank || !s) {
        free(rank);
        free(s);
        return jr_fail(r, key, "out of memory");
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char where[64];
        snprintf(where, sizeof where, "%s[%zu]", key, i);
        rc = read_spike(r, run, json_array_get(arr, i), where, window, s);
        rank[i] = (struct spike_rank){s->latency_ns, i};
    }
    free(s);
    if (rc == 0) {
        qsort(rank, n, sizeof *rank, by_latency_desc);
        run->nspike = n < REPORT_SPIKES_SHOWN ? n : REPORT_SPIKES_SHOWN;
        run->spike = calloc(run->nspike ? run->nspike : 1, sizeof *run->spike);
        if (!run->spike)
            rc = jr_fail(r, key, "out of memory");
        for (size_t k = 0; rc == 0 && k < run->nspike; k++)
            rc =
                read_spike(r, run, json_array_get(arr, rank[k].index), key, window, &run->spike[k]);
    }
    free(rank);
    return rc;
}

/* A thread row's "pids" [{pid, count, total_ns}] and "pids_unlisted"
 * {count, total_ns}: the first REPORT_ROW_PIDS pids kept, the spikes of the
 * rest and of the unlisted ones summed. */
static int read_row_pids(struct jreader *r, const json_t *e, const char *where,
                         struct report_cause_row *row)
{
    const json_t *pids, *unlisted;
    if (jr_array(r, e, where, "pids", JR_OPTIONAL, ROWS_MAX, &pids) != 0 ||
        jr_object(r, e, where, "pids_unlisted", JR_OPTIONAL, &unlisted) != 0)
        return -1;
    for (size_t k = 0; pids && k < json_array_size(pids); k++) {
        char w[96];
        snprintf(w, sizeof w, "%s.pids[%zu]", where, k);
        const json_t *p = json_array_get(pids, k);
        int64_t pid, count, ns;
        if (!json_is_object(p))
            return jr_fail(r, w, "not an object");
        if (jr_int(r, p, w, "pid", 0, INT32_MAX, JR_REQUIRED, &pid) != 0 ||
            jr_int(r, p, w, "count", 0, INT64_MAX, JR_REQUIRED, &count) != 0 ||
            jr_int(r, p, w, "total_ns", 0, INT64_MAX, JR_OPTIONAL, &ns) != 0)
            return -1;
        if (row->npid < REPORT_ROW_PIDS) {
            row->pids[row->npid].pid = pid;
            row->pids[row->npid++].count = count;
        } else if (count <= INT64_MAX - row->pids_other) {
            row->pids_other += count;
        }
    }
    if (unlisted) {
        char w[96];
        snprintf(w, sizeof w, "%s.pids_unlisted", where);
        int64_t count, ns;
        if (jr_int(r, unlisted, w, "count", 0, INT64_MAX, JR_OPTIONAL, &count) != 0 ||
            jr_int(r, unlisted, w, "total_ns", 0, INT64_MAX, JR_OPTIONAL, &ns) != 0)
            return -1;
        if (count != JR_ABSENT && count <= INT64_MAX - row->pids_other)
            row->pids_other += count;
    }
    return 0;
}

static int read_summary(struct jreader *r, struct report_run *run)
{
    const json_t *sum, *rows;
    if (jr_object(r, run->root, "", "spike_summary", JR_OPTIONAL, &sum) != 0)
        return -1;
    if (!sum)
        return 0;
    if (jr_string(r, sum, "spike_summary", "method", JR_REQUIRED, &run->summary_method) != 0 ||
        jr_array(r, sum, "spike_summary", "by_cause", JR_REQUIRED, ROWS_MAX, &rows) != 0)
        return -1;
    run->nrow = json_array_size(rows);
    run->row = calloc(run->nrow ? run->nrow : 1, sizeof *run->row);
    if (!run->row)
        return jr_fail(r, "spike_summary", "out of memory");
    for (size_t i = 0; i < run->nrow; i++) {
        const json_t *e = json_array_get(rows, i);
        struct report_cause_row *row = &run->row[i];
        char w[64];
        snprintf(w, sizeof w, "spike_summary.by_cause[%zu]", i);
        int64_t windows;
        if (!json_is_object(e))
            return jr_fail(r, w, "not an object");
        if (jr_string(r, e, w, "kind", JR_REQUIRED, &row->kind) != 0 ||
            jr_string(r, e, w, "name", JR_OPTIONAL, &row->name) != 0 ||
            jr_int(r, e, w, "pid", 0, INT32_MAX, JR_OPTIONAL, &row->pid) != 0 ||
            jr_int(r, e, w, "count", 0, INT64_MAX, JR_OPTIONAL, &row->count) != 0 ||
            jr_int(r, e, w, "windows", 0, INT64_MAX, JR_OPTIONAL, &windows) != 0 ||
            jr_int(r, e, w, "spikes", 0, INT64_MAX, JR_OPTIONAL, &row->spikes) != 0 ||
            jr_number(r, e, w, "share", 0, 1.000001, JR_OPTIONAL, &row->share) != 0 ||
            jr_int(r, e, w, "total_ns", 0, INT64_MAX, JR_OPTIONAL, &row->total_ns) != 0 ||
            jr_int(r, e, w, "max_ns", -NS_LIMIT, NS_LIMIT, JR_OPTIONAL, &row->max_ns) != 0 ||
            jr_int(r, e, w, "median_ns", -NS_LIMIT, NS_LIMIT, JR_OPTIONAL, &row->median_ns) != 0 ||
            jr_string(r, e, w, "policy", JR_OPTIONAL, &row->policy) != 0 ||
            jr_int(r, e, w, "priority", -1000, 1000, JR_OPTIONAL, &row->priority) != 0 ||
            jr_int(r, e, w, "folded", 0, INT64_MAX, JR_OPTIONAL, &row->folded) != 0 ||
            read_row_pids(r, e, w, row) != 0)
            return -1;
        if (row->count == JR_ABSENT)
            row->count = windows;
    }
    return 0;
}

int report_read_explain(struct jreader *r, struct report_run *run)
{
    const json_t *x, *spikes, *windows;
    if (jr_object(r, run->root, "", "explain", JR_OPTIONAL, &x) != 0 ||
        jr_array(r, run->root, "", "spikes", JR_OPTIONAL, SPIKES_MAX, &spikes) != 0 ||
        jr_array(r, run->root, "", "spike_windows", JR_OPTIONAL, SPIKES_MAX, &windows) != 0)
        return -1;
    run->explain_threshold_ns = run->explain_spikes = run->explain_events_lost = JR_ABSENT;
    if (x) {
        run->has_explain = true;
        if (jr_string(r, x, "explain", "method", JR_OPTIONAL, &run->explain_method) != 0 ||
            jr_string(r, x, "explain", "reason", JR_OPTIONAL, &run->explain_reason) != 0 ||
            jr_int(r, x, "explain", "threshold_ns", 0, NS_LIMIT, JR_OPTIONAL,
                   &run->explain_threshold_ns) != 0 ||
            jr_int(r, x, "explain", "spikes", 0, INT64_MAX, JR_OPTIONAL, &run->explain_spikes) !=
                0 ||
            jr_int(r, x, "explain", "events_lost", 0, INT64_MAX, JR_OPTIONAL,
                   &run->explain_events_lost) != 0)
            return -1;
    }
    if (spikes && read_spikes(r, run, spikes, false) != 0)
        return -1;
    if (!spikes && windows && read_spikes(r, run, windows, true) != 0)
        return -1;
    return read_summary(r, run);
}
