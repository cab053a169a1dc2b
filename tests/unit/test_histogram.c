/*
 * Unit tests for the log-linear latency histogram (src/stats/histogram.*).
 * They pin the bucket layout (bounds are the exact inverse of the index,
 * contiguous, at most 1/128 of their lower bound wide), that nothing is ever
 * dropped (overflow, underflow, exact min/max), that merging equals adding
 * everything to one histogram, and that percentiles agree with nearest rank
 * on a sorted copy of the data within 1% for several distributions. Data come
 * from a local xorshift generator with fixed seeds, so failures reproduce.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_rng.h"

#include "stats/histogram.h"

#define SAMPLE_COUNT 100000

static double rng_normal(uint64_t *state)
{
    double u1 = rng_unit(state);
    double u2 = rng_unit(state);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static int64_t gen_uniform(uint64_t *state)
{
    return (int64_t)(rng_next(state) % 2000000); /* 0 .. 2 ms */
}

static int64_t gen_small_uniform(uint64_t *state)
{
    return (int64_t)(rng_next(state) % 300); /* mostly width-1 buckets */
}

static int64_t gen_exponential(uint64_t *state)
{
    return 1000 + (int64_t)(-20000.0 * log(rng_unit(state))); /* 1 us + mean 20 us */
}

/*
 * What a loaded machine looks like: a log-normal body at ~5 us, a second mode
 * at ~80 us, and a Pareto tail reaching into seconds.
 */
static int64_t gen_bimodal_heavy_tail(uint64_t *state)
{
    double u = rng_unit(state);
    double v;
    if (u < 0.90)
        v = exp(log(5000.0) + 0.3 * rng_normal(state));
    else if (u < 0.999)
        v = exp(log(80000.0) + 0.2 * rng_normal(state));
    else
        v = 1e6 / pow(rng_unit(state), 1.0 / 1.1);
    if (v > 50e9)
        v = 50e9;
    return (int64_t)v;
}

static int cmp_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a;
    int64_t y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

struct pct_point {
    double pct;
    uint64_t num, den; /* pct / 100 as an exact fraction, for the reference rank */
};

static const struct pct_point pct_points[] = {
    {50.0, 1, 2},      {90.0, 9, 10},        {99.0, 99, 100},
    {99.9, 999, 1000}, {99.99, 9999, 10000}, {100.0, 1, 1},
};

static int64_t sorted_nearest_rank(const int64_t *sorted, size_t n, const struct pct_point *p)
{
    uint64_t rank = ((uint64_t)n * p->num + p->den - 1) / p->den;
    if (rank < 1)
        rank = 1;
    return sorted[rank - 1];
}

static void check_percentiles_match_sorted(int64_t (*gen)(uint64_t *), uint64_t seed,
                                           const char *name)
{
    int64_t *values = malloc(SAMPLE_COUNT * sizeof(*values));
    struct latency_hist *h = malloc(sizeof(*h));
    assert_non_null(values);
    assert_non_null(h);
    latency_hist_init(h);

    uint64_t state = seed;
    for (size_t i = 0; i < SAMPLE_COUNT; i++) {
        values[i] = gen(&state);
        latency_hist_add(h, values[i]);
    }
    qsort(values, SAMPLE_COUNT, sizeof(*values), cmp_int64);

    assert_int_equal(h->count, SAMPLE_COUNT);
    assert_int_equal(h->min_ns, values[0]);
    assert_int_equal(h->max_ns, values[SAMPLE_COUNT - 1]);
    assert_int_equal(latency_hist_percentile(h, 0.0), values[0]);

    for (size_t i = 0; i < sizeof(pct_points) / sizeof(pct_points[0]); i++) {
        int64_t want = sorted_nearest_rank(values, SAMPLE_COUNT, &pct_points[i]);
        int64_t got = latency_hist_percentile(h, pct_points[i].pct);
        double err = fabs((double)got - (double)want);
        double allowed = fmax(1.0, 0.01 * fabs((double)want));
        if (err > allowed) {
            print_error("%s: p%g = %" PRId64 ", sorted array says %" PRId64 "\n", name,
                        pct_points[i].pct, got, want);
            fail();
        }
        /* Stronger than 1%: the answer lies in the true value's own bucket. */
        assert_int_equal(latency_hist_bucket_index(got), latency_hist_bucket_index(want));
    }
    assert_int_equal(latency_hist_percentile(h, 100.0), values[SAMPLE_COUNT - 1]);

    free(h);
    free(values);
}

