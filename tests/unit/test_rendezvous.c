/*
 * The rendezvous layouts and statistics (crosscpu/rendezvous.h,
 * crosscpu/rendezvous_stats.h) without running a rendezvous: the layouts'
 * cache-line placement (at compile time and at run time), the interleaving
 * of layouts and batches, the rotation of the layouts through the memory
 * slots, the medians, the ratio and its bootstrap interval
 * on synthetic batches, and the reduction of synthetic records (timeouts
 * excluded, a known ratio recovered, no ratio without packed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crosscpu/rendezvous.h"
#include "crosscpu/rendezvous_stats.h"
#include "out/text_rendezvous.h"

/* The promise of the layouts, checked by the compiler as well as below. */
static_assert(offsetof(struct rv_packed, master_stamp) / 64 ==
                  offsetof(struct rv_packed, semaphore) / 64,
              "packed: stamp and semaphore share a line");
static_assert(offsetof(struct rv_padded, master_stamp) / 64 !=
                  offsetof(struct rv_padded, semaphore) / 64,
              "padded: the stamp has a line of its own");
static_assert(alignof(struct rv_packed) == 64 && alignof(struct rv_padded) == 64,
              "layouts are 64-byte aligned");

static void test_layout_offsets_put_the_stamp_where_promised(void **state)
{
    (void)state;
    /* packed: everything in the first 64 bytes */
    assert_int_equal(sizeof(struct rv_packed), 64);
    assert_true(offsetof(struct rv_packed, master_stamp) + sizeof(uint64_t) <= 64);
    assert_true(offsetof(struct rv_packed, master_time) + sizeof(uint64_t) <= 64);
    /* padded: semaphore and time on line 0, the stamp alone on line 1 */
    assert_int_equal(offsetof(struct rv_padded, semaphore) / 64, 0);
    assert_int_equal(offsetof(struct rv_padded, master_time) / 64, 0);
    assert_int_equal(offsetof(struct rv_padded, master_stamp), 64);
    assert_int_equal(sizeof(struct rv_padded), 128);
    /* an object of each, wherever it lies, keeps the placement */
    struct {
        char before;
        struct rv_packed p;
        struct rv_padded q;
    } s;
    assert_int_equal((uintptr_t)&s.p % 64, 0);
    assert_int_equal((uintptr_t)&s.q % 64, 0);
    assert_int_equal((uintptr_t)&s.p.master_stamp / 64, (uintptr_t)&s.p.semaphore / 64);
    assert_int_not_equal((uintptr_t)&s.q.master_stamp / 64, (uintptr_t)&s.q.semaphore / 64);
    assert_int_equal((uintptr_t)&s.q.master_stamp % 64, 0);
}

static void test_layout_names_and_lookup(void **state)
{
    (void)state;
    assert_string_equal(rv_layout_name(RV_PACKED), "packed");
    assert_string_equal(rv_layout_name(RV_PADDED), "padded");
    assert_string_equal(rv_layout_name(RV_LOCAL_COPY), "local-copy");
    assert_string_equal(rv_layout_name(RV_LAYOUT_COUNT), "?");
    for (int i = 0; i < RV_LAYOUT_COUNT; i++) {
        const char *n = rv_layout_name((enum rv_layout)i);
        assert_int_equal(rv_layout_find(n, strlen(n)), i);
    }
    assert_int_equal(rv_layout_find("padded,packed", 6), RV_PADDED);
    assert_int_equal(rv_layout_find("pack", 4), -1);
    assert_int_equal(rv_layout_find("packedx", 7), -1);
    assert_int_equal(rv_layout_find("", 0), -1);
}

static void test_result_records_are_line_aligned_and_zeroed(void **state)
{
    (void)state;
    enum rv_layout l[] = {RV_PACKED, RV_PADDED};
    struct rv_result res;
    assert_int_equal(rv_result_alloc(&res, 3, 17, l, 2), 0);
    assert_int_equal(res.ncpu, 3);
    assert_int_equal(res.n, 17);
    assert_int_equal(res.attempted, 0);
    for (int i = 0; i < 3; i++) {
        assert_int_equal((uintptr_t)&res.cpu[i] % 64, 0);
        assert_int_equal((uintptr_t)res.cpu[i].loop_exit % 64, 0);
        for (size_t r = 0; r < 17; r++)
            assert_int_equal(res.cpu[i].status[r], RV_NOT_RUN);
    }
    rv_result_free(&res);
    assert_null(res.cpu);
}

