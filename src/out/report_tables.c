/*
 * The report's tables of figures: per CPU the percentile table of each
 * result (and of its execution and response times), and per result the
 * spikes that --explain found with their causes and the summary by
 * dominant cause. Every figure is the document's own; nothing here
 * computes a statistic. Strings of documents (cause and comm names) are
 * escaped, and long lists are cut with a note saying how many are left out.
 */
#include <math.h>
#include <string.h>

#include "out/report_html_internal.h"
#include "out/report_json.h"

#define DASH         "\xe2\x80\x93"
#define SUMMARY_ROWS 30

static void count_cell(FILE *f, int64_t v)
{
    if (v == JR_ABSENT)
        fputs("<td class=\"na\">" DASH "</td>", f);
    else
        fprintf(f, "<td>%lld</td>", (long long)v);
}

static void stats_cells(FILE *f, const struct result_latency *s, bool pcts)
{
    int64_t v[7] = {JR_ABSENT, JR_ABSENT, JR_ABSENT, JR_ABSENT, JR_ABSENT, JR_ABSENT, JR_ABSENT};
    if (s->known) {
        int64_t all[7] = {s->min, s->p50, s->p90, s->p99, s->p999, s->p9999, s->max};
        memcpy(v, all, sizeof v);
    }
    static const int brief[] = {1, 3, 6}; /* p50, p99, max */
    for (int i = 0; i < (pcts ? 7 : 3); i++)
        report_ns_cell(f, v[pcts ? i : brief[i]]);
}

const struct report_cpu *report_cpu_row(struct report_ctx *c, int r, int cpu, int ncols)
{
    const struct report_cpu *rc = report_run_cpu(&c->in->run[r], cpu);
    fputs("<tr>", c->f);
    report_result_cell(c, r);
    if (!rc)
        fprintf(c->f, "<td class=\"na\" colspan=\"%d\">not measured</td></tr>\n", ncols);
    return rc;
}

/* The lowest and highest p99 of a group's single runs. */
static void run_spread_cell(FILE *f, const struct report_cpu *rc)
{
    if (rc->runs < 2 || rc->run_p99_min < 0) {
        fputs("<td class=\"na\">" DASH "</td>", f);
        return;
    }
    char gm[48], lo[48], hi[48];
    format_ns(rc->run_p99_geomean, gm, sizeof gm);
    format_ns((double)rc->run_p99_min, lo, sizeof lo);
    format_ns((double)rc->run_p99_max, hi, sizeof hi);
    fprintf(f, "<td>%s (%d runs: %s " DASH " %s)</td>", gm, rc->runs, lo, hi);
}

void report_percentile_table(struct report_ctx *c, int cpu)
{
    FILE *f = c->f;
    bool groups = false;
    for (int r = 0; r < c->in->nrun; r++)
        groups |= c->in->run[r].runs > 1;
    fputs("<table class=\"percentiles\"><tr><th class=\"text\">result</th><th>min</th>"
          "<th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>p99.99</th><th>max</th>"
          "<th>samples</th><th>missed</th><th>deadline misses</th>",
          f);
    fputs(groups ? "<th>p99 of the runs: geometric mean (lowest " DASH " highest)</th></tr>\n"
                 : "</tr>\n",
          f);
    for (int r = 0; r < c->in->nrun; r++) {
        const struct report_cpu *rc = report_cpu_row(c, r, cpu, groups ? 11 : 10);
        if (!rc)
            continue;
        stats_cells(f, &rc->core->latency, true);
        fprintf(f, "<td>%llu%s</td><td>%llu</td>", (unsigned long long)rc->core->samples,
                rc->core->overflow ? " <span class=\"flag\">(overflow)</span>" : "",
                (unsigned long long)rc->core->missed);
        count_cell(f, rc->deadline_misses);
        if (groups)
            run_spread_cell(f, rc);
        fputs("</tr>\n", f);
    }
    if (groups)
        fputs("</table>\n<p class=\"note\">A result of several runs (an experiment's step, "
              "report --group) is every run together, here and in the histogram and tail "
              "plots: the runs' histograms added, the percentiles read off the sum. Between "
              "groups of runs compare decides on each run's own percentile, and its table "
              "shows their geometric mean: that is the last column, with the lowest and "
              "highest of the runs' p99 (the run-to-run spread). The plots over time show "
              "the first run of each.</p>\n",
              f);
    else
        fputs("</table>\n", f);
    fputs("<p class=\"note\">Latency = actual wake-up time minus planned time. "
          "Percentiles as the documents give them (nearest rank, within half a histogram bin); "
          "missed = planned periods skipped because the previous cycle ended too late; "
          "deadline misses = cycles whose response time (latency + execution) exceeded the "
          "run's deadline, " DASH " when the run had none (neither --workload nor "
          "--deadline).</p>\n",
          f);
}

