/*
 * Unit tests for src/export/prom_text.c: the exporter's page, rendered from
 * a hand-built state of two CPUs into memory. Bucket series are cumulative
 * with Prometheus' le spelling, sums in seconds; every family is written
 * once and whole; OpenMetrics names counter families without _total, has an
 * info family and ends with # EOF; label values are escaped; a family is
 * absent when nothing in the state feeds it. And which Accept headers ask
 * for OpenMetrics.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "export/prom_text.h"

/* ---- the state ---------------------------------------------------------- */

static void cpu_empty(struct metrics_cpu *c, int cpu)
{
    memset(c, 0, sizeof(*c));
    c->cpu = cpu;
    c->frequency_hz = NAN;
    c->busy_ratio = NAN;
}

static void config_default(struct metrics_config *cfg, bool response)
{
    memset(cfg, 0, sizeof(*cfg));
    metrics_default_bounds(&cfg->bounds);
    cfg->response = response;
    cfg->deadline = true;
    snprintf(cfg->info.version, sizeof(cfg->info.version), "1.2.3");
    snprintf(cfg->info.kernel, sizeof(cfg->info.kernel), "6.1.0-13-rt-amd64");
    snprintf(cfg->info.preempt, sizeof(cfg->info.preempt), "PREEMPT_RT");
    snprintf(cfg->info.cpu_model, sizeof(cfg->info.cpu_model), "Acme \"Fast\" \\ CPU\nrev 2");
    snprintf(cfg->info.clocksource, sizeof(cfg->info.clocksource), "tsc");
    cfg->info.interval_s = 0.001;
    cfg->info.start_time_s = 1700000000.5;
}

/* The index of the default bound of us microseconds. */
static int bound(const struct metrics_config *cfg, int64_t us)
{
    for (int k = 0; k < cfg->bounds.n; k++)
        if (cfg->bounds.le_ns[k] == us * NS_PER_US)
            return k;
    fail_msg("no default bound of %lld us", (long long)us);
    return -1;
}

/* CPU 0: three latencies (1 us, 1.5 us, 200 ms), response times, counters,
 * spikes; CPU 3: telemetry only. */
static void state_full(struct metrics_config *cfg, struct metrics_cpu c[2], bool response)
{
    config_default(cfg, response);
    cpu_empty(&c[0], 0);
    cpu_empty(&c[1], 3);
    c[0].latency.bucket[bound(cfg, 1)] = 1;
    c[0].latency.bucket[bound(cfg, 2)] = 1;
    c[0].latency.bucket[cfg->bounds.n] = 1; /* +Inf */
    c[0].latency.sum_ns = 1000 + 1500 + 200 * NS_PER_MS;
    c[0].latency.count = 3;
    c[0].response.bucket[bound(cfg, 5)] = 2;
    c[0].response.bucket[bound(cfg, 100000)] = 1;
    c[0].response.sum_ns = 3000 + 4000 + 60 * NS_PER_MS;
    c[0].response.count = 3;
    c[0].max_scrape_set = true;
    c[0].max_scrape_ns = 200 * NS_PER_MS;
    c[0].max_total_ns = 200 * NS_PER_MS;
    c[0].missed = 4;
    c[0].deadline_misses = 2;
    c[0].ring_drops = 1;
    c[0].has_spikes = true;
    c[0].spikes[CAUSE_IRQ] = 4;
    c[0].spikes[CAUSE_THREAD] = 1;

    c[1].has_telemetry = true;
    c[1].frequency_hz = 2.4e9;
    c[1].busy_ratio = 0.25;
    c[1].nidle = 2;
    snprintf(c[1].idle[0].name, sizeof(c[1].idle[0].name), "POLL");
    c[1].idle[0].residency_pct = NAN; /* unknown: no sample */
    snprintf(c[1].idle[1].name, sizeof(c[1].idle[1].name), "C1");
    c[1].idle[1].residency_pct = 60;
    c[1].has_irqs = true;
    c[1].nirq = 1;
    snprintf(c[1].irq[0].id, sizeof(c[1].irq[0].id), "LOC");
    snprintf(c[1].irq[0].name, sizeof(c[1].irq[0].name), "Local timer interrupts");
    c[1].irq[0].total = 1500;
    c[1].irq_other = 7;
    c[1].has_steal = true;
    c[1].steal_s = 0.05;
}

