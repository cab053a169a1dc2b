/*
 * The text outputs at many CPUs (src/out/text_many.c and its users): on a
 * synthetic 256-CPU run, noise run and c2c matrix with known worst CPUs
 * and pairs planted, every line of the live views and summaries fits 100
 * display columns (ANSI escapes left out, µ one column), every CPU
 * together has its row, the worst lists hold exactly the planted CPUs in
 * order, the strip has a cell per CPU, and --per-cpu brings back every row.
 * At 2 CPUs the text is byte for byte what it was before the collapse.
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

#include "cmd/c2c_cli.h"
#include "common/units.h"
#include "crosscpu/c2c_matrix.h"
#include "out/report.h"
#include "out/text_c2c.h"
#include "out/text_many.h"
#include "out/text_noise.h"
#include "out/text_report.h"
#include "test_cli.h"
#include "test_text.h"

#define MANY 256

/* ---- a synthetic run ---- */

struct run_fixture {
    int n;
    struct cpu_result *res;
    const struct cpu_result **ptr;
    struct latency_hist *all; /* 3 */
    struct live_cpu *live;
    struct cpulist cpus;
    struct run_report rep;
    struct live_frame frame;
};

static void add_sample(struct cpu_result *r, int64_t ns)
{
    r->samples++;
    running_stats_add(&r->latency, ns);
    latency_hist_add(&r->hist, ns);
}

/* The CPUs planted with the largest max (1500 us down to 800 us), a ninth
 * just behind them, and those planted with the largest p99 (5% of their
 * samples at 200 us down to 130 us), a ninth behind them. */
static const int worst_max[TEXT_MANY_WORST] = {17, 200, 3, 255, 128, 64, 42, 99};
static const int ninth_max = 150;
static const int worst_p99[TEXT_MANY_WORST] = {5, 6, 7, 8, 9, 10, 11, 12};
static const int ninth_p99 = 13;

static void run_fixture_init(struct run_fixture *f, int n, const int *ids, bool plant)
{
    memset(f, 0, sizeof *f);
    f->n = n;
    f->res = calloc((size_t)n, sizeof *f->res);
    f->ptr = calloc((size_t)n, sizeof *f->ptr);
    f->all = calloc(3, sizeof *f->all);
    f->live = calloc((size_t)n, sizeof *f->live);
    assert_true(f->res && f->ptr && f->all && f->live);
    for (int i = 0; i < n; i++) {
        struct cpu_result *r = &f->res[i];
        r->cpu = ids[i];
        running_stats_init(&r->latency);
        running_stats_init(&r->period);
        running_stats_init(&r->exec);
        running_stats_init(&r->response);
        latency_hist_init(&r->hist);
        for (int k = 0; k < 1000; k++)
            add_sample(r, 2000 + (k % 50) * 10 + i);
        r->missed = (uint64_t)(i % 3);
        f->ptr[i] = r;
        f->live[i] = (struct live_cpu){.cpu = ids[i], .current_ns = 2100, .r = r};
        f->cpus.cpu[i] = ids[i];
    }
    f->cpus.count = n;
    if (plant) {
        for (int k = 0; k < TEXT_MANY_WORST; k++) {
            add_sample(&f->res[worst_max[k]], (1500 - 100 * k) * NS_PER_US);
            for (int j = 0; j < 50; j++)
                add_sample(&f->res[worst_p99[k]], (200 - 10 * k) * NS_PER_US);
        }
        add_sample(&f->res[ninth_max], 700 * NS_PER_US);
        for (int j = 0; j < 50; j++)
            add_sample(&f->res[ninth_p99], 100 * NS_PER_US);
    }
    struct run_report *rep = &f->rep;
    rep->ncpu = n;
    rep->cpu = f->ptr;
    rep->cpus = &f->cpus;
    rep->tolerance_ns = -1;
    rep->all_hist = &f->all[0];
    rep->all_exec_hist = &f->all[1];
    rep->all_response_hist = &f->all[2];
    run_report_merge(rep);
    f->frame = (struct live_frame){
        .elapsed_s = 3, .total_s = 10, .cpus = f->live, .ncpu = n, .control_task = false};
}

