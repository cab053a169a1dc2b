/*
 * The checks of the tail analysis (see evt_checks.h).
 *
 * Ljung-Box: Q = n (n + 2) sum_k r_k^2 / (n - k), chi-square with h degrees
 * of freedom. Mann-Kendall: S = sum sign(x_j - x_i) over i < j, variance
 * (n(n-1)(2n+5) - sum t(t-1)(2t+5)) / 18 over tie groups of size t, z with
 * continuity correction, two-sided normal p. Extremal index: Ferro & Segers
 * (2003, JRSS B 65:545), the intervals estimator on the gaps T between
 * neighbouring exceedances: 2 (sum T)^2 / ((N-1) sum T^2) when no gap
 * exceeds 2, else 2 (sum (T-1))^2 / ((N-1) sum (T-1)(T-2)), capped at 1.
 * Anderson-Darling: A^2 = -n - (1/n) sum (2i-1) (ln z_i + ln(1 - z_{n+1-i})),
 * its p value from Table 2 of Choulakian & Stephens (2001, Technometrics
 * 43:478), "Goodness-of-fit tests for the generalized Pareto distribution",
 * the case with shape and scale estimated (the numbers as the PALM
 * toolbox's palm_pareto.m carries them; the paper writes k = -xi).
 * Clopper-Pearson: the bounds are quantiles of beta distributions, found by
 * bisection on the beta CDF (gsl_cdf_beta_P and _Q hold for any n, their
 * inverses do not).
 */
#include "stats/evt_checks.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

double ljung_box(const double *x, size_t n, size_t h, double *p)
{
    *p = NAN;
    if (n < 3 || h < 1 || h >= n)
        return NAN;
    double m = 0, c0 = 0, q = 0;
    for (size_t i = 0; i < n; i++)
        m += x[i];
    m /= (double)n;
    for (size_t i = 0; i < n; i++)
        c0 += (x[i] - m) * (x[i] - m);
    if (!(c0 > 0)) {
        *p = 1;
        return 0;
    }
    for (size_t k = 1; k <= h; k++) {
        double ck = 0;
        for (size_t i = k; i < n; i++)
            ck += (x[i] - m) * (x[i - k] - m);
        double r = ck / c0;
        q += r * r / (double)(n - k);
    }
    q *= (double)n * (double)(n + 2);
    *p = gsl_cdf_chisq_Q(q, (double)h);
    return q;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double mann_kendall(const double *x, size_t n, double *p)
{
    *p = NAN;
    if (n < 3)
        return NAN;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            s += (x[j] > x[i]) - (x[j] < x[i]);
    double *sorted = malloc(n * sizeof(*sorted));
    if (!sorted)
        return NAN;
    for (size_t i = 0; i < n; i++)
        sorted[i] = x[i];
    qsort(sorted, n, sizeof(*sorted), cmp_double);
    double dn = (double)n, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && sorted[j] == sorted[i])
            j++;
        double t = (double)(j - i);
        ties += t * (t - 1) * (2 * t + 5);
        i = j;
    }
    free(sorted);
    double var = (dn * (dn - 1) * (2 * dn + 5) - ties) / 18;
    if (!(var > 0)) {
        *p = 1;
        return 0;
    }
    double z = s > 0 ? (s - 1) / sqrt(var) : s < 0 ? (s + 1) / sqrt(var) : 0;
    *p = fmin(1, 2 * gsl_cdf_ugaussian_Q(fabs(z)));
    return z;
}

double extremal_index(const size_t *pos, size_t n)
{
    if (n < 2)
        return NAN;
    double s1 = 0, s2 = 0, t1 = 0, t2 = 0, tmax = 0;
    for (size_t i = 1; i < n; i++) {
        double t = (double)(pos[i] - pos[i - 1]);
        s1 += t;
        s2 += t * t;
        t1 += t - 1;
        t2 += (t - 1) * (t - 2);
        tmax = t > tmax ? t : tmax;
    }
    double m = (double)(n - 1), theta;
    if (tmax <= 2)
        theta = 2 * s1 * s1 / (m * s2);
    else
        theta = t2 > 0 ? 2 * t1 * t1 / (m * t2) : 1;
    return theta < 1 ? theta : 1;
}

static int cmp_desc_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

int64_t decluster_run_length(const size_t *pos, size_t n, double theta)
{
    if (n < 2)
        return 0;
    int64_t *gaps = malloc((n - 1) * sizeof(*gaps));
    if (!gaps)
        return 0;
    for (size_t i = 1; i < n; i++)
        gaps[i - 1] = (int64_t)(pos[i] - pos[i - 1]);
    qsort(gaps, n - 1, sizeof(*gaps), cmp_desc_i64);
    size_t clusters = (size_t)ceil(theta * (double)n);
    int64_t r;
    if (clusters < 1)
        clusters = 1;
    /* clusters - 1 gaps separate clusters: the run length is the next one. */
    r = clusters - 1 < n - 1 ? gaps[clusters - 1] : 0;
    free(gaps);
    return r;
}

size_t decluster_maxima(const size_t *pos, const int64_t *values, size_t n, int64_t run_length,
                        int64_t *out)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || (int64_t)(pos[i] - pos[i - 1]) > run_length)
            out[c++] = values[i];
        else if (values[i] > out[c - 1])
            out[c - 1] = values[i];
    }
    return c;
}

