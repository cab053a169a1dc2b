/*
 * The noise report for people (see text_noise.h). With more CPUs than
 * TEXT_MANY_MAX_ROWS (text_many.h) the live table and the summary collapse
 * to every CPU together and the worst CPUs, unless the summary was asked
 * for every CPU (--per-cpu); the window lines of a pipe stay one per CPU.
 */
#include "out/text_noise.h"
#include "out/text_many.h"

#include <math.h>
#include <string.h>

#include "common/safe_text.h"
#include "common/units.h"
#include "trace/explain.h"

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

void text_noise_header(FILE *out, const struct noise_config *cfg, const struct timebase *tb,
                       const char *method, const char *method_reason)
{
    char d[32], thr[32], rt[32], per[32];
    format_duration(cfg->duration_ns, d, sizeof d);
    format_duration(cfg->threshold_ns, thr, sizeof thr);
    fprintf(out, "noise on %d CPU%s for %s, gaps above %s, clock %s", cfg->n,
            cfg->n == 1 ? "" : "s", d, thr, timebase_name(tb));
    if (cfg->fifo) {
        format_duration(cfg->runtime_ns, rt, sizeof rt);
        format_duration(cfg->period_ns, per, sizeof per);
        fprintf(out, ", SCHED_FIFO %d", cfg->priority);
        if (cfg->runtime_ns < cfg->period_ns)
            fprintf(out, " spinning %s of every %s", rt, per);
    } else {
        fprintf(out, ", SCHED_OTHER");
    }
    fprintf(out, "\ncauses: %s%s%s%s\n", method, method_reason ? " (" : "",
            method_reason ? method_reason : "", method_reason ? ")" : "");
}

void text_noise_window(FILE *out, const struct noise_window *w)
{
    fprintf(out, "t=%.1fs cpu=%d noise_pct=%.4f gaps=%llu max=%.3fus\n", (double)w->t_ns / 1e9,
            w->cpu, pct(w->noise_ns, w->measured_ns), (unsigned long long)w->gaps,
            (double)w->max_ns / 1000.0);
}

static void live_row(FILE *out, const char *label, uint64_t gaps, double share, double window_pct,
                     int64_t max_ns)
{
    fprintf(out, "%5s %10llu %12.4f ", label, (unsigned long long)gaps, share);
    if (isnan(window_pct))
        fprintf(out, "%12s", "-");
    else
        fprintf(out, "%12.4f", window_pct);
    fprintf(out, " %12.3f\033[K\n", (double)max_ns / 1000.0);
}

static int live_worst(FILE *out, const struct noise_live_cpu *c, const struct text_many_top *t,
                      const char *by, int64_t measured_ns)
{
    fprintf(out, "worst %d by %s:\033[K\n", t->n, by);
    for (int k = 0; k < t->n; k++) {
        const struct noise_live_cpu *x = &c[t->idx[k]];
        char label[16];
        snprintf(label, sizeof label, "%d", x->cpu);
        live_row(out, label, x->gaps, pct(x->noise_ns, measured_ns), x->last_window_pct, x->max_ns);
    }
    return t->n + 1;
}

/* Many CPUs: every CPU together (its share the mean of theirs, the window
 * share the mean over the CPUs with a closed window), the worst by longest
 * gap and by noise share, and the strip of every CPU's longest gap. */
static int live_collapsed(FILE *out, const struct noise_live_cpu *c, int n, int64_t measured_ns)
{
    uint64_t gaps = 0;
    int64_t noise_ns = 0, max_ns = 0;
    double window_sum = 0;
    int windows = 0;
    struct text_many_top by_max, by_noise;
    text_many_top_init(&by_max, true);
    text_many_top_init(&by_noise, true);
    for (int i = 0; i < n; i++) {
        gaps += c[i].gaps;
        noise_ns += c[i].noise_ns;
        max_ns = c[i].max_ns > max_ns ? c[i].max_ns : max_ns;
        if (!isnan(c[i].last_window_pct)) {
            window_sum += c[i].last_window_pct;
            windows++;
        }
        text_many_top_add(&by_max, i, (double)c[i].max_ns);
        text_many_top_add(&by_noise, i, (double)c[i].noise_ns);
    }
    live_row(out, "all", gaps, pct(noise_ns, measured_ns * n), windows ? window_sum / windows : NAN,
             max_ns);
    fprintf(out, "%d CPUs\033[K\n", n);
    int lines = 2;
    lines += live_worst(out, c, &by_max, "longest gap", measured_ns);
    lines += live_worst(out, c, &by_noise, "noise", measured_ns);
    struct text_strip strip;
    text_strip_begin(&strip, out, true, "longest gap");
    for (int i = 0; i < n; i++)
        text_strip_cell(&strip, c[i].cpu, c[i].max_ns);
    return lines + text_strip_end(&strip);
}

