/*
 * The result document read back through jansson: every fixed field of
 * schema 1 is present with the right type and value, the histogram bins add
 * up to the samples, empty CPUs give nulls, the file is written
 * atomically (no temporary file left behind), and the system object of a
 * run keeps counts of the machine's threads and IRQs but lists only those
 * that matter to the measured CPUs.
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
#include "out/json_inspect.h"
#include "out/json_result.h"
#include "out/report.h"
#include "out/text_report.h"
#include "test_tree.h"

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

/* A run without a deadline counted no misses: every deadline_misses (per
 * CPU, all, per window) and config.deadline_ns is null, never a 0 that
 * reads as "none missed". */
static void test_json_result_without_deadline_has_no_deadline_misses(void **state)
{
    struct fixture *f = *state;
    f->rep.deadline_ns = 0;
    char dir[] = "/tmp/jl-json-XXXXXX";
    assert_non_null(mkdtemp(dir));
    json_t *d = write_and_read_back(&f->rep, dir);
    assert_true(json_is_null(json_object_get(json_object_get(d, "config"), "deadline_ns")));
    json_t *cpus = json_object_get(d, "cpus");
    for (size_t i = 0; i < json_array_size(cpus); i++) {
        json_t *dm = json_object_get(json_array_get(cpus, i), "deadline_misses");
        assert_non_null(dm);
        assert_true(json_is_null(dm));
    }
    assert_true(json_is_null(json_object_get(json_object_get(d, "all"), "deadline_misses")));
    json_t *iv = json_array_get(json_object_get(d, "intervals"), 0);
    assert_true(json_is_null(json_object_get(iv, "deadline_misses")));
    json_decref(d);
    /* with one, the counts */
    f->rep.deadline_ns = 1000000;
    d = write_and_read_back(&f->rep, dir);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(d, "config"), "deadline_ns")), 1000000);
    assert_true(json_is_integer(json_object_get(json_object_get(d, "all"), "deadline_misses")));
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

/* One thread of a written /proc: stat (processor, rt_priority, policy) and
 * status (Cpus_allowed_list). */
static void write_thread(const char *root, int tid, const char *comm, const char *allowed,
                         int processor, int policy, int rt_priority)
{
    char rel[128], text[512];
    unsigned flags = strchr(comm, '/') ? 0x00200040u : 0x00400100u; /* kthread or not */
    snprintf(rel, sizeof rel, "/proc/%d/task/%d/stat", tid, tid);
    snprintf(text, sizeof text,
             "%d (%s) S 2 0 0 0 -1 %u 0 0 0 0 0 62 0 0 20 0 1 0 27 0 0 18446744073709551615 0 0 "
             "0 0 0 0 0 2147483647 0 1 0 0 17 %d %d %d 0 0 0 0 0 0 0 0 0 0 0\n",
             tid, comm, flags, processor, rt_priority, policy);
    write_text(root, rel, text);
    snprintf(rel, sizeof rel, "/proc/%d/task/%d/status", tid, tid);
    snprintf(text, sizeof text, "Name:\t%s\nCpus_allowed_list:\t%s\n", comm, allowed);
    write_text(root, rel, text);
}

static void write_irq(const char *root, const char *irq, const char *affinity)
{
    char rel[128];
    snprintf(rel, sizeof rel, "/proc/irq/%s/smp_affinity_list", irq);
    write_text(root, rel, "0-3\n");
    snprintf(rel, sizeof rel, "/proc/irq/%s/effective_affinity_list", irq);
    write_text(root, rel, affinity);
}

