/*
 * `jitterlab c2c` below the command layer: the best round of a pair and its
 * one-way figures, the groups of a matrix on a synthetic two-package
 * machine (SMT pairs, a shared LLC, two LLCs in one package, a CPU the
 * topology lacks), the summary per group, the colour bands, the JSON, text
 * and CSV writers on that matrix, and a short live measurement of CPUs 0
 * and 1 (plus one stopped before its first pair, in a child process).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/stop.h"
#include "crosscpu/c2c.h"
#include "crosscpu/c2c_matrix.h"
#include "out/json_c2c.h"
#include "out/text_c2c.h"
#include "sys/read_notes.h"
#include "test_fixture.h"

/* CPUs 0-7. Package 0: core 0 = CPUs 0,1 and core 1 = CPUs 2,3, one LLC
 * (id 0). Package 1: core 0 = CPUs 4,5 with LLC 1, core 1 = CPUs 6,7 with
 * LLC 2. */
static void synthetic_topology(struct cpu_topology *t, struct cpu_siblings cpu[8])
{
    memset(t, 0, sizeof *t);
    for (int c = 0; c < 8; c++) {
        cpu[c] = (struct cpu_siblings){
            .cpu = c, .core_id = (c / 2) % 2, .package_id = c / 4, .llc_level = 3};
        snprintf(cpu[c].thread_siblings, sizeof cpu[c].thread_siblings, "%d-%d", c & ~1,
                 (c & ~1) + 1);
        cpu[c].llc_id = c < 4 ? 0 : c < 6 ? 1 : 2;
    }
    t->ncpu = 8;
    t->cpu = cpu;
}

/* The one-way median a synthetic pair gets: its group's base plus the
 * "from" CPU, so that min, median and max of a group are known. */
static double base_of(enum cpu_pair_group g)
{
    switch (g) {
    case CPU_PAIR_SMT:
        return 10;
    case CPU_PAIR_SAME_LLC:
        return 40;
    case CPU_PAIR_OTHER_LLC:
        return 70;
    case CPU_PAIR_OTHER_PACKAGE:
        return 120;
    default:
        return 500;
    }
}

static void fill_synthetic(struct c2c_matrix *m)
{
    for (int i = 0; i < m->ncpu; i++)
        for (int k = 0; k < m->ncpu; k++) {
            struct c2c_pair *p = c2c_matrix_at(m, i, k);
            if (i == k)
                continue;
            p->attempted = true;
            p->rounds_done = 3;
            p->median_ns = base_of(p->group) + p->from;
            p->min_ns = p->median_ns - 5 + p->to;
        }
}

static void test_best_round_is_the_lowest_median_of_the_done(void **state)
{
    (void)state;
    struct c2c_round r[] = {
        {true, 100, 300}, {false, 10, 100}, /* timed out: never chosen */
        {true, 50, 200},  {true, 40, 200},  /* same median, lower min: chosen */
        {true, 30, 250},
    };
    assert_int_equal(c2c_best_round(r, 5), 3);
    assert_int_equal(c2c_best_round(r, 3), 2);
    assert_int_equal(c2c_best_round(r, 1), 0);
    struct c2c_round none[] = {{false, 1, 1}, {false, 2, 2}};
    assert_int_equal(c2c_best_round(none, 2), -1);
    assert_int_equal(c2c_best_round(none, 0), -1);
    /* equal rounds: the earlier */
    struct c2c_round same[] = {{true, 5, 9}, {true, 5, 9}};
    assert_int_equal(c2c_best_round(same, 2), 0);
}

static void test_pair_figures_are_half_the_round_trip_of_the_best_round(void **state)
{
    (void)state;
    struct c2c_pair p = {.from = 0, .to = 1};
    struct c2c_round r[] = {{true, 300, 1000}, {false, 0, 0}, {true, 240, 900}};
    c2c_pair_finish(&p, r, 3, 0.5); /* 2 GHz ticks */
    assert_int_equal(p.rounds_done, 2);
    assert_true(p.median_ns == 225.0); /* 900 ticks * 0.5 ns / 2 */
    assert_true(p.min_ns == 60.0);     /* the best round's min, not the lowest */
    /* rounded to 0.1 ns */
    struct c2c_round odd[] = {{true, 333, 1001}};
    c2c_pair_finish(&p, odd, 1, 1.0 / 3.0);
    assert_int_equal(p.rounds_done, 1);
    assert_true(fabs(p.median_ns - 166.8) < 1e-9);
    assert_true(fabs(p.min_ns - 55.5) < 1e-9);
    struct c2c_round lost[] = {{false, 1, 1}, {false, 1, 1}};
    c2c_pair_finish(&p, lost, 2, 1.0);
    assert_int_equal(p.rounds_done, 0);
    assert_true(isnan(p.median_ns) && isnan(p.min_ns));
}