void report_exec_table(struct report_ctx *c, int cpu)
{
    FILE *f = c->f;
    fputs("<table class=\"exec\"><tr><th class=\"text\">result</th><th>exec p50</th>"
          "<th>exec p99</th><th>exec max</th><th>response p50</th><th>response p99</th>"
          "<th>response max</th><th>deadline misses</th></tr>\n",
          f);
    for (int r = 0; r < c->in->nrun; r++) {
        const struct report_cpu *rc = report_run_cpu(&c->in->run[r], cpu);
        if (!rc)
            continue;
        fputs("<tr>", f);
        report_result_cell(c, r);
        stats_cells(f, &rc->core->exec.stats, false);
        stats_cells(f, &rc->core->response.stats, false);
        count_cell(f, rc->deadline_misses);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* "thread disturb/1441 SCHED_FIFO 95", "irq eth0", "timer-irq-late". */
static void cause_text(FILE *f, const struct report_cause *k)
{
    markup_escape(f, k->kind, 40);
    if (k->name && k->name[0]) {
        fputc(' ', f);
        markup_escape(f, k->name, 64);
    }
    if (k->pid != JR_ABSENT)
        fprintf(f, "/%lld", (long long)k->pid);
    if (k->policy) {
        fputc(' ', f);
        markup_escape(f, k->policy, 16);
        if (k->priority != JR_ABSENT)
            fprintf(f, " %lld", (long long)k->priority);
    }
}

static void spike_causes(FILE *f, const struct report_spike *s, bool window)
{
    fputs("<td class=\"text\">", f);
    for (int k = 0; k < s->ncauses; k++) {
        const struct report_cause *x = &s->cause[k];
        if (k)
            fputs("; ", f);
        cause_text(f, x);
        char buf[48];
        if (!window && x->ns != JR_ABSENT) {
            format_ns((double)x->ns, buf, sizeof buf);
            fprintf(f, ": %s", buf);
        } else if (window && !isnan(x->value)) {
            fprintf(f, ": %.4g", x->value);
            if (!isnan(x->baseline))
                fprintf(f, " (usual %.4g)", x->baseline);
        }
    }
    if (s->causes_beyond)
        fprintf(f, "; and %d more", s->causes_beyond);
    if (s->events_lost)
        fputs(" <span class=\"flag\">events lost</span>", f);
    fputs("</td>", f);
}

static void spike_table(struct report_ctx *c, const struct report_run *run)
{
    FILE *f = c->f;
    bool w = run->window_method;
    fprintf(f,
            "<h3>%s</h3>\n<p class=\"note\">The %zu largest of %zu listed in the document, "
            "largest first.</p>\n",
            w ? "Telemetry windows with spikes" : "Spikes", run->nspike, run->spikes_listed);
    fprintf(f,
            "<table class=\"spikes\"><tr><th>CPU</th><th>t (s)</th><th>%s</th>%s"
            "<th class=\"text\">dominant</th><th class=\"text\">causes%s</th></tr>\n",
            w ? "max latency" : "latency", w ? "<th>spikes</th>" : "",
            w ? " (value against the CPU's usual)" : " (parts that add up to the latency)");
    for (size_t i = 0; i < run->nspike; i++) {
        const struct report_spike *s = &run->spike[i];
        fprintf(f, "<tr><td>%d</td><td>%.6f</td>", s->cpu, s->t_s);
        report_ns_cell(f, s->latency_ns);
        if (w)
            count_cell(f, s->spikes);
        fputs("<td class=\"text\">", f);
        if (s->has_dominant)
            cause_text(f, &s->dominant);
        else
            fputs(DASH, f);
        fputs("</td>", f);
        spike_causes(f, s, w);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void summary_table(struct report_ctx *c, const struct report_run *run)
{
    FILE *f = c->f;
    bool w = run->summary_method && strcmp(run->summary_method, "window") == 0;
    fputs("<h3>By dominant cause</h3>\n<p class=\"note\">spike_summary, method ", f);
    markup_escape(f, run->summary_method, 24);
    fputs(": every spike counted once under its largest part; a thread by its name, policy "
          "and priority, with the spikes of each pid.</p>\n",
          f);
    fprintf(f,
            "<table class=\"summary\"><tr><th class=\"text\">dominant cause</th><th>%s</th>"
            "<th>share</th>%s<th>max</th>%s</tr>\n",
            w ? "windows" : "spikes", w ? "<th>spikes</th>" : "<th>total</th>",
            w ? "" : "<th>median</th>");
    size_t shown = run->nrow < SUMMARY_ROWS ? run->nrow : SUMMARY_ROWS;
    for (size_t i = 0; i < shown; i++) {
        const struct report_cause_row *row = &run->row[i];
        bool several = row->npid > 1 || (row->npid && row->pids_other > 0);
        struct report_cause k = {
            row->kind, row->name, 0, several ? JR_ABSENT : row->pid, row->policy, row->priority,
            0,         0,         0};
        fputs("<tr><td class=\"text\">", f);
        cause_text(f, &k);
        for (size_t p = 0; several && p < row->npid; p++)
            fprintf(f, "%s%lld: %lld", p ? ", " : " (pids ", (long long)row->pids[p].pid,
                    (long long)row->pids[p].count);
        if (several && row->pids_other > 0)
            fprintf(f, ", others: %lld", (long long)row->pids_other);
        if (several)
            fputc(')', f);
        if (row->folded != JR_ABSENT && row->folded > 0)
            fprintf(f, " (%lld smaller causes folded)", (long long)row->folded);
        fputs("</td>", f);
        count_cell(f, row->count);
        if (isnan(row->share))
            fputs("<td class=\"na\">" DASH "</td>", f);
        else
            fprintf(f, "<td>%.1f%%</td>", row->share * 100);
        if (w)
            count_cell(f, row->spikes);
        else
            report_ns_cell(f, row->total_ns);
        report_ns_cell(f, row->max_ns);
        if (!w)
            report_ns_cell(f, row->median_ns);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    if (run->nrow > shown)
        fprintf(f, "<p class=\"note\">%zu more causes not shown.</p>\n", run->nrow - shown);
}

void report_spikes(struct report_ctx *c, int r)
{
    FILE *f = c->f;
    const struct report_run *run = &c->in->run[r];
    fprintf(f, "<section id=\"spikes%d\"><h2>Spikes: ", r);
    markup_escape(f, run->label, 0);
    fputs("</h2>\n<p>", f);
    if (run->explain_method) {
        fputs("Method: <b>", f);
        markup_escape(f, run->explain_method, 24);
        fputs("</b>", f);
    }
    if (run->explain_reason) {
        fputs(" (", f);
        markup_escape(f, run->explain_reason, 300);
        fputs(")", f);
    }
    char buf[48];
    if (run->explain_threshold_ns != JR_ABSENT) {
        format_ns((double)run->explain_threshold_ns, buf, sizeof buf);
        fprintf(f, ". Threshold %s", buf);
    } else if (run->has_explain) {
        fputs(". Threshold: the default rule, max(50 \xc2\xb5s, 10 \xc3\x97 the CPU's median)", f);
    }
    if (run->explain_spikes != JR_ABSENT)
        fprintf(f, "; %lld spikes detected", (long long)run->explain_spikes);
    if (run->explain_events_lost != JR_ABSENT && run->explain_events_lost > 0)
        fprintf(f, "; <span class=\"flag\">%lld trace events lost</span>",
                (long long)run->explain_events_lost);
    fputs(".</p>\n", f);
    if (run->summary_method)
        summary_table(c, run);
    if (run->nspike)
        spike_table(c, run);
    else
        fputs("<p class=\"note\">No spike listed.</p>\n", f);
    fputs("</section>\n", f);
}
