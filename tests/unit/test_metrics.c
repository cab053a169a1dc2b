/*
 * Unit tests for src/export/metrics.c: the exporter's figures. Bucket bounds
 * as --prometheus-buckets writes them (with the exact reasons for bad
 * lists), which bucket a latency falls in at the exact boundaries, sum and
 * count, the largest latency since the previous scrape (reset when taken,
 * carried while nobody scrapes), the counters, and what a telemetry window
 * adds: interrupts by source, the rest as other, steal seconds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "export/metrics.h"

/* ---- bounds ------------------------------------------------------------- */

static void test_metrics_default_bounds_are_1_2_5_from_1us_to_100ms(void **state)
{
    (void)state;
    struct metrics_bounds b;
    metrics_default_bounds(&b);
    static const int64_t want_us[] = {1,   2,    5,    10,   20,    50,    100,   200,
                                      500, 1000, 2000, 5000, 10000, 20000, 50000, 100000};
    assert_int_equal(b.n, sizeof(want_us) / sizeof(want_us[0]));
    for (int i = 0; i < b.n; i++)
        assert_int_equal(b.le_ns[i], want_us[i] * NS_PER_US);
}

static void test_metrics_parse_bounds_takes_units_and_bare_microseconds(void **state)
{
    (void)state;
    struct metrics_bounds b;
    char why[200] = "";
    assert_int_equal(metrics_parse_bounds("10us,50us,1ms", &b, why, sizeof(why)), 0);
    assert_int_equal(b.n, 3);
    assert_int_equal(b.le_ns[0], 10 * NS_PER_US);
    assert_int_equal(b.le_ns[1], 50 * NS_PER_US);
    assert_int_equal(b.le_ns[2], NS_PER_MS);

    assert_int_equal(metrics_parse_bounds("500ns,2,1.5ms,1s", &b, why, sizeof(why)), 0);
    assert_int_equal(b.n, 4);
    assert_int_equal(b.le_ns[0], 500);
    assert_int_equal(b.le_ns[1], 2 * NS_PER_US); /* bare: us */
    assert_int_equal(b.le_ns[2], 1500 * NS_PER_US);
    assert_int_equal(b.le_ns[3], NS_PER_S);

    assert_int_equal(metrics_parse_bounds("7", &b, why, sizeof(why)), 0);
    assert_int_equal(b.n, 1);
    assert_int_equal(b.le_ns[0], 7 * NS_PER_US);
}

/* "1,2,...,n" */
static void numbers_list(char *buf, size_t len, int n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 1; i <= n; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%d", i > 1 ? "," : "", i);
}

static void test_metrics_parse_bounds_takes_64_and_refuses_65(void **state)
{
    (void)state;
    char list[512], why[200] = "";
    struct metrics_bounds b;
    numbers_list(list, sizeof(list), METRICS_MAX_BOUNDS);
    assert_int_equal(metrics_parse_bounds(list, &b, why, sizeof(why)), 0);
    assert_int_equal(b.n, METRICS_MAX_BOUNDS);
    assert_int_equal(b.le_ns[METRICS_MAX_BOUNDS - 1], METRICS_MAX_BOUNDS * NS_PER_US);
    numbers_list(list, sizeof(list), METRICS_MAX_BOUNDS + 1);
    assert_int_equal(metrics_parse_bounds(list, &b, why, sizeof(why)), -1);
    assert_string_equal(why, "more than 64 bounds");
}