static void test_matrix_groups_follow_the_topology(void **state)
{
    (void)state;
    struct cpu_topology t;
    struct cpu_siblings cpu[8];
    synthetic_topology(&t, cpu);
    int cpus[] = {0, 1, 2, 3, 4, 5, 6, 7, 9}; /* CPU 9: not in the topology */
    struct c2c_matrix m;
    assert_int_equal(c2c_matrix_init(&m, cpus, 9), 0);
    c2c_matrix_set_groups(&m, &t);
    assert_int_equal(c2c_matrix_at(&m, 0, 0)->group, CPU_PAIR_SAME);
    assert_int_equal(c2c_matrix_at(&m, 0, 1)->group, CPU_PAIR_SMT);
    assert_int_equal(c2c_matrix_at(&m, 1, 0)->group, CPU_PAIR_SMT);
    assert_int_equal(c2c_matrix_at(&m, 0, 2)->group, CPU_PAIR_SAME_LLC);
    assert_int_equal(c2c_matrix_at(&m, 3, 1)->group, CPU_PAIR_SAME_LLC);
    assert_int_equal(c2c_matrix_at(&m, 4, 6)->group, CPU_PAIR_OTHER_LLC);
    assert_int_equal(c2c_matrix_at(&m, 6, 7)->group, CPU_PAIR_SMT);
    assert_int_equal(c2c_matrix_at(&m, 0, 4)->group, CPU_PAIR_OTHER_PACKAGE);
    assert_int_equal(c2c_matrix_at(&m, 7, 3)->group, CPU_PAIR_OTHER_PACKAGE);
    assert_int_equal(c2c_matrix_at(&m, 8, 0)->group, CPU_PAIR_UNKNOWN);
    assert_int_equal(c2c_matrix_at(&m, 2, 8)->group, CPU_PAIR_UNKNOWN);
    /* row = from, column = to */
    assert_int_equal(c2c_matrix_at(&m, 2, 5)->from, 2);
    assert_int_equal(c2c_matrix_at(&m, 2, 5)->to, 5);
    assert_int_equal(c2c_matrix_at(&m, 8, 1)->from, 9);
    /* unmeasured until measured */
    assert_false(c2c_matrix_at(&m, 0, 1)->attempted);
    assert_true(isnan(c2c_matrix_at(&m, 0, 1)->median_ns));
    c2c_matrix_free(&m);
}

static void test_group_stats_summarise_each_group_present(void **state)
{
    (void)state;
    struct cpu_topology t;
    struct cpu_siblings cpu[8];
    synthetic_topology(&t, cpu);
    int cpus[] = {0, 1, 2, 3, 4, 5, 6, 7};
    struct c2c_matrix m;
    assert_int_equal(c2c_matrix_init(&m, cpus, 8), 0);
    c2c_matrix_set_groups(&m, &t);
    fill_synthetic(&m);
    /* one pair timed out in every round: counted, without a latency */
    struct c2c_pair *lost = c2c_matrix_at(&m, 7, 0);
    lost->median_ns = lost->min_ns = NAN;
    lost->rounds_done = 0;
    lost->timeouts = 3;
    struct c2c_group_stats g[CPU_PAIR_GROUPS];
    int n = c2c_group_stats(&m, g);
    assert_int_equal(n, 4);
    /* closest first */
    assert_int_equal(g[0].group, CPU_PAIR_SMT);
    assert_int_equal(g[1].group, CPU_PAIR_SAME_LLC);
    assert_int_equal(g[2].group, CPU_PAIR_OTHER_LLC);
    assert_int_equal(g[3].group, CPU_PAIR_OTHER_PACKAGE);
    /* SMT: 8 ordered pairs, from = 0..7: medians 10..17 */
    assert_int_equal(g[0].pairs, 8);
    assert_int_equal(g[0].measured, 8);
    assert_true(g[0].min_ns == 10 && g[0].max_ns == 17);
    assert_true(g[0].median_ns == 13);  /* nearest rank of 8: the 4th */
    assert_true(g[0].best_min_ns == 6); /* 0 -> 1: 10 - 5 + 1 */
    /* same LLC: {0,1} x {2,3} both ways: medians 40, 40, 41, 41, 42, 42, 43, 43 */
    assert_int_equal(g[1].pairs, 8);
    assert_true(g[1].min_ns == 40 && g[1].max_ns == 43 && g[1].median_ns == 41);
    assert_true(g[1].best_min_ns == 37); /* 0 -> 2 */
    /* other LLC in package 1: {4,5} x {6,7} both ways */
    assert_int_equal(g[2].pairs, 8);
    assert_true(g[2].min_ns == 74 && g[2].max_ns == 77);
    /* other package: 32 pairs, one of them without a latency */
    assert_int_equal(g[3].pairs, 32);
    assert_int_equal(g[3].measured, 31);
    assert_int_equal(g[3].timeouts, 3);
    assert_true(g[3].min_ns == 120 && g[3].max_ns == 127);
    assert_true(g[3].best_min_ns == 115 + 4); /* 0 -> 4 */
    c2c_matrix_free(&m);
}

