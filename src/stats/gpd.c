/*
 * GPD and GEV likelihoods, fits and intervals (see gpd.h).
 *
 * The GPD survival S(x) = (1 + xi x / sigma)^(-1/xi) is computed as its
 * logarithm, -log1p(xi x / sigma) / xi, with the series -t (1 - y/2 + y^2/3)
 * (t = x / sigma, y = xi t) when |y| < 1e-6, so the exponential limit
 * xi -> 0 needs no special case. A group of w observations in [a, b) adds
 * w ln(S(a) - S(b)) = w (ln S(a) + ln(-expm1(ln S(b) - ln S(a)))), exact
 * even when the two survivals differ in their last digits.
 *
 * Fits: Nelder-Mead (gsl_multimin nmsimplex2) over (xi, ln sigma), xi kept
 * in [-0.5, 2]: below -0.5 the maximum likelihood estimator is not regular,
 * so a fit that reaches -0.5 is marked at_bound. Start: the method of
 * moments on the groups' midpoints. The covariance is the inverse of the
 * observed information (a numerical Hessian).
 *
 * Profile likelihood intervals: the parameter of interest psi is fixed, the
 * other maximised (gsl_min Brent, warm-started from the neighbouring
 * psi), and the bounds are the roots (gsl_roots Brent) of
 * profile(psi) = max - chi2_1(confidence) / 2, bracketed by steps that
 * double outward from the fit. Levels and survivals are profiled by
 * reparametrising sigma through the point (x, S(x)) of the fitted curve:
 * sigma = xi x / expm1(-xi ln S), the nuisance being xi.
 *
 * GEV: Nelder-Mead over (mu, ln sigma, xi) on exact maxima, Gumbel moments
 * as the start; intervals by the delta method.
 */
#include "stats/gpd.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <pthread.h>

#define BIG_NLL 1e300

static pthread_once_t gsl_quiet = PTHREAD_ONCE_INIT;

static void gsl_quiet_init(void)
{
    gsl_set_error_handler_off();
}

void gsl_quiet_once(void)
{
    pthread_once(&gsl_quiet, gsl_quiet_init);
}

double gpd_log_sf(double x, double xi, double sigma)
{
    if (x <= 0)
        return 0;
    double t = x / sigma, y = xi * t;
    if (y <= -1)
        return -INFINITY;
    if (fabs(y) < 1e-6)
        return -t * (1 - y / 2 + y * y / 3);
    return -log1p(y) / xi;
}

/* expm1(z) / z, continuous at 0. */
static double expm1_ratio(double z)
{
    if (fabs(z) < 1e-6)
        return 1 + z / 2 + z * z / 6;
    return expm1(z) / z;
}

double gpd_isf(double sf, double xi, double sigma)
{
    double l = -log(sf);
    return sigma * l * expm1_ratio(xi * l);
}

double gpd_sigma_through(double x, double sf, double xi)
{
    double l = -log(sf);
    return x / (l * expm1_ratio(xi * l));
}

double gpd_loglik(const struct gpd_obs *obs, size_t n, double xi, double sigma)
{
    if (!(sigma > 0) || !isfinite(sigma) || !isfinite(xi))
        return -INFINITY;
    double ll = 0;
    for (size_t i = 0; i < n; i++) {
        double la = gpd_log_sf(obs[i].a, xi, sigma);
        if (la == -INFINITY)
            return -INFINITY;
        double term = la;
        if (isfinite(obs[i].b)) {
            double lb = gpd_log_sf(obs[i].b, xi, sigma);
            double d = lb - la;
            if (!(d < 0))
                return -INFINITY;
            term += log(-expm1(d));
        }
        ll += obs[i].w * term;
    }
    return ll;
}

struct gpd_problem {
    const struct gpd_obs *obs;
    size_t n;
};

static double gpd_nll_vec(const gsl_vector *v, void *params)
{
    const struct gpd_problem *p = params;
    double xi = gsl_vector_get(v, 0), ls = gsl_vector_get(v, 1);
    if (!(xi >= GPD_XI_MIN && xi <= GPD_XI_MAX) || fabs(ls) > 700)
        return BIG_NLL;
    double ll = gpd_loglik(p->obs, p->n, xi, exp(ls));
    return isfinite(ll) ? -ll : BIG_NLL;
}