static void test_layouts_and_batches_interleave(void **state)
{
    (void)state;
    /* 3 layouts, 4 batches: round j = r / 3 goes to batch j % 4 */
    int seen[4][3] = {{0}};
    for (size_t r = 0; r < 36; r++) {
        assert_int_equal(rv_layout_index_of(r, 3), (int)(r % 3));
        seen[rv_batch_of(r, 3, 4)][rv_layout_index_of(r, 3)]++;
    }
    for (int b = 0; b < 4; b++)
        for (int l = 0; l < 3; l++)
            assert_int_equal(seen[b][l], 3); /* every batch has every layout alike */
    assert_int_equal(rv_batch_of(0, 3, 4), 0);
    assert_int_equal(rv_batch_of(2, 3, 4), 0);
    assert_int_equal(rv_batch_of(3, 3, 4), 1);
    assert_int_equal(rv_batch_of(12, 3, 4), 0); /* round 4 */
}

static void test_slots_rotate_so_every_layout_sees_every_address(void **state)
{
    (void)state;
    /* 3 layouts, 4 batches, 12 rounds per batch (144 rendezvous) */
    int uses[4][3][RV_SLOTS] = {{{0}}};
    for (size_t round = 0; round < 48; round++) {
        int in_round[RV_SLOTS] = {0};
        for (size_t li = 0; li < 3; li++) {
            size_t r = round * 3 + li;
            int slot = rv_slot_of(r, 3, 4);
            assert_true(slot >= 0 && slot < RV_SLOTS);
            in_round[slot]++;
            uses[rv_batch_of(r, 3, 4)][li][slot]++;
        }
        for (int s = 0; s < RV_SLOTS; s++)
            assert_int_equal(in_round[s], 1); /* no two layouts of a round share a slot */
    }
    for (int b = 0; b < 4; b++)
        for (int li = 0; li < 3; li++)
            for (int s = 0; s < RV_SLOTS; s++)
                assert_int_equal(uses[b][li][s], 12 / RV_SLOTS);
    /* batches a multiple of the slots: the rotation still turns within a batch */
    int seen[RV_SLOTS] = {0};
    for (size_t q = 0; q < RV_SLOTS; q++)
        seen[rv_slot_of((q * 3) * 3, 3, 3)]++; /* batch 0, its q-th round, layout 0 */
    for (int s = 0; s < RV_SLOTS; s++)
        assert_int_equal(seen[s], 1);
    /* one layout: it still moves through the slots */
    assert_int_not_equal(rv_slot_of(0, 1, 1), rv_slot_of(1, 1, 1));
}

static void test_median_of_odd_even_and_empty(void **state)
{
    (void)state;
    double a[] = {5, 1, 3};
    assert_true(rv_median(a, 3) == 3);
    double b[] = {4, 1, 3, 2};
    assert_true(rv_median(b, 4) == 2.5);
    double c[] = {7};
    assert_true(rv_median(c, 1) == 7);
    assert_true(rv_median(NULL, 0) == 0);
}

/* Deterministic noise in [-1, 1). */
static double noise(uint64_t *s)
{
    *s = *s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    return (double)(*s >> 11) / (double)(UINT64_C(1) << 53) * 2 - 1;
}

static void test_ratio_of_noisy_batches_recovers_the_known_ratio(void **state)
{
    (void)state;
    double v[20];
    uint64_t s = 42;
    for (int i = 0; i < 20; i++)
        v[i] = 0.9 * exp(0.05 * noise(&s)); /* about +-5 % around 0.9 */
    struct rv_ratio r;
    rv_ratio_summarize(v, 20, RV_BOOT_RESAMPLES, RV_BOOT_SEED, &r);
    assert_int_equal(r.batches, 20);
    assert_true(fabs(r.median - 0.9) < 0.03);
    assert_true(r.has_ci);
    assert_true(r.ci_low <= 0.9 && 0.9 <= r.ci_high);
    assert_true(r.batch_min <= r.ci_low && r.ci_low <= r.median);
    assert_true(r.median <= r.ci_high && r.ci_high <= r.batch_max);
    assert_true(r.ci_high - r.ci_low < 0.06); /* narrower than the spread */
    assert_true(r.batch_max - r.batch_min > r.ci_high - r.ci_low);
}