double anderson_darling(const double *z, size_t n)
{
    double s = 0, dn = (double)n;
    for (size_t i = 0; i < n; i++) {
        double lo = fmin(fmax(z[i], 1e-300), 1 - 1e-16);
        double hi = fmin(fmax(z[n - 1 - i], 1e-300), 1 - 1e-16);
        s += (2.0 * (double)i + 1) * (log(lo) + log1p(-hi));
    }
    return -dn - s / dn;
}

/* Choulakian & Stephens (2001), Table 2, A^2 with both parameters
 * estimated: rows by xi (the paper's k = -xi), columns the upper-tail
 * levels below. */
#define AD_ROWS   10
#define AD_LEVELS 8
static const double ad_xi[AD_ROWS] = {-0.9, -0.5, -0.2, -0.1, 0, 0.1, 0.2, 0.3, 0.4, 0.5};
static const double ad_level[AD_LEVELS] = {0.5, 0.25, 0.1, 0.05, 0.025, 0.01, 0.005, 0.001};
static const double ad_crit[AD_ROWS][AD_LEVELS] = {
    {0.339, 0.471, 0.641, 0.771, 0.905, 1.086, 1.226, 1.559},
    {0.356, 0.499, 0.685, 0.830, 0.978, 1.180, 1.336, 1.707},
    {0.376, 0.534, 0.741, 0.903, 1.069, 1.296, 1.471, 1.893},
    {0.386, 0.550, 0.766, 0.935, 1.110, 1.348, 1.532, 1.966},
    {0.397, 0.569, 0.796, 0.974, 1.158, 1.409, 1.603, 2.064},
    {0.410, 0.591, 0.831, 1.020, 1.215, 1.481, 1.687, 2.176},
    {0.426, 0.617, 0.873, 1.074, 1.283, 1.567, 1.788, 2.314},
    {0.445, 0.649, 0.924, 1.140, 1.365, 1.672, 1.909, 2.475},
    {0.468, 0.688, 0.985, 1.221, 1.465, 1.799, 2.058, 2.674},
    {0.496, 0.735, 1.061, 1.321, 1.590, 1.958, 2.243, 2.922},
};

double ad_gpd_p(double a2, double xi, int *bound)
{
    /* Beyond the table's shapes the nearest row: its critical values are
     * the closest the paper gives. */
    double x = fmin(fmax(xi, ad_xi[0]), ad_xi[AD_ROWS - 1]);
    size_t r = 0;
    while (r + 2 < AD_ROWS && x > ad_xi[r + 1])
        r++;
    double f = (x - ad_xi[r]) / (ad_xi[r + 1] - ad_xi[r]);
    double crit[AD_LEVELS];
    for (size_t j = 0; j < AD_LEVELS; j++)
        crit[j] = ad_crit[r][j] + f * (ad_crit[r + 1][j] - ad_crit[r][j]);
    *bound = 0;
    if (a2 <= crit[0]) {
        *bound = 1;
        return ad_level[0];
    }
    if (a2 >= crit[AD_LEVELS - 1]) {
        *bound = -1;
        return ad_level[AD_LEVELS - 1];
    }
    size_t j = 0;
    while (a2 > crit[j + 1])
        j++;
    double g = (a2 - crit[j]) / (crit[j + 1] - crit[j]);
    return exp(log(ad_level[j]) + g * (log(ad_level[j + 1]) - log(ad_level[j])));
}

double binomial_two_sided_p(uint64_t k, uint64_t n, double p)
{
    if (n == 0)
        return 1;
    unsigned kk = (unsigned)k, nn = (unsigned)n;
    double lower = gsl_cdf_binomial_P(kk, p, nn);
    double upper = kk == 0 ? 1 : gsl_cdf_binomial_Q(kk - 1, p, nn);
    double two = 2 * fmin(lower, upper);
    return two < 1 ? two : 1;
}

/* The p in (lo, hi) where f(p) = target, f monotone (rising when rising),
 * by bisection in ln p to a relative 1e-12: the bounds of a rate of a few
 * in 1e9 trials and of a share near 1 alike. */
static double solve_rate(double (*f)(double, double, double), double a, double b, double target,
                         bool rising, double lo, double hi)
{
    double llo = log(lo), lhi = log(hi);
    for (int i = 0; i < 200 && lhi - llo > 1e-12; i++) {
        double mid = 0.5 * (llo + lhi), v = f(exp(mid), a, b);
        if ((v < target) == rising)
            llo = mid;
        else
            lhi = mid;
    }
    return exp(0.5 * (llo + lhi));
}

void binomial_interval(uint64_t k, uint64_t n, double confidence, double *lo, double *hi)
{
    *lo = 0, *hi = 1;
    if (n == 0 || k > n)
        return;
    double g = (1 - confidence) / 2, dk = (double)k, dn = (double)n;
    /* lo: P(X >= k | lo) = g, i.e. the Beta(k, n - k + 1) CDF at lo is g;
     * hi: P(X <= k | hi) = g, the Beta(k + 1, n - k) survival at hi is g. */
    if (k > 0)
        *lo = solve_rate(gsl_cdf_beta_P, dk, dn - dk + 1, g, true, 1e-300, dk / dn);
    if (k < n)
        *hi = solve_rate(gsl_cdf_beta_Q, dk + 1, dn - dk, g, false, fmax(dk / dn, 1e-300), 1);
}
