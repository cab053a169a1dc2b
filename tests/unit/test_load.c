/*
 * Load specs: the pulse prefix, the kinds and their arguments, the @CPUS
 * suffix of run --load, default buffer sizes from sysfs cache information,
 * and the reasons given for bad specs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "load/load.h"
#include "test_fixture.h"

static struct load_spec parse_ok(const char *text, bool with_cpus)
{
    struct sysroot sr;
    fixture_sysroot(&sr, "cache-l2");
    struct load_spec spec;
    char why[600] = "";
    int rc = load_parse(text, &sr, with_cpus, &spec, why, sizeof why);
    if (rc != 0)
        fail_msg("%s: %s", text, why);
    return spec;
}

static const char *parse_why(const char *text, bool with_cpus)
{
    static char why[600];
    struct sysroot sr;
    fixture_sysroot(&sr, "cache-l2");
    struct load_spec spec;
    why[0] = '\0';
    assert_int_equal(load_parse(text, &sr, with_cpus, &spec, why, sizeof why), -1);
    assert_true(why[0] != '\0');
    return why;
}

static void test_load_pulse_defaults_to_cpu(void **state)
{
    (void)state;
    struct load_spec s = parse_ok("pulse:100ms:400ms", false);
    assert_string_equal(load_kind_name(&s), "cpu");
    assert_int_equal(s.on_ns, 100000000);
    assert_int_equal(s.off_ns, 400000000);
    s = parse_ok("pulse:50:50", false); /* bare numbers are ms */
    assert_int_equal(s.on_ns, 50000000);
}

static void test_load_pulse_wraps_any_kind(void **state)
{
    (void)state;
    struct load_spec s = parse_ok("pulse:1s:2s:cmd:stress-ng --cpu 1", false);
    assert_string_equal(load_kind_name(&s), "cmd");
    assert_true(load_is_external(&s));
    assert_string_equal(s.command, "stress-ng --cpu 1");
    assert_int_equal(s.off_ns, 2000000000);
    s = parse_ok("pulse:10ms:10ms:cache:1MiB", false);
    assert_string_equal(load_kind_name(&s), "cache");
    assert_int_equal(s.size_bytes, 1 << 20);
}

static void test_load_sizes_default_from_the_last_level_cache(void **state)
{
    (void)state;
    /* fixture: L3 24576K */
    assert_int_equal(parse_ok("cache", false).size_bytes, 24576 * 1024);
    assert_int_equal(parse_ok("memory", false).size_bytes, 4 * 24576 * 1024);
}

static void test_load_at_cpus_only_with_run_syntax(void **state)
{
    (void)state;
    struct load_spec s = parse_ok("cache:4MiB@0,2-3", true);
    assert_true(s.cpus_given);
    assert_int_equal(s.cpus.count, 3);
    assert_string_equal(s.text, "cache:4MiB");
    s = parse_ok("cmd:echo a@b", false); /* standalone: '@' belongs to the command */
    assert_string_equal(s.command, "echo a@b");
    assert_false(s.cpus_given);
}

static void test_load_bad_specs_say_why(void **state)
{
    (void)state;
    assert_non_null(strstr(parse_why("pulse:0:0", false), "greater than 0"));
    assert_non_null(strstr(parse_why("pulse:10ms", false), "ON and OFF"));
    assert_non_null(strstr(parse_why("bogus", false), "unknown load kind 'bogus'"));
    assert_non_null(strstr(parse_why("cmd:", false), "needs a command"));
    assert_non_null(strstr(parse_why("cmd:   ", false), "needs a command"));
    assert_non_null(strstr(parse_why("cpu:3", false), "no arguments"));
    assert_non_null(strstr(parse_why("cache:12", false), "cache size"));
    assert_non_null(strstr(parse_why("cpu@", true), "empty CPU list"));
    assert_non_null(strstr(parse_why("cpu@x", true), "@x"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_pulse_defaults_to_cpu),
        cmocka_unit_test(test_load_pulse_wraps_any_kind),
        cmocka_unit_test(test_load_sizes_default_from_the_last_level_cache),
        cmocka_unit_test(test_load_at_cpus_only_with_run_syntax),
        cmocka_unit_test(test_load_bad_specs_say_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
