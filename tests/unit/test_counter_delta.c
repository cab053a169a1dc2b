/*
 * Unit tests for src/common/counter_delta.c: how a counter's step between
 * two reads is told apart as an advance, a wrap at the counter's width or
 * a reset, at the edges of each rule.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/counter_delta.h"

static void assert_step(uint64_t before, uint64_t now, unsigned bits, enum counter_step step,
                        uint64_t delta)
{
    uint64_t d = 12345;
    enum counter_step got = counter_delta(before, now, bits, &d);
    if (got != step || d != delta)
        fail_msg("%llu -> %llu (%u bits): step %d delta %llu, expected step %d delta %llu",
                 (unsigned long long)before, (unsigned long long)now, bits, (int)got,
                 (unsigned long long)d, (int)step, (unsigned long long)delta);
}

static void test_counter_that_grows_or_stays_advances(void **state)
{
    (void)state;
    assert_step(5, 5, 32, COUNTER_ADVANCED, 0);
    assert_step(5, 9, 32, COUNTER_ADVANCED, 4);
    assert_step(0, UINT64_MAX, 64, COUNTER_ADVANCED, UINT64_MAX);
    /* wider than 32 bits and still growing: no wrap involved */
    assert_step(UINT64_C(4294967200), UINT64_C(4294967396), 32, COUNTER_ADVANCED, 196);
}

static void test_32_bit_counter_that_passes_its_top_wraps(void **state)
{
    (void)state;
    assert_step(UINT64_C(4294967295), 0, 32, COUNTER_WRAPPED, 1);
    assert_step(UINT64_C(4294967290), 10, 32, COUNTER_WRAPPED, 16);
    assert_step(0xffffffffu, 1, 32, COUNTER_WRAPPED, 2);
    /* the largest wrap taken: 2^31 - 1 events between the reads */
    assert_step(UINT64_C(0x80000001), 0, 32, COUNTER_WRAPPED, 0x7fffffffu);
    assert_step(0xffu, 0x0fu, 8, COUNTER_WRAPPED, 0x10);
}

static void test_fall_a_wrap_cannot_explain_is_a_reset(void **state)
{
    (void)state;
    /* a wrap would mean 2^31 events or more: restarted, counts from 0 */
    assert_step(UINT64_C(0x80000000), 0, 32, COUNTER_RESET, 0);
    assert_step(1000, 5, 32, COUNTER_RESET, 5);
    assert_step(0xf0000001u, 0xf0000000u, 32, COUNTER_RESET, 0xf0000000u);
    /* the old value does not fit in 32 bits: the kernel counts wider */
    assert_step(UINT64_C(4294967396), 50, 32, COUNTER_RESET, 50);
    assert_step(UINT64_C(4294967396), UINT64_C(4294967300), 32, COUNTER_RESET,
                UINT64_C(4294967300));
    /* a 64-bit counter never wraps in practice */
    assert_step(UINT64_MAX, 0, 64, COUNTER_RESET, 0);
    assert_step(1000, 999, 64, COUNTER_RESET, 999);
    /* width 0 is no counter: a fall is a reset */
    assert_step(1, 0, 0, COUNTER_RESET, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_that_grows_or_stays_advances),
        cmocka_unit_test(test_32_bit_counter_that_passes_its_top_wraps),
        cmocka_unit_test(test_fall_a_wrap_cannot_explain_is_a_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
