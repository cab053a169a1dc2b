/*
 * The metrics of one CPU entry (see compare.h and compare.c): with one run
 * on a side, a percentile by the quantile test (Fisher on the counts above
 * the pooled percentile's bucket) and the distribution-free interval of
 * each side's percentile, the maximum by how often one side beats the
 * other's maximum, rates by Fisher's exact test (or two Poisson rates);
 * with repeated runs on both sides, every metric by the exact permutation
 * test of the per-run values, intervals from Student's t on their logs with
 * every run's value known to its bucket only. A percentile is compared only
 * where every run has ten values or more beyond it. Then each verdict at
 * the level the caller set, and the entry's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/compare_internal.h"
#include "stats/exact_tests.h"

/* A percentile needs this many values beyond it in every run it is read
 * from: below that it is the maximum, or next to it. */
#define MIN_BEYOND 10

/* ---- the metrics -------------------------------------------------------- */

void compare_set_values(struct metric_result *m, double base, double value)
{
    m->present = true;
    m->baseline = base;
    m->value = value;
    m->has_ratio = true;
    m->ratio = base > 0 ? value / base : value > 0 ? INFINITY : 1;
    m->test = "none";
    m->verdict = VERDICT_NA;
}

void compare_set_p(struct metric_result *m, const char *test, double log_p, double min_log_p)
{
    m->test = test;
    m->has_p = true;
    m->log_p = fmin(0, log_p);
    m->p_value = exp(m->log_p);
    m->min_log_p = fmin(m->log_p, min_log_p);
}

void compare_insufficient(struct metric_result *m, const char *why)
{
    m->verdict = VERDICT_INSUFFICIENT;
    snprintf(m->why, sizeof m->why, "%s", why);
}

/* The per-run value of a percentile (or the maximum) of one distribution. */
static double run_value(const struct result_cpu *c, enum dist_id id, double pct)
{
    int nb;
    uint64_t of;
    const struct result_latency *st;
    compare_dist_bins(c, id, &nb, &of, &st);
    if (pct >= 100)
        return (double)st->max;
    return pct == 50     ? (double)st->p50
           : pct == 90   ? (double)st->p90
           : pct == 99   ? (double)st->p99
           : pct < 99.95 ? (double)st->p999
                         : (double)st->p9999;
}

static uint64_t run_count(const struct result_cpu *c, enum dist_id id)
{
    int nb;
    uint64_t of, n = 0;
    const struct result_latency *st;
    const struct result_bin *b = compare_dist_bins(c, id, &nb, &of, &st);
    for (int i = 0; i < nb; i++)
        n += b[i].count;
    return n + of;
}

/* The label of a percentile for people: 99.99 -> "p99.99". */
static void pct_label(char *buf, size_t len, double pct)
{
    snprintf(buf, len, "p%g", pct);
}

/* Too few values beyond the percentile in some run (or in the pooled
 * side): then it is the maximum or next to it, and not compared. */
static bool too_few_beyond(const struct ctx *x, enum dist_id id, double pct,
                           struct metric_result *m)
{
    if (pct >= 100)
        return false;
    const struct side *sides[2] = {x->a, x->b};
    for (int k = 0; k < 2; k++)
        for (int r = 0; r < sides[k]->n; r++) {
            uint64_t n = x->between ? run_count(sides[k]->run[r], id) : sides[k]->dist[id].d.n;
            if ((double)n * (1 - pct / 100) < MIN_BEYOND - 1e-6) {
                char label[16], why[96];
                pct_label(label, sizeof label, pct);
                snprintf(why, sizeof why, "%s needs %.0f values a %s, one has %llu", label,
                         ceil(MIN_BEYOND / (1 - pct / 100) - 1e-6), x->between ? "run" : "side",
                         (unsigned long long)n);
                compare_insufficient(m, why);
                return true;
            }
            if (!x->between)
                break;
        }
    return false;
}

/* The permutation test on per-run values (logs of latencies, or raw
 * rates); the values shown become the runs' geometric (latencies) or
 * arithmetic (rates) means. */
