/*
 * Unit tests for src/out/result_read.c: a real `jitterlab run --json`
 * document (kept in the fuzz corpus) reads back whole; a small document
 * with one thing broken at a time is refused with a reason that names the
 * key; documents of other kinds give their header only.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "out/json_result.h"
#include "out/result_read.h"
#include "trace/cause_source.h"

/* Two CPUs, 10 + 5 samples, one value of CPU 3 beyond the histogram. */
static const char good_doc[] =
    "{\"tool\": \"jitterlab\", \"schema\": 1, \"kind\": \"run\", \"version\": \"1.0\","
    " \"interrupted\": false, \"cpus\": ["
    "{\"cpu\": 2, \"samples\": 10, \"missed\": 1, \"latency_ns\": {\"min\": 1000, \"mean\": 1500,"
    " \"stddev\": 100, \"max\": 2100, \"p50\": 1500, \"p90\": 2000, \"p99\": 2100,"
    " \"p999\": 2100, \"p9999\": 2100}, \"histogram\": {\"unit\": \"ns\", \"bins\":"
    " [[992, 1007, 4], [1984, 2015, 6]], \"overflow\": 0}},"
    "{\"cpu\": 3, \"samples\": 5, \"missed\": 0, \"latency_ns\": {\"min\": 10, \"mean\": 20,"
    " \"stddev\": 5, \"max\": 90000000000, \"p50\": 20, \"p90\": 30, \"p99\": 30,"
    " \"p999\": 30, \"p9999\": 30}, \"histogram\": {\"unit\": \"ns\", \"bins\":"
    " [[10, 10, 4]], \"overflow\": 1}}],"
    " \"all\": {\"samples\": 15, \"missed\": 1, \"latency_ns\": {\"min\": 10, \"mean\": 1000,"
    " \"stddev\": 700, \"max\": 90000000000, \"p50\": 1000, \"p90\": 2000, \"p99\": 2100,"
    " \"p999\": 2100, \"p9999\": 2100}, \"histogram\": {\"unit\": \"ns\", \"bins\":"
    " [[10, 10, 4], [992, 1007, 4], [1984, 2015, 6]], \"overflow\": 1}}}";

static int read_doc_text(const char *text, struct result_doc *doc, char *err, size_t errlen)
{
    return result_read_buffer(text, strlen(text), doc, err, errlen);
}

/* text with the first occurrence of from replaced by to (malloc'd). */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at)
        fail_msg("\"%s\" is not in the test document", from);
    size_t head = (size_t)(at - text);
    size_t len = strlen(text) - strlen(from) + strlen(to) + 1;
    char *s = malloc(len);
    assert_non_null(s);
    snprintf(s, len, "%.*s%s%s", (int)head, text, to, at + strlen(from));
    return s;
}

static char *edited(const char *from, const char *to)
{
    return replaced(good_doc, from, to);
}

/* Refused, and the reason contains want. */
static void refused(const char *from, const char *to, const char *want)
{
    char *text = edited(from, to);
    struct result_doc doc;
    char err[256] = "";
    int rc = read_doc_text(text, &doc, err, sizeof err);
    if (rc != -1 || !strstr(err, want))
        fail_msg("%s -> %s: rc %d, err \"%s\", expected \"%s\"", from, to, rc, err, want);
    assert_int_equal(doc.ncpus, 0);
    assert_null(doc.cpus);
    free(text);
}

struct refusal {
    const char *from, *to; /* an edit of good_doc */
    const char *want;      /* in the reason */
};

static void refused_all(const struct refusal *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        refused(r[i].from, r[i].to, r[i].want);
}

static void test_result_read_reads_a_real_run_document(void **state)
{
    (void)state;
    const char *top = getenv("JL_TOP");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fuzz/corpus/result_read/run-real.json", top ? top : ".");
    struct result_doc doc;
    char err[256] = "";
    if (result_read_file(path, &doc, err, sizeof err) != 0)
        fail_msg("%s: %s", path, err);
    assert_string_equal(doc.kind, "run");
    assert_int_equal(doc.ncpus, 1);
    assert_int_equal(doc.cpus[0].cpu, 1);
    assert_true(doc.cpus[0].samples > 0);
    assert_true(doc.cpus[0].latency.known);
    assert_true(doc.cpus[0].latency.min <= doc.cpus[0].latency.p50);
    assert_true(doc.cpus[0].nbins > 0);
    uint64_t total = doc.cpus[0].overflow;
    for (int i = 0; i < doc.cpus[0].nbins; i++)
        total += doc.cpus[0].bins[i].count;
    assert_true(total == doc.cpus[0].samples);
    assert_true(doc.all.samples == doc.cpus[0].samples);
    assert_int_equal(doc.all.cpu, -1);
    result_doc_free(&doc);
}