static void test_ratio_interval_is_the_same_every_time(void **state)
{
    (void)state;
    double a[10], b[10];
    uint64_t s = 7;
    for (int i = 0; i < 10; i++)
        a[i] = b[i] = 1.1 + 0.1 * noise(&s);
    struct rv_ratio ra, rb;
    rv_ratio_summarize(a, 10, RV_BOOT_RESAMPLES, RV_BOOT_SEED, &ra);
    rv_ratio_summarize(b, 10, RV_BOOT_RESAMPLES, RV_BOOT_SEED, &rb);
    assert_true(ra.ci_low == rb.ci_low && ra.ci_high == rb.ci_high && ra.median == rb.median);
}

static void test_ratio_of_one_batch_has_no_interval(void **state)
{
    (void)state;
    double v[] = {0.87};
    struct rv_ratio r;
    rv_ratio_summarize(v, 1, RV_BOOT_RESAMPLES, RV_BOOT_SEED, &r);
    assert_int_equal(r.batches, 1);
    assert_true(r.median == 0.87 && r.batch_min == 0.87 && r.batch_max == 0.87);
    assert_false(r.has_ci);
    rv_ratio_summarize(NULL, 0, RV_BOOT_RESAMPLES, RV_BOOT_SEED, &r);
    assert_int_equal(r.batches, 0);
    assert_false(r.has_ci);
}

static void test_ratio_of_equal_batches_has_a_zero_width_interval(void **state)
{
    (void)state;
    double v[] = {1.25, 1.25, 1.25, 1.25};
    struct rv_ratio r;
    rv_ratio_summarize(v, 4, RV_BOOT_RESAMPLES, RV_BOOT_SEED, &r);
    assert_true(r.has_ci);
    assert_true(r.ci_low == 1.25 && r.ci_high == 1.25 && r.median == 1.25);
}

/* Synthetic records: rendezvous r of layout l on CPU i has loop-exit
 * base[l] * (1 + small noise) + 10 * i and total 5x that. */
static void fill(struct rv_result *res, size_t attempted, const double *base)
{
    uint64_t s = 99;
    res->attempted = attempted;
    for (size_t r = 0; r < attempted; r++) {
        int li = rv_layout_index_of(r, res->nlayouts);
        double f = 1 + 0.02 * noise(&s);
        for (int i = 0; i < res->ncpu; i++) {
            res->cpu[i].loop_exit[r] = (uint64_t)(base[res->layouts[li]] * f) + 10 * (uint64_t)i;
            res->cpu[i].total[r] = 5 * res->cpu[i].loop_exit[r];
            res->cpu[i].status[r] = RV_OK;
        }
    }
}

static const double bases[RV_LAYOUT_COUNT] = {1000, 900, 950};

