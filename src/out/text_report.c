/*
 * Text output for people. Values are printed in microseconds with three
 * decimals (nanosecond resolution kept); counts as integers. The live view
 * is text_live.c's: plain ANSI cursor movement, so that it works on any
 * VT100-like terminal without curses; when stdout is not a terminal the
 * collector prints plain lines instead. With more CPUs than
 * TEXT_MANY_MAX_ROWS (text_many.h) the live view and the summary collapse
 * to every CPU together and the worst CPUs; the plain lines stay one per
 * CPU, since programs read them.
 */
#include "out/text_report.h"
#include "out/text_many.h"
#include "out/text_stat.h"
#include "out/text_tail.h"

#include <math.h>
#include <string.h>

#include "common/safe_text.h"
#include "common/units.h"

double text_us(int64_t ns)
{
    return (double)ns / 1000.0;
}

/* One row of a summary table; compact (a collapsed table) leaves out p90,
 * so that the row with its last column fits 100 columns. missed < 0: no
 * missed column (a missed period is the wake-up's: the latency table's). */
static void summary_row(FILE *out, const char *label, uint64_t samples, int64_t missed,
                        const struct running_stats *s, const struct latency_hist *h,
                        uint64_t over_tol, bool with_tol, bool compact)
{
    fprintf(out, "%5s %10llu", label, (unsigned long long)samples);
    if (missed >= 0)
        fprintf(out, " %7lld", (long long)missed);
    if (s->count == 0) {
        fprintf(out, "  (no samples)\n");
        return;
    }
    fprintf(out, " %10.3f %10.3f", text_us(s->min), text_us(latency_hist_percentile(h, 50)));
    if (!compact)
        fprintf(out, " %10.3f", text_us(latency_hist_percentile(h, 90)));
    fprintf(out, " %10.3f %10.3f %10.3f %10.3f", text_us(latency_hist_percentile(h, 99)),
            text_us(latency_hist_percentile(h, 99.9)), text_us(s->max), s->mean / 1000.0);
    if (with_tol)
        fprintf(out, " %9llu", (unsigned long long)over_tol);
    fputc('\n', out);
}

static void summary_header(FILE *out, const char *last, bool with_missed, bool compact)
{
    fprintf(out, "%5s %10s", "CPU", "samples");
    if (with_missed)
        fprintf(out, " %7s", "missed");
    fprintf(out, " %10s %10s", "min", "p50");
    if (!compact)
        fprintf(out, " %10s", "p90");
    fprintf(out, " %10s %10s %10s %10s", "p99", "p99.9", "max", "mean");
    if (last)
        fprintf(out, " %9s", last);
    fputc('\n', out);
}

/* Table t of the summary: 0 latency, 1 execution time, 2 response time. */
static const struct running_stats *table_stats(const struct cpu_result *r, int t)
{
    return t == 0 ? &r->latency : t == 1 ? &r->exec : &r->response;
}

static const struct latency_hist *table_hist(const struct cpu_result *r, int t)
{
    return t == 0 ? &r->hist : t == 1 ? r->exec_hist : r->response_hist;
}

/* The missed column of table t: the latency table's only. */
static int64_t table_missed(int t, uint64_t missed)
{
    return t == 0 ? (int64_t)missed : -1;
}

/* The CPUs with the largest max of table t (a collapsed summary's rows). */
static void worst_by_max(const struct run_report *rep, int t, struct text_many_top *worst)
{
    text_many_top_init(worst, true);
    for (int i = 0; i < rep->ncpu; i++) {
        const struct running_stats *s = table_stats(rep->cpu[i], t);
        text_many_top_add(worst, i, s->count ? (double)s->max : NAN);
    }
}

/* The rows of table t: one per CPU then "all", or collapsed "all" first,
 * then the worst CPUs by max and how many were left out. */
