/*
 * The live view of a run on a terminal (text_report.h): a progress bar,
 * then a row per CPU, redrawn in place with plain ANSI cursor movement;
 * beyond TEXT_MANY_MAX_ROWS CPUs every CPU together and the worst ones.
 * Where stdout is not a terminal, plain lines, one per CPU, for programs.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/safe_text.h"
#include "common/units.h"
#include "out/text_many.h"
#include "out/text_report.h"

static void progress_bar(FILE *out, const struct live_frame *f)
{
    enum { WIDTH = 30 };
    double frac = 0;
    if (f->total_s > 0)
        frac = f->elapsed_s / f->total_s;
    else if (f->loops > 0 && f->ncpu > 0)
        frac = (double)f->cpus[0].r->samples / (double)f->loops;
    if (frac > 1)
        frac = 1;
    int filled = (int)(frac * WIDTH);
    fputc('[', out);
    for (int i = 0; i < WIDTH; i++)
        fputc(i < filled ? '#' : '.', out);
    fputc(']', out);
    if (f->total_s > 0)
        fprintf(out, " %6.1f s elapsed, %6.1f s left", f->elapsed_s,
                f->total_s - f->elapsed_s > 0 ? f->total_s - f->elapsed_s : 0);
    else
        fprintf(out, " %6.1f s elapsed, %3.0f%% of %llu loops", f->elapsed_s, frac * 100,
                (unsigned long long)f->loops);
    fputs("\033[K\n", out);
}

/* Every CPU of a frame together. The p99 comes from the CPUs' histograms
 * merged over the buckets each one occupies (from its min to its max), a
 * few hundred buckets per CPU: well under a millisecond for 256 CPUs, four
 * times a second, on the collector's housekeeping CPU. */
struct live_all {
    int measured; /* CPUs with a sample */
    uint64_t samples, missed, deadline_misses;
    struct running_stats latency;
    int64_t exec_max_ns;
    struct latency_hist hist;
};

static void hist_merge_occupied(struct latency_hist *dst, const struct latency_hist *src)
{
    if (src->count == 0)
        return;
    dst->count += src->count;
    dst->overflow += src->overflow;
    dst->underflow += src->underflow;
    dst->min_ns = src->min_ns < dst->min_ns ? src->min_ns : dst->min_ns;
    dst->max_ns = src->max_ns > dst->max_ns ? src->max_ns : dst->max_ns;
    /* negative values (a mis-calibrated clock) are counted in bucket 0 */
    size_t lo = src->min_ns <= 0 ? 0 : latency_hist_bucket_index(src->min_ns);
    size_t hi = src->max_ns <= 0                    ? 0
                : src->max_ns > LATENCY_HIST_MAX_NS ? LATENCY_HIST_BUCKETS - 1
                                                    : latency_hist_bucket_index(src->max_ns);
    for (size_t i = lo; i <= hi && i < LATENCY_HIST_BUCKETS; i++)
        dst->buckets[i] += src->buckets[i];
}

static void live_all_sum(struct live_all *a, const struct live_frame *f)
{
    a->measured = 0;
    a->samples = a->missed = a->deadline_misses = 0;
    a->exec_max_ns = 0;
    running_stats_init(&a->latency);
    latency_hist_init(&a->hist);
    for (int i = 0; i < f->ncpu; i++) {
        const struct cpu_result *r = f->cpus[i].r;
        a->samples += r->samples;
        a->missed += r->missed;
        a->deadline_misses += r->deadline_misses;
        if (r->latency.count == 0)
            continue;
        a->measured++;
        running_stats_merge(&a->latency, &r->latency);
        hist_merge_occupied(&a->hist, &r->hist);
        if (r->exec.count && r->exec.max > a->exec_max_ns)
            a->exec_max_ns = r->exec.max;
    }
}

/* A row of the collapsed view: no current value, the execution time by
 * its max, so that a row fits 100 columns. */
static void live_compact_row(FILE *out, const char *label, uint64_t samples, uint64_t missed,
                             const struct running_stats *lat, int64_t p99_ns, bool control,
                             bool deadline, int64_t exec_max_ns, uint64_t dl_miss)
{
    fprintf(out, "%5s %10llu %8llu %10.3f %10.3f %10.3f %10.3f", label, (unsigned long long)samples,
            (unsigned long long)missed, text_us(lat->min), lat->mean / 1000.0, text_us(p99_ns),
            text_us(lat->max));
    if (control) {
        fprintf(out, " %10.3f", text_us(exec_max_ns));
        text_dl_miss_cell(out, deadline, dl_miss, 8);
    }
    fputs("\033[K\n", out);
}

static int live_worst_rows(FILE *out, const struct live_frame *f, const struct text_many_top *t,
                           const char *by)
{
    fprintf(out, "worst %d by %s:\033[K\n", t->n, by);
    for (int k = 0; k < t->n; k++) {
        const struct live_cpu *c = &f->cpus[t->idx[k]];
        char label[16];
        snprintf(label, sizeof(label), "%d", c->cpu);
        live_compact_row(out, label, c->r->samples, c->r->missed, &c->r->latency,
                         latency_hist_percentile(&c->r->hist, 99), f->control_task, f->deadline,
                         c->r->exec.count ? c->r->exec.max : 0, c->r->deadline_misses);
    }
    return t->n + 1;
}

/* More CPUs than rows: every CPU together, the worst by max and by p99,
 * and the strip of every CPU's max. */