static void run_fixture_free(struct run_fixture *f)
{
    free(f->res);
    free(f->ptr);
    free(f->all);
    free(f->live);
}

static void many_ids(int *ids)
{
    for (int i = 0; i < MANY; i++)
        ids[i] = i;
}

static void test_top_keeps_the_largest_in_order_and_ties_first_come(void **state)
{
    (void)state;
    struct text_many_top t;
    text_many_top_init(&t, true);
    for (int i = 0; i < 100; i++)
        text_many_top_add(&t, i, (double)(i % 25));
    text_many_top_add(&t, 100, NAN);
    assert_int_equal(t.n, TEXT_MANY_WORST);
    /* the four 24s, then the four 23s, each in the order added */
    static const int want[TEXT_MANY_WORST] = {24, 49, 74, 99, 23, 48, 73, 98};
    for (int k = 0; k < TEXT_MANY_WORST; k++)
        assert_int_equal(t.idx[k], want[k]);
    text_many_top_init(&t, false);
    for (int i = 0; i < 5; i++)
        text_many_top_add(&t, i, 10.0 - i);
    assert_int_equal(t.n, 5);
    assert_int_equal(t.idx[0], 4);
    assert_int_equal(t.idx[4], 0);
}

static void test_bands_have_a_character_each(void **state)
{
    (void)state;
    assert_int_equal(text_many_band(-1), -1);
    assert_int_equal(text_many_band(0), 0);
    assert_int_equal(text_many_band(10 * NS_PER_US - 1), 0);
    assert_int_equal(text_many_band(10 * NS_PER_US), 1);
    assert_int_equal(text_many_band(99 * NS_PER_US), 2);
    assert_int_equal(text_many_band(999 * NS_PER_US), 3);
    assert_int_equal(text_many_band(NS_PER_S), 4);
    char seen[TEXT_MANY_BANDS + 1] = {0};
    for (int b = -1; b < TEXT_MANY_BANDS; b++) {
        char c = text_many_band_char(b);
        assert_null(strchr(seen, c));
        if (b >= 0)
            seen[b] = c;
    }
}

static void test_live_view_at_256_cpus_fits_and_names_the_worst(void **state)
{
    (void)state;
    int ids[MANY];
    many_ids(ids);
    struct run_fixture f;
    run_fixture_init(&f, MANY, ids, true);
    struct text t;
    int lines = live_view_draw(text_open(&t), &f.frame, 0);
    const char *out = text_close(&t);
    assert_int_equal(lines, count_lines(out));
    assert_true(lines < 40);
    assert_fits_100_columns(out);
    assert_non_null(strstr(out, "\033[32m")); /* the strip is coloured on a terminal */
    char *plain = strip_ansi(out);
    const char *all = line_starting(plain, "  all ", NULL);
    assert_non_null(all);
    char want_all[64];
    snprintf(want_all, sizeof want_all, "  all %10llu", (unsigned long long)f.rep.all_samples);
    assert_memory_equal(all, want_all, strlen(want_all));
    assert_non_null(strstr(all, "1500.000")); /* the max of every CPU */
    /* the p99 of the merged occupied buckets is that of the whole merge */
    char p99[16];
    snprintf(p99, sizeof p99, " %10.3f ",
             (double)latency_hist_percentile(f.rep.all_hist, 99) / 1000.0);
    assert_non_null(strstr(all, p99));
    assert_non_null(strstr(plain, "256 CPUs: 256 measuring, 0 waiting\n"));
    assert_rows_name(plain, "worst 8 by max:", worst_max, TEXT_MANY_WORST);
    assert_rows_name(plain, "worst 8 by p99:", worst_p99, TEXT_MANY_WORST);
    char cells[MANY + 8];
    assert_int_equal(strip_cells(plain, "  max latency per CPU:", cells, MANY + 8), MANY);
    assert_int_equal(cells[17], '#');  /* 1500 us */
    assert_int_equal(cells[200], '#'); /* 1400 us */
    assert_int_equal(cells[42], '*');  /* 900 us */
    assert_int_equal(cells[5], '*');   /* 200 us */
    assert_int_equal(cells[0], '.');
    free(plain);
    free(t.buf);
    run_fixture_free(&f);
}