static void summary_rows(FILE *out, const struct run_report *rep, int t, bool with_last)
{
    const struct running_stats *all_s = t == 0   ? &rep->all_latency
                                        : t == 1 ? &rep->all_exec
                                                 : &rep->all_response;
    const struct latency_hist *all_h = t == 0   ? rep->all_hist
                                       : t == 1 ? rep->all_exec_hist
                                                : rep->all_response_hist;
    uint64_t all_last = t == 0 ? rep->all_over_tolerance : rep->all_deadline_misses;
    bool compact = text_many_collapsed(rep->ncpu, rep->per_cpu);
    if (!compact) {
        for (int i = 0; i < rep->ncpu; i++) {
            const struct cpu_result *r = rep->cpu[i];
            char label[16];
            snprintf(label, sizeof(label), "%d", r->cpu);
            summary_row(out, label, r->samples, table_missed(t, r->missed), table_stats(r, t),
                        table_hist(r, t), t == 0 ? r->over_tolerance : r->deadline_misses,
                        with_last, false);
        }
        if (rep->ncpu > 1)
            summary_row(out, "all", rep->all_samples, table_missed(t, rep->all_missed), all_s,
                        all_h, all_last, with_last, false);
        return;
    }
    summary_row(out, "all", rep->all_samples, table_missed(t, rep->all_missed), all_s, all_h,
                all_last, with_last, true);
    struct text_many_top worst;
    worst_by_max(rep, t, &worst);
    fprintf(out, "worst %d of %d CPUs by max (p90 with --per-cpu)\n", worst.n, rep->ncpu);
    for (int k = 0; k < worst.n; k++) {
        const struct cpu_result *r = rep->cpu[worst.idx[k]];
        char label[16];
        snprintf(label, sizeof(label), "%d", r->cpu);
        summary_row(out, label, r->samples, table_missed(t, r->missed), table_stats(r, t),
                    table_hist(r, t), t == 0 ? r->over_tolerance : r->deadline_misses, with_last,
                    true);
    }
    text_many_more(out, rep->ncpu - worst.n);
}

void text_loads(FILE *out, const struct load_spec *specs, int n, const struct load_runner *lr)
{
    fprintf(out, "\nLoads (achieved duty cycle)\n");
    for (int i = 0; i < n; i++) {
        struct load_duty d[64];
        uint64_t starts = 0;
        int nd = load_runner_duty(lr, i, d, 64, &starts);
        char cpus[256];
        cpulist_format(&specs[i].cpus, cpus, sizeof(cpus));
        fprintf(out, "  %s on CPU %s:", specs[i].text, cpus);
        for (int k = 0; k < nd; k++) {
            if (d[k].cpu >= 0)
                fprintf(out, "  cpu%d %.1f%%", d[k].cpu, d[k].duty * 100);
            else
                fprintf(out, "  %.1f%% of its CPUs, started %llu times", d[k].duty * 100,
                        (unsigned long long)starts);
        }
        fputc('\n', out);
    }
}

#define TEXT_SPIKE_ROWS 5

/* Without tracepoints: what stood out in the windows with spikes,
 * "  60% of 5 windows with spikes: irq virtio1-req.0 (12 spikes, max 2.1 ms)". */
static void text_window_spikes(FILE *out, const struct run_report *rep)
{
    const struct window_explanation *wx = &rep->explain->windows;
    fprintf(out, ", in %zu telemetry windows (no tracepoints: %s)\n", wx->nspike,
            rep->explain_reason ? rep->explain_reason : "unavailable");
    for (size_t r = 0; r < wx->nrows && r < TEXT_SPIKE_ROWS; r++) {
        const struct window_summary_row *row = &wx->row[r];
        char max[32], name[SAFE_TEXT_TERM_LEN(sizeof row->name)];
        format_duration(row->max_ns, max, sizeof(max));
        fprintf(out, "  %.0f%% of %zu windows with spikes: %s %s (%llu spikes, max %s)\n",
                row->share * 100, wx->nspike, row->kind,
                safe_text_term(name, sizeof name, row->name), (unsigned long long)row->spikes, max);
    }
    if (wx->nrows > TEXT_SPIKE_ROWS)
        fprintf(out, "  (%zu more causes in the JSON result)\n", wx->nrows - TEXT_SPIKE_ROWS);
}

