/*
 * What the GPD's code (gpd.c) shares with the GEV's (gev.c): the simplex
 * minimiser and the numerical covariance (gpd.c), the profile-likelihood
 * interval search (profile.c). Private to the three.
 */
#ifndef JITTERLAB_STATS_GPD_INTERNAL_H
#define JITTERLAB_STATS_GPD_INTERNAL_H

#include <gsl/gsl_multimin.h>
#include <stdbool.h>
#include <stddef.h>

#define BIG_NLL          1e300
#define PROFILE_MAX_CONF 4 /* confidences one profile search serves */
#define PROFILE_TOL      1e-4

/* A profile likelihood: at() maximises the nuisance at psi, starting from
 * warm (the last psi's nuisance, which it leaves at the new optimum), and
 * gives the profile's slope dP/dpsi (NAN when it has none). The GPD's
 * nuisance is one parameter, the GEV's two. */
struct profile {
    double (*at)(struct profile *p, double psi, double *slope);
    double warm[2];
};

/* expm1(z) / z, continuous at 0. */
double expm1_ratio(double z);
/* The covariance: the inverse of the negated numerical Hessian of f (a
 * log-likelihood over k parameters) at x, steps h; NAN where singular. */
void numeric_cov(double (*f)(const double *, void *), void *ctx, const double *x, size_t k,
                 const double *h, double *cov);
/* Nelder-Mead from x (k parameters, initial steps step): the minimum of f
 * in x, its value returned. */
double nm_minimise(gsl_multimin_function *f, double *x, const double *step, size_t k, int max_iter,
                   double size_tol);
/* The delta method's half-width at confidence (two-sided, normal) of a
 * function with gradient g over k parameters whose covariance is cov (k x
 * k, row-major); NAN when the variance is negative or not a number. */
double delta_half_width(const double *g, const double *cov, size_t k, double confidence);
/* The nconf (<= PROFILE_MAX_CONF) profile intervals at the confidences
 * conf[] in one search from the fit (psi0, log-likelihood ll0, nuisance
 * nuis0), psi kept in [l_lo, l_hi] (profile.c says how), into lo[] / hi[]:
 * exp of the bounds when psi is profiled in logs (in_logs), v_lo / v_hi
 * on a side where the profile stays above the cut up to its limit. */
void profile_intervals(struct profile *c, double ll0, double psi0, const double nuis0[2],
                       double guess, double z_ref, double l_lo, double l_hi, size_t nconf,
                       const double *conf, bool in_logs, double v_lo, double v_hi, double *lo,
                       double *hi);

#endif
