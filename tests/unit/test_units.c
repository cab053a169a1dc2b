/*
 * Unit tests for src/common/units.c: what durations and bounded integers the
 * command line accepts, the reasons it gives for what it refuses, and how
 * durations are printed back for people.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/units.h"

static int64_t duration_ok(const char *text, int64_t bare_unit_ns)
{
    int64_t ns = -42;
    const char *why = NULL;
    int rc = parse_duration_ns(text, bare_unit_ns, &ns, &why);
    if (rc != 0)
        fail_msg("\"%s\" rejected: %s", text, why ? why : "(no reason)");
    assert_null(why);
    return ns;
}

static const char *duration_bad(const char *text, int64_t bare_unit_ns)
{
    int64_t ns = -42;
    const char *why = NULL;
    assert_int_equal(parse_duration_ns(text, bare_unit_ns, &ns, &why), -1);
    assert_int_equal(ns, -42); /* output untouched on error */
    assert_non_null(why);
    return why;
}

static void test_duration_accepts_every_unit(void **state)
{
    (void)state;
    assert_int_equal(duration_ok("500ns", NS_PER_US), 500);
    assert_int_equal(duration_ok("250us", NS_PER_US), 250000);
    assert_int_equal(duration_ok("250\xc2\xb5s", NS_PER_US), 250000); /* micro sign */
    assert_int_equal(duration_ok("250\xce\xbcs", NS_PER_US), 250000); /* Greek mu */
    assert_int_equal(duration_ok("1ms", NS_PER_US), NS_PER_MS);
    assert_int_equal(duration_ok("10s", NS_PER_US), 10 * NS_PER_S);
    assert_int_equal(duration_ok("5m", NS_PER_US), 300 * NS_PER_S);
    assert_int_equal(duration_ok("2h", NS_PER_US), 7200 * NS_PER_S);
}

static void test_duration_zero_is_accepted(void **state)
{
    (void)state;
    assert_int_equal(duration_ok("0", NS_PER_US), 0);
    assert_int_equal(duration_ok("0ms", NS_PER_US), 0);
    assert_int_equal(duration_ok("0.0s", NS_PER_US), 0);
}

static void test_duration_bare_number_uses_bare_unit(void **state)
{
    (void)state;
    assert_int_equal(duration_ok("10", NS_PER_US), 10 * NS_PER_US); /* -i: µs */
    assert_int_equal(duration_ok("10", NS_PER_S), 10 * NS_PER_S);   /* -D: s */
    assert_int_equal(duration_ok("10", 1), 10);
    assert_int_equal(duration_ok("1.5", NS_PER_S), 1500 * NS_PER_MS);
}

static void test_duration_decimals_are_exact(void **state)
{
    (void)state;
    assert_int_equal(duration_ok("1.5ms", NS_PER_US), 1500000);
    /* 1.1 and 0.3 have no exact binary form; the result must still be exact */
    assert_int_equal(duration_ok("1.1ms", NS_PER_US), 1100000);
    assert_int_equal(duration_ok("0.3s", NS_PER_US), 300000000);
    assert_int_equal(duration_ok("2.675us", NS_PER_US), 2675);
    assert_int_equal(duration_ok("0.001ms", NS_PER_US), 1000);
    assert_int_equal(duration_ok("1.25h", NS_PER_US), 4500 * NS_PER_S);
    assert_int_equal(duration_ok("0.5m", NS_PER_US), 30 * NS_PER_S);
    assert_int_equal(duration_ok("007ms", NS_PER_US), 7 * NS_PER_MS);
}

static void test_duration_truncates_below_one_ns(void **state)
{
    (void)state;
    assert_int_equal(duration_ok("1.9ns", NS_PER_US), 1);
    assert_int_equal(duration_ok("0.0000019ms", NS_PER_US), 1);
    assert_int_equal(duration_ok("1.123456789123456789123s", NS_PER_US), 1123456789);
}

static void test_duration_rejects_empty(void **state)
{
    (void)state;
    assert_string_equal(duration_bad("", NS_PER_US), "must not be empty");
    assert_string_equal(duration_bad(NULL, NS_PER_US), "must not be empty");
}

static void test_duration_rejects_negative(void **state)
{
    (void)state;
    assert_string_equal(duration_bad("-1", NS_PER_US), "must not be negative");
    assert_string_equal(duration_bad("-0.5ms", NS_PER_US), "must not be negative");
}

static void test_duration_rejects_garbage(void **state)
{
    (void)state;
    assert_string_equal(duration_bad("abc", NS_PER_US),
                        "not a duration (write e.g. 250us, 1.5ms, 10s)");
    assert_string_equal(duration_bad("ms", NS_PER_US),
                        "not a duration (write e.g. 250us, 1.5ms, 10s)");
    assert_string_equal(duration_bad("+5ms", NS_PER_US),
                        "not a duration (write e.g. 250us, 1.5ms, 10s)");
    assert_string_equal(duration_bad(".5ms", NS_PER_US),
                        "not a duration (write e.g. 250us, 1.5ms, 10s)");
    assert_string_equal(duration_bad("1.ms", NS_PER_US),
                        "malformed number (digits expected after '.')");
    assert_string_equal(duration_bad("1.2.3ms", NS_PER_US),
                        "unknown unit (use ns, us, ms, s, m, h)");
}

