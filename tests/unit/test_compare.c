/*
 * Unit tests for src/compare/compare.c with synthetic result documents of
 * known distributions (log-normal latencies through the real histogram):
 * the same distribution twice is no-difference in at least 95% of seeds; a
 * 10% shift of every value makes p50 worse (and better the other way); a
 * change of the tail only makes the tail metrics worse and leaves p50
 * alone; a shift smaller than the bucket width is never worse, however many
 * samples; with repeated runs the spread between runs decides, so run-to-
 * run jitter is not a difference while a large shift still is.
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

#include "test_rng.h"

#include "compare/compare.h"
#include "stats/histogram.h"

/* How a synthetic run is drawn: log-normal around median_ns; a share of the
 * values (tail_share) multiplied by tail_factor. */
struct shape {
    double median_ns, sigma;
    double scale; /* every value x scale */
    double tail_share, tail_factor;
};

static void fill_cpu(struct result_cpu *c, int cpu, const struct latency_hist *h)
{
    memset(c, 0, sizeof *c);
    c->cpu = cpu;
    c->samples = h->count;
    c->overflow = h->overflow;
    c->latency.known = h->count > 0;
    c->latency.min = h->min_ns;
    c->latency.max = h->max_ns;
    c->latency.p50 = latency_hist_percentile(h, 50);
    c->latency.p90 = latency_hist_percentile(h, 90);
    c->latency.p99 = latency_hist_percentile(h, 99);
    c->latency.p999 = latency_hist_percentile(h, 99.9);
    c->latency.p9999 = latency_hist_percentile(h, 99.99);
    c->bins = calloc(LATENCY_HIST_BUCKETS, sizeof *c->bins);
    assert_non_null(c->bins);
    for (size_t i = 0; i < LATENCY_HIST_BUCKETS; i++) {
        if (!h->buckets[i])
            continue;
        struct result_bin *b = &c->bins[c->nbins++];
        latency_hist_bucket_bounds(i, &b->lo, &b->hi);
        b->count = h->buckets[i];
    }
}

/* A one-CPU run document of n samples on CPU 1 ("all" the same). */
static void make_run(struct result_doc *d, const struct shape *s, uint64_t n, uint64_t seed)
{
    static struct latency_hist h;
    latency_hist_init(&h);
    uint64_t st = seed * 2654435761u + 17;
    for (uint64_t k = 0; k < n; k++) {
        double u = rng_unit(&st), v = rng_unit(&st);
        double z = sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
        double x = s->median_ns * exp(s->sigma * z) * s->scale;
        if (s->tail_share > 0 && rng_unit(&st) < s->tail_share)
            x *= s->tail_factor;
        latency_hist_add(&h, (int64_t)x);
    }
    memset(d, 0, sizeof *d);
    strcpy(d->kind, "run");
    d->ncpus = 1;
    d->cpus = calloc(1, sizeof *d->cpus);
    assert_non_null(d->cpus);
    fill_cpu(&d->cpus[0], 1, &h);
    fill_cpu(&d->all, -1, &h);
    d->budget_ns = -1;
}

static const struct compare_config cfg = {.alpha = 0.05, .budget_ns = -1, .reps = 1000, .seed = 7};

/* The verdicts of B against A for the "all" entry. */
static enum verdict compare_one(const struct shape *sa, const struct shape *sb, uint64_t n,
                                uint64_t seed, struct cpu_comparison *out)
{
    struct result_doc a, b;
    make_run(&a, sa, n, seed);
    make_run(&b, sb, n, seed + 1000003);
    struct compare_arm arm_a = {"A", 1, &a}, arm_b = {"B", 1, &b};
    struct arm_comparison c;
    char err[128];
    assert_int_equal(compare_arms(&arm_a, &arm_b, &cfg, &c, err, sizeof err), 0);
    assert_int_equal(c.ncpus, 2); /* CPU 1 and all */
    assert_int_equal(c.cpu[0].cpu, 1);
    assert_int_equal(c.cpu[1].cpu, -1);
    *out = c.cpu[1];
    enum verdict v = c.verdict;
    arm_comparison_free(&c);
    result_doc_free(&a);
    result_doc_free(&b);
    return v;
}