static void test_metrics_parse_bounds_refuses_bad_lists_with_the_reason(void **state)
{
    (void)state;
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"", "an empty list; give durations such as 10us,50us,1ms"},
        {"10us,,1ms", "an empty item"},
        {",10us", "an empty item"},
        {"10us,", "an empty item"},
        {"50us,10us", "10us: bounds must rise strictly"},
        {"10us,10us", "10us: bounds must rise strictly"},
        {"1ms,1000us", "1000us: bounds must rise strictly"}, /* equal once converted */
        {"0", "0: a bound must be greater than 0"},
        {"10us,0us", "0us: a bound must be greater than 0"},
        {"-5us", "-5us: must not be negative"},
        {"fast", "fast: not a duration (write e.g. 250us, 1.5ms, 10s)"},
        {"10us,5xs", "5xs: unknown unit (use ns, us, ms, s, m, h)"},
        {"10us, 50us", " 50us: must not contain spaces (write e.g. 250us)"},
        {"9000h", "9000h: must be at most 8784h (366 days)"},
        {"1,"
         "0000000000000000000000000000000000000000000000000000000000000000000000000000000002",
         "an item is too long"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct metrics_bounds b;
        char why[200] = "";
        int rc = metrics_parse_bounds(cases[i].text, &b, why, sizeof(why));
        if (rc != -1 || strcmp(why, cases[i].why) != 0)
            fail_msg("'%s': rc %d, why '%s', want '%s'", cases[i].text, rc, why, cases[i].why);
    }
}

/* ---- samples ------------------------------------------------------------ */

static const int test_cpus[] = {2, 5};

static void init_default(struct metrics *m, bool response)
{
    struct metrics_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    metrics_default_bounds(&cfg.bounds);
    cfg.response = response;
    snprintf(cfg.info.version, sizeof(cfg.info.version), "test");
    assert_int_equal(metrics_init(m, &cfg, test_cpus, 2), 0);
}

/* The published figures, as a scrape takes them. */
static void take(struct metrics *m, struct metrics_cpu out[2])
{
    struct metrics_config cfg;
    metrics_take(m, &cfg, out);
    assert_int_equal(cfg.bounds.n, m->cfg.bounds.n);
}

/* Index of the default bound of us microseconds. */
static int bound_index(const struct metrics_bounds *b, int64_t us)
{
    for (int k = 0; k < b->n; k++)
        if (b->le_ns[k] == us * NS_PER_US)
            return k;
    fail_msg("no bound of %lld us", (long long)us);
    return -1;
}

static void test_metrics_init_names_the_cpus_and_knows_nothing_yet(void **state)
{
    (void)state;
    struct metrics m;
    init_default(&m, false);
    struct metrics_cpu c[2];
    take(&m, c);
    assert_int_equal(c[0].cpu, 2);
    assert_int_equal(c[1].cpu, 5);
    assert_int_equal(c[0].latency.count, 0);
    assert_false(c[0].max_scrape_set);
    assert_false(c[0].has_telemetry);
    assert_true(isnan(c[0].frequency_hz));
    assert_true(isnan(c[1].busy_ratio));
    metrics_free(&m);
}

static void test_metrics_bucket_boundaries_are_inclusive_upper_bounds(void **state)
{
    (void)state;
    struct metrics m;
    init_default(&m, false);
    const struct metrics_bounds *b = &m.cfg.bounds;
    metrics_sample(&m, 0, 1000, 0, 0, false);                /* exactly 1 us: le=1e-06 */
    metrics_sample(&m, 0, 1001, 0, 0, false);                /* just above: the 2 us bucket */
    metrics_sample(&m, 0, 2000, 0, 0, false);                /* exactly 2 us: still 2 us */
    metrics_sample(&m, 0, 100 * NS_PER_MS, 0, 0, false);     /* the last bound itself */
    metrics_sample(&m, 0, 100 * NS_PER_MS + 1, 0, 0, false); /* above it: +Inf */
    metrics_sample(&m, 0, 3 * NS_PER_S, 0, 0, false);        /* far above: +Inf */
    metrics_sample(&m, 0, -250, 0, 0, false);                /* a clock step back: first */
    metrics_sample(&m, 0, 0, 0, 0, false);                   /* zero: first */
    metrics_publish(&m);
    struct metrics_cpu c[2];
    take(&m, c);
    const struct metrics_hist *h = &c[0].latency;
    assert_int_equal(h->bucket[bound_index(b, 1)], 3); /* 1000, -250, 0 */
    assert_int_equal(h->bucket[bound_index(b, 2)], 2); /* 1001, 2000 */
    assert_int_equal(h->bucket[bound_index(b, 5)], 0);
    assert_int_equal(h->bucket[bound_index(b, 100000)], 1);
    assert_int_equal(h->bucket[b->n], 2); /* +Inf */
    uint64_t all = 0;
    for (int k = 0; k <= b->n; k++)
        all += h->bucket[k];
    assert_int_equal(all, 8);
    assert_int_equal(h->count, 8);
    assert_int_equal(h->sum_ns, 1000 + 1001 + 2000 + 100 * NS_PER_MS + 100 * NS_PER_MS + 1 +
                                    3 * NS_PER_S - 250);
    /* the other CPU saw nothing */
    assert_int_equal(c[1].latency.count, 0);
    assert_int_equal(c[1].latency.sum_ns, 0);
    metrics_free(&m);
}