static void check_value_in_its_bucket(int64_t v)
{
    size_t idx = latency_hist_bucket_index(v);
    int64_t lo, hi;
    assert_true(idx < LATENCY_HIST_BUCKETS);
    latency_hist_bucket_bounds(idx, &lo, &hi);
    if (!(lo <= v && v <= hi)) {
        print_error("value %" PRId64 " -> bucket %zu = [%" PRId64 ", %" PRId64 "]\n", v, idx, lo,
                    hi);
        fail();
    }
}

static void test_histogram_bucket_bounds_contain_their_values(void **state)
{
    (void)state;
    int64_t lo, hi, prev_hi = -1;

    for (size_t i = 0; i < LATENCY_HIST_BUCKETS; i++) {
        latency_hist_bucket_bounds(i, &lo, &hi);
        assert_true(lo <= hi);
        assert_int_equal(lo, prev_hi + 1); /* contiguous, starting at 0 */
        assert_int_equal(latency_hist_bucket_index(lo), i);
        assert_int_equal(latency_hist_bucket_index(hi), i);
        prev_hi = hi;
    }
    assert_true(prev_hi >= LATENCY_HIST_MAX_NS);

    for (int64_t v = 0; v < 128; v++) {
        size_t idx = latency_hist_bucket_index(v);
        latency_hist_bucket_bounds(idx, &lo, &hi);
        assert_int_equal(lo, v);
        assert_int_equal(hi, v);
    }
    for (int k = 0; k < LATENCY_HIST_TOP_EXP; k++) {
        int64_t p = INT64_C(1) << k;
        check_value_in_its_bucket(p - 1);
        check_value_in_its_bucket(p);
        check_value_in_its_bucket(p + 1);
    }
    check_value_in_its_bucket(LATENCY_HIST_MAX_NS - 1);
    check_value_in_its_bucket(LATENCY_HIST_MAX_NS);

    uint64_t rng = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 200000; i++) {
        /* Log-spread: pick a magnitude, then a value below it. */
        uint64_t bits = 1 + rng_next(&rng) % 36;
        int64_t v = (int64_t)(rng_next(&rng) & ((UINT64_C(1) << bits) - 1));
        if (v > LATENCY_HIST_MAX_NS)
            v %= LATENCY_HIST_MAX_NS + 1;
        check_value_in_its_bucket(v);
    }
}

static void test_histogram_bucket_relative_width_below_one_percent(void **state)
{
    (void)state;
    int64_t lo, hi;

    for (size_t i = 0; i < LATENCY_HIST_BUCKETS; i++) {
        latency_hist_bucket_bounds(i, &lo, &hi);
        int64_t width = hi - lo + 1;
        if (lo < LATENCY_HIST_SUB_COUNT) {
            assert_int_equal(width, 1);
            continue;
        }
        /* width / lo <= 1/128, checked in integers. */
        if (width * LATENCY_HIST_SUB_COUNT > lo) {
            print_error("bucket %zu [%" PRId64 ", %" PRId64 "] is wider than lo/128\n", i, lo, hi);
            fail();
        }
        assert_true((double)width / (double)lo <= 0.01);
    }
}

static void test_histogram_percentiles_match_sorted_array(void **state)
{
    (void)state;
    check_percentiles_match_sorted(gen_uniform, 0x1234567u, "uniform 0..2ms");
    check_percentiles_match_sorted(gen_small_uniform, 0x2545f4914f6cdd1du, "uniform 0..300ns");
    check_percentiles_match_sorted(gen_exponential, 0xdeadbeefu, "exponential");
    check_percentiles_match_sorted(gen_bimodal_heavy_tail, 0xc0ffee11u, "bimodal heavy tail");
    check_percentiles_match_sorted(gen_bimodal_heavy_tail, 42u, "bimodal heavy tail #2");
}