/* ---- the page ----------------------------------------------------------- */

struct page {
    char *text;
    size_t len;
};

static void render(struct page *p, const struct metrics_config *cfg, const struct metrics_cpu *c,
                   int n, bool om)
{
    p->text = NULL;
    p->len = 0;
    FILE *out = open_memstream(&p->text, &p->len);
    assert_non_null(out);
    assert_int_equal(prom_render(out, cfg, c, n, om), 0);
    assert_int_equal(fclose(out), 0);
    assert_non_null(p->text);
}

/* How many lines of the page are exactly line. */
static int lines_equal(const struct page *p, const char *line)
{
    int n = 0;
    size_t len = strlen(line);
    for (const char *s = p->text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t l = nl ? (size_t)(nl - s) : strlen(s);
        if (l == len && memcmp(s, line, len) == 0)
            n++;
        s += l + (nl ? 1 : 0);
    }
    return n;
}

/* How many lines start with prefix. */
static int lines_starting(const struct page *p, const char *prefix)
{
    int n = 0;
    size_t len = strlen(prefix);
    for (const char *s = p->text; *s;) {
        if (strncmp(s, prefix, len) == 0)
            n++;
        const char *nl = strchr(s, '\n');
        if (!nl)
            break;
        s = nl + 1;
    }
    return n;
}

static void expect_line(const struct page *p, const char *line)
{
    if (lines_equal(p, line) != 1)
        fail_msg("want the line once: '%s' (%d times) in:\n%s", line, lines_equal(p, line),
                 p->text);
}

static void expect_no_line_starting(const struct page *p, const char *prefix)
{
    if (lines_starting(p, prefix) != 0)
        fail_msg("want no line starting '%s' in:\n%s", prefix, p->text);
}

/* Every family: HELP then TYPE of the same name, once per page, then only
 * its own samples (names that start with the family's name) up to the
 * next family. Returns the number of families. */
static int check_families_whole(const struct page *p, bool om)
{
    char names[64][128];
    int nfam = 0;
    char current[128] = "";
    bool expect_type = false;
    for (const char *s = p->text; *s;) {
        const char *nl = strchr(s, '\n');
        assert_non_null(nl); /* every line ends */
        char line[2048];
        size_t l = (size_t)(nl - s);
        assert_true(l < sizeof(line));
        memcpy(line, s, l);
        line[l] = '\0';
        s = nl + 1;
        if (strncmp(line, "# HELP ", 7) == 0) {
            assert_false(expect_type);
            char *name = line + 7;
            char *sp = strchr(name, ' ');
            assert_non_null(sp);
            *sp = '\0';
            for (int k = 0; k < nfam; k++)
                if (strcmp(names[k], name) == 0)
                    fail_msg("family %s written twice", name);
            assert_true(nfam < 64 && strlen(name) < sizeof(current));
            memcpy(names[nfam++], name, strlen(name) + 1);
            memcpy(current, name, strlen(name) + 1);
            expect_type = true;
        } else if (strncmp(line, "# TYPE ", 7) == 0) {
            assert_true(expect_type);
            size_t cl = strlen(current);
            if (strncmp(line + 7, current, cl) != 0 || line[7 + cl] != ' ')
                fail_msg("TYPE '%s' after HELP of %s", line, current);
            expect_type = false;
        } else if (strcmp(line, "# EOF") == 0) {
            assert_true(om);
            assert_true(*s == '\0'); /* the last line */
        } else {
            assert_false(expect_type);
            assert_true(line[0] != '#');
            if (current[0] == '\0' || strncmp(line, current, strlen(current)) != 0)
                fail_msg("sample '%s' outside its family (in %s)", line, current);
        }
    }
    return nfam;
}

/* ---- tests -------------------------------------------------------------- */

