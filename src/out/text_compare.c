/*
 * The comparison table (see text_compare.h). Nanosecond values print in
 * the unit that suits them (ns, us, ms, s), rates as percentages, gaps
 * per second as such. Noise documents show their noise share and gap rate
 * first, then the gap lengths.
 */
#include "out/text_compare.h"

#include <math.h>
#include <string.h>

#include "common/safe_text.h"

/* A p value from its log: tiny ones as 3.2e-71 or 1.0e-1234, never 0. */
static void p_text(char *buf, size_t len, double log_p)
{
    double l10 = log_p / log(10);
    if (l10 > -300) {
        snprintf(buf, len, "%.3g", exp(log_p));
        return;
    }
    double e = floor(l10);
    snprintf(buf, len, "%.1fe%.0f", pow(10, l10 - e), e);
}

static void value_text(char *buf, size_t len, const char *unit, double v)
{
    if (strcmp(unit, "rate") == 0)
        snprintf(buf, len, "%.4f%%", v * 100);
    else if (strcmp(unit, "per_s") == 0)
        snprintf(buf, len, "%.1f/s", v);
    else if (strcmp(unit, "count") == 0)
        snprintf(buf, len, "%.0f", v);
    else if (v < 1e3)
        snprintf(buf, len, "%.0f ns", v);
    else if (v < 1e6)
        snprintf(buf, len, "%.2f us", v / 1e3);
    else if (v < 1e9)
        snprintf(buf, len, "%.3f ms", v / 1e6);
    else
        snprintf(buf, len, "%.3f s", v / 1e9);
}

static const char *metric_label(enum compare_metric k)
{
    static const char *const labels[COMPARE_METRICS] = {[METRIC_SAMPLES] = "samples",
                                                        [METRIC_MISSED] = "missed",
                                                        [METRIC_DEADLINE_MISSES] = "dl-misses",
                                                        [METRIC_MIN] = "min",
                                                        [METRIC_P50] = "p50",
                                                        [METRIC_P90] = "p90",
                                                        [METRIC_P99] = "p99",
                                                        [METRIC_P999] = "p99.9",
                                                        [METRIC_P9999] = "p99.99",
                                                        [METRIC_MAX] = "max",
                                                        [METRIC_EXEC_P50] = "exec p50",
                                                        [METRIC_EXEC_P99] = "exec p99",
                                                        [METRIC_EXEC_MAX] = "exec max",
                                                        [METRIC_RESPONSE_P50] = "resp p50",
                                                        [METRIC_RESPONSE_P99] = "resp p99",
                                                        [METRIC_RESPONSE_MAX] = "resp max",
                                                        [METRIC_EXCEED_P999] = "> base p99.9",
                                                        [METRIC_EXCEED_BUDGET] = "> budget",
                                                        [METRIC_NOISE_SHARE] = "noise share",
                                                        [METRIC_GAP_RATE] = "gaps/s"};
    return labels[k];
}

/* Noise documents: their own figures first, then the gap lengths. */
static const enum compare_metric noise_order[] = {METRIC_NOISE_SHARE, METRIC_GAP_RATE, METRIC_P50,
                                                  METRIC_P99,         METRIC_P9999,    METRIC_MAX};

/* The tail verdict under an entry's table: the exceedance rates at the
 * shared threshold, the exact test, and the 1e-9 levels beside it. */
static void tail_lines(FILE *out, const struct tail_comparison *t, bool colour)
{
    const char *on = "", *off = "";
    if (colour && t->verdict == VERDICT_WORSE)
        on = "\033[31m", off = "\033[0m";
    else if (colour && t->verdict == VERDICT_BETTER)
        on = "\033[32m", off = "\033[0m";
    fprintf(out, "  tail (not part of --fail-if-worse): %s%s%s", on, verdict_name(t->verdict), off);
    if (t->threshold_ns >= 0) {
        char thr[32], p[24];
        value_text(thr, sizeof thr, "ns", (double)t->threshold_ns);
        p_text(p, sizeof p, t->log_p);
        fprintf(out,
                "; at or above %s (the baseline's p99.9, its next bucket edge): %.4f%% "
                "against %.4f%%, fisher p = %s\n",
                thr, 100.0 * (double)t->exceed_a / (double)t->n_a,
                100.0 * (double)t->exceed_b / (double)t->n_b, p);
    } else {
        fputc('\n', out);
    }
    if (t->has_levels) {
        char a[32], b[32], lo[16] = "?", hi[16] = "?";
        value_text(a, sizeof a, "ns", t->level_a);
        value_text(b, sizeof b, "ns", t->level_b);
        if (!isnan(t->ratio_lo))
            snprintf(lo, sizeof lo, "%.3f", t->ratio_lo);
        if (isinf(t->ratio_hi))
            snprintf(hi, sizeof hi, "inf");
        else if (!isnan(t->ratio_hi))
            snprintf(hi, sizeof hi, "%.3f", t->ratio_hi);
        fprintf(out,
                "    latency exceeded once in 1e9 cycles (tail fit): %s against %s, ratio %.3f "
                "[%s, %s]\n",
                a, b, t->ratio, lo, hi);
    }
    if (t->why[0]) {
        char why[sizeof t->why];
        safe_text_term(why, sizeof why, t->why);
        fprintf(out, "    %s\n", why);
    }
}