static void test_stats_recover_the_ratio_and_exclude_timeouts(void **state)
{
    (void)state;
    enum rv_layout l[] = {RV_PACKED, RV_PADDED, RV_LOCAL_COPY};
    struct rv_result res;
    assert_int_equal(rv_result_alloc(&res, 2, 330, l, 3), 0);
    fill(&res, 300, bases); /* 300 of 330 attempted: the rest was never run */
    /* a member timed out in rendezvous 0 (packed), the master missed the
     * start of 4 (padded): huge values there must not count */
    res.cpu[1].status[0] = RV_TIMEOUT;
    res.cpu[1].loop_exit[0] = res.cpu[0].loop_exit[0] = 1000000;
    res.cpu[0].status[4] = RV_START_TIMEOUT;
    res.cpu[1].status[4] = RV_NOT_RUN;
    res.cpu[0].loop_exit[4] = 1000000;
    struct rv_stats st;
    assert_int_equal(rv_stats_compute(&res, 10, &st), 0);
    assert_int_equal(st.nlayouts, 3);
    const struct rv_layout_stats *pk = &st.layout[0], *pd = &st.layout[1], *lc = &st.layout[2];
    assert_int_equal(pk->layout, RV_PACKED);
    assert_int_equal(pk->done, 99);
    assert_int_equal(pk->timeouts, 1);
    assert_int_equal(pk->timeouts_at_start, 0);
    assert_int_equal(pd->done, 99);
    assert_int_equal(pd->timeouts, 1);
    assert_int_equal(pd->timeouts_at_start, 1);
    assert_int_equal(lc->done, 100);
    assert_int_equal(lc->timeouts, 0);
    for (int li = 0; li < 3; li++)
        for (int i = 0; i < 2; i++) {
            const struct sample_summary *s = &st.layout[li].cpu[RV_LOOP_EXIT][i];
            assert_int_equal(s->n, st.layout[li].done);
            assert_true(s->min <= s->median && s->median <= s->p99 && s->p99 <= s->max);
            assert_true(s->max < 1100); /* the excluded 1000000 is not there */
            assert_int_equal(st.layout[li].cpu[RV_TOTAL][i].median, 5 * s->median);
        }
    /* CPU 1 is 10 above CPU 0: the median over the 2 CPUs is their middle */
    double mid = (double)(pk->cpu[RV_LOOP_EXIT][0].median + pk->cpu[RV_LOOP_EXIT][1].median) / 2;
    assert_true(pk->has_median && pk->median[RV_LOOP_EXIT] == mid);
    assert_false(pk->has_ratio);
    assert_true(pd->has_ratio && lc->has_ratio);
    for (int m = 0; m < RV_METRICS; m++) {
        assert_int_equal(pd->ratio[m].batches, 10);
        assert_true(pd->ratio[m].has_ci);
        assert_true(pd->ratio[m].ci_low <= 0.9 && 0.9 <= pd->ratio[m].ci_high + 0.005);
        assert_true(fabs(pd->ratio[m].median - 0.9) < 0.01);
        assert_true(fabs(lc->ratio[m].median - 0.95) < 0.01);
        assert_true(pd->ratio[m].batch_min <= pd->ratio[m].median);
        assert_true(pd->ratio[m].median <= pd->ratio[m].batch_max);
    }
    rv_stats_free(&st);
    rv_result_free(&res);
}

static void test_stats_of_one_batch_give_a_ratio_without_interval(void **state)
{
    (void)state;
    enum rv_layout l[] = {RV_PADDED, RV_PACKED};
    struct rv_result res;
    assert_int_equal(rv_result_alloc(&res, 2, 40, l, 2), 0);
    fill(&res, 40, bases);
    struct rv_stats st;
    assert_int_equal(rv_stats_compute(&res, 1, &st), 0);
    const struct rv_layout_stats *pd = &st.layout[0];
    assert_int_equal(pd->layout, RV_PADDED);
    assert_true(pd->has_ratio); /* packed need not come first */
    assert_false(st.layout[1].has_ratio);
    assert_int_equal(pd->ratio[RV_LOOP_EXIT].batches, 1);
    assert_false(pd->ratio[RV_LOOP_EXIT].has_ci);
    assert_true(fabs(pd->ratio[RV_LOOP_EXIT].median - 0.9) < 0.01);
    assert_true(pd->ratio[RV_LOOP_EXIT].batch_min == pd->ratio[RV_LOOP_EXIT].median);
    rv_stats_free(&st);
    rv_result_free(&res);
}

static void test_stats_without_packed_have_no_ratio(void **state)
{
    (void)state;
    enum rv_layout l[] = {RV_PADDED};
    struct rv_result res;
    assert_int_equal(rv_result_alloc(&res, 2, 50, l, 1), 0);
    fill(&res, 50, bases);
    struct rv_stats st;
    assert_int_equal(rv_stats_compute(&res, 5, &st), 0);
    assert_int_equal(st.layout[0].done, 50);
    assert_false(st.layout[0].has_ratio);
    assert_true(st.layout[0].has_median);
    rv_stats_free(&st);
    rv_result_free(&res);
}

static void test_stats_of_a_layout_that_always_timed_out(void **state)
{
    (void)state;
    enum rv_layout l[] = {RV_PACKED, RV_LOCAL_COPY};
    struct rv_result res;
    assert_int_equal(rv_result_alloc(&res, 2, 20, l, 2), 0);
    fill(&res, 20, bases);
    for (size_t r = 1; r < 20; r += 2)
        res.cpu[1].status[r] = RV_TIMEOUT;
    struct rv_stats st;
    assert_int_equal(rv_stats_compute(&res, 2, &st), 0);
    const struct rv_layout_stats *lc = &st.layout[1];
    assert_int_equal(lc->done, 0);
    assert_int_equal(lc->timeouts, 10);
    assert_false(lc->has_median);
    assert_int_equal(lc->cpu[RV_LOOP_EXIT][0].n, 0);
    assert_true(lc->has_ratio);
    assert_int_equal(lc->ratio[RV_LOOP_EXIT].batches, 0); /* a ratio of nothing */
    assert_int_equal(st.layout[0].done, 10);
    rv_stats_free(&st);
    rv_result_free(&res);
}

