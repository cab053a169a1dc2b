/*
 * The checks the tail analysis runs beside its fit (see tail_internal.h):
 * split-half on the samples, Ljung-Box and Mann-Kendall on the window
 * maxima, and the GEV fit to those maxima whose 1e-9 level must agree with
 * the GPD's. Each sets its tail_check: passed, failed or not run, and why.
 * Levels and minimum counts are in tail.c's opening comment.
 */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats/evt_checks.h"
#include "stats/exact_tests.h"
#include "stats/gpd.h"
#include "stats/histogram.h"
#include "stats/tail_internal.h"

void tail_check_set(struct tail_check *c, enum tail_check_state st, double stat, double p,
                    const char *fmt, ...)
{
    c->state = st;
    c->statistic = stat;
    c->p_value = p;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof(c->why), fmt, ap);
    va_end(ap);
}

/* The split-half check (see the top comment). */
void tail_split_half(const struct tail_input *in, double confidence, struct tail_check *c,
                     struct gpd_obs *obs_buf)
{
    size_t half = in->nseq / 2;
    if (!in->seq || half < SPLIT_MIN_HALF) {
        tail_check_set(c, TAIL_CHECK_NOT_RUN, NAN, NAN,
                       in->seq ? "needs %d samples a half, has %zu" : "needs the samples file",
                       SPLIT_MIN_HALF, half);
        return;
    }
    struct latency_hist *h = malloc(sizeof(*h));
    struct tail_bin *bins = malloc(LATENCY_HIST_BUCKETS * sizeof(*bins));
    struct rung_fit *rungs = malloc(TAIL_MAX_LADDER * sizeof(*rungs));
    struct dataset d = {0};
    if (!h || !bins || !rungs) {
        tail_check_set(c, TAIL_CHECK_NOT_RUN, NAN, NAN, "out of memory");
        goto out;
    }
    latency_hist_init(h);
    for (size_t i = 0; i < half; i++)
        latency_hist_add(h, in->seq[i] < 0 ? 0 : in->seq[i]);
    size_t nb = tail_bins_of_hist(h, bins);
    struct tail_input first = {.bins = bins,
                               .nbins = nb,
                               .overflow = h->overflow,
                               .max_ns = h->max_ns,
                               .seq = in->seq,
                               .nseq = half};
    /* The exact values only from the ladder's lowest rung up. */
    first.seq = NULL;
    int mk = tail_dataset_make(&first, 0, &d);
    int64_t u0 = mk == 0 ? tail_lowest_rung(&d) : 0;
    tail_dataset_free(&d);
    first.seq = in->seq;
    if (mk != 0 || tail_dataset_make(&first, u0, &d) != 0) {
        tail_check_set(c, TAIL_CHECK_NOT_RUN, NAN, NAN, "out of memory");
        goto out;
    }
    size_t nr;
    int chosen = tail_ladder(&d, confidence, rungs, &nr, obs_buf);
    double x;
    if (chosen < 0) {
        tail_check_set(c, TAIL_CHECK_NOT_RUN, NAN, NAN,
                       "the first half has no threshold with a stable shape and an accepted fit");
        goto out;
    }
    double zeta = (double)rungs[chosen].k / (double)d.n;
    if (SPLIT_P < zeta) {
        x = (double)rungs[chosen].u +
            gpd_isf(SPLIT_P / zeta, rungs[chosen].fit.xi, rungs[chosen].fit.sigma);
    } else {
        struct tail_value e = tail_empirical_level(&d, SPLIT_P, confidence);
        x = e.value;
    }
    uint64_t n2 = in->nseq - half, k2 = 0;
    for (size_t i = half; i < in->nseq; i++)
        k2 += (double)in->seq[i] > x;
    double p = binomial_two_sided_p(k2, n2, SPLIT_P);
    tail_check_set(c, p < CHECK_LEVEL ? TAIL_CHECK_FAILED : TAIL_CHECK_PASSED, (double)k2, p,
                   "%llu of %llu second-half samples above the first half's 1e-4 level %.0f ns "
                   "(expected %.1f)",
                   (unsigned long long)k2, (unsigned long long)n2, x, (double)n2 * SPLIT_P);
out:
    tail_dataset_free(&d);
    free(h);
    free(bins);
    free(rungs);
}

