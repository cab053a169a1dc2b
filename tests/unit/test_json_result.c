/*
 * The result document read back through jansson: every fixed field of
 * schema 1 is present with the right type and value, the histogram bins add
 * up to the samples, empty CPUs give nulls, and the file is written
 * atomically (no temporary file left behind).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "out/json_result.h"
#include "out/report.h"

struct fixture {
    struct system_info si;
    struct cpulist cpus;
    struct cpu_result r[2];
    const struct cpu_result *rp[2];
    struct latency_hist all, all_exec, all_response;
    struct interval_stats iv;
    struct run_report rep;
    char *argv[3];
};

static void fill_cpu(struct cpu_result *r, int cpu, int n, int64_t base)
{
    cpu_result_init(r, cpu);
    for (int i = 0; i < n; i++) {
        int64_t v = base + i * 100;
        running_stats_add(&r->latency, v);
        latency_hist_add(&r->hist, v);
        if (i > 0)
            running_stats_add(&r->period, 1000000 + (i % 3) * 10 - 10);
    }
    r->samples = (uint64_t)n;
    r->missed = 2;
    r->max_at_ns = 1500000000;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    strcpy(f->si.hostname, "rtbox");
    strcpy(f->si.kernel, "6.1.0-rt");
    strcpy(f->si.preempt_model, "PREEMPT_RT");
    strcpy(f->si.cpus_online, "0-3");
    f->si.cpu_dma_latency_us = -1;
    f->cpus.count = 2;
    f->cpus.cpu[0] = 2;
    f->cpus.cpu[1] = 3;
    fill_cpu(&f->r[0], 2, 1000, 5000);
    fill_cpu(&f->r[1], 3, 0, 0);
    f->rp[0] = &f->r[0];
    f->rp[1] = &f->r[1];
    f->argv[0] = "run";
    f->argv[1] = "-a";
    f->argv[2] = "2-3";
    struct run_report *rep = &f->rep;
    rep->version = "9.9.9";
    rep->argc = 3;
    rep->argv = f->argv;
    strcpy(rep->started_at, "2026-01-02T03:04:05.000Z");
    rep->duration_s = 1.5;
    rep->interrupted = true;
    rep->system = &f->si;
    rep->interval_ns = 1000000;
    rep->policy = "fifo";
    rep->priority = 90;
    rep->cpus = &f->cpus;
    rep->clock = "monotonic";
    rep->tolerance_ns = 20000;
    rep->budget_ns = -1;
    rep->pm_qos_us = -1;
    rep->ncpu = 2;
    rep->cpu = f->rp;
    rep->all_hist = &f->all;
    rep->all_exec_hist = &f->all_exec;
    rep->all_response_hist = &f->all_response;
    rep->deadline_ns = 1000000;
    f->iv.cpu = 2;
    f->iv.samples = 10;
    running_stats_init(&f->iv.latency);
    running_stats_init(&f->iv.period);
    running_stats_init(&f->iv.error);
    running_stats_init(&f->iv.exec);
    running_stats_add(&f->iv.latency, 7000);
    rep->has_intervals = true;
    rep->intervals = &f->iv;
    rep->interval_count = 1;
    run_report_merge(rep);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

static json_t *write_and_read_back(const struct run_report *rep, char *dir)
{
    char path[300];
    snprintf(path, sizeof(path), "%s/result.json", dir);
    json_t *doc = json_run_result(rep);
    assert_non_null(doc);
    assert_int_equal(json_write_file(doc, path), 0);
    json_decref(doc);
    json_error_t err;
    json_t *back = json_load_file(path, 0, &err);
    assert_non_null(back);
    return back;
}

static void test_json_result_has_schema_1_fixed_fields(void **state)
{
    struct fixture *f = *state;
    char dir[] = "/tmp/jl-json-XXXXXX";
    assert_non_null(mkdtemp(dir));
    json_t *d = write_and_read_back(&f->rep, dir);
    assert_string_equal(json_string_value(json_object_get(d, "tool")), "jitterlab");
    assert_int_equal(json_integer_value(json_object_get(d, "schema")), 1);
    assert_string_equal(json_string_value(json_object_get(d, "kind")), "run");
    assert_string_equal(json_string_value(json_object_get(d, "version")), "9.9.9");
    json_t *argv = json_object_get(d, "argv");
    assert_int_equal(json_array_size(argv), 4);
    assert_string_equal(json_string_value(json_array_get(argv, 0)), "jitterlab");
    assert_string_equal(json_string_value(json_array_get(argv, 3)), "2-3");
    assert_string_equal(json_string_value(json_object_get(d, "started_at")),
                        "2026-01-02T03:04:05.000Z");
    assert_true(json_is_true(json_object_get(d, "interrupted")));
    assert_true(json_real_value(json_object_get(d, "duration_s")) == 1.5);

    json_t *sys = json_object_get(d, "system");
    assert_string_equal(json_string_value(json_object_get(sys, "hostname")), "rtbox");
    assert_string_equal(json_string_value(json_object_get(sys, "preempt_model")), "PREEMPT_RT");
    assert_true(json_is_null(json_object_get(sys, "hypervisor")));
    static const char *sys_keys[] = {"kernel",   "cmdline",   "cpu_model",   "cpus_online",
                                     "isolated", "nohz_full", "clocksource", "hypervisor"};
    for (size_t i = 0; i < sizeof(sys_keys) / sizeof(sys_keys[0]); i++)
        assert_non_null(json_object_get(sys, sys_keys[i]));

    json_t *cfg = json_object_get(d, "config");
    assert_int_equal(json_integer_value(json_object_get(cfg, "interval_ns")), 1000000);
    assert_string_equal(json_string_value(json_object_get(cfg, "policy")), "fifo");
    assert_int_equal(json_integer_value(json_object_get(cfg, "priority")), 90);
    assert_int_equal(json_integer_value(json_object_get(cfg, "tolerance_ns")), 20000);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(cfg, "cpus"), 1)), 3);
    static const char *null_keys[] = {"workload", "load", "pm_qos_us", "budget_ns"};
    for (size_t i = 0; i < sizeof(null_keys) / sizeof(null_keys[0]); i++)
        assert_true(json_is_null(json_object_get(cfg, null_keys[i])));
    json_decref(d);
    char path[300];
    snprintf(path, sizeof(path), "%s/result.json", dir);
    unlink(path);
    assert_int_equal(rmdir(dir), 0); /* nothing else (no temp file) was left */
}