static void test_live_view_counts_waiting_cpus_and_leaves_them_out(void **state)
{
    (void)state;
    int ids[MANY];
    many_ids(ids);
    struct run_fixture f;
    run_fixture_init(&f, MANY, ids, false);
    for (int i = 100; i < MANY; i++) {
        running_stats_init(&f.res[i].latency);
        latency_hist_init(&f.res[i].hist);
        f.res[i].samples = 0;
    }
    struct text t;
    int lines = live_view_draw(text_open(&t), &f.frame, 0);
    const char *out = text_close(&t);
    assert_int_equal(lines, count_lines(out));
    assert_fits_100_columns(out);
    char *plain = strip_ansi(out);
    assert_non_null(strstr(plain, "256 CPUs: 100 measuring, 156 waiting\n"));
    char cells[MANY];
    assert_int_equal(strip_cells(plain, "  max latency per CPU:", cells, MANY), MANY);
    assert_int_equal(cells[99], '.');
    assert_int_equal(cells[100], '?');
    free(plain);
    free(t.buf);
    run_fixture_free(&f);
}

static void test_summary_at_256_cpus_collapses_to_all_and_the_worst_8(void **state)
{
    (void)state;
    int ids[MANY];
    many_ids(ids);
    struct run_fixture f;
    run_fixture_init(&f, MANY, ids, true);
    f.rep.tolerance_ns = 100 * NS_PER_US; /* the widest row: over-tol */
    struct text t;
    text_summary(text_open(&t), &f.rep);
    const char *out = text_close(&t);
    assert_fits_100_columns(out);
    assert_non_null(line_starting(out, "  all ", NULL));
    assert_rows_name(out, "worst 8 of 256 CPUs by max (p90 with --per-cpu)", worst_max,
                     TEXT_MANY_WORST);
    assert_non_null(strstr(out, "\n248 more CPUs: --per-cpu prints all\n"));
    assert_null(strstr(out, " p90 "));
    free(t.buf);
    run_fixture_free(&f);
}

static void test_summary_with_per_cpu_has_every_cpu_row(void **state)
{
    (void)state;
    int ids[MANY];
    many_ids(ids);
    struct run_fixture f;
    run_fixture_init(&f, MANY, ids, true);
    f.rep.per_cpu = true;
    struct text t;
    text_summary(text_open(&t), &f.rep);
    const char *out = text_close(&t);
    int rows = 0;
    for (int i = 0; i < MANY; i++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "%5d %10llu", i, (unsigned long long)f.res[i].samples);
        rows += line_starting(out, prefix, NULL) != NULL;
    }
    assert_int_equal(rows, MANY);
    assert_non_null(line_starting(out, "  all ", NULL));
    assert_null(strstr(out, "more CPUs"));
    assert_non_null(strstr(out, "p90"));
    free(t.buf);
    run_fixture_free(&f);
}

/* At 16 CPUs, the limit, every row as always; at 17 the collapse. */
static void test_summary_collapses_only_above_16_cpus(void **state)
{
    (void)state;
    int ids[MANY];
    many_ids(ids);
    struct run_fixture f;
    run_fixture_init(&f, TEXT_MANY_MAX_ROWS, ids, false);
    struct text t;
    text_summary(text_open(&t), &f.rep);
    const char *out = text_close(&t);
    assert_null(strstr(out, "worst"));
    assert_non_null(line_starting(out, "   15 ", NULL));
    free(t.buf);
    run_fixture_free(&f);
    run_fixture_init(&f, TEXT_MANY_MAX_ROWS + 1, ids, false);
    text_summary(text_open(&t), &f.rep);
    out = text_close(&t);
    assert_non_null(strstr(out, "worst 8 of 17 CPUs by max"));
    assert_non_null(strstr(out, "9 more CPUs: --per-cpu prints all\n"));
    free(t.buf);
    run_fixture_free(&f);
}

