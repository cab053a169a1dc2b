/*
 * Unit tests for src/stats/exact_tests.c against reference values computed
 * with SciPy (scipy.stats: fisher_exact, binomtest, binom.ppf, norm.logsf)
 * and exact arithmetic: p values far in the tail stay numbers in log space,
 * zero counts are tested, quantile ranks match the binomial's quantiles,
 * the permutation test counts its splits exactly and reports the smallest
 * p they allow, and Tarone's family leaves out tests that cannot reach the
 * level.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "stats/exact_tests.h"

#define near(x, want, tol) assert_true(fabs((x) - (want)) <= (tol))

static void test_normal_tail_in_log_space(void **state)
{
    (void)state;
    near(normal_log_sf(3), -6.60772622151035, 1e-9);
    near(normal_log_sf(40), -804.6084420137539, 1e-3); /* exp() of it underflows */
    near(normal_log_sf(0), log(0.5), 1e-12);
    near(normal_isf(0.025), 1.959963984540054, 1e-9);
    near(normal_isf(0.975), -1.959963984540054, 1e-9);
}

static void test_fisher_matches_scipy_and_tests_a_zero_count(void **state)
{
    (void)state;
    struct exact_p p = fisher_test(0, 100, 10, 100);
    near(exp(p.log_p), 0.0015420521254357008, 1e-12);
    p = fisher_test(3, 1000, 20, 1000);
    near(exp(p.log_p), 0.00045529027856499243, 1e-12);
    /* 0 of a million against 3000 of a million: far beyond 1e-300, a number */
    p = fisher_test(0, 1000000, 3000, 1000000);
    assert_true(isfinite(p.log_p) && p.log_p < log(1e-300));
    /* no events at all: nothing to tell apart, and nothing could be */
    p = fisher_test(0, 1000, 0, 1000);
    near(p.log_p, 0, 0);
    near(p.min_log_p, 0, 0);
    /* one event: it can never be significant (either side is a coin toss) */
    p = fisher_test(0, 1000, 1, 1000);
    near(p.min_log_p, 0, 1e-9);
    /* the same rate on both sides */
    p = fisher_test(50, 10000, 50, 10000);
    near(p.log_p, 0, 1e-9);
}

static void test_poisson_rates_are_exact(void **state)
{
    (void)state;
    struct exact_p p = poisson_rate_test(0, 1, 10, 1);
    near(exp(p.log_p), 2 * pow(0.5, 10), 1e-12); /* all 10 on one side */
    p = poisson_rate_test(0, 1, 3000, 1);
    near(p.log_p, -2078.748394499276, 1e-6);
    p = poisson_rate_test(2, 3, 10, 1);                /* 12 events, B's share of time 1/4 */
    near(exp(p.log_p), 3.7610530853271484e-05, 1e-12); /* binomtest(10, 12, .25) */
    p = poisson_rate_test(10, 3, 2, 1);
    near(exp(p.log_p), 0.741896390914917, 1e-9); /* binomtest(2, 12, .25) */
}

static void test_quantile_ranks_match_the_binomial(void **state)
{
    (void)state;
    int64_t lo, hi;
    quantile_ci_ranks(100, 0.5, 0.05, &lo, &hi);
    assert_int_equal(lo, 40);
    assert_int_equal(hi, 61);
    quantile_ci_ranks(5000, 0.999, 2e-4, &lo, &hi);
    assert_int_equal(lo, 4985);
    assert_int_equal(hi, 5001); /* beyond the sample: p99.9 of 5000 cannot be bounded */
    quantile_ci_ranks(20000, 0.9999, 0.005, &lo, &hi);
    assert_int_equal(lo, 19993);
    assert_int_equal(hi, 20001);
    /* the normal regime agrees with the binomial's quantiles to a rank */
    quantile_ci_ranks(1000000, 0.99, 0.05, &lo, &hi);
    assert_true(llabs(lo - 989805) <= 1 && llabs(hi - 990196) <= 1);
}

static void test_permutation_counts_every_split(void **state)
{
    (void)state;
    const double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    struct perm_result r;
    assert_int_equal(perm_test(a, 3, b, 3, 100, 1, &r), 0);
    assert_int_equal(r.exact, 1);
    near(r.mean_b - r.mean_a, 3, 1e-12);
    near(exp(r.log_p), 2.0 / 20, 1e-12); /* the split and its mirror */
    near(exp(r.min_log_p), 2.0 / 20, 1e-12);
    /* two runs a side can never get below 2 / 6 */
    const double x[] = {10, 10}, y[] = {11, 11};
    assert_int_equal(perm_test(x, 2, y, 2, 100, 1, &r), 0);
    near(exp(r.log_p), 2.0 / 6, 1e-12);
    near(exp(r.min_log_p), 2.0 / 6, 1e-12);
    /* no difference: every split is as large */
    assert_int_equal(perm_test(x, 2, x, 2, 100, 1, &r), 0);
    near(r.log_p, 0, 1e-12);
    /* too many splits to walk: random ones, the smallest p is 1 / (reps + 1) */
    double big_a[16], big_b[16];
    for (int i = 0; i < 16; i++) {
        big_a[i] = i;
        big_b[i] = i + 100;
    }
    assert_int_equal(perm_test(big_a, 16, big_b, 16, 999, 1, &r), 0);
    assert_int_equal(r.exact, 0);
    near(exp(r.log_p), 1.0 / 1000, 1e-12);
    near(exp(r.min_log_p), 1.0 / 1000, 1e-12);
    assert_int_equal(perm_test(big_a, 0, big_b, 16, 999, 1, &r), -1);
}

static void test_tarone_leaves_out_what_cannot_reach(void **state)
{
    (void)state;
    /* ten tests that can reach anything: Bonferroni over ten */
    double all[10];
    for (int i = 0; i < 10; i++)
        all[i] = -INFINITY;
    assert_int_equal(tarone_family(all, 10, 0.05), 10);
    /* two that can, eight that can never get below 1/3: a family of two */
    double few[10];
    for (int i = 0; i < 10; i++)
        few[i] = i < 2 ? -50 : log(1.0 / 3);
    assert_int_equal(tarone_family(few, 10, 0.05), 2);
    assert_int_equal(tarone_family(few, 0, 0.05), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normal_tail_in_log_space),
        cmocka_unit_test(test_fisher_matches_scipy_and_tests_a_zero_count),
        cmocka_unit_test(test_poisson_rates_are_exact),
        cmocka_unit_test(test_quantile_ranks_match_the_binomial),
        cmocka_unit_test(test_permutation_counts_every_split),
        cmocka_unit_test(test_tarone_leaves_out_what_cannot_reach),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
