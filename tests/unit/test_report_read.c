/*
 * The report's readers and page (src/out/report_read*.c, report_html.c) on
 * hand-made documents in memory: intervals and telemetry grouped per CPU in
 * time order, absent figures as NaN, interrupt rates, idle states by name,
 * the largest spikes kept; every refusal names the place and the reason;
 * and a hostile document (markup in labels, comm names, hostnames) cannot
 * put markup into the page; a result's tail object and a tail document
 * read, draw their plot and checks table, and hostile ones (wrong types,
 * huge numbers, a million curve points, markup and control bytes) are
 * refused or escaped.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "out/json_result.h"
#include "out/report_html.h"
#include "out/report_json.h"
#include "out/report_model.h"
#include "trace/cause_source.h"

/* One CPU (1) with 4 samples in two bins, and the same in "all". */
static const char base_doc[] =
    "{\"tool\":\"jitterlab\",\"schema\":1,\"kind\":\"run\",\"version\":\"0.1.0\","
    "\"argv\":[\"jitterlab\",\"run\"],\"started_at\":\"2026-01-01T00:00:00.000Z\","
    "\"duration_s\":2.0,\"interrupted\":false,"
    "\"system\":{\"hostname\":\"vm\",\"kernel\":\"6.1\"},\"config\":{\"interval_ns\":1000000,"
    "\"workload\":null},"
    "\"cpus\":[{\"cpu\":1,\"samples\":4,\"missed\":0,\"latency_ns\":{\"min\":1000,\"mean\":1500,"
    "\"stddev\":500,\"max\":2000,\"p50\":1000,\"p90\":2000,\"p99\":2000,\"p999\":2000,"
    "\"p9999\":2000},\"histogram\":{\"unit\":\"ns\",\"bins\":[[1000,1007,2],[1992,2007,2]],"
    "\"overflow\":0}}],"
    "\"all\":{\"samples\":4,\"missed\":0,\"latency_ns\":{\"min\":1000,\"mean\":1500,"
    "\"stddev\":500,\"max\":2000,\"p50\":1000,\"p90\":2000,\"p99\":2000,\"p999\":2000,"
    "\"p9999\":2000},\"histogram\":{\"unit\":\"ns\",\"bins\":[[1000,1007,2],[1992,2007,2]],"
    "\"overflow\":0}}}";

static char err[512];

/* The base document with key set to the JSON text value (NULL: removed). */
static int read_with(const char *key, const char *value, struct report_run *run)
{
    json_t *doc = json_loads(base_doc, 0, NULL);
    assert_non_null(doc);
    if (key && value) {
        json_error_t e;
        json_t *v = json_loads(value, JSON_DECODE_ANY, &e);
        if (!v)
            fail_msg("test value for %s does not parse: %s", key, e.text);
        json_object_set_new(doc, key, v);
    } else if (key) {
        json_object_del(doc, key);
    }
    char *text = json_dumps(doc, 0);
    json_decref(doc);
    memset(run, 0, sizeof *run);
    err[0] = '\0';
    int rc = report_run_read_buffer(text, strlen(text), run, err, sizeof err);
    free(text);
    return rc;
}

static void test_a_minimal_result_reads(void **state)
{
    (void)state;
    struct report_run run;
    assert_int_equal(read_with(NULL, NULL, &run), 0);
    assert_int_equal(run.ncpu, 1);
    assert_int_equal(run.cpu[0].cpu, 1);
    assert_int_equal(run.cpu[0].latency.nbins, 2);
    assert_int_equal(run.cpu[0].latency.total, 4);
    assert_int_equal(run.all.cpu, -1);
    assert_string_equal(run.hostname, "vm");
    assert_string_equal(run.kernel, "6.1");
    assert_true(run.duration_s == 2.0);
    assert_false(run.has_intervals);
    assert_false(run.has_telemetry);
    assert_false(run.has_explain);
    assert_false(run.workload);
    assert_int_equal(run.cpu[0].deadline_misses, JR_ABSENT);
    assert_false(run.cpu[0].exec.present);
    report_run_free(&run);
    /* the optional parts may all be missing */
    assert_int_equal(read_with("system", NULL, &run), 0);
    assert_null(run.system);
    assert_null(run.hostname);
    report_run_free(&run);
    assert_int_equal(read_with("duration_s", NULL, &run), 0);
    assert_true(isnan(run.duration_s));
    report_run_free(&run);
}

