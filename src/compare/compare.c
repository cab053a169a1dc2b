/*
 * The comparison of two arms (see compare.h). Per CPU entry: each side's
 * runs are pooled into one histogram per distribution (the buckets are the
 * same log-linear ones in every document, so pooling sums counts); the
 * per-run figures stay for the between-run test. Metrics are decided in
 * order: percentiles by a bootstrap of the pooled ratio (and, with repeated
 * runs, by Welch on the logs of the per-run values), the maximum by how
 * often one side beats the other's maximum, rates (missed periods, deadline
 * misses, values above the baseline's p99.9 or the budget) by the exact
 * test of two rates. Noise documents: the gap histograms take the place of
 * the latency ones; gaps per second is the exact test of two rates over
 * the time measured; the noise share by Welch on the share of each report
 * window (the nanoseconds of one gap are not independent trials, so the
 * rate test does not apply to them).
 */
#include "compare/compare.h"
#include "compare/compare_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_REPS 4000

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
    return v == VERDICT_WORSE    ? "worse"
           : v == VERDICT_BETTER ? "better"
           : v == VERDICT_SAME   ? "no-difference"
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
    m->has_ratio = base > 0;
    m->ratio = base > 0 ? value / base : 0;
    m->test = "none";
    m->verdict = VERDICT_NA;
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

/* Welch on the logs of the per-run values; the values shown become the
 * geometric means of the runs' values, the ratio theirs, its CI from the t
 * quantile (found by bisection). */
static bool between_runs(const struct ctx *x, enum dist_id id, double pct, struct metric_result *m)
{
    double va[256], vb[256];
    int na = x->a->n < 256 ? x->a->n : 256, nb = x->b->n < 256 ? x->b->n : 256;
    for (int r = 0; r < na; r++)
        va[r] = log(fmax(run_value(x->a->run[r], id, pct), 1));
    for (int r = 0; r < nb; r++)
        vb[r] = log(fmax(run_value(x->b->run[r], id, pct), 1));
    struct welch_result w;
    if (welch_test(va, (size_t)na, vb, (size_t)nb, &w) != 0)
        return false;
    m->test = "between-runs";
    m->has_p = true;
    m->p_value = w.p_value;
    double se = isfinite(w.t) && w.t != 0 ? (w.mean_b - w.mean_a) / w.t : 0;
    double level = 1 - x->alpha / 2, lo = 0, hi = 1000;
    for (int i = 0; i < 200 && se > 0; i++) {
        double mid = (lo + hi) / 2;
        if (student_t_cdf(mid, w.df) < level)
            lo = mid;
        else
            hi = mid;
    }
    m->has_ci = true;
    m->ci_lo = exp(w.mean_b - w.mean_a - hi * se);
    m->ci_hi = exp(w.mean_b - w.mean_a + hi * se);
    /* the figures the test compared: geometric means of the runs' values */
    m->baseline = exp(w.mean_a);
    m->value = exp(w.mean_b);
    m->ratio = exp(w.mean_b - w.mean_a);
    m->has_ratio = true;
    return true;
}

/* better/worse when significant at alpha and beyond the band [1 - w, 1 + w]
 * of the ratio; else no difference. */
static enum verdict decide(const struct metric_result *m, double alpha, double band)
{
    if (!m->has_p || m->p_value >= alpha || !m->has_ratio)
        return VERDICT_SAME;
    if (m->ratio > 1 + band && (!m->has_ci || m->ci_lo > 1 + band))
        return VERDICT_WORSE;
    if (m->ratio < 1 - band && (!m->has_ci || m->ci_hi < 1 - band))
        return VERDICT_BETTER;
    return VERDICT_SAME;
}

void compare_percentile_metric(const struct ctx *x, enum dist_id id, double pct,
                               struct metric_result *m)
{
    const struct pooled *pa = &x->a->dist[id], *pb = &x->b->dist[id];
    if (!pa->present || !pb->present || pa->d.n == 0 || pb->d.n == 0)
        return;
    compare_set_values(m, (double)hdist_percentile(&pa->d, pct, pa->min_ns),
                       (double)hdist_percentile(&pb->d, pct, pb->min_ns));
    if (x->between) {
        between_runs(x, id, pct, m);
        return;
    }
    struct ratio_ci ci;
    if (quantile_ratio_ci(&pa->d, &pb->d, pct, x->alpha, x->cfg->reps, x->cfg->seed, &ci) == 0) {
        m->test = "bootstrap";
        m->has_ci = true;
        m->ci_lo = ci.lo;
        m->ci_hi = ci.hi;
        m->has_p = true;
        m->p_value = ci.p_value;
    }
}

