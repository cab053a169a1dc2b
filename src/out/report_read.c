/*
 * Reading a run result for the report (report_model.h). The core (header,
 * cpus[], all, latency histograms) goes through out/result_read.c, the
 * reader compare uses too (with deadline misses, exec and response
 * histograms), so both refuse the same documents; this file
 * reads what only the report draws: the intervals and telemetry windows
 * grouped per CPU in time order, the header's strings, and hands the
 * explain part to report_read_explain.c and the tail analysis (`tail`)
 * to report_read_tail.c. Every value
 * is checked for type and range; a CPU named in a window but not in cpus[]
 * is refused, as is anything that would not plot. A noise result (kind
 * "noise") reads the same way, through result_read's noise reader: its
 * gaps stand in the latency's place, and its windows become series.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/report_json.h"
#include "out/report_model.h"
#include "out/report_read_internal.h"
#include "stats/histogram.h"
#include "sys/cpulist.h"

#define LATENCY_LIMIT_NS 1e15 /* ±11 days: beyond anything a run measures */
#define TIME_LIMIT_S     1e9
#define WINDOWS_MAX      1000000 /* run --keep-windows at most */

static void report_cpu_free(struct report_cpu *c)
{
    free(c->iv_t_s);
    free(c->iv_max_ns);
    free(c->iv_mean_ns);
    free(c->tm_t_s);
    for (int k = 0; k < TM_FIGURES; k++)
        free(c->tm[k]);
    free(c->nw_t_s);
    free(c->nw_share_pct);
    free(c->nw_max_ns);
    memset(c, 0, sizeof *c);
}

void report_run_free(struct report_run *run)
{
    for (int i = 0; i < run->ncpu; i++)
        report_cpu_free(&run->cpu[i]);
    free(run->cpu);
    report_cpu_free(&run->all);
    free(run->spike);
    free(run->row);
    if (run->tail)
        report_tail_free(run->tail);
    free(run->tail);
    result_doc_free(&run->core);
    json_decref(run->root);
    memset(run, 0, sizeof *run);
}

static struct report_hist hist_of_dist(const struct result_dist *d)
{
    struct report_hist h = {d->present, d->nbins, d->bins, d->overflow, d->overflow};
    for (int i = 0; i < d->nbins; i++)
        h.total += d->bins[i].count; /* result_read checked that this cannot overflow */
    return h;
}

/* A cpus[] entry or "all" as the report draws it: result_read has read
 * and checked everything the report needs of it. */
static void cpu_entry(const struct result_cpu *core, struct report_cpu *c)
{
    c->cpu = core->cpu;
    c->core = core;
    c->latency = (struct report_hist){true, core->nbins, core->bins, core->samples, core->overflow};
    c->exec = hist_of_dist(&core->exec);
    c->response = hist_of_dist(&core->response);
    c->deadline_misses = core->has_deadline_misses ? (int64_t)core->deadline_misses : JR_ABSENT;
}

/* The index of CPU id in run->cpu, or -1. */
static int cpu_index(const struct report_run *run, int64_t id)
{
    for (int i = 0; i < run->ncpu; i++)
        if (run->cpu[i].cpu == id)
            return i;
    return -1;
}

struct window_row {
    double t_s;
    double v[TM_FIGURES];
    double irqs;
};

static int by_time(const void *a, const void *b)
{
    const struct window_row *x = a, *y = b;
    return (x->t_s > y->t_s) - (x->t_s < y->t_s);
}

/* The window's CPU (must be measured) and time. */
static int read_window_head(struct jreader *r, const struct report_run *run, const json_t *e,
                            const char *where, int *index, double *t_s)
{
    int64_t cpu;
    if (!json_is_object(e))
        return jr_fail(r, where, "not an object");
    if (jr_number(r, e, where, "t_s", 0, TIME_LIMIT_S, JR_REQUIRED, t_s) != 0 ||
        jr_int(r, e, where, "cpu", 0, CPULIST_MAX_CPUS - 1, JR_REQUIRED, &cpu) != 0)
        return -1;
    *index = cpu_index(run, cpu);
    if (*index < 0)
        return jr_fail(r, where, "cpu: CPU %lld is not in cpus[]", (long long)cpu);
    return 0;
}