static void gpd_start(const struct gpd_obs *obs, size_t n, double *xi, double *sigma)
{
    double sw = 0, m = 0, m2 = 0, amax = 0;
    for (size_t i = 0; i < n; i++) {
        double x = isfinite(obs[i].b) ? (obs[i].a + obs[i].b) / 2 : obs[i].a;
        sw += obs[i].w;
        m += obs[i].w * x;
        m2 += obs[i].w * x * x;
        if (obs[i].a > amax)
            amax = obs[i].a;
    }
    m /= sw;
    double v = m2 / sw - m * m;
    double x0 = 0.1, s0 = m > 0 ? m : 1;
    if (v > 0 && m > 0) {
        double r = m * m / v;
        x0 = 0.5 * (1 - r);
        s0 = 0.5 * m * (r + 1);
    }
    if (x0 < -0.4)
        x0 = -0.4;
    if (x0 > 0.9)
        x0 = 0.9;
    if (x0 < 0 && s0 <= -x0 * amax * 1.05)
        s0 = -x0 * amax * 1.05 + 1e-9;
    *xi = x0;
    *sigma = s0;
}

/* Inverse of a symmetric positive definite k x k matrix in place (k <= 3);
 * -1 when it is not positive definite. */
static int spd_invert(double *a, size_t k)
{
    gsl_matrix_view m = gsl_matrix_view_array(a, k, k);
    for (size_t i = 0; i < k * k; i++)
        if (!isfinite(a[i]))
            return -1;
    if (gsl_linalg_cholesky_decomp1(&m.matrix) != GSL_SUCCESS)
        return -1;
    if (gsl_linalg_cholesky_invert(&m.matrix) != GSL_SUCCESS)
        return -1;
    return 0;
}

/* The covariance: the inverse of the negated numerical Hessian of f (a
 * log-likelihood over k parameters) at x. */
static void numeric_cov(double (*f)(const double *, void *), void *ctx, const double *x, size_t k,
                        const double *h, double *cov)
{
    double f0 = f(x, ctx), p[3];
    for (size_t i = 0; i < k; i++)
        for (size_t j = i; j < k; j++) {
            double d;
            for (size_t q = 0; q < k; q++)
                p[q] = x[q];
            if (i == j) {
                p[i] = x[i] + h[i];
                double fp = f(p, ctx);
                p[i] = x[i] - h[i];
                double fm = f(p, ctx);
                d = (fp - 2 * f0 + fm) / (h[i] * h[i]);
            } else {
                double s[4];
                int sg[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
                for (int c = 0; c < 4; c++) {
                    p[i] = x[i] + sg[c][0] * h[i];
                    p[j] = x[j] + sg[c][1] * h[j];
                    s[c] = f(p, ctx);
                }
                d = (s[0] - s[1] - s[2] + s[3]) / (4 * h[i] * h[j]);
            }
            cov[i * k + j] = cov[j * k + i] = -d;
        }
    if (spd_invert(cov, k) != 0)
        for (size_t i = 0; i < k * k; i++)
            cov[i] = NAN;
}

static double gpd_ll_arr(const double *x, void *ctx)
{
    const struct gpd_problem *p = ctx;
    return gpd_loglik(p->obs, p->n, x[0], exp(x[1]));
}

/* Nelder-Mead from x (k parameters, initial steps step): the minimum of f
 * in x, its value returned. */
static double nm_minimise(gsl_multimin_function *f, double *x, const double *step, size_t k,
                          int max_iter, double size_tol)
{
    gsl_multimin_fminimizer *s =
        gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, k);
    if (!s)
        return NAN;
    gsl_vector_view xv = gsl_vector_view_array(x, k);
    gsl_vector_const_view sv = gsl_vector_const_view_array(step, k);
    gsl_multimin_fminimizer_set(s, f, &xv.vector, &sv.vector);
    for (int it = 0; it < max_iter; it++) {
        if (gsl_multimin_fminimizer_iterate(s) != GSL_SUCCESS)
            break;
        if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(s), size_tol) == GSL_SUCCESS)
            break;
    }
    for (size_t i = 0; i < k; i++)
        x[i] = gsl_vector_get(s->x, i);
    double v = s->fval;
    gsl_multimin_fminimizer_free(s);
    return v;
}

