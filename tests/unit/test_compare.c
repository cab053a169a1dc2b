/*
 * Unit tests for src/compare/compare.c with synthetic result documents of
 * known distributions (log-normal latencies through the real histogram):
 * the same distribution twice is no-difference in at least 95% of seeds; a
 * 10% shift of every value makes p50 worse (and better the other way); a
 * change of the tail only makes the tail metrics worse and leaves p50
 * alone; a shift smaller than the bucket width is never worse, however many
 * samples; with repeated runs the spread between runs decides, so run-to-
 * run jitter is not a difference while a large shift still is. The tail
 * verdict sees twice the exceedances of the baseline's p99.9, says
 * no-difference for one distribution twice, and changes neither the
 * metrics nor the --fail-if-worse count.
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
#include "compare/compare_internal.h"
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

/* B against A as the command does it: the family counted, then decided. */
static void compare2(const struct compare_arm *a, const struct compare_arm *b,
                     struct arm_comparison *c, struct compare_family *fam)
{
    struct compare_arm arms[2] = {*a, *b};
    struct compare_family f;
    char err[128] = "";
    assert_int_equal(compare_all(arms, 2, &cfg, c, fam ? fam : &f, err, sizeof err), 0);
}

/* The verdicts of B against A for the "all" entry. */
static enum verdict compare_one(const struct shape *sa, const struct shape *sb, uint64_t n,
                                uint64_t seed, struct cpu_comparison *out)
{
    struct result_doc a, b;
    make_run(&a, sa, n, seed);
    make_run(&b, sb, n, seed + 1000003);
    struct compare_arm arm_a = {"A", 1, &a}, arm_b = {"B", 1, &b};
    struct arm_comparison c;
    compare2(&arm_a, &arm_b, &c, NULL);
    assert_int_equal(c.ncpus, 2); /* CPU 1 (a copy of all: one CPU a run) and all */
    assert_true(c.cpu[0].duplicate);
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

/* The baseline's fit of an entry is kept across the arms compared with it:
 * a result planted in the cache shows through as the baseline's level
 * (no refit), an entry not in it is fitted once and kept, and a second
 * arm adds nothing. */
static void test_compare_tail_fits_the_baseline_once(void **state)
{
    (void)state;
    struct latency_hist *h = malloc(sizeof *h);
    struct tail_bin *bins = malloc(LATENCY_HIST_BUCKETS * sizeof *bins);
    assert_true(h && bins);
    latency_hist_init(h);
    uint64_t st = 5;
    for (int i = 0; i < 20000; i++)
        latency_hist_add(h, 20000 + (int64_t)(-3000 * log(rng_unit(&st))));
    size_t nb = tail_bins_of_hist(h, bins);
    struct tail_pending keep[2];
    for (int e = 0; e < 2; e++)
        keep[e] = (struct tail_pending){{bins, bins}, {nb, nb}, {0, 0}, {h->max_ns, h->max_ns}};
    struct cpu_comparison cpu[2];
    memset(cpu, 0, sizeof cpu);
    cpu[0].cpu = 3;
    cpu[1].cpu = -1;
    struct tail_fit_cache cache = {.level = 0.05, .n = 1, .cap = 1};
    cache.cpu = malloc(sizeof *cache.cpu);
    cache.res = calloc(1, sizeof *cache.res);
    cache.err = calloc(1, sizeof *cache.err);
    assert_true(cache.cpu && cache.res && cache.err);
    cache.cpu[0] = 3;
    cache.res[0].verdict = TAIL_ESTIMATE;
    cache.res[0].nestimates = 1;
    cache.res[0].estimates[0] = (struct tail_estimate){COMPARE_TAIL_P, {12345, 12000, 13000}};
    struct compare_arm arm = {"A", 0, NULL};
    assert_int_equal(compare_tail_levels(&arm, &arm, 0.05, keep, cpu, 2, &cache), 0);
    assert_true(cpu[0].tail.has_levels && cpu[0].tail.level_a == 12345);
    assert_true(cpu[1].tail.has_levels && cpu[1].tail.level_a == cpu[1].tail.level_b);
    assert_int_equal(cache.n, 2);
    double all_a = cpu[1].tail.level_a;
    memset(cpu, 0, sizeof cpu);
    cpu[0].cpu = 3;
    cpu[1].cpu = -1;
    assert_int_equal(compare_tail_levels(&arm, &arm, 0.05, keep, cpu, 2, &cache), 0);
    assert_int_equal(cache.n, 2);
    assert_true(cpu[0].tail.level_a == 12345 && cpu[1].tail.level_a == all_a);
    tail_fit_cache_free(&cache);
    free(bins);
    free(h);
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
                                   uint64_t seed, int runs, struct cpu_comparison *out)
{
    struct result_doc a[8], b[8];
    make_arm(a, runs, sa, jitter, seed);
    make_arm(b, runs, sb, jitter, seed + 99);
    struct compare_arm arm_a = {"A", runs, a}, arm_b = {"B", runs, b};
    struct arm_comparison c;
    compare2(&arm_a, &arm_b, &c, NULL);
    assert_true(c.between_runs);
    *out = c.cpu[c.ncpus - 1];
    enum verdict v = c.verdict;
    arm_comparison_free(&c);
    for (int r = 0; r < runs; r++) {
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
        same += compare_groups(&base, &base, 0.15, (uint64_t)s + 1, 8, &c) == VERDICT_SAME;
        assert_string_equal(c.m[METRIC_P50].test, "permutation");
    }
    print_message("groups with 15%% run-to-run jitter: no-difference in %d of %d seeds\n", same,
                  seeds);
    assert_true(same >= seeds * 90 / 100);
    struct shape slower = base;
    slower.scale = 1.5;
    int worse = 0;
    for (int s = 0; s < 10; s++) {
        struct cpu_comparison c;
        worse += compare_groups(&base, &slower, 0.05, (uint64_t)s + 1, 8, &c) == VERDICT_WORSE;
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
    compare2(&arm_a, &arm_b, &c, NULL);
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
    compare2(&arm_a, &arm_b, c, NULL);
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
    assert_string_equal(m[METRIC_GAP_RATE].test, "poisson");
    assert_float_equal(m[METRIC_GAP_RATE].baseline, 1000, 1e-9); /* 4000 gaps in 4 s */
    /* p99.99 of 4000 gaps is their maximum: not compared */
    assert_int_equal(m[METRIC_P9999].verdict, VERDICT_INSUFFICIENT);
    assert_int_equal(c.cpu[c.ncpus - 1].tested, 5);
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
    compare2(&arm_a, &arm_b, &c, NULL);
    const struct metric_result *m = &c.cpu[c.ncpus - 1].m[METRIC_NOISE_SHARE];
    assert_true(c.between_runs);
    assert_string_equal(m->test, "permutation");
    assert_true(m->has_p);
    /* two runs a side: the permutation test can never reach the level */
    assert_int_equal(m->verdict, VERDICT_INSUFFICIENT);
    assert_non_null(strstr(m->why, "too few runs"));
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

/* ---- what the verdicts must not claim ---------------------------------- */

static void free_docs(struct result_doc *d, int n)
{
    for (int i = 0; i < n; i++)
        result_doc_free(&d[i]);
}

static void test_compare_zero_baseline_rate_can_be_worse(void **state)
{
    (void)state;
    struct result_doc d[2];
    make_run(&d[0], &base, 100000, 1);
    make_run(&d[1], &base, 100000, 2);
    d[1].cpus[0].missed = d[1].all.missed = 3000; /* 0 -> 3000 missed periods */
    struct compare_arm a = {"A", 1, &d[0]}, b = {"B", 1, &d[1]};
    struct arm_comparison c;
    compare2(&a, &b, &c, NULL);
    const struct metric_result *m = &c.cpu[c.ncpus - 1].m[METRIC_MISSED];
    assert_string_equal(m->test, "fisher");
    assert_true(m->has_ratio && isinf(m->ratio));
    assert_true(m->log_p < log(1e-300)); /* a number, not 0 */
    assert_int_equal(m->verdict, VERDICT_WORSE);
    assert_int_equal(c.verdict, VERDICT_WORSE);
    arm_comparison_free(&c);
    /* and the other way: from 3000 to none is better */
    struct compare_arm a2 = {"A", 1, &d[1]}, b2 = {"B", 1, &d[0]};
    compare2(&a2, &b2, &c, NULL);
    assert_int_equal(c.cpu[c.ncpus - 1].m[METRIC_MISSED].verdict, VERDICT_BETTER);
    arm_comparison_free(&c);
    free_docs(d, 2);
}

/* Two runs a side whose p99 coincide within each arm, one bucket apart
 * between the arms (and across the octave edge, where buckets widen). */
static void test_compare_no_spread_is_not_evidence(void **state)
{
    (void)state;
    struct result_doc a[2], b[2];
    for (int r = 0; r < 2; r++) {
        make_run(&a[r], &base, 20000, (uint64_t)(10 + r));
        make_run(&b[r], &base, 20000, (uint64_t)(20 + r));
        a[r].cpus[0].latency.p99 = a[r].all.latency.p99 = 130559; /* [130048, 131071] */
        b[r].cpus[0].latency.p99 = b[r].all.latency.p99 = 132095; /* [131072, 133119] */
    }
    struct compare_arm arm_a = {"A", 2, a}, arm_b = {"B", 2, b};
    struct arm_comparison c;
    struct compare_family fam;
    compare2(&arm_a, &arm_b, &c, &fam);
    const struct metric_result *m = &c.cpu[c.ncpus - 1].m[METRIC_P99];
    assert_string_equal(m->test, "permutation");
    assert_true(m->p_value >= 1.0 / 3 - 1e-9); /* 2 of the 6 splits */
    assert_int_equal(m->verdict, VERDICT_INSUFFICIENT);
    assert_non_null(strstr(m->why, "too few runs"));
    assert_int_not_equal(c.verdict, VERDICT_WORSE);
    arm_comparison_free(&c);
    free_docs(a, 2);
    free_docs(b, 2);
}

/* Equal means with spread: the interval is as wide as the spread, never
 * the point [1, 1]. */
static void test_compare_equal_means_keep_their_interval(void **state)
{
    (void)state;
    struct result_doc a[8], b[8];
    for (int r = 0; r < 8; r++) {
        make_run(&a[r], &base, 20000, (uint64_t)(30 + r));
        make_run(&b[r], &base, 20000, (uint64_t)(40 + r));
        int64_t v = 60000 + 5000 * (r % 4);
        a[r].cpus[0].latency.p50 = a[r].all.latency.p50 = v;
        b[r].cpus[0].latency.p50 = b[r].all.latency.p50 = v;
    }
    struct compare_arm arm_a = {"A", 8, a}, arm_b = {"B", 8, b};
    struct arm_comparison c;
    compare2(&arm_a, &arm_b, &c, NULL);
    const struct metric_result *m = &c.cpu[c.ncpus - 1].m[METRIC_P50];
    assert_true(m->has_ci);
    assert_float_equal(m->ratio, 1, 1e-12);
    assert_true(m->ci_lo < 0.97 && m->ci_hi > 1.03);
    assert_int_equal(m->verdict, VERDICT_SAME);
    arm_comparison_free(&c);
    free_docs(a, 8);
    free_docs(b, 8);
}

/* A run of ncpu CPUs, each drawn from s. */
static void make_many(struct result_doc *d, int ncpu, const struct shape *s, uint64_t n,
                      uint64_t seed)
{
    static struct latency_hist h, all;
    latency_hist_init(&all);
    memset(d, 0, sizeof *d);
    strcpy(d->kind, "run");
    d->ncpus = ncpu;
    d->budget_ns = -1;
    d->cpus = calloc((size_t)ncpu, sizeof *d->cpus);
    assert_non_null(d->cpus);
    uint64_t st = seed * 2654435761u + 17;
    for (int c = 0; c < ncpu; c++) {
        latency_hist_init(&h);
        for (uint64_t k = 0; k < n; k++) {
            double u = rng_unit(&st), v = rng_unit(&st);
            double z = sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
            int64_t x = (int64_t)(s->median_ns * exp(s->sigma * z) * s->scale);
            latency_hist_add(&h, x);
            latency_hist_add(&all, x);
        }
        fill_cpu(&d->cpus[c], c, &h);
    }
    fill_cpu(&d->all, -1, &all);
}

static void test_compare_many_cpus_one_gate(void **state)
{
    (void)state;
    int alarms = 0, trials = 40, family = 0;
    for (int t = 0; t < trials; t++) {
        struct result_doc d[2];
        make_many(&d[0], 32, &base, 3000, (uint64_t)(1000 + 2 * t));
        make_many(&d[1], 32, &base, 3000, (uint64_t)(1001 + 2 * t));
        struct compare_arm a = {"A", 1, &d[0]}, b = {"B", 1, &d[1]};
        struct arm_comparison c;
        struct compare_family fam;
        compare2(&a, &b, &c, &fam);
        bool any = false;
        for (int i = 0; i < c.ncpus; i++)
            for (int k = 0; k < COMPARE_METRICS; k++)
                any |= compare_metric_is_percentile((enum compare_metric)k) &&
                       c.cpu[i].m[k].verdict == VERDICT_WORSE;
        alarms += any;
        family = fam.family;
        assert_true(fam.level <= 0.05 / 33); /* at least one test per entry */
        arm_comparison_free(&c);
        free_docs(d, 2);
    }
    print_message("32 CPUs, same distribution: a percentile worse in %d of %d trials "
                  "(family of %d)\n",
                  alarms, trials, family);
    assert_true(alarms <= 4); /* 0.05 expected: 2 of 40; 4 is p < 0.15 */
}

static void test_compare_percentile_beyond_the_data_is_not_compared(void **state)
{
    (void)state;
    int max_worse = 0;
    for (int s = 0; s < 30; s++) {
        struct cpu_comparison c;
        compare_one(&base, &base, 5000, (uint64_t)(200 + s), &c);
        /* p99.99 of 5000 values is their maximum; p99.9 has 5 beyond it */
        assert_int_equal(c.m[METRIC_P9999].verdict, VERDICT_INSUFFICIENT);
        assert_false(c.m[METRIC_P9999].has_p);
        assert_int_equal(c.m[METRIC_P999].verdict, VERDICT_INSUFFICIENT);
        assert_non_null(strstr(c.m[METRIC_P9999].why, "p99.99 needs 100000"));
        max_worse += c.m[METRIC_MAX].verdict == VERDICT_WORSE;
    }
    /* the maximum's exceedance test is exact: at most its level's share */
    print_message("same distribution, 5000 values: max worse in %d of 30\n", max_worse);
    assert_true(max_worse <= 2);
}

static void test_compare_says_the_level_and_keeps_tiny_p(void **state)
{
    (void)state;
    struct shape slower = base;
    slower.scale = 1.5;
    struct result_doc d[2];
    make_run(&d[0], &base, 50000, 3);
    make_run(&d[1], &slower, 50000, 4);
    struct compare_arm a = {"A", 1, &d[0]}, b = {"B", 1, &d[1]};
    struct arm_comparison c;
    struct compare_family fam;
    compare2(&a, &b, &c, &fam);
    const struct cpu_comparison *e = &c.cpu[c.ncpus - 1];
    assert_true(fam.family >= 1 && fam.family <= fam.candidates);
    assert_float_equal(fam.level, 0.05 / fam.family, 1e-15);
    assert_float_equal(e->alpha, fam.level, 1e-15);
    /* the rank test of two far apart samples: a tiny p, kept in log space */
    assert_true(e->has_rank && isfinite(e->rank.log_p) && e->rank.log_p < log(1e-300));
    assert_true(e->m[METRIC_P50].log_p < log(1e-300) && isfinite(e->m[METRIC_P50].log_p));
    arm_comparison_free(&c);
    free_docs(d, 2);
}

/* ---- the tail verdict --------------------------------------------------- */

static const struct compare_config cfg_tail = {
    .alpha = 0.05, .budget_ns = -1, .reps = 1000, .seed = 7, .tail = true};

/* B against A with the tail verdict (c->cpu[c->ncpus - 1] is "all"). */
static void compare2_tail(struct result_doc *a, struct result_doc *b, bool tail,
                          struct arm_comparison *c, struct compare_family *fam)
{
    struct compare_arm arms[2] = {{"A", 1, a}, {"B", 1, b}};
    char err[128] = "";
    assert_int_equal(compare_all(arms, 2, tail ? &cfg_tail : &cfg, c, fam, err, sizeof err), 0);
}

static void check_tail_levels(const struct tail_comparison *t)
{
    if (!t->has_levels) {
        assert_true(t->why[0] != '\0'); /* the reason the ratio is absent */
        return;
    }
    assert_true(t->level_a > 0 && t->level_b > 0);
    assert_float_equal(t->ratio, t->level_b / t->level_a, 1e-9 * t->ratio);
    assert_true(isnan(t->ratio_lo) || t->ratio_lo <= t->ratio * (1 + 1e-9));
    assert_true(isnan(t->ratio_hi) || t->ratio_hi >= t->ratio * (1 - 1e-9));
}

static void test_compare_tail_sees_twice_the_exceedances(void **state)
{
    (void)state;
    /* one value in a thousand three times larger: far above the baseline's
     * p99.9 (2.2 medians), so the rate above it doubles */
    struct shape twice = base;
    twice.tail_share = 0.001;
    twice.tail_factor = 3;
    for (int s = 0; s < 3; s++) {
        struct result_doc d[2];
        make_run(&d[0], &base, 200000, (uint64_t)(300 + s));
        make_run(&d[1], &twice, 200000, (uint64_t)(400 + s));
        struct arm_comparison c;
        struct compare_family fam;
        compare2_tail(&d[0], &d[1], true, &c, &fam);
        const struct tail_comparison *t = &c.cpu[c.ncpus - 1].tail;
        assert_true(t->present && t->has_p && t->threshold_ns > 0);
        double rate =
            ((double)t->exceed_b / (double)t->n_b) / ((double)t->exceed_a / (double)t->n_a);
        print_message("seed %d: %llu of %llu against %llu of %llu above %lld ns (x%.2f), p %.3g: "
                      "%s\n",
                      s, (unsigned long long)t->exceed_a, (unsigned long long)t->n_a,
                      (unsigned long long)t->exceed_b, (unsigned long long)t->n_b,
                      (long long)t->threshold_ns, rate, t->p_value, verdict_name(t->verdict));
        assert_true(rate > 1.5 && rate < 2.7);
        assert_int_equal(t->verdict, VERDICT_WORSE);
        assert_true(t->log_p < log(fam.level));
        /* the threshold is the baseline's: at most 0.1% of it lies above */
        assert_true(t->exceed_a <= t->n_a / 1000);
        check_tail_levels(t);
        arm_comparison_free(&c);
        /* and the other way round */
        compare2_tail(&d[1], &d[0], true, &c, &fam);
        assert_int_equal(c.cpu[c.ncpus - 1].tail.verdict, VERDICT_BETTER);
        arm_comparison_free(&c);
        free_docs(d, 2);
    }
}

static void test_compare_tail_of_identical_arms_is_no_difference(void **state)
{
    (void)state;
    int same = 0, seeds = 40;
    for (int s = 0; s < seeds; s++) {
        struct result_doc d[2];
        make_run(&d[0], &base, 20000, (uint64_t)(500 + s));
        make_run(&d[1], &base, 20000, (uint64_t)(600 + s));
        struct arm_comparison c;
        struct compare_family fam;
        compare2_tail(&d[0], &d[1], true, &c, &fam);
        const struct tail_comparison *t = &c.cpu[c.ncpus - 1].tail;
        same += t->verdict == VERDICT_SAME;
        check_tail_levels(t);
        arm_comparison_free(&c);
        /* a document against itself: the same counts, p = 1 */
        compare2_tail(&d[0], &d[0], true, &c, &fam);
        t = &c.cpu[c.ncpus - 1].tail;
        assert_int_equal(t->verdict, VERDICT_SAME);
        assert_true(t->exceed_a == t->exceed_b && t->p_value > 0.999);
        arm_comparison_free(&c);
        free_docs(d, 2);
    }
    print_message("same distribution: tail no-difference in %d of %d seeds\n", same, seeds);
    assert_true(same >= seeds * 95 / 100);
}

/* The tail verdict is beside the metrics: with it or without it, every
 * metric, the family, the level and the --fail-if-worse count are the same. */
static void test_compare_tail_leaves_the_gate_alone(void **state)
{
    (void)state;
    struct shape twice = base;
    twice.tail_share = 0.001;
    twice.tail_factor = 3;
    struct shape cases[3] = {base, twice, base};
    cases[2].scale = 1.1;
    for (int k = 0; k < 3; k++) {
        struct result_doc d[2];
        make_run(&d[0], &base, 60000, (uint64_t)(700 + k));
        make_run(&d[1], &cases[k], 60000, (uint64_t)(800 + k));
        struct arm_comparison with, without;
        struct compare_family fw, fo;
        compare2_tail(&d[0], &d[1], true, &with, &fw);
        compare2_tail(&d[0], &d[1], false, &without, &fo);
        assert_int_equal(fw.family, fo.family);
        assert_int_equal(fw.candidates, fo.candidates);
        assert_int_equal(fw.percentiles, fo.percentiles);
        assert_float_equal(fw.level, fo.level, 0);
        assert_int_equal(with.ncpus, without.ncpus);
        assert_int_equal(with.verdict, without.verdict);
        for (int i = 0; i < with.ncpus; i++) {
            assert_true(with.cpu[i].tail.present);
            assert_false(without.cpu[i].tail.present);
            assert_int_equal(with.cpu[i].verdict, without.cpu[i].verdict);
            for (int m = 0; m < COMPARE_METRICS; m++) {
                assert_int_equal(with.cpu[i].m[m].verdict, without.cpu[i].m[m].verdict);
                assert_float_equal(with.cpu[i].m[m].log_p, without.cpu[i].m[m].log_p, 0);
            }
        }
        const double pcts[] = {0, 10, 1000};
        for (size_t j = 0; j < sizeof pcts / sizeof pcts[0]; j++)
            assert_int_equal(compare_gate_worse(&with, 1, pcts[j]),
                             compare_gate_worse(&without, 1, pcts[j]));
        if (k == 1) /* a tail worse that the gate at 1000% does not see */
            assert_true(with.cpu[with.ncpus - 1].tail.verdict == VERDICT_WORSE &&
                        compare_gate_worse(&with, 1, 1000) == 0);
        arm_comparison_free(&with);
        arm_comparison_free(&without);
        free_docs(d, 2);
    }
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
        cmocka_unit_test(test_compare_zero_baseline_rate_can_be_worse),
        cmocka_unit_test(test_compare_no_spread_is_not_evidence),
        cmocka_unit_test(test_compare_equal_means_keep_their_interval),
        cmocka_unit_test(test_compare_many_cpus_one_gate),
        cmocka_unit_test(test_compare_percentile_beyond_the_data_is_not_compared),
        cmocka_unit_test(test_compare_says_the_level_and_keeps_tiny_p),
        cmocka_unit_test(test_compare_tail_sees_twice_the_exceedances),
        cmocka_unit_test(test_compare_tail_of_identical_arms_is_no_difference),
        cmocka_unit_test(test_compare_tail_fits_the_baseline_once),
        cmocka_unit_test(test_compare_tail_leaves_the_gate_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