static double int_or_nan(int64_t v)
{
    return v == JR_ABSENT ? NAN : (double)v;
}

/* Rows of one CPU: how many there are, then the rows, sorted by time. */
struct per_cpu_rows {
    size_t n, cap;
    struct window_row *row;
};

static int add_row(struct jreader *r, struct per_cpu_rows *rows, const struct window_row *w,
                   const char *where)
{
    if (rows->n == rows->cap) {
        size_t cap = rows->cap ? rows->cap * 2 : 64;
        void *p = realloc(rows->row, cap * sizeof *rows->row);
        if (!p)
            return jr_fail(r, where, "out of memory");
        rows->row = p;
        rows->cap = cap;
    }
    rows->row[rows->n++] = *w;
    return 0;
}

static double *column(const struct per_cpu_rows *rows, int k, bool time)
{
    double *c = malloc((rows->n ? rows->n : 1) * sizeof *c);
    for (size_t i = 0; c && i < rows->n; i++)
        c[i] = time ? rows->row[i].t_s : rows->row[i].v[k];
    return c;
}

static void free_rows(struct per_cpu_rows *rows, int n)
{
    for (int i = 0; rows && i < n; i++)
        free(rows[i].row);
    free(rows);
}

static int read_intervals(struct jreader *r, struct report_run *run)
{
    const json_t *arr;
    if (jr_array(r, run->root, "", "intervals", JR_OPTIONAL, WINDOWS_MAX, &arr) != 0)
        return -1;
    if (!arr)
        return 0;
    run->has_intervals = true;
    struct per_cpu_rows *rows = calloc((size_t)run->ncpu, sizeof *rows);
    if (!rows)
        return jr_fail(r, "intervals", "out of memory");
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < json_array_size(arr); i++) {
        const json_t *e = json_array_get(arr, i);
        char where[48];
        snprintf(where, sizeof where, "intervals[%zu]", i);
        struct window_row w = {0};
        int idx;
        int64_t max_ns, mean_ns;
        if (read_window_head(r, run, e, where, &idx, &w.t_s) != 0 ||
            jr_int(r, e, where, "max_ns", (int64_t)-LATENCY_LIMIT_NS, (int64_t)LATENCY_LIMIT_NS,
                   JR_OPTIONAL, &max_ns) != 0 ||
            jr_int(r, e, where, "mean_ns", (int64_t)-LATENCY_LIMIT_NS, (int64_t)LATENCY_LIMIT_NS,
                   JR_OPTIONAL, &mean_ns) != 0)
            rc = -1;
        if (rc == 0) {
            w.v[0] = int_or_nan(max_ns);
            w.v[1] = int_or_nan(mean_ns);
            rc = add_row(r, &rows[idx], &w, where);
        }
    }
    for (int c = 0; rc == 0 && c < run->ncpu; c++) {
        struct report_cpu *cpu = &run->cpu[c];
        if (rows[c].n > 1)
            qsort(rows[c].row, rows[c].n, sizeof *rows[c].row, by_time);
        cpu->n_iv = rows[c].n;
        cpu->iv_t_s = column(&rows[c], 0, true);
        cpu->iv_max_ns = column(&rows[c], 0, false);
        cpu->iv_mean_ns = column(&rows[c], 1, false);
        if (!cpu->iv_t_s || !cpu->iv_max_ns || !cpu->iv_mean_ns)
            rc = jr_fail(r, "intervals", "out of memory");
    }
    free_rows(rows, run->ncpu);
    return rc ? -1 : 0;
}

