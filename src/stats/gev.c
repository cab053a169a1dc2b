/*
 * The GEV (see gpd.h): Nelder-Mead over (mu, ln sigma, xi) on exact maxima, Gumbel moments
 * as the start; the covariance (and the delta-method intervals) from the
 * numerical Hessian. Profile likelihood intervals of its shape and of a
 * level z_P (the value a block maximum stays below with probability P)
 * use the same bracketing and safeguarded Newton as the GPD's, with two
 * nuisance parameters maximised by damped Newton on central differences
 * (Nelder-Mead where that fails, at the support's edge): for the level the
 * scale is put through the point, sigma = (z - mu) / (-ly e(-xi ly)) (ly =
 * ln(-ln P), e(t) = expm1(t) / t), and (mu, xi) are free; the level is
 * profiled in logs. (Putting mu through the point instead leaves a ridge
 * of ln sigma against xi a few 1e-5 wide for a far level: differences and
 * simplexes alike stop beside it.) A delta interval of a level far beyond the maxima
 * is symmetric and often absurd (a negative latency, or 1e14 ns); the
 * profile follows the likelihood's own asymmetry.

 * The minimiser and the numerical covariance are the GPD's (gpd.c), the
 * profile search profile.c's, through gpd_internal.h.
 */
#include "stats/gpd.h"
#include "stats/gpd_internal.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <string.h>

struct gev_problem {
    const double *x;
    size_t n;
    double mu0, s0; /* the simplex works on ((mu - mu0) / s0, ln(sigma / s0), xi) */
};

