/*
 * The comparison of two arms (see compare.h). Per CPU entry: each side's
 * runs are pooled into one histogram per distribution (the buckets are the
 * same log-linear ones in every document, so pooling sums counts); the
 * per-run figures stay for the between-run test. With one run on a side:
 * a percentile by the quantile test (Fisher on the counts above the pooled
 * percentile's bucket) and the distribution-free interval of each side's
 * percentile; the maximum by how often one side beats the other's maximum;
 * rates (missed periods, deadline misses, values above the baseline's p99.9
 * or the budget) by Fisher's exact test. With repeated runs on both sides:
 * every metric by the exact permutation test of the per-run values (logs
 * for latencies), intervals from Student's t on the same logs with every
 * run's value known to its bucket only. A percentile is compared only
 * where every run has ten values or more beyond it. Noise documents: the
 * gap histograms take the place of the latency ones; gaps per second is
 * the exact test of two Poisson rates over the time measured; the noise
 * share by Welch on the share of each report window (the nanoseconds of
 * one gap are not independent trials, so no count test applies to them).
 * compare_all runs the comparison twice: once to collect what every test
 * could reach (Tarone's family), once to decide at alpha / family.
 */
#include "compare/compare.h"
#include "compare/compare_internal.h"

#include "stats/exact_tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_REPS 4000
/* A percentile needs this many values beyond it in every run it is read
 * from: below that it is the maximum, or next to it. */
#define MIN_BEYOND 10

static const struct {
    const char *key, *unit;
    bool percentile;
} metric_info[COMPARE_METRICS] = {
    [METRIC_SAMPLES] = {"samples", "count", false},
    [METRIC_MISSED] = {"missed", "rate", false},
    [METRIC_DEADLINE_MISSES] = {"deadline_misses", "rate", false},
    [METRIC_MIN] = {"min", "ns", false},
    [METRIC_P50] = {"p50", "ns", true},
    [METRIC_P90] = {"p90", "ns", true},
    [METRIC_P99] = {"p99", "ns", true},
    [METRIC_P999] = {"p999", "ns", true},
    [METRIC_P9999] = {"p9999", "ns", true},
    [METRIC_MAX] = {"max", "ns", false},
    [METRIC_EXEC_P50] = {"exec_p50", "ns", true},
    [METRIC_EXEC_P99] = {"exec_p99", "ns", true},
    [METRIC_EXEC_MAX] = {"exec_max", "ns", false},
    [METRIC_RESPONSE_P50] = {"response_p50", "ns", true},
    [METRIC_RESPONSE_P99] = {"response_p99", "ns", true},
    [METRIC_RESPONSE_MAX] = {"response_max", "ns", false},
    [METRIC_EXCEED_P999] = {"exceed_p999", "rate", false},
    [METRIC_EXCEED_BUDGET] = {"exceed_budget", "rate", false},
    [METRIC_NOISE_SHARE] = {"noise_share", "rate", false},
    [METRIC_GAP_RATE] = {"gaps_per_s", "per_s", false},
};

const char *compare_metric_key(enum compare_metric m)
{
    return metric_info[m].key;
}

const char *compare_metric_unit(enum compare_metric m)
{
    return metric_info[m].unit;
}

bool compare_metric_is_percentile(enum compare_metric m)
{
    return metric_info[m].percentile;
}

const char *verdict_name(enum verdict v)
{
    return v == VERDICT_WORSE          ? "worse"
           : v == VERDICT_BETTER       ? "better"
           : v == VERDICT_SAME         ? "no-difference"
           : v == VERDICT_INSUFFICIENT ? "insufficient-data"
                                       : "n/a";
}

/* ---- one side of one CPU entry ----------------------------------------- */

static const struct result_bin *dist_bins(const struct result_cpu *c, enum dist_id id, int *nbins,
                                          uint64_t *overflow, const struct result_latency **st)
{
    if (id == DIST_LATENCY) {
        *nbins = c->nbins;
        *overflow = c->overflow;
        *st = &c->latency;
        return c->bins;
    }
    const struct result_dist *d = id == DIST_EXEC ? &c->exec : &c->response;
    *nbins = d->present ? d->nbins : 0;
    *overflow = d->present ? d->overflow : 0;
    *st = d->present ? &d->stats : NULL;
    return d->present ? d->bins : NULL;
}

/* Sums the runs' buckets of one distribution into one ascending list.
 * Execution and response times count only where every run had a workload
 * or counters: without them they time the loop's own bookkeeping. */