static void test_prom_bucket_series_is_cumulative_with_prometheus_le(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    state_full(&cfg, c, false);
    struct page p;
    render(&p, &cfg, c, 2, false);
    static const char *const want[] = {
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"1e-06\"} 1",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"2e-06\"} 2",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"5e-06\"} 2",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"1e-05\"} 2",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"2e-05\"} 2",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"5e-05\"} 2",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"0.0001\"} 2",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"0.0002\"} 2",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"0.0005\"} 2",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"0.001\"} 2",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"0.002\"} 2",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"0.005\"} 2",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"0.01\"} 2",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"0.02\"} 2",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"0.05\"} 2",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"0.1\"} 2",
        "jitterlab_wakeup_latency_seconds_bucket{cpu=\"0\",le=\"+Inf\"} 3",
        "jitterlab_wakeup_latency_seconds_sum{cpu=\"0\"} 0.2000025",
        "jitterlab_wakeup_latency_seconds_count{cpu=\"0\"} 3",
    };
    /* in this order, one after the other */
    const char *at = strstr(p.text, want[0]);
    assert_non_null(at);
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        size_t l = strlen(want[k]);
        if (strncmp(at, want[k], l) != 0 || at[l] != '\n')
            fail_msg("want '%s' at:\n%.200s", want[k], at);
        at += l + 1;
    }
    /* the CPU without samples: every bucket 0 */
    expect_line(&p, "jitterlab_wakeup_latency_seconds_bucket{cpu=\"3\",le=\"1e-06\"} 0");
    expect_line(&p, "jitterlab_wakeup_latency_seconds_bucket{cpu=\"3\",le=\"+Inf\"} 0");
    expect_line(&p, "jitterlab_wakeup_latency_seconds_sum{cpu=\"3\"} 0");
    expect_line(&p, "jitterlab_wakeup_latency_seconds_count{cpu=\"3\"} 0");
    assert_int_equal(lines_starting(&p, "jitterlab_wakeup_latency_seconds_bucket{"),
                     2 * (cfg.bounds.n + 1));
    free(p.text);
}

static void test_prom_counters_and_gauges_per_cpu(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    state_full(&cfg, c, false);
    struct page p;
    render(&p, &cfg, c, 2, false);
    expect_line(&p, "# TYPE jitterlab_samples_total counter");
    expect_line(&p, "jitterlab_samples_total{cpu=\"0\"} 3");
    expect_line(&p, "jitterlab_samples_total{cpu=\"3\"} 0");
    expect_line(&p, "jitterlab_missed_periods_total{cpu=\"0\"} 4");
    expect_line(&p, "jitterlab_deadline_misses_total{cpu=\"0\"} 2");
    expect_line(&p, "jitterlab_ring_drops_total{cpu=\"0\"} 1");
    expect_line(&p, "# TYPE jitterlab_wakeup_latency_max_seconds gauge");
    expect_line(&p, "jitterlab_wakeup_latency_max_seconds{cpu=\"0\"} 0.2");
    expect_line(&p, "jitterlab_wakeup_latency_max_seconds{cpu=\"3\"} 0"); /* none since */
    expect_line(&p, "jitterlab_wakeup_latency_max_total_seconds{cpu=\"0\"} 0.2");
    expect_line(&p, "jitterlab_wakeup_latency_max_total_seconds{cpu=\"3\"} 0");
    expect_line(&p, "jitterlab_start_time_seconds 1700000000.5");
    expect_line(&p, "# TYPE jitterlab_wakeup_latency_seconds histogram");
    free(p.text);
}

/* A run without a deadline counts no deadline misses: the family is
 * absent (a 0 would read as "none missed", an alert on it as armed). */
static void test_prom_without_deadline_has_no_deadline_family(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    state_full(&cfg, c, false);
    cfg.deadline = false;
    for (int om = 0; om < 2; om++) { /* Prometheus text, OpenMetrics */
        struct page p;
        render(&p, &cfg, c, 2, om == 1);
        assert_null(strstr(p.text, "jitterlab_deadline_misses"));
        expect_line(&p, "jitterlab_missed_periods_total{cpu=\"0\"} 4");
        free(p.text);
    }
}

/* A numbered interrupt keeps its number in irq and gets its device name in
 * name; a name of hostile bytes (quote, backslash, newline, a byte of no
 * UTF-8 sequence) comes out in the documents' text form, escaped for the
 * label: the page stays one valid UTF-8 line per sample. */