/* What text_summary and live_view_draw printed for this 2-CPU run before
 * the collapse existed (captured from the code as it was). */
static const char two_cpu_summary[] =
    "\n"
    "Latency (µs)\n"
    "  CPU    samples  missed        min        p50        p90        p99      p99.9        m"
    "ax       mean\n"
    "    1       1000       0      2.000      2.247      2.439      2.487      2.487      2.4"
    "90      2.245\n"
    "    3       1000       1      2.001      2.247      2.439      2.487      2.487      2.4"
    "91      2.246\n"
    "  all       2000       1      2.000      2.247      2.439      2.487      2.487      2.4"
    "91      2.245\n"
    "\n"
    "Histogram, all CPUs (log scale)\n"
    "           2-4 µs       2000 |##################################################\n";

static const char two_cpu_live[] =
    "[#########.....................]    3.0 s elapsed,    7.0 s left\033[K\n"
    "  CPU    samples    current        min       mean        p99        max   missed  (µs)"
    "\033[K\n"
    "    1       1000      2.100      2.000      2.245      2.487      2.490        0\033[K\n"
    "    3       1000      2.100      2.001      2.246      2.487      2.491        1\033[K\n";

static void test_two_cpus_render_exactly_as_before(void **state)
{
    (void)state;
    static const int ids[2] = {1, 3};
    struct run_fixture f;
    run_fixture_init(&f, 2, ids, false);
    struct text t;
    text_summary(text_open(&t), &f.rep);
    assert_string_equal(text_close(&t), two_cpu_summary);
    free(t.buf);
    assert_int_equal(live_view_draw(text_open(&t), &f.frame, 0), 4);
    assert_string_equal(text_close(&t), two_cpu_live);
    free(t.buf);
    live_plain_lines(text_open(&t), &f.frame);
    assert_string_equal(
        text_close(&t),
        "t=3.0s cpu=1 samples=1000 missed=0 min=2.000us mean=2.245us p99=2.487us max=2.490us\n"
        "t=3.0s cpu=3 samples=1000 missed=1 min=2.001us mean=2.246us p99=2.487us max=2.491us\n");
    free(t.buf);
    run_fixture_free(&f);
}

/* A missed period is a wake-up's: the latency table has the column, the
 * execution and response tables (the same count again) do not. */
static void test_missed_is_a_column_of_the_latency_table_only(void **state)
{
    (void)state;
    static const int ids[2] = {1, 3};
    struct run_fixture f;
    run_fixture_init(&f, 2, ids, false);
    struct latency_hist *h = calloc(4, sizeof *h);
    assert_non_null(h);
    for (int i = 0; i < 2; i++) {
        struct cpu_result *r = &f.res[i];
        r->exec_hist = &h[2 * i];
        r->response_hist = &h[2 * i + 1];
        latency_hist_init(r->exec_hist);
        latency_hist_init(r->response_hist);
        for (int k = 0; k < 1000; k++) {
            running_stats_add(&r->exec, 50000);
            latency_hist_add(r->exec_hist, 50000);
            running_stats_add(&r->response, 52000);
            latency_hist_add(r->response_hist, 52000);
        }
    }
    f.rep.control_task = true;
    run_report_merge(&f.rep);
    struct text t;
    text_summary(text_open(&t), &f.rep);
    const char *out = text_close(&t);
    const char *lat = strstr(out, "Latency (µs)\n"), *exec = strstr(out, "Execution time (µs)\n"),
               *resp = strstr(out, "Response time (µs)");
    assert_true(lat && exec && resp && lat < exec && exec < resp);
    assert_non_null(strstr(lat, "\n  CPU    samples  missed        min"));
    assert_true(strstr(lat, "missed") < exec);
    assert_non_null(strstr(exec, "\n  CPU    samples        min        p50"));
    assert_non_null(strstr(exec, "\n    3       1000     50.000     50.000"));
    assert_non_null(strstr(resp, "\n  CPU    samples        min        p50"));
    assert_null(strstr(exec, "missed"));
    free(t.buf);
    free(h);
    run_fixture_free(&f);
}