/* "Spikes above 500 us: 101 on CPU 1", then the largest causes, one per line:
 * "  92% of 101 spikes: thread disturb/4711 SCHED_FIFO 95, median 1.9 ms". */
static void text_spikes(FILE *out, const struct run_report *rep)
{
    const struct explain *x = rep->explain;
    char thr[48];
    if (rep->explain_threshold_ns > 0)
        format_duration(rep->explain_threshold_ns, thr, sizeof(thr));
    else
        snprintf(thr, sizeof(thr), "max(50 us, 10 x median)");
    fprintf(out, "\nSpikes above %s: ", thr);
    uint64_t total = 0;
    if (text_many_collapsed(x->ncpu, rep->per_cpu)) {
        /* "1234 on 256 CPUs, most on CPU 7 (301), CPU 9 (12), CPU 4 (3)" */
        enum { NAMED = 3 };
        struct text_many_top most;
        text_many_top_init(&most, true);
        for (int i = 0; i < x->ncpu; i++) {
            total += explain_cpu_spikes(x, i);
            if (explain_cpu_spikes(x, i))
                text_many_top_add(&most, i, (double)explain_cpu_spikes(x, i));
        }
        fprintf(out, "%llu on %d CPUs", (unsigned long long)total, x->ncpu);
        for (int k = 0; k < most.n && k < NAMED; k++)
            fprintf(out, "%s CPU %d (%llu)", k ? "," : ", most on", rep->cpus->cpu[most.idx[k]],
                    (unsigned long long)explain_cpu_spikes(x, most.idx[k]));
    } else {
        for (int i = 0; i < x->ncpu; i++) {
            total += explain_cpu_spikes(x, i);
            fprintf(out, "%s%llu on CPU %d", i ? ", " : "",
                    (unsigned long long)explain_cpu_spikes(x, i), rep->cpus->cpu[i]);
        }
    }
    if (!x->capture) {
        text_window_spikes(out, rep);
        return;
    }
    fprintf(out, " (%llu trace events)\n", (unsigned long long)x->events);
    for (size_t r = 0; r < x->nrows && r < TEXT_SPIKE_ROWS; r++) {
        char line[256];
        spike_summary_text(&x->rows[r], total, x->row_policy[r], line, sizeof(line));
        fprintf(out, "  %s\n", line);
    }
    if (x->nrows > TEXT_SPIKE_ROWS)
        fprintf(out, "  (%zu more causes in the JSON result)\n", x->nrows - TEXT_SPIKE_ROWS);
    if (x->events_lost)
        fprintf(out,
                "note: %llu trace events lost (buffer full); spikes in that range are "
                "marked events_lost\n",
                (unsigned long long)x->events_lost);
}

/* --wake MECH: each CPU's waker lateness, apart from the path latency. */
static void text_wakers(FILE *out, const struct run_report *rep)
{
    fprintf(out,
            "\nWaker lateness (µs; its wake-up minus the planned time, not in the latency "
            "above), --wake %s\n",
            rep->wake);
    for (int i = 0; i < rep->ncpu; i++) {
        const struct waker_result *w = rep->wakers[i];
        const struct running_stats *l = &w->lateness;
        if (l->count == 0) {
            fprintf(out, "  waker of CPU %d on CPU %d: no wake\n", w->measured_cpu, w->cpu);
            continue;
        }
        fprintf(out,
                "  waker of CPU %d on CPU %d (%s %d): %llu wakes, min %.1f, mean %.1f, p50 "
                "%.1f, p99 %.1f, max %.1f",
                w->measured_cpu, w->cpu,
                w->sched_policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_OTHER", w->sched_priority,
                (unsigned long long)w->wakes, (double)l->min / 1e3, l->mean / 1e3,
                (double)latency_hist_percentile(&w->hist, 50) / 1e3,
                (double)latency_hist_percentile(&w->hist, 99) / 1e3, (double)l->max / 1e3);
        if (w->skipped || w->lost)
            fprintf(out, ", %llu skipped, %llu lost", (unsigned long long)w->skipped,
                    (unsigned long long)w->lost);
        if (w->error)
            fprintf(out, ", ended early: %s", strerror(w->error));
        fputc('\n', out);
    }
}