static void test_prom_interrupts_carry_the_device_name(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    state_full(&cfg, c, false);
    c[1].nirq = 3;
    snprintf(c[1].irq[1].id, sizeof(c[1].irq[1].id), "36");
    snprintf(c[1].irq[1].name, sizeof(c[1].irq[1].name), "virtio1-req.0");
    c[1].irq[1].total = 12;
    snprintf(c[1].irq[2].id, sizeof(c[1].irq[2].id), "37");
    snprintf(c[1].irq[2].name, sizeof(c[1].irq[2].name), "e\"v\\l\n\xff");
    c[1].irq[2].total = 3;
    for (int om = 0; om < 2; om++) {
        struct page p;
        render(&p, &cfg, c, 2, om == 1);
        expect_line(&p,
                    "jitterlab_interrupts_total{cpu=\"3\",irq=\"36\",name=\"virtio1-req.0\"} 12");
        /* text form e"v\\l<newline>\xff, then \\, " and newline escaped */
        expect_line(&p, "jitterlab_interrupts_total{cpu=\"3\",irq=\"37\","
                        "name=\"e\\\"v\\\\\\\\l\\n\\\\xff\"} 3");
        free(p.text);
    }
}

static void test_prom_each_family_once_and_whole_in_both_formats(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    state_full(&cfg, c, true);
    struct page p;
    render(&p, &cfg, c, 2, false);
    /* latency, max, max total, samples, missed, deadline, drops, response,
     * frequency, busy, idle, interrupts, steal, spikes, info, start time */
    assert_int_equal(check_families_whole(&p, false), 16);
    assert_int_equal(lines_starting(&p, "# HELP "), 16);
    assert_int_equal(lines_starting(&p, "# TYPE "), 16);
    assert_int_equal(lines_equal(&p, "# EOF"), 0);
    free(p.text);
    render(&p, &cfg, c, 2, true);
    assert_int_equal(check_families_whole(&p, true), 16);
    assert_int_equal(lines_equal(&p, "# EOF"), 1);
    free(p.text);
}

static void test_prom_openmetrics_names_counter_families_without_total(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    state_full(&cfg, c, false);
    struct page p;
    render(&p, &cfg, c, 2, true);
    expect_line(&p, "# TYPE jitterlab_samples counter");
    expect_no_line_starting(&p, "# TYPE jitterlab_samples_total");
    expect_line(&p, "jitterlab_samples_total{cpu=\"0\"} 3"); /* the sample keeps _total */
    expect_line(&p, "# TYPE jitterlab_missed_periods counter");
    expect_line(&p, "# TYPE jitterlab_deadline_misses counter");
    expect_line(&p, "# TYPE jitterlab_ring_drops counter");
    expect_line(&p, "# TYPE jitterlab_interrupts counter");
    expect_line(
        &p,
        "jitterlab_interrupts_total{cpu=\"3\",irq=\"LOC\",name=\"Local timer interrupts\"} 1500");
    expect_line(&p, "# TYPE jitterlab_cpu_steal_seconds counter");
    expect_line(&p, "# TYPE jitterlab_spikes counter");
    /* a gauge keeps its name, even with total inside it */
    expect_line(&p, "# TYPE jitterlab_wakeup_latency_max_total_seconds gauge");
    /* the info family */
    expect_line(&p, "# TYPE jitterlab info");
    expect_no_line_starting(&p, "# TYPE jitterlab_info");
    assert_int_equal(lines_starting(&p, "jitterlab_info{"), 1);
    /* # EOF closes the page */
    assert_true(p.len >= 6);
    assert_string_equal(p.text + p.len - 6, "# EOF\n");
    free(p.text);
}

static void test_prom_text_format_has_gauge_info_and_no_eof(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    state_full(&cfg, c, false);
    struct page p;
    render(&p, &cfg, c, 2, false);
    expect_line(&p, "# TYPE jitterlab_info gauge");
    expect_no_line_starting(&p, "# TYPE jitterlab info");
    expect_line(&p, "# TYPE jitterlab_interrupts_total counter");
    expect_no_line_starting(&p, "# EOF");
    assert_int_equal(lines_starting(&p, "jitterlab_info{"), 1);
    /* ends with the start time, newline-terminated */
    assert_string_equal(p.text + p.len - strlen("jitterlab_start_time_seconds 1700000000.5\n"),
                        "jitterlab_start_time_seconds 1700000000.5\n");
    free(p.text);
}

static void test_prom_info_label_values_are_escaped(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    state_full(&cfg, c, false);
    struct page p;
    render(&p, &cfg, c, 2, false);
    expect_line(&p, "jitterlab_info{version=\"1.2.3\",kernel=\"6.1.0-13-rt-amd64\","
                    "preempt=\"PREEMPT_RT\",cpu_model=\"Acme \\\"Fast\\\" \\\\ CPU\\nrev 2\","
                    "clocksource=\"tsc\",hypervisor=\"\",interval_seconds=\"0.001\"} 1");
    free(p.text);
}