static void test_histogram_percentile_is_nearest_rank(void **state)
{
    (void)state;
    struct latency_hist h;
    latency_hist_init(&h);
    for (int64_t v = 100; v >= 1; v--)
        latency_hist_add(&h, v);

    assert_int_equal(latency_hist_percentile(&h, 0.0), 1);
    assert_int_equal(latency_hist_percentile(&h, 0.5), 1);
    assert_int_equal(latency_hist_percentile(&h, 1.0), 1);
    assert_int_equal(latency_hist_percentile(&h, 1.1), 2);
    assert_int_equal(latency_hist_percentile(&h, 50.0), 50);
    assert_int_equal(latency_hist_percentile(&h, 50.5), 51);
    assert_int_equal(latency_hist_percentile(&h, 90.0), 90);
    assert_int_equal(latency_hist_percentile(&h, 99.0), 99);
    assert_int_equal(latency_hist_percentile(&h, 99.9), 100);
    assert_int_equal(latency_hist_percentile(&h, 100.0), 100);
}

/*
 * 99.9 and 1.1 are not exact in binary: 99.9 / 100 * 100000 is 99900.000000000015 and
 * 1.1 * 100000 / 100 is 1100.0000000000002. Neither may push the rank one value up.
 */
static void test_histogram_percentile_rank_survives_decimal_rounding(void **state)
{
    (void)state;
    struct latency_hist h;
    latency_hist_init(&h);
    for (int i = 0; i < 1100; i++)
        latency_hist_add(&h, 1);
    for (int i = 0; i < 98800; i++)
        latency_hist_add(&h, 5);
    for (int i = 0; i < 90; i++)
        latency_hist_add(&h, 7);
    for (int i = 0; i < 10; i++)
        latency_hist_add(&h, 9);

    assert_int_equal(h.count, 100000);
    assert_int_equal(latency_hist_percentile(&h, 1.1), 1);
    assert_int_equal(latency_hist_percentile(&h, 1.101), 5);
    assert_int_equal(latency_hist_percentile(&h, 99.9), 5);
    assert_int_equal(latency_hist_percentile(&h, 99.99), 7);
    assert_int_equal(latency_hist_percentile(&h, 99.991), 9);
}

/* Inside a wide bucket the answer is its midpoint, not an edge. */
static void test_histogram_percentile_reports_bucket_midpoint(void **state)
{
    (void)state;
    struct latency_hist h;
    int64_t lo, hi;
    latency_hist_bucket_bounds(latency_hist_bucket_index(1000000), &lo, &hi);
    assert_int_equal(hi - lo + 1, 4096);

    latency_hist_init(&h);
    latency_hist_add(&h, 10);
    latency_hist_add(&h, lo);
    latency_hist_add(&h, lo + 1);
    latency_hist_add(&h, hi);
    latency_hist_add(&h, 2000000000);
    assert_int_equal(latency_hist_percentile(&h, 50.0), lo + 2047);
    assert_int_equal(latency_hist_percentile(&h, 40.0), lo + 2047);
    assert_int_equal(latency_hist_percentile(&h, 80.0), lo + 2047);
}