/* Page faults of the measuring loops: summed over the CPUs, unknown when
 * one CPU's is, and warned about in the summary only when there were some. */
static void test_summary_warns_of_page_faults_in_the_loops(void **state)
{
    (void)state;
    static const int ids[2] = {1, 3};
    struct run_fixture f;
    run_fixture_init(&f, 2, ids, false);
    f.res[0].page_faults = 2;
    f.res[1].page_faults = 3;
    f.rep.memory_locked = false;
    run_report_merge(&f.rep);
    assert_int_equal(f.rep.all_page_faults, 5);
    struct text t;
    text_summary(text_open(&t), &f.rep);
    const char *out = text_close(&t);
    assert_non_null(strstr(out, "warning: the measuring threads took 5 page faults in their loops "
                                "(memory not locked"));
    free(t.buf);
    f.rep.memory_locked = true;
    text_summary(text_open(&t), &f.rep);
    out = text_close(&t);
    assert_non_null(strstr(out, "took 5 page faults in their loops; each is latency"));
    free(t.buf);
    f.res[1].page_faults = -1;
    run_report_merge(&f.rep);
    assert_int_equal(f.rep.all_page_faults, -1);
    f.res[0].page_faults = f.res[1].page_faults = 0;
    run_report_merge(&f.rep);
    assert_int_equal(f.rep.all_page_faults, 0);
    text_summary(text_open(&t), &f.rep);
    assert_null(strstr(text_close(&t), "page faults"));
    free(t.buf);
    run_fixture_free(&f);
}

/* Pipes keep one line per CPU, also at 256 CPUs: programs read them. */
static void test_plain_lines_stay_one_per_cpu_at_256_cpus(void **state)
{
    (void)state;
    int ids[MANY];
    many_ids(ids);
    struct run_fixture f;
    run_fixture_init(&f, MANY, ids, true);
    struct text t;
    live_plain_lines(text_open(&t), &f.frame);
    const char *out = text_close(&t);
    assert_int_equal(count_lines(out), MANY);
    assert_non_null(strstr(out, "t=3.0s cpu=255 samples=1001 "));
    free(t.buf);
    run_fixture_free(&f);
}

/* ---- a synthetic noise run ---- */

struct noise_fixture {
    int n;
    struct noise_slot *slot;
    struct noise_report_cpu *cpu;
    struct spike *gap;
    struct latency_hist *all;
    struct noise_live_cpu *live;
    struct noise_config cfg;
    struct noise_report rep;
};