/* A label of bytes that are not UTF-8 keeps the page UTF-8: \xNN. */
static void test_prom_label_values_are_valid_utf8(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    state_full(&cfg, c, false);
    snprintf(cfg.info.cpu_model, sizeof(cfg.info.cpu_model), "Acme\xff caf\xc3\xa9");
    struct page p;
    render(&p, &cfg, c, 2, false);
    assert_non_null(strstr(p.text, "cpu_model=\"Acme\\\\xff caf\xc3\xa9\""));
    free(p.text);
}

static void test_prom_spike_and_idle_label_values_are_escaped(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    state_full(&cfg, c, false);
    snprintf(c[1].idle[1].name, sizeof(c[1].idle[1].name), "C\"1\\x");
    struct page p;
    render(&p, &cfg, c, 2, false);
    expect_line(&p,
                "jitterlab_cpu_idle_state_residency_ratio{cpu=\"3\",state=\"C\\\"1\\\\x\"} 0.6");
    free(p.text);
}

static void test_prom_telemetry_families_from_the_cpu_that_has_them(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    state_full(&cfg, c, false);
    struct page p;
    render(&p, &cfg, c, 2, false);
    expect_line(&p, "# TYPE jitterlab_cpu_frequency_hertz gauge");
    expect_line(&p, "jitterlab_cpu_frequency_hertz{cpu=\"3\"} 2.4e+09");
    expect_line(&p, "jitterlab_cpu_frequency_hertz{cpu=\"0\"} NaN"); /* unknown there */
    expect_line(&p, "jitterlab_cpu_busy_ratio{cpu=\"3\"} 0.25");
    expect_line(&p, "jitterlab_cpu_idle_state_residency_ratio{cpu=\"3\",state=\"C1\"} 0.6");
    /* an unknown residency has no sample */
    expect_no_line_starting(&p,
                            "jitterlab_cpu_idle_state_residency_ratio{cpu=\"3\",state=\"POLL\"");
    expect_no_line_starting(&p, "jitterlab_cpu_idle_state_residency_ratio{cpu=\"0\"");
    expect_line(
        &p,
        "jitterlab_interrupts_total{cpu=\"3\",irq=\"LOC\",name=\"Local timer interrupts\"} 1500");
    expect_line(&p, "jitterlab_interrupts_total{cpu=\"3\",irq=\"other\",name=\"other\"} 7");
    expect_no_line_starting(&p, "jitterlab_interrupts_total{cpu=\"0\"");
    expect_line(&p, "jitterlab_cpu_steal_seconds_total{cpu=\"3\"} 0.05");
    /* spikes: every cause of the CPU that has them, none of the other */
    assert_int_equal(lines_starting(&p, "jitterlab_spikes_total{cpu=\"0\","), CAUSE_KIND_COUNT);
    expect_line(&p, "jitterlab_spikes_total{cpu=\"0\",cause=\"irq\"} 4");
    expect_line(&p, "jitterlab_spikes_total{cpu=\"0\",cause=\"thread\"} 1");
    expect_line(&p, "jitterlab_spikes_total{cpu=\"0\",cause=\"timer-irq-late\"} 0");
    expect_line(&p, "jitterlab_spikes_total{cpu=\"0\",cause=\"unexplained\"} 0");
    /* a halted vCPU woken late by the host is a cause label of its own */
    expect_line(&p, "jitterlab_spikes_total{cpu=\"0\",cause=\"vcpu-wake-late\"} 0");
    expect_no_line_starting(&p, "jitterlab_spikes_total{cpu=\"3\"");
    free(p.text);
}