static int pool(struct side *s, const struct compare_arm *arm, enum dist_id id)
{
    struct pooled *p = &s->dist[id];
    for (int r = 0; id != DIST_LATENCY && r < arm->nruns; r++)
        if (!arm->runs[r].control_task)
            return 0;
    size_t cap = 0;
    p->present = true;
    p->min_ns = INT64_MAX;
    p->d.max_ns = INT64_MIN;
    for (int r = 0; r < s->n; r++) {
        int nb;
        uint64_t of;
        const struct result_latency *st;
        dist_bins(s->run[r], id, &nb, &of, &st);
        if (!st || !st->known) {
            p->present = false;
            return 0;
        }
        cap += (size_t)nb;
        p->min_ns = st->min < p->min_ns ? st->min : p->min_ns;
        p->d.max_ns = st->max > p->d.max_ns ? st->max : p->d.max_ns;
    }
    p->bins = calloc(cap ? cap : 1, sizeof *p->bins);
    if (!p->bins)
        return -1;
    size_t n = 0;
    for (int r = 0; r < s->n; r++) {
        int nb;
        uint64_t of;
        const struct result_latency *st;
        const struct result_bin *b = dist_bins(s->run[r], id, &nb, &of, &st);
        p->d.overflow += of;
        p->d.n += of;
        for (int i = 0; i < nb; i++) {
            /* insertion into the sorted list; runs have the same buckets, so
             * most land on an existing one */
            size_t lo = 0, hi = n;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (p->bins[mid].lo < b[i].lo)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < n && p->bins[lo].lo == b[i].lo && p->bins[lo].hi == b[i].hi) {
                p->bins[lo].count += b[i].count;
            } else {
                memmove(&p->bins[lo + 1], &p->bins[lo], (n - lo) * sizeof *p->bins);
                p->bins[lo] = (struct hbin){b[i].lo, b[i].hi, b[i].count};
                n++;
            }
            p->d.n += b[i].count;
        }
    }
    p->d.bins = p->bins;
    p->d.nbins = n;
    return 0;
}

static void side_free(struct side *s)
{
    for (int k = 0; k < DISTS; k++)
        free(s->dist[k].bins);
    free(s->run);
}

/* The runs' entries for CPU cpu (-1: all). 0, or -1 when a run lacks it. */
static int side_init(struct side *s, const struct compare_arm *arm, int cpu)
{
    memset(s, 0, sizeof *s);
    s->n = arm->nruns;
    s->run = calloc((size_t)arm->nruns, sizeof *s->run);
    if (!s->run)
        return -1;
    s->has_deadline_misses = true;
    for (int r = 0; r < arm->nruns; r++) {
        const struct result_doc *d = &arm->runs[r];
        const struct result_cpu *c = cpu < 0 ? &d->all : NULL;
        for (int i = 0; !c && i < d->ncpus; i++)
            if (d->cpus[i].cpu == cpu)
                c = &d->cpus[i];
        if (!c)
            return -1;
        s->run[r] = c;
        s->samples += c->samples;
        s->missed += c->missed;
        s->deadline_misses += c->deadline_misses;
        s->has_deadline_misses &= c->has_deadline_misses;
        s->noise_ns += c->noise.noise_ns;
        s->measured_ns += c->noise.measured_ns;
    }
    for (int k = 0; k < DISTS; k++)
        if (pool(s, arm, (enum dist_id)k) != 0)
            return -1;
    return 0;
}

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
    dist_bins(c, id, &nb, &of, &st);
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
    const struct result_bin *b = dist_bins(c, id, &nb, &of, &st);
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
        double sa = 0, sb = 0;
        for (int r = 0; r < na; r++)
            sa += va[r];
        for (int r = 0; r < nb; r++)
            sb += vb[r];
        m->baseline = exp(sa / na);
        m->value = exp(sb / nb);
        m->ratio = exp(pr.diff);
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
    int na = x->a->n < 32 ? x->a->n : 32, nb = x->b->n < 32 ? x->b->n : 32;
    for (int r = 0; r < na; r++)
        va[r] = log(fmax(run_value(x->a->run[r], id, pct), 1));
    for (int r = 0; r < nb; r++)
        vb[r] = log(fmax(run_value(x->b->run[r], id, pct), 1));
    if (!permutation_metric(x, va, na, vb, nb, true, m))
        return;
    struct welch_result w;
    if (welch_test(va, (size_t)na, vb, (size_t)nb, &w) != 0)
        return;
    double floor_var = pow(log1p(band), 2) / 12, va_s = 0, vb_s = 0;
    for (int r = 0; r < na; r++)
        va_s += (va[r] - w.mean_a) * (va[r] - w.mean_a);
    for (int r = 0; r < nb; r++)
        vb_s += (vb[r] - w.mean_b) * (vb[r] - w.mean_b);
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
    m->ci_lo = exp(w.mean_b - w.mean_a - hi * se);
    m->ci_hi = exp(w.mean_b - w.mean_a + hi * se);
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
        int n_a = x->a->n < 32 ? x->a->n : 32, n_b = x->b->n < 32 ? x->b->n : 32;
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