int text_noise_live(FILE *out, const struct noise_live_cpu *c, int n, int64_t elapsed_ns,
                    int64_t measured_ns, int64_t duration_ns, int prev_lines)
{
    enum { WIDTH = 30 };
    if (prev_lines > 0)
        fprintf(out, "\033[%dA", prev_lines);
    double frac = duration_ns > 0 ? (double)elapsed_ns / (double)duration_ns : 0;
    frac = frac > 1 ? 1 : frac < 0 ? 0 : frac;
    fputc('[', out);
    for (int i = 0; i < WIDTH; i++)
        fputc(i < (int)(frac * WIDTH) ? '#' : '.', out);
    fprintf(out, "] %6.1f s elapsed, %6.1f s left\033[K\n", (double)elapsed_ns / 1e9,
            (double)(duration_ns - elapsed_ns > 0 ? duration_ns - elapsed_ns : 0) / 1e9);
    fprintf(out, "%5s %10s %12s %12s %12s\033[K\n", "CPU", "gaps", "noise_%", "window_%", "max_us");
    if (text_many_collapsed(n, false)) {
        int lines = live_collapsed(out, c, n, measured_ns);
        fputs("\033[J", out);
        fflush(out);
        return lines + 2;
    }
    for (int i = 0; i < n; i++) {
        char label[16];
        snprintf(label, sizeof label, "%d", c[i].cpu);
        live_row(out, label, c[i].gaps, pct(c[i].noise_ns, measured_ns), c[i].last_window_pct,
                 c[i].max_ns);
    }
    fflush(out);
    return n + 2;
}

/* "thread spinner/27019 SCHED_FIFO 95"; a source of several threads:
 * "thread worker SCHED_OTHER (pids 12 60%, 13 40%)", by their time. */
static void cause_label(const struct noise_cause_row *r, char *buf, size_t len)
{
    char sched[48], pids[160], name[SAFE_TEXT_TERM_LEN(sizeof r->name)];
    safe_text_term(name, sizeof name, r->name);
    const char *policy = r->kind == CAUSE_THREAD ? explain_thread_policy(r->prio, r->policy) : "";
    if (cause_user_priority(r->prio) > 0)
        snprintf(sched, sizeof sched, "%s %d", policy, cause_user_priority(r->prio));
    else
        snprintf(sched, sizeof sched, "%s", policy);
    if (r->kind == CAUSE_UNEXPLAINED && strcmp(r->name, "idle") == 0)
        snprintf(buf, len, "idle");
    else if (r->folded > 0 && strcmp(r->name, NOISE_OTHER_CAUSES) == 0)
        snprintf(buf, len, "%s (%llu smaller causes folded)", r->name,
                 (unsigned long long)r->folded);
    else if (r->kind == CAUSE_THREAD && cause_pids_text(&r->pids, true, 3, pids, sizeof pids) > 0)
        snprintf(buf, len, "thread %s %s (%s)", name, sched, pids);
    else if (r->kind == CAUSE_THREAD)
        snprintf(buf, len, "thread %s/%d %s", name, (int)r->pid, sched);
    else if (r->name[0])
        snprintf(buf, len, "%s %s", cause_kind_name(r->kind), name);
    else
        snprintf(buf, len, "%s", cause_kind_name(r->kind));
}

static void causes_line(const struct noise_cause_row *rows, size_t n, int64_t total, size_t max,
                        char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    int64_t rest = total;
    size_t k = 0;
    for (; k < n && k < max && (k == 0 || pct(rows[k].ns, total) >= 0.5); k++) {
        char label[448];
        cause_label(&rows[k], label, sizeof label);
        int w = snprintf(buf + used, len - used, "%s%.0f%% %s", k ? ", " : "",
                         pct(rows[k].ns, total), label);
        if (w < 0 || (size_t)w >= len - used)
            return;
        used += (size_t)w;
        rest -= rows[k].ns;
    }
    if (k < n && rest > 0)
        snprintf(buf + used, len - used, ", %.0f%% others", pct(rest, total));
}

void text_noise_causes_line(const struct noise_report_cpu *c, size_t max, char *buf, size_t len)
{
    causes_line(c->causes, c->ncauses, c->causes_ns, max, buf, len);
}