static void test_intervals_are_grouped_per_cpu_in_time_order(void **state)
{
    (void)state;
    struct report_run run;
    assert_int_equal(read_with("intervals",
                               "[{\"t_s\":1.0,\"cpu\":1,\"max_ns\":30,\"mean_ns\":20},"
                               "{\"t_s\":0.5,\"cpu\":1,\"max_ns\":10,\"mean_ns\":5},"
                               "{\"t_s\":1.5,\"cpu\":1,\"max_ns\":null,\"mean_ns\":null}]",
                               &run),
                     0);
    assert_true(run.has_intervals);
    const struct report_cpu *c = &run.cpu[0];
    assert_int_equal(c->n_iv, 3);
    assert_true(c->iv_t_s[0] == 0.5 && c->iv_t_s[1] == 1.0 && c->iv_t_s[2] == 1.5);
    assert_true(c->iv_max_ns[0] == 10 && c->iv_mean_ns[1] == 20);
    assert_true(isnan(c->iv_max_ns[2]) && isnan(c->iv_mean_ns[2]));
    report_run_free(&run);
}

/* Two CPUs (1 and 3), windows for CPU 1 only: CPU 3 has none. */
static void test_a_cpu_without_windows_has_empty_series(void **state)
{
    (void)state;
    json_t *doc = json_loads(base_doc, 0, NULL);
    json_t *cpus = json_object_get(doc, "cpus");
    json_t *second = json_deep_copy(json_array_get(cpus, 0));
    json_object_set_new(second, "cpu", json_integer(3));
    json_array_append_new(cpus, second);
    json_t *all = json_object_get(doc, "all");
    json_object_set_new(all, "samples", json_integer(8));
    json_object_set_new(json_object_get(all, "histogram"), "bins",
                        json_loads("[[1000,1007,4],[1992,2007,4]]", 0, NULL));
    json_object_set_new(doc, "intervals",
                        json_loads("[{\"t_s\":1,\"cpu\":1,\"max_ns\":5}]", 0, NULL));
    json_object_set_new(doc, "telemetry",
                        json_loads("[{\"t_s\":1,\"cpu\":1,\"irqs\":5}]", 0, NULL));
    char *text = json_dumps(doc, 0);
    json_decref(doc);
    struct report_run run;
    memset(&run, 0, sizeof run);
    assert_int_equal(report_run_read_buffer(text, strlen(text), &run, err, sizeof err), 0);
    free(text);
    assert_int_equal(run.ncpu, 2);
    assert_int_equal(run.cpu[0].n_iv, 1);
    assert_int_equal(run.cpu[1].cpu, 3);
    assert_int_equal(run.cpu[1].n_iv, 0);
    assert_int_equal(run.cpu[1].n_tm, 0);
    char *page = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&page, &len);
    struct report_input in = {.run = &run, .nrun = 1, .version = "0.1.0"};
    assert_int_equal(report_html_write(m, &in, NULL), 0);
    fclose(m);
    assert_non_null(strstr(page, "<section id=\"cpu3\">"));
    free(page);
    report_run_free(&run);
}

static void test_telemetry_figures_idle_states_and_irq_rates(void **state)
{
    (void)state;
    struct report_run run;
    assert_int_equal(read_with("telemetry",
                               "[{\"t_s\":0.5,\"cpu\":1,\"max_ns\":9,\"p99_ns\":8,\"mean_ns\":7.5,"
                               "\"avg_mhz\":2000.0,\"busy_pct\":1.5,\"irqs\":500,\"steal_pct\":0.0,"
                               "\"idle\":[{\"state\":\"C1\",\"residency_pct\":40.0,\"entries\":3},"
                               "{\"state\":\"C6\",\"residency_pct\":50.0,\"entries\":1}]},"
                               "{\"t_s\":1.0,\"cpu\":1,\"irqs\":1000,\"idle\":[{\"state\":\"C6\","
                               "\"residency_pct\":60.0}]},"
                               "{\"t_s\":1.002,\"cpu\":1,\"irqs\":5}]",
                               &run),
                     0);
    const struct report_cpu *c = &run.cpu[0];
    assert_int_equal(c->n_tm, 3);
    assert_true(c->tm[TM_MAX_NS][0] == 9 && c->tm[TM_P99_NS][0] == 8);
    assert_true(c->tm[TM_MEAN_NS][0] == 7.5 && c->tm[TM_AVG_MHZ][0] == 2000);
    assert_true(c->tm[TM_BUSY_PCT][0] == 1.5 && c->tm[TM_STEAL_PCT][0] == 0);
    assert_true(isnan(c->tm[TM_AVG_MHZ][1]));
    /* 500 in 0.5 s, 1000 in 0.5 s; the 2 ms window at the end has no rate */
    assert_true(fabs(c->tm[TM_IRQ_RATE][0] - 1000) < 1e-9);
    assert_true(fabs(c->tm[TM_IRQ_RATE][1] - 2000) < 1e-9);
    assert_true(isnan(c->tm[TM_IRQ_RATE][2]));
    assert_int_equal(run.nidle, 2);
    assert_string_equal(run.idle_name[0], "C1");
    assert_string_equal(run.idle_name[1], "C6");
    assert_true(c->tm[TM_IDLE0][0] == 40 && c->tm[TM_IDLE0 + 1][0] == 50);
    assert_true(isnan(c->tm[TM_IDLE0][1]) && c->tm[TM_IDLE0 + 1][1] == 60);
    report_run_free(&run);
}

