/*
 * GPD likelihoods, fits and intervals (see gpd.h); the GEV's are gev.c's,
 * on the same minimiser, covariance and profile search (gpd_internal.h).
 *
 * The GPD survival S(x) = (1 + xi x / sigma)^(-1/xi) is computed as its
 * logarithm, -log1p(xi x / sigma) / xi, with the series -t (1 - y/2 + y^2/3)
 * (t = x / sigma, y = xi t) when |y| < 1e-6, so the exponential limit
 * xi -> 0 needs no special case. A group of w observations in [a, b) adds
 * w ln(S(a) - S(b)) = w (ln S(a) + ln(-expm1(ln S(b) - ln S(a)))), exact
 * even when the two survivals differ in their last digits.
 *
 * The gradient and Hessian over (xi, ls = ln sigma) are analytic: per edge
 * x, d ln S / d ls = t / (1 + y) and d ln S / d xi = (log1p(y) - y / (1 +
 * y)) / xi^2 (series t^2 (1/2 - 2y/3 + ...) for |y| < 1e-3), and a group's
 * term differentiates as ln(S(a) - S(b)). ln S at an edge is computed once
 * when one group ends where the next begins (neighbouring buckets), so a
 * pass costs about one log1p, one expm1 and one log per bucket.
 *
 * Fits: damped Newton (Levenberg) over (xi, ln sigma) on the analytic
 * Hessian, xi kept in [-0.5, 2]: below -0.5 the maximum likelihood
 * estimator is not regular, so a fit that reaches -0.5 is marked at_bound.
 * Start: the neighbouring rung's fit, else the method of moments on the
 * groups' midpoints. Stops when a step moves both parameters by less than
 * 1e-7. The covariance is the inverse of the observed information.
 *
 * Profile likelihood intervals: the parameter of interest psi is fixed, the
 * other (the nuisance) maximised by Newton steps (to 1e-5) warm-started from the
 * neighbouring psi's, and the bounds are where the profile falls to max -
 * chi2_1(confidence) / 2: from the Wald bound outward until bracketed, then
 * safeguarded Newton on the profile's slope (the envelope theorem gives it
 * from the same pass), to 1e-4 in psi (absolute for xi, relative for
 * sigma, levels and survivals, which are profiled in logs) or 1e-3 in log
 * likelihood. Several confidences share one search: the wider interval's
 * side starts at the narrower's bound, with its nuisance, a step out as
 * long as the Wald widths differ. Levels and survivals are profiled by reparametrising sigma
 * through the point (x, S(x)) of the fitted curve: sigma = xi x / expm1(-xi
 * ln S), the nuisance being xi.
 */
#include "stats/gpd.h"
#include "stats/gpd_internal.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

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
double expm1_ratio(double z)
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

/* ln S at excess x and its derivatives over (xi, ls = ln sigma). */
struct edge {
    double l, d_xi, d_ls, d_xixi, d_xils, d_lsls;
};

/* false beyond the upper endpoint (S = 0). */
static bool edge_eval(double x, double xi, double sigma, bool derivs, struct edge *e)
{
    if (x <= 0) {
        *e = (struct edge){0};
        return true;
    }
    double t = x / sigma, y = xi * t;
    if (y <= -1)
        return false;
    bool small = fabs(y) < 1e-3;
    double lp = small ? 0 : log1p(y);
    e->l = small ? -t * (1 - y * (0.5 - y * (1.0 / 3 - y * 0.25))) : -lp / xi;
    if (!derivs)
        return true;
    double q = 1 / (1 + y);
    e->d_ls = t * q;
    e->d_lsls = -t * q * q;
    e->d_xils = -t * t * q * q;
    if (small) {
        e->d_xi = t * t * (0.5 - y * (2.0 / 3 - y * (0.75 - y * 0.8)));
        e->d_xixi = t * t * t * (-2.0 / 3 + y * (1.5 - y * 2.4));
    } else {
        e->d_xi = (lp - y * q) / (xi * xi);
        e->d_xixi = (2 * y * q - 2 * lp + y * y * q * q) / (xi * xi * xi);
    }
    return true;
}

