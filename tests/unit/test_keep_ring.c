/*
 * Unit tests for src/stats/keep_ring.c: the newest records of a stream in
 * a ring allocated once. Kept records come out oldest first and the rest
 * are counted as dropped, whatever the number added, also when the ring is
 * turned and then added to again; records of any size; cap 0 only counts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "stats/keep_ring.h"

/* A record of an odd size, to catch arithmetic that assumes a word. */
struct rec {
    uint32_t seq;
    char pad[9];
};

static void add_seq(struct keep_ring *r, uint32_t from, uint32_t to)
{
    for (uint32_t s = from; s < to; s++) {
        struct rec x = {.seq = s};
        memset(x.pad, (int)(s & 0x7f), sizeof x.pad);
        keep_ring_add(r, &x);
    }
}

/* The kept records are exactly first .. first + n - 1, in order. */
static void assert_kept(struct keep_ring *r, uint32_t first, uint64_t n, uint64_t dropped)
{
    uint64_t count, gone;
    const struct rec *k = keep_ring_oldest_first(r, &count, &gone);
    assert_int_equal(count, n);
    assert_int_equal(gone, dropped);
    for (uint64_t i = 0; i < n; i++) {
        assert_int_equal(k[i].seq, first + i);
        assert_int_equal(k[i].pad[8], (char)((first + i) & 0x7f));
    }
}

static void test_keep_ring_below_capacity_keeps_all_in_order(void **state)
{
    (void)state;
    struct keep_ring r;
    assert_int_equal(keep_ring_init(&r, sizeof(struct rec), 10), 0);
    add_seq(&r, 0, 7);
    assert_kept(&r, 0, 7, 0);
    keep_ring_free(&r);
}

static void test_keep_ring_keeps_the_newest_for_any_count(void **state)
{
    (void)state;
    for (uint32_t added = 0; added < 40; added++) {
        struct keep_ring r;
        assert_int_equal(keep_ring_init(&r, sizeof(struct rec), 7), 0);
        add_seq(&r, 0, added);
        uint64_t n = added < 7 ? added : 7;
        assert_kept(&r, (uint32_t)(added - n), n, added - n);
        assert_kept(&r, (uint32_t)(added - n), n, added - n); /* twice: the same */
        keep_ring_free(&r);
    }
}

static void test_keep_ring_adding_after_a_turn_goes_on(void **state)
{
    (void)state;
    struct keep_ring r;
    assert_int_equal(keep_ring_init(&r, sizeof(struct rec), 5), 0);
    add_seq(&r, 0, 13);
    assert_kept(&r, 8, 5, 8);
    add_seq(&r, 13, 16);
    assert_kept(&r, 11, 5, 11);
    add_seq(&r, 16, 17);
    assert_kept(&r, 12, 5, 12);
    keep_ring_free(&r);
}

static void test_keep_ring_cap_zero_only_counts(void **state)
{
    (void)state;
    struct keep_ring r;
    assert_int_equal(keep_ring_init(&r, sizeof(struct rec), 0), 0);
    add_seq(&r, 0, 4);
    uint64_t n, dropped;
    keep_ring_oldest_first(&r, &n, &dropped);
    assert_int_equal(n, 0);
    assert_int_equal(dropped, 4);
    keep_ring_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keep_ring_below_capacity_keeps_all_in_order),
        cmocka_unit_test(test_keep_ring_keeps_the_newest_for_any_count),
        cmocka_unit_test(test_keep_ring_adding_after_a_turn_goes_on),
        cmocka_unit_test(test_keep_ring_cap_zero_only_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
