/*
 * Unit tests for the tail analysis's text (src/out/text_tail.c): the
 * budget per hour and per year as an expected count with its interval
 * and the chance of at least one, never a bare "1"; latencies beyond a
 * minute in hours and days, not in tens of thousands of seconds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/text_tail.h"
#include "stats/tail.h"

static char *text_of(const struct tail_result *r, int64_t interval_ns)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    assert_non_null(m);
    struct tail_config cfg = {.confidence = 0.95, .budget_ns = 200000, .interval_ns = interval_ns};
    int cpu = 1;
    text_tail(m, &cfg, r, &cpu, 1, NULL);
    assert_int_equal(fclose(m), 0);
    return text;
}

static struct tail_result estimate(void)
{
    struct tail_result r;
    memset(&r, 0, sizeof r);
    r.verdict = TAIL_ESTIMATE;
    r.samples = 200000;
    r.threshold_ns = 122880;
    r.shape = (struct tail_value){0.16, 0.115, 0.21};
    r.scale = (struct tail_value){19355, 18201, 20563};
    r.upper_endpoint_ns = INFINITY;
    r.nestimates = 2;
    r.estimates[0] = (struct tail_estimate){1e-9, {1.666e6, 1.096e6, 2.776e6}};
    /* a far level: 72899 s, up to 3 days */
    r.estimates[1] = (struct tail_estimate){1e-12, {72899e9, 3000e9, 3 * 86400e9}};
    r.has_budget = true;
    r.budget_ns = 200000;
    r.budget_per_cycle = (struct tail_value){0.000583, 0.000505, 0.000671};
    r.budget_per_hour = (struct tail_value){1, 1, 1};
    r.budget_per_year = (struct tail_value){1, 1, 1};
    r.more_hours_1e9 = NAN;
    r.empirical_max_ns = 371672;
    r.extremal_index = NAN;
    return r;
}

static void test_budget_per_hour_gives_the_expected_count_not_a_bare_one(void **state)
{
    (void)state;
    struct tail_result r = estimate();
    char *t = text_of(&r, 1000000);
    assert_non_null(strstr(t, "  budget 200 us: exceeded with probability 0.000583 per cycle "
                              "[0.000505, 0.000671]\n"));
    /* 3.6e6 cycles an hour at 1 ms */
    assert_non_null(strstr(t, "    per hour: 2099 expected [1818, 2416], at least one with "
                              "probability about 1\n"));
    assert_non_null(strstr(t, "    per year: 1.84e+07 expected [1.59e+07, 2.12e+07], at least "
                              "one with probability about 1\n"));
    assert_null(strstr(t, ", 1 per hour"));
    free(t);
    /* a chance short of certain keeps its digits */
    r.budget_per_cycle = (struct tail_value){1e-7, 5e-8, 2e-7};
    r.budget_per_hour = (struct tail_value){0.302, 0.165, 0.513};
    t = text_of(&r, 1000000);
    assert_non_null(strstr(t, "    per hour: 0.36 expected [0.18, 0.72], at least one with "
                              "probability 0.302\n"));
    free(t);
}

static void test_latencies_beyond_a_minute_read_in_hours_and_days(void **state)
{
    (void)state;
    struct tail_result r = estimate();
    char *t = text_of(&r, 1000000);
    assert_non_null(strstr(t, "| 20.2 h       | 50 min .. 3 d\n"));
    assert_null(strstr(t, "72899 s"));
    assert_non_null(strstr(t, "| 1.666 ms     | 1.096 ms .. 2.776 ms\n"));
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget_per_hour_gives_the_expected_count_not_a_bare_one),
        cmocka_unit_test(test_latencies_beyond_a_minute_read_in_hours_and_days),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