static void cpu_table(FILE *out, const struct cpu_comparison *c, const char *base,
                      const char *other, bool colour, bool noise)
{
    char title[32];
    if (c->cpu < 0)
        snprintf(title, sizeof title, "all CPUs");
    else
        snprintf(title, sizeof title, "CPU %d", c->cpu);
    char level[24];
    snprintf(level, sizeof level, "%.4g%% CI", 100 * (1 - c->alpha));
    fprintf(out, "  %-13s %13s %13s %8s  %-17s %-11s %9s  %s\n", title, base, other, "ratio", level,
            "test", "p", "verdict");
    int nrows = noise ? (int)(sizeof noise_order / sizeof noise_order[0]) : COMPARE_METRICS;
    for (int row = 0; row < nrows; row++) {
        int k = noise ? (int)noise_order[row] : row;
        const struct metric_result *m = &c->m[k];
        if (!m->present)
            continue;
        const char *unit = compare_metric_unit((enum compare_metric)k);
        char a[32], b[32], ratio[16] = "-", ci[32] = "", p[24] = "-";
        value_text(a, sizeof a, unit, m->baseline);
        value_text(b, sizeof b, unit, m->value);
        if (m->has_ratio && isinf(m->ratio))
            snprintf(ratio, sizeof ratio, "inf");
        else if (m->has_ratio)
            snprintf(ratio, sizeof ratio, "%.3f", m->ratio);
        if (m->has_ci && isfinite(m->ci_hi))
            snprintf(ci, sizeof ci, "[%.3f, %.3f]", m->ci_lo, m->ci_hi);
        else if (m->has_ci)
            snprintf(ci, sizeof ci, "[%.3f, inf]", m->ci_lo);
        if (m->has_p)
            p_text(p, sizeof p, m->log_p);
        const char *on = "", *off = "";
        if (colour && m->verdict == VERDICT_WORSE)
            on = "\033[31m", off = "\033[0m";
        else if (colour && m->verdict == VERDICT_BETTER)
            on = "\033[32m", off = "\033[0m";
        char label[32];
        snprintf(label, sizeof label, "%s%s",
                 noise && compare_metric_unit((enum compare_metric)k)[0] == 'n' ? "gap " : "",
                 metric_label((enum compare_metric)k));
        fprintf(out, "  %-13s %13s %13s %s%8s%s  %-17s %-11s %9s  %s%s%s\n", label, a, b, on, ratio,
                off, ci, m->test, p, on, verdict_name(m->verdict), off);
    }
    for (int row = 0; row < nrows; row++) {
        int k = noise ? (int)noise_order[row] : row;
        const struct metric_result *m = &c->m[k];
        if (m->present && m->verdict == VERDICT_INSUFFICIENT)
            fprintf(out, "    %s: insufficient data: %s\n", metric_label((enum compare_metric)k),
                    m->why);
    }
    if (c->has_rank) {
        char p[24];
        p_text(p, sizeof p, c->rank.log_p);
        fprintf(out,
                "  pooled rank test (descriptive: takes every sample as independent; it only "
                "vetoes a p50 verdict): P(%s > %s) = %.3f, p = %s\n",
                other, base, c->rank.p_greater, p);
    }
    if (c->tail.present)
        tail_lines(out, &c->tail, colour);
}

void text_compare(FILE *out, const struct compare_input *in, int narms,
                  const struct arm_comparison *cmp, const struct compare_family *fam, bool colour)
{
    /* labels are file names or given on the command line: any bytes */
    char base[256], other[256];
    safe_text_term(base, sizeof base, in[0].label);
    fprintf(out, "jitterlab compare: baseline %s (%d %s%s)\n", base, in[0].nfiles,
            narms > 1 && cmp[0].noise ? "noise run" : "run", in[0].nfiles == 1 ? "" : "s");
    fprintf(out,
            "alpha %.3g for the whole comparison: %d of %d tests can reach a verdict; each "
            "verdict is taken at\np < %.3g (alpha / %d, Tarone's procedure), intervals at "
            "%.4g%%\n",
            fam->alpha, fam->reachable, fam->candidates, fam->level, fam->family,
            100 * (1 - fam->level));
    for (int a = 1; a < narms; a++) {
        const struct arm_comparison *c = &cmp[a - 1];
        safe_text_term(other, sizeof other, in[a].label);
        fprintf(out, "\n%s against %s (%d run%s%s): %s\n", other, base, in[a].nfiles,
                in[a].nfiles == 1 ? "" : "s",
                c->between_runs ? "; the spread between runs decides" : "",
                verdict_name(c->verdict));
        if (!c->between_runs)
            fprintf(out, "  (one run on a side: the verdicts know the noise within a run, not "
                         "the drift between runs;\n   repeat the runs and compare --group, or "
                         "use jitterlab experiment)\n");
        /* the merged entry first, single CPUs after it when there are several */
        cpu_table(out, &c->cpu[c->ncpus - 1], base, other, colour, c->noise);
        for (int i = 0; c->ncpus > 2 && i < c->ncpus - 1; i++) {
            fputc('\n', out);
            cpu_table(out, &c->cpu[i], base, other, colour, c->noise);
        }
    }
}