static void test_json_result_cpu_values_and_histogram_add_up(void **state)
{
    struct fixture *f = *state;
    char dir[] = "/tmp/jl-json-XXXXXX";
    assert_non_null(mkdtemp(dir));
    json_t *d = write_and_read_back(&f->rep, dir);
    json_t *c0 = json_array_get(json_object_get(d, "cpus"), 0);
    assert_int_equal(json_integer_value(json_object_get(c0, "cpu")), 2);
    assert_int_equal(json_integer_value(json_object_get(c0, "samples")), 1000);
    assert_int_equal(json_integer_value(json_object_get(c0, "missed")), 2);
    json_t *lat = json_object_get(c0, "latency_ns");
    assert_int_equal(json_integer_value(json_object_get(lat, "min")), 5000);
    assert_int_equal(json_integer_value(json_object_get(lat, "max")), 5000 + 999 * 100);
    assert_int_equal(json_integer_value(json_object_get(lat, "mean")), 5000 + 49950);
    const char *order[] = {"min", "p50", "p90", "p99", "p999", "p9999", "max"};
    for (size_t i = 1; i < sizeof(order) / sizeof(order[0]); i++)
        assert_true(json_integer_value(json_object_get(lat, order[i - 1])) <=
                    json_integer_value(json_object_get(lat, order[i])));
    assert_true(json_real_value(json_object_get(lat, "max_at_s")) == 1.5);
    json_t *h = json_object_get(c0, "histogram");
    assert_string_equal(json_string_value(json_object_get(h, "unit")), "ns");
    json_int_t sum = json_integer_value(json_object_get(h, "overflow"));
    size_t i;
    json_t *bin;
    json_array_foreach(json_object_get(h, "bins"), i, bin)
    {
        assert_true(json_integer_value(json_array_get(bin, 0)) <=
                    json_integer_value(json_array_get(bin, 1)));
        sum += json_integer_value(json_array_get(bin, 2));
    }
    assert_int_equal(sum, 1000);

    /* The empty CPU: counts are 0, statistics null, never invented. */
    json_t *c1 = json_array_get(json_object_get(d, "cpus"), 1);
    assert_int_equal(json_integer_value(json_object_get(c1, "samples")), 0);
    assert_true(json_is_null(json_object_get(json_object_get(c1, "latency_ns"), "p99")));

    json_t *all = json_object_get(d, "all");
    assert_int_equal(json_integer_value(json_object_get(all, "samples")), 1000);
    assert_int_equal(json_integer_value(json_object_get(all, "missed")), 4);
    json_t *ivs = json_object_get(d, "intervals");
    assert_int_equal(json_array_size(ivs), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(ivs, 0), "min_ns")), 7000);
    json_decref(d);
    char path[300];
    snprintf(path, sizeof(path), "%s/result.json", dir);
    unlink(path);
    rmdir(dir);
}

static void test_json_write_fails_cleanly_in_missing_directory(void **state)
{
    struct fixture *f = *state;
    json_t *doc = json_run_result(&f->rep);
    assert_int_not_equal(json_write_file(doc, "/nonexistent-jl-dir/x.json"), 0);
    json_decref(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_json_result_has_schema_1_fixed_fields, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_json_result_cpu_values_and_histogram_add_up, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_json_write_fails_cleanly_in_missing_directory, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