static void test_metrics_custom_bounds_place_values_by_their_own_edges(void **state)
{
    (void)state;
    struct metrics_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    char why[100];
    assert_int_equal(metrics_parse_bounds("10us,50us,1ms", &cfg.bounds, why, sizeof(why)), 0);
    struct metrics m;
    assert_int_equal(metrics_init(&m, &cfg, test_cpus, 2), 0);
    int64_t v[] = {9999, 10000, 10001, 50000, 50001, 999999, 1000000, 1000001};
    for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
        metrics_sample(&m, 1, v[k], 0, 0, false);
    metrics_publish(&m);
    struct metrics_cpu c[2];
    take(&m, c);
    assert_int_equal(c[1].latency.bucket[0], 2); /* 9999, 10000 */
    assert_int_equal(c[1].latency.bucket[1], 2); /* 10001, 50000 */
    assert_int_equal(c[1].latency.bucket[2], 3); /* 50001, 999999, 1000000 */
    assert_int_equal(c[1].latency.bucket[3], 1); /* +Inf: 1000001 */
    assert_int_equal(c[1].latency.count, 8);
    metrics_free(&m);
}

static void test_metrics_response_histogram_adds_execution_time_only_with_a_workload(void **state)
{
    (void)state;
    struct metrics m;
    init_default(&m, true);
    metrics_sample(&m, 0, 600, 400, 0, false); /* 1000 ns: le 1 us */
    metrics_sample(&m, 0, 600, 401, 0, false); /* 1001 ns: 2 us */
    metrics_publish(&m);
    struct metrics_cpu c[2];
    take(&m, c);
    int b1 = bound_index(&m.cfg.bounds, 1), b2 = bound_index(&m.cfg.bounds, 2);
    assert_int_equal(c[0].response.bucket[b1], 1);
    assert_int_equal(c[0].response.bucket[b2], 1);
    assert_int_equal(c[0].response.sum_ns, 2001);
    assert_int_equal(c[0].response.count, 2);
    assert_int_equal(c[0].latency.bucket[b1], 2); /* latency alone: 600 each */
    assert_int_equal(c[0].latency.sum_ns, 1200);
    metrics_free(&m);

    init_default(&m, false);
    metrics_sample(&m, 0, 600, 400, 0, false);
    metrics_publish(&m);
    take(&m, c);
    assert_int_equal(c[0].response.count, 0);
    assert_int_equal(c[0].latency.count, 1);
    metrics_free(&m);
}

static void test_metrics_collector_copy_is_invisible_until_published(void **state)
{
    (void)state;
    struct metrics m;
    init_default(&m, false);
    metrics_sample(&m, 0, 1500, 0, 0, false);
    struct metrics_cpu c[2];
    take(&m, c);
    assert_int_equal(c[0].latency.count, 0);
    assert_false(c[0].max_scrape_set);
    metrics_publish(&m);
    take(&m, c);
    assert_int_equal(c[0].latency.count, 1);
    metrics_free(&m);
}