static bool permutation_metric(const struct ctx *x, const double *va, int na, const double *vb,
                               int nb, bool logs, struct metric_result *m)
{
    struct perm_result pr;
    if (perm_test(va, (size_t)na, vb, (size_t)nb, x->cfg->reps, x->cfg->seed, &pr) != 0)
        return false;
    compare_set_p(m, "permutation", pr.log_p, pr.min_log_p);
    if (logs) {
        m->baseline = exp(pr.mean_a);
        m->value = exp(pr.mean_b);
        m->ratio = exp(pr.mean_b - pr.mean_a);
    }
    return true;
}

/* Between runs: the permutation test on the logs of the per-run values, and
 * the t interval of their ratio. A run's value is known to its bucket only,
 * so each side's variance is at least that of a value spread evenly over a
 * bucket (w^2 / 12 on the log scale): a bucket's coincidence is no evidence. */
static void between_runs(const struct ctx *x, enum dist_id id, double pct, double band,
                         struct metric_result *m)
{
    double va[64], vb[64];
    int na = x->a->n < COMPARE_MAX_RUNS_PER_ARM ? x->a->n : COMPARE_MAX_RUNS_PER_ARM,
        nb = x->b->n < COMPARE_MAX_RUNS_PER_ARM ? x->b->n : COMPARE_MAX_RUNS_PER_ARM;
    for (int r = 0; r < na; r++)
        va[r] = log(fmax(run_value(x->a->run[r], id, pct), 1));
    for (int r = 0; r < nb; r++)
        vb[r] = log(fmax(run_value(x->b->run[r], id, pct), 1));
    if (!permutation_metric(x, va, na, vb, nb, true, m))
        return;
    double mean_a = log(m->baseline), mean_b = log(m->value);
    double floor_var = pow(log1p(band), 2) / 12, va_s = 0, vb_s = 0;
    for (int r = 0; r < na; r++)
        va_s += (va[r] - mean_a) * (va[r] - mean_a);
    for (int r = 0; r < nb; r++)
        vb_s += (vb[r] - mean_b) * (vb[r] - mean_b);
    double vara = fmax(va_s / (na - 1), floor_var) / na,
           varb = fmax(vb_s / (nb - 1), floor_var) / nb;
    double se = sqrt(vara + varb);
    double df = (vara + varb) * (vara + varb) / (vara * vara / (na - 1) + varb * varb / (nb - 1));
    if (!(se > 0))
        return;
    /* the t quantile of the level, by bisection on the tail */
    double target = log(x->alpha / 2), lo = 0, hi = 1e6;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (student_t_log_sf(mid, df) > target)
            lo = mid;
        else
            hi = mid;
    }
    m->has_ci = true;
    m->ci_lo = exp(mean_b - mean_a - hi * se);
    m->ci_hi = exp(mean_b - mean_a + hi * se);
}

/* The quantile test: how many of each side lie above the bucket of the
 * pooled percentile, by Fisher's test (Mood's test, for any quantile); the
 * interval of the ratio from each side's distribution-free interval, both
 * at 1 - level / 2, so that the ratio's holds with 1 - level. */
static void quantile_within(const struct ctx *x, enum dist_id id, double pct,
                            struct metric_result *m)
{
    const struct pooled *pa = &x->a->dist[id], *pb = &x->b->dist[id];
    /* the pooled percentile's bucket: the same grid on both sides */
    uint64_t n = pa->d.n + pb->d.n, rank = (uint64_t)ceil(pct / 100 * (double)n), seen = 0;
    size_t i = 0, j = 0;
    int64_t threshold = pa->d.max_ns > pb->d.max_ns ? pa->d.max_ns : pb->d.max_ns;
    while (i < pa->d.nbins || j < pb->d.nbins) {
        bool take_a = j >= pb->d.nbins || (i < pa->d.nbins && pa->d.bins[i].lo <= pb->d.bins[j].lo);
        const struct hbin *bin = take_a ? &pa->d.bins[i++] : &pb->d.bins[j++];
        seen += bin->count;
        if (seen >= rank) {
            threshold = bin->lo;
            break;
        }
    }
    uint64_t ka = hdist_above(&pa->d, threshold), kb = hdist_above(&pb->d, threshold);
    struct exact_p p = fisher_test(ka, pa->d.n, kb, pb->d.n);
    compare_set_p(m, "quantile", p.log_p, p.min_log_p);
    double alo, ahi, blo, bhi;
    int ra = hdist_quantile_ci(&pa->d, pct, x->alpha / 2, pa->min_ns, &alo, &ahi);
    int rb = hdist_quantile_ci(&pb->d, pct, x->alpha / 2, pb->min_ns, &blo, &bhi);
    if (ra < 0 || rb < 0)
        return;
    m->has_ci = true;
    m->ci_lo = ahi > 0 && isfinite(ahi) ? blo / ahi : 0;
    m->ci_hi = alo > 0 ? bhi / alo : INFINITY;
}