static int live_view_collapsed(FILE *out, const struct live_frame *f)
{
    struct live_all a; /* 30 KiB of histogram, on the collector's stack */
    int lines = 0;
    fprintf(out, "%5s %10s %8s %10s %10s %10s %10s", "CPU", "samples", "missed", "min", "mean",
            "p99", "max");
    if (f->control_task)
        fprintf(out, " %10s %8s", "exec_max", "dl_miss");
    fputs("  (µs)\033[K\n", out);
    lines++;
    struct text_many_top by_max, by_p99;
    text_many_top_init(&by_max, true);
    text_many_top_init(&by_p99, true);
    for (int i = 0; i < f->ncpu; i++) {
        const struct cpu_result *r = f->cpus[i].r;
        if (r->latency.count == 0)
            continue;
        text_many_top_add(&by_max, i, (double)r->latency.max);
        text_many_top_add(&by_p99, i, (double)latency_hist_percentile(&r->hist, 99));
    }
    live_all_sum(&a, f);
    if (a.measured)
        live_compact_row(out, "all", a.samples, a.missed, &a.latency,
                         latency_hist_percentile(&a.hist, 99), f->control_task, f->deadline,
                         a.exec_max_ns, a.deadline_misses);
    else
        fprintf(out, "%5s %10s\033[K\n", "all", "waiting");
    fprintf(out, "%d CPUs: %d measuring, %d waiting\033[K\n", f->ncpu, a.measured,
            f->ncpu - a.measured);
    lines += 2;
    lines += live_worst_rows(out, f, &by_max, "max");
    lines += live_worst_rows(out, f, &by_p99, "p99");
    struct text_strip strip;
    text_strip_begin(&strip, out, true, "max latency");
    for (int i = 0; i < f->ncpu; i++) {
        const struct cpu_result *r = f->cpus[i].r;
        text_strip_cell(&strip, f->cpus[i].cpu, r->latency.count ? r->latency.max : -1);
    }
    return lines + text_strip_end(&strip);
}

int live_view_draw(FILE *out, const struct live_frame *f, int prev_lines)
{
    if (prev_lines > 0)
        fprintf(out, "\033[%dA", prev_lines);
    progress_bar(out, f);
    if (text_many_collapsed(f->ncpu, false)) {
        int lines = live_view_collapsed(out, f);
        /* should a frame be shorter than the one before, erase what that
         * one left below it */
        fputs("\033[J", out);
        fflush(out);
        return lines + 1;
    }
    /* every column has a header; latencies and execution times in µs */
    fprintf(out, "%5s %10s %10s %10s %10s %10s %10s %8s", "CPU", "samples", "current", "min",
            "mean", "p99", "max", "missed");
    if (f->control_task)
        fprintf(out, " %10s %10s %10s %8s", "exec_mean", "exec_p99", "exec_max", "dl_miss");
    fputs("  (µs)\033[K\n", out);
    for (int i = 0; i < f->ncpu; i++) {
        const struct live_cpu *c = &f->cpus[i];
        if (c->r->latency.count == 0) {
            fprintf(out, "%5d %10s\033[K\n", c->cpu, "waiting");
            continue;
        }
        fprintf(out, "%5d %10llu %10.3f %10.3f %10.3f %10.3f %10.3f %8llu", c->cpu,
                (unsigned long long)c->r->samples, text_us(c->current_ns),
                text_us(c->r->latency.min), c->r->latency.mean / 1000.0,
                text_us(latency_hist_percentile(&c->r->hist, 99)), text_us(c->r->latency.max),
                (unsigned long long)c->r->missed);
        if (f->control_task) {
            fprintf(out, " %10.3f %10.3f %10.3f", c->r->exec.mean / 1000.0,
                    text_us(latency_hist_percentile(c->r->exec_hist, 99)), text_us(c->r->exec.max));
            text_dl_miss_cell(out, f->deadline, c->r->deadline_misses, 8);
        }
        fputs("\033[K\n", out);
    }
    fflush(out);
    return f->ncpu + 2;
}

void live_view_clear(FILE *out, int lines)
{
    if (lines > 0)
        fprintf(out, "\033[%dA\033[J", lines);
}

void live_plain_lines(FILE *out, const struct live_frame *f)
{
    for (int i = 0; i < f->ncpu; i++) {
        const struct live_cpu *c = &f->cpus[i];
        if (c->r->latency.count == 0)
            continue;
        fprintf(out,
                "t=%.1fs cpu=%d samples=%llu missed=%llu min=%.3fus mean=%.3fus p99=%.3fus "
                "max=%.3fus",
                f->elapsed_s, c->cpu, (unsigned long long)c->r->samples,
                (unsigned long long)c->r->missed, text_us(c->r->latency.min),
                c->r->latency.mean / 1000.0, text_us(latency_hist_percentile(&c->r->hist, 99)),
                text_us(c->r->latency.max));
        if (f->control_task)
            fprintf(out, " exec_mean=%.3fus exec_p99=%.3fus exec_max=%.3fus",
                    c->r->exec.mean / 1000.0, text_us(latency_hist_percentile(c->r->exec_hist, 99)),
                    text_us(c->r->exec.max));
        if (f->deadline)
            fprintf(out, " dl_miss=%llu", (unsigned long long)c->r->deadline_misses);
        fputc('\n', out);
    }
    fflush(out);
}