int gpd_fit(const struct gpd_obs *obs, size_t n, double xi0, double sigma0, struct gpd_fit *fit)
{
    gsl_quiet_once();
    fit->ok = false;
    fit->at_bound = false;
    fit->xi = fit->sigma = fit->loglik = NAN;
    for (int i = 0; i < 4; i++)
        fit->cov[i / 2][i % 2] = NAN;
    if (n == 0)
        return -1;
    struct gpd_problem prob = {obs, n};
    double x[2];
    if (!(isfinite(xi0) && sigma0 > 0 && isfinite(gpd_loglik(obs, n, xi0, sigma0))))
        gpd_start(obs, n, &xi0, &sigma0);
    if (!isfinite(gpd_loglik(obs, n, xi0, sigma0))) {
        xi0 = 0.1;
        double amax = 0;
        for (size_t i = 0; i < n; i++)
            amax = obs[i].a > amax ? obs[i].a : amax;
        sigma0 = amax > 0 ? amax : 1;
    }
    x[0] = xi0;
    x[1] = log(sigma0);
    gsl_multimin_function f = {gpd_nll_vec, 2, &prob};
    double step[2] = {0.1, 0.2};
    double v = nm_minimise(&f, x, step, 2, 400, 1e-6);
    /* One restart: the simplex can collapse before the minimum. */
    double step2[2] = {0.02, 0.05};
    v = nm_minimise(&f, x, step2, 2, 200, 1e-7);
    if (!(v < BIG_NLL))
        return -1;
    fit->xi = x[0];
    fit->sigma = exp(x[1]);
    fit->loglik = -v;
    fit->at_bound = x[0] < GPD_XI_MIN + 1e-3;
    double h[2] = {1e-4, 1e-4}, cov[4];
    numeric_cov(gpd_ll_arr, &prob, x, 2, h, cov);
    for (int i = 0; i < 4; i++)
        fit->cov[i / 2][i % 2] = cov[i];
    fit->ok = true;
    return 0;
}

/* ---- profile likelihood ---- */

struct profile_ctx {
    const struct gpd_obs *obs;
    size_t n;
    enum gpd_target target;
    double arg;
    double psi; /* the fixed parameter of interest */
    double nuis_lo, nuis_hi, nuis_last;
    gsl_min_fminimizer *min;
};

/* The log-likelihood at psi (ctx->psi) and nuisance v. */
static double profile_ll(struct profile_ctx *c, double v)
{
    double xi, sigma;
    switch (c->target) {
    case GPD_TARGET_XI:
        xi = c->psi;
        sigma = exp(v);
        break;
    case GPD_TARGET_SIGMA:
        xi = v;
        sigma = exp(c->psi);
        break;
    case GPD_TARGET_LEVEL:
        xi = v;
        sigma = gpd_sigma_through(exp(c->psi), c->arg, xi);
        break;
    default:
        xi = v;
        sigma = gpd_sigma_through(c->arg, exp(c->psi), xi);
        break;
    }
    double ll = gpd_loglik(c->obs, c->n, xi, sigma);
    return isfinite(ll) ? ll : -BIG_NLL;
}

static double profile_neg(double v, void *p)
{
    return -profile_ll(p, v);
}

