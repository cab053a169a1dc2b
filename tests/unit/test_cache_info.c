/*
 * Cache sizes from the sysfs cache directories of a fixture: a given level,
 * the last level, instruction caches ignored, and 0 where sysfs has no
 * cache information (as on this VM).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sys/cache_info.h"
#include "test_fixture.h"

static void test_cache_size_reads_the_requested_level(void **state)
{
    (void)state;
    struct sysroot sr;
    fixture_sysroot(&sr, "cache-l2"); /* L1d 48K, L1i 32K, L2 1280K, L3 24576K */
    assert_int_equal(cache_size_bytes(&sr, 1), 48 * 1024);
    assert_int_equal(cache_size_bytes(&sr, 2), 1280 * 1024);
    assert_int_equal(cache_size_bytes(&sr, 3), 24576 * 1024);
}

static void test_cache_size_level_zero_is_the_last_level(void **state)
{
    (void)state;
    struct sysroot sr;
    fixture_sysroot(&sr, "cache-l2");
    assert_int_equal(cache_size_bytes(&sr, 0), 24576 * 1024);
}

static void test_cache_size_is_zero_without_cache_info(void **state)
{
    (void)state;
    struct sysroot sr;
    fixture_sysroot(&sr, "vm-haltpoll");
    assert_int_equal(cache_size_bytes(&sr, 2), 0);
    assert_int_equal(cache_size_bytes(&sr, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_size_reads_the_requested_level),
        cmocka_unit_test(test_cache_size_level_zero_is_the_last_level),
        cmocka_unit_test(test_cache_size_is_zero_without_cache_info),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