static void test_the_largest_spikes_are_kept_largest_first(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    fputc('[', m);
    for (int i = 0; i < 250; i++)
        fprintf(m,
                "%s{\"cpu\":1,\"t_s\":%d.0,\"latency_ns\":%d,\"causes\":[{\"kind\":\"thread\","
                "\"name\":\"t%d\",\"pid\":%d,\"policy\":\"SCHED_FIFO\",\"priority\":95,\"ns\":%d}],"
                "\"dominant\":{\"kind\":\"thread\",\"name\":\"t%d\",\"pid\":%d}}",
                i ? "," : "", i, 1000 + (i * 37) % 250, i, i, 1000 + (i * 37) % 250, i, i);
    fputc(']', m);
    fclose(m);
    struct report_run run;
    assert_int_equal(read_with("spikes", text, &run), 0);
    free(text);
    assert_false(run.window_method);
    assert_int_equal(run.spikes_listed, 250);
    assert_int_equal(run.nspike, REPORT_SPIKES_SHOWN);
    assert_int_equal(run.spike[0].latency_ns, 1249);
    for (size_t i = 1; i < run.nspike; i++)
        assert_true(run.spike[i - 1].latency_ns >= run.spike[i].latency_ns);
    assert_int_equal(run.spike[0].ncauses, 1);
    assert_string_equal(run.spike[0].cause[0].kind, "thread");
    assert_string_equal(run.spike[0].cause[0].policy, "SCHED_FIFO");
    assert_int_equal(run.spike[0].cause[0].priority, 95);
    assert_true(run.spike[0].has_dominant);
    report_run_free(&run);
}

static void test_spike_windows_and_the_summary(void **state)
{
    (void)state;
    struct report_run run;
    assert_int_equal(read_with("spike_windows",
                               "[{\"cpu\":1,\"t_s\":2.0,\"spikes\":12,\"max_ns\":900000,"
                               "\"causes\":[{\"kind\":\"ipi\",\"name\":\"call_function\","
                               "\"value\":25000.0,\"baseline\":1.0,\"excess\":24999.0}],"
                               "\"dominant\":{\"kind\":\"ipi\",\"name\":\"call_function\"}}]",
                               &run),
                     0);
    assert_true(run.window_method);
    assert_int_equal(run.nspike, 1);
    assert_int_equal(run.spike[0].spikes, 12);
    assert_int_equal(run.spike[0].latency_ns, 900000);
    assert_true(run.spike[0].cause[0].value == 25000);
    report_run_free(&run);
    assert_int_equal(read_with("spike_summary",
                               "{\"method\":\"window\",\"by_cause\":[{\"kind\":\"ipi\",\"name\":"
                               "\"call_function\",\"windows\":3,\"share\":0.75,\"spikes\":30,"
                               "\"max_ns\":900000}]}",
                               &run),
                     0);
    assert_string_equal(run.summary_method, "window");
    assert_int_equal(run.nrow, 1);
    assert_int_equal(run.row[0].count, 3); /* windows, for the window method */
    assert_int_equal(run.row[0].spikes, 30);
    assert_int_equal(run.row[0].total_ns, JR_ABSENT);
    report_run_free(&run);
}

/* A thread row of the summary as the run writer puts it (policy, priority,
 * json_cause_pids) reads back with its pids and their spikes, and the
 * "other" row with the number of causes folded into it. */
static void test_a_thread_summary_row_reads_with_its_pids(void **state)
{
    (void)state;
    struct cause_pids pids = {0};
    cause_pids_add(&pids, 4711, 5, 5000);
    cause_pids_add(&pids, 4800, 3, 3000);
    json_t *row = json_pack("{s:s,s:s,s:i,s:s,s:i,s:i,s:f,s:i,s:i,s:i}", "kind", "thread", "name",
                            "disturb", "pid", 4711, "policy", "SCHED_FIFO", "priority", 10, "count",
                            8, "share", 1.0, "total_ns", 8000, "max_ns", 1000, "median_ns", 1000);
    json_cause_pids(row, &pids, false, "count", "total_ns");
    json_t *other = json_pack("{s:s,s:s,s:i,s:i,s:f}", "kind", "unexplained", "name", "other",
                              "folded", 5, "count", 6, "share", 0.1);
    json_t *sum = json_pack("{s:s,s:[o,o]}", "method", "tracepoints", "by_cause", row, other);
    char *text = json_dumps(sum, 0);
    json_decref(sum);
    struct report_run run;
    int rc = read_with("spike_summary", text, &run);
    free(text);
    if (rc != 0)
        fail_msg("%s", err);
    assert_int_equal(run.nrow, 2);
    assert_int_equal(run.row[1].folded, 5);
    assert_int_equal(run.row[0].folded, JR_ABSENT);
    assert_string_equal(run.row[0].policy, "SCHED_FIFO");
    assert_int_equal(run.row[0].priority, 10);
    assert_int_equal(run.row[0].npid, 2);
    assert_int_equal(run.row[0].pids[0].pid, 4711);
    assert_int_equal(run.row[0].pids[0].count, 5);
    assert_int_equal(run.row[0].pids[1].count, 3);
    assert_int_equal(run.row[0].pids_other, 0);
    report_run_free(&run);
}