static void test_prom_response_histogram_only_with_a_workload(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    state_full(&cfg, c, true);
    struct page p;
    render(&p, &cfg, c, 2, false);
    expect_line(&p, "# TYPE jitterlab_response_time_seconds histogram");
    expect_line(&p, "jitterlab_response_time_seconds_bucket{cpu=\"0\",le=\"2e-06\"} 0");
    expect_line(&p, "jitterlab_response_time_seconds_bucket{cpu=\"0\",le=\"5e-06\"} 2");
    expect_line(&p, "jitterlab_response_time_seconds_bucket{cpu=\"0\",le=\"0.05\"} 2");
    expect_line(&p, "jitterlab_response_time_seconds_bucket{cpu=\"0\",le=\"0.1\"} 3");
    expect_line(&p, "jitterlab_response_time_seconds_bucket{cpu=\"0\",le=\"+Inf\"} 3");
    expect_line(&p, "jitterlab_response_time_seconds_sum{cpu=\"0\"} 0.060007");
    expect_line(&p, "jitterlab_response_time_seconds_count{cpu=\"0\"} 3");
    free(p.text);

    cfg.response = false;
    render(&p, &cfg, c, 2, false);
    expect_no_line_starting(&p, "# HELP jitterlab_response_time_seconds");
    expect_no_line_starting(&p, "# TYPE jitterlab_response_time_seconds");
    expect_no_line_starting(&p, "jitterlab_response_time_seconds");
    free(p.text);
}

static void test_prom_families_without_data_are_absent(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    config_default(&cfg, false);
    cpu_empty(&c[0], 0);
    cpu_empty(&c[1], 3);
    struct page p;
    render(&p, &cfg, c, 2, true);
    /* latency, max, max total, samples, missed, deadline, drops, info, start */
    assert_int_equal(check_families_whole(&p, true), 9);
    expect_no_line_starting(&p, "# TYPE jitterlab_cpu_frequency_hertz");
    expect_no_line_starting(&p, "# TYPE jitterlab_cpu_busy_ratio");
    expect_no_line_starting(&p, "# TYPE jitterlab_cpu_idle_state_residency_ratio");
    expect_no_line_starting(&p, "# TYPE jitterlab_interrupts");
    expect_no_line_starting(&p, "# TYPE jitterlab_cpu_steal_seconds");
    expect_no_line_starting(&p, "# TYPE jitterlab_spikes");
    expect_no_line_starting(&p, "# TYPE jitterlab_response_time_seconds");
    free(p.text);

    /* telemetry that knows no frequency on any CPU: no frequency family */
    c[0].has_telemetry = c[1].has_telemetry = true;
    c[1].busy_ratio = 0.5;
    render(&p, &cfg, c, 2, false);
    expect_no_line_starting(&p, "# TYPE jitterlab_cpu_frequency_hertz");
    expect_no_line_starting(&p, "jitterlab_cpu_frequency_hertz");
    expect_line(&p, "jitterlab_cpu_busy_ratio{cpu=\"3\"} 0.5");
    expect_no_line_starting(&p, "# TYPE jitterlab_cpu_idle_state_residency_ratio"); /* nidle 0 */
    free(p.text);

    /* a frequency left from before telemetry is not shown */
    c[0].has_telemetry = c[1].has_telemetry = false;
    c[0].frequency_hz = 1e9;
    render(&p, &cfg, c, 2, false);
    expect_no_line_starting(&p, "# TYPE jitterlab_cpu_frequency_hertz");
    free(p.text);
}

/* The tail's families: absent before a fit; after one, the estimates per
 * probability only where the checks passed, the budget's exceedance where
 * there is a budget, and the checks gauge for every fitted CPU. */
static void test_prom_tail_families_after_a_fit(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    config_default(&cfg, false);
    cpu_empty(&c[0], 0);
    cpu_empty(&c[1], 3);
    struct page p;
    render(&p, &cfg, c, 2, false);
    expect_no_line_starting(&p, "# TYPE jitterlab_tail_checks_pass");
    expect_no_line_starting(&p, "# TYPE jitterlab_latency_estimate_seconds");
    free(p.text);

    c[0].tail = (struct metrics_tail){.fitted = true, .pass = true, .nprob = 2, .budget_p = 2.5e-7};
    c[0].tail.probability[0] = 1e-6;
    c[0].tail.estimate_s[0] = 0.00005;
    c[0].tail.probability[1] = 1e-9;
    c[0].tail.estimate_s[1] = 0.00008;
    c[1].tail = (struct metrics_tail){.fitted = true, .pass = false, .nprob = 2, .budget_p = NAN};
    c[1].tail.probability[0] = 1e-6;
    c[1].tail.estimate_s[0] = NAN;
    for (int om = 0; om < 2; om++) {
        render(&p, &cfg, c, 2, om);
        check_families_whole(&p, om);
        expect_line(&p, "# TYPE jitterlab_latency_estimate_seconds gauge");
        expect_line(&p, "jitterlab_latency_estimate_seconds{cpu=\"0\",probability=\"1e-6\"} 5e-05");
        expect_line(&p, "jitterlab_latency_estimate_seconds{cpu=\"0\",probability=\"1e-9\"} 8e-05");
        expect_no_line_starting(&p, "jitterlab_latency_estimate_seconds{cpu=\"3\"");
        expect_line(&p, "jitterlab_budget_exceedance_probability{cpu=\"0\"} 2.5e-07");
        expect_no_line_starting(&p, "jitterlab_budget_exceedance_probability{cpu=\"3\"");
        expect_line(&p, "jitterlab_tail_checks_pass{cpu=\"0\"} 1");
        expect_line(&p, "jitterlab_tail_checks_pass{cpu=\"3\"} 0");
        free(p.text);
    }
}