/* The maximum: how many of B's values lie above A's largest bucket (and
 * the other way round), against the chance of that by luck. */
void compare_max_metric(const struct ctx *x, enum dist_id id, struct metric_result *m)
{
    const struct pooled *pa = &x->a->dist[id], *pb = &x->b->dist[id];
    if (!pa->present || !pb->present || pa->d.n == 0 || pb->d.n == 0)
        return;
    compare_set_values(m, (double)pa->d.max_ns, (double)pb->d.max_ns);
    if (x->between) {
        between_runs(x, id, 100, m);
        return;
    }
    uint64_t kb = hdist_above(&pb->d, pa->d.max_ns), ka = hdist_above(&pa->d, pb->d.max_ns);
    double pw = beats_max_p(kb, pa->d.n, pb->d.n), pbt = beats_max_p(ka, pb->d.n, pa->d.n);
    m->test = "exceedance";
    m->has_p = true;
    /* one of the two can be small; two-sided by doubling the smaller */
    m->p_value = fmin(1, 2 * fmin(pw, pbt));
}

void compare_rate_metric(const struct ctx *x, uint64_t ka, uint64_t na, uint64_t kb, uint64_t nb,
                         double (*per_run)(const struct result_cpu *, int64_t), int64_t arg,
                         struct metric_result *m)
{
    if (na == 0 || nb == 0)
        return;
    compare_set_values(m, (double)ka / (double)na, (double)kb / (double)nb);
    if (ka == 0 && kb == 0) {
        m->test = "binomial";
        m->has_p = true;
        m->p_value = 1;
        return;
    }
    if (x->between && per_run) {
        /* rates can be 0: Welch on the raw per-run rates */
        double va[256], vb[256];
        int n_a = x->a->n < 256 ? x->a->n : 256, n_b = x->b->n < 256 ? x->b->n : 256;
        for (int r = 0; r < n_a; r++)
            va[r] = per_run(x->a->run[r], arg);
        for (int r = 0; r < n_b; r++)
            vb[r] = per_run(x->b->run[r], arg);
        struct welch_result w;
        if (welch_test(va, (size_t)n_a, vb, (size_t)n_b, &w) == 0) {
            m->test = "between-runs";
            m->has_p = true;
            m->p_value = w.p_value;
            return;
        }
    }
    m->test = "binomial";
    m->has_p = true;
    m->p_value = rate_test(ka, na, kb, nb);
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
    compare_rate_metric(x, ka, pa->d.n, kb, pb->d.n, exceed_rate, threshold_ns, m);
    if (m->present && strcmp(m->test, "binomial") == 0)
        m->test = "exceedance";
}

/* The resolution band of a metric: the baseline's bucket width for
 * percentiles and maxima, none for rates. */
static double band_of(const struct ctx *x, enum compare_metric k)
{
    static const struct {
        enum compare_metric m;
        enum dist_id d;
        double pct;
    } q[] = {{METRIC_P50, DIST_LATENCY, 50},           {METRIC_P90, DIST_LATENCY, 90},
             {METRIC_P99, DIST_LATENCY, 99},           {METRIC_P999, DIST_LATENCY, 99.9},
             {METRIC_P9999, DIST_LATENCY, 99.99},      {METRIC_MAX, DIST_LATENCY, 100},
             {METRIC_EXEC_P50, DIST_EXEC, 50},         {METRIC_EXEC_P99, DIST_EXEC, 99},
             {METRIC_EXEC_MAX, DIST_EXEC, 100},        {METRIC_RESPONSE_P50, DIST_RESPONSE, 50},
             {METRIC_RESPONSE_P99, DIST_RESPONSE, 99}, {METRIC_RESPONSE_MAX, DIST_RESPONSE, 100}};
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
        if (q[i].m == k)
            return hdist_resolution(&x->a->dist[q[i].d].d, q[i].pct);
    return 0;
}