static void test_group_stats_of_an_unmeasured_group_are_nan(void **state)
{
    (void)state;
    int cpus[] = {0, 1};
    struct c2c_matrix m;
    assert_int_equal(c2c_matrix_init(&m, cpus, 2), 0);
    struct c2c_group_stats g[CPU_PAIR_GROUPS];
    assert_int_equal(c2c_group_stats(&m, g), 1);
    assert_int_equal(g[0].group, CPU_PAIR_UNKNOWN);
    assert_int_equal(g[0].pairs, 2);
    assert_int_equal(g[0].measured, 0);
    assert_true(isnan(g[0].min_ns) && isnan(g[0].median_ns) && isnan(g[0].max_ns) &&
                isnan(g[0].best_min_ns));
    c2c_matrix_free(&m);
}

static void test_bands_split_the_log_range(void **state)
{
    (void)state;
    struct c2c_bands b = {10, 160, 4}; /* floors 10, 20, 40, 80 */
    assert_int_equal(c2c_band_of(&b, 10), 0);
    assert_int_equal(c2c_band_of(&b, 5), 0);
    assert_int_equal(c2c_band_of(&b, 15), 0);
    assert_int_equal(c2c_band_of(&b, 25), 1);
    assert_int_equal(c2c_band_of(&b, 50), 2);
    assert_int_equal(c2c_band_of(&b, 100), 3);
    assert_int_equal(c2c_band_of(&b, 160), 3);
    assert_int_equal(c2c_band_of(&b, 1000), 3);
    assert_int_equal(c2c_band_of(&b, NAN), -1);
    assert_true(fabs(c2c_band_floor(&b, 1) - 20) < 1e-9);
    assert_true(fabs(c2c_band_floor(&b, 3) - 80) < 1e-9);
    /* a narrow range: one band */
    struct c2c_bands narrow = {100, 105, 4};
    assert_int_equal(c2c_band_of(&narrow, 105), 0);
    /* from a matrix: the off-diagonal measured medians */
    int cpus[] = {0, 1, 2};
    struct c2c_matrix m;
    assert_int_equal(c2c_matrix_init(&m, cpus, 3), 0);
    c2c_matrix_at(&m, 0, 1)->median_ns = 30;
    c2c_matrix_at(&m, 1, 0)->median_ns = 90;
    c2c_matrix_at(&m, 2, 0)->median_ns = 45;
    c2c_bands_init(&b, &m, 4);
    assert_true(b.lo == 30 && b.hi == 90 && b.nbands == 4);
    c2c_matrix_free(&m);
    assert_int_equal(c2c_matrix_init(&m, cpus, 3), 0);
    c2c_bands_init(&b, &m, 4);
    assert_true(isnan(b.lo) && isnan(b.hi));
    assert_int_equal(c2c_band_of(&b, 50), 0);
    c2c_matrix_free(&m);
}

/* A result of CPUs 0, 1, 4 of the synthetic machine: 0 -> 4 timed out,
 * 4 -> 1 not measured. */
struct fixture {
    struct cpu_topology t;
    struct cpu_siblings cpu[8];
    struct c2c_matrix m;
    struct timebase tb;
    struct c2c_config cfg;
    struct c2c_result r;
};