/* telemetry[i].idle: each state's residency under its name's index. */
static int read_idle(struct jreader *r, struct report_run *run, const json_t *e, const char *where,
                     struct window_row *w)
{
    const json_t *idle;
    if (jr_array(r, e, where, "idle", JR_OPTIONAL, 64, &idle) != 0)
        return -1;
    for (size_t k = 0; idle && k < json_array_size(idle); k++) {
        const json_t *s = json_array_get(idle, k);
        char w2[100];
        snprintf(w2, sizeof w2, "%s.idle[%zu]", where, k);
        const char *name;
        double pct;
        if (!json_is_object(s))
            return jr_fail(r, w2, "not an object");
        if (jr_string(r, s, w2, "state", JR_REQUIRED, &name) != 0 ||
            jr_number(r, s, w2, "residency_pct", 0, 100, JR_OPTIONAL, &pct) != 0)
            return -1;
        char shown[REPORT_IDLE_NAME]; /* a longer name by its start */
        snprintf(shown, sizeof shown, "%s", name);
        int slot = -1;
        for (int j = 0; j < run->nidle && slot < 0; j++)
            if (strcmp(run->idle_name[j], shown) == 0)
                slot = j;
        if (slot < 0 && run->nidle < REPORT_IDLE_STATES) {
            slot = run->nidle++;
            memcpy(run->idle_name[slot], shown, sizeof shown);
        }
        if (slot >= 0) /* states beyond the first REPORT_IDLE_STATES names are not drawn */
            w->v[TM_IDLE0 + slot] = pct;
    }
    return 0;
}

static int read_telemetry_entry(struct jreader *r, struct report_run *run, const json_t *e,
                                const char *where, int *idx, struct window_row *w)
{
    for (int k = 0; k < TM_FIGURES; k++)
        w->v[k] = NAN;
    int64_t max_ns, p99_ns, irqs;
    if (read_window_head(r, run, e, where, idx, &w->t_s) != 0 ||
        jr_int(r, e, where, "max_ns", (int64_t)-LATENCY_LIMIT_NS, (int64_t)LATENCY_LIMIT_NS,
               JR_OPTIONAL, &max_ns) != 0 ||
        jr_int(r, e, where, "p99_ns", (int64_t)-LATENCY_LIMIT_NS, (int64_t)LATENCY_LIMIT_NS,
               JR_OPTIONAL, &p99_ns) != 0 ||
        jr_number(r, e, where, "mean_ns", -LATENCY_LIMIT_NS, LATENCY_LIMIT_NS, JR_OPTIONAL,
                  &w->v[TM_MEAN_NS]) != 0 ||
        jr_number(r, e, where, "avg_mhz", 0, 1e6, JR_OPTIONAL, &w->v[TM_AVG_MHZ]) != 0 ||
        jr_number(r, e, where, "busy_pct", 0, 100, JR_OPTIONAL, &w->v[TM_BUSY_PCT]) != 0 ||
        jr_number(r, e, where, "steal_pct", 0, 100, JR_OPTIONAL, &w->v[TM_STEAL_PCT]) != 0 ||
        jr_int(r, e, where, "irqs", 0, INT64_MAX, JR_OPTIONAL, &irqs) != 0 ||
        read_idle(r, run, e, where, w) != 0)
        return -1;
    w->v[TM_MAX_NS] = int_or_nan(max_ns);
    w->v[TM_P99_NS] = int_or_nan(p99_ns);
    w->irqs = int_or_nan(irqs);
    return 0;
}

static int by_value(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (*x > *y) - (*x < *y);
}

/* Interrupts per second of each window: since the previous one. A window
 * much shorter than the usual (the last one of a run, cut by its end)
 * gives no rate: a handful of interrupts in a few milliseconds is not a
 * storm. */
static void irq_rates(struct per_cpu_rows *pr)
{
    double *dt = malloc((pr->n ? pr->n : 1) * sizeof *dt);
    for (size_t i = 0; dt && i < pr->n; i++)
        dt[i] = pr->row[i].t_s - (i ? pr->row[i - 1].t_s : 0);
    double usual = 0;
    if (dt && pr->n) {
        double *sorted = malloc(pr->n * sizeof *sorted);
        if (sorted) {
            memcpy(sorted, dt, pr->n * sizeof *sorted);
            qsort(sorted, pr->n, sizeof *sorted, by_value);
            usual = sorted[pr->n / 2];
            free(sorted);
        }
    }
    for (size_t i = 0; i < pr->n; i++) {
        double d = dt ? dt[i] : 0;
        pr->row[i].v[TM_IRQ_RATE] = d > 1e-6 && d >= usual / 4 ? pr->row[i].irqs / d : NAN;
    }
    free(dt);
}