static double gev_loglik(const double *x, size_t n, double mu, double ls, double xi)
{
    double ll = 0, inv_sigma = exp(-ls);
    for (size_t i = 0; i < n; i++) {
        double z = (x[i] - mu) * inv_sigma;
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
    const struct gev_problem *g = ctx;
    double p[3] = {g->mu0 + g->s0 * gsl_vector_get(v, 0), log(g->s0) + gsl_vector_get(v, 1),
                   gsl_vector_get(v, 2)};
    if (!(p[2] >= GEV_XI_MIN && p[2] <= GPD_XI_MAX) || fabs(p[1]) > 700)
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
    double s0 = sqrt(6) * sd / M_PI;
    struct gev_problem prob = {x, n, m - 0.5772 * s0, s0};
    /* Scaled so that every coordinate is of order 1: the simplex's size
     * then means the same in each. */
    double q[3] = {0, 0, 0.1}, p[3];
    p[0] = prob.mu0, p[1] = log(s0), p[2] = 0.1;
    if (!isfinite(gev_ll_arr(p, &prob)))
        q[2] = 0;
    gsl_multimin_function f = {gev_nll_vec, 3, &prob};
    double step[3] = {0.3, 0.2, 0.1};
    double v = nm_minimise(&f, q, step, 3, 1000, 1e-6);
    double step2[3] = {0.05, 0.05, 0.02};
    v = nm_minimise(&f, q, step2, 3, 500, 1e-7);
    if (!(v < BIG_NLL))
        return -1;
    p[0] = prob.mu0 + s0 * q[0], p[1] = log(s0) + q[1], p[2] = q[2];
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
    double z = delta_half_width(g, &fit->cov[0][0], 3, confidence);
    if (isnan(z))
        return;
    double x = gev_quantile(neg_log_p, fit->xi, fit->mu, fit->sigma);
    *lo = x - z;
    *hi = x + z;
}

/* ---- GEV profile likelihood ---- */

struct gev_profile_ctx {
    struct profile base; /* first, as in struct profile_ctx */
    const double *x;
    size_t n;
    enum gev_target target;
    double ly; /* ln of -ln P of the level's block probability */
    double mu0, s0;
    double psi; /* where the nuisance is being maximised */
};

/* The log-likelihood at psi and nuisance v: for the level, psi = ln z and
 * v = ((mu - mu0) / s0, xi), sigma put through the point (z, P); for the
 * shape, psi = xi and v = ((mu - mu0) / s0, ln sigma). */
static double gev_profile_ll(const struct gev_profile_ctx *g, double psi, const double *v)
{
    double mu = g->mu0 + g->s0 * v[0], ls, xi;
    if (g->target == GEV_TARGET_LEVEL) {
        xi = v[1];
        if (!(xi >= GEV_XI_MIN && xi <= GPD_XI_MAX))
            return -INFINITY;
        /* z = mu - sigma ly e(-xi ly) */
        double sigma = (exp(psi) - mu) / (-g->ly * expm1_ratio(-xi * g->ly));
        if (!(sigma > 0) || !isfinite(sigma))
            return -INFINITY;
        ls = log(sigma);
    } else {
        xi = psi, ls = v[1];
        if (fabs(ls) > 700)
            return -INFINITY;
    }
    return gev_loglik(g->x, g->n, mu, ls, xi);
}

static double gev_profile_nll(const gsl_vector *v, void *ctx)
{
    const struct gev_profile_ctx *g = ctx;
    double p[2] = {gsl_vector_get(v, 0), gsl_vector_get(v, 1)};
    double ll = gev_profile_ll(g, g->psi, p);
    return isfinite(ll) ? -ll : BIG_NLL;
}

/* Damped Newton (Levenberg) ascent over the nuisance v at psi from v, on
 * central differences (both coordinates are of order 1, so one step h
 * fits both): the log-likelihood at the end, v moved there; NAN when a
 * difference left the support or it did not settle. */
static double gev_newton(const struct gev_profile_ctx *g, double psi, double v[2])
{
    const double h = 1e-4;
    double f0 = gev_profile_ll(g, psi, v), lambda = 0;
    for (int it = 0; it < 50 && isfinite(f0); it++) {
        double p[2], f[6];
        static const int d[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}};
        for (int k = 0; k < 6; k++) {
            p[0] = v[0] + d[k][0] * h, p[1] = v[1] + d[k][1] * h;
            f[k] = gev_profile_ll(g, psi, p);
            if (!isfinite(f[k]))
                return NAN;
        }
        double g0 = (f[0] - f[1]) / (2 * h), g1 = (f[2] - f[3]) / (2 * h);
        double a00 = -(f[0] - 2 * f0 + f[1]) / (h * h), a11 = -(f[2] - 2 * f0 + f[3]) / (h * h);
        double a01 = -(f[4] + f[5] - f[0] - f[1] - f[2] - f[3] + 2 * f0) / (2 * h * h);
        bool moved = false;
        for (int tries = 0; tries < 30 && !moved; tries++) {
            double sc = lambda * (fabs(a00) + fabs(a11) + 1e-12);
            double b00 = a00 + sc, b11 = a11 + sc, det = b00 * b11 - a01 * a01;
            if (!(b00 > 0 && det > 0)) {
                lambda = lambda > 0 ? lambda * 4 : 1e-3;
                continue;
            }
            double d0 = (b11 * g0 - a01 * g1) / det, d1 = (b00 * g1 - a01 * g0) / det;
            if (fabs(d0) < 1e-7 && fabs(d1) < 1e-7)
                return f0;
            p[0] = v[0] + d0, p[1] = v[1] + d1;
            double fn = gev_profile_ll(g, psi, p);
            if (isfinite(fn) && fn >= f0 - 1e-12 * fabs(f0)) {
                v[0] = p[0], v[1] = p[1];
                /* an undamped step that gained less than 1e-9 is at the top
                 * to far better than the interval's 1e-3 */
                bool done = (fabs(d0) < 1e-6 && fabs(d1) < 1e-6) || (lambda == 0 && fn - f0 < 1e-9);
                f0 = fn;
                lambda = lambda > 1e-6 ? lambda / 8 : 0;
                moved = true;
                if (done)
                    return f0;
            } else {
                lambda = lambda > 0 ? lambda * 4 : 1e-3;
            }
        }
        if (!moved)
            return NAN;
    }
    return NAN;
}

/* The profile at psi: Newton over the two nuisance parameters from the
 * last psi's; where it fails (near the support's edge) Nelder-Mead, twice
 * (a coarse simplex, then a fine one). Outside the support a larger sigma
 * (for the level: a lower mu) moves both ends of it out (z and xi fixed).
 * The slope is the partial
 * derivative over psi at the optimum (the envelope theorem), by central
 * differences. */