static const struct shape base = {.median_ns = 60000, .sigma = 0.25, .scale = 1};

static void test_compare_same_distribution_is_no_difference(void **state)
{
    (void)state;
    int same = 0, seeds = 60;
    for (int s = 0; s < seeds; s++) {
        struct cpu_comparison c;
        enum verdict v = compare_one(&base, &base, 20000, (uint64_t)s + 1, &c);
        same += v == VERDICT_SAME;
        assert_true(c.m[METRIC_P50].present && c.m[METRIC_P50].has_ci);
        assert_true(c.m[METRIC_P50].ci_lo <= 1.0 + 0.02 && c.m[METRIC_P50].ci_hi >= 1.0 - 0.02);
    }
    print_message("same distribution: no-difference in %d of %d seeds\n", same, seeds);
    assert_true(same >= seeds * 95 / 100);
}

static void test_compare_ten_percent_shift_is_worse_and_better(void **state)
{
    (void)state;
    struct shape slower = base, faster = base;
    slower.scale = 1.10;
    faster.scale = 1 / 1.10;
    for (int s = 0; s < 10; s++) {
        struct cpu_comparison c;
        assert_int_equal(compare_one(&base, &slower, 20000, (uint64_t)s + 1, &c), VERDICT_WORSE);
        assert_int_equal(c.m[METRIC_P50].verdict, VERDICT_WORSE);
        assert_true(c.m[METRIC_P50].ratio > 1.07 && c.m[METRIC_P50].ratio < 1.13);
        assert_true(c.m[METRIC_P50].ci_lo > 1.0 && c.m[METRIC_P50].ci_lo < 1.10);
        assert_true(c.rank.p_greater > 0.55 && c.rank.p_value < 1e-6);
        assert_int_equal(compare_one(&base, &faster, 20000, (uint64_t)s + 1, &c), VERDICT_BETTER);
        assert_int_equal(c.m[METRIC_P50].verdict, VERDICT_BETTER);
    }
}

static void test_compare_tail_only_change_is_seen_in_the_tail(void **state)
{
    (void)state;
    struct shape tail = base;
    tail.tail_share = 0.005;
    tail.tail_factor = 5;
    int tail_worse = 0, p50_same = 0, seeds = 10;
    for (int s = 0; s < seeds; s++) {
        struct cpu_comparison c;
        assert_int_equal(compare_one(&base, &tail, 20000, (uint64_t)s + 1, &c), VERDICT_WORSE);
        tail_worse += c.m[METRIC_P999].verdict == VERDICT_WORSE &&
                      c.m[METRIC_EXCEED_P999].verdict == VERDICT_WORSE;
        p50_same += c.m[METRIC_P50].verdict == VERDICT_SAME;
    }
    assert_int_equal(tail_worse, seeds);
    assert_int_equal(p50_same, seeds);
}

static void test_compare_shift_below_the_bucket_width_is_never_worse(void **state)
{
    (void)state;
    /* 0.4%: half a bucket (1/128 = 0.78%), invisible at any sample count */
    struct shape tiny = base;
    tiny.scale = 1.004;
    for (int s = 0; s < 3; s++) {
        struct cpu_comparison c;
        compare_one(&base, &tiny, 400000, (uint64_t)s + 1, &c);
        for (int k = METRIC_P50; k <= METRIC_P99; k++)
            assert_int_not_equal(c.m[k].verdict, VERDICT_WORSE);
    }
}

/* Repeated runs whose scale wanders by +-jitter from run to run. */
static void make_arm(struct result_doc *runs, int n, const struct shape *s, double jitter,
                     uint64_t seed)
{
    uint64_t st = seed;
    for (int r = 0; r < n; r++) {
        struct shape x = *s;
        x.scale *= 1 + jitter * (2 * rng_unit(&st) - 1);
        make_run(&runs[r], &x, 10000, seed * 31 + (uint64_t)r);
    }
}

