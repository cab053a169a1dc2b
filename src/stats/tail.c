/*
 * The tail analysis (see tail.h): which threshold, which fit, which checks,
 * and when to refuse. The fits themselves live in stats/gpd.c, the checks'
 * statistics in stats/evt_checks.c; the data and the threshold ladder in
 * tail_data.c, the checks beside the fit in tail_checks.c.
 *
 * Data. Every observation is an interval [lo, hi] of whole ns (a histogram
 * bucket; an exact sample is [v, v]); values beyond the histogram's range
 * are taken as [max_ns, max_ns]. A threshold u is a bucket's lower edge; an
 * exceedance is a value >= u and its excess the interval [lo-u, hi+1-u),
 * so a bucket of count c adds c ln(F(hi+1-u) - F(lo-u)) to the likelihood.
 * With the samples file (seq) the exceedances are the exact values, grouped
 * into runs no wider than 1/1024 of the value (1 ns below 2 us; eight times
 * finer than the histogram's buckets), so that a pass over them costs at
 * most about 1024 groups per octave of the tail however long the run; the
 * Anderson-Darling statistic takes each group at its middle. A given threshold is moved down to the
 * lower edge of its bucket.
 *
 * Threshold ladder (no threshold given): candidate exceedance counts n/10,
 * then halving, down to 50, each moved to the lower edge of the bucket that
 * holds it (distinct thresholds only, at most TAIL_MAX_LADDER). Each rung
 * gets a fit, a Wald interval of xi and a goodness of fit. The chosen u is
 * the lowest rung whose xi lies inside the Wald interval of every higher
 * fitted rung with at least 300 exceedances and whose goodness of fit is
 * not rejected at 0.01. The rungs with fewer are too noisy to
 * judge by: one whose xi happens to fall far out would reject every rung
 * below it, and the ladder would choose that outlier (coverage of the true
 * xi through the ladder fell to 87 of 100 seeds with them; 92-93 without).
 * A rung whose shape reaches the search's upper end (2) is never chosen,
 * and a fit there at the chosen or given threshold is refused: the
 * likelihood wants a heavier tail than any GPD, the mark of a far second
 * mode (a rare 2 ms mode above a 20 us bulk does this). None: the tail
 * cannot be estimated. Fewer than 50 exceedances at the lowest rung (or at
 * a given threshold): too few.
 *
 * Goodness of fit (level 0.01): on exact samples Anderson-Darling on the
 * excesses (each group at its middle), its p value from
 * the table of Choulakian & Stephens for estimated parameters
 * (evt_checks.c); on buckets Pearson's chi-square over the buckets above u,
 * grouped so that each group expects at least 5 (the last open-ended),
 * df = groups - 3.
 *
 * Checks (each at level 0.01): Ljung-Box on the window maxima (h = min(10,
 * n/5) lags, at least 20 windows) and Mann-Kendall (at least 10 windows);
 * with the samples, the extremal index at u (Ferro-Segers): below 0.9 the
 * exceedances are declustered by runs with the estimator's run length and
 * the cluster maxima fitted (the exceedance rate still counts every
 * exceedance), below 0.2 the check fails (strong clustering; no p value,
 * passed by this rule); split-half (at least 50000 samples a half): the
 * ladder and fit on the first half, its 1e-4 level (the fit's, or the
 * empirical quantile when 1e-4 is not below its exceedance rate), the
 * second half's values above it against n2 * 1e-4 by the exact two-sided
 * binomial test; gev-agreement: a GEV fit to at least 30 window maxima,
 * its per-cycle 1e-9 level at probability (1 - 1e-9)^block_cycles with a
 * profile likelihood interval (never negative; its lower bound not below
 * the largest window maximum while the windows' cycles exceed the level
 * with at most a tenth of the interval's one-sided miss), failed when it
 * and the GPD's interval of the 1e-9 level, both at 1 - 0.01 / 2, do not
 * overlap (a right fit is refused with at most 0.01: one of the two
 * intervals must miss). A failed check: cannot estimate, with the reason and
 * advice, and no number.
 *
 * Intervals: profile likelihood at the input's confidence for xi, sigma,
 * each level and the budget's per-cycle probability; the exceedance rate
 * zeta is taken as known there (its own error, binomial, is small beside
 * the shape's). A bound the likelihood leaves open within the search (xi up
 * to 2) is INFINITY (xi's lower bound stops at -0.5, where the fit's theory
 * ends). At p >= zeta an estimate is the empirical quantile, its interval
 * from order statistics; a budget below u has the empirical share above it,
 * with the exact (Clopper-Pearson) binomial interval, and per hour and per
 * year from its bounds. The plot's curve uses delta-method intervals (a
 * profile per point would cost more than the whole fit).
 */