/* How many metrics will be tested: the alpha of each is alpha / that. */
static int tested_metrics(const struct ctx *x)
{
    int n = 1; /* missed periods */
    const struct pooled *a = x->a->dist, *b = x->b->dist;
    if (x->a->has_deadline_misses && x->b->has_deadline_misses && a[DIST_EXEC].present &&
        b[DIST_EXEC].present)
        n++;
    for (int k = 0; k < DISTS; k++)
        if (a[k].present && b[k].present && a[k].d.n > 0 && b[k].d.n > 0)
            n += k == DIST_LATENCY ? 6 + 1 + (x->budget_ns >= 0) : 3; /* + exceedances */
    return n;
}

static void compare_cpu(struct ctx *x, struct cpu_comparison *c)
{
    struct metric_result *m = c->m;
    if (x->noise) {
        compare_noise_cpu(x, c);
        compare_decide_all(x, c);
        return;
    }
    x->alpha = x->cfg->alpha / tested_metrics(x);
    compare_set_values(&m[METRIC_SAMPLES], (double)x->a->samples / x->a->n,
                       (double)x->b->samples / x->b->n);
    compare_rate_metric(x, x->a->missed, x->a->samples + x->a->missed, x->b->missed,
                        x->b->samples + x->b->missed, missed_rate, 0, &m[METRIC_MISSED]);
    if (x->a->has_deadline_misses && x->b->has_deadline_misses && x->a->dist[DIST_EXEC].present &&
        x->b->dist[DIST_EXEC].present)
        compare_rate_metric(x, x->a->deadline_misses, x->a->samples, x->b->deadline_misses,
                            x->b->samples, deadline_rate, 0, &m[METRIC_DEADLINE_MISSES]);
    const struct pooled *la = &x->a->dist[DIST_LATENCY], *lb = &x->b->dist[DIST_LATENCY];
    if (la->present && lb->present)
        compare_set_values(&m[METRIC_MIN], (double)la->min_ns, (double)lb->min_ns);
    compare_percentile_metric(x, DIST_LATENCY, 50, &m[METRIC_P50]);
    compare_percentile_metric(x, DIST_LATENCY, 90, &m[METRIC_P90]);
    compare_percentile_metric(x, DIST_LATENCY, 99, &m[METRIC_P99]);
    compare_percentile_metric(x, DIST_LATENCY, 99.9, &m[METRIC_P999]);
    compare_percentile_metric(x, DIST_LATENCY, 99.99, &m[METRIC_P9999]);
    compare_max_metric(x, DIST_LATENCY, &m[METRIC_MAX]);
    compare_percentile_metric(x, DIST_EXEC, 50, &m[METRIC_EXEC_P50]);
    compare_percentile_metric(x, DIST_EXEC, 99, &m[METRIC_EXEC_P99]);
    compare_max_metric(x, DIST_EXEC, &m[METRIC_EXEC_MAX]);
    compare_percentile_metric(x, DIST_RESPONSE, 50, &m[METRIC_RESPONSE_P50]);
    compare_percentile_metric(x, DIST_RESPONSE, 99, &m[METRIC_RESPONSE_P99]);
    compare_max_metric(x, DIST_RESPONSE, &m[METRIC_RESPONSE_MAX]);
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

/* Each tested metric's verdict at the split alpha, and the entry's. */
void compare_decide_all(const struct ctx *x, struct cpu_comparison *c)
{
    struct metric_result *m = c->m;
    c->tested = 0;
    for (int k = 0; k < COMPARE_METRICS; k++)
        c->tested += m[k].present && m[k].has_p;
    double alpha = x->alpha;
    c->alpha = alpha;
    bool worse = false, better = false;
    for (int k = 0; k < COMPARE_METRICS; k++) {
        if (!m[k].present || !m[k].has_p)
            continue;
        m[k].verdict = decide(&m[k], alpha, band_of(x, (enum compare_metric)k));
        /* the median also needs the rank test to agree: a shift of the
         * whole distribution, not of the bucket the median fell in */
        if (k == METRIC_P50 && !x->between && c->has_rank && m[k].verdict != VERDICT_SAME &&
            (c->rank.p_value >= alpha ||
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
    for (int e = 0; e <= n; e++) {
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
                        out->budget_ns, cfg.alpha, out->noise};
        struct cpu_comparison *c = &out->cpu[out->ncpus++];
        c->cpu = cpu;
        compare_cpu(&x, c);
        side_free(&a);
        side_free(&b);
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