static void noise_fixture_init(struct noise_fixture *f, int n, const int *ids)
{
    memset(f, 0, sizeof *f);
    f->n = n;
    f->slot = aligned_alloc(64, (size_t)n * sizeof *f->slot);
    f->cpu = calloc((size_t)n, sizeof *f->cpu);
    f->gap = calloc((size_t)n, sizeof *f->gap);
    f->all = calloc(1, sizeof *f->all);
    f->live = calloc((size_t)n, sizeof *f->live);
    assert_true(f->slot && f->cpu && f->gap && f->all && f->live);
    memset(f->slot, 0, (size_t)n * sizeof *f->slot);
    struct noise_report *rep = &f->rep;
    f->cfg = (struct noise_config){.n = n, .duration_ns = 10 * NS_PER_S, .threshold_ns = 1000};
    rep->cfg = &f->cfg;
    rep->n = n;
    rep->cpu = f->cpu;
    rep->all_hist = f->all;
    rep->method = "window";
    rep->elapsed_ns = 10 * NS_PER_S;
    rep->all_floor_ns = INT64_MAX;
    running_stats_init(&rep->all_stats);
    latency_hist_init(rep->all_hist);
    for (int i = 0; i < n; i++) {
        struct noise_slot *s = &f->slot[i];
        s->cpu = ids[i];
        s->iterations = 1000000;
        s->floor_ns = 20;
        s->measured_ns = 10 * NS_PER_S;
        s->slices = 1;
        running_stats_init(&s->stats);
        latency_hist_init(&s->hist);
        int64_t longest = 3000 + i;
        for (int k = 0; k < TEXT_MANY_WORST; k++)
            if (worst_max[k] == i)
                longest = (1500 - 100 * k) * NS_PER_US;
        for (int k = 0; k < 100; k++) {
            int64_t g = k == 99 ? longest : 2000 + k;
            s->gaps++;
            s->noise_ns += g;
            running_stats_add(&s->stats, g);
            latency_hist_add(&s->hist, g);
        }
        s->max_gap_end_ns = NS_PER_S + i;
        f->gap[i] = (struct spike){.cpu = ids[i], .wake_ns = NS_PER_S, .latency_ns = longest};
        f->cpu[i] = (struct noise_report_cpu){
            .slot = s, .largest = &f->gap[i], .nlargest = 1, .steal_pct = NAN, .smi = -1};
        rep->all_noise_ns += s->noise_ns;
        rep->all_measured_ns += s->measured_ns;
        rep->all_gaps += s->gaps;
        rep->all_floor_ns = s->floor_ns < rep->all_floor_ns ? s->floor_ns : rep->all_floor_ns;
        running_stats_merge(&rep->all_stats, &s->stats);
        latency_hist_merge(rep->all_hist, &s->hist);
        f->live[i] = (struct noise_live_cpu){.cpu = ids[i],
                                             .gaps = s->gaps,
                                             .noise_ns = s->noise_ns,
                                             .max_ns = s->stats.max,
                                             .last_window_pct = 0.5};
    }
}

static void noise_fixture_free(struct noise_fixture *f)
{
    free(f->slot);
    free(f->cpu);
    free(f->gap);
    free(f->all);
    free(f->live);
}

static void test_noise_summary_at_256_cpus_collapses(void **state)
{
    (void)state;
    int ids[MANY];
    many_ids(ids);
    struct noise_fixture f;
    noise_fixture_init(&f, MANY, ids);
    struct text t;
    text_noise_summary(text_open(&t), &f.rep);
    const char *out = text_close(&t);
    assert_fits_100_columns(out);
    assert_non_null(line_starting(out, "all ", NULL));
    assert_rows_name(out, "worst 8 of 256 CPUs by longest gap (every CPU: --per-cpu)", worst_max,
                     TEXT_MANY_WORST);
    assert_non_null(strstr(out, "\n248 more CPUs: --per-cpu prints all\n"));
    /* the longest gaps of every CPU: the planted ones, longest first */
    const char *p = NULL;
    assert_non_null(line_starting(out, "longest gaps (of every CPU):", &p));
    for (int k = 0; k < TEXT_MANY_WORST; k++) {
        int cpu = -1;
        assert_int_equal(sscanf(p, "  CPU %d", &cpu), 1);
        assert_int_equal(cpu, worst_max[k]);
        p = strchr(p, '\n') + 1;
    }
    assert_int_equal(*p, '\0');
    free(t.buf);
    f.rep.per_cpu = true;
    text_noise_summary(text_open(&t), &f.rep);
    out = text_close(&t);
    int rows = 0;
    for (int i = 0; i < MANY; i++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "%-4d ", i);
        rows += line_starting(out, prefix, NULL) != NULL;
    }
    assert_int_equal(rows, MANY);
    assert_null(strstr(out, "more CPUs"));
    free(t.buf);
    noise_fixture_free(&f);
}