/* Rank 1 and rank count are the kept min and max, even in wide buckets. */
static void test_histogram_percentile_ends_are_exact(void **state)
{
    (void)state;
    struct latency_hist h;
    latency_hist_init(&h);
    latency_hist_add(&h, 1000003);
    for (int i = 0; i < 98; i++)
        latency_hist_add(&h, 3000000 + i);
    latency_hist_add(&h, 5000001);

    assert_int_equal(latency_hist_percentile(&h, 0.0), 1000003);
    assert_int_equal(latency_hist_percentile(&h, 0.5), 1000003);
    assert_int_equal(latency_hist_percentile(&h, 1.0), 1000003);
    assert_int_equal(latency_hist_percentile(&h, 99.5), 5000001);
    assert_int_equal(latency_hist_percentile(&h, 100.0), 5000001);

    /* Interior ranks whose bucket midpoint lies beyond the min or max are clamped. */
    latency_hist_init(&h);
    latency_hist_add(&h, 1000000);
    latency_hist_add(&h, 1000001);
    latency_hist_add(&h, 1000002);
    latency_hist_add(&h, 1000003);
    assert_int_equal(latency_hist_percentile(&h, 50.0), 1000003);
    latency_hist_init(&h);
    latency_hist_add(&h, 1003517);
    latency_hist_add(&h, 1003518);
    latency_hist_add(&h, 1003519);
    assert_int_equal(latency_hist_percentile(&h, 50.0), 1003517);
}

static void test_histogram_merge_equals_adding_all(void **state)
{
    (void)state;
    struct latency_hist *a = malloc(sizeof(*a));
    struct latency_hist *b = malloc(sizeof(*b));
    struct latency_hist *all = malloc(sizeof(*all));
    struct latency_hist *empty = malloc(sizeof(*empty));
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(all);
    assert_non_null(empty);
    latency_hist_init(a);
    latency_hist_init(b);
    latency_hist_init(all);
    latency_hist_init(empty);

    uint64_t rng = 7;
    for (int i = 0; i < 50000; i++) {
        int64_t v = gen_bimodal_heavy_tail(&rng);
        latency_hist_add(i % 3 ? a : b, v);
        latency_hist_add(all, v);
    }
    const int64_t odd[] = {-3, LATENCY_HIST_MAX_NS + 1, INT64_C(120000000000), 0};
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        latency_hist_add(i % 2 ? a : b, odd[i]);
        latency_hist_add(all, odd[i]);
    }

    latency_hist_merge(a, b);
    assert_int_equal(a->count, all->count);
    assert_int_equal(a->overflow, 2);
    assert_int_equal(a->underflow, 1);
    assert_int_equal(a->min_ns, -3);
    assert_int_equal(a->max_ns, INT64_C(120000000000));
    assert_memory_equal(a, all, sizeof(*all));

    /* Merging an empty histogram changes nothing; into an empty one copies. */
    latency_hist_merge(a, empty);
    assert_memory_equal(a, all, sizeof(*all));
    latency_hist_merge(empty, all);
    assert_memory_equal(empty, all, sizeof(*all));

    free(empty);
    free(all);
    free(b);
    free(a);
}

static void test_histogram_keeps_values_beyond_range(void **state)
{
    (void)state;
    struct latency_hist h;
    latency_hist_init(&h);
    for (int64_t v = 1; v <= 1000; v++)
        latency_hist_add(&h, v * 1000);
    latency_hist_add(&h, LATENCY_HIST_MAX_NS); /* the last value still in range */
    latency_hist_add(&h, LATENCY_HIST_MAX_NS + 1);
    latency_hist_add(&h, INT64_C(3600000000007));

    assert_int_equal(h.count, 1003);
    assert_int_equal(h.overflow, 2);
    assert_int_equal(h.underflow, 0);
    assert_int_equal(h.max_ns, INT64_C(3600000000007));
    assert_int_equal(h.buckets[latency_hist_bucket_index(LATENCY_HIST_MAX_NS)], 1);

    uint64_t in_buckets = 0;
    for (size_t i = 0; i < LATENCY_HIST_BUCKETS; i++)
        in_buckets += h.buckets[i];
    assert_int_equal(in_buckets + h.overflow, h.count);

    assert_int_equal(latency_hist_percentile(&h, 100.0), INT64_C(3600000000007));
    /* Rank 1002 of 1003 is an overflowed value: reported as the exact max. */
    assert_int_equal(latency_hist_percentile(&h, 99.9), INT64_C(3600000000007));
    /* Rank 1001 is the in-range 60 s value, within its bucket. */
    int64_t p = latency_hist_percentile(&h, 99.8);
    assert_true(llabs(p - LATENCY_HIST_MAX_NS) <= LATENCY_HIST_MAX_NS / 128);

    latency_hist_init(&h);
    latency_hist_add(&h, INT64_MAX);
    assert_int_equal(h.count, 1);
    assert_int_equal(h.overflow, 1);
    assert_int_equal(latency_hist_percentile(&h, 50.0), INT64_MAX);
}