static void print_gap(FILE *out, const struct noise_report *rep, const struct spike *g)
{
    char len[32];
    format_duration(g->latency_ns, len, sizeof len);
    fprintf(out, "  CPU %-3d at %9.4f s  %-9s", g->cpu, (double)(g->wake_ns - rep->start_ns) / 1e9,
            len);
    for (unsigned j = 0; j < g->ncauses && j < SPIKE_CAUSES_MAX; j++) {
        const struct spike_cause *c = &g->causes[j];
        char ns[32], name[SAFE_TEXT_TERM_LEN(sizeof c->name)];
        format_duration(c->ns, ns, sizeof ns);
        safe_text_term(name, sizeof name, c->name);
        if (c->kind == CAUSE_THREAD && c->prio < 100)
            fprintf(out, "%s thread %s/%d %s %d %s", j ? "," : "", name, (int)c->pid,
                    explain_thread_policy(c->prio, c->policy), cause_user_priority(c->prio), ns);
        else if (c->kind == CAUSE_THREAD)
            fprintf(out, "%s thread %s/%d %s %s", j ? "," : "", name, (int)c->pid,
                    explain_thread_policy(c->prio, c->policy), ns);
        else
            fprintf(out, "%s %s%s%s %s", j ? "," : "", cause_kind_name(c->kind),
                    c->name[0] ? " " : "", name, ns);
    }
    fputc('\n', out);
}

/* One row of the summary table. */
static void summary_row(FILE *out, const char *label, int64_t noise_ns, int64_t measured_ns,
                        uint64_t gaps, int64_t floor_ns, const struct latency_hist *h,
                        int64_t max_ns, int64_t max_at_ns)
{
    char tot[32], fl[32], p50[32], p99[32], p9999[32], mx[32];
    format_duration(noise_ns, tot, sizeof tot);
    format_duration(floor_ns, fl, sizeof fl);
    format_duration(latency_hist_percentile(h, 50), p50, sizeof p50);
    format_duration(latency_hist_percentile(h, 99), p99, sizeof p99);
    format_duration(latency_hist_percentile(h, 99.99), p9999, sizeof p9999);
    format_duration(gaps ? max_ns : 0, mx, sizeof mx);
    fprintf(out, "%-4s %10s %8.4f%% %8llu %8s %9s %9s %9s %9s %8.3fs", label, tot,
            pct(noise_ns, measured_ns), (unsigned long long)gaps, fl, gaps ? p50 : "-",
            gaps ? p99 : "-", gaps ? p9999 : "-", gaps ? mx : "-", (double)max_at_ns / 1e9);
}

static void cpu_row(FILE *out, const struct noise_report_cpu *c)
{
    const struct noise_slot *s = c->slot;
    char label[16];
    snprintf(label, sizeof label, "%d", s->cpu);
    summary_row(out, label, s->noise_ns, s->measured_ns, s->gaps, s->iterations ? s->floor_ns : 0,
                &s->hist, s->stats.max, s->max_gap_end_ns);
    if (c->ring_drops)
        fprintf(out, "  (%llu gaps not seen by the collector)", (unsigned long long)c->ring_drops);
    fputc('\n', out);
}

static void cpu_notes(FILE *out, const struct noise_report_cpu *c)
{
    const struct noise_slot *s = c->slot;
    if (s->slices > 1) {
        char off[32];
        format_duration(s->off_ns, off, sizeof off);
        fprintf(out,
                "CPU %d: %llu slices; %s slept between them, left to the kernel and "
                "other tasks",
                s->cpu, (unsigned long long)s->slices, off);
        if (c->noff_causes) {
            char line[1024];
            causes_line(c->off_causes, c->noff_causes, c->off_causes_ns, 5, line, sizeof line);
            fprintf(out, ": %s", line);
        }
        fputc('\n', out);
    }
    if (!isnan(c->steal_pct) || c->smi >= 0) {
        fprintf(out, "CPU %d:", s->cpu);
        if (!isnan(c->steal_pct))
            fprintf(out, " steal %.2f%%", c->steal_pct);
        if (c->smi >= 0)
            fprintf(out, " SMIs %lld", (long long)c->smi);
        fputc('\n', out);
    }
}

/* Collapsed: the row of every CPU together, then the worst CPUs by their
 * longest gap (into *worst: the CPUs the sections below name). */