static void test_noise_live_at_256_cpus_fits_with_a_strip(void **state)
{
    (void)state;
    int ids[MANY];
    many_ids(ids);
    struct noise_fixture f;
    noise_fixture_init(&f, MANY, ids);
    struct text t;
    int lines =
        text_noise_live(text_open(&t), f.live, MANY, 3 * NS_PER_S, 3 * NS_PER_S, 10 * NS_PER_S, 0);
    const char *out = text_close(&t);
    assert_int_equal(lines, count_lines(out));
    assert_fits_100_columns(out);
    char *plain = strip_ansi(out);
    assert_non_null(line_starting(plain, "  all ", NULL));
    assert_rows_name(plain, "worst 8 by longest gap:", worst_max, TEXT_MANY_WORST);
    assert_non_null(line_starting(plain, "worst 8 by noise:", NULL));
    char cells[MANY + 8];
    assert_int_equal(strip_cells(plain, "  longest gap per CPU:", cells, MANY + 8), MANY);
    assert_int_equal(cells[17], '#');
    assert_int_equal(cells[1], '.');
    free(plain);
    free(t.buf);
    noise_fixture_free(&f);
}

/* At 2 CPUs the noise table is what it was. */
static void test_noise_two_cpus_render_as_before(void **state)
{
    (void)state;
    static const int ids[2] = {1, 3};
    struct noise_fixture f;
    noise_fixture_init(&f, 2, ids);
    struct text t;
    text_noise_summary(text_open(&t), &f.rep);
    assert_string_equal(
        text_close(&t),
        "\n"
        "noise over 10 s\n"
        "CPU       noise     share     gaps    floor       p50       p99    p99.99       max    m"
        "ax at\n"
        "1    205.851 us   0.0021%      100    20 ns  2.055 us  2.103 us      3 us      3 us    1"
        ".000s\n"
        "3    205.852 us   0.0021%      100    20 ns  2.055 us  2.103 us  3.001 us  3.001 us    1"
        ".000s\n"
        "\n"
        "longest gaps:\n"
        "  CPU 1   at    1.0000 s  3 us     \n"
        "  CPU 3   at    1.0000 s  3.001 us \n");
    free(t.buf);
    assert_int_equal(
        text_noise_live(text_open(&t), f.live, 2, 3 * NS_PER_S, 3 * NS_PER_S, 10 * NS_PER_S, 0), 4);
    assert_string_equal(text_close(&t),
                        "[#########.....................]    3.0 s elapsed,    7.0 s left\033[K\n"
                        "  CPU       gaps      noise_%     window_%       max_us\033[K\n"
                        "    1        100       0.0069       0.5000        3.000\033[K\n"
                        "    3        100       0.0069       0.5000        3.001\033[K\n");
    free(t.buf);
    noise_fixture_free(&f);
}

/* ---- a synthetic c2c matrix ---- */