static void test_duration_rejects_unknown_unit(void **state)
{
    (void)state;
    const char *msg = "unknown unit (use ns, us, ms, s, m, h)";
    assert_string_equal(duration_bad("10xs", NS_PER_US), msg);
    assert_string_equal(duration_bad("10MS", NS_PER_US), msg);
    assert_string_equal(duration_bad("10sec", NS_PER_US), msg);
    assert_string_equal(duration_bad("10msx", NS_PER_US), msg);
}

static void test_duration_rejects_whitespace(void **state)
{
    (void)state;
    const char *msg = "must not contain spaces (write e.g. 250us)";
    assert_string_equal(duration_bad(" 10ms", NS_PER_US), msg);
    assert_string_equal(duration_bad("10ms ", NS_PER_US), msg);
    assert_string_equal(duration_bad("10 ms", NS_PER_US), msg);
    assert_string_equal(duration_bad("10ms\n", NS_PER_US), msg);
}

static void test_duration_rejects_overflow(void **state)
{
    (void)state;
    /* INT64_MAX ns is about 292 years */
    assert_int_equal(duration_ok("9223372036854775807ns", NS_PER_US), INT64_MAX);
    assert_string_equal(duration_bad("9223372036854775808ns", NS_PER_US), "too large");
    assert_string_equal(duration_bad("99999999999999999999999999s", NS_PER_US), "too large");
    assert_string_equal(duration_bad("9223372037s", NS_PER_US), "too large");
    assert_int_equal(duration_ok("9223372036s", NS_PER_US), 9223372036 * NS_PER_S);
    assert_string_equal(duration_bad("2562048h", NS_PER_US), "too large");
    /* the fraction can be what tips it over */
    assert_int_equal(duration_ok("9223372036.854775807s", NS_PER_US), INT64_MAX);
    assert_string_equal(duration_bad("9223372036.854775808s", NS_PER_US), "too large");
}

static void test_duration_bounded_refuses_more_than_8784h(void **state)
{
    (void)state;
    const char *msg = "must be at most 8784h (366 days)";
    int64_t ns = -42;
    const char *why = NULL;
    assert_int_equal(parse_duration_bounded_ns("8784h", NS_PER_S, &ns, &why), 0);
    assert_int_equal(ns, DURATION_MAX_NS);
    assert_int_equal(parse_duration_bounded_ns("31622400", NS_PER_S, &ns, &why), 0);
    assert_int_equal(ns, DURATION_MAX_NS);
    ns = -42;
    assert_int_equal(parse_duration_bounded_ns("31622400000000001ns", NS_PER_S, &ns, &why), -1);
    assert_string_equal(why, msg);
    assert_int_equal(parse_duration_bounded_ns("9223372036854775807ns", NS_PER_S, &ns, &why), -1);
    assert_string_equal(why, msg);
    assert_int_equal(ns, -42); /* output untouched on error */
    /* the parser's own reasons come first */
    assert_int_equal(parse_duration_bounded_ns("9223372036854775808ns", NS_PER_S, &ns, &why), -1);
    assert_string_equal(why, "too large");
    /* sums of two bounded durations and a monotonic time stay far from overflow */
    assert_true(DURATION_MAX_NS < INT64_MAX / 4);
}

static void test_duration_rejects_bad_bare_unit(void **state)
{
    (void)state;
    assert_string_equal(duration_bad("10", 0), "invalid default unit");
    assert_string_equal(duration_bad("10", -1), "invalid default unit");
}

static void test_int_range_accepts_bounds(void **state)
{
    (void)state;
    long v = 0;
    const char *why = NULL;
    assert_int_equal(parse_int_range("1", 1, 99, &v, &why), 0);
    assert_int_equal(v, 1);
    assert_int_equal(parse_int_range("99", 1, 99, &v, &why), 0);
    assert_int_equal(v, 99);
    assert_int_equal(parse_int_range("-5", -10, 10, &v, &why), 0);
    assert_int_equal(v, -5);
    assert_int_equal(parse_int_range("+7", 0, 10, &v, &why), 0);
    assert_int_equal(v, 7);
    assert_int_equal(parse_int_range("010", 0, 99, &v, &why), 0);
    assert_int_equal(v, 10); /* base 10, not octal */
    assert_null(why);
}