/* max over the nuisance in [nuis_lo, nuis_hi], starting at nuis_last. */
static double profile_max(struct profile_ctx *c)
{
    double lo = c->nuis_lo, hi = c->nuis_hi;
    double x0 = c->nuis_last, h = (hi - lo) / 200;
    if (x0 < lo)
        x0 = lo;
    if (x0 > hi)
        x0 = hi;
    double f0 = profile_ll(c, x0);
    double xr = fmin(x0 + h, hi), xl = fmax(x0 - h, lo);
    double fr = profile_ll(c, xr), fl = profile_ll(c, xl);
    double a, m, b, fm;
    if (f0 >= fr && f0 >= fl) {
        a = xl, m = x0, b = xr, fm = f0;
    } else {
        int dir = fr > fl ? 1 : -1;
        double prev = x0, cur = dir > 0 ? xr : xl, fc = dir > 0 ? fr : fl, step = h;
        for (;;) {
            step *= 2;
            double next = cur + dir * step;
            if (next >= hi || next <= lo) {
                next = dir > 0 ? hi : lo;
                double fn = profile_ll(c, next);
                if (fn >= fc) {
                    c->nuis_last = next;
                    return fn;
                }
                a = dir > 0 ? prev : next, m = cur, b = dir > 0 ? next : prev, fm = fc;
                break;
            }
            double fn = profile_ll(c, next);
            if (fn < fc) {
                a = dir > 0 ? prev : next, m = cur, b = dir > 0 ? next : prev, fm = fc;
                break;
            }
            prev = cur, cur = next, fc = fn;
        }
    }
    gsl_function F = {profile_neg, c};
    if (gsl_min_fminimizer_set_with_values(c->min, &F, m, -fm, a, -profile_ll(c, a), b,
                                           -profile_ll(c, b)) != GSL_SUCCESS) {
        c->nuis_last = m;
        return fm;
    }
    for (int it = 0; it < 60; it++) {
        if (gsl_min_fminimizer_iterate(c->min) != GSL_SUCCESS)
            break;
        double l = gsl_min_fminimizer_x_lower(c->min), u = gsl_min_fminimizer_x_upper(c->min);
        if (gsl_min_test_interval(l, u, 1e-5, 1e-6) == GSL_SUCCESS)
            break;
    }
    c->nuis_last = gsl_min_fminimizer_x_minimum(c->min);
    return -gsl_min_fminimizer_f_minimum(c->min);
}

struct root_ctx {
    struct profile_ctx *p;
    double cut;
};

static double profile_gap(double psi, void *params)
{
    struct root_ctx *r = params;
    r->p->psi = psi;
    return profile_max(r->p) - r->cut;
}

/* One side of the interval: from psi0 (above the cut) in direction dir,
 * first step step, no further than limit. Returns the bound, or NAN with
 * *unbounded set when the profile stays above the cut up to limit, NAN
 * alone on failure. */
static double profile_side(struct root_ctx *r, double psi0, double nuis0, int dir, double step,
                           double limit, bool *unbounded)
{
    *unbounded = false;
    struct profile_ctx *c = r->p;
    c->nuis_last = nuis0;
    double prev = psi0, cur = psi0;
    double gprev = 1;
    for (int k = 0; k < 40; k++) {
        cur = psi0 + dir * step;
        bool last = dir > 0 ? cur >= limit : cur <= limit;
        if (last)
            cur = limit;
        double g = profile_gap(cur, r);
        if (g < 0)
            break;
        if (last) {
            *unbounded = true;
            return NAN;
        }
        prev = cur;
        gprev = g;
        step *= 2;
    }
    if (!(gprev > 0))
        return NAN;
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!s)
        return NAN;
    gsl_function F = {profile_gap, r};
    double lo = fmin(prev, cur), hi = fmax(prev, cur), root = NAN;
    if (gsl_root_fsolver_set(s, &F, lo, hi) == GSL_SUCCESS) {
        for (int it = 0; it < 60; it++) {
            if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
                break;
            root = gsl_root_fsolver_root(s);
            double l = gsl_root_fsolver_x_lower(s), u = gsl_root_fsolver_x_upper(s);
            if (gsl_root_test_interval(l, u, 1e-6, 1e-5) == GSL_SUCCESS)
                break;
        }
    }
    gsl_root_fsolver_free(s);
    return root;
}