void compare_percentile_metric(const struct ctx *x, enum dist_id id, double pct, double band,
                               struct metric_result *m)
{
    const struct pooled *pa = &x->a->dist[id], *pb = &x->b->dist[id];
    if (!pa->present || !pb->present || pa->d.n == 0 || pb->d.n == 0)
        return;
    compare_set_values(m, (double)hdist_percentile(&pa->d, pct, pa->min_ns),
                       (double)hdist_percentile(&pb->d, pct, pb->min_ns));
    if (too_few_beyond(x, id, pct, m))
        return;
    if (x->between)
        between_runs(x, id, pct, band, m);
    else
        quantile_within(x, id, pct, m);
}

/* The maximum: how many of B's values lie above A's largest bucket (and
 * the other way round), against the chance of that by luck. */
void compare_max_metric(const struct ctx *x, enum dist_id id, double band, struct metric_result *m)
{
    const struct pooled *pa = &x->a->dist[id], *pb = &x->b->dist[id];
    if (!pa->present || !pb->present || pa->d.n == 0 || pb->d.n == 0)
        return;
    compare_set_values(m, (double)pa->d.max_ns, (double)pb->d.max_ns);
    if (x->between) {
        between_runs(x, id, 100, band, m);
        return;
    }
    uint64_t kb = hdist_above(&pb->d, pa->d.max_ns), ka = hdist_above(&pa->d, pb->d.max_ns);
    double lw = beats_max_log_p(kb, pa->d.n, pb->d.n), lb = beats_max_log_p(ka, pb->d.n, pa->d.n);
    /* one of the two can be small; two-sided by doubling the smaller */
    double most = fmin(beats_max_log_p(pb->d.n, pa->d.n, pb->d.n),
                       beats_max_log_p(pa->d.n, pb->d.n, pa->d.n));
    compare_set_p(m, "exceedance", log(2) + fmin(lw, lb), log(2) + most);
}

void compare_rate_metric(const struct ctx *x, uint64_t ka, uint64_t na, uint64_t kb, uint64_t nb,
                         bool per_time, double (*per_run)(const struct result_cpu *, int64_t),
                         int64_t arg, struct metric_result *m)
{
    if (na == 0 || nb == 0)
        return;
    compare_set_values(m, (double)ka / (double)na, (double)kb / (double)nb);
    if (x->between && per_run) {
        double va[64], vb[64];
        int n_a = x->a->n < COMPARE_MAX_RUNS_PER_ARM ? x->a->n : COMPARE_MAX_RUNS_PER_ARM,
            n_b = x->b->n < COMPARE_MAX_RUNS_PER_ARM ? x->b->n : COMPARE_MAX_RUNS_PER_ARM;
        for (int r = 0; r < n_a; r++)
            va[r] = per_run(x->a->run[r], arg);
        for (int r = 0; r < n_b; r++)
            vb[r] = per_run(x->b->run[r], arg);
        if (permutation_metric(x, va, n_a, vb, n_b, false, m))
            return;
    }
    struct exact_p p =
        per_time ? poisson_rate_test(ka, (double)na, kb, (double)nb) : fisher_test(ka, na, kb, nb);
    compare_set_p(m, per_time ? "poisson" : "fisher", p.log_p, p.min_log_p);
}

static double missed_rate(const struct result_cpu *c, int64_t unused)
{
    (void)unused;
    uint64_t n = c->samples + c->missed;
    return n ? (double)c->missed / (double)n : 0;
}

static double deadline_rate(const struct result_cpu *c, int64_t unused)
{
    (void)unused;
    return c->samples ? (double)c->deadline_misses / (double)c->samples : 0;
}

