/*
 * Unit tests for the GPD likelihood and its fits (src/stats/gpd.c): the
 * analytic gradient and Hessian agree with finite differences on either side
 * of xi = 0 and for open-ended groups, and a profile interval's bounds lie
 * where the profile log-likelihood has fallen by chi2_1(0.95) / 2, for the
 * GPD's shape and for a far level of the GEV of block maxima.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "stats/gpd.h"
#include "test_rng.h"

/* Buckets of a GPD(0.1, 1000) sample, 20 % wide, and an open last group. */
static size_t sample_obs(struct gpd_obs *obs)
{
    size_t n = 0;
    double a = 0;
    for (int i = 0; i < 30; i++) {
        double b = a + 50 + 0.2 * a;
        double w = 1e4 * (exp(gpd_log_sf(a, 0.1, 1000)) - exp(gpd_log_sf(b, 0.1, 1000)));
        obs[n++] = (struct gpd_obs){a, b, round(w) + 1};
        a = b;
    }
    obs[n++] = (struct gpd_obs){a, INFINITY, 3};
    return n;
}

static void test_analytic_derivatives_match_finite_differences(void **state)
{
    (void)state;
    struct gpd_obs obs[40];
    size_t n = sample_obs(obs);
    static const double xis[] = {-0.02, -1e-5, 0, 2e-4, 0.1, 0.7};
    for (size_t k = 0; k < sizeof(xis) / sizeof(xis[0]); k++) {
        double xi = xis[k], ls = log(1500.0), g[2], h[3], g2[2], h2[3];
        double ll = gpd_loglik_derivs(obs, n, xi, exp(ls), g, h);
        assert_true(fabs(ll - gpd_loglik(obs, n, xi, exp(ls))) < 1e-9 * fabs(ll));
        double e = 1e-5;
        double fx =
            (gpd_loglik(obs, n, xi + e, exp(ls)) - gpd_loglik(obs, n, xi - e, exp(ls))) / (2 * e);
        double fl =
            (gpd_loglik(obs, n, xi, exp(ls + e)) - gpd_loglik(obs, n, xi, exp(ls - e))) / (2 * e);
        assert_true(fabs(fx - g[0]) < 1e-4 * (1 + fabs(g[0])));
        assert_true(fabs(fl - g[1]) < 1e-4 * (1 + fabs(g[1])));
        double g3[2], h3[3];
        gpd_loglik_derivs(obs, n, xi + e, exp(ls), g2, h2);
        gpd_loglik_derivs(obs, n, xi - e, exp(ls), g3, h3);
        double hxx = (g2[0] - g3[0]) / (2 * e), hxl = (g2[1] - g3[1]) / (2 * e);
        gpd_loglik_derivs(obs, n, xi, exp(ls + e), g2, h2);
        gpd_loglik_derivs(obs, n, xi, exp(ls - e), g3, h3);
        double hll = (g2[1] - g3[1]) / (2 * e);
        assert_true(fabs(hxx - h[0]) < 1e-3 * (1 + fabs(h[0])));
        assert_true(fabs(hxl - h[1]) < 1e-3 * (1 + fabs(h[1])));
        assert_true(fabs(hll - h[2]) < 1e-3 * (1 + fabs(h[2])));
    }
}

/* The largest log-likelihood over sigma at a fixed xi, by a fine scan. */
static double brute_profile_xi(const struct gpd_obs *obs, size_t n, double xi, double sigma0)
{
    double best = -INFINITY;
    for (double ls = log(sigma0) - 1; ls < log(sigma0) + 1; ls += 1e-4) {
        double ll = gpd_loglik(obs, n, xi, exp(ls));
        if (ll > best)
            best = ll;
    }
    return best;
}

/* The sample's observations and their fit. */
static size_t fitted_obs(struct gpd_obs *obs, struct gpd_fit *f)
{
    size_t n = sample_obs(obs);
    assert_int_equal(gpd_fit(obs, n, NAN, NAN, f), 0);
    return n;
}

static void test_profile_bounds_sit_on_the_cut(void **state)
{
    (void)state;
    struct gpd_obs obs[40];
    struct gpd_fit f;
    size_t n = fitted_obs(obs, &f);
    assert_true(fabs(f.xi - 0.1) < 0.1);
    double lo, hi;
    gpd_profile(obs, n, &f, GPD_TARGET_XI, 0, 0.95, &lo, &hi);
    assert_true(lo < f.xi && f.xi < hi);
    double cut = f.loglik - 0.5 * 3.841458820694124;
    assert_true(fabs(brute_profile_xi(obs, n, lo, f.sigma) - cut) < 0.01);
    assert_true(fabs(brute_profile_xi(obs, n, hi, f.sigma) - cut) < 0.01);
    /* A level's interval holds its value; a survival's lies in (0, 1). */
    double x = gpd_profile(obs, n, &f, GPD_TARGET_LEVEL, 1e-4, 0.95, &lo, &hi);
    assert_true(lo < x && x < hi);
    double s = gpd_profile(obs, n, &f, GPD_TARGET_SF, 5000, 0.95, &lo, &hi);
    assert_true(0 < lo && lo < s && s < hi && hi < 1);
}

/* The GEV log-likelihood of the maxima with the location put through the
 * level z at -ln P = e^ly. */
static double gev_ll_through(const double *x, size_t n, double z, double ly, double ls, double xi)
{
    double sigma = exp(ls), mu = z + sigma * ly * expm1(-xi * ly) / (-xi * ly), ll = 0;
    for (size_t i = 0; i < n; i++) {
        double t = 1 + xi * (x[i] - mu) / sigma;
        if (!(t > 0))
            return -INFINITY;
        ll += -ls - (1 + 1 / xi) * log(t) - pow(t, -1 / xi);
    }
    return ll;
}