void tail_block_checks(const struct tail_input *in, struct tail_result *r, double *bm)
{
    size_t nb = in->block_max ? in->nblock : 0;
    for (size_t i = 0; i < nb; i++)
        bm[i] = (double)in->block_max[i];
    struct tail_check *lb = &r->checks[TAIL_CHECK_LJUNG_BOX];
    if (nb < LB_MIN_BLOCKS) {
        tail_check_set(lb, TAIL_CHECK_NOT_RUN, NAN, NAN, "needs %d window maxima, has %zu",
                       LB_MIN_BLOCKS, nb);
    } else {
        size_t h = nb / 5 < 10 ? nb / 5 : 10;
        double p, q = ljung_box(bm, nb, h, &p);
        tail_check_set(lb, p < CHECK_LEVEL ? TAIL_CHECK_FAILED : TAIL_CHECK_PASSED, q, p,
                       "Q = %.2f over %zu lags of %zu window maxima", q, h, nb);
    }
    struct tail_check *mk = &r->checks[TAIL_CHECK_MANN_KENDALL];
    if (nb < MK_MIN_BLOCKS) {
        tail_check_set(mk, TAIL_CHECK_NOT_RUN, NAN, NAN, "needs %d window maxima, has %zu",
                       MK_MIN_BLOCKS, nb);
    } else {
        double p, z = mann_kendall(bm, nb, &p);
        tail_check_set(mk, p < CHECK_LEVEL ? TAIL_CHECK_FAILED : TAIL_CHECK_PASSED, z, p,
                       "z = %.2f over %zu window maxima (%s)", z, nb,
                       z > 0   ? "rising"
                       : z < 0 ? "falling"
                               : "flat");
    }
}

void tail_gev_part(const struct tail_input *in, struct tail_result *r, const double *bm,
                   double confidence, struct tail_value pot)
{
    struct tail_check *c = &r->checks[TAIL_CHECK_GEV_AGREEMENT];
    size_t nb = in->block_max ? in->nblock : 0;
    r->gev_blocks = nb;
    if (nb < GEV_MIN_BLOCKS) {
        tail_check_set(c, TAIL_CHECK_NOT_RUN, NAN, NAN, "needs %d window maxima, has %zu",
                       GEV_MIN_BLOCKS, nb);
        return;
    }
    struct gev_fit g;
    if (gev_fit(bm, nb, &g) != 0) {
        tail_check_set(c, TAIL_CHECK_NOT_RUN, NAN, NAN, "the GEV fit to the window maxima failed");
        return;
    }
    double z = gsl_cdf_ugaussian_Qinv((1 - confidence) / 2);
    r->gev_fitted = true;
    double sm = sqrt(g.cov[0][0]), sl = sqrt(g.cov[1][1]);
    struct tail_value *v = &r->gev_shape;
    v->value = gev_profile(bm, nb, &g, GEV_TARGET_XI, 0, 1, &confidence, &v->lo, &v->hi);
    r->gev_location = (struct tail_value){g.mu, g.mu - z * sm, g.mu + z * sm};
    r->gev_scale = (struct tail_value){g.sigma, g.sigma * exp(-z * sl), g.sigma * exp(z * sl)};
    double nlp = -in->block_cycles * log1p(-1e-9);
    /* the reported interval and the check's wider one in one search */
    double cc = GEV_CHECK_CONFIDENCE, confs[2] = {confidence, cc}, lo[2], hi[2];
    v = &r->gev_1e9;
    v->value = gev_profile(bm, nb, &g, GEV_TARGET_LEVEL, nlp, 2, confs, lo, hi);
    v->lo = lo[0], v->hi = hi[0];
    struct tail_value gev = {v->value, lo[1], hi[1]};
    /* The windows' cycles exceed the 1e-9 level with probability
     * 1 - (1 - 1e-9)^cycles; while that is at most a tenth of what the
     * interval may miss on one side, the level lies above the largest
     * window maximum as surely as the interval holds it. */
    double cycles = in->block_cycles * (double)nb, largest = 0;
    for (size_t i = 0; i < nb; i++)
        largest = bm[i] > largest ? bm[i] : largest;
    if (v->lo < largest && -expm1(cycles * log1p(-1e-9)) <= (1 - confidence) / 20)
        v->lo = largest;
    if (gev.lo < largest && -expm1(cycles * log1p(-1e-9)) <= (1 - cc) / 20)
        gev.lo = largest;
    if (!isfinite(pot.value) || isnan(pot.lo) || isnan(pot.hi) || isnan(gev.lo) || isnan(gev.hi)) {
        tail_check_set(c, TAIL_CHECK_NOT_RUN, NAN, NAN, "no interval of the 1e-9 level to compare");
        return;
    }
    bool apart = pot.hi < gev.lo || gev.hi < pot.lo;
    tail_check_set(c, apart ? TAIL_CHECK_FAILED : TAIL_CHECK_PASSED, NAN, NAN,
                   "1e-9 level at %.1f%%: GPD [%.0f, %.0f] ns, GEV [%.0f, %.0f] ns: %s", cc * 100,
                   pot.lo, pot.hi, gev.lo, gev.hi, apart ? "apart" : "overlap");
}
