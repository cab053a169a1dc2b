/*
 * The two distributions of extreme value theory, their likelihoods, maximum
 * likelihood fits and intervals (stats/tail.c decides what to fit; this file
 * only fits):
 *  - the generalized Pareto distribution (GPD) of excesses over a threshold,
 *    on interval-censored observations (a histogram bucket or a whole
 *    nanosecond is an interval of excess, never a point);
 *  - the generalized extreme value distribution (GEV) of block maxima, on
 *    exact values, with profile likelihood intervals of its shape and of
 *    a level.
 * Pure code on GSL; no global state.
 */
#ifndef JITTERLAB_STATS_GPD_H
#define JITTERLAB_STATS_GPD_H

#include <stdbool.h>
#include <stddef.h>

/* The smallest shape a fit may take: below -0.5 maximum likelihood is not
 * regular (Smith 1985), so the search stops there and says so. */
#define GPD_XI_MIN (-0.5)
/* The largest shape a search or a profile goes to. */
#define GPD_XI_MAX 2.0

/* w observations whose excess over the threshold lies in [a, b) (b may be
 * INFINITY for an open-ended group). */
struct gpd_obs {
    double a, b, w;
};

struct gpd_fit {
    bool ok;
    bool at_bound; /* the shape sits on GPD_XI_MIN: not a regular fit */
    double xi, sigma, loglik;
    /* Covariance of (xi, ln sigma) from the observed information (NAN
     * when the Hessian is not positive definite). */
    double cov[2][2];
};

/* Calls gsl_set_error_handler_off() once for the process, thread-safely:
 * GSL then returns error codes instead of aborting. */
void gsl_quiet_once(void);

/* ln S(x) of GPD(xi, sigma) at excess x >= 0 (-INFINITY beyond the upper
 * endpoint of a bounded tail). Stable for xi near 0 (a series). */
double gpd_log_sf(double x, double xi, double sigma);
/* The excess x with S(x) = sf (0 < sf <= 1). */
double gpd_isf(double sf, double xi, double sigma);
/* sigma such that S(x) = sf at the given xi (x > 0, 0 < sf < 1). */
double gpd_sigma_through(double x, double sf, double xi);

/* The log-likelihood of the grouped observations: sum w ln(S(a) - S(b)). */
double gpd_loglik(const struct gpd_obs *obs, size_t n, double xi, double sigma);

/* The same with its gradient g and Hessian h (h[0] = d2/dxi2, h[1] =
 * d2/dxi dls, h[2] = d2/dls2) over (xi, ls = ln sigma), analytic. */
double gpd_loglik_derivs(const struct gpd_obs *obs, size_t n, double xi, double sigma, double g[2],
                         double h[3]);

/* The maximum likelihood fit over (xi, ln sigma), xi in [GPD_XI_MIN,
 * GPD_XI_MAX]. Starts from xi0, sigma0 when finite (a neighbouring fit),
 * else from the method of moments on the midpoints. 0, or -1 when the
 * likelihood is flat or undefined everywhere it looked. */
int gpd_fit(const struct gpd_obs *obs, size_t n, double xi0, double sigma0, struct gpd_fit *fit);

/* What a profile likelihood interval is about. */
enum gpd_target {
    GPD_TARGET_XI,
    GPD_TARGET_SIGMA,
    GPD_TARGET_LEVEL, /* the excess x with S(x) = arg */
    GPD_TARGET_SF,    /* S(arg): the survival at excess arg */
};

/* The profile likelihood interval at confidence of the target, from the
 * fit. lo and hi are the bounds (NAN when the search failed); a side the
 * likelihood does not bound within the search's reach is the end of the
 * parameter's range: xi GPD_XI_MIN or INFINITY, sigma and levels 0 or
 * INFINITY, survivals 0 or 1. Returns the value at the fit. */
double gpd_profile(const struct gpd_obs *obs, size_t n, const struct gpd_fit *fit,
                   enum gpd_target target, double arg, double confidence, double *lo, double *hi);
/* The same at nconf (1 to 4) confidences conf[] at once, into lo[] and
 * hi[]: the wider intervals continue the narrower ones' search. */
double gpd_profile_multi(const struct gpd_obs *obs, size_t n, const struct gpd_fit *fit,
                         enum gpd_target target, double arg, size_t nconf, const double *conf,
                         double *lo, double *hi);

/* The delta-method (Wald) interval of the excess level with S(x) = sf. */
void gpd_level_wald(const struct gpd_fit *fit, double sf, double confidence, double *lo,
                    double *hi);

struct gev_fit {
    bool ok;
    double xi, mu, sigma, loglik;
    double cov[3][3]; /* of (mu, ln sigma, xi); NAN when not definite */
};

/* The GEV maximum likelihood fit to n >= 3 exact maxima. 0 or -1. */
int gev_fit(const double *x, size_t n, struct gev_fit *fit);
/* The value a block maximum stays below with probability P, given as
 * neg_log_p = -ln P (> 0) so that P close to 1 keeps its precision. */
double gev_quantile(double neg_log_p, double xi, double mu, double sigma);
/* The delta-method interval of gev_quantile. */
void gev_quantile_wald(const struct gev_fit *fit, double neg_log_p, double confidence, double *lo,
                       double *hi);

/* The smallest GEV shape a fit or a profile takes. */
#define GEV_XI_MIN (-1.0)

enum gev_target {
    GEV_TARGET_XI,
    GEV_TARGET_LEVEL, /* gev_quantile(neg_log_p) */
};

/* The profile likelihood intervals at the nconf (1 to 4) confidences
 * conf[], into lo[] and hi[], of the GEV's shape or of its level at
 * neg_log_p, from the fit to the n maxima x: the location is
 * put through the level (or the shape fixed) and the two other parameters
 * maximised. A side the likelihood does not bound is the end of the
 * range: the shape GEV_XI_MIN or INFINITY, the level 0 or INFINITY (a
 * level is profiled in logs: never negative). lo and hi NAN when the
 * search failed (and for a level <= 0). Returns the value at the fit. */
double gev_profile(const double *x, size_t n, const struct gev_fit *fit, enum gev_target target,
                   double neg_log_p, size_t nconf, const double *conf, double *lo, double *hi);

#endif