void text_summary(FILE *out, const struct run_report *rep)
{
    bool with_tol = rep->tolerance_ns >= 0;
    bool compact = text_many_collapsed(rep->ncpu, rep->per_cpu);
    fprintf(out, "\nLatency (µs)%s\n", rep->interrupted ? "  [interrupted]" : "");
    summary_header(out, with_tol ? "over-tol" : NULL, true, compact);
    summary_rows(out, rep, 0, with_tol);
    if (rep->wakers)
        text_wakers(out, rep);
    if (rep->control_task) {
        static const char *titles[] = {"Execution time", "Response time"};
        for (int t = 0; t < 2; t++) {
            fprintf(out, "\n%s (µs)%s\n", titles[t], t == 1 ? "  (latency + execution)" : "");
            bool dl = t == 1 && rep->deadline_ns > 0; /* no deadline: no count */
            summary_header(out, dl ? "dl-miss" : NULL, false, compact);
            summary_rows(out, rep, t + 1, dl);
        }
    }
    if (rep->nloads && rep->load_runner)
        text_loads(out, rep->loads, rep->nloads, rep->load_runner);
    if (rep->all_samples_lacking)
        fprintf(out,
                "note: %llu samples did not reach the collector (ring full); this result so far "
                "lacks them: its counts, statistics and percentiles are not exact (the final "
                "result is)\n",
                (unsigned long long)rep->all_samples_lacking);
    else if (rep->all_ring_drops)
        fprintf(out,
                "note: %llu samples did not reach the collector (ring full); the statistics "
                "above are exact, the samples file and interval lines miss them\n",
                (unsigned long long)rep->all_ring_drops);
    if (rep->all_page_faults > 0)
        fprintf(out,
                "warning: the measuring threads took %lld page faults in their loops%s; each "
                "is latency of its own\n",
                (long long)rep->all_page_faults,
                rep->memory_locked
                    ? ""
                    : " (memory not locked: no CAP_IPC_LOCK, RLIMIT_MEMLOCK too small?)");
    if (rep->all_samples) {
        fprintf(out, "\nHistogram, all CPUs (log scale)\n");
        text_histogram(out, rep->all_hist);
    }
    if (rep->telemetry) {
        /* collapsed: the rows of the CPUs the latency table showed */
        int only[TEXT_MANY_WORST], nonly = 0;
        if (compact) {
            struct text_many_top worst;
            worst_by_max(rep, 0, &worst);
            for (int k = 0; k < worst.n; k++)
                only[nonly++] = rep->cpu[worst.idx[k]]->cpu;
        }
        text_telemetry_summary(out, rep->telemetry, rep->telemetry_windows, rep->telemetry_count,
                               rep->telemetry_dropped, rep->telemetry_period_ns,
                               compact ? only : NULL, nonly);
    }
    if (rep->explain_method)
        text_spikes(out, rep);
    if (rep->tail) {
        const struct run_report_tail *t = rep->tail;
        fprintf(out, "\n");
        text_tail(out, &t->cfg, t->cpus, t->cpu_ids, t->n, t->all);
        if (t->confidence)
            text_until_confident(out, t->confidence);
    }
}

/* A latency for people: "12.3 us". */
static void text_ns(char *buf, size_t len, double ns)
{
    if (ns >= 1e6)
        snprintf(buf, len, "%.3g ms", ns / 1e6);
    else
        snprintf(buf, len, "%.3g us", ns / 1e3);
}