#include "stats/tail.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/evt_checks.h"
#include "stats/exact_tests.h"
#include "stats/gpd.h"
#include "stats/histogram.h"
#include "stats/tail_internal.h"

#define NS_PER_HOUR    3600e9
#define HOURS_PER_YEAR 8766.0

static const char *const check_names[TAIL_NCHECKS] = {
    "goodness-of-fit", "ljung-box", "mann-kendall", "extremal-index", "split-half", "gev-agreement",
};

static void result_init(struct tail_result *r)
{
    memset(r, 0, sizeof(*r));
    r->verdict = TAIL_CANNOT_ESTIMATE;
    r->threshold_ns = -1;
    r->exceedance_rate = NAN;
    r->shape = r->scale = (struct tail_value){NAN, NAN, NAN};
    r->ci_method = "profile-likelihood";
    r->upper_endpoint_ns = INFINITY;
    r->budget_per_cycle = r->budget_per_hour = r->budget_per_year = r->shape;
    r->more_hours_1e9 = NAN;
    for (size_t i = 0; i < TAIL_MAX_PROBABILITIES; i++)
        r->estimates[i].ns = r->shape;
    r->empirical_max_ns = NAN;
    r->gev_shape = r->gev_location = r->gev_scale = r->gev_1e9 = r->shape;
    r->extremal_index = NAN;
    for (int i = 0; i < TAIL_NCHECKS; i++) {
        r->checks[i].name = check_names[i];
        r->checks[i].method = "";
        r->checks[i].state = TAIL_CHECK_NOT_RUN;
        r->checks[i].statistic = r->checks[i].p_value = NAN;
        r->checks[i].level = CHECK_LEVEL;
    }
    r->checks[TAIL_CHECK_GOF].method = "chi-square-buckets";
    r->checks[TAIL_CHECK_LJUNG_BOX].method = "ljung-box";
    r->checks[TAIL_CHECK_MANN_KENDALL].method = "mann-kendall";
    r->checks[TAIL_CHECK_EXTREMAL_INDEX].method = "ferro-segers";
    r->checks[TAIL_CHECK_SPLIT_HALF].method = "binomial";
    r->checks[TAIL_CHECK_GEV_AGREEMENT].method = "interval-overlap";
    r->checks[TAIL_CHECK_EXTREMAL_INDEX].level = CLUSTER_FAIL;
}

static int validate(const struct tail_input *in, char *err, size_t errlen)
{
    if (!in->bins || in->nbins == 0) {
        snprintf(err, errlen, "no histogram bins");
        return -1;
    }
    uint64_t n = in->overflow;
    for (size_t i = 0; i < in->nbins; i++) {
        const struct tail_bin *b = &in->bins[i];
        if (b->hi < b->lo || b->lo < 0 || (i > 0 && b->lo <= in->bins[i - 1].hi)) {
            snprintf(err, errlen, "histogram bins not ascending or overlapping at bin %zu", i);
            return -1;
        }
        n += b->count;
    }
    if (n == 0) {
        snprintf(err, errlen, "no samples");
        return -1;
    }
    if (in->overflow > 0 && in->max_ns < 0) {
        snprintf(err, errlen, "values beyond the histogram's range without the exact maximum");
        return -1;
    }
    if (in->interval_ns <= 0) {
        snprintf(err, errlen, "interval %lld ns: must be > 0", (long long)in->interval_ns);
        return -1;
    }
    if (in->confidence != 0 && !(in->confidence > 0 && in->confidence < 1)) {
        snprintf(err, errlen, "confidence %g: must lie in (0, 1)", in->confidence);
        return -1;
    }
    if (in->nprobabilities > TAIL_MAX_PROBABILITIES) {
        snprintf(err, errlen, "%zu probabilities: at most %d", in->nprobabilities,
                 TAIL_MAX_PROBABILITIES);
        return -1;
    }
    for (size_t i = 0; i < in->nprobabilities; i++)
        if (!(in->probabilities[i] > 0 && in->probabilities[i] < 1)) {
            snprintf(err, errlen, "probability %g: must lie in (0, 1)", in->probabilities[i]);
            return -1;
        }
    if (in->nblock > 0 && in->block_max && !(in->block_cycles > 0)) {
        snprintf(err, errlen, "window maxima without the cycles per window");
        return -1;
    }
    return 0;
}