static void test_stats_of_nothing_attempted(void **state)
{
    (void)state;
    enum rv_layout l[] = {RV_PACKED, RV_PADDED, RV_LOCAL_COPY};
    struct rv_result res;
    assert_int_equal(rv_result_alloc(&res, 2, 30, l, 3), 0);
    struct rv_stats st;
    assert_int_equal(rv_stats_compute(&res, 10, &st), 0);
    for (int li = 0; li < 3; li++) {
        assert_int_equal(st.layout[li].done + st.layout[li].timeouts, 0);
        assert_false(st.layout[li].has_median);
    }
    assert_int_equal(st.layout[1].ratio[RV_TOTAL].batches, 0);
    rv_stats_free(&st);
    rv_result_free(&res);
}

/* The conclusion comes from the interval against 1, never from the median
 * alone: below 1 faster, above slower, across 1 no difference shown,
 * without an interval no conclusion. */
static void test_conclusion_follows_the_interval(void **state)
{
    (void)state;
    struct rv_ratio faster = {
        .batches = 8, .median = 0.62, .has_ci = true, .ci_low = 0.58, .ci_high = 0.66};
    struct rv_ratio slower = {
        .batches = 8, .median = 1.9, .has_ci = true, .ci_low = 1.7, .ci_high = 2.1};
    struct rv_ratio across = {
        .batches = 8, .median = 0.9, .has_ci = true, .ci_low = 0.8, .ci_high = 1.05};
    struct rv_ratio one = {.batches = 1, .median = 0.5};
    struct rv_ratio none = {0};
    assert_int_equal(rv_ratio_verdict(&faster), RV_VERDICT_FASTER);
    assert_int_equal(rv_ratio_verdict(&slower), RV_VERDICT_SLOWER);
    assert_int_equal(rv_ratio_verdict(&across), RV_VERDICT_SAME);
    assert_int_equal(rv_ratio_verdict(&one), RV_VERDICT_NONE);
    assert_int_equal(rv_ratio_verdict(&none), RV_VERDICT_NONE);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    text_rendezvous_conclusion(f, "padded", &faster, &across);
    text_rendezvous_conclusion(f, "spread", &slower, &one);
    fclose(f);
    assert_string_equal(text, "  so padded: total faster than packed (0.62x the time; 95% CI "
                              "0.580-0.660 excludes 1); loop-exit no difference shown (95% CI "
                              "0.800-1.050 includes 1)\n"
                              "  so spread: total slower than packed (1.90x the time; 95% CI "
                              "1.700-2.100 excludes 1); loop-exit no conclusion (1 batch: no "
                              "interval; use --batches 2 or more)\n");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_offsets_put_the_stamp_where_promised),
        cmocka_unit_test(test_layout_names_and_lookup),
        cmocka_unit_test(test_result_records_are_line_aligned_and_zeroed),
        cmocka_unit_test(test_layouts_and_batches_interleave),
        cmocka_unit_test(test_slots_rotate_so_every_layout_sees_every_address),
        cmocka_unit_test(test_median_of_odd_even_and_empty),
        cmocka_unit_test(test_ratio_of_noisy_batches_recovers_the_known_ratio),
        cmocka_unit_test(test_ratio_interval_is_the_same_every_time),
        cmocka_unit_test(test_ratio_of_one_batch_has_no_interval),
        cmocka_unit_test(test_ratio_of_equal_batches_has_a_zero_width_interval),
        cmocka_unit_test(test_stats_recover_the_ratio_and_exclude_timeouts),
        cmocka_unit_test(test_stats_of_one_batch_give_a_ratio_without_interval),
        cmocka_unit_test(test_stats_without_packed_have_no_ratio),
        cmocka_unit_test(test_stats_of_a_layout_that_always_timed_out),
        cmocka_unit_test(test_stats_of_nothing_attempted),
        cmocka_unit_test(test_conclusion_follows_the_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