static const struct {
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

/* The resolution band of a metric: the baseline's bucket width for
 * percentiles and maxima, none for rates. */
static double band_of(const struct ctx *x, enum compare_metric k)
{
    for (size_t i = 0; i < sizeof quantile_metrics / sizeof quantile_metrics[0]; i++)
        if (quantile_metrics[i].m == k)
            return resolution(x, quantile_metrics[i].d, quantile_metrics[i].pct);
    return 0;
}

void compare_quantile_metric(const struct ctx *x, enum compare_metric k, struct metric_result *m)
{
    for (size_t i = 0; i < sizeof quantile_metrics / sizeof quantile_metrics[0]; i++) {
        if (quantile_metrics[i].m != k)
            continue;
        enum dist_id d = quantile_metrics[i].d;
        double pct = quantile_metrics[i].pct, band = resolution(x, d, pct);
        if (pct >= 100)
            compare_max_metric(x, d, band, m);
        else
            compare_percentile_metric(x, d, pct, band, m);
    }
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

static void compare_cpu(struct ctx *x, struct cpu_comparison *c)
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

/* ---- the arms ----------------------------------------------------------- */

static bool every_run_has(const struct compare_arm *arm, int cpu)
{
    for (int r = 0; r < arm->nruns; r++) {
        bool found = false;
        for (int i = 0; i < arm->runs[r].ncpus && !found; i++)
            found = arm->runs[r].cpus[i].cpu == cpu;
        if (!found)
            return false;
    }
    return true;
}

/* Every run of both arms measured exactly one CPU: its entry is "all". */
static bool one_cpu_each(const struct compare_arm *a, const struct compare_arm *b)
{
    for (int k = 0; k < 2; k++) {
        const struct compare_arm *arm = k ? b : a;
        for (int r = 0; r < arm->nruns; r++)
            if (arm->runs[r].ncpus != 1)
                return false;
    }
    return true;
}

int compare_arms(const struct compare_arm *base, const struct compare_arm *other,
                 const struct compare_config *cfg_in, struct arm_comparison *out, char *err,
                 size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct compare_config cfg = *cfg_in;
    if (cfg.reps <= 0)
        cfg.reps = DEFAULT_REPS;
    if (!(cfg.alpha > 0 && cfg.alpha < 1))
        cfg.alpha = 0.05;
    if (!(cfg.level > 0 && cfg.level <= cfg.alpha))
        cfg.level = cfg.alpha;
    if (base->nruns < 1 || other->nruns < 1) {
        snprintf(err, errlen, "an arm without runs");
        return -1;
    }
    const struct result_doc *first = &base->runs[0];
    for (int k = 0; k < 2; k++) {
        const struct compare_arm *arm = k ? other : base;
        for (int r = 0; r < arm->nruns; r++)
            if (strcmp(arm->runs[r].kind, first->kind) != 0) {
                snprintf(err, errlen,
                         "a %s result and a %s result: compare runs with runs and "
                         "noise with noise",
                         first->kind, arm->runs[r].kind);
                return -1;
            }
    }
    out->noise = strcmp(first->kind, "noise") == 0;
    out->cpu = calloc((size_t)first->ncpus + 1, sizeof *out->cpu);
    if (!out->cpu) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int *ids = calloc((size_t)first->ncpus + 1, sizeof *ids);
    if (!ids) {
        arm_comparison_free(out);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int n = 0;
    for (int i = 0; i < first->ncpus; i++) {
        int cpu = first->cpus[i].cpu;
        if (every_run_has(base, cpu) && every_run_has(other, cpu))
            ids[n++] = cpu;
    }
    /* ascending */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && ids[j] < ids[j - 1]; j--) {
            int t = ids[j];
            ids[j] = ids[j - 1];
            ids[j - 1] = t;
        }
    out->budget_ns = cfg.budget_ns >= 0 ? cfg.budget_ns : first->budget_ns;
    out->between_runs = base->nruns >= 2 && other->nruns >= 2;
    /* one CPU in every run: its entry is the "all" entry, tested once */
    bool dup = n == 1 && one_cpu_each(base, other);
    for (int e = dup ? 1 : 0; e <= n; e++) {
        int cpu = e < n ? ids[e] : -1;
        struct side a, b;
        int ra = side_init(&a, base, cpu), rb = side_init(&b, other, cpu);
        if (ra != 0 || rb != 0) {
            side_free(&a);
            side_free(&b);
            if (cpu >= 0)
                continue; /* cannot happen: every run has it */
            snprintf(err, errlen, "out of memory");
            arm_comparison_free(out);
            free(ids);
            return -1;
        }
        struct ctx x = {&cfg,           &a,        &b,        base, other, cpu, out->between_runs,
                        out->budget_ns, cfg.level, out->noise};
        if (dup) {
            out->ncpus = 1; /* the CPU's entry, filled from "all" below */
            out->cpu[0].cpu = ids[0];
            out->cpu[0].duplicate = true;
        }
        struct cpu_comparison *c = &out->cpu[out->ncpus++];
        c->cpu = cpu;
        compare_cpu(&x, c);
        side_free(&a);
        side_free(&b);
    }
    if (dup) {
        out->cpu[0] = out->cpu[1];
        out->cpu[0].cpu = ids[0];
        out->cpu[0].duplicate = true;
    }
    free(ids);
    out->verdict = out->cpu[out->ncpus - 1].verdict;
    if (n == 0 && err)
        snprintf(err, errlen, "no CPU measured in every run of both arms; only \"all\" compared");
    return 0;
}

void arm_comparison_free(struct arm_comparison *c)
{
    free(c->cpu);
    memset(c, 0, sizeof *c);
}

/* The tests of a comparison that count in its family: every tested
 * metric of every entry that is not a copy. */
static size_t collect_min_p(const struct arm_comparison *cmp, int n, double *out, bool percentiles)
{
    size_t k = 0;
    for (int a = 0; a < n; a++)
        for (int i = 0; i < cmp[a].ncpus; i++) {
            const struct cpu_comparison *c = &cmp[a].cpu[i];
            if (c->duplicate)
                continue;
            for (int m = 0; m < COMPARE_METRICS; m++) {
                const struct metric_result *r = &c->m[m];
                if (!r->present || !r->has_p)
                    continue;
                if (percentiles && !compare_metric_is_percentile((enum compare_metric)m))
                    continue;
                if (out)
                    out[k] = r->min_log_p;
                k++;
            }
        }
    return k;
}

int compare_all(const struct compare_arm *arms, int narms, const struct compare_config *cfg,
                struct arm_comparison *out, struct compare_family *fam, char *err, size_t errlen)
{
    memset(fam, 0, sizeof *fam);
    struct compare_config c = *cfg;
    if (!(c.alpha > 0 && c.alpha < 1))
        c.alpha = 0.05;
    c.level = c.alpha;
    int done = 0;
    /* first pass: what each test could reach */
    for (int a = 1; a < narms; a++, done++)
        if (compare_arms(&arms[0], &arms[a], &c, &out[a - 1], err, errlen) != 0)
            goto fail;
    size_t n = collect_min_p(out, narms - 1, NULL, false);
    double *min_p = malloc((n ? n : 1) * sizeof *min_p);
    if (!min_p) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    collect_min_p(out, narms - 1, min_p, false);
    fam->candidates = (int)n;
    fam->family = tarone_family(min_p, n, c.alpha);
    free(min_p);
    fam->alpha = c.alpha;
    fam->level = c.alpha / fam->family;
    for (int a = 0; a < done; a++)
        arm_comparison_free(&out[a]);
    done = 0;
    /* second pass: every verdict at alpha / family */
    c.level = fam->level;
    for (int a = 1; a < narms; a++, done++)
        if (compare_arms(&arms[0], &arms[a], &c, &out[a - 1], err, errlen) != 0)
            goto fail;
    fam->percentiles = fam->reachable = 0;
    for (int a = 0; a < narms - 1; a++)
        for (int i = 0; i < out[a].ncpus; i++)
            fam->reachable += out[a].cpu[i].duplicate ? 0 : out[a].cpu[i].tested;
    for (int a = 0; a < narms - 1; a++)
        for (int i = 0; i < out[a].ncpus; i++)
            for (int m = 0; m < COMPARE_METRICS; m++)
                fam->percentiles += !out[a].cpu[i].duplicate && out[a].cpu[i].m[m].present &&
                                    out[a].cpu[i].m[m].has_p &&
                                    out[a].cpu[i].m[m].verdict != VERDICT_INSUFFICIENT &&
                                    compare_metric_is_percentile((enum compare_metric)m);
    return 0;
fail:
    for (int a = 0; a < done; a++)
        arm_comparison_free(&out[a]);
    return -1;
}