static enum verdict compare_groups(const struct shape *sa, const struct shape *sb, double jitter,
                                   uint64_t seed, struct cpu_comparison *out)
{
    struct result_doc a[4], b[4];
    make_arm(a, 4, sa, jitter, seed);
    make_arm(b, 4, sb, jitter, seed + 99);
    struct compare_arm arm_a = {"A", 4, a}, arm_b = {"B", 4, b};
    struct arm_comparison c;
    char err[128];
    assert_int_equal(compare_arms(&arm_a, &arm_b, &cfg, &c, err, sizeof err), 0);
    assert_true(c.between_runs);
    *out = c.cpu[c.ncpus - 1];
    enum verdict v = c.verdict;
    arm_comparison_free(&c);
    for (int r = 0; r < 4; r++) {
        result_doc_free(&a[r]);
        result_doc_free(&b[r]);
    }
    return v;
}

static void test_compare_groups_use_the_spread_between_runs(void **state)
{
    (void)state;
    int same = 0, seeds = 40;
    for (int s = 0; s < seeds; s++) {
        struct cpu_comparison c;
        same += compare_groups(&base, &base, 0.15, (uint64_t)s + 1, &c) == VERDICT_SAME;
        assert_string_equal(c.m[METRIC_P50].test, "between-runs");
    }
    print_message("groups with 15%% run-to-run jitter: no-difference in %d of %d seeds\n", same,
                  seeds);
    assert_true(same >= seeds * 90 / 100);
    struct shape slower = base;
    slower.scale = 1.5;
    int worse = 0;
    for (int s = 0; s < 10; s++) {
        struct cpu_comparison c;
        worse += compare_groups(&base, &slower, 0.05, (uint64_t)s + 1, &c) == VERDICT_WORSE;
    }
    assert_true(worse >= 9);
}

static void test_compare_keeps_only_cpus_every_run_has(void **state)
{
    (void)state;
    struct result_doc a, b;
    make_run(&a, &base, 2000, 1);
    make_run(&b, &base, 2000, 2);
    b.cpus[0].cpu = 3; /* B measured another CPU */
    struct compare_arm arm_a = {"A", 1, &a}, arm_b = {"B", 1, &b};
    struct arm_comparison c;
    char err[128] = "";
    assert_int_equal(compare_arms(&arm_a, &arm_b, &cfg, &c, err, sizeof err), 0);
    assert_int_equal(c.ncpus, 1);
    assert_int_equal(c.cpu[0].cpu, -1);
    arm_comparison_free(&c);
    result_doc_free(&a);
    result_doc_free(&b);
}

/* A noise document: the gaps of shape s as its histogram, measured for
 * 4 s in 8 windows whose noise shares scatter around share. */
static void make_noise(struct result_doc *d, const struct shape *s, uint64_t n, uint64_t seed,
                       double share)
{
    make_run(d, s, n, seed);
    strcpy(d->kind, "noise");
    struct result_noise *no = &d->cpus[0].noise;
    no->present = true;
    no->measured_ns = 4000000000;
    no->nwin = 8;
    no->win = calloc(no->nwin, sizeof *no->win);
    assert_non_null(no->win);
    uint64_t st = seed * 7919 + 3;
    for (size_t k = 0; k < no->nwin; k++) {
        struct result_noise_window *w = &no->win[k];
        w->t_s = 0.5 * (double)(k + 1);
        w->duration_ns = w->measured_ns = 500000000;
        w->noise_ns = (int64_t)(5e8 * share * (0.9 + 0.2 * rng_unit(&st)));
        w->gaps = n / no->nwin;
        no->noise_ns += w->noise_ns;
    }
    d->all.noise = (struct result_noise){true, no->measured_ns, no->noise_ns, -1, 0, NULL, 0, NULL};
}

static const struct metric_result *noise_compare(double share_a, double share_b,
                                                 struct arm_comparison *c)
{
    static struct result_doc a, b;
    make_noise(&a, &base, 4000, 5, share_a);
    make_noise(&b, &base, 4000, 6, share_b);
    struct compare_arm arm_a = {"A", 1, &a}, arm_b = {"B", 1, &b};
    char err[128] = "";
    assert_int_equal(compare_arms(&arm_a, &arm_b, &cfg, c, err, sizeof err), 0);
    result_doc_free(&a);
    result_doc_free(&b);
    assert_true(c->noise);
    return c->cpu[c->ncpus - 1].m;
}