static void test_run_system_object_keeps_counts_and_lists_relevant_ones(void **state)
{
    const char *root = *state;
    write_text(root, "/sys/devices/system/cpu/online", "0-3\n");
    /* 60 ordinary threads allowed everywhere: counted, not listed */
    for (int i = 0; i < 60; i++)
        write_thread(root, 1000 + i, "worker", "0-3", i % 4, 0, 0);
    /* what matters to CPU 2: its per-CPU kernel threads, an application
     * pinned to 2-3, a real-time thread allowed everywhere */
    write_thread(root, 20, "ksoftirqd/2", "2", 2, 0, 0);
    write_thread(root, 21, "migration/2", "2", 2, 1, 99);
    write_thread(root, 22, "kworker/2:1", "2", 2, 0, 0);
    write_thread(root, 30, "control", "2-3", 3, 0, 0);
    write_thread(root, 31, "irq/36-eth0", "0-3", 0, 1, 50);
    /* elsewhere: CPU 0's per-CPU threads, a real-time thread pinned to 0 */
    write_thread(root, 10, "ksoftirqd/0", "0", 0, 0, 0);
    write_thread(root, 11, "migration/0", "0", 0, 1, 99);
    write_text(root, "/proc/interrupts",
               "           CPU0       CPU1       CPU2       CPU3\n"
               " 24:         10          0          0          0  IO-APIC  eth0-rx\n"
               " 25:          0          0          7          0  IO-APIC  eth0-tx\n"
               " 26:          0          5          0          0  IO-APIC  ttyS0\n"
               " 27:          0          0          0          0  IO-APIC  nvme0q1\n"
               "NMI:          0          0          0          0   Non-maskable interrupts\n"
               "LOC:        100        100        100        100   Local timer interrupts\n");
    write_irq(root, "24", "0\n");
    write_irq(root, "25", "2\n");
    write_irq(root, "26", "1\n");
    write_irq(root, "27", "3\n");

    struct sysroot sr;
    sysroot_init(&sr, root);
    struct cpulist *targets = calloc(1, sizeof *targets);
    struct inspect_system *s = malloc(sizeof *s);
    assert_non_null(targets);
    assert_non_null(s);
    cpulist_add(targets, 2);
    assert_int_equal(inspect_system_read(&sr, targets, s), 0);

    json_t *run = run_system_json(s);
    json_t *threads = json_object_get(run, "threads");
    assert_int_equal(json_integer_value(json_object_get(threads, "scanned")), 67);
    assert_int_equal(json_integer_value(json_object_get(threads, "touching_targets_count")), 65);
    assert_int_equal(json_integer_value(json_object_get(threads, "rt")), 2);
    assert_string_equal(json_string_value(json_object_get(threads, "listed")), "rt-or-confined");
    json_t *list = json_object_get(threads, "touching_targets");
    assert_int_equal(json_array_size(list), 5);
    static const char *const want[] = {"ksoftirqd/2", "migration/2", "kworker/2:1", "control",
                                       "irq/36-eth0"};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        bool seen = false;
        for (size_t i = 0; i < json_array_size(list); i++)
            seen |= strcmp(json_string_value(json_object_get(json_array_get(list, i), "comm")),
                           want[w]) == 0;
        assert_true(seen);
    }
    json_t *irqs = json_object_get(run, "irqs");
    assert_int_equal(json_array_size(irqs), 2); /* 25 (affine to 2) and LOC (fired there) */
    assert_string_equal(json_string_value(json_object_get(json_array_get(irqs, 0), "irq")), "25");
    assert_string_equal(json_string_value(json_object_get(json_array_get(irqs, 1), "irq")), "LOC");
    json_t *irq_counts = json_object_get(run, "irq_counts");
    assert_int_equal(json_integer_value(json_object_get(irq_counts, "total")), 6);
    assert_int_equal(json_integer_value(json_object_get(irq_counts, "touching_targets")), 2);
    json_decref(run);

    /* inspect keeps the full detail */
    json_t *full = inspect_system_json(s);
    threads = json_object_get(full, "threads");
    assert_string_equal(json_string_value(json_object_get(threads, "listed")), "all");
    assert_int_equal(json_array_size(json_object_get(threads, "touching_targets")), 65);
    assert_int_equal(json_array_size(json_object_get(full, "irqs")), 6);
    json_decref(full);
    inspect_system_free(s);
    free(s);
    free(targets);
}

/* Arrays of scalars go on one line; arrays of arrays keep a line per
 * element; strings (with brackets, quotes and escapes) are untouched. */
/* samples_lacking of a cpus[] entry or of "all": an integer. */
static json_int_t samples_lacking(const json_t *obj)
{
    const json_t *v = json_object_get(obj, "samples_lacking");
    if (!json_is_integer(v))
        fail_msg("samples_lacking: %s", v ? "not an integer" : "missing");
    return json_integer_value(v);
}

/* What text_summary prints for rep (free it). */
static char *summary_text(const struct run_report *rep)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    assert_non_null(m);
    text_summary(m, rep);
    assert_int_equal(fclose(m), 0);
    return text;
}

/* The document and text of rep after CPU 2 dropped 7 samples from its
 * ring: whether it is exact, what each entry lacks, and whether the text
 * says the statistics are exact or not. */
static void check_drops(struct fixture *f, bool in_progress, json_int_t lacking)
{
    f->r[0].ring_drops = 7;
    f->rep.in_progress = in_progress;
    f->rep.interrupted = !in_progress;
    run_report_merge(&f->rep);
    json_t *doc = json_run_result(&f->rep);
    assert_non_null(doc);
    const json_t *exact = json_object_get(doc, "exact");
    assert_true(json_is_boolean(exact));
    assert_int_equal(json_is_true(exact), lacking == 0);
    const json_t *cpus = json_object_get(doc, "cpus");
    assert_int_equal(samples_lacking(json_array_get(cpus, 0)), lacking);
    assert_int_equal(samples_lacking(json_array_get(cpus, 1)), 0);
    assert_int_equal(samples_lacking(json_object_get(doc, "all")), lacking);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(cpus, 0), "ring_drops")), 7);
    json_decref(doc);
    char *text = summary_text(&f->rep);
    bool says_exact = strstr(text, "are exact") != NULL;
    bool says_not = strstr(text, "7 samples") && strstr(text, "not exact");
    if (says_exact != (lacking == 0) || says_not != (lacking != 0))
        fail_msg("the summary of a result %s:\n%s", in_progress ? "so far" : "at the end", text);
    free(text);
}

