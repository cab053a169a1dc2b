/*
 * Unit tests for src/sys/cpulist.c: the kernel's CPU list syntax in both
 * directions, the reasons for refusing malformed lists, and the set
 * operations (membership, insertion, difference) that keep a list sorted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/cpulist.h"

static void parse_ok(const char *text, struct cpulist *l)
{
    const char *why = NULL;
    if (cpulist_parse(text, l, &why) != 0)
        fail_msg("\"%s\" rejected: %s", text, why ? why : "(no reason)");
}

static const char *parse_bad(const char *text)
{
    struct cpulist l;
    const char *why = NULL;
    l.count = 7;
    assert_int_equal(cpulist_parse(text, &l, &why), -1);
    assert_int_equal(l.count, 0);
    assert_non_null(why);
    return why;
}

/* parse, format, and compare with the expected kernel form */
static void check_round_trip(const char *text, const char *want)
{
    struct cpulist l;
    char buf[256];
    parse_ok(text, &l);
    assert_int_equal(cpulist_format(&l, buf, sizeof buf), 0);
    assert_string_equal(buf, want);
}

static void test_cpulist_parses_ranges_and_singles(void **state)
{
    (void)state;
    struct cpulist l;
    parse_ok("0-3,6,8-11", &l);
    static const int want[] = {0, 1, 2, 3, 6, 8, 9, 10, 11};
    assert_int_equal(l.count, 9);
    assert_memory_equal(l.cpu, want, sizeof want);
}

static void test_cpulist_round_trips_kernel_form(void **state)
{
    (void)state;
    check_round_trip("0-3,6,8-11", "0-3,6,8-11");
    check_round_trip("0", "0");
    check_round_trip("1-2", "1-2");
    check_round_trip("5-5", "5");
    check_round_trip("4095", "4095");
    check_round_trip("0,2,4", "0,2,4");
}

static void test_cpulist_sorts_and_merges_duplicates(void **state)
{
    (void)state;
    check_round_trip("8-11,0-3,6", "0-3,6,8-11");
    check_round_trip("3,1,2,1,0", "0-3");
    check_round_trip("0-5,2-8", "0-8");
    check_round_trip("2,2,2", "2");
}

static void test_cpulist_accepts_surrounding_whitespace(void **state)
{
    (void)state;
    check_round_trip("0-3\n", "0-3");
    check_round_trip("  0-1,3 \t\n", "0-1,3");
}

static void test_cpulist_empty_text_is_empty_list(void **state)
{
    (void)state;
    static const char *const empty[] = {"", "\n", "  \t\n"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        struct cpulist l;
        l.count = 5;
        parse_ok(empty[i], &l);
        assert_int_equal(l.count, 0);
    }
    struct cpulist l;
    l.count = 5;
    parse_ok(NULL, &l);
    assert_int_equal(l.count, 0);
    check_round_trip("", "");
}

static void test_cpulist_rejects_malformed(void **state)
{
    (void)state;
    const char *no_number = "malformed CPU list (expected a CPU number, e.g. 0-3,6)";
    assert_string_equal(parse_bad("a"), no_number);
    assert_string_equal(parse_bad(",,"), no_number);
    assert_string_equal(parse_bad("1,,2"), no_number);
    assert_string_equal(parse_bad("1,"), no_number);
    assert_string_equal(parse_bad(",1"), no_number);
    assert_string_equal(parse_bad("-1"), no_number);
    assert_string_equal(parse_bad("1-"), "malformed CPU list (range without an end, e.g. 0-3)");
    assert_string_equal(parse_bad("1-a"), "malformed CPU list (range without an end, e.g. 0-3)");
    const char *unexpected = "malformed CPU list (unexpected character)";
    assert_string_equal(parse_bad("1a"), unexpected);
    assert_string_equal(parse_bad("0 1"), unexpected);
    assert_string_equal(parse_bad("0, 1"), no_number);
    assert_string_equal(parse_bad("1-2-3"), unexpected);
    assert_string_equal(parse_bad("0-3;6"), unexpected);
}

static void test_cpulist_rejects_descending_range(void **state)
{
    (void)state;
    assert_string_equal(parse_bad("3-1"), "malformed CPU list (descending range; write e.g. 1-3)");
}