static int read_telemetry(struct jreader *r, struct report_run *run)
{
    const json_t *arr;
    if (jr_array(r, run->root, "", "telemetry", JR_OPTIONAL, WINDOWS_MAX, &arr) != 0)
        return -1;
    if (!arr)
        return 0;
    run->has_telemetry = true;
    const json_t *sources = json_object_get(run->root, "telemetry_sources");
    const char *freq =
        json_string_value(json_object_get(json_object_get(sources, "avg_mhz"), "source"));
    snprintf(run->freq_source, sizeof run->freq_source, "%s", freq ? freq : "");
    const json_t *steal = json_object_get(sources, "steal_pct");
    const char *why = json_is_null(json_object_get(steal, "source"))
                          ? json_string_value(json_object_get(steal, "why"))
                          : NULL;
    snprintf(run->steal_why, sizeof run->steal_why, "%s", why ? why : "");
    struct per_cpu_rows *rows = calloc((size_t)run->ncpu, sizeof *rows);
    if (!rows)
        return jr_fail(r, "telemetry", "out of memory");
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < json_array_size(arr); i++) {
        char where[48];
        snprintf(where, sizeof where, "telemetry[%zu]", i);
        struct window_row w;
        int idx;
        rc = read_telemetry_entry(r, run, json_array_get(arr, i), where, &idx, &w);
        if (rc == 0)
            rc = add_row(r, &rows[idx], &w, where);
    }
    for (int c = 0; rc == 0 && c < run->ncpu; c++) {
        struct per_cpu_rows *pr = &rows[c];
        if (pr->n > 1)
            qsort(pr->row, pr->n, sizeof *pr->row, by_time);
        irq_rates(pr);
        struct report_cpu *cpu = &run->cpu[c];
        cpu->n_tm = pr->n;
        cpu->tm_t_s = column(pr, 0, true);
        bool ok = cpu->tm_t_s != NULL;
        for (int k = 0; k < TM_FIGURES; k++)
            ok = (cpu->tm[k] = column(pr, k, false)) != NULL && ok;
        if (!ok)
            rc = jr_fail(r, "telemetry", "out of memory");
    }
    free_rows(rows, run->ncpu);
    return rc ? -1 : 0;
}

/* A noise result's windows per CPU, as series (result_read checked them
 * and their time order). */
static int noise_windows(struct jreader *r, struct report_cpu *c)
{
    const struct result_noise *n = &c->core->noise;
    size_t k = n->nwin ? n->nwin : 1;
    c->nw_t_s = malloc(k * sizeof *c->nw_t_s);
    c->nw_share_pct = malloc(k * sizeof *c->nw_share_pct);
    c->nw_max_ns = malloc(k * sizeof *c->nw_max_ns);
    if (!c->nw_t_s || !c->nw_share_pct || !c->nw_max_ns)
        return jr_fail(r, "windows", "out of memory");
    for (size_t i = 0; i < n->nwin; i++) {
        const struct result_noise_window *w = &n->win[i];
        c->nw_t_s[i] = w->t_s;
        c->nw_share_pct[i] =
            w->measured_ns > 0 ? 100.0 * (double)w->noise_ns / (double)w->measured_ns : NAN;
        c->nw_max_ns[i] = w->gaps ? (double)w->max_ns : NAN;
    }
    c->n_nw = n->nwin;
    return 0;
}

static int read_header(struct jreader *r, struct report_run *run)
{
    const json_t *root = run->root;
    if (jr_string(r, root, "", "version", JR_OPTIONAL, &run->version) != 0 ||
        jr_string(r, root, "", "started_at", JR_OPTIONAL, &run->started_at) != 0 ||
        jr_number(r, root, "", "duration_s", 0, TIME_LIMIT_S, JR_OPTIONAL, &run->duration_s) != 0 ||
        jr_object(r, root, "", "system", JR_OPTIONAL, &run->system) != 0 ||
        jr_object(r, root, "", "config", JR_OPTIONAL, &run->config) != 0)
        return -1;
    run->interrupted = run->core.interrupted;
    if (run->system &&
        (jr_string(r, run->system, "system", "hostname", JR_OPTIONAL, &run->hostname) != 0 ||
         jr_string(r, run->system, "system", "kernel", JR_OPTIONAL, &run->kernel) != 0))
        return -1;
    if (run->config) {
        const json_t *wl;
        if (jr_object(r, run->config, "config", "workload", JR_OPTIONAL, &wl) != 0)
            return -1;
        run->workload = wl != NULL;
    }
    return 0;
}