void text_until_confident(FILE *out, const struct run_tail_confidence *k)
{
    char p[32], at[96] = "";
    snprintf(p, sizeof p, "%g", k->probability);
    char *e = strstr(p, "e-0"); /* 1e-09 -> 1e-9 */
    if (e)
        memmove(e + 2, e + 3, strlen(e + 3) + 1);
    const struct run_tail_check_cpu *w = k->widest >= 0 ? &k->cpus[k->widest] : NULL;
    if (w && w->estimate && isfinite(w->upper_ns)) {
        char lat[32];
        text_ns(lat, sizeof lat, w->latency_ns);
        snprintf(at, sizeof at, " (%s%d: %s, +%.1f %%)", k->ncpu > 1 ? "widest: CPU " : "CPU ",
                 w->cpu, lat, w->width * 100);
    } else if (w && w->estimate) {
        char lat[32];
        text_ns(lat, sizeof lat, w->latency_ns);
        snprintf(at, sizeof at, " (CPU %d: %s, its interval unbounded above)", w->cpu, lat);
    } else if (w) {
        snprintf(at, sizeof at, " (CPU %d: cannot estimate)", w->cpu);
    }
    if (strcmp(k->ended_by, "confident") == 0)
        fprintf(out, "\nstopped: the %s level's interval is within %g %%%s%s\n", p, k->width * 100,
                k->ncpu > 1 ? " on every CPU" : "", at);
    else if (!k->checks)
        fprintf(out,
                "\n%s ended the run before the %s level was known within %g %% (no check "
                "finished)\n",
                strcmp(k->ended_by, "signal") == 0 ? "a signal" : k->limit, p, k->width * 100);
    else
        fprintf(out, "\n%s ended the run before the %s level was known within %g %%%s\n",
                strcmp(k->ended_by, "signal") == 0 ? "a signal" : k->limit, p, k->width * 100, at);
}

void text_histogram(FILE *out, const struct latency_hist *h)
{
    /* One row per power of two of microseconds: [0,1) [1,2) [2,4) ... µs. */
    enum { ROWS = 40 };
    uint64_t rows[ROWS] = {0};
    for (size_t i = 0; i < LATENCY_HIST_BUCKETS; i++) {
        if (!h->buckets[i])
            continue;
        int64_t lo, hi;
        latency_hist_bucket_bounds(i, &lo, &hi);
        int64_t v_us = lo / 1000;
        int row = 0;
        while (v_us > 0 && row < ROWS - 1) {
            v_us >>= 1;
            row++;
        }
        rows[row] += h->buckets[i];
    }
    int first = -1, last = -1;
    uint64_t peak = 0;
    for (int r = 0; r < ROWS; r++) {
        if (rows[r]) {
            if (first < 0)
                first = r;
            last = r;
            if (rows[r] > peak)
                peak = rows[r];
        }
    }
    if (h->overflow > peak)
        peak = h->overflow;
    if (first < 0 && !h->overflow)
        return;
    double scale = 50.0 / log10((double)peak + 1.0);
    for (int r = first < 0 ? 0 : first; r <= last; r++) {
        long lo_us = r == 0 ? 0 : 1L << (r - 1);
        long hi_us = 1L << r;
        char range[32];
        snprintf(range, sizeof(range), "%ld-%ld", lo_us, hi_us);
        int bar = rows[r] ? (int)lround(log10((double)rows[r] + 1.0) * scale) : 0;
        if (rows[r] && bar < 1)
            bar = 1;
        fprintf(out, "%14s µs %10llu |", range, (unsigned long long)rows[r]);
        for (int b = 0; b < bar; b++)
            fputc('#', out);
        fputc('\n', out);
    }
    if (h->overflow)
        fprintf(out, "%14s    %10llu (largest %.3f µs)\n", ">60 s", (unsigned long long)h->overflow,
                text_us(h->max_ns));
}

/* The default window line fits 100 columns: latency, the largest period
 * error, the count beyond tolerance and, with a workload, the largest
 * execution time; --wide adds every period, error and execution column. */