/* The log-likelihood and, when g and h are given, its gradient and Hessian
 * over (xi, ls). The survival at an edge is computed once when one group
 * ends where the next begins (neighbouring buckets). -INFINITY outside the
 * support. */
static double gpd_eval(const struct gpd_obs *obs, size_t n, double xi, double sigma, double g[2],
                       double h[3])
{
    if (!(sigma > 0) || !isfinite(sigma) || !isfinite(xi))
        return -INFINITY;
    bool derivs = g != NULL;
    double ll = 0, g0 = 0, g1 = 0, h00 = 0, h01 = 0, h11 = 0;
    struct edge ea, eb = {0};
    double last_b = NAN;
    for (size_t i = 0; i < n; i++) {
        const struct gpd_obs *o = &obs[i];
        if (o->a == last_b)
            ea = eb;
        else if (!edge_eval(o->a, xi, sigma, derivs, &ea))
            return -INFINITY;
        double w = o->w;
        if (!isfinite(o->b)) {
            ll += w * ea.l;
            if (derivs) {
                g0 += w * ea.d_xi, g1 += w * ea.d_ls;
                h00 += w * ea.d_xixi, h01 += w * ea.d_xils, h11 += w * ea.d_lsls;
            }
            last_b = NAN;
            continue;
        }
        if (!edge_eval(o->b, xi, sigma, derivs, &eb))
            eb = (struct edge){.l = -INFINITY};
        last_b = o->b;
        double d = eb.l - ea.l;
        if (!(d < 0))
            return -INFINITY;
        double om = -expm1(d);
        ll += w * (ea.l + log(om));
        if (!derivs)
            continue;
        double r = isfinite(eb.l) ? exp(d) : 0;
        double a0 = ea.d_xi, a1 = ea.d_ls, b0 = r ? eb.d_xi : 0, b1 = r ? eb.d_ls : 0;
        double q0 = (a0 - r * b0) / om, q1 = (a1 - r * b1) / om;
        g0 += w * q0, g1 += w * q1;
        h00 += w * ((ea.d_xixi + a0 * a0 - r * (eb.d_xixi + b0 * b0)) / om - q0 * q0);
        h01 += w * ((ea.d_xils + a0 * a1 - r * (eb.d_xils + b0 * b1)) / om - q0 * q1);
        h11 += w * ((ea.d_lsls + a1 * a1 - r * (eb.d_lsls + b1 * b1)) / om - q1 * q1);
    }
    if (derivs) {
        g[0] = g0, g[1] = g1;
        h[0] = h00, h[1] = h01, h[2] = h11;
    }
    return ll;
}

double gpd_loglik(const struct gpd_obs *obs, size_t n, double xi, double sigma)
{
    return gpd_eval(obs, n, xi, sigma, NULL, NULL);
}