/* The share of one run's latencies above the bucket of threshold_ns. */
static double exceed_rate(const struct result_cpu *c, int64_t threshold_ns)
{
    uint64_t k = c->overflow;
    for (int i = 0; i < c->nbins; i++)
        if (c->bins[i].lo > threshold_ns)
            k += c->bins[i].count;
    return c->samples ? (double)k / (double)c->samples : 0;
}

static void exceed_metric(const struct ctx *x, int64_t threshold_ns, struct metric_result *m)
{
    const struct pooled *pa = &x->a->dist[DIST_LATENCY], *pb = &x->b->dist[DIST_LATENCY];
    if (!pa->present || !pb->present || pa->d.n == 0 || pb->d.n == 0 || threshold_ns < 0)
        return;
    uint64_t ka = hdist_above(&pa->d, threshold_ns), kb = hdist_above(&pb->d, threshold_ns);
    compare_rate_metric(x, ka, pa->d.n, kb, pb->d.n, false, exceed_rate, threshold_ns, m);
}

/* The resolution of a quantile of the baseline: its bucket's relative
 * width (0 for rates). */
static double resolution(const struct ctx *x, enum dist_id id, double pct)
{
    return hdist_resolution(&x->a->dist[id].d, pct);
}

static const struct quantile_metric {
    enum compare_metric m;
    enum dist_id d;
    double pct; /* 100: the maximum */
} quantile_metrics[] = {
    {METRIC_P50, DIST_LATENCY, 50},           {METRIC_P90, DIST_LATENCY, 90},
    {METRIC_P99, DIST_LATENCY, 99},           {METRIC_P999, DIST_LATENCY, 99.9},
    {METRIC_P9999, DIST_LATENCY, 99.99},      {METRIC_MAX, DIST_LATENCY, 100},
    {METRIC_EXEC_P50, DIST_EXEC, 50},         {METRIC_EXEC_P99, DIST_EXEC, 99},
    {METRIC_EXEC_MAX, DIST_EXEC, 100},        {METRIC_RESPONSE_P50, DIST_RESPONSE, 50},
    {METRIC_RESPONSE_P99, DIST_RESPONSE, 99}, {METRIC_RESPONSE_MAX, DIST_RESPONSE, 100},
};

/* The distribution and percentile of a percentile or maximum metric; NULL
 * for the others. */
static const struct quantile_metric *quantile_metric_of(enum compare_metric k)
{
    for (size_t i = 0; i < sizeof quantile_metrics / sizeof quantile_metrics[0]; i++)
        if (quantile_metrics[i].m == k)
            return &quantile_metrics[i];
    return NULL;
}

/* The resolution band of a metric: the baseline's bucket width for
 * percentiles and maxima, none for rates. */
static double band_of(const struct ctx *x, enum compare_metric k)
{
    const struct quantile_metric *q = quantile_metric_of(k);
    return q ? resolution(x, q->d, q->pct) : 0;
}

void compare_quantile_metric(const struct ctx *x, enum compare_metric k, struct metric_result *m)
{
    const struct quantile_metric *q = quantile_metric_of(k);
    if (!q)
        return;
    double band = resolution(x, q->d, q->pct);
    if (q->pct >= 100)
        compare_max_metric(x, q->d, band, m);
    else
        compare_percentile_metric(x, q->d, q->pct, band, m);
}

/* better/worse when significant at the level, the ratio beyond the band
 * [1 - w, 1 + w] and the interval (where there is one) clear of 1; else no
 * difference. */
static enum verdict decide(const struct metric_result *m, double level, double band)
{
    if (m->log_p >= log(level) || !m->has_ratio)
        return VERDICT_SAME;
    if (m->ratio > 1 + band && (!m->has_ci || m->ci_lo > 1))
        return VERDICT_WORSE;
    if (m->ratio < 1 - band && (!m->has_ci || m->ci_hi < 1))
        return VERDICT_BETTER;
    return VERDICT_SAME;
}