double gpd_profile(const struct gpd_obs *obs, size_t n, const struct gpd_fit *fit,
                   enum gpd_target target, double arg, double confidence, double *lo, double *hi)
{
    gsl_quiet_once();
    *lo = *hi = NAN;
    if (!fit->ok)
        return NAN;
    struct profile_ctx c = {.obs = obs, .n = n, .target = target, .arg = arg};
    c.min = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
    if (!c.min)
        return NAN;
    struct root_ctx r = {&c, fit->loglik - 0.5 * gsl_cdf_chisq_Pinv(confidence, 1)};
    double ls = log(fit->sigma), value, psi0, nuis0, step;
    double vxi = fit->cov[0][0], vls = fit->cov[1][1];
    double se_xi = vxi > 0 ? sqrt(vxi) : 0.05, se_ls = vls > 0 ? sqrt(vls) : 0.05;
    double l_lo, l_hi, v_lo, v_hi;
    switch (target) {
    case GPD_TARGET_XI:
        value = psi0 = fit->xi;
        nuis0 = ls;
        c.nuis_lo = ls - 15, c.nuis_hi = ls + 15;
        step = se_xi;
        l_lo = GPD_XI_MIN, l_hi = GPD_XI_MAX, v_lo = GPD_XI_MIN, v_hi = INFINITY;
        break;
    case GPD_TARGET_SIGMA:
        value = fit->sigma;
        psi0 = ls;
        nuis0 = fit->xi;
        c.nuis_lo = GPD_XI_MIN, c.nuis_hi = GPD_XI_MAX;
        step = se_ls;
        l_lo = ls - 15, l_hi = ls + 15, v_lo = 0, v_hi = INFINITY;
        break;
    case GPD_TARGET_LEVEL:
        value = gpd_isf(arg, fit->xi, fit->sigma);
        psi0 = log(value);
        nuis0 = fit->xi;
        c.nuis_lo = GPD_XI_MIN, c.nuis_hi = GPD_XI_MAX;
        step = 0.5 * se_xi * fabs(log(arg)) + se_ls;
        l_lo = psi0 - 30, l_hi = psi0 + 30, v_lo = 0, v_hi = INFINITY;
        break;
    default:
        value = exp(gpd_log_sf(arg, fit->xi, fit->sigma));
        psi0 = log(value);
        nuis0 = fit->xi;
        c.nuis_lo = GPD_XI_MIN, c.nuis_hi = GPD_XI_MAX;
        step = fmax(0.05, fabs(psi0) * se_xi);
        l_lo = psi0 - 200, l_hi = -1e-12, v_lo = 0, v_hi = 1;
        break;
    }
    if (!isfinite(psi0) || !(step > 0)) {
        gsl_min_fminimizer_free(c.min);
        return value;
    }
    bool un_lo = psi0 <= l_lo, un_hi = psi0 >= l_hi;
    double b_lo = un_lo ? NAN : profile_side(&r, psi0, nuis0, -1, step, l_lo, &un_lo);
    double b_hi = un_hi ? NAN : profile_side(&r, psi0, nuis0, 1, step, l_hi, &un_hi);
    gsl_min_fminimizer_free(c.min);
    bool plain = target == GPD_TARGET_XI;
    *lo = un_lo ? v_lo : plain ? b_lo : exp(b_lo);
    *hi = un_hi ? v_hi : plain ? b_hi : exp(b_hi);
    return value;
}

void gpd_level_wald(const struct gpd_fit *fit, double sf, double confidence, double *lo, double *hi)
{
    *lo = *hi = NAN;
    double x = gpd_isf(sf, fit->xi, fit->sigma);
    double h = 1e-5;
    double dxi =
        (gpd_isf(sf, fit->xi + h, fit->sigma) - gpd_isf(sf, fit->xi - h, fit->sigma)) / (2 * h);
    double g[2] = {dxi, x};
    double var = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            var += g[i] * fit->cov[i][j] * g[j];
    if (!(var >= 0))
        return;
    double z = gsl_cdf_ugaussian_Qinv((1 - confidence) / 2) * sqrt(var);
    *lo = fmax(0, x - z);
    *hi = x + z;
}

/* ---- GEV ---- */

struct gev_problem {
    const double *x;
    size_t n;
};

static double gev_loglik(const double *x, size_t n, double mu, double ls, double xi)
{
    double ll = 0;
    for (size_t i = 0; i < n; i++) {
        double z = (x[i] - mu) / exp(ls);
        if (fabs(xi) < 1e-7) {
            ll += -ls - z - exp(-z);
        } else {
            double t = 1 + xi * z;
            if (!(t > 0))
                return -INFINITY;
            double lt = log1p(xi * z);
            ll += -ls - (1 + 1 / xi) * lt - exp(-lt / xi);
        }
    }
    return ll;
}