static void test_cpulist_rejects_cpu_beyond_limit(void **state)
{
    (void)state;
    const char *msg = "CPU number too large (limit 4096)";
    assert_string_equal(parse_bad("4096"), msg);
    assert_string_equal(parse_bad("0-4096"), msg);
    assert_string_equal(parse_bad("99999999999999999999999"), msg);
    struct cpulist l;
    parse_ok("0-4095", &l);
    assert_int_equal(l.count, CPULIST_MAX_CPUS);
}

static void test_cpulist_format_reports_small_buffer(void **state)
{
    (void)state;
    struct cpulist l;
    char buf[6];
    parse_ok("0-3,6,8-11", &l);
    assert_int_equal(cpulist_format(&l, buf, sizeof buf), -1);
    assert_string_equal(buf, "");
    char exact[11]; /* "0-3,6,8-11" + NUL */
    assert_int_equal(cpulist_format(&l, exact, sizeof exact), 0);
    assert_string_equal(exact, "0-3,6,8-11");
    assert_int_equal(cpulist_format(&l, exact, 0), -1);
}

static void test_cpulist_format_handles_full_list(void **state)
{
    (void)state;
    struct cpulist l;
    char buf[64];
    parse_ok("0-4095", &l);
    assert_int_equal(cpulist_format(&l, buf, sizeof buf), 0);
    assert_string_equal(buf, "0-4095");
}

static void test_cpulist_contains(void **state)
{
    (void)state;
    struct cpulist l;
    parse_ok("0-3,6,8-11", &l);
    for (int cpu = -1; cpu <= 13; cpu++) {
        bool want = (cpu >= 0 && cpu <= 3) || cpu == 6 || (cpu >= 8 && cpu <= 11);
        assert_int_equal(cpulist_contains(&l, cpu), want);
    }
    struct cpulist empty = {.count = 0};
    assert_false(cpulist_contains(&empty, 0));
}

static void test_cpulist_add_keeps_sorted_and_unique(void **state)
{
    (void)state;
    struct cpulist l = {.count = 0};
    char buf[64];
    cpulist_add(&l, 5);
    cpulist_add(&l, 1);
    cpulist_add(&l, 3);
    cpulist_add(&l, 1);
    cpulist_add(&l, 0);
    cpulist_add(&l, 6);
    cpulist_add(&l, 2);
    cpulist_add(&l, -1);               /* not a CPU: ignored */
    cpulist_add(&l, CPULIST_MAX_CPUS); /* not representable: ignored */
    assert_int_equal(l.count, 6);
    assert_int_equal(cpulist_format(&l, buf, sizeof buf), 0);
    assert_string_equal(buf, "0-3,5-6");
}

static void test_cpulist_subtract(void **state)
{
    (void)state;
    struct cpulist a, b, out;
    char buf[64];
    parse_ok("0-11", &a);
    parse_ok("3,6-8,20", &b);
    cpulist_subtract(&a, &b, &out);
    assert_int_equal(cpulist_format(&out, buf, sizeof buf), 0);
    assert_string_equal(buf, "0-2,4-5,9-11");

    parse_ok("", &b);
    cpulist_subtract(&a, &b, &out);
    assert_int_equal(out.count, 12);

    cpulist_subtract(&b, &a, &out);
    assert_int_equal(out.count, 0);

    cpulist_subtract(&a, &a, &out);
    assert_int_equal(out.count, 0);
}

static void test_cpulist_subtract_in_place(void **state)
{
    (void)state;
    struct cpulist a, b;
    char buf[64];
    parse_ok("0-3", &a); /* online */
    parse_ok("3", &b);   /* isolated */
    cpulist_subtract(&a, &b, &a);
    assert_int_equal(cpulist_format(&a, buf, sizeof buf), 0);
    assert_string_equal(buf, "0-2");
}

/* "0,2,4,...,last" (step 2) into buf */
static void every_second_cpu_text(char *buf, size_t len, int last)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int cpu = 0; cpu <= last; cpu += 2)
        used += (size_t)snprintf(buf + used, len - used, "%s%d", cpu ? "," : "", cpu);
}