/* The tail fit comes from the thread that fits, not the collector: it is
 * seen at the next take whatever the collector publishes, and survives a
 * publish of the collector's copy. */
static void test_metrics_tail_fit_is_taken_beside_the_published_copy(void **state)
{
    (void)state;
    struct metrics m;
    init_default(&m, false);
    struct metrics_cpu c[2];
    take(&m, c);
    assert_false(c[0].tail.fitted);
    struct metrics_tail t = {.fitted = true, .pass = true, .nprob = 1, .budget_p = NAN};
    t.probability[0] = 1e-9;
    t.estimate_s[0] = 42e-6;
    metrics_set_tail(&m, 1, &t);
    metrics_publish(&m);
    take(&m, c);
    assert_false(c[0].tail.fitted);
    assert_true(c[1].tail.fitted && c[1].tail.pass);
    assert_true(c[1].tail.estimate_s[0] == 42e-6);
    metrics_publish(&m);
    take(&m, c);
    assert_true(c[1].tail.fitted);
    metrics_free(&m);
}

static void test_metrics_max_since_scrape_is_reset_when_taken(void **state)
{
    (void)state;
    struct metrics m;
    init_default(&m, false);
    metrics_sample(&m, 0, 4000, 0, 0, false);
    metrics_sample(&m, 0, 9000, 0, 0, false);
    metrics_sample(&m, 0, 3000, 0, 0, false);
    metrics_publish(&m);
    struct metrics_cpu c[2];
    take(&m, c);
    assert_true(c[0].max_scrape_set);
    assert_int_equal(c[0].max_scrape_ns, 9000);
    assert_int_equal(c[0].max_total_ns, 9000);
    assert_false(c[1].max_scrape_set); /* no sample there */

    /* a second scrape without new samples: no maximum, the total stays */
    take(&m, c);
    assert_false(c[0].max_scrape_set);
    assert_int_equal(c[0].max_total_ns, 9000);
    /* a publish without new samples does not bring the taken one back */
    metrics_publish(&m);
    take(&m, c);
    assert_false(c[0].max_scrape_set);
    assert_int_equal(c[0].latency.count, 3);

    /* a smaller latency after the scrape is the new since-scrape maximum */
    metrics_sample(&m, 0, 2500, 0, 0, false);
    metrics_publish(&m);
    take(&m, c);
    assert_true(c[0].max_scrape_set);
    assert_int_equal(c[0].max_scrape_ns, 2500);
    assert_int_equal(c[0].max_total_ns, 9000);
    metrics_free(&m);
}

static void test_metrics_unscraped_max_is_carried_across_publishes(void **state)
{
    (void)state;
    struct metrics m;
    init_default(&m, false);
    struct metrics_cpu c[2];

    /* the larger one first: it survives the smaller one's publish */
    metrics_sample(&m, 0, 80000, 0, 0, false);
    metrics_publish(&m);
    metrics_sample(&m, 0, 1200, 0, 0, false);
    metrics_publish(&m);
    metrics_publish(&m); /* and one more without samples */
    take(&m, c);
    assert_true(c[0].max_scrape_set);
    assert_int_equal(c[0].max_scrape_ns, 80000);
    assert_int_equal(c[0].latency.count, 2);

    /* the larger one second: it replaces the carried one */
    metrics_sample(&m, 0, 3000, 0, 0, false);
    metrics_publish(&m);
    metrics_sample(&m, 0, 7000, 0, 0, false);
    metrics_publish(&m);
    take(&m, c);
    assert_true(c[0].max_scrape_set);
    assert_int_equal(c[0].max_scrape_ns, 7000);
    take(&m, c);
    assert_false(c[0].max_scrape_set);
    metrics_free(&m);
}