/* The profile at z by a grid over (ln sigma, xi), refined five times
 * around its best point. */
static double brute_gev_profile(const double *x, size_t n, double z, double ly, double ls0)
{
    double best = -INFINITY, bl = ls0, bx = 0.1, wl = 2, wx = 0.8;
    for (int round = 0; round < 6; round++, wl /= 4, wx /= 4) {
        double cl = bl, cx = bx;
        for (int i = -50; i <= 50; i++)
            for (int j = -50; j <= 50; j++) {
                double l = cl + wl * i / 50, xi = cx + wx * j / 50;
                if (fabs(xi) < 1e-6)
                    continue;
                double v = gev_ll_through(x, n, z, ly, l, xi);
                if (v > best)
                    best = v, bl = l, bx = xi;
            }
    }
    return best;
}

/* 40 maxima of a GEV(0.1, 200 us, 20 us) and the level a maximum of 3333
 * cycles stays below with probability (1 - 1e-9)^3333: far beyond the data,
 * where a delta interval runs negative. The profile interval is skewed
 * upward, positive, and its bounds sit on the cut. */
static const double c95 = 0.95;

/* 40 GEV maxima (xi 0.1, mu 200000, sigma 20000) and their fit. */
static void fitted_maxima(double *x, struct gev_fit *g)
{
    uint64_t rng = 11;
    for (int i = 0; i < 40; i++)
        x[i] = 200000 + 20000 * expm1(-0.1 * log(-log(rng_unit(&rng)))) / 0.1;
    assert_int_equal(gev_fit(x, 40, g), 0);
}

static void test_gev_level_profile_is_skewed_and_sits_on_the_cut(void **state)
{
    (void)state;
    double x[40];
    struct gev_fit g;
    fitted_maxima(x, &g);
    double nlp = -3333 * log1p(-1e-9), lo, hi, wlo, whi;
    double z = gev_profile(x, 40, &g, GEV_TARGET_LEVEL, nlp, 1, &c95, &lo, &hi);
    gev_quantile_wald(&g, nlp, 0.95, &wlo, &whi);
    printf("# GEV 1e-9 level %.0f: profile [%.0f, %.0f], delta [%.0f, %.0f]\n", z, lo, hi, wlo,
           whi);
    assert_true(0 < lo && lo < z && z < hi && isfinite(hi));
    assert_true(hi - z > z - lo);
    double cut = g.loglik - 0.5 * 3.841458820694124;
    assert_true(fabs(brute_gev_profile(x, 40, lo, log(nlp), log(g.sigma)) - cut) < 0.02);
    assert_true(fabs(brute_gev_profile(x, 40, hi, log(nlp), log(g.sigma)) - cut) < 0.02);
    double xi = gev_profile(x, 40, &g, GEV_TARGET_XI, 0, 1, &c95, &lo, &hi);
    assert_true(lo < xi && xi < hi);
}

/* Several confidences in one search: the same bounds as one search each
 * (to the search's tolerance), in any order, the wider interval around
 * the narrower. */
static void test_several_confidences_match_one_at_a_time(void **state)
{
    (void)state;
    struct gpd_obs obs[40];
    struct gpd_fit f;
    size_t n = fitted_obs(obs, &f);
    const double confs[3] = {0.995, 0.9, 0.95};
    for (int t = 0; t < 3; t++) {
        enum gpd_target tg = t == 0 ? GPD_TARGET_XI : t == 1 ? GPD_TARGET_LEVEL : GPD_TARGET_SF;
        double arg = t == 1 ? 1e-4 : t == 2 ? 5000 : 0, lo[3], hi[3];
        gpd_profile_multi(obs, n, &f, tg, arg, 3, confs, lo, hi);
        for (int i = 0; i < 3; i++) {
            double l1, h1;
            gpd_profile(obs, n, &f, tg, arg, confs[i], &l1, &h1);
            assert_true(fabs(lo[i] - l1) <= 2e-3 * (fabs(l1) + 1e-3 * (t == 2)));
            assert_true(fabs(hi[i] - h1) <= 2e-3 * (fabs(h1) + 1e-3 * (t == 2)));
        }
        assert_true(lo[0] < lo[2] && lo[2] < lo[1] && hi[1] < hi[2] && hi[2] < hi[0]);
    }
    double x[40];
    struct gev_fit g;
    fitted_maxima(x, &g);
    double nlp = -3333 * log1p(-1e-9);
    for (int t = 0; t < 2; t++) {
        enum gev_target tg = t ? GEV_TARGET_LEVEL : GEV_TARGET_XI;
        double lo[3], hi[3];
        gev_profile(x, 40, &g, tg, nlp, 3, confs, lo, hi);
        for (int i = 0; i < 3; i++) {
            double l1, h1;
            gev_profile(x, 40, &g, tg, nlp, 1, &confs[i], &l1, &h1);
            assert_true(fabs(lo[i] - l1) <= 2e-3 * fabs(l1));
            assert_true(fabs(hi[i] - h1) <= 2e-3 * fabs(h1));
        }
        assert_true(lo[0] < lo[2] && lo[2] < lo[1] && hi[1] < hi[2] && hi[2] < hi[0]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_analytic_derivatives_match_finite_differences),
        cmocka_unit_test(test_profile_bounds_sit_on_the_cut),
        cmocka_unit_test(test_gev_level_profile_is_skewed_and_sits_on_the_cut),
        cmocka_unit_test(test_several_confidences_match_one_at_a_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