static double gev_profile_at(struct profile *pr, double psi, double *slope)
{
    struct gev_profile_ctx *g = (struct gev_profile_ctx *)pr;
    bool level = g->target == GEV_TARGET_LEVEL;
    double v[2] = {pr->warm[0], pr->warm[1]};
    double ll = gev_profile_ll(g, psi, v);
    for (double step = 0.25; !isfinite(ll) && step < 64; step *= 2) {
        if (level)
            v[0] -= step; /* a lower mu: a larger sigma through z */
        else
            v[1] += step;
        ll = gev_profile_ll(g, psi, v);
    }
    *slope = NAN;
    if (!isfinite(ll))
        return -INFINITY;
    g->psi = psi;
    double w[2] = {v[0], v[1]}, nll = -gev_newton(g, psi, w);
    if (isfinite(nll)) {
        v[0] = w[0], v[1] = w[1];
    } else {
        gsl_multimin_function f = {gev_profile_nll, 2, g};
        double coarse[2] = {0.1, 0.1}, fine[2] = {0.01, 0.01};
        nm_minimise(&f, v, coarse, 2, 400, 1e-4);
        nll = nm_minimise(&f, v, fine, 2, 400, 1e-6);
    }
    if (!(nll < BIG_NLL))
        return -INFINITY;
    pr->warm[0] = v[0], pr->warm[1] = v[1];
    double h = 1e-5 * (1 + fabs(psi));
    double up = gev_profile_ll(g, psi + h, v), down = gev_profile_ll(g, psi - h, v);
    if (isfinite(up) && isfinite(down))
        *slope = (up - down) / (2 * h);
    return -nll;
}

double gev_profile(const double *x, size_t n, const struct gev_fit *fit, enum gev_target target,
                   double neg_log_p, size_t nconf, const double *conf, double *lo, double *hi)
{
    gsl_quiet_once();
    for (size_t i = 0; i < nconf; i++)
        lo[i] = hi[i] = NAN;
    if (!fit->ok || nconf < 1 || nconf > PROFILE_MAX_CONF)
        return NAN;
    double confidence = conf[0];
    struct gev_profile_ctx g = {.base.at = gev_profile_at,
                                .x = x,
                                .n = n,
                                .target = target,
                                .ly = log(neg_log_p),
                                .mu0 = fit->mu,
                                .s0 = fit->sigma};
    double z = sqrt(gsl_cdf_chisq_Pinv(confidence, 1));
    double value, psi0, se = NAN, l_lo, l_hi, v_lo, v_hi, warm[2];
    if (target == GEV_TARGET_LEVEL) {
        value = gev_quantile(neg_log_p, fit->xi, fit->mu, fit->sigma);
        if (!(value > 0))
            return value;
        psi0 = log(value);
        double wlo, whi;
        gev_quantile_wald(fit, neg_log_p, confidence, &wlo, &whi);
        if (whi > value)
            se = (whi - value) / (z * value);
        warm[0] = 0, warm[1] = fit->xi;
        l_lo = psi0 - 30, l_hi = psi0 + 30, v_lo = 0, v_hi = INFINITY;
    } else {
        value = psi0 = fit->xi;
        if (fit->cov[2][2] > 0)
            se = sqrt(fit->cov[2][2]);
        warm[0] = 0, warm[1] = log(fit->sigma);
        l_lo = GEV_XI_MIN, l_hi = GPD_XI_MAX, v_lo = GEV_XI_MIN, v_hi = INFINITY;
    }
    /* The Wald half-width as the first step out, within reason: a delta
     * interval of a far level can be wider than the level itself. */
    double guess = isfinite(se) ? fmin(fmax(z * se, 10 * PROFILE_TOL), 1) : 0.05;
    profile_intervals(&g.base, fit->loglik, psi0, warm, guess, z, l_lo, l_hi, nconf, conf,
                      target != GEV_TARGET_XI, v_lo, v_hi, lo, hi);
    return value;
}