void compare_cpu(struct ctx *x, struct cpu_comparison *c)
{
    struct metric_result *m = c->m;
    if (x->noise) {
        compare_noise_cpu(x, c);
        compare_decide_all(x, c);
        return;
    }
    compare_set_values(&m[METRIC_SAMPLES], (double)x->a->samples / x->a->n,
                       (double)x->b->samples / x->b->n);
    compare_rate_metric(x, x->a->missed, x->a->samples + x->a->missed, x->b->missed,
                        x->b->samples + x->b->missed, false, missed_rate, 0, &m[METRIC_MISSED]);
    if (x->a->has_deadline_misses && x->b->has_deadline_misses && x->a->dist[DIST_EXEC].present &&
        x->b->dist[DIST_EXEC].present)
        compare_rate_metric(x, x->a->deadline_misses, x->a->samples, x->b->deadline_misses,
                            x->b->samples, false, deadline_rate, 0, &m[METRIC_DEADLINE_MISSES]);
    const struct pooled *la = &x->a->dist[DIST_LATENCY], *lb = &x->b->dist[DIST_LATENCY];
    if (la->present && lb->present)
        compare_set_values(&m[METRIC_MIN], (double)la->min_ns, (double)lb->min_ns);
    for (size_t i = 0; i < sizeof quantile_metrics / sizeof quantile_metrics[0]; i++)
        compare_quantile_metric(x, quantile_metrics[i].m, &m[quantile_metrics[i].m]);
    if (la->present && la->d.n > 0) {
        /* strictly above the bucket of the baseline's p99.9 */
        int64_t t = hdist_percentile(&la->d, 99.9, la->min_ns);
        exceed_metric(x, t, &m[METRIC_EXCEED_P999]);
    }
    if (x->budget_ns >= 0)
        exceed_metric(x, x->budget_ns, &m[METRIC_EXCEED_BUDGET]);
    if (la->present && lb->present && la->d.n > 0 && lb->d.n > 0)
        c->has_rank = rank_test(&la->d, &lb->d, &c->rank) == 0;
    compare_decide_all(x, c);
}

/* Each tested metric's verdict at the level, and the entry's. A test that
 * cannot reach the level (too few runs, too few events) is not tested. */
void compare_decide_all(const struct ctx *x, struct cpu_comparison *c)
{
    struct metric_result *m = c->m;
    double alpha = x->alpha;
    c->tested = 0;
    c->alpha = alpha;
    bool worse = false, better = false;
    for (int k = 0; k < COMPARE_METRICS; k++) {
        if (!m[k].present || !m[k].has_p || m[k].verdict == VERDICT_INSUFFICIENT)
            continue;
        if (m[k].min_log_p > log(alpha) && m[k].value == m[k].baseline) {
            m[k].verdict = VERDICT_SAME; /* nothing happened on either side */
            continue;
        }
        if (m[k].min_log_p > log(alpha)) {
            char why[96];
            snprintf(why, sizeof why, "%s: its smallest p is %.3g, above the level %.3g",
                     x->between ? "too few runs" : "too few events", exp(m[k].min_log_p), alpha);
            compare_insufficient(&m[k], why);
            continue;
        }
        c->tested++;
        m[k].verdict = decide(&m[k], alpha, band_of(x, (enum compare_metric)k));
        if (m[k].verdict == VERDICT_SAME && m[k].has_ci &&
            compare_metric_is_percentile((enum compare_metric)k) &&
            (m[k].ci_lo <= 0 || !isfinite(m[k].ci_hi)) && m[k].log_p < log(alpha))
            compare_insufficient(&m[k], "its interval is not bounded at the level");
        /* the median also needs the rank test to agree: a shift of the
         * whole distribution, not of the bucket the median fell in */
        if (k == METRIC_P50 && !x->between && c->has_rank &&
            (m[k].verdict == VERDICT_WORSE || m[k].verdict == VERDICT_BETTER) &&
            (c->rank.log_p >= log(alpha) ||
             (m[k].verdict == VERDICT_WORSE) != (c->rank.p_greater > 0.5)))
            m[k].verdict = VERDICT_SAME;
        worse |= m[k].verdict == VERDICT_WORSE;
        better |= m[k].verdict == VERDICT_BETTER;
    }
    c->verdict = worse ? VERDICT_WORSE : better ? VERDICT_BETTER : VERDICT_SAME;
}