static void test_more_causes_than_kept_are_counted(void **state)
{
    (void)state;
    char causes[4096] = "";
    for (int i = 0; i < 20; i++)
        snprintf(causes + strlen(causes), sizeof causes - strlen(causes),
                 "%s{\"kind\":\"irq\",\"name\":\"i%d\",\"ns\":1}", i ? "," : "", i);
    char spikes[5000];
    snprintf(spikes, sizeof spikes, "[{\"cpu\":1,\"t_s\":1,\"latency_ns\":20,\"causes\":[%s]}]",
             causes);
    struct report_run run;
    assert_int_equal(read_with("spikes", spikes, &run), 0);
    assert_int_equal(run.spike[0].ncauses, REPORT_SPIKE_CAUSES);
    assert_int_equal(run.spike[0].causes_beyond, 20 - REPORT_SPIKE_CAUSES);
    assert_false(run.spike[0].has_dominant);
    report_run_free(&run);
}

static const struct {
    const char *key, *value, *message;
} refused[] = {
    {"kind", "\"inspect\"", "kind: \"inspect\", not a run result (give it with --inspect)"},
    {"kind", "\"compare\"", "kind: \"compare\", not a run result (give it with --compare)"},
    {"kind", "\"stat\"", "kind: \"stat\", not a run result"},
    {"tool", "\"other\"", "tool: not \"jitterlab\": not a document of this program"},
    {"system", "[]", "system: not an object"},
    {"config", "\"x\"", "config: not an object"},
    {"duration_s", "\"2\"", "duration_s: not a number"},
    {"duration_s", "-1", "duration_s: -1 is out of range (0 .. 1e+09)"},
    {"intervals", "{}", "intervals: not an array"},
    {"intervals", "[1]", "intervals[0]: not an object"},
    {"intervals", "[{\"t_s\":1,\"cpu\":5}]", "intervals[0]: cpu: CPU 5 is not in cpus[]"},
    {"intervals", "[{\"t_s\":\"1\",\"cpu\":1}]", "intervals[0]: t_s: not a number"},
    {"intervals", "[{\"cpu\":1}]", "intervals[0]: t_s: missing"},
    {"intervals", "[{\"t_s\":1,\"cpu\":1,\"max_ns\":1.5}]", "intervals[0]: max_ns: not an integer"},
    {"telemetry", "[{\"t_s\":1,\"cpu\":1,\"busy_pct\":250}]",
     "telemetry[0]: busy_pct: 250 is out of range (0 .. 100)"},
    {"telemetry", "[{\"t_s\":1,\"cpu\":1,\"irqs\":-3}]",
     "telemetry[0]: irqs: -3 is out of range (0 .. 9223372036854775807)"},
    {"telemetry", "[{\"t_s\":1,\"cpu\":1,\"idle\":[{\"residency_pct\":3}]}]",
     "telemetry[0].idle[0]: state: missing"},
    {"telemetry", "[{\"t_s\":1,\"cpu\":1,\"idle\":{}}]", "telemetry[0]: idle: not an array"},
    {"spikes", "[{\"cpu\":1,\"t_s\":1}]", "spikes[0]: latency_ns: missing"},
    {"spikes", "[{\"cpu\":1,\"t_s\":1,\"latency_ns\":5,\"causes\":[{\"name\":\"x\"}]}]",
     "spikes[0].causes[0]: kind: missing"},
    {"spikes", "[{\"cpu\":1,\"t_s\":1,\"latency_ns\":5,\"dominant\":7}]",
     "spikes[0]: dominant: not an object"},
    {"spikes", "[{\"cpu\":2,\"t_s\":1,\"latency_ns\":5}]",
     "spikes[0]: cpu: CPU 2 is not in cpus[]"},
    {"spike_windows", "[{\"cpu\":1,\"t_s\":1,\"max_ns\":5}]", "spike_windows[0]: spikes: missing"},
    {"spike_summary", "{\"by_cause\":[]}", "spike_summary: method: missing"},
    {"spike_summary", "{\"method\":\"x\",\"by_cause\":[{\"kind\":\"a\",\"share\":2}]}",
     "spike_summary.by_cause[0]: share: 2 is out of range (0 .. 1)"},
    {"explain", "{\"method\":5}", "explain: method: not a string"},
    {"cpus", "[]", "cpus: 0 entries (1 .. 4096 expected)"},
};