void text_interval_header(FILE *out, bool with_exec, bool wide)
{
    if (!wide) {
        fprintf(out, "%8s %4s %7s %6s | %9s %9s %9s | %9s %6s", "t(s)", "CPU", "samples", "missed",
                "lat-min", "lat-mean", "lat-max", "|per-err|", ">tol");
        if (with_exec)
            fprintf(out, " | %9s %7s", "exec-max", "dl-miss");
        fprintf(out, " µs\n");
        return;
    }
    fprintf(out, "%8s %4s %7s %6s | %9s %9s %9s | %9s %9s %9s %9s | %6s %9s %9s %9s %9s", "t(s)",
            "CPU", "samples", "missed", "lat-min", "lat-mean", "lat-max", "per-min", "per-max",
            "per-mean", "per-sd", ">tol", "err-min", "err-max", "err-mean", "err-sd");
    if (with_exec)
        fprintf(out, " | %9s %9s %9s %7s", "exec-min", "exec-mean", "exec-max", "dl-miss");
    fprintf(out, "  (µs)\n");
}

/* A deadline-miss count, or "-" in a run without a deadline. */
void text_dl_miss_cell(FILE *out, bool with_deadline, uint64_t n, int width)
{
    if (with_deadline)
        fprintf(out, " %*llu", width, (unsigned long long)n);
    else
        fprintf(out, " %*s", width, "-");
}

static void stats4(FILE *out, const struct running_stats *s)
{
    if (s->count == 0) {
        fprintf(out, " %9s %9s %9s %9s", "-", "-", "-", "-");
        return;
    }
    fprintf(out, " %9.3f %9.3f %9.3f %9.3f", text_us(s->min), text_us(s->max), s->mean / 1000.0,
            running_stats_stddev(s) / 1000.0);
}

void text_interval_line(FILE *out, const struct interval_stats *iv, int64_t interval_ns,
                        int64_t tolerance_ns, bool with_exec, bool with_deadline, bool wide)
{
    fprintf(out, "%8.3f %4d %7llu %6llu |", (double)iv->t_ns / 1e9, iv->cpu,
            (unsigned long long)iv->samples, (unsigned long long)iv->missed);
    if (iv->latency.count)
        fprintf(out, " %9.3f %9.3f %9.3f |", text_us(iv->latency.min), iv->latency.mean / 1000.0,
                text_us(iv->latency.max));
    else
        fprintf(out, " %9s %9s %9s |", "-", "-", "-");
    if (!wide) {
        if (iv->period.count) {
            int64_t hi = iv->period.max - interval_ns, lo = interval_ns - iv->period.min;
            fprintf(out, " %9.3f", text_us(hi > lo ? hi : lo));
        } else {
            fprintf(out, " %9s", "-");
        }
        if (tolerance_ns >= 0)
            fprintf(out, " %6llu", (unsigned long long)iv->over_tolerance);
        else
            fprintf(out, " %6s", "-");
        if (with_exec && iv->exec.count) {
            fprintf(out, " | %9.3f", text_us(iv->exec.max));
            text_dl_miss_cell(out, with_deadline, iv->deadline_misses, 7);
        } else if (with_exec)
            fprintf(out, " | %9s %7s", "-", "-");
        fputc('\n', out);
        return;
    }
    stats4(out, &iv->period);
    if (tolerance_ns >= 0) {
        fprintf(out, " | %6llu", (unsigned long long)iv->over_tolerance);
        stats4(out, &iv->error);
    } else {
        fprintf(out, " | %6s %9s %9s %9s %9s", "-", "-", "-", "-", "-");
    }
    if (with_exec && iv->exec.count) {
        fprintf(out, " | %9.3f %9.3f %9.3f", text_us(iv->exec.min), iv->exec.mean / 1000.0,
                text_us(iv->exec.max));
        text_dl_miss_cell(out, with_deadline, iv->deadline_misses, 7);
    } else if (with_exec)
        fprintf(out, " | %9s %9s %9s %7s", "-", "-", "-", "-");
    fputc('\n', out);
}