static void fixture_init(struct fixture *f)
{
    synthetic_topology(&f->t, f->cpu);
    f->cpu[4].llc_id = VALUE_UNKNOWN;
    f->cpu[4].thread_siblings[0] = '\0';
    int cpus[] = {0, 1, 4};
    assert_int_equal(c2c_matrix_init(&f->m, cpus, 3), 0);
    c2c_matrix_set_groups(&f->m, &f->t);
    fill_synthetic(&f->m);
    struct c2c_pair *p = c2c_matrix_at(&f->m, 0, 2);
    p->median_ns = p->min_ns = NAN;
    p->rounds_done = 0;
    p->timeouts = 2;
    p = c2c_matrix_at(&f->m, 2, 1);
    p->median_ns = p->min_ns = NAN;
    p->rounds_done = 0;
    p->attempted = false;
    f->tb = (struct timebase){.tsc = true, .hz = 2e9, .ns_per_tick = 0.5};
    f->cfg = (struct c2c_config){.mode = C2C_CAS,
                                 .round_trips = 100,
                                 .rounds = 2,
                                 .fifo = true,
                                 .priority = 10,
                                 .tb = &f->tb,
                                 .timeout_ns = C2C_TIMEOUT_NS};
    f->r = (struct c2c_result){.cfg = &f->cfg, .m = &f->m, .topo = &f->t, .duration_s = 1.25};
    f->r.rep =
        (struct c2c_report){.realtime = true, .interrupted = true, .pairs_done = 5, .timeouts = 2};
    f->r.ngroups = c2c_group_stats(&f->m, f->r.group);
}

static void test_json_has_the_schema_the_report_reads(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init(&f);
    json_t *doc = json_object();
    json_c2c_fill(doc, &f.r);
    json_t *cfg = json_object_get(doc, "config");
    assert_string_equal(json_string_value(json_object_get(cfg, "mode")), "cas");
    assert_int_equal(json_integer_value(json_object_get(cfg, "round_trips")), 100);
    assert_int_equal(json_integer_value(json_object_get(cfg, "rounds")), 2);
    assert_string_equal(json_string_value(json_object_get(cfg, "policy")), "fifo");
    assert_int_equal(json_integer_value(json_object_get(cfg, "priority")), 10);
    assert_int_equal(json_array_size(json_object_get(cfg, "cpus")), 3);
    assert_string_equal(json_string_value(json_object_get(doc, "clock")), "tsc");
    assert_int_equal(json_integer_value(json_object_get(doc, "tsc_hz")), 2000000000);
    assert_true(json_is_true(json_object_get(doc, "realtime")));
    assert_true(json_is_true(json_object_get(doc, "interrupted")));
    /* topology: unknown values are null */
    json_t *topo = json_object_get(doc, "topology");
    assert_int_equal(json_array_size(topo), 3);
    json_t *t4 = json_array_get(topo, 2);
    assert_int_equal(json_integer_value(json_object_get(t4, "cpu")), 4);
    assert_int_equal(json_integer_value(json_object_get(t4, "package_id")), 1);
    assert_true(json_is_null(json_object_get(t4, "llc_id")));
    assert_true(json_is_null(json_object_get(t4, "thread_siblings")));
    assert_int_equal(json_integer_value(json_object_get(t4, "llc_level")), 3);
    /* pairs: 6 ordered pairs, row-major */
    json_t *pairs = json_object_get(doc, "pairs");
    assert_int_equal(json_array_size(pairs), 6);
    json_t *p01 = json_array_get(pairs, 0), *p04 = json_array_get(pairs, 1);
    assert_string_equal(json_string_value(json_object_get(p01, "group")), "smt-sibling");
    assert_true(json_real_value(json_object_get(p01, "median_ns")) == 10.0);
    assert_int_equal(json_integer_value(json_object_get(p01, "rounds_done")), 3);
    assert_int_equal(json_integer_value(json_object_get(p04, "to")), 4);
    assert_true(json_is_null(json_object_get(p04, "median_ns")));
    assert_int_equal(json_integer_value(json_object_get(p04, "timeouts")), 2);
    /* matrix: null diagonal and unmeasured, row = from */
    json_t *mx = json_object_get(doc, "matrix");
    json_t *med = json_object_get(mx, "median_ns"), *min = json_object_get(mx, "min_ns");
    for (size_t i = 0; i < 3; i++) {
        assert_true(json_is_null(json_array_get(json_array_get(med, i), i)));
        assert_true(json_is_null(json_array_get(json_array_get(min, i), i)));
    }
    assert_true(json_real_value(json_array_get(json_array_get(med, 1), 0)) == 11.0);
    assert_true(json_real_value(json_array_get(json_array_get(min, 1), 0)) == 6.0);
    assert_true(json_is_null(json_array_get(json_array_get(med, 2), 1)));
    /* groups */
    json_t *groups = json_object_get(doc, "groups");
    assert_int_equal(json_array_size(groups), 2);
    json_t *g0 = json_array_get(groups, 0), *g1 = json_array_get(groups, 1);
    assert_string_equal(json_string_value(json_object_get(g0, "group")), "smt-sibling");
    assert_int_equal(json_integer_value(json_object_get(g0, "pairs")), 2);
    assert_string_equal(json_string_value(json_object_get(g1, "group")), "other-package");
    assert_int_equal(json_integer_value(json_object_get(g1, "pairs")), 4);
    assert_int_equal(json_integer_value(json_object_get(g1, "measured")), 2);
    assert_true(json_real_value(json_object_get(g1, "best_min_ns")) == 119);
    json_decref(doc);
    c2c_matrix_free(&f.m);
}