static void test_refusals_name_the_place_and_the_reason(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        struct report_run run;
        int rc = read_with(refused[i].key, refused[i].value, &run);
        if (rc != -1 || strcmp(err, refused[i].message) != 0)
            fail_msg("%s = %s: rc %d, '%s', want '%s'", refused[i].key, refused[i].value, rc, err,
                     refused[i].message);
        assert_int_equal(run.ncpu, 0); /* freed */
        assert_null(run.root);
    }
}

static void test_text_that_is_not_a_document_is_refused(void **state)
{
    (void)state;
    static const char *const texts[] = {"", "{", "[]", "null", "{\"tool\":\"jitterlab\"", "\xff"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        struct report_run run = {0};
        assert_int_equal(report_run_read_buffer(texts[i], strlen(texts[i]), &run, err, sizeof err),
                         -1);
        assert_true(err[0] != '\0');
    }
    /* a document cut anywhere is refused */
    size_t n = strlen(base_doc);
    for (size_t cut = 0; cut < n; cut += 7) {
        struct report_run run = {0};
        assert_int_equal(report_run_read_buffer(base_doc, cut, &run, err, sizeof err), -1);
    }
}

/* A run whose strings try to inject markup, drawn into a page in memory. */
static void test_a_hostile_document_cannot_inject_markup(void **state)
{
    (void)state;
    json_t *doc = json_loads(base_doc, 0, NULL);
    json_object_set_new(json_object_get(doc, "system"), "hostname",
                        json_string("<script>alert(1)</script>&"));
    json_object_set_new(json_object_get(doc, "config"), "note",
                        json_string("\"><svg onload=alert(2)>"));
    json_object_set_new(
        doc, "spikes",
        json_loads("[{\"cpu\":1,\"t_s\":1,\"latency_ns\":2000,\"causes\":[{\"kind\":\"thread\","
                   "\"name\":\"<img src=x onerror=alert(3)>\",\"pid\":7,\"ns\":2000}],"
                   "\"dominant\":{\"kind\":\"<b>\",\"name\":\"</td></tr></table>\"}}]",
                   0, NULL));
    json_object_set_new(doc, "spike_summary",
                        json_loads("{\"method\":\"<i>\",\"by_cause\":[{\"kind\":\"thread\","
                                   "\"name\":\"<u>x</u>\",\"count\":1,\"share\":1.0}]}",
                                   0, NULL));
    char *text = json_dumps(doc, 0);
    json_decref(doc);
    struct report_run run;
    memset(&run, 0, sizeof run);
    run.path = "<a href=//evil>.json";
    assert_int_equal(report_run_read_buffer(text, strlen(text), &run, err, sizeof err), 0);
    free(text);
    snprintf(run.label, sizeof run.label, "%s", "<script>x</script> & 'y'");
    struct report_input in = {
        .run = &run, .nrun = 1, .title = "<title>T</title>", .version = "0.1.0"};
    char *page = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&page, &len);
    struct report_svgs svgs = {0};
    assert_int_equal(report_html_write(m, &in, &svgs), 0);
    fclose(m);
    static const char *const never[] = {"<script", "<img", "<svg onload",          "<b>",
                                        "<u>",     "<i>",  "</td></tr></table>\"", "<a href=//",
                                        "<title>T"};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        if (strstr(page, never[i]))
            fail_msg("the page holds '%s'", never[i]);
    static const char *const escaped[] = {
        "&lt;script&gt;alert(1)&lt;/script&gt;&amp;", "&lt;img src=x onerror=alert(3)&gt;",
        "&lt;script&gt;x&lt;/script&gt; &amp; &#39;y&#39;", "&quot;&gt;&lt;svg onload=alert(2)&gt;",
        "&lt;title&gt;T&lt;/title&gt;"};
    for (size_t i = 0; i < sizeof escaped / sizeof escaped[0]; i++)
        if (!strstr(page, escaped[i]))
            fail_msg("the page lacks '%s'", escaped[i]);
    assert_true(svgs.n >= 2); /* histogram and exceedance of CPU 1 and of all */
    for (size_t i = 0; i < svgs.n; i++)
        assert_null(strstr(svgs.svg[i].text, "<script"));
    report_svgs_free(&svgs);
    free(page);
    report_run_free(&run);
}

/* ---- the tail analysis ---------------------------------------------------- */

/* A plausible `tail` of the base document: CPU 1 estimated, with a curve
 * and checks; "all" refused an estimate. */