static void test_cpulist_two_sockets_of_256_cpus(void **state)
{
    (void)state;
    struct cpulist online, package0, isolated, housekeeping;
    char buf[64];
    parse_ok("0-255", &online);
    parse_ok("0-63,128-191", &package0);
    parse_ok("2-63,130-191", &isolated);
    assert_int_equal(online.count, 256);
    assert_int_equal(package0.count, 128);
    assert_int_equal(package0.cpu[63], 63);
    assert_int_equal(package0.cpu[64], 128);
    assert_true(cpulist_contains(&package0, 191));
    assert_false(cpulist_contains(&package0, 64));
    assert_false(cpulist_contains(&package0, 192));
    assert_int_equal(cpulist_format(&package0, buf, sizeof buf), 0);
    assert_string_equal(buf, "0-63,128-191");
    cpulist_subtract(&online, &isolated, &housekeeping);
    assert_int_equal(housekeeping.count, 132);
    assert_int_equal(cpulist_format(&housekeeping, buf, sizeof buf), 0);
    assert_string_equal(buf, "0-1,64-129,192-255");
    cpulist_subtract(&package0, &isolated, &package0); /* in place */
    assert_int_equal(cpulist_format(&package0, buf, sizeof buf), 0);
    assert_string_equal(buf, "0-1,128-129");
    assert_true(cpulist_text_contains("0-63,128-191", 128));
    assert_false(cpulist_text_contains("0-63,128-191", 127));
}

static void test_cpulist_long_list_of_every_second_cpu(void **state)
{
    (void)state;
    char text[600], buf[600];
    struct cpulist l, isolated, kept;
    every_second_cpu_text(text, sizeof text, 254);
    assert_int_equal(strlen(text), 456); /* longer than any short copy */
    parse_ok(text, &l);
    assert_int_equal(l.count, 128);
    assert_int_equal(l.cpu[127], 254);
    assert_int_equal(cpulist_format(&l, buf, sizeof buf), 0);
    assert_string_equal(buf, text);
    assert_int_equal(cpulist_format(&l, buf, strlen(text)), -1); /* one short for the NUL */
    assert_int_equal(cpulist_format(&l, buf, strlen(text) + 1), 0);
    assert_true(cpulist_text_contains(text, 254));
    assert_false(cpulist_text_contains(text, 253));
    assert_false(cpulist_text_contains(text, 256));
    parse_ok("2-63,130-191", &isolated);
    cpulist_subtract(&l, &isolated, &kept);
    assert_int_equal(kept.count, 1 + 33 + 32);
    assert_int_equal(cpulist_format(&kept, buf, sizeof buf), 0);
    assert_int_equal(strncmp(buf, "0,64,66,", 8), 0);
    assert_true(cpulist_contains(&kept, 128));
    assert_false(cpulist_contains(&kept, 130));
}

static void test_cpulist_ids_beyond_1024(void **state)
{
    (void)state;
    struct cpulist online, isolated, kept;
    char buf[64];
    parse_ok("0-3,1100-1103", &online);
    static const int want[] = {0, 1, 2, 3, 1100, 1101, 1102, 1103};
    assert_int_equal(online.count, 8);
    assert_memory_equal(online.cpu, want, sizeof want);
    assert_int_equal(cpulist_format(&online, buf, sizeof buf), 0);
    assert_string_equal(buf, "0-3,1100-1103");
    assert_true(cpulist_contains(&online, 1100));
    assert_false(cpulist_contains(&online, 1024));
    assert_false(cpulist_contains(&online, 1099));
    assert_false(cpulist_contains(&online, 1104));
    assert_true(cpulist_text_contains("0-3,1100-1103", 1103));
    assert_false(cpulist_text_contains("0-3,1100-1103", 1023));
    parse_ok("2-3,1102-1103", &isolated);
    cpulist_subtract(&online, &isolated, &kept);
    assert_int_equal(cpulist_format(&kept, buf, sizeof buf), 0);
    assert_string_equal(buf, "0-1,1100-1101");
    cpulist_add(&kept, 2047);
    cpulist_add(&kept, 1024);
    assert_int_equal(cpulist_format(&kept, buf, sizeof buf), 0);
    assert_string_equal(buf, "0-1,1024,1100-1101,2047");
    check_round_trip("1023-1025", "1023-1025");
    check_round_trip("0-2047", "0-2047");
}