/* The result's `tail` (run --tail), its entries' CPUs among cpus[]. */
static int read_tail_object(struct jreader *r, struct report_run *run)
{
    const json_t *tail;
    if (jr_object(r, run->root, "", "tail", JR_OPTIONAL, &tail) != 0)
        return -1;
    if (!tail)
        return 0;
    int *ids = calloc((size_t)run->ncpu + 1, sizeof *ids);
    run->tail = calloc(1, sizeof *run->tail);
    if (!ids || !run->tail) {
        free(ids);
        return jr_fail(r, "tail", "out of memory");
    }
    for (int i = 0; i < run->ncpu; i++)
        ids[i] = run->cpu[i].cpu;
    int rc = report_read_tail(r, tail, "tail", ids, run->ncpu, run->tail);
    free(ids);
    return rc;
}

/* The figures of the parsed document run->root, which the run owns from
 * here on. */
static int read_run(struct jreader *r, struct report_run *run)
{
    if (result_read_tree(run->root, &run->core, r->err, r->errlen) != 0)
        return -1;
    run->noise = strcmp(run->core.kind, "noise") == 0;
    if (strcmp(run->core.kind, "run") != 0 && !run->noise) {
        const char *hint = strcmp(run->core.kind, "compare") == 0   ? " (give it with --compare)"
                           : strcmp(run->core.kind, "inspect") == 0 ? " (give it with --inspect)"
                           : strcmp(run->core.kind, "c2c") == 0     ? " (give it with --c2c)"
                                                                    : "";
        return jr_fail(r, "kind", "\"%s\", not a run result%s", run->core.kind, hint);
    }
    if (read_header(r, run) != 0)
        return -1;
    run->ncpu = run->core.ncpus;
    run->cpu = calloc((size_t)run->ncpu, sizeof *run->cpu);
    if (!run->cpu)
        return jr_fail(r, "cpus", "out of memory");
    for (int i = 0; i < run->ncpu; i++)
        cpu_entry(&run->core.cpus[i], &run->cpu[i]);
    cpu_entry(&run->core.all, &run->all);
    if (!run->noise && read_tail_object(r, run) != 0)
        return -1;
    if (run->noise) {
        /* the gaps, windows and causes are in core; the explain part of a
         * noise result is its causes per CPU */
        for (int i = 0; i < run->ncpu; i++)
            if (noise_windows(r, &run->cpu[i]) != 0)
                return -1;
    } else if (read_intervals(r, run) != 0 || read_telemetry(r, run) != 0 ||
               report_read_explain(r, run) != 0) {
        return -1;
    }
    /* The page takes the histograms from core and the windows and
     * telemetry from the series made of them; only the header, system,
     * config, argv and the explain part are still looked up in the tree.
     * The bulk of a long run on many CPUs goes now. */
    json_object_del(run->root, "cpus");
    json_object_del(run->root, "all");
    json_object_del(run->root, "intervals");
    json_object_del(run->root, "telemetry");
    return 0;
}

static int read_parsed(struct report_run *run, const char *path, char *err, size_t errlen)
{
    struct jreader r = {err, errlen};
    if (read_run(&r, run) != 0) {
        report_run_free(run);
        run->path = path;
        return -1;
    }
    return 0;
}

int report_run_read_buffer(const char *text, size_t len, struct report_run *run, char *err,
                           size_t errlen)
{
    const char *path = run->path;
    memset(run, 0, sizeof *run);
    run->path = path;
    run->duration_s = NAN;
    struct jreader r = {err, errlen};
    json_error_t jerr;
    if (len > RESULT_READ_MAX_BYTES)
        return jr_fail(&r, "document", "larger than %u MiB", RESULT_READ_MAX_BYTES >> 20);
    if (!(run->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr)))
        return jr_fail(&r, "document", "not JSON (line %d: %s)", jerr.line, jerr.text);
    return read_parsed(run, path, err, errlen);
}

int report_run_read(const char *path, struct report_run *run, char *err, size_t errlen)
{
    memset(run, 0, sizeof *run);
    run->path = path;
    run->duration_s = NAN;
    if (!(run->root = result_load_file(path, err, errlen)))
        return -1;
    return read_parsed(run, path, err, errlen);
}