#define TAIL_ENTRY_1                                                                               \
    "{\"cpu\":1,\"verdict\":\"estimate\",\"reason\":null,\"advice\":null,"                         \
    "\"data\":\"histogram\",\"samples\":4,\"threshold_ns\":1000,\"threshold_rule\":\"ladder\","    \
    "\"exceedances\":2,\"fitted\":2,\"exceedance_rate\":0.5,"                                      \
    "\"shape\":{\"value\":0.1,\"ci\":[-0.2,null]},\"scale\":{\"value\":300,\"ci\":[100,900]},"     \
    "\"confidence\":0.95,\"estimates\":[{\"probability\":1e-9,\"latency_ns\":9000,"                \
    "\"ci\":[5000,1e20]}],\"budget_exceedance\":{\"budget_ns\":5000,\"per_cycle\":1e-7,"           \
    "\"per_hour\":0.3,\"per_year\":1,\"ci\":[1e-8,null]},\"empirical_max_ns\":2000,"               \
    "\"checks\":[{\"name\":\"goodness-of-fit\",\"method\":\"chi-square-buckets\",\"statistic\":1." \
    "5,"                                                                                           \
    "\"p_value\":0.4,\"level\":0.05,\"passed\":true,\"why\":\"fine\"},{\"name\":\"ljung-box\","    \
    "\"method\":\"ljung-box\",\"statistic\":null,\"p_value\":null,\"level\":0.05,\"passed\":null," \
    "\"why\":\"needs 20 window maxima\"}],"                                                        \
    "\"curve\":[{\"probability\":0.5,\"latency_ns\":1000,\"ci\":[1000,1000]},"                     \
    "{\"probability\":1e-6,\"latency_ns\":5000,\"ci\":[3000,9000]},"                               \
    "{\"probability\":1e-12,\"latency_ns\":20000,\"ci\":[8000,null]}]}"
#define TAIL_OBJECT(entry)                                                                         \
    "{\"confidence\":0.95,\"probabilities\":[1e-6,1e-9,1e-12],\"budget_ns\":5000,"                 \
    "\"threshold_ns\":null,\"interval_ns\":1000000,\"samples_file\":null,\"cpus\":[" entry "],"    \
    "\"all\":{\"cpu\":\"all\",\"verdict\":\"cannot-estimate\",\"reason\":\"too few exceedances\"," \
    "\"advice\":\"run longer\",\"checks\":[],\"curve\":[]}}"

static void test_a_tail_object_reads_and_draws(void **state)
{
    (void)state;
    struct report_run run;
    assert_int_equal(read_with("tail", TAIL_OBJECT(TAIL_ENTRY_1), &run), 0);
    assert_non_null(run.tail);
    assert_int_equal(run.tail->nentry, 2);
    const struct report_tail_entry *e = &run.tail->entry[0], *all = &run.tail->entry[1];
    assert_int_equal(e->cpu, 1);
    assert_true(e->estimate);
    assert_float_equal(e->threshold_ns, 1000, 0);
    assert_true(isnan(e->shape.hi) && e->shape.lo == -0.2);
    assert_int_equal(e->nest, 1);
    assert_float_equal(e->est[0].ns.hi, 1e20, 0); /* a far extrapolation is still a number */
    assert_int_equal(e->ncheck, 2);
    assert_int_equal(e->check[0].state, 1);
    assert_int_equal(e->check[1].state, -1);
    assert_true(isnan(e->check[1].statistic));
    assert_int_equal(e->ncurve, 3);
    assert_true(e->has_budget && e->budget_ns == 5000);
    assert_int_equal(all->cpu, -1);
    assert_false(all->estimate);
    assert_string_equal(all->reason, "too few exceedances");
    /* the page: the plot in CPU 1's section and its checks table */
    struct report_input in = {.run = &run, .nrun = 1, .version = "0.1.0"};
    char *page = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&page, &len);
    assert_int_equal(report_html_write(m, &in, NULL), 0);
    fclose(m);
    assert_non_null(strstr(page, "data-plot=\"tail0\""));
    assert_non_null(strstr(page, "<table class=\"tail-checks\">"));
    assert_non_null(strstr(page, "not run"));
    assert_non_null(strstr(page, "Cannot estimate</b>: too few exceedances"));
    free(page);
    report_run_free(&run);
}