static void test_metrics_max_total_takes_negative_only_runs(void **state)
{
    (void)state;
    struct metrics m;
    init_default(&m, false);
    metrics_sample(&m, 1, -40, 0, 0, false);
    metrics_sample(&m, 1, -90, 0, 0, false);
    metrics_publish(&m);
    struct metrics_cpu c[2];
    take(&m, c);
    assert_int_equal(c[1].max_total_ns, -40);
    assert_true(c[1].max_scrape_set);
    assert_int_equal(c[1].max_scrape_ns, -40);
    metrics_free(&m);
}

static void test_metrics_missed_and_deadline_misses_accumulate(void **state)
{
    (void)state;
    struct metrics m;
    init_default(&m, false);
    metrics_sample(&m, 0, 1000, 0, 3, true);
    metrics_sample(&m, 0, 1000, 0, 0, false);
    metrics_sample(&m, 0, 1000, 0, 2, true);
    metrics_sample(&m, 1, 1000, 0, 7, false);
    metrics_publish(&m);
    metrics_sample(&m, 0, 1000, 0, 1, true);
    metrics_publish(&m);
    struct metrics_cpu c[2];
    take(&m, c);
    assert_int_equal(c[0].missed, 6);
    assert_int_equal(c[0].deadline_misses, 3);
    assert_int_equal(c[0].latency.count, 4);
    assert_int_equal(c[1].missed, 7);
    assert_int_equal(c[1].deadline_misses, 0);
    /* what the collector sets directly is published too */
    metrics_cpu_acc(&m, 1)->ring_drops = 11;
    metrics_cpu_acc(&m, 1)->has_spikes = true;
    metrics_cpu_acc(&m, 1)->spikes[CAUSE_IRQ] = 4;
    metrics_publish(&m);
    take(&m, c);
    assert_int_equal(c[1].ring_drops, 11);
    assert_true(c[1].has_spikes);
    assert_int_equal(c[1].spikes[CAUSE_IRQ], 4);
    assert_false(c[0].has_spikes);
    metrics_free(&m);
}

static void test_metrics_set_start_is_in_the_taken_configuration(void **state)
{
    (void)state;
    struct metrics m;
    init_default(&m, false);
    metrics_set_start(&m, 1700000000.25);
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    metrics_take(&m, &cfg, c);
    assert_true(cfg.info.start_time_s == 1700000000.25);
    assert_string_equal(cfg.info.version, "test");
    metrics_free(&m);
}

/* ---- telemetry ---------------------------------------------------------- */

static void fig_unknown(struct telemetry_cpu_figures *f, int cpu)
{
    memset(f, 0, sizeof(*f));
    f->cpu = cpu;
    f->avg_mhz = f->busy_pct = f->bzy_mhz = f->tsc_mhz = NAN;
    f->steal_pct = f->irq_pct = f->softirq_pct = NAN;
    f->core_temp_c = f->pkg_temp_c = f->pkg_watts = NAN;
    f->smi = f->ctxt = f->irqs = f->softirqs = -1;
}

static void fig_irq(struct telemetry_cpu_figures *f, const char *id, uint64_t count)
{
    struct telemetry_irq *q = &f->irq[f->nirq++];
    snprintf(q->id, sizeof(q->id), "%s", id);
    q->count = count;
}

static const struct metrics_irq *find_irq(const struct metrics_cpu *c, const char *id)
{
    for (int k = 0; k < c->nirq; k++)
        if (strcmp(c->irq[k].id, id) == 0)
            return &c->irq[k];
    return NULL;
}