static void collapsed_rows(FILE *out, const struct noise_report *rep, struct text_many_top *worst)
{
    text_many_top_init(worst, true);
    for (int i = 0; i < rep->n; i++) {
        const struct noise_slot *s = rep->cpu[i].slot;
        text_many_top_add(worst, i, s->gaps ? (double)s->stats.max : 0);
    }
    int64_t max_at = worst->n ? rep->cpu[worst->idx[0]].slot->max_gap_end_ns : 0;
    summary_row(out, "all", rep->all_noise_ns, rep->all_measured_ns, rep->all_gaps,
                rep->all_floor_ns == INT64_MAX ? 0 : rep->all_floor_ns, rep->all_hist,
                rep->all_stats.max, max_at);
    fputc('\n', out);
    fprintf(out, "worst %d of %d CPUs by longest gap (every CPU: --per-cpu)\n", worst->n, rep->n);
    for (int k = 0; k < worst->n; k++)
        cpu_row(out, &rep->cpu[worst->idx[k]]);
    text_many_more(out, rep->n - worst->n);
}

/* Collapsed: the longest gaps of every CPU, longest first. */
static void longest_gaps_of_all(FILE *out, const struct noise_report *rep)
{
    enum { EACH = 5 };
    struct text_many_top top;
    text_many_top_init(&top, true);
    for (int i = 0; i < rep->n; i++)
        for (size_t k = 0; k < rep->cpu[i].nlargest && k < EACH; k++)
            text_many_top_add(&top, i * EACH + (int)k, (double)rep->cpu[i].largest[k].latency_ns);
    if (top.n == 0)
        return;
    fprintf(out, "\nlongest gaps (of every CPU):\n");
    for (int k = 0; k < top.n; k++)
        print_gap(out, rep, &rep->cpu[top.idx[k] / EACH].largest[top.idx[k] % EACH]);
}

void text_noise_summary(FILE *out, const struct noise_report *rep)
{
    char el[32];
    format_duration(rep->elapsed_ns, el, sizeof el);
    fprintf(out, "\nnoise over %s%s%s\n", el, rep->interrupted ? " (interrupted)" : "",
            rep->realtime || !rep->cfg->fifo ? "" : " (SCHED_FIFO refused: ran at SCHED_OTHER)");
    fprintf(out, "%-4s %10s %9s %8s %8s %9s %9s %9s %9s %9s\n", "CPU", "noise", "share", "gaps",
            "floor", "p50", "p99", "p99.99", "max", "max at");
    bool collapsed = text_many_collapsed(rep->n, rep->per_cpu);
    struct text_many_top worst;
    int shown = rep->n;
    if (collapsed) {
        collapsed_rows(out, rep, &worst);
        shown = worst.n;
    } else {
        for (int i = 0; i < rep->n; i++)
            cpu_row(out, &rep->cpu[i]);
    }
    /* the sections below name the CPUs of the table */
#define SHOWN(k) (&rep->cpu[collapsed ? worst.idx[(k)] : (k)])
    for (int k = 0; k < shown; k++)
        cpu_notes(out, SHOWN(k));
    if (strcmp(rep->method, "tracepoints") == 0) {
        fprintf(out, "\nnoise by cause (tracepoints%s):\n", collapsed ? ", the CPUs above" : "");
        for (int k = 0; k < shown; k++) {
            char line[1024];
            text_noise_causes_line(SHOWN(k), 6, line, sizeof line);
            fprintf(out, "  CPU %d: %s\n", SHOWN(k)->slot->cpu, line[0] ? line : "no noise");
        }
    } else if (rep->windows && rep->windows->nrows > 0) {
        fprintf(out, "\nwindows with gaps by what stood out (window method: what coincided, not "
                     "what caused each gap):\n");
        for (size_t r = 0; r < rep->windows->nrows; r++) {
            const struct window_summary_row *row = &rep->windows->row[r];
            char name[SAFE_TEXT_TERM_LEN(sizeof row->name)];
            fprintf(out, "  %3.0f%% of windows: %s %s\n", 100.0 * row->share, row->kind,
                    safe_text_term(name, sizeof name, row->name));
        }
    }
#undef SHOWN
    if (collapsed) {
        longest_gaps_of_all(out, rep);
        return;
    }
    bool any = false;
    for (int i = 0; i < rep->n; i++)
        any = any || rep->cpu[i].nlargest > 0;
    if (!any)
        return;
    fprintf(out, "\nlongest gaps:\n");
    for (int i = 0; i < rep->n; i++)
        for (size_t k = 0; k < rep->cpu[i].nlargest && k < 5; k++)
            print_gap(out, rep, &rep->cpu[i].largest[k]);
}