/* A result written while the run goes on (SIGUSR1) is the collector's
 * running copy: it lacks what the ring dropped, and says so. */
static void test_result_so_far_with_ring_drops_says_it_is_not_exact(void **state)
{
    check_drops(*state, true, 7);
}

/* The final result counts every sample, dropped by the ring or not. */
static void test_final_result_with_ring_drops_stays_exact(void **state)
{
    check_drops(*state, false, 0);
}

static void test_scalar_arrays_are_written_on_one_line(void **state)
{
    (void)state;
    json_t *doc = json_pack("{s:[[iii],[iii]],s:[],s:s,s:[ss],s:{s:[ibn]}}", "bins", 0, 1, 2, 3, 4,
                            5, "empty", "text", "a [b,\n c] \"q\" \\", "words", "x ]", "[y", "obj",
                            "mixed", 1, 1, "");
    char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_compact_scalar_arrays(text);
    assert_non_null(strstr(text, "\"bins\": [\n  [0, 1, 2],\n  [3, 4, 5]\n ]"));
    assert_non_null(strstr(text, "\"empty\": []"));
    assert_non_null(strstr(text, "\"text\": \"a [b,\\n c] \\\"q\\\" \\\\\""));
    assert_non_null(strstr(text, "\"words\": [\"x ]\", \"[y\"]"));
    assert_non_null(strstr(text, "\"mixed\": [1, true, null]"));
    json_error_t err;
    json_t *back = json_loads(text, 0, &err);
    assert_non_null(back);
    assert_true(json_equal(back, doc));
    json_decref(back);
    free(text);
    json_decref(doc);
}

/* A thread may name itself any bytes: its spike and window causes keep
 * the name, in the text form, instead of losing the key or the entry. */
static void test_causes_keep_names_that_are_not_utf8(void **state)
{
    (void)state;
    static const char hostile[] = "bad\xff\x1b[31m\\";
    static const char form[] = "bad\\xff\x1b[31m\\\\";
    struct spike sp = {.cpu = 1, .ncauses = 1};
    sp.causes[0].kind = CAUSE_THREAD;
    snprintf(sp.causes[0].name, sizeof sp.causes[0].name, "%s", hostile);
    const char *policy[SPIKE_CAUSES_MAX] = {"SCHED_FIFO"};
    json_t *o = json_spike(&sp, policy, 0);
    json_t *cause = json_array_get(json_object_get(o, "causes"), 0);
    assert_string_equal(json_string_value(json_object_get(cause, "name")), form);
    assert_string_equal(json_string_value(json_object_get(json_object_get(o, "dominant"), "name")),
                        form);
    json_decref(o);

    static struct window_spike ws = {.cpu = 1, .spikes = 1, .ncauses = 1};
    ws.cause[0].kind = "thread";
    snprintf(ws.cause[0].name, sizeof ws.cause[0].name, "%s", hostile);
    static struct window_explanation wx = {.nspike = 1, .nrows = 1};
    wx.spike = &ws;
    wx.row[0].kind = "thread";
    snprintf(wx.row[0].name, sizeof wx.row[0].name, "%s", hostile);
    json_t *windows = json_array(), *by_cause = json_array();
    json_window_explanation(&wx, windows, by_cause);
    assert_int_equal(json_array_size(windows), 1);
    assert_int_equal(json_array_size(by_cause), 1);
    json_t *w = json_array_get(windows, 0);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(json_object_get(w, "causes"), 0), "name")),
        form);
    assert_string_equal(json_string_value(json_object_get(json_array_get(by_cause, 0), "name")),
                        form);
    json_decref(windows);
    json_decref(by_cause);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_json_result_has_schema_1_fixed_fields, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_json_result_cpu_values_and_histogram_add_up, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_json_result_without_deadline_has_no_deadline_misses,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_write_fails_cleanly_in_missing_directory, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_result_so_far_with_ring_drops_says_it_is_not_exact,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_final_result_with_ring_drops_stays_exact, setup,
                                        teardown),
        cmocka_unit_test(test_scalar_arrays_are_written_on_one_line),
        cmocka_unit_test(test_causes_keep_names_that_are_not_utf8),
        cmocka_unit_test_setup_teardown(test_run_system_object_keeps_counts_and_lists_relevant_ones,
                                        temp_tree_setup, temp_tree_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