static void test_cpulist_max_cpus_boundary(void **state)
{
    (void)state;
    struct cpulist *all = malloc(sizeof *all), *evens = malloc(sizeof *evens),
                   *odds = malloc(sizeof *odds);
    char *text = malloc(16 * 1024), *buf = malloc(16 * 1024);
    assert_non_null(all);
    assert_non_null(evens);
    assert_non_null(odds);
    assert_non_null(text);
    assert_non_null(buf);
    parse_ok("4095", all);
    assert_int_equal(all->count, 1);
    assert_true(cpulist_contains(all, CPULIST_MAX_CPUS - 1));
    assert_true(cpulist_text_contains("4095", 4095));
    assert_false(cpulist_text_contains("4096", 4096));
    assert_false(cpulist_text_contains("0-4096", 5)); /* not a list: nothing in it */
    assert_string_equal(parse_bad("4094-4096"), "CPU number too large (limit 4096)");
    assert_string_equal(parse_bad("1100,4096"), "CPU number too large (limit 4096)");

    /* every second CPU up to the limit, one by one: the longest list there is */
    every_second_cpu_text(text, 16 * 1024, CPULIST_MAX_CPUS - 2);
    parse_ok(text, evens);
    assert_int_equal(evens->count, CPULIST_MAX_CPUS / 2);
    assert_int_equal(evens->cpu[evens->count - 1], 4094);
    assert_int_equal(cpulist_format(evens, buf, 16 * 1024), 0);
    assert_string_equal(buf, text);
    parse_ok("0-4095", all);
    assert_int_equal(all->count, CPULIST_MAX_CPUS);
    cpulist_add(all, 100); /* full: nothing moves */
    assert_int_equal(all->count, CPULIST_MAX_CPUS);
    cpulist_subtract(all, evens, odds);
    assert_int_equal(odds->count, CPULIST_MAX_CPUS / 2);
    assert_int_equal(odds->cpu[0], 1);
    assert_int_equal(odds->cpu[odds->count - 1], 4095);
    assert_true(cpulist_contains(odds, 4095));
    assert_false(cpulist_contains(odds, 4094));
    free(all);
    free(evens);
    free(odds);
    free(text);
    free(buf);
}

/* The display copy: whole when it fits, else cut after a whole element. */
static void test_cpulist_text_shorten_never_cuts_a_number(void **state)
{
    (void)state;
    char buf[16];
    cpulist_text_shorten(buf, sizeof buf, "0-3,8");
    assert_string_equal(buf, "0-3,8");
    cpulist_text_shorten(buf, sizeof buf, "100,152,153,154,155");
    assert_string_equal(buf, "100,152,153,..."); /* 15 of 16 bytes */
    cpulist_text_shorten(buf, 8, "1234567890");
    assert_string_equal(buf, "...");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpulist_parses_ranges_and_singles),
        cmocka_unit_test(test_cpulist_round_trips_kernel_form),
        cmocka_unit_test(test_cpulist_sorts_and_merges_duplicates),
        cmocka_unit_test(test_cpulist_accepts_surrounding_whitespace),
        cmocka_unit_test(test_cpulist_empty_text_is_empty_list),
        cmocka_unit_test(test_cpulist_rejects_malformed),
        cmocka_unit_test(test_cpulist_rejects_descending_range),
        cmocka_unit_test(test_cpulist_rejects_cpu_beyond_limit),
        cmocka_unit_test(test_cpulist_format_reports_small_buffer),
        cmocka_unit_test(test_cpulist_format_handles_full_list),
        cmocka_unit_test(test_cpulist_contains),
        cmocka_unit_test(test_cpulist_add_keeps_sorted_and_unique),
        cmocka_unit_test(test_cpulist_subtract),
        cmocka_unit_test(test_cpulist_subtract_in_place),
        cmocka_unit_test(test_cpulist_two_sockets_of_256_cpus),
        cmocka_unit_test(test_cpulist_long_list_of_every_second_cpu),
        cmocka_unit_test(test_cpulist_ids_beyond_1024),
        cmocka_unit_test(test_cpulist_max_cpus_boundary),
        cmocka_unit_test(test_cpulist_text_shorten_never_cuts_a_number),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