static const struct {
    const char *value, *message;
} tail_refused[] = {
    {"[]", "tail: not an object"},
    {"{}", "tail: cpus: missing"},
    {"{\"cpus\":[{\"cpu\":2,\"verdict\":\"estimate\"}]}",
     "tail.cpus[0]: cpu: CPU 2 is not in cpus[]"},
    {"{\"cpus\":[{\"cpu\":\"all\",\"verdict\":\"estimate\"}]}",
     "tail.cpus[0]: cpu: \"all\" belongs in all, a CPU in cpus[]"},
    {"{\"cpus\":[{\"cpu\":1,\"verdict\":\"maybe\"}]}",
     "tail.cpus[0]: verdict: not \"estimate\" or \"cannot-estimate\""},
    {"{\"cpus\":[{\"cpu\":1,\"verdict\":7}]}", "tail.cpus[0]: verdict: not a string"},
    {"{\"cpus\":[{\"cpu\":1,\"verdict\":\"estimate\",\"threshold_ns\":\"1\"}]}",
     "tail.cpus[0]: threshold_ns: not an integer"},
    {"{\"cpus\":[{\"cpu\":1,\"verdict\":\"estimate\",\"exceedance_rate\":1e300}]}",
     "tail.cpus[0]: exceedance_rate: 1e+300 is out of range (0 .. 1)"},
    {"{\"cpus\":[{\"cpu\":1,\"verdict\":\"estimate\",\"shape\":{\"value\":1e300}}]}",
     "tail.cpus[0].shape: value: 1e+300 is out of range (-1e+06 .. 1e+06)"},
    {"{\"cpus\":[{\"cpu\":1,\"verdict\":\"estimate\",\"curve\":[{\"probability\":0.5,"
     "\"latency_ns\":1,\"ci\":[1,1e300]}]}]}",
     "tail.cpus[0].curve[0]: ci[1]: not a latency"},
    {"{\"cpus\":[{\"cpu\":1,\"verdict\":\"estimate\",\"curve\":[{\"probability\":0,"
     "\"latency_ns\":1}]}]}",
     "tail.cpus[0].curve[0]: probability: not above 0"},
    {"{\"cpus\":[{\"cpu\":1,\"verdict\":\"estimate\",\"checks\":[{\"name\":\"<b>x</b>\"}]}]}",
     "tail.cpus[0].checks[0]: name: not a check the tail analysis makes"},
    {"{\"cpus\":[{\"cpu\":1,\"verdict\":\"estimate\",\"checks\":[{\"name\":\"ljung-box\","
     "\"passed\":\"yes\"}]}]}",
     "tail.cpus[0].checks[0]: passed: not true, false or null"},
};

static void test_a_hostile_tail_object_is_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof tail_refused / sizeof tail_refused[0]; i++) {
        struct report_run run;
        int rc = read_with("tail", tail_refused[i].value, &run);
        if (rc != -1 || strcmp(err, tail_refused[i].message) != 0)
            fail_msg("tail = %s: rc %d, '%s', want '%s'", tail_refused[i].value, rc, err,
                     tail_refused[i].message);
        assert_null(run.root);
    }
    /* a curve of a million points is refused by its size, not drawn */
    size_t n = 1000000;
    char *big = malloc(n * 40 + 200);
    assert_non_null(big);
    size_t k = (size_t)sprintf(big, "{\"cpus\":[{\"cpu\":1,\"verdict\":\"estimate\",\"curve\":[");
    for (size_t i = 0; i < n; i++)
        k += (size_t)sprintf(big + k, "%s{\"probability\":0.5,\"latency_ns\":1}", i ? "," : "");
    sprintf(big + k, "]}]}");
    struct report_run run;
    assert_int_equal(read_with("tail", big, &run), -1);
    free(big);
    assert_non_null(strstr(err, "tail.cpus[0]: curve:"));
}

/* Strings with markup and control bytes are text on the page. */
static void test_a_tail_object_cannot_inject_markup(void **state)
{
    (void)state;
    struct report_run run;
    assert_int_equal(
        read_with(
            "tail",
            "{\"cpus\":[{\"cpu\":1,\"verdict\":\"cannot-estimate\","
            "\"reason\":\"<script>x()</script>\\u0001\\u001b[31m\",\"advice\":\"<img src=y>\","
            "\"checks\":[{\"name\":\"split-half\",\"method\":\"<b>m</b>\",\"passed\":false,"
            "\"why\":\"</td><svg onload=z()>\"}]}]}",
            &run),
        0);
    struct report_input in = {.run = &run, .nrun = 1, .version = "0.1.0"};
    char *page = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&page, &len);
    assert_int_equal(report_html_write(m, &in, NULL), 0);
    fclose(m);
    static const char *const never[] = {"<script>x",   "<img src=y", "<b>m",
                                        "<svg onload", "\x01",       "\x1b"};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        if (strstr(page, never[i]))
            fail_msg("the page holds '%s'", never[i]);
    assert_non_null(strstr(page, "&lt;script&gt;x()&lt;/script&gt;"));
    assert_non_null(strstr(page, "failed"));
    free(page);
    report_run_free(&run);
}

