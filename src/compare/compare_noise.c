/*
 * The metrics of noise documents (see compare.h): the noise share, gaps
 * per second and the gap length's p50, p99, p99.99 and maximum. The gap
 * histograms stand where the latency histograms stand for runs, so the
 * percentiles and the maximum go through the same tests; gaps per second
 * is the exact test of two Poisson rates over the time measured; the noise
 * share is decided by Welch on the share of each report window (by the
 * permutation test of per-run shares with repeated runs), since the nanoseconds of one gap are not
 * independent trials and a rate test on them would call any difference
 * significant.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare_internal.h"
#include "stats/exact_tests.h"

/* The noise share of each report window of cpu (-1: of every CPU) in the
 * arm's runs; windows that measured nothing give none. malloc'd. */
static double *window_shares(const struct compare_arm *arm, int cpu, size_t *n)
{
    size_t cap = 0;
    for (int r = 0; r < arm->nruns; r++)
        for (int i = 0; i < arm->runs[r].ncpus; i++)
            cap += arm->runs[r].cpus[i].noise.nwin;
    double *v = malloc((cap ? cap : 1) * sizeof *v);
    *n = 0;
    for (int r = 0; v && r < arm->nruns; r++)
        for (int i = 0; i < arm->runs[r].ncpus; i++) {
            const struct result_noise *no = &arm->runs[r].cpus[i].noise;
            if (cpu >= 0 && arm->runs[r].cpus[i].cpu != cpu)
                continue;
            for (size_t k = 0; k < no->nwin; k++)
                if (no->win[k].measured_ns > 0)
                    v[(*n)++] = (double)no->win[k].noise_ns / (double)no->win[k].measured_ns;
        }
    return v;
}

static double run_share(const struct result_cpu *c)
{
    return c->noise.measured_ns > 0 ? (double)c->noise.noise_ns / (double)c->noise.measured_ns : 0;
}

/* The permutation test on the per-run shares (repeated runs), or Welch on
 * the windows' shares; 0 with the test set, -1 when a side has too few
 * values. */
static int share_test(const struct ctx *x, struct metric_result *m)
{
    if (x->between) {
        double va[64], vb[64];
        int na = x->a->n < COMPARE_MAX_RUNS_PER_ARM ? x->a->n : COMPARE_MAX_RUNS_PER_ARM,
            nb = x->b->n < COMPARE_MAX_RUNS_PER_ARM ? x->b->n : COMPARE_MAX_RUNS_PER_ARM;
        for (int r = 0; r < na; r++)
            va[r] = run_share(x->a->run[r]);
        for (int r = 0; r < nb; r++)
            vb[r] = run_share(x->b->run[r]);
        struct perm_result pr;
        if (perm_test(va, (size_t)na, vb, (size_t)nb, x->cfg->reps, x->cfg->seed, &pr) != 0)
            return -1;
        compare_set_p(m, "permutation", pr.log_p, pr.min_log_p);
        return 0;
    }
    struct welch_result w;
    size_t na, nb;
    double *va = window_shares(x->arm_a, x->cpu, &na), *vb = window_shares(x->arm_b, x->cpu, &nb);
    int rc = va && vb ? welch_test(va, na, vb, nb, &w) : -1;
    free(va);
    free(vb);
    if (rc != 0)
        return -1;
    compare_set_p(m, "windows", isfinite(w.log_p) ? w.log_p : 0, -INFINITY);
    return 0;
}

static void noise_share_metric(const struct ctx *x, struct metric_result *m)
{
    if (x->a->measured_ns <= 0 || x->b->measured_ns <= 0)
        return;
    compare_set_values(m, (double)x->a->noise_ns / (double)x->a->measured_ns,
                       (double)x->b->noise_ns / (double)x->b->measured_ns);
    if (x->a->noise_ns == 0 && x->b->noise_ns == 0) {
        compare_set_p(m, "windows", 0, 0); /* nothing to tell apart */
        return;
    }
    share_test(x, m);
}

static double gap_rate(const struct result_cpu *c, int64_t unused)
{
    (void)unused;
    return c->noise.measured_ns > 0 ? 1e9 * (double)c->samples / (double)c->noise.measured_ns : 0;
}

void compare_noise_cpu(struct ctx *x, struct cpu_comparison *c)
{
    struct metric_result *m = c->m;
    const struct pooled *ga = &x->a->dist[DIST_LATENCY], *gb = &x->b->dist[DIST_LATENCY];
    bool gaps = ga->present && gb->present && ga->d.n > 0 && gb->d.n > 0;
    noise_share_metric(x, &m[METRIC_NOISE_SHARE]);
    if (x->a->measured_ns > 0 && x->b->measured_ns > 0) {
        compare_rate_metric(x, x->a->samples, (uint64_t)x->a->measured_ns, x->b->samples,
                            (uint64_t)x->b->measured_ns, true, gap_rate, 0, &m[METRIC_GAP_RATE]);
        struct metric_result *g = &m[METRIC_GAP_RATE];
        g->baseline *= 1e9; /* per ns -> per second */
        g->value *= 1e9;
    }
    compare_quantile_metric(x, METRIC_P50, &m[METRIC_P50]);
    compare_quantile_metric(x, METRIC_P99, &m[METRIC_P99]);
    compare_quantile_metric(x, METRIC_P9999, &m[METRIC_P9999]);
    compare_quantile_metric(x, METRIC_MAX, &m[METRIC_MAX]);
    if (gaps)
        c->has_rank = rank_test(&ga->d, &gb->d, &c->rank) == 0;
}