static void test_compare_noise_has_its_own_metrics(void **state)
{
    (void)state;
    struct arm_comparison c;
    const struct metric_result *m = noise_compare(0.02, 0.02, &c);
    for (int k = 0; k < COMPARE_METRICS; k++) {
        bool want = k == METRIC_NOISE_SHARE || k == METRIC_GAP_RATE || k == METRIC_P50 ||
                    k == METRIC_P99 || k == METRIC_P9999 || k == METRIC_MAX;
        if (m[k].present != want)
            fail_msg("metric %s: present %d", compare_metric_key((enum compare_metric)k),
                     m[k].present);
    }
    assert_string_equal(m[METRIC_NOISE_SHARE].test, "windows");
    assert_string_equal(m[METRIC_GAP_RATE].test, "binomial");
    assert_float_equal(m[METRIC_GAP_RATE].baseline, 1000, 1e-9); /* 4000 gaps in 4 s */
    assert_int_equal(c.cpu[c.ncpus - 1].tested, 6);
    assert_int_equal(c.verdict, VERDICT_SAME);
    arm_comparison_free(&c);
}

static void test_compare_noise_share_doubled_is_worse(void **state)
{
    (void)state;
    struct arm_comparison c;
    const struct metric_result *m = noise_compare(0.02, 0.04, &c);
    assert_float_equal(m[METRIC_NOISE_SHARE].ratio, 2, 0.1);
    assert_int_equal(m[METRIC_NOISE_SHARE].verdict, VERDICT_WORSE);
    assert_int_equal(c.verdict, VERDICT_WORSE);
    arm_comparison_free(&c);
    m = noise_compare(0.04, 0.02, &c);
    assert_int_equal(m[METRIC_NOISE_SHARE].verdict, VERDICT_BETTER);
    arm_comparison_free(&c);
}

static void test_compare_noise_groups_use_the_runs_shares(void **state)
{
    (void)state;
    struct result_doc a[2], b[2];
    for (int r = 0; r < 2; r++) {
        make_noise(&a[r], &base, 2000, (uint64_t)(50 + r), 0.02 + 0.001 * r);
        make_noise(&b[r], &base, 2000, (uint64_t)(60 + r), 0.04 + 0.001 * r);
    }
    struct compare_arm arm_a = {"A", 2, a}, arm_b = {"B", 2, b};
    struct arm_comparison c;
    char err[128] = "";
    assert_int_equal(compare_arms(&arm_a, &arm_b, &cfg, &c, err, sizeof err), 0);
    const struct metric_result *m = &c.cpu[c.ncpus - 1].m[METRIC_NOISE_SHARE];
    assert_true(c.between_runs);
    assert_string_equal(m->test, "between-runs");
    assert_true(m->has_p);
    assert_float_equal(m->value / m->baseline, 2, 0.15);
    arm_comparison_free(&c);
    for (int r = 0; r < 2; r++) {
        result_doc_free(&a[r]);
        result_doc_free(&b[r]);
    }
}

static void test_compare_refuses_noise_against_a_run(void **state)
{
    (void)state;
    struct result_doc a, b;
    make_run(&a, &base, 1000, 1);
    make_noise(&b, &base, 1000, 2, 0.01);
    struct compare_arm arm_a = {"A", 1, &a}, arm_b = {"B", 1, &b};
    struct arm_comparison c;
    char err[160] = "";
    assert_int_equal(compare_arms(&arm_a, &arm_b, &cfg, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "a run result and a noise result"));
    result_doc_free(&a);
    result_doc_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_noise_has_its_own_metrics),
        cmocka_unit_test(test_compare_noise_share_doubled_is_worse),
        cmocka_unit_test(test_compare_noise_groups_use_the_runs_shares),
        cmocka_unit_test(test_compare_refuses_noise_against_a_run),
        cmocka_unit_test(test_compare_same_distribution_is_no_difference),
        cmocka_unit_test(test_compare_ten_percent_shift_is_worse_and_better),
        cmocka_unit_test(test_compare_tail_only_change_is_seen_in_the_tail),
        cmocka_unit_test(test_compare_shift_below_the_bucket_width_is_never_worse),
        cmocka_unit_test(test_compare_groups_use_the_spread_between_runs),
        cmocka_unit_test(test_compare_keeps_only_cpus_every_run_has),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