static void test_prom_numbers_read_back_exactly(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[1];
    config_default(&cfg, false);
    cfg.info.interval_s = 0.000125;
    cfg.info.start_time_s = 1712345678.123456;
    cpu_empty(&c[0], 7);
    c[0].latency.count = 123456789;
    c[0].latency.bucket[0] = 123456789;
    c[0].latency.sum_ns = 1; /* 1e-09 s */
    struct page p;
    render(&p, &cfg, c, 1, false);
    expect_line(&p, "jitterlab_samples_total{cpu=\"7\"} 123456789");
    expect_line(&p, "jitterlab_wakeup_latency_seconds_sum{cpu=\"7\"} 1e-09");
    expect_line(&p, "jitterlab_start_time_seconds 1712345678.123456");
    assert_non_null(strstr(p.text, ",interval_seconds=\"0.000125\"} 1\n"));
    free(p.text);
}

static void test_prom_render_reports_a_write_error(void **state)
{
    (void)state;
    struct metrics_config cfg;
    struct metrics_cpu c[2];
    state_full(&cfg, c, false);
    FILE *ro = fopen("/dev/null", "r");
    assert_non_null(ro);
    assert_int_equal(prom_render(ro, &cfg, c, 2, false), -1);
    fclose(ro);
}

static void test_prom_accepts_openmetrics_from_the_accept_header(void **state)
{
    (void)state;
    /* what Prometheus 2.x sends by default */
    assert_true(prom_accepts_openmetrics(
        "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
        "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
    assert_true(prom_accepts_openmetrics("application/openmetrics-text; version=1.0.0"));
    assert_true(prom_accepts_openmetrics("Application/OpenMetrics-Text;version=0.0.1"));
    /* text only (older Prometheus, or scrape_protocols without OpenMetrics) */
    assert_false(prom_accepts_openmetrics("text/plain;version=0.0.4;q=1,*/*;q=0.1"));
    assert_false(prom_accepts_openmetrics("text/plain"));
    assert_false(prom_accepts_openmetrics("*/*"));
    assert_false(prom_accepts_openmetrics(""));
    assert_false(prom_accepts_openmetrics(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prom_bucket_series_is_cumulative_with_prometheus_le),
        cmocka_unit_test(test_prom_tail_families_after_a_fit),
        cmocka_unit_test(test_prom_counters_and_gauges_per_cpu),
        cmocka_unit_test(test_prom_without_deadline_has_no_deadline_family),
        cmocka_unit_test(test_prom_interrupts_carry_the_device_name),
        cmocka_unit_test(test_prom_each_family_once_and_whole_in_both_formats),
        cmocka_unit_test(test_prom_openmetrics_names_counter_families_without_total),
        cmocka_unit_test(test_prom_text_format_has_gauge_info_and_no_eof),
        cmocka_unit_test(test_prom_info_label_values_are_escaped),
        cmocka_unit_test(test_prom_label_values_are_valid_utf8),
        cmocka_unit_test(test_prom_spike_and_idle_label_values_are_escaped),
        cmocka_unit_test(test_prom_telemetry_families_from_the_cpu_that_has_them),
        cmocka_unit_test(test_prom_response_histogram_only_with_a_workload),
        cmocka_unit_test(test_prom_families_without_data_are_absent),
        cmocka_unit_test(test_prom_numbers_read_back_exactly),
        cmocka_unit_test(test_prom_render_reports_a_write_error),
        cmocka_unit_test(test_prom_accepts_openmetrics_from_the_accept_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