static void test_c2c_at_256_cpus_shows_groups_and_the_extreme_pairs(void **state)
{
    (void)state;
    int ids[MANY];
    many_ids(ids);
    struct c2c_matrix m;
    assert_int_equal(c2c_matrix_init(&m, ids, MANY), 0);
    for (int i = 0; i < MANY; i++)
        for (int k = 0; k < MANY; k++) {
            struct c2c_pair *p = c2c_matrix_at(&m, i, k);
            if (i == k)
                continue;
            p->attempted = true;
            p->rounds_done = 3;
            p->median_ns = 50 + (i * 7 + k * 13) % 100;
            p->min_ns = p->median_ns - 1;
        }
    /* planted: the slowest 8 (5000 ns down), the fastest 8 (1 ns up) */
    for (int j = 0; j < TEXT_MANY_WORST; j++) {
        c2c_matrix_at(&m, 10 + j, 20)->median_ns = 5000 - 100 * j;
        c2c_matrix_at(&m, 30, 40 + j)->median_ns = 1 + j;
    }
    struct timebase tb = {.tsc = false, .hz = 1e9, .ns_per_tick = 1};
    struct c2c_config cfg = {.rounds = 3, .round_trips = 100, .tb = &tb};
    struct c2c_result r = {.cfg = &cfg, .m = &m, .duration_s = 60};
    r.rep.pairs_done = (size_t)MANY * (MANY - 1);
    r.ngroups = c2c_group_stats(&m, r.group);
    assert_true(r.ngroups > 0);
    struct text t;
    text_c2c_print(text_open(&t), &r, true);
    const char *out = text_close(&t);
    assert_fits_100_columns(out);
    assert_null(strstr(out, "from\\to"));
    assert_non_null(strstr(out, "256 CPUs: the matrix with --per-cpu"));
    assert_non_null(strstr(out, "65280 of 65280 pairs measured"));
    const char *p = NULL;
    assert_non_null(line_starting(out, "slowest 8 of 65280 measured pairs, by median:", &p));
    p = strchr(p, '\n') + 1; /* the column header */
    for (int j = 0; j < TEXT_MANY_WORST; j++) {
        int from, to;
        assert_int_equal(sscanf(p, "%d %d", &from, &to), 2);
        assert_int_equal(from, 10 + j);
        assert_int_equal(to, 20);
        p = strchr(p, '\n') + 1;
    }
    assert_non_null(line_starting(out, "fastest 8 of 65280 measured pairs, by median:", &p));
    p = strchr(p, '\n') + 1;
    for (int j = 0; j < TEXT_MANY_WORST; j++) {
        int from, to;
        assert_int_equal(sscanf(p, "%d %d", &from, &to), 2);
        assert_int_equal(from, 30);
        assert_int_equal(to, 40 + j);
        p = strchr(p, '\n') + 1;
    }
    free(t.buf);
    /* --per-cpu: the matrix, a row per CPU */
    text_c2c_show(text_open(&t), &r, false, true);
    out = text_close(&t);
    assert_non_null(strstr(out, "from\\to"));
    assert_null(strstr(out, "slowest"));
    int rows = 0;
    for (int i = 0; i < MANY; i++) {
        char prefix[16];
        snprintf(prefix, sizeof prefix, "%7d ", i);
        rows += line_starting(out, prefix, NULL) != NULL;
    }
    assert_int_equal(rows, MANY);
    free(t.buf);
    c2c_matrix_free(&m);
}

static struct c2c_params c2c_params;

CLI_DEFINE_PARSE(c2c_parse_args, &c2c_params)

static void test_c2c_per_cpu_option_asks_for_the_matrix(void **state)
{
    (void)state;
    struct cli_capture cap;
    assert_int_equal(parse("c2c", &cap), -1);
    assert_false(c2c_params.per_cpu);
    assert_int_equal(parse("c2c --per-cpu -a 0-1", &cap), -1);
    assert_string_equal(cap.err_text, "");
    assert_true(c2c_params.per_cpu);
    assert_int_equal(parse("c2c --help", &cap), 0);
    assert_non_null(strstr(cap.out_text, "--per-cpu           the matrix also above 16 CPUs"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_top_keeps_the_largest_in_order_and_ties_first_come),
        cmocka_unit_test(test_bands_have_a_character_each),
        cmocka_unit_test(test_live_view_at_256_cpus_fits_and_names_the_worst),
        cmocka_unit_test(test_live_view_counts_waiting_cpus_and_leaves_them_out),
        cmocka_unit_test(test_summary_at_256_cpus_collapses_to_all_and_the_worst_8),
        cmocka_unit_test(test_summary_with_per_cpu_has_every_cpu_row),
        cmocka_unit_test(test_summary_collapses_only_above_16_cpus),
        cmocka_unit_test(test_two_cpus_render_exactly_as_before),
        cmocka_unit_test(test_missed_is_a_column_of_the_latency_table_only),
        cmocka_unit_test(test_summary_warns_of_page_faults_in_the_loops),
        cmocka_unit_test(test_plain_lines_stay_one_per_cpu_at_256_cpus),
        cmocka_unit_test(test_noise_summary_at_256_cpus_collapses),
        cmocka_unit_test(test_noise_live_at_256_cpus_fits_with_a_strip),
        cmocka_unit_test(test_noise_two_cpus_render_as_before),
        cmocka_unit_test(test_c2c_at_256_cpus_shows_groups_and_the_extreme_pairs),
        cmocka_unit_test(test_c2c_per_cpu_option_asks_for_the_matrix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
