/*
 * `run --tail` and `--until-confident` below the run itself
 * (src/cmd/run_tail.c, run_tail_watch.c, out/text_report.c): the
 * probabilities asked, the buckets a histogram hands the analysis, the
 * check of one CPU against the width asked, and the line that says what
 * ended the run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/run_tail.h"
#include "cmd/run_tail_watch.h"
#include "out/text_report.h"

static void test_run_tail_adds_the_confident_probability_once(void **state)
{
    (void)state;
    struct run_params p = {0};
    double prob[TAIL_MAX_PROBABILITIES];
    assert_int_equal(run_tail_probabilities(&p, prob), 3);
    assert_true(prob[0] == 1e-6 && prob[1] == 1e-9 && prob[2] == 1e-12);
    p.confident_probability = 1e-9;
    assert_int_equal(run_tail_probabilities(&p, prob), 3);
    p.confident_probability = 1e-7;
    assert_int_equal(run_tail_probabilities(&p, prob), 4);
    assert_true(prob[3] == 1e-7);
}

static void test_tail_bins_are_the_non_empty_buckets_in_order(void **state)
{
    (void)state;
    struct latency_hist *h = malloc(sizeof *h);
    struct tail_bin *bins = malloc(LATENCY_HIST_BUCKETS * sizeof *bins);
    assert_non_null(h);
    assert_non_null(bins);
    latency_hist_init(h);
    latency_hist_add(h, 5);
    latency_hist_add(h, 5);
    latency_hist_add(h, 20000);
    latency_hist_add(h, 1000000);
    size_t n = tail_bins_of_hist(h, bins);
    assert_int_equal(n, 3);
    assert_true(bins[0].lo == 5 && bins[0].hi == 5 && bins[0].count == 2);
    assert_true(bins[1].lo <= 20000 && bins[1].hi >= 20000 && bins[1].count == 1);
    assert_true(bins[2].lo <= 1000000 && bins[2].hi >= 1000000 && bins[2].lo > bins[1].hi);
    free(bins);
    free(h);
}

static struct tail_result estimate_at(double p, double value, double hi)
{
    struct tail_result r;
    memset(&r, 0, sizeof r);
    r.verdict = TAIL_ESTIMATE;
    r.nestimates = 2;
    r.estimates[0] = (struct tail_estimate){1e-6, {value / 2, value / 3, value}};
    r.estimates[1] = (struct tail_estimate){p, {value, value * 0.9, hi}};
    return r;
}

static void test_run_tail_check_is_confident_only_within_the_width(void **state)
{
    (void)state;
    struct tail_result r = estimate_at(1e-9, 10000, 10800);
    struct run_tail_check_cpu c = tail_watch_check_cpu(2, &r, 1e-9, 0.10);
    assert_int_equal(c.cpu, 2);
    assert_true(c.estimate && c.confident);
    assert_true(fabs(c.width - 0.08) < 1e-9);
    c = tail_watch_check_cpu(2, &r, 1e-9, 0.05);
    assert_true(c.estimate && !c.confident);
    r = estimate_at(1e-9, 10000, INFINITY); /* unbounded above: never */
    c = tail_watch_check_cpu(2, &r, 1e-9, 10);
    assert_true(c.estimate && !c.confident && isinf(c.upper_ns));
    r = estimate_at(1e-9, 10000, NAN); /* no interval: never */
    c = tail_watch_check_cpu(2, &r, 1e-9, 10);
    assert_false(c.confident);
    r = estimate_at(1e-9, 10000, 10100);
    r.verdict = TAIL_CANNOT_ESTIMATE; /* the checks refuse: never */
    c = tail_watch_check_cpu(2, &r, 1e-9, 10);
    assert_false(c.estimate || c.confident);
    assert_true(isnan(c.latency_ns));
}

static char *until_confident_text(const struct run_tail_confidence *k)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    assert_non_null(m);
    text_until_confident(m, k);
    assert_int_equal(fclose(m), 0);
    return text;
}

static void test_run_tail_says_what_ended_the_run(void **state)
{
    (void)state;
    struct run_tail_check_cpu cpus[2] = {
        {.cpu = 1,
         .estimate = true,
         .latency_ns = 12300,
         .upper_ns = 13296,
         .width = 0.081,
         .confident = true},
        {.cpu = 3,
         .estimate = true,
         .latency_ns = 9000,
         .upper_ns = 9100,
         .width = 0.011,
         .confident = true},
    };
    struct run_tail_confidence k = {.probability = 1e-9,
                                    .width = 0.1,
                                    .ended_by = "confident",
                                    .limit = "-D",
                                    .checks = 4,
                                    .last_t_s = 4,
                                    .ncpu = 2,
                                    .cpus = cpus,
                                    .widest = 0};
    char *t = until_confident_text(&k);
    assert_string_equal(t, "\nstopped: the 1e-9 level's interval is within 10 % on every CPU "
                           "(widest: CPU 1: 12.3 us, +8.1 %)\n");
    free(t);
    k.ended_by = "duration";
    cpus[0] = (struct run_tail_check_cpu){.cpu = 1, .latency_ns = NAN, .width = NAN};
    t = until_confident_text(&k);
    assert_string_equal(t, "\n-D ended the run before the 1e-9 level was known within 10 % "
                           "(CPU 1: cannot estimate)\n");
    free(t);
    k.ended_by = "signal";
    k.checks = 0;
    k.widest = -1;
    t = until_confident_text(&k);
    assert_string_equal(t, "\na signal ended the run before the 1e-9 level was known within "
                           "10 % (no check finished)\n");
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_tail_adds_the_confident_probability_once),
        cmocka_unit_test(test_tail_bins_are_the_non_empty_buckets_in_order),
        cmocka_unit_test(test_run_tail_check_is_confident_only_within_the_width),
        cmocka_unit_test(test_run_tail_says_what_ended_the_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