static void test_a_tail_document_reads(void **state)
{
    (void)state;
    static const char doc[] =
        "{\"tool\":\"jitterlab\",\"schema\":1,\"kind\":\"tail\",\"version\":\"0.1.0\","
        "\"argv\":[\"jitterlab\",\"tail\"],\"started_at\":\"2026-01-01T00:00:00.000Z\","
        "\"inputs\":[\"A.json\"],\"confidence\":0.95,\"budget_ns\":null,\"interval_ns\":1000000,"
        "\"cpus\":[" TAIL_ENTRY_1 "],\"all\":null}";
    struct report_tail_doc d;
    assert_int_equal(report_tail_doc_read_buffer(doc, strlen(doc), &d, err, sizeof err), 0);
    assert_int_equal(d.tail.nentry, 1);
    assert_int_equal(d.run, -1);
    assert_int_equal(json_array_size(d.inputs), 1);
    /* drawn alone: the curve, no histogram */
    struct report_input in = {.version = "0.1.0", .tail = &d, .ntail = 1};
    char *page = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&page, &len);
    assert_int_equal(report_html_write(m, &in, NULL), 0);
    fclose(m);
    assert_non_null(strstr(page, "data-plot=\"taildoc0\""));
    assert_non_null(strstr(page, "holds no histogram"));
    free(page);
    report_tail_doc_free(&d);
    /* a run result is not a tail document */
    assert_int_equal(report_tail_doc_read_buffer(base_doc, strlen(base_doc), &d, err, sizeof err),
                     -1);
    assert_string_equal(err, "kind: \"run\", not a tail document");
}

/* A document of the fuzz corpus (tests/fuzz/corpus/report_read/NAME) read
 * into run, the test failing with the reason when it is refused. */
static void read_corpus(const char *name, struct report_run *run)
{
    const char *top = getenv("JL_TOP");
    char path[4096], why[256] = "";
    snprintf(path, sizeof path, "%s/tests/fuzz/corpus/report_read/%s", top ? top : ".", name);
    if (report_run_read(path, run, why, sizeof why) != 0)
        fail_msg("%s: %s", path, why);
}

static void test_report_read_takes_a_noise_result(void **state)
{
    (void)state;
    struct report_run run;
    char why[256] = "";
    read_corpus("noise-traced.json", &run);
    assert_true(run.noise);
    assert_int_equal(run.ncpu, 1);
    assert_int_equal(run.cpu[0].latency.total, 4126); /* the gaps */
    assert_int_equal(run.cpu[0].n_nw, 3);
    assert_true(run.cpu[0].nw_share_pct[0] > 5 && run.cpu[0].nw_share_pct[0] < 6);
    assert_true(run.cpu[0].core->noise.ncause > 0);
    report_run_free(&run);
    /* a broken noise result is refused as a run result is */
    const char *bad = "{\"tool\": \"jitterlab\", \"schema\": 1, \"kind\": \"noise\", \"cpus\": 3}";
    memset(&run, 0, sizeof run);
    assert_int_equal(report_run_read_buffer(bad, strlen(bad), &run, why, sizeof why), -1);
    assert_string_equal(why, "cpus: not an array");
}

/* A report holds up to ten results until its page is written: what it
 * has copied out of a document's tree (the CPU entries, the merged entry,
 * the report windows, the telemetry) must not stay in the tree as well. */
static void test_report_read_keeps_no_copied_part_of_the_tree(void **state)
{
    (void)state;
    struct report_run run;
    read_corpus("run-telemetry.json", &run);
    assert_true(run.cpu[0].latency.nbins > 0);
    assert_null(json_object_get(run.root, "cpus"));
    assert_null(json_object_get(run.root, "all"));
    assert_null(json_object_get(run.root, "intervals"));
    assert_true(run.has_telemetry);
    assert_null(json_object_get(run.root, "telemetry"));
    assert_non_null(run.system); /* still shown from the tree */
    report_run_free(&run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_read_keeps_no_copied_part_of_the_tree),
        cmocka_unit_test(test_report_read_takes_a_noise_result),
        cmocka_unit_test(test_a_minimal_result_reads),
        cmocka_unit_test(test_intervals_are_grouped_per_cpu_in_time_order),
        cmocka_unit_test(test_a_cpu_without_windows_has_empty_series),
        cmocka_unit_test(test_telemetry_figures_idle_states_and_irq_rates),
        cmocka_unit_test(test_the_largest_spikes_are_kept_largest_first),
        cmocka_unit_test(test_spike_windows_and_the_summary),
        cmocka_unit_test(test_a_thread_summary_row_reads_with_its_pids),
        cmocka_unit_test(test_more_causes_than_kept_are_counted),
        cmocka_unit_test(test_refusals_name_the_place_and_the_reason),
        cmocka_unit_test(test_text_that_is_not_a_document_is_refused),
        cmocka_unit_test(test_a_hostile_document_cannot_inject_markup),
        cmocka_unit_test(test_a_tail_object_reads_and_draws),
        cmocka_unit_test(test_a_hostile_tail_object_is_refused),
        cmocka_unit_test(test_a_tail_object_cannot_inject_markup),
        cmocka_unit_test(test_a_tail_document_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