static void capture(const struct c2c_result *r, bool colour, bool csv, char *buf, size_t len)
{
    FILE *fp = tmpfile();
    assert_non_null(fp);
    if (csv)
        c2c_csv_write(fp, r);
    else
        text_c2c_print(fp, r, colour);
    rewind(fp);
    size_t n = fread(buf, 1, len - 1, fp);
    buf[n] = '\0';
    fclose(fp);
}

static void test_text_shows_matrix_topology_and_groups(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init(&f);
    char out[8192];
    capture(&f.r, false, false, out, sizeof out);
    assert_null(strstr(out, "\033["));
    assert_non_null(strstr(out, "mode cas, clock tsc (2000.00 MHz), SCHED_FIFO 10"));
    assert_non_null(strstr(out, "best of 2 rounds of 100 round trips"));
    /* header, then each row: from CPU, cells, | core llc pkg siblings */
    assert_non_null(strstr(out, "from\\to     0     1     4  |  core   llc   pkg  siblings\n"));
    assert_non_null(strstr(out, "      0     -  10.0     x  |     0     0     0  0-1\n"));
    assert_non_null(strstr(out, "      1  11.0     - 121.0  |     0     0     0  0-1\n"));
    assert_non_null(strstr(out, "      4 124.0     .     -  |     0     ?     1  ?\n"));
    assert_non_null(strstr(out, "x: every round of the pair timed out"));
    assert_non_null(strstr(out, ".: not measured (interrupted)"));
    assert_non_null(strstr(out, "smt-sibling         2      10.0"));
    assert_non_null(strstr(out, "other-package       4     121.0"));
    assert_non_null(strstr(out, "5 of 6 pairs measured in 1.2 s, 2 timeouts (interrupted)\n"));
    assert_null(strstr(out, "hypervisor"));
    f.r.duration_s = 0.0456;
    f.r.hypervisor = "KVM";
    capture(&f.r, false, false, out, sizeof out);
    assert_non_null(strstr(out, "5 of 6 pairs measured in 46 ms, 2 timeouts (interrupted)\n"));
    assert_non_null(strstr(out, "under a hypervisor (KVM): the host may move the vCPUs"));
    /* colour: every measured cell banded, a legend */
    capture(&f.r, true, false, out, sizeof out);
    assert_non_null(strstr(out, "\033[32m 10.0\033[0m"));
    assert_non_null(strstr(out, "\033[31m124.0\033[0m"));
    /* no colour for the diagonal nor for a cell without a latency */
    assert_non_null(strstr(out, "      0     - \033[32m 10.0\033[0m     x  |"));
    assert_non_null(strstr(out, "colours: \033[32mgreen\033[0m < "));
    c2c_matrix_free(&f.m);
}

static void test_csv_has_one_row_per_ordered_pair(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init(&f);
    char out[4096];
    capture(&f.r, false, true, out, sizeof out);
    assert_string_equal(out, "from,to,group,min_ns,median_ns,timeouts\n"
                             "0,1,smt-sibling,6.0,10.0,0\n"
                             "0,4,other-package,,,2\n"
                             "1,0,smt-sibling,6.0,11.0,0\n"
                             "1,4,other-package,120.0,121.0,0\n"
                             "4,0,other-package,119.0,124.0,0\n"
                             "4,1,other-package,,,0\n");
    c2c_matrix_free(&f.m);
}