static void test_metrics_telemetry_keeps_the_newest_window_figures(void **state)
{
    (void)state;
    struct metrics m;
    init_default(&m, false);
    struct telemetry_cpu_figures f;
    fig_unknown(&f, 2);
    f.avg_mhz = 2400;
    f.busy_pct = 25;
    f.nidle = 2;
    snprintf(f.idle[0].name, sizeof(f.idle[0].name), "POLL");
    f.idle[0].residency_pct = 1.5;
    snprintf(f.idle[1].name, sizeof(f.idle[1].name), "C1");
    f.idle[1].residency_pct = 73.5;
    metrics_telemetry(&m, 0, &f, NS_PER_S);
    f.avg_mhz = 3000;
    f.busy_pct = 50;
    metrics_telemetry(&m, 0, &f, NS_PER_S);
    metrics_publish(&m);
    struct metrics_cpu c[2];
    take(&m, c);
    assert_true(c[0].has_telemetry);
    assert_true(c[0].frequency_hz == 3000e6);
    assert_true(c[0].busy_ratio == 0.5);
    assert_int_equal(c[0].nidle, 2);
    assert_string_equal(c[0].idle[1].name, "C1");
    assert_true(c[0].idle[1].residency_pct == 73.5);
    assert_false(c[0].has_irqs);  /* irqs -1: unknown */
    assert_false(c[0].has_steal); /* steal NaN: unknown */
    assert_false(c[1].has_telemetry);
    metrics_free(&m);
}

static void test_metrics_telemetry_nan_frequency_stays_nan(void **state)
{
    (void)state;
    struct metrics m;
    init_default(&m, false);
    struct telemetry_cpu_figures f;
    fig_unknown(&f, 5);
    f.avg_mhz = 1800;
    metrics_telemetry(&m, 1, &f, NS_PER_S);
    fig_unknown(&f, 5); /* the next window knows nothing: no stale value */
    metrics_telemetry(&m, 1, &f, NS_PER_S);
    metrics_publish(&m);
    struct metrics_cpu c[2];
    take(&m, c);
    assert_true(c[1].has_telemetry);
    assert_true(isnan(c[1].frequency_hz));
    assert_true(isnan(c[1].busy_ratio));
    assert_int_equal(c[1].nidle, 0);
    metrics_free(&m);
}

static void test_metrics_interrupts_accumulate_by_source_with_the_rest_as_other(void **state)
{
    (void)state;
    struct metrics m;
    init_default(&m, false);
    struct telemetry_cpu_figures f;
    fig_unknown(&f, 2);
    fig_irq(&f, "LOC", 1000);
    fig_irq(&f, "36", 40);
    f.irqs = 1000 + 40 + 9; /* 9 on lines below the top sources */
    metrics_telemetry(&m, 0, &f, NS_PER_S);
    fig_unknown(&f, 2);
    fig_irq(&f, "36", 60);
    fig_irq(&f, "RES", 5);
    fig_irq(&f, "LOC", 900);
    f.irqs = 60 + 5 + 900; /* nothing left over this time */
    metrics_telemetry(&m, 0, &f, NS_PER_S);
    metrics_publish(&m);
    struct metrics_cpu c[2];
    take(&m, c);
    assert_true(c[0].has_irqs);
    assert_int_equal(c[0].nirq, 3);
    assert_string_equal(c[0].irq[0].id, "LOC"); /* in order of first sight */
    assert_string_equal(c[0].irq[1].id, "36");
    assert_string_equal(c[0].irq[2].id, "RES");
    assert_int_equal(find_irq(&c[0], "LOC")->total, 1900);
    assert_int_equal(find_irq(&c[0], "36")->total, 100);
    assert_int_equal(find_irq(&c[0], "RES")->total, 5);
    assert_int_equal(c[0].irq_other, 9);
    metrics_free(&m);
}

