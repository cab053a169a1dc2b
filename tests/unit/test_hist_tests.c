/*
 * Unit tests for src/stats/hist_tests.c against values known from the
 * literature, SciPy and exact arithmetic: Student's t distribution and its
 * far tail, the chance of beating a maximum, the Brunner-Munzel test on
 * tied and separated samples, Welch's test, the percentile rule of
 * `jitterlab run`, bucket resolution and exceedance counts, and the
 * distribution-free interval of a quantile on bucket edges.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "stats/hist_tests.h"

#define near(x, want, tol) assert_true(fabs((x) - (want)) <= (tol))

static void test_student_t_matches_tables(void **state)
{
    (void)state;
    near(student_t_cdf(0, 5), 0.5, 1e-12);
    near(student_t_cdf(2.0, 10), 0.963306, 1e-6);    /* pt(2, 10) */
    near(student_t_cdf(-1.5, 3), 0.115292, 1e-6);    /* pt(-1.5, 3) */
    near(student_t_cdf(12.706, 1), 0.975, 1e-5);     /* the 97.5% point of t(1) */
    near(student_t_cdf(1.959964, 1e9), 0.975, 1e-6); /* the normal limit */
}

static void test_student_t_tail_stays_a_number(void **state)
{
    (void)state;
    /* scipy.stats.t.logsf: where 1 - cdf would have been 0 */
    near(student_t_log_sf(20, 1000), -171.98528267046817, 1e-6);
    near(student_t_log_sf(40, 50), -90.27785301120113, 1e-6);
    near(student_t_log_sf(18, 5994), -161.5593613433236, 1e-6);
}

static void test_beats_max_is_the_chance_of_the_top_k(void **state)
{
    (void)state;
    near(exp(beats_max_log_p(1, 1000, 1000)), 0.5, 1e-3);
    near(exp(beats_max_log_p(2, 1000, 1000)), 1000.0 / 2000 * 999 / 1999, 1e-12);
    near(beats_max_log_p(0, 10, 10), 0, 0);
    assert_true(beats_max_log_p(11, 10, 10) == -INFINITY);
}

static const struct hbin tied[] = {{100, 100, 10}};

static void test_rank_test_ties_and_separation(void **state)
{
    (void)state;
    struct hdist a = {tied, 1, 0, 100, 10}, b = {tied, 1, 0, 100, 10};
    struct rank_result r;
    assert_int_equal(rank_test(&a, &b, &r), 0);
    near(r.p_greater, 0.5, 1e-12);
    near(r.p_value, 1.0, 1e-12);
    static const struct hbin high[] = {{200, 200, 10}};
    struct hdist c = {high, 1, 0, 200, 10};
    assert_int_equal(rank_test(&a, &c, &r), 0);
    near(r.p_greater, 1.0, 1e-12);
    near(r.p_value, 0.0, 1e-12);
    /* the overflow is one tied bucket above everything */
    struct hdist o = {NULL, 0, 10, 60000000000LL + 1, 10};
    assert_int_equal(rank_test(&a, &o, &r), 0);
    near(r.p_greater, 1.0, 1e-12);
    struct hdist empty = {NULL, 0, 0, 0, 0};
    assert_int_equal(rank_test(&a, &empty, &r), -1);
}

static void test_rank_test_matches_brunner_munzel(void **state)
{
    (void)state;
    /* x = 1,2,3,4,5 and y = 3,4,5,6,7 as one-value buckets: by hand,
     * p_greater = 0.82, W = 2.3338, df = 8, p = 0.04787 */
    static const struct hbin x[] = {{1, 1, 1}, {2, 2, 1}, {3, 3, 1}, {4, 4, 1}, {5, 5, 1}};
    static const struct hbin y[] = {{3, 3, 1}, {4, 4, 1}, {5, 5, 1}, {6, 6, 1}, {7, 7, 1}};
    struct hdist a = {x, 5, 0, 5, 5}, b = {y, 5, 0, 7, 5};
    struct rank_result r;
    assert_int_equal(rank_test(&a, &b, &r), 0);
    near(r.p_greater, 0.82, 1e-12);
    near(r.statistic, 2.33384, 1e-4);
    near(r.df, 8.0, 1e-9);
    near(r.p_value, 0.04787, 1e-4);
}