static void test_int_range_rejects_out_of_range(void **state)
{
    (void)state;
    long v = 42;
    const char *why = NULL;
    assert_int_equal(parse_int_range("0", 1, 99, &v, &why), -1);
    assert_string_equal(why, "out of range");
    why = NULL;
    assert_int_equal(parse_int_range("100", 1, 99, &v, &why), -1);
    assert_string_equal(why, "out of range");
    why = NULL;
    assert_int_equal(parse_int_range("99999999999999999999999", 1, 99, &v, &why), -1);
    assert_string_equal(why, "out of range");
    assert_int_equal(v, 42);
}

static void test_int_range_rejects_garbage(void **state)
{
    (void)state;
    static const char *const bad[] = {"abc", "12abc", " 12", "12 ", "-", "+", "1.5", "0x10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        long v = 42;
        const char *why = NULL;
        assert_int_equal(parse_int_range(bad[i], 0, 1000, &v, &why), -1);
        assert_string_equal(why, "not a number");
        assert_int_equal(v, 42);
    }
    long v = 42;
    const char *why = NULL;
    assert_int_equal(parse_int_range("", 0, 1000, &v, &why), -1);
    assert_string_equal(why, "must not be empty");
}

static void check_format(int64_t ns, const char *want)
{
    char buf[64];
    format_duration(ns, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void test_format_duration_picks_unit_and_trims_zeros(void **state)
{
    (void)state;
    check_format(0, "0 ns");
    check_format(500, "500 ns");
    check_format(999, "999 ns");
    check_format(1000, "1 us");
    check_format(1500, "1.5 us");
    check_format(250000, "250 us");
    check_format(1000000, "1 ms");
    check_format(1500000, "1.5 ms");
    check_format(1250000, "1.25 ms");
    check_format(1234567, "1.235 ms");
    check_format(10 * NS_PER_S, "10 s");
    check_format(7200 * NS_PER_S, "7200 s");
}

static void test_format_duration_rounds_and_carries(void **state)
{
    (void)state;
    check_format(1000499, "1 ms");
    check_format(1000500, "1.001 ms");
    check_format(999999, "999.999 us");
    check_format(999999999, "1 s");
    check_format(999999500, "1 s");
    check_format(999999499, "999.999 ms");
}

static void test_format_duration_negative_and_extremes(void **state)
{
    (void)state;
    check_format(-250, "-250 ns");
    check_format(-1500000, "-1.5 ms");
    check_format(INT64_MAX, "9223372036.855 s");
    check_format(INT64_MIN, "-9223372036.855 s");
}

static void test_format_duration_respects_buffer_size(void **state)
{
    (void)state;
    char buf[4];
    format_duration(1500000, buf, sizeof buf);
    assert_string_equal(buf, "1.5");
    format_duration(1500000, NULL, 0); /* must not crash */
}

static void check_format_long(int64_t ns, const char *want)
{
    char buf[64];
    format_duration_long(ns, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void test_format_duration_long_reads_beyond_a_minute_in_hours_and_days(void **state)
{
    (void)state;
    check_format_long(1500000, "1.5 ms");
    check_format_long(59 * NS_PER_S, "59 s");
    check_format_long(60 * NS_PER_S, "1 min");
    check_format_long(90 * NS_PER_S, "1.5 min");
    check_format_long(72899 * NS_PER_S, "20.2 h");
    check_format_long(3 * 86400 * NS_PER_S, "3 d");
    check_format_long(INT64_MAX, "292 years");
    check_format_long(-7200 * NS_PER_S, "-2 h");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duration_accepts_every_unit),
        cmocka_unit_test(test_duration_zero_is_accepted),
        cmocka_unit_test(test_duration_bare_number_uses_bare_unit),
        cmocka_unit_test(test_duration_decimals_are_exact),
        cmocka_unit_test(test_duration_truncates_below_one_ns),
        cmocka_unit_test(test_duration_rejects_empty),
        cmocka_unit_test(test_duration_rejects_negative),
        cmocka_unit_test(test_duration_rejects_garbage),
        cmocka_unit_test(test_duration_rejects_unknown_unit),
        cmocka_unit_test(test_duration_rejects_whitespace),
        cmocka_unit_test(test_duration_rejects_overflow),
        cmocka_unit_test(test_duration_bounded_refuses_more_than_8784h),
        cmocka_unit_test(test_duration_rejects_bad_bare_unit),
        cmocka_unit_test(test_int_range_accepts_bounds),
        cmocka_unit_test(test_int_range_rejects_out_of_range),
        cmocka_unit_test(test_int_range_rejects_garbage),
        cmocka_unit_test(test_format_duration_picks_unit_and_trims_zeros),
        cmocka_unit_test(test_format_duration_rounds_and_carries),
        cmocka_unit_test(test_format_duration_negative_and_extremes),
        cmocka_unit_test(test_format_duration_respects_buffer_size),
        cmocka_unit_test(test_format_duration_long_reads_beyond_a_minute_in_hours_and_days),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