double gpd_loglik_derivs(const struct gpd_obs *obs, size_t n, double xi, double sigma, double g[2],
                         double h[3])
{
    return gpd_eval(obs, n, xi, sigma, g, h);
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
void numeric_cov(double (*f)(const double *, void *), void *ctx, const double *x, size_t k,
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

/* Nelder-Mead from x (k parameters, initial steps step): the minimum of f
 * in x, its value returned. */
double nm_minimise(gsl_multimin_function *f, double *x, const double *step, size_t k, int max_iter,
                   double size_tol)
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

/* Damped Newton (Levenberg) ascent over (xi, ls) from x, xi kept in
 * [GPD_XI_MIN, GPD_XI_MAX]: the log-likelihood at the end, x moved there,
 * g and h the derivatives there. */
static double newton_fit(const struct gpd_obs *obs, size_t n, double x[2], double g[2], double h[3])
{
    double ll = gpd_eval(obs, n, x[0], exp(x[1]), g, h);
    double lambda = 0;
    for (int it = 0; it < 100 && isfinite(ll); it++) {
        double a00 = -h[0], a01 = -h[1], a11 = -h[2];
        double sc = fabs(a00) + fabs(a11) + 1e-12;
        bool moved = false, small = false;
        for (int tries = 0; tries < 40 && !moved; tries++) {
            double b00 = a00 + lambda * sc, b11 = a11 + lambda * sc;
            double det = b00 * b11 - a01 * a01;
            double d0, d1;
            if (b00 > 0 && det > 0) {
                d0 = (b11 * g[0] - a01 * g[1]) / det;
                d1 = (b00 * g[1] - a01 * g[0]) / det;
            } else {
                lambda = lambda > 0 ? lambda * 4 : 1e-3;
                continue;
            }
            double nx0 = x[0] + d0, nx1 = x[1] + d1;
            if (nx0 < GPD_XI_MIN) {
                nx0 = GPD_XI_MIN;
                d0 = nx0 - x[0];
                nx1 = x[1] + (b11 > 0 ? (g[1] - a01 * d0) / b11 : d1);
                d1 = nx1 - x[1];
            }
            if (nx0 > GPD_XI_MAX)
                nx0 = GPD_XI_MAX, d0 = nx0 - x[0];
            if (fabs(d0) < 1e-9 && fabs(d1) < 1e-9) {
                small = true;
                break;
            }
            double ng[2], nh[3];
            double nll = gpd_eval(obs, n, nx0, exp(nx1), ng, nh);
            if (isfinite(nll) && nll >= ll - 1e-12 * fabs(ll)) {
                bool done = fabs(d0) < 1e-7 && fabs(d1) < 1e-7;
                x[0] = nx0, x[1] = nx1, ll = nll;
                g[0] = ng[0], g[1] = ng[1], h[0] = nh[0], h[1] = nh[1], h[2] = nh[2];
                lambda = lambda > 1e-6 ? lambda / 8 : 0;
                moved = true;
                small = done;
            } else {
                lambda = lambda > 0 ? lambda * 4 : 1e-3;
            }
        }
        if (small || !moved)
            break;
    }
    return ll;
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
    if (!(isfinite(xi0) && sigma0 > 0 && isfinite(gpd_loglik(obs, n, xi0, sigma0))))
        gpd_start(obs, n, &xi0, &sigma0);
    if (!isfinite(gpd_loglik(obs, n, xi0, sigma0))) {
        xi0 = 0.1;
        double amax = 0;
        for (size_t i = 0; i < n; i++)
            amax = obs[i].a > amax ? obs[i].a : amax;
        sigma0 = amax > 0 ? amax : 1;
    }
    double x[2] = {fmin(fmax(xi0, GPD_XI_MIN), GPD_XI_MAX), log(sigma0)}, g[2], h[3];
    double ll = newton_fit(obs, n, x, g, h);
    if (!isfinite(ll))
        return -1;
    fit->xi = x[0];
    fit->sigma = exp(x[1]);
    fit->loglik = ll;
    fit->at_bound = x[0] < GPD_XI_MIN + 1e-3;
    double cov[4] = {-h[0], -h[1], -h[1], -h[2]};
    if (spd_invert(cov, 2) != 0)
        for (int i = 0; i < 4; i++)
            cov[i] = NAN;
    for (int i = 0; i < 4; i++)
        fit->cov[i / 2][i % 2] = cov[i];
    fit->ok = true;
    return 0;
}

/* ---- profile likelihood ---- */

/* e(z) = expm1(z) / z and its first two derivatives over e. */
static void expm1_ratio_derivs(double z, double *e, double *e1, double *e2)
{
    if (fabs(z) < 1e-3) {
        *e = 1 + z * (0.5 + z * (1.0 / 6 + z / 24));
        *e1 = 0.5 + z * (1.0 / 3 + z * (0.125 + z / 30));
        *e2 = 1.0 / 3 + z * (0.25 + z * 0.1);
    } else {
        double em = expm1(z), ez = em + 1;
        *e = em / z;
        *e1 = (z * ez - em) / (z * z);
        *e2 = (z * z * ez - 2 * z * ez + 2 * em) / (z * z * z);
    }
    *e1 /= *e;
    *e2 /= *e;
}

struct profile_ctx {
    struct profile base; /* first: a struct profile * is a struct profile_ctx * */
    const struct gpd_obs *obs;
    size_t n;
    enum gpd_target target;
    double arg;
    double nuis_lo, nuis_hi;
};

/* At psi and nuisance v: the log-likelihood, its first two derivatives
 * over v, and its partial derivative over psi (the profile's slope once v
 * is at its best: the envelope theorem). -INFINITY outside the support. */
static double profile_point(const struct profile_ctx *c, double psi, double v, double *d1,
                            double *d2, double *dpsi)
{
    double xi, ls, s1 = 0, s2 = 0, ls_psi = 1;
    switch (c->target) {
    case GPD_TARGET_XI:
        xi = psi, ls = v;
        break;
    case GPD_TARGET_SIGMA:
        xi = v, ls = psi;
        break;
    default: {
        /* sigma through the point (x, S): x = sigma l e(xi l), l = -ln S. */
        double l = c->target == GPD_TARGET_LEVEL ? -log(c->arg) : -psi;
        double lx = c->target == GPD_TARGET_LEVEL ? psi : log(c->arg);
        double e, e1, e2;
        xi = v;
        expm1_ratio_derivs(xi * l, &e, &e1, &e2);
        ls = lx - log(l) - log(e);
        s1 = -l * e1;
        s2 = -l * l * (e2 - e1 * e1);
        if (c->target == GPD_TARGET_SF)
            ls_psi = 1 / l + xi * e1;
        break;
    }
    }
    double g[2], h[3];
    double ll = gpd_eval(c->obs, c->n, xi, exp(ls), g, h);
    if (!isfinite(ll))
        return -INFINITY;
    switch (c->target) {
    case GPD_TARGET_XI:
        *d1 = g[1], *d2 = h[2], *dpsi = g[0];
        break;
    case GPD_TARGET_SIGMA:
        *d1 = g[0], *d2 = h[0], *dpsi = g[1];
        break;
    default:
        *d1 = g[0] + g[1] * s1;
        *d2 = h[0] + 2 * h[1] * s1 + h[2] * s1 * s1 + g[1] * s2;
        *dpsi = g[1] * ls_psi;
        break;
    }
    return ll;
}

/* The profile at psi: the nuisance maximised by Newton steps (halved while
 * they lose), warm-started from the last psi's. *slope: dP/dpsi. */
static double profile_max(struct profile *pr, double psi, double *slope)
{
    struct profile_ctx *c = (struct profile_ctx *)pr;
    double v = fmin(fmax(c->base.warm[0], c->nuis_lo), c->nuis_hi), d1, d2, dp;
    double ll = profile_point(c, psi, v, &d1, &d2, &dp);
    /* Outside the support: a larger nuisance (larger sigma or xi) moves the
     * upper endpoint out. */
    for (double step = 0.05; !isfinite(ll) && v < c->nuis_hi; step *= 2) {
        v = fmin(v + step, c->nuis_hi);
        ll = profile_point(c, psi, v, &d1, &d2, &dp);
    }
    if (!isfinite(ll)) {
        *slope = NAN;
        return -INFINITY;
    }
    for (int it = 0; it < 40; it++) {
        double step = d2 < 0 ? -d1 / d2 : (d1 > 0 ? 0.1 : -0.1);
        if (step > 1)
            step = 1;
        if (step < -1)
            step = -1;
        double nv = 0, nll = -INFINITY, n1 = 0, n2 = 0, np = 0;
        int k;
        for (k = 0; k < 30; k++, step /= 2) {
            nv = fmin(fmax(v + step, c->nuis_lo), c->nuis_hi);
            if (nv == v)
                break;
            nll = profile_point(c, psi, nv, &n1, &n2, &np);
            if (isfinite(nll) && nll >= ll - 1e-12 * fabs(ll))
                break;
        }
        if (nv == v || k == 30)
            break;
        bool done = fabs(nv - v) < 1e-5;
        v = nv, ll = nll, d1 = n1, d2 = n2, dp = np;
        if (done)
            break;
    }
    c->base.warm[0] = v;
    *slope = dp;
    return ll;
}

double gpd_profile(const struct gpd_obs *obs, size_t n, const struct gpd_fit *fit,
                   enum gpd_target target, double arg, double confidence, double *lo, double *hi)
{
    return gpd_profile_multi(obs, n, fit, target, arg, 1, &confidence, lo, hi);
}

double gpd_profile_multi(const struct gpd_obs *obs, size_t n, const struct gpd_fit *fit,
                         enum gpd_target target, double arg, size_t nconf, const double *conf,
                         double *lo, double *hi)
{
    gsl_quiet_once();
    for (size_t i = 0; i < nconf; i++)
        lo[i] = hi[i] = NAN;
    if (!fit->ok || nconf < 1 || nconf > PROFILE_MAX_CONF)
        return NAN;
    struct profile_ctx c = {
        .base.at = profile_max, .obs = obs, .n = n, .target = target, .arg = arg};
    double z = sqrt(gsl_cdf_chisq_Pinv(conf[0], 1));
    double ls = log(fit->sigma), value, psi0, nuis0, se;
    double vxi = fit->cov[0][0], vls = fit->cov[1][1], cxl = fit->cov[0][1];
    bool cov_ok = vxi > 0 && vls > 0;
    double l_lo, l_hi, v_lo, v_hi;
    switch (target) {
    case GPD_TARGET_XI:
        value = psi0 = fit->xi;
        nuis0 = ls;
        c.nuis_lo = ls - 15, c.nuis_hi = ls + 15;
        se = cov_ok ? sqrt(vxi) : 0.05;
        l_lo = GPD_XI_MIN, l_hi = GPD_XI_MAX, v_lo = GPD_XI_MIN, v_hi = INFINITY;
        break;
    case GPD_TARGET_SIGMA:
        value = fit->sigma;
        psi0 = ls;
        nuis0 = fit->xi;
        c.nuis_lo = GPD_XI_MIN, c.nuis_hi = GPD_XI_MAX;
        se = cov_ok ? sqrt(vls) : 0.05;
        l_lo = ls - 15, l_hi = ls + 15, v_lo = 0, v_hi = INFINITY;
        break;
    case GPD_TARGET_LEVEL: {
        value = gpd_isf(arg, fit->xi, fit->sigma);
        psi0 = log(value);
        nuis0 = fit->xi;
        c.nuis_lo = GPD_XI_MIN, c.nuis_hi = GPD_XI_MAX;
        double l = -log(arg), e, e1, e2;
        expm1_ratio_derivs(fit->xi * l, &e, &e1, &e2);
        double gx = l * e1; /* d ln x / d xi; d ln x / d ls = 1 */
        double var = gx * gx * vxi + 2 * gx * cxl + vls;
        se = cov_ok && var > 0 ? sqrt(var) : 0.05;
        l_lo = psi0 - 30, l_hi = psi0 + 30, v_lo = 0, v_hi = INFINITY;
        break;
    }
    default: {
        struct edge e;
        bool inside = edge_eval(arg, fit->xi, fit->sigma, true, &e);
        value = inside ? exp(e.l) : 0;
        psi0 = value > 0 ? log(value) : -INFINITY; /* none: no interval, below */
        nuis0 = fit->xi;
        c.nuis_lo = GPD_XI_MIN, c.nuis_hi = GPD_XI_MAX;
        double var = e.d_xi * e.d_xi * vxi + 2 * e.d_xi * e.d_ls * cxl + e.d_ls * e.d_ls * vls;
        se = cov_ok && var > 0 ? sqrt(var) : fmax(0.05, fabs(psi0) * 0.05);
        l_lo = psi0 - 200, l_hi = -1e-12, v_lo = 0, v_hi = 1;
        break;
    }
    }
    if (!isfinite(psi0))
        return value;
    double warm[2] = {nuis0, 0};
    profile_intervals(&c.base, fit->loglik, psi0, warm, z * se, z, l_lo, l_hi, nconf, conf,
                      target != GPD_TARGET_XI, v_lo, v_hi, lo, hi);
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
    double z = delta_half_width(g, &fit->cov[0][0], 2, confidence);
    if (isnan(z))
        return;
    *lo = fmax(0, x - z);
    *hi = x + z;
}

double delta_half_width(const double *g, const double *cov, size_t k, double confidence)
{
    double var = 0;
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < k; j++)
            var += g[i] * cov[i * k + j] * g[j];
    if (!(var >= 0))
        return NAN;
    return gsl_cdf_ugaussian_Qinv((1 - confidence) / 2) * sqrt(var);
}