static void test_result_read_fills_every_field(void **state)
{
    (void)state;
    struct result_doc doc;
    char err[256] = "";
    if (read_doc_text(good_doc, &doc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_string_equal(doc.version, "1.0");
    assert_false(doc.interrupted);
    assert_int_equal(doc.ncpus, 2);
    const struct result_cpu *c = &doc.cpus[0];
    assert_int_equal(c->cpu, 2);
    assert_int_equal(c->samples, 10);
    assert_int_equal(c->missed, 1);
    assert_int_equal(c->latency.min, 1000);
    assert_int_equal(c->latency.mean, 1500);
    assert_int_equal(c->latency.stddev, 100);
    assert_int_equal(c->latency.max, 2100);
    assert_int_equal(c->latency.p90, 2000);
    assert_int_equal(c->latency.p9999, 2100);
    assert_int_equal(c->nbins, 2);
    assert_int_equal(c->bins[1].lo, 1984);
    assert_int_equal(c->bins[1].hi, 2015);
    assert_int_equal(c->bins[1].count, 6);
    assert_int_equal(doc.cpus[1].overflow, 1);
    assert_int_equal(doc.all.samples, 15);
    assert_int_equal(doc.all.nbins, 3);
    result_doc_free(&doc);
    assert_null(doc.cpus);
}

/* good_doc with CPU 2's deadline_misses and config as given. */
static bool deadline_counted(const char *config)
{
    char *a = edited("\"missed\": 1, \"latency_ns\"",
                     "\"missed\": 1, \"deadline_misses\": 7, \"latency_ns\"");
    char with[256];
    snprintf(with, sizeof with, "\"interrupted\": false, \"config\": %s,", config);
    char *b = replaced(a, "\"interrupted\": false,", with);
    struct result_doc doc;
    char err[256] = "";
    if (read_doc_text(b, &doc, err, sizeof err) != 0)
        fail_msg("%s", err);
    bool counted = doc.cpus[0].has_deadline_misses;
    if (counted)
        assert_int_equal(doc.cpus[0].deadline_misses, 7);
    result_doc_free(&doc);
    free(a);
    free(b);
    return counted;
}

/* A document from before config.deadline_ns counted a run without a
 * workload against the interval: that count is read as absent. Documents
 * that say their deadline, or ran a workload, keep theirs. */
static void test_result_read_drops_the_deadline_count_of_an_old_run_without_workload(void **state)
{
    (void)state;
    assert_false(deadline_counted("{\"interval_ns\": 1000000, \"workload\": null}"));
    assert_false(deadline_counted("{\"interval_ns\": 1000000}"));
    assert_true(deadline_counted("{\"interval_ns\": 1000000, \"workload\": \"spin:10us\"}"));
    assert_true(deadline_counted("{\"deadline_ns\": 100000, \"workload\": null}"));
}

/* A result written while the run went on, CPU 2's ring having dropped 3
 * samples: good_doc with in_progress, exact and samples_lacking. */
static char *so_far_doc(void)
{
    char *a = edited("\"interrupted\": false,",
                     "\"interrupted\": false, \"in_progress\": true, \"exact\": false,");
    char *b = replaced(a, "\"samples\": 10,", "\"samples\": 10, \"samples_lacking\": 3,");
    char *c = replaced(b, "\"samples\": 15,", "\"samples\": 15, \"samples_lacking\": 3,");
    free(a);
    free(b);
    return c;
}

static void test_result_read_says_what_a_result_so_far_lacks(void **state)
{
    (void)state;
    struct result_doc doc;
    char err[256] = "";
    if (read_doc_text(good_doc, &doc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(doc.exact); /* written before the fields existed: a final result */
    assert_false(doc.in_progress);
    assert_int_equal(doc.cpus[0].samples_lacking, 0);
    result_doc_free(&doc);

    char *text = so_far_doc();
    if (read_doc_text(text, &doc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(doc.in_progress);
    assert_false(doc.exact);
    assert_int_equal(doc.cpus[0].samples_lacking, 3);
    assert_int_equal(doc.cpus[1].samples_lacking, 0);
    assert_int_equal(doc.all.samples_lacking, 3);
    result_doc_free(&doc);

    static const struct {
        const char *from, *to, *want;
    } bad[] = {
        {"\"exact\": false", "\"exact\": 0", "exact: not true or false"},
        {"\"exact\": false", "\"exact\": true", "exact: true, but all.samples_lacking is 3"},
        {"\"in_progress\": true", "\"in_progress\": \"yes\"", "in_progress: not true or false"},
        {"\"samples_lacking\": 3", "\"samples_lacking\": -3",
         "cpus[0]: samples_lacking: negative count"},
        {"\"samples_lacking\": 3", "\"samples_lacking\": \"3\"",
         "cpus[0]: samples_lacking: not an integer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *t = replaced(text, bad[i].from, bad[i].to);
        int rc = read_doc_text(t, &doc, err, sizeof err);
        if (rc != -1 || !strstr(err, bad[i].want))
            fail_msg("%s -> %s: rc %d, err \"%s\", expected \"%s\"", bad[i].from, bad[i].to, rc,
                     err, bad[i].want);
        assert_null(doc.cpus);
        free(t);
    }
    free(text);
}

static void test_result_read_gives_null_statistics_for_an_empty_cpu(void **state)
{
    (void)state;
    static const char *const edits[][2] = {
        {"\"samples\": 5, \"missed\": 0, \"latency_ns\": {\"min\": 10, \"mean\": 20, \"stddev\": "
         "5, "
         "\"max\": 90000000000, \"p50\": 20, \"p90\": 30, \"p99\": 30, \"p999\": 30, \"p9999\": "
         "30}",
         "\"samples\": 0, \"missed\": 0, \"latency_ns\": {\"min\": null, \"mean\": null, "
         "\"stddev\": null, \"max\": null, \"p50\": null, \"p90\": null, \"p99\": null, "
         "\"p999\": null, \"p9999\": null}"},
        {"[[10, 10, 4]], \"overflow\": 1", "[], \"overflow\": 0"},
        {"\"samples\": 15", "\"samples\": 10"},
        {"[[10, 10, 4], [992", "[[992"},
        {"[1984, 2015, 6]], \"overflow\": 1", "[1984, 2015, 6]], \"overflow\": 0"},
    };
    char *text = strdup(good_doc);
    assert_non_null(text);
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        char *next = replaced(text, edits[i][0], edits[i][1]);
        free(text);
        text = next;
    }
    struct result_doc doc;
    char err[256] = "";
    if (read_doc_text(text, &doc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_false(doc.cpus[1].latency.known);
    assert_int_equal(doc.cpus[1].samples, 0);
    assert_int_equal(doc.cpus[1].nbins, 0);
    assert_true(doc.cpus[0].latency.known);
    result_doc_free(&doc);
    free(text);
}

static const struct refusal foreign[] = {
    {"\"tool\": \"jitterlab\"", "\"tool\": \"cyclictest\"", "tool: not \"jitterlab\""},
    {"\"schema\": 1", "\"schema\": 2", "schema: 2 is not supported"},
    {"\"schema\": 1", "\"schema\": \"1\"", "schema: not an integer"},
    {"\"kind\": \"run\"", "\"kind\": 7", "kind: missing"},
    {"\"kind\": \"run\"", "\"kind\": \"RUN\"", "kind: not a document kind"},
    {"\"interrupted\": false", "\"interrupted\": 0", "interrupted: not true or false"},
};

static void test_result_read_refuses_foreign_documents(void **state)
{
    (void)state;
    refused_all(foreign, sizeof foreign / sizeof foreign[0]);
    struct result_doc doc;
    char err[256] = "";
    assert_int_equal(read_doc_text("[1, 2]", &doc, err, sizeof err), -1);
    assert_string_equal(err, "document: not a JSON object");
    assert_int_equal(read_doc_text("{\"tool\": ", &doc, err, sizeof err), -1);
    assert_non_null(strstr(err, "document: not JSON (line 1"));
}

static const struct refusal wrong_types[] = {
    {"\"cpus\": [", "\"cpus\": 7, \"x\": [", "cpus: not an array"},
    {"\"samples\": 10", "\"samples\": -10", "cpus[0]: samples: negative count -10"},
    {"\"samples\": 10", "\"samples\": 10.0", "cpus[0]: samples: not an integer"},
    {"\"missed\": 1", "\"missed\": \"1\"", "cpus[0]: missed: not an integer"},
    {"\"cpu\": 2", "\"cpu\": -2", "cpus[0]: cpu: -2 is not a CPU id"},
    {"\"cpu\": 3", "\"cpu\": 2", "cpus[1]: CPU 2 listed twice"},
    {"\"min\": 1000", "\"min\": null", "some statistics null, others not"},
    {"\"min\": 1000", "\"min\": 3000", "min <= mean <= max does not hold"},
    {"\"stddev\": 100", "\"stddev\": -1", "stddev: negative"},
    {"\"p90\": 2000", "\"p90\": 1000", "percentiles not ascending"},
    {"\"unit\": \"ns\"", "\"unit\": \"us\"", "histogram.unit: not \"ns\""},
};

static void test_result_read_refuses_wrong_types_and_negative_counts(void **state)
{
    (void)state;
    refused_all(wrong_types, sizeof wrong_types / sizeof wrong_types[0]);
    refused("\"overflow\": 0", "\"overflow\": -1", "overflow: negative count");
}

static const struct refusal bad_bins[] = {
    {"[[992, 1007, 4], [1984, 2015, 6]]", "[[1984, 2015, 6], [992, 1007, 4]]",
     "cpus[0]: histogram.bins[1]: out of order or overlapping"},
    {"[[992, 1007, 4], [1984, 2015, 6]]", "[[992, 2000, 4], [1984, 2015, 6]]",
     "histogram.bins[1]: out of order or overlapping"},
    {"[992, 1007, 4]", "[1007, 992, 4]", "histogram.bins[0]: [1007, 992] is not a range"},
    {"[992, 1007, 4]", "[992, 1007, -4]", "histogram.bins[0]: negative count -4"},
    {"[992, 1007, 4]", "[992, 1007]", "histogram.bins[0]: not [lo, hi, count]"},
    {"[992, 1007, 4]", "[992, 1007, 5]", "bins and overflow hold 11 values, samples says 10"},
    {"[[992, 1007, 4], [1984, 2015, 6]]",
     "[[1, 1, 9223372036854775807], [2, 2, 9223372036854775807], [3, 3, 2]]",
     "histogram.bins: counts overflow"},
};

static void test_result_read_refuses_bins_out_of_order_or_not_adding_up(void **state)
{
    (void)state;
    refused_all(bad_bins, sizeof bad_bins / sizeof bad_bins[0]);
    char *more = edited("\"all\": {\"samples\": 15", "\"all\": {\"samples\": 16");
    char *text = replaced(more, "6]], \"overflow\": 1}}}", "7]], \"overflow\": 1}}}");
    struct result_doc doc;
    char err[256] = "";
    assert_int_equal(read_doc_text(text, &doc, err, sizeof err), -1);
    assert_string_equal(err, "all: samples: 16, the CPUs add up to 15");
    free(text);
    free(more);
}

static const struct refusal absurd[] = {
    {"\"cpus\": [", "\"cpus\": [], \"x\": [", "cpus: 0 entries"},
    {"\"cpu\": 2", "\"cpu\": 99999", "cpu: 99999 is not a CPU id"},
};

static void test_result_read_refuses_absurd_sizes(void **state)
{
    (void)state;
    refused_all(absurd, sizeof absurd / sizeof absurd[0]);
    /* more bins than a histogram has */
    size_t n = 4000;
    size_t len = n * 32 + 64;
    char *bins = malloc(len);
    assert_non_null(bins);
    size_t used = (size_t)snprintf(bins, len, "[");
    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(bins + used, len - used, "%s[%zu, %zu, 0]", i ? "," : "", i, i);
    snprintf(bins + used, len - used, "]");
    char *text = edited("[[992, 1007, 4], [1984, 2015, 6]]", bins);
    struct result_doc doc;
    char err[256] = "";
    assert_int_equal(read_doc_text(text, &doc, err, sizeof err), -1);
    assert_non_null(strstr(err, "4000 bins, more than the"));
    free(text);
    free(bins);
    assert_int_equal(
        result_read_buffer(good_doc, RESULT_READ_MAX_BYTES + 1u, &doc, err, sizeof err), -1);
    assert_non_null(strstr(err, "larger than"));
}

static void test_result_read_gives_the_header_of_other_kinds(void **state)
{
    (void)state;
    struct result_doc doc;
    char err[256] = "";
    const char *text = "{\"tool\": \"jitterlab\", \"schema\": 1, \"kind\": \"inspect\"}";
    if (read_doc_text(text, &doc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_string_equal(doc.kind, "inspect");
    assert_int_equal(doc.ncpus, 0);
    result_doc_free(&doc);
    assert_int_equal(result_read_file("/nonexistent/result.json", &doc, err, sizeof err), -1);
    assert_string_equal(err, "No such file or directory");
}

static void test_result_read_reads_a_real_noise_document(void **state)
{
    (void)state;
    const char *top = getenv("JL_TOP");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fuzz/corpus/result_read/noise-traced.json",
             top ? top : ".");
    struct result_doc doc;
    char err[256] = "";
    if (result_read_file(path, &doc, err, sizeof err) != 0)
        fail_msg("%s: %s", path, err);
    assert_string_equal(doc.kind, "noise");
    assert_int_equal(doc.ncpus, 1);
    const struct result_cpu *c = &doc.cpus[0];
    assert_int_equal(c->cpu, 1);
    assert_int_equal(c->samples, 4126); /* the gaps */
    assert_true(c->latency.known);
    assert_int_equal(c->latency.max, 2368702);
    assert_true(c->noise.present);
    assert_int_equal(c->noise.noise_ns, 171701066);
    assert_int_equal(c->noise.measured_ns, 2999921952);
    assert_int_equal(c->noise.floor_ns, 20);
    assert_int_equal(c->noise.nwin, 3);
    assert_true(c->noise.ncause > 0);
    assert_string_equal(c->noise.cause[0].kind, "thread");
    assert_string_equal(c->noise.cause[0].name, "spinner");
    assert_int_equal(c->noise.cause[0].pid, 1286);
    assert_string_equal(c->noise.cause[0].policy, "SCHED_FIFO");
    assert_int_equal(c->noise.cause[1].pid, -1);
    assert_int_equal(doc.all.samples, 4126);
    assert_int_equal(doc.all.noise.noise_ns, 171701066);
    assert_int_equal(doc.threshold_ns, 1000);
    result_doc_free(&doc);
}

/* One CPU of 3 gaps (1000, 1000, 2000 ns) in 1 s, two windows. */
static const char noise_doc[] =
    "{\"tool\": \"jitterlab\", \"schema\": 1, \"kind\": \"noise\", \"config\": {\"threshold_ns\":"
    " 1000}, \"cpus\": [{\"cpu\": 1, \"gaps\": 3, \"measured_ns\": 1000000000, \"noise_ns\": 4000,"
    " \"floor_ns\": 20, \"gap_ns\": {\"min\": 1000, \"mean\": 1333, \"stddev\": 577, \"max\": 2000,"
    " \"p50\": 1000, \"p90\": 2000, \"p99\": 2000, \"p999\": 2000, \"p9999\": 2000},"
    " \"histogram\": {\"unit\": \"ns\", \"bins\": [[1000, 1003, 2], [1984, 2015, 1]],"
    " \"overflow\": 0, \"underflow\": 0}, \"windows\": [{\"t_s\": 0.5, \"duration_ns\": 500000000,"
    " \"measured_ns\": 500000000, \"noise_ns\": 2000, \"gaps\": 2, \"max_ns\": 1000}, {\"t_s\": "
    "1.0,"
    " \"duration_ns\": 500000000, \"measured_ns\": 500000000, \"noise_ns\": 2000, \"gaps\": 1,"
    " \"max_ns\": 2000}], \"causes\": [{\"kind\": \"irq\", \"name\": \"eth0\", \"ns\": 4000,"
    " \"share\": 1.0, \"gaps\": 3}]}], \"all\": {\"gaps\": 3, \"measured_ns\": 1000000000,"
    " \"noise_ns\": 4000, \"floor_ns\": 20, \"gap_ns\": {\"min\": 1000, \"mean\": 1333,"
    " \"stddev\": 577, \"max\": 2000, \"p50\": 1000, \"p90\": 2000, \"p99\": 2000, \"p999\": 2000,"
    " \"p9999\": 2000}, \"histogram\": {\"unit\": \"ns\", \"bins\": [[1000, 1003, 2], [1984, 2015,"
    " 1]], \"overflow\": 0}}}";

/* A thread source of ten pids as the noise writer puts it (json_cause_pids)
 * reads back: the eight listed with their time and gaps, the other two in
 * pids_other_ns. */
static void test_result_read_reads_the_pids_the_noise_writer_writes(void **state)
{
    (void)state;
    struct cause_pids pids = {0};
    for (int32_t k = 0; k < 10; k++)
        cause_pids_add(&pids, 100 + k, 1, k < 2 ? 1500 : 100);
    json_t *row = json_pack("{s:s,s:s,s:i,s:s,s:i,s:I,s:f,s:i}", "kind", "thread", "name", "worker",
                            "pid", 100, "policy", "SCHED_FIFO", "priority", 10, "ns",
                            (json_int_t)4000, "share", 1.0, "gaps", 3);
    json_cause_pids(row, &pids, true, "gaps", "ns");
    char *row_text = json_dumps(row, 0);
    json_decref(row);
    char *text = replaced(noise_doc,
                          "{\"kind\": \"irq\", \"name\": \"eth0\", \"ns\": 4000,"
                          " \"share\": 1.0, \"gaps\": 3}",
                          row_text);
    free(row_text);
    struct result_doc doc;
    char err[256] = "";
    if (read_doc_text(text, &doc, err, sizeof err) != 0)
        fail_msg("%s", err);
    free(text);
    const struct result_noise_cause *q = &doc.cpus[0].noise.cause[0];
    assert_int_equal(q->pid, 100);
    assert_int_equal(q->npid, RESULT_NOISE_CAUSE_PIDS);
    assert_int_equal(q->pids[0].pid, 100);
    assert_int_equal(q->pids[0].ns, 1500);
    assert_int_equal(q->pids[0].gaps, 1);
    assert_int_equal(q->pids[1].pid, 101);
    assert_int_equal(q->pids_other_ns, 200); /* pids 108 and 109, beyond the writer's 8 */
    result_doc_free(&doc);
}

static void noise_refused(const char *from, const char *to, const char *want)
{
    char *text = replaced(noise_doc, from, to);
    struct result_doc doc;
    char err[256] = "";
    int rc = read_doc_text(text, &doc, err, sizeof err);
    if (rc != -1 || !strstr(err, want))
        fail_msg("%s -> %s: rc %d, err \"%s\", expected \"%s\"", from, to, rc, err, want);
    assert_null(doc.cpus);
    free(text);
}

static void test_result_read_refuses_broken_noise_documents(void **state)
{
    (void)state;
    struct result_doc doc;
    char err[256] = "";
    if (read_doc_text(noise_doc, &doc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(doc.cpus[0].noise.nwin, 2);
    assert_int_equal(doc.cpus[0].noise.cause[0].pid, -1);
    result_doc_free(&doc);
    static const struct refusal r[] = {
        {"\"gaps\": 3, \"measured", "\"gaps\": -3, \"measured", "cpus[0]: gaps: negative count"},
        {"\"gaps\": 3, \"measured", "\"gaps\": \"3\", \"measured", "gaps: not an integer"},
        {"\"noise_ns\": 4000,", "\"noise_ns\": 2000000000,", "more than measured_ns"},
        {"[[1000, 1003, 2], [1984", "[[1984, 2015, 1], [1000", "out of order"},
        {"[[1000, 1003, 2], [1984", "[[1000, 1003, 1], [1984", "bins and overflow hold 2 values"},
        {"\"underflow\": 0", "\"underflow\": 1", "histogram.underflow: not 0"},
        {"\"t_s\": 1.0", "\"t_s\": 0.25", "windows[1]: not in time order"},
        {"\"t_s\": 0.5", "\"t_s\": \"now\"", "windows[0]: t_s"},
        {"\"measured_ns\": 500000000, \"noise_ns\": 2000, \"gaps\": 2",
         "\"measured_ns\": 900000000, \"noise_ns\": 2000, \"gaps\": 2", "must not exceed"},
        {"\"share\": 1.0", "\"share\": 7", "share: not a number of 0 .. 1"},
        {"\"kind\": \"irq\"", "\"kind\": 5", "causes[0]: kind: not a string"},
        {"\"name\": \"eth0\"", "\"name\": null", "causes[0]: name"},
        {"\"windows\": [", "\"windows\": 5, \"x\": [", "windows: not an array"},
        {"\"all\": {\"gaps\": 3", "\"all\": {\"gaps\": 4", "all"},
        {"\"threshold_ns\": 1000", "\"threshold_ns\": -1", "threshold_ns"},
        {"\"floor_ns\": 20", "\"floor_ns\": -20", "floor_ns: negative count"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        noise_refused(r[i].from, r[i].to, r[i].want);
}

/* good_doc with a window array (its text) before the closing brace. */
static char *with_windows(const char *windows)
{
    size_t len = strlen(windows) + 8;
    char *to = malloc(len);
    assert_non_null(to);
    snprintf(to, len, "}}, %s}", windows);
    char *s = replaced(good_doc, "}}}", to);
    free(to);
    return s;
}

static const char interval_windows[] =
    "\"intervals\": ["
    "{\"t_s\": 1.0, \"cpu\": 2, \"samples\": 4, \"max_ns\": 1, \"latency_ns\": {\"max\": 2000}},"
    "{\"t_s\": 1.0, \"cpu\": 3, \"samples\": 2, \"max_ns\": 30},"
    "{\"t_s\": 2.0, \"cpu\": 2, \"samples\": 0, \"max_ns\": null},"
    "{\"t_s\": 3.0, \"cpu\": 2, \"samples\": 6, \"max_ns\": 2100},"
    "{\"t_s\": 2.5, \"cpu\": 3, \"samples\": 3, \"max_ns\": 90000000000}],"
    " \"telemetry\": [{\"t_s\": 1.0, \"cpu\": 2, \"samples\": 10, \"max_ns\": 2100}]";

static void test_result_read_gives_the_window_maxima_in_time_order(void **state)
{
    (void)state;
    char *text = with_windows(interval_windows);
    struct result_doc doc;
    char err[256] = "";
    if (read_doc_text(text, &doc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_string_equal(doc.windows_from, "intervals");
    const struct result_cpu *c = &doc.cpus[0];
    assert_int_equal(c->nwindows, 2);             /* the window without samples skipped */
    assert_int_equal(c->windows[0].max_ns, 2000); /* latency_ns.max before max_ns */
    assert_int_equal(c->windows[0].samples, 4);
    assert_int_equal(c->windows[1].max_ns, 2100);
    assert_true(c->windows[1].t_s == 3.0);
    assert_int_equal(doc.cpus[1].nwindows, 2);
    /* all: 1.0 (both CPUs), 2.5, 3.0 */
    assert_int_equal(doc.all.nwindows, 3);
    assert_int_equal(doc.all.windows[0].max_ns, 2000);
    assert_int_equal(doc.all.windows[0].samples, 6);
    assert_int_equal(doc.all.windows[1].max_ns, 90000000000);
    assert_true(doc.all.windows[2].t_s == 3.0);
    result_doc_free(&doc);
    free(text);
}

static void test_result_read_takes_telemetry_windows_without_intervals(void **state)
{
    (void)state;
    char *text = with_windows(
        "\"telemetry\": [{\"t_s\": 1.0, \"cpu\": 2, \"samples\": 7, \"max_ns\": 2100},"
        "{\"t_s\": 1.0, \"cpu\": 3, \"samples\": 0, \"max_ns\": null},"
        "{\"t_s\": 2.0, \"cpu\": 2, \"samples\": 3, \"max_ns\": 1500}], \"intervals\": []");
    struct result_doc doc;
    char err[256] = "";
    if (read_doc_text(text, &doc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_string_equal(doc.windows_from, "telemetry");
    assert_int_equal(doc.cpus[0].nwindows, 2);
    assert_int_equal(doc.cpus[0].windows[1].max_ns, 1500);
    assert_int_equal(doc.cpus[1].nwindows, 0);
    assert_null(doc.cpus[1].windows);
    assert_int_equal(doc.all.nwindows, 2);
    result_doc_free(&doc);
    free(text);
    /* no window array at all: no windows */
    assert_int_equal(read_doc_text(good_doc, &doc, err, sizeof err), 0);
    assert_string_equal(doc.windows_from, "");
    assert_int_equal(doc.cpus[0].nwindows, 0);
    assert_int_equal(doc.all.nwindows, 0);
    assert_string_equal(doc.windows_error, "");
    result_doc_free(&doc);
}

static void test_result_read_drops_broken_windows_with_the_reason(void **state)
{
    (void)state;
    static const struct refusal r[] = {
        {"\"t_s\": 3.0, \"cpu\": 2", "\"t_s\": 0.5, \"cpu\": 2",
         "intervals[3]: not in time order for CPU 2"},
        {"\"cpu\": 3, \"samples\": 2", "\"cpu\": 7, \"samples\": 2",
         "intervals[1]: cpu: 7 is not a CPU of cpus[]"},
        {"\"samples\": 6, \"max_ns\": 2100", "\"samples\": 6, \"max_ns\": 2101",
         "intervals[3]: max_ns: 2101, above the CPU's maximum 2100"},
        {"\"samples\": 6, \"max_ns\": 2100", "\"samples\": 7, \"max_ns\": 2100",
         "intervals[3]: the windows of CPU 2 hold more than its 10 samples"},
        {"\"samples\": 6, \"max_ns\": 2100", "\"samples\": 6, \"max_ns\": null",
         "intervals[3]: max_ns: null in a window with samples"},
        {"\"samples\": 6, \"max_ns\": 2100", "\"samples\": 6, \"max_ns\": -4",
         "intervals[3]: max_ns: not an integer >= 0 or null"},
        {"\"t_s\": 2.5", "\"t_s\": -2.5", "intervals[4]: t_s"},
        {"\"samples\": 3,", "\"samples\": -3,", "intervals[4]: samples: negative count"},
        {"{\"t_s\": 1.0, \"cpu\": 3, \"samples\": 2, \"max_ns\": 30}", "5",
         "intervals[1]: not an object"},
        {"\"intervals\": [", "\"intervals\": 5, \"x\": [", "intervals: not an array"},
    };
    char *base = with_windows(interval_windows);
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        char *text = replaced(base, r[i].from, r[i].to);
        struct result_doc doc;
        char err[256] = "";
        int rc = read_doc_text(text, &doc, err, sizeof err);
        if (rc != 0 || !strstr(doc.windows_error, r[i].want))
            fail_msg("%s -> %s: rc %d (%s), windows_error \"%s\", expected \"%s\"", r[i].from,
                     r[i].to, rc, err, doc.windows_error, r[i].want);
        assert_int_equal(doc.ncpus, 2); /* the document reads, without windows */
        assert_int_equal(doc.cpus[0].nwindows, 0);
        assert_null(doc.cpus[0].windows);
        assert_int_equal(doc.all.nwindows, 0);
        assert_string_equal(doc.windows_from, "");
        result_doc_free(&doc);
        free(text);
    }
    free(base);
}

static void test_result_read_reads_ring_drops(void **state)
{
    (void)state;
    char *text = edited("\"samples\": 10, \"missed\": 1,",
                        "\"samples\": 10, \"missed\": 1, \"ring_drops\": 3,");
    struct result_doc doc;
    char err[256] = "";
    if (read_doc_text(text, &doc, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(doc.cpus[0].ring_drops, 3);
    assert_int_equal(doc.cpus[1].ring_drops, 0);
    result_doc_free(&doc);
    free(text);
    refused("\"samples\": 10, \"missed\": 1,",
            "\"samples\": 10, \"missed\": 1, \"ring_drops\": 11,",
            "cpus[0]: ring_drops: 11, more than the 10 samples");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_result_read_reads_a_real_run_document),
        cmocka_unit_test(test_result_read_fills_every_field),
        cmocka_unit_test(test_result_read_drops_the_deadline_count_of_an_old_run_without_workload),
        cmocka_unit_test(test_result_read_says_what_a_result_so_far_lacks),
        cmocka_unit_test(test_result_read_gives_null_statistics_for_an_empty_cpu),
        cmocka_unit_test(test_result_read_refuses_foreign_documents),
        cmocka_unit_test(test_result_read_refuses_wrong_types_and_negative_counts),
        cmocka_unit_test(test_result_read_refuses_bins_out_of_order_or_not_adding_up),
        cmocka_unit_test(test_result_read_refuses_absurd_sizes),
        cmocka_unit_test(test_result_read_gives_the_header_of_other_kinds),
        cmocka_unit_test(test_result_read_reads_a_real_noise_document),
        cmocka_unit_test(test_result_read_refuses_broken_noise_documents),
        cmocka_unit_test(test_result_read_reads_the_pids_the_noise_writer_writes),
        cmocka_unit_test(test_result_read_gives_the_window_maxima_in_time_order),
        cmocka_unit_test(test_result_read_takes_telemetry_windows_without_intervals),
        cmocka_unit_test(test_result_read_drops_broken_windows_with_the_reason),
        cmocka_unit_test(test_result_read_reads_ring_drops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