static void test_histogram_negative_values_counted_in_underflow(void **state)
{
    (void)state;
    struct latency_hist h;
    latency_hist_init(&h);
    latency_hist_add(&h, -5);
    latency_hist_add(&h, -1);
    latency_hist_add(&h, 10);
    latency_hist_add(&h, 20);

    assert_int_equal(h.count, 4);
    assert_int_equal(h.underflow, 2);
    assert_int_equal(h.overflow, 0);
    assert_int_equal(h.buckets[0], 2); /* negatives sit in the 0 ns bucket */
    assert_int_equal(h.min_ns, -5);
    assert_int_equal(h.max_ns, 20);
    assert_int_equal(latency_hist_percentile(&h, 0.0), -5);
    assert_int_equal(latency_hist_percentile(&h, 25.0), -5); /* rank 1: exact min */
    assert_int_equal(latency_hist_percentile(&h, 50.0), 0);  /* rank 2: in the 0 bucket */
    assert_int_equal(latency_hist_percentile(&h, 75.0), 10);
    assert_int_equal(latency_hist_percentile(&h, 100.0), 20);

    latency_hist_init(&h);
    latency_hist_add(&h, -7);
    latency_hist_add(&h, -3);
    latency_hist_add(&h, -2);
    /* All negative: the 0 bucket's midpoint is clamped to the max. */
    assert_int_equal(latency_hist_percentile(&h, 50.0), -2);
}

static void test_histogram_empty_percentile_is_zero(void **state)
{
    (void)state;
    struct latency_hist h;
    latency_hist_init(&h);

    assert_int_equal(h.count, 0);
    assert_int_equal(h.overflow, 0);
    assert_int_equal(h.underflow, 0);
    assert_int_equal(h.min_ns, INT64_MAX);
    assert_int_equal(h.max_ns, INT64_MIN);
    for (size_t i = 0; i < LATENCY_HIST_BUCKETS; i++)
        assert_int_equal(h.buckets[i], 0);
    assert_int_equal(latency_hist_percentile(&h, 0.0), 0);
    assert_int_equal(latency_hist_percentile(&h, 50.0), 0);
    assert_int_equal(latency_hist_percentile(&h, 100.0), 0);
}

static void test_histogram_single_value_is_every_percentile(void **state)
{
    (void)state;
    struct latency_hist h;
    latency_hist_init(&h);
    latency_hist_add(&h, 123457);

    assert_int_equal(latency_hist_percentile(&h, 0.0), 123457);
    assert_int_equal(latency_hist_percentile(&h, 50.0), 123457);
    assert_int_equal(latency_hist_percentile(&h, 99.99), 123457);
    assert_int_equal(latency_hist_percentile(&h, 100.0), 123457);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_histogram_bucket_bounds_contain_their_values),
        cmocka_unit_test(test_histogram_bucket_relative_width_below_one_percent),
        cmocka_unit_test(test_histogram_percentiles_match_sorted_array),
        cmocka_unit_test(test_histogram_percentile_is_nearest_rank),
        cmocka_unit_test(test_histogram_percentile_rank_survives_decimal_rounding),
        cmocka_unit_test(test_histogram_percentile_reports_bucket_midpoint),
        cmocka_unit_test(test_histogram_percentile_ends_are_exact),
        cmocka_unit_test(test_histogram_merge_equals_adding_all),
        cmocka_unit_test(test_histogram_keeps_values_beyond_range),
        cmocka_unit_test(test_histogram_negative_values_counted_in_underflow),
        cmocka_unit_test(test_histogram_empty_percentile_is_zero),
        cmocka_unit_test(test_histogram_single_value_is_every_percentile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