static double per_cycles(double p, double cycles)
{
    return -expm1(cycles * log1p(-p));
}

struct fitted {
    int64_t u;
    uint64_t k;  /* exceedances */
    double zeta; /* k / n */
    struct gpd_fit fit;
    struct gpd_obs *obs;
    size_t nobs;
};

/* The per-cycle level at p < zeta with its profile interval. */
/* The level exceeded with probability p per cycle at each of the nconf
 * confidences conf[] (one search), into v[]. */
static void pot_levels(const struct fitted *f, double p, size_t nconf, const double *conf,
                       struct tail_value *v)
{
    double lo[2], hi[2];
    double x = gpd_profile_multi(f->obs, f->nobs, &f->fit, GPD_TARGET_LEVEL, p / f->zeta, nconf,
                                 conf, lo, hi);
    for (size_t i = 0; i < nconf; i++)
        v[i] = (struct tail_value){(double)f->u + x, (double)f->u + lo[i], (double)f->u + hi[i]};
}

static struct tail_value pot_level(const struct fitted *f, double p, double confidence)
{
    struct tail_value v;
    pot_levels(f, p, 1, &confidence, &v);
    return v;
}

static void refuse(struct tail_result *r, const char *advice, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void refuse(struct tail_result *r, const char *advice, const char *fmt, ...)
{
    r->verdict = TAIL_CANNOT_ESTIMATE;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
    va_end(ap);
    snprintf(r->advice, sizeof(r->advice), "%s", advice);
}

static const char *const ADVICE_LONGER = "run longer: the tail needs more exceedances";

/* The fit at f->u on d (exact values, or the cluster maxima when
 * declustered), into f. */
static int fit_at(const struct dataset *d, const int64_t *vals, size_t nvals, struct fitted *f,
                  const struct gpd_fit *start)
{
    f->nobs = tail_build_obs(d, f->u, vals, nvals, f->obs);
    return gpd_fit(f->obs, f->nobs, start ? start->xi : NAN, start ? start->sigma : NAN, &f->fit);
}

static void analyse(const struct tail_input *in, struct dataset *d, struct tail_result *r,
                    double confidence, struct gpd_obs *obs, struct rung_fit *rungs, double *bm)
{
    r->samples = d->n;
    r->empirical_max_ns = (double)d->bins[d->nbins - 1].hi;
    if (in->max_ns >= 0)
        r->empirical_max_ns = (double)in->max_ns;
    r->more_hours_1e9 = fmax(0, (1e9 - (double)d->n) * (double)in->interval_ns) / NS_PER_HOUR;
    if (d->nbins == 1 && d->bins[0].lo == d->bins[0].hi) {
        refuse(r, "", "all %llu samples are %lld ns: no tail to fit", (unsigned long long)d->n,
               (long long)d->bins[0].lo);
        return;
    }
    tail_block_checks(in, r, bm);
    if (d->exact)
        r->checks[TAIL_CHECK_GOF].method = "anderson-darling";

    struct fitted f = {.obs = obs};
    size_t nr = 0;
    const struct gpd_fit *start = NULL;
    if (in->threshold_ns >= 0) {
        r->threshold_given = true;
        f.u = tail_snap_threshold(d, in->threshold_ns);
        f.k = tail_count_from(d, f.u);
        if (f.k == 0) {
            refuse(r, "", "no value above the threshold %lld ns (the largest is %lld ns)",
                   (long long)f.u, (long long)d->bins[d->nbins - 1].hi);
            snprintf(r->advice, sizeof(r->advice),
                     "give a lower --threshold, or leave it to the ladder");
            r->threshold_ns = f.u;
            r->exceedances = 0;
            return;
        }
        if (f.k < MIN_EXCEEDANCES) {
            double more = (double)d->n * ((double)MIN_EXCEEDANCES / fmax(1, (double)f.k) - 1);
            refuse(r, ADVICE_LONGER, "too few exceedances (%llu; needs %d)",
                   (unsigned long long)f.k, MIN_EXCEEDANCES);
            snprintf(r->advice, sizeof(r->advice),
                     "run longer: about %.3g more cycles for %d exceedances of the threshold", more,
                     MIN_EXCEEDANCES);
            r->threshold_ns = f.u;
            r->exceedances = f.k;
            return;
        }
    } else {
        int chosen = tail_ladder(d, confidence, rungs, &nr, obs);
        double z = gsl_cdf_ugaussian_Qinv((1 - confidence) / 2);
        r->nrungs = nr;
        for (size_t i = 0; i < nr; i++) {
            struct tail_rung *t = &r->rungs[i];
            t->threshold_ns = rungs[i].u;
            t->exceedances = rungs[i].k;
            t->fitted = rungs[i].fit.ok;
            double se = rungs[i].fit.cov[0][0] > 0 ? sqrt(rungs[i].fit.cov[0][0]) : NAN;
            t->shape = (struct tail_value){rungs[i].fit.xi, rungs[i].fit.xi - z * se,
                                           rungs[i].fit.xi + z * se};
            t->gof_p = rungs[i].gof_p;
        }
        if (chosen == -2) {
            uint64_t k = (uint64_t)((double)d->n * LADDER_TOP);
            double more = (double)MIN_EXCEEDANCES / LADDER_TOP - (double)d->n;
            refuse(r, "", "too few exceedances (%llu; needs %d)", (unsigned long long)k,
                   MIN_EXCEEDANCES);
            snprintf(r->advice, sizeof(r->advice),
                     "run longer: about %.3g more cycles put %d values above the 90th "
                     "percentile",
                     more, MIN_EXCEEDANCES);
            return;
        }
        if (chosen < 0) {
            refuse(r, ADVICE_LONGER, "no threshold with a stable shape and an accepted fit");
            return;
        }
        f.u = rungs[chosen].u;
        f.k = rungs[chosen].k;
        start = &rungs[chosen].fit;
    }
    r->threshold_ns = f.u;
    r->exceedances = f.k;
    f.zeta = (double)f.k / (double)d->n;
    r->exceedance_rate = f.zeta;

    /* Clustering, with the samples: decluster below DECLUSTER_BELOW. */
    int64_t *maxima = NULL;
    struct tail_check *ei = &r->checks[TAIL_CHECK_EXTREMAL_INDEX];
    if (in->seq) {
        size_t *pos = malloc(f.k * sizeof(*pos));
        int64_t *vals = malloc(f.k * sizeof(*vals));
        size_t m = 0;
        if (pos && vals)
            for (size_t i = 0; i < in->nseq && m < f.k; i++)
                if (in->seq[i] >= f.u) {
                    pos[m] = i;
                    vals[m++] = in->seq[i];
                }
        double theta = extremal_index(pos, m);
        r->extremal_index = theta;
        if (isnan(theta)) {
            tail_check_set(ei, TAIL_CHECK_NOT_RUN, NAN, NAN, "too few exceedances");
        } else if (theta < DECLUSTER_BELOW) {
            r->run_length = decluster_run_length(pos, m, theta);
            maxima = malloc(m * sizeof(*maxima));
            if (maxima) {
                size_t c = decluster_maxima(pos, vals, m, r->run_length, maxima);
                if (tail_sort_i64(maxima, c) != 0)
                    c = 0;
                r->clusters = c;
                r->declustered = true;
            }
            tail_check_set(ei, theta < CLUSTER_FAIL ? TAIL_CHECK_FAILED : TAIL_CHECK_PASSED, theta,
                           NAN,
                           "extremal index %.2f: %llu clusters (run length %lld cycles) fitted",
                           theta, (unsigned long long)r->clusters, (long long)r->run_length);
        } else {
            tail_check_set(ei, TAIL_CHECK_PASSED, theta, NAN,
                           "extremal index %.2f: exceedances come one at a time", theta);
        }
        free(pos);
        free(vals);
    } else {
        tail_check_set(ei, TAIL_CHECK_NOT_RUN, NAN, NAN, "needs the samples file");
    }
    int rc;
    if (r->declustered) {
        rc = fit_at(d, maxima, r->clusters, &f, NULL);
        r->fitted = r->clusters;
    } else {
        rc = fit_at(d, d->exact, d->nexact, &f, start);
        r->fitted = f.k;
    }
    free(maxima);
    struct tail_check *gof = &r->checks[TAIL_CHECK_GOF];
    if (rc != 0) {
        tail_check_set(gof, TAIL_CHECK_NOT_RUN, NAN, NAN, "the fit failed");
        refuse(r, ADVICE_LONGER, "the GPD fit above %lld ns failed", (long long)f.u);
        return;
    }
    if (f.fit.xi >= XI_AT_MAX) {
        tail_check_set(gof, TAIL_CHECK_NOT_RUN, NAN, NAN, "the fit sits at the shape's bound");
        refuse(r,
               "look at the largest values (run --explain): a rare far mode has a cause of its "
               "own to find",
               "the shape above %lld ns reaches the search's bound %.0f: no single GPD fits the "
               "tail (a far second mode?)",
               (long long)f.u, GPD_XI_MAX);
        return;
    }
    double stat, p = tail_goodness_of_fit(f.obs, f.nobs, d->exact != NULL, &f.fit, &stat);
    if (isnan(p))
        tail_check_set(gof, TAIL_CHECK_NOT_RUN, NAN, NAN, "too few groups to test");
    else
        tail_check_set(gof, p < CHECK_LEVEL ? TAIL_CHECK_FAILED : TAIL_CHECK_PASSED, stat, p,
                       "%s = %.3g above %lld ns, p %s %.3g", d->exact ? "A^2" : "chi-square", stat,
                       (long long)f.u,
                       d->exact && p >= 0.5     ? ">="
                       : d->exact && p <= 0.001 ? "<="
                                                : "=",
                       p);

    double lo, hi;
    r->shape.value = gpd_profile(f.obs, f.nobs, &f.fit, GPD_TARGET_XI, 0, confidence, &lo, &hi);
    r->shape.lo = lo, r->shape.hi = hi;
    r->scale.value = gpd_profile(f.obs, f.nobs, &f.fit, GPD_TARGET_SIGMA, 0, confidence, &lo, &hi);
    r->scale.lo = lo, r->scale.hi = hi;
    if (r->shape.lo > 0) {
        r->shape_meaning = "heavy tail: no finite worst case, every longer run finds a larger "
                           "maximum";
    } else if (r->shape.hi < 0) {
        r->shape_meaning = "bounded tail: the worst case has an upper end";
        r->upper_endpoint_ns = (double)f.u - f.fit.sigma / f.fit.xi;
    } else {
        r->shape_meaning = "exponential-like tail: the worst case grows with the log of the "
                           "run's length";
    }
    static const double defaults[] = {TAIL_DEFAULT_P1, TAIL_DEFAULT_P2, TAIL_DEFAULT_P3};
    const double *ps = in->nprobabilities ? in->probabilities : defaults;
    size_t np = in->nprobabilities ? in->nprobabilities : 3;
    r->nestimates = np;
    /* The GPD's side of the GEV check: its 1e-9 level at the check's
     * confidence, with the estimate at 1e-9 when there is one, and before
     * the split-half check reuses the observations' buffer. */
    bool want_check = in->block_max && in->nblock >= GEV_MIN_BLOCKS && 1e-9 < f.zeta;
    struct tail_value pot_check = {NAN, NAN, NAN};
    const double confs[2] = {confidence, GEV_CHECK_CONFIDENCE};
    for (size_t i = 0; i < np; i++) {
        r->estimates[i].probability = ps[i];
        if (ps[i] >= f.zeta) {
            r->estimates[i].ns = tail_empirical_level(d, ps[i], confidence);
        } else if (ps[i] == 1e-9 && want_check && isnan(pot_check.value)) {
            struct tail_value two[2];
            pot_levels(&f, ps[i], 2, confs, two);
            r->estimates[i].ns = two[0];
            pot_check = two[1];
        } else {
            r->estimates[i].ns = pot_level(&f, ps[i], confidence);
        }
    }
    if (want_check && isnan(pot_check.value))
        pot_check = pot_level(&f, 1e-9, GEV_CHECK_CONFIDENCE);
    if (in->budget_ns >= 0) {
        r->has_budget = true;
        r->budget_ns = in->budget_ns;
        struct tail_value *b = &r->budget_per_cycle;
        if (in->budget_ns >= f.u) {
            double s = gpd_profile(f.obs, f.nobs, &f.fit, GPD_TARGET_SF,
                                   (double)(in->budget_ns - f.u), confidence, &lo, &hi);
            *b = (struct tail_value){f.zeta * s, f.zeta * lo, f.zeta * hi};
        } else {
            uint64_t above = 0;
            for (size_t i = 0; i < d->nbins; i++)
                if (d->bins[i].lo > in->budget_ns)
                    above += d->bins[i].count;
            b->value = (double)above / (double)d->n;
            binomial_interval(above, d->n, confidence, &b->lo, &b->hi);
        }
        double cyc = NS_PER_HOUR / (double)in->interval_ns;
        r->budget_per_hour = (struct tail_value){per_cycles(b->value, cyc), per_cycles(b->lo, cyc),
                                                 per_cycles(b->hi, cyc)};
        cyc *= HOURS_PER_YEAR;
        r->budget_per_year = (struct tail_value){per_cycles(b->value, cyc), per_cycles(b->lo, cyc),
                                                 per_cycles(b->hi, cyc)};
    }
    for (double pc = f.zeta; pc >= 1e-12 && r->ncurve < TAIL_MAX_CURVE; pc /= pow(10, 1.0 / 3)) {
        struct tail_estimate *e = &r->curve[r->ncurve++];
        e->probability = pc;
        double x = gpd_isf(pc / f.zeta, f.fit.xi, f.fit.sigma);
        gpd_level_wald(&f.fit, pc / f.zeta, confidence, &lo, &hi);
        e->ns = (struct tail_value){(double)f.u + x, (double)f.u + lo, (double)f.u + hi};
    }

    tail_split_half(in, confidence, &r->checks[TAIL_CHECK_SPLIT_HALF], obs);
    tail_gev_part(in, r, bm, confidence, pot_check);

    /* The verdict: the first failed check, in the order of what to fix first. */
    const struct tail_check *c = r->checks;
    char pbuf[32];
    if (c[TAIL_CHECK_MANN_KENDALL].state == TAIL_CHECK_FAILED) {
        snprintf(pbuf, sizeof(pbuf), "%.2g", c[TAIL_CHECK_MANN_KENDALL].p_value);
        refuse(r,
               "find and fix the trend (a warming machine, a growing load, a leak), then "
               "measure again",
               "the window maxima trend %s (Mann-Kendall p = %s)",
               c[TAIL_CHECK_MANN_KENDALL].statistic > 0 ? "upward" : "downward", pbuf);
    } else if (c[TAIL_CHECK_LJUNG_BOX].state == TAIL_CHECK_FAILED) {
        refuse(r, "find the slow or periodic disturbance (run --explain), then measure again",
               "window maxima are not independent (Ljung-Box p = %.2g)",
               c[TAIL_CHECK_LJUNG_BOX].p_value);
    } else if (c[TAIL_CHECK_EXTREMAL_INDEX].state == TAIL_CHECK_FAILED) {
        refuse(r,
               "the spikes come in bursts: explain them (run --explain) and remove their "
               "cause, then measure again",
               "strong clustering: exceedances come in bursts (extremal index %.2f)",
               r->extremal_index);
    } else if (c[TAIL_CHECK_GOF].state == TAIL_CHECK_FAILED) {
        refuse(r, "give a higher --threshold, or let the ladder choose one",
               "the GPD does not fit above %lld ns (%s p = %.2g)", (long long)f.u,
               c[TAIL_CHECK_GOF].method, c[TAIL_CHECK_GOF].p_value);
    } else if (c[TAIL_CHECK_SPLIT_HALF].state == TAIL_CHECK_FAILED) {
        refuse(r, "measure longer under steady conditions",
               "the two halves of the run disagree (split-half p = %.2g)",
               c[TAIL_CHECK_SPLIT_HALF].p_value);
    } else if (c[TAIL_CHECK_GEV_AGREEMENT].state == TAIL_CHECK_FAILED) {
        refuse(r, ADVICE_LONGER,
               "the threshold fit and the window maxima disagree on the 1e-9 level");
    } else {
        r->verdict = TAIL_ESTIMATE;
        r->reason[0] = r->advice[0] = 0;
        return;
    }
    /* Never a number the checks reject. */
    r->shape = r->scale = (struct tail_value){NAN, NAN, NAN};
    for (size_t i = 0; i < r->nestimates; i++)
        r->estimates[i].ns = r->shape;
    r->budget_per_cycle = r->budget_per_hour = r->budget_per_year = r->shape;
    r->ncurve = 0;
    r->upper_endpoint_ns = INFINITY;
    r->shape_meaning = NULL;
}

int tail_analyse(const struct tail_input *in, struct tail_result *out, char *err, size_t errlen)
{
    gsl_quiet_once();
    result_init(out);
    if (validate(in, err, errlen) != 0) {
        snprintf(out->reason, sizeof(out->reason), "%s", err);
        return -1;
    }
    double confidence = in->confidence ? in->confidence : 0.95;
    struct dataset d;
    int rc = -1;
    struct gpd_obs *obs = NULL;
    struct rung_fit *rungs = malloc(TAIL_MAX_LADDER * sizeof(*rungs));
    double *bm = malloc((in->nblock + 1) * sizeof(*bm));
    struct tail_input probe = *in;
    probe.seq = NULL;
    if (!rungs || !bm || tail_dataset_make(&probe, 0, &d) != 0)
        goto out;
    out->exact_samples = in->seq && in->nseq > 0;
    if (out->exact_samples) {
        int64_t u0 = tail_lowest_rung(&d);
        if (in->threshold_ns >= 0 && tail_snap_threshold(&d, in->threshold_ns) < u0)
            u0 = tail_snap_threshold(&d, in->threshold_ns);
        tail_dataset_free(&d);
        if (tail_dataset_make(in, u0, &d) != 0)
            goto out;
    }
    obs = malloc((d.nbins + d.nexact + 1) * sizeof(*obs));
    if (!obs)
        goto out;
    analyse(in, &d, out, confidence, obs, rungs, bm);
    /* A check a refusal came before says so, never an empty why. */
    for (size_t i = 0; i < TAIL_NCHECKS; i++)
        if (out->checks[i].state == TAIL_CHECK_NOT_RUN && !out->checks[i].why[0])
            snprintf(out->checks[i].why, sizeof(out->checks[i].why), "%s",
                     out->verdict == TAIL_CANNOT_ESTIMATE
                         ? "not reached: the estimate was refused first"
                         : "not run");
    rc = 0;
out:
    if (rc != 0) {
        snprintf(err, errlen, "out of memory");
        snprintf(out->reason, sizeof(out->reason), "%s", err);
    }
    tail_dataset_free(&d);
    free(obs);
    free(rungs);
    free(bm);
    return rc;
}

struct tail_value tail_level(const struct tail_input *in, const struct tail_result *r, double p)
{
    struct tail_value v = {NAN, NAN, NAN};
    if (r->verdict != TAIL_ESTIMATE || !(p > 0) || p > r->exceedance_rate)
        return v;
    if (p == r->exceedance_rate)
        return (struct tail_value){(double)r->threshold_ns, (double)r->threshold_ns,
                                   (double)r->threshold_ns};
    for (size_t i = 0; i < r->nestimates; i++)
        if (r->estimates[i].probability == p)
            return r->estimates[i].ns;
    /* Refit as the analysis did (declustering aside: the clusters' fit is
     * reproduced from the samples by the same run length). */
    struct dataset d;
    struct tail_input probe = *in;
    struct gpd_obs *obs = NULL;
    int64_t *maxima = NULL;
    if (!r->exact_samples)
        probe.seq = NULL;
    if (tail_dataset_make(&probe, r->threshold_ns, &d) != 0)
        goto out;
    obs = malloc((d.nbins + d.nexact + 1) * sizeof(*obs));
    if (!obs)
        goto out;
    struct fitted f = {
        .u = r->threshold_ns, .k = r->exceedances, .zeta = r->exceedance_rate, .obs = obs};
    const int64_t *vals = d.exact;
    size_t nvals = d.nexact;
    if (r->declustered && in->seq) {
        size_t m = 0, c = 0;
        maxima = malloc((r->exceedances + 1) * sizeof(*maxima));
        if (!maxima)
            goto out;
        size_t last = 0;
        for (size_t i = 0; i < in->nseq; i++) {
            if (in->seq[i] < r->threshold_ns)
                continue;
            if (m == 0 || (int64_t)(i - last) > r->run_length)
                maxima[c++] = in->seq[i];
            else if (in->seq[i] > maxima[c - 1])
                maxima[c - 1] = in->seq[i];
            last = i;
            m++;
        }
        if (tail_sort_i64(maxima, c) != 0)
            goto out;
        vals = maxima;
        nvals = c;
    }
    struct gpd_fit start = {.xi = r->shape.value, .sigma = r->scale.value};
    if (fit_at(&d, vals, nvals, &f, &start) == 0)
        v = pot_level(&f, p, in->confidence ? in->confidence : 0.95);
out:
    tail_dataset_free(&d);
    free(obs);
    free(maxima);
    return v;
}

uint64_t tail_count_above(const struct tail_bin *bins, size_t nbins, uint64_t overflow,
                          int64_t threshold_ns)
{
    uint64_t c = overflow;
    for (size_t i = 0; i < nbins; i++)
        if (bins[i].lo > threshold_ns)
            c += bins[i].count;
    return c;
}

struct many_ctx {
    const struct tail_input *in;
    struct tail_result *out;
    size_t n;
    char (*err)[TAIL_ERR_LEN];
    atomic_size_t next, failed;
};

static void *many_worker(void *arg)
{
    struct many_ctx *m = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&m->next, 1);
        if (i >= m->n)
            break;
        char buf[TAIL_ERR_LEN] = "";
        if (tail_analyse(&m->in[i], &m->out[i], buf, sizeof(buf)) != 0) {
            atomic_fetch_add(&m->failed, 1);
            m->out[i].verdict = TAIL_CANNOT_ESTIMATE;
            snprintf(m->out[i].reason, sizeof(m->out[i].reason), "%s", buf);
        }
        if (m->err)
            snprintf(m->err[i], TAIL_ERR_LEN, "%s", buf);
    }
    return NULL;
}

size_t tail_analyse_many(const struct tail_input *in, struct tail_result *out, size_t n,
                         unsigned threads, char (*err)[TAIL_ERR_LEN])
{
    struct many_ctx m = {.in = in, .out = out, .n = n, .err = err};
    atomic_init(&m.next, 0);
    atomic_init(&m.failed, 0);
    if (threads == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c > 0 ? (unsigned)c : 1;
    }
    if (threads > 16)
        threads = 16;
    if (threads > n)
        threads = (unsigned)n;
    pthread_t tid[16];
    unsigned started = 0;
    for (unsigned t = 1; t < threads; t++)
        if (pthread_create(&tid[started], NULL, many_worker, &m) == 0)
            started++;
    many_worker(&m);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    return atomic_load(&m.failed);
}