/* The TSC, as on a real run; valgrind has no rdtscp: CLOCK_MONOTONIC there
 * (and its one-thread-at-a-time scheduling turns most rounds into
 * timeouts, which the checks allow). */
static void live_config(struct c2c_config *cfg, struct timebase *tb)
{
    timebase_init(tb, !under_valgrind());
    *cfg = (struct c2c_config){.mode = C2C_LOAD_STORE,
                               .round_trips = 300,
                               .rounds = 2,
                               .fifo = true,
                               .priority = 10,
                               .tb = tb,
                               .timeout_ns = C2C_TIMEOUT_NS};
}

static void test_live_pair_of_cpus_0_and_1(void **state)
{
    (void)state;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        skip();
    struct timebase tb;
    struct c2c_config cfg;
    live_config(&cfg, &tb);
    int cpus[] = {0, 1};
    for (int mode = 0; mode < 2; mode++) {
        cfg.mode = mode ? C2C_CAS : C2C_LOAD_STORE;
        struct c2c_matrix m;
        assert_int_equal(c2c_matrix_init(&m, cpus, 2), 0);
        struct c2c_report rep;
        char err[256];
        assert_int_equal(c2c_measure(&cfg, &m, &rep, err, sizeof err), 0);
        assert_false(rep.interrupted);
        assert_int_equal(rep.pairs_done, 2);
        for (int i = 0; i < 2; i++) {
            const struct c2c_pair *p = c2c_matrix_at(&m, i, 1 - i);
            assert_true(p->attempted);
            /* every round is either done or a timeout */
            assert_int_equal(p->rounds_done + p->timeouts, 2);
            if (p->rounds_done > 0)
                assert_true(isfinite(p->median_ns) && p->median_ns > 0 &&
                            p->min_ns <= p->median_ns && p->min_ns > 0);
        }
        assert_false(c2c_matrix_at(&m, 0, 0)->attempted);
        c2c_matrix_free(&m);
    }
}

static void test_stop_request_before_the_first_pair_measures_nothing(void **state)
{
    (void)state;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        skip();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* the stop flag is the process's: in a child */
        stop_handlers_install();
        raise(SIGTERM);
        struct timebase tb;
        struct c2c_config cfg;
        live_config(&cfg, &tb);
        int cpus[] = {0, 1};
        struct c2c_matrix m;
        struct c2c_report rep;
        char err[256];
        if (c2c_matrix_init(&m, cpus, 2) != 0)
            _exit(10);
        int rc = c2c_measure(&cfg, &m, &rep, err, sizeof err);
        bool none = !c2c_matrix_at(&m, 0, 1)->attempted && !c2c_matrix_at(&m, 1, 0)->attempted;
        c2c_matrix_free(&m); /* valgrind follows the child */
        _exit(rc == 0 && rep.interrupted && rep.pairs_done == 0 && !rep.realtime && none ? 0 : 11);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_mode_names(void **state)
{
    (void)state;
    enum c2c_mode m;
    assert_string_equal(c2c_mode_name(C2C_LOAD_STORE), "load-store");
    assert_string_equal(c2c_mode_name(C2C_CAS), "cas");
    assert_int_equal(c2c_mode_parse("cas", &m), 0);
    assert_int_equal(m, C2C_CAS);
    assert_int_equal(c2c_mode_parse("load-store", &m), 0);
    assert_int_equal(m, C2C_LOAD_STORE);
    assert_int_equal(c2c_mode_parse("store", &m), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_best_round_is_the_lowest_median_of_the_done),
        cmocka_unit_test(test_pair_figures_are_half_the_round_trip_of_the_best_round),
        cmocka_unit_test(test_matrix_groups_follow_the_topology),
        cmocka_unit_test(test_group_stats_summarise_each_group_present),
        cmocka_unit_test(test_group_stats_of_an_unmeasured_group_are_nan),
        cmocka_unit_test(test_bands_split_the_log_range),
        cmocka_unit_test(test_json_has_the_schema_the_report_reads),
        cmocka_unit_test(test_text_shows_matrix_topology_and_groups),
        cmocka_unit_test(test_csv_has_one_row_per_ordered_pair),
        cmocka_unit_test(test_live_pair_of_cpus_0_and_1),
        cmocka_unit_test(test_stop_request_before_the_first_pair_measures_nothing),
        cmocka_unit_test(test_mode_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