static void test_welch_matches_a_hand_computation(void **state)
{
    (void)state;
    /* a: mean 2, var 1; b: mean 5, var 1; n 3 each: t = 3 / sqrt(2/3),
     * df = 4 */
    const double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    struct welch_result w;
    assert_int_equal(welch_test(a, 3, b, 3, &w), 0);
    near(w.t, 3 / sqrt(2.0 / 3), 1e-12);
    near(w.df, 4, 1e-12);
    near(w.p_value, 2 * (1 - student_t_cdf(w.t, 4)), 1e-12);
    near(w.se, sqrt(2.0 / 3), 1e-12);
    near(w.p_value, 0.02131, 1e-4); /* 2 * pt(-3.674, 4) */
    const double same[] = {7, 7};
    assert_int_equal(welch_test(same, 2, same, 2, &w), 0);
    near(w.p_value, 1, 0);
    assert_int_equal(welch_test(a, 1, b, 3, &w), -1);
}

static const struct hbin spread[] = {{100, 100, 1}, {200, 201, 98}, {1024, 1031, 1}};

static void test_percentile_resolution_and_exceedance(void **state)
{
    (void)state;
    struct hdist d = {spread, 3, 0, 1030, 100};
    assert_int_equal(hdist_percentile(&d, 50, 100), 200); /* midpoint of [200, 201] */
    assert_int_equal(hdist_percentile(&d, 1, 100), 100);  /* the first rank: min */
    assert_int_equal(hdist_percentile(&d, 100, 100), 1030);
    near(hdist_resolution(&d, 50), 2.0 / 200, 1e-12);
    near(hdist_resolution(&d, 1), 0, 0); /* a one-value bucket is exact */
    assert_int_equal(hdist_above(&d, 150), 99);
    assert_int_equal(hdist_above(&d, 200), 1); /* the threshold's bucket is tied */
    struct hdist o = {spread, 3, 4, 90000000000LL, 104};
    assert_int_equal(hdist_above(&o, 2000), 4);
}

static void test_quantile_interval_holds_the_bucket_edges(void **state)
{
    (void)state;
    /* 100 values, one per bucket [10i, 10i + 9]: the median's 95% interval
     * is ranks 40..61, read as the outer edges of their buckets */
    struct hbin b[100];
    for (int i = 0; i < 100; i++)
        b[i] = (struct hbin){10 * i, 10 * i + 9, 1};
    struct hdist d = {b, 100, 0, 995, 100};
    double lo, hi;
    assert_int_equal(hdist_quantile_ci(&d, 50, 0.05, 3, &lo, &hi), 0);
    near(lo, 390, 0); /* rank 40: bucket [390, 399] */
    near(hi, 609, 0); /* rank 61: bucket [600, 609] */
    /* p99.9 of 100 values cannot be bounded above */
    assert_int_equal(hdist_quantile_ci(&d, 99.9, 0.05, 3, &lo, &hi), 1);
    assert_true(isinf(hi));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_student_t_matches_tables),
        cmocka_unit_test(test_student_t_tail_stays_a_number),
        cmocka_unit_test(test_beats_max_is_the_chance_of_the_top_k),
        cmocka_unit_test(test_rank_test_ties_and_separation),
        cmocka_unit_test(test_rank_test_matches_brunner_munzel),
        cmocka_unit_test(test_welch_matches_a_hand_computation),
        cmocka_unit_test(test_percentile_resolution_and_exceedance),
        cmocka_unit_test(test_quantile_interval_holds_the_bucket_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