static void test_metrics_interrupt_sources_beyond_the_limit_go_to_other(void **state)
{
    (void)state;
    struct metrics m;
    init_default(&m, false);
    struct telemetry_cpu_figures f;
    /* windows of TELEMETRY_TOP_IRQS new sources each, 3 counts per source */
    int id = 0;
    uint64_t beyond = 0;
    while (id < METRICS_IRQS_MAX + 2 * TELEMETRY_TOP_IRQS) {
        fig_unknown(&f, 2);
        for (int k = 0; k < TELEMETRY_TOP_IRQS; k++, id++) {
            char name[16];
            snprintf(name, sizeof(name), "%d", id);
            fig_irq(&f, name, 3);
            if (id >= METRICS_IRQS_MAX)
                beyond += 3;
        }
        f.irqs = 3 * TELEMETRY_TOP_IRQS;
        metrics_telemetry(&m, 0, &f, NS_PER_S);
    }
    /* a source already named still counts by its name once the table is full */
    fig_unknown(&f, 2);
    fig_irq(&f, "0", 10);
    fig_irq(&f, "new", 4);
    f.irqs = 14 + 6;
    metrics_telemetry(&m, 0, &f, NS_PER_S);
    metrics_publish(&m);
    struct metrics_cpu c[2];
    take(&m, c);
    assert_int_equal(c[0].nirq, METRICS_IRQS_MAX);
    assert_int_equal(find_irq(&c[0], "0")->total, 13);
    assert_int_equal(find_irq(&c[0], "31")->total, 3);
    assert_null(find_irq(&c[0], "32"));
    assert_null(find_irq(&c[0], "new"));
    assert_int_equal(c[0].irq_other, beyond + 4 + 6);
    metrics_free(&m);
}

static void test_metrics_steal_seconds_add_share_times_duration(void **state)
{
    (void)state;
    struct metrics m;
    init_default(&m, false);
    struct telemetry_cpu_figures f;
    fig_unknown(&f, 5);
    f.steal_pct = 2.5;
    metrics_telemetry(&m, 1, &f, 2 * NS_PER_S); /* 0.05 s */
    f.steal_pct = 10;
    metrics_telemetry(&m, 1, &f, 500 * NS_PER_MS); /* 0.05 s */
    f.steal_pct = NAN;
    metrics_telemetry(&m, 1, &f, NS_PER_S); /* unknown: adds nothing */
    f.steal_pct = 50;
    metrics_telemetry(&m, 1, &f, 0); /* no duration: adds nothing */
    metrics_publish(&m);
    struct metrics_cpu c[2];
    take(&m, c);
    assert_true(c[1].has_steal);
    assert_true(fabs(c[1].steal_s - 0.1) < 1e-12);
    assert_false(c[0].has_steal);
    metrics_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metrics_default_bounds_are_1_2_5_from_1us_to_100ms),
        cmocka_unit_test(test_metrics_parse_bounds_takes_units_and_bare_microseconds),
        cmocka_unit_test(test_metrics_parse_bounds_takes_64_and_refuses_65),
        cmocka_unit_test(test_metrics_parse_bounds_refuses_bad_lists_with_the_reason),
        cmocka_unit_test(test_metrics_init_names_the_cpus_and_knows_nothing_yet),
        cmocka_unit_test(test_metrics_bucket_boundaries_are_inclusive_upper_bounds),
        cmocka_unit_test(test_metrics_custom_bounds_place_values_by_their_own_edges),
        cmocka_unit_test(test_metrics_response_histogram_adds_execution_time_only_with_a_workload),
        cmocka_unit_test(test_metrics_collector_copy_is_invisible_until_published),
        cmocka_unit_test(test_metrics_max_since_scrape_is_reset_when_taken),
        cmocka_unit_test(test_metrics_unscraped_max_is_carried_across_publishes),
        cmocka_unit_test(test_metrics_max_total_takes_negative_only_runs),
        cmocka_unit_test(test_metrics_missed_and_deadline_misses_accumulate),
        cmocka_unit_test(test_metrics_set_start_is_in_the_taken_configuration),
        cmocka_unit_test(test_metrics_telemetry_keeps_the_newest_window_figures),
        cmocka_unit_test(test_metrics_telemetry_nan_frequency_stays_nan),
        cmocka_unit_test(test_metrics_interrupts_accumulate_by_source_with_the_rest_as_other),
        cmocka_unit_test(test_metrics_interrupt_sources_beyond_the_limit_go_to_other),
        cmocka_unit_test(test_metrics_steal_seconds_add_share_times_duration),
        cmocka_unit_test(test_metrics_tail_fit_is_taken_beside_the_published_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