static double gev_ll_arr(const double *p, void *ctx)
{
    const struct gev_problem *g = ctx;
    return gev_loglik(g->x, g->n, p[0], p[1], p[2]);
}

static double gev_nll_vec(const gsl_vector *v, void *ctx)
{
    double p[3] = {gsl_vector_get(v, 0), gsl_vector_get(v, 1), gsl_vector_get(v, 2)};
    if (!(p[2] >= -1 && p[2] <= GPD_XI_MAX) || fabs(p[1]) > 700)
        return BIG_NLL;
    double ll = gev_ll_arr(p, ctx);
    return isfinite(ll) ? -ll : BIG_NLL;
}

int gev_fit(const double *x, size_t n, struct gev_fit *fit)
{
    gsl_quiet_once();
    fit->ok = false;
    fit->xi = fit->mu = fit->sigma = fit->loglik = NAN;
    for (int i = 0; i < 9; i++)
        fit->cov[i / 3][i % 3] = NAN;
    if (n < 3)
        return -1;
    double m = 0, m2 = 0;
    for (size_t i = 0; i < n; i++)
        m += x[i];
    m /= (double)n;
    for (size_t i = 0; i < n; i++)
        m2 += (x[i] - m) * (x[i] - m);
    double sd = sqrt(m2 / (double)(n - 1));
    if (!(sd > 0))
        return -1;
    struct gev_problem prob = {x, n};
    double s0 = sqrt(6) * sd / M_PI;
    double p[3] = {m - 0.5772 * s0, log(s0), 0.1};
    if (!isfinite(gev_ll_arr(p, &prob)))
        p[2] = 0;
    gsl_multimin_function f = {gev_nll_vec, 3, &prob};
    double step[3] = {0.3 * s0, 0.2, 0.1};
    double v = nm_minimise(&f, p, step, 3, 1000, 1e-7);
    double step2[3] = {0.05 * s0, 0.05, 0.02};
    v = nm_minimise(&f, p, step2, 3, 500, 1e-8);
    if (!(v < BIG_NLL))
        return -1;
    fit->mu = p[0];
    fit->sigma = exp(p[1]);
    fit->xi = p[2];
    fit->loglik = -v;
    double h[3] = {1e-4 * fit->sigma, 1e-4, 1e-4}, cov[9];
    numeric_cov(gev_ll_arr, &prob, p, 3, h, cov);
    for (int i = 0; i < 9; i++)
        fit->cov[i / 3][i % 3] = cov[i];
    fit->ok = true;
    return 0;
}

double gev_quantile(double neg_log_p, double xi, double mu, double sigma)
{
    double ly = log(neg_log_p);
    /* mu + sigma (y^-xi - 1) / xi = mu - sigma ly expm1(-xi ly) / (-xi ly) */
    return mu - sigma * ly * expm1_ratio(-xi * ly);
}

void gev_quantile_wald(const struct gev_fit *fit, double neg_log_p, double confidence, double *lo,
                       double *hi)
{
    *lo = *hi = NAN;
    double p[3] = {fit->mu, log(fit->sigma), fit->xi}, g[3];
    double h[3] = {1e-4 * fit->sigma, 1e-5, 1e-5};
    for (int i = 0; i < 3; i++) {
        double a[3] = {p[0], p[1], p[2]}, b[3] = {p[0], p[1], p[2]};
        a[i] += h[i];
        b[i] -= h[i];
        g[i] = (gev_quantile(neg_log_p, a[2], a[0], exp(a[1])) -
                gev_quantile(neg_log_p, b[2], b[0], exp(b[1]))) /
               (2 * h[i]);
    }
    double var = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            var += g[i] * fit->cov[i][j] * g[j];
    if (!(var >= 0))
        return;
    double x = gev_quantile(neg_log_p, fit->xi, fit->mu, fit->sigma);
    double z = gsl_cdf_ugaussian_Qinv((1 - confidence) / 2) * sqrt(var);
    *lo = x - z;
    *hi = x + z;
}
