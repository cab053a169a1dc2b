/*
 * The report's c2c part: the reader accepts a c2c document's matrix,
 * topology and groups and refuses hostile shapes (ragged or non-square
 * matrices, a CPU twice, negative or huge latencies, the wrong kind); the
 * page draws one cell per ordered pair, a tooltip per cell on small
 * machines only, package and LLC boundaries, and escapes document text.
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

#include "out/report_html.h"

#define HEADER                                                                                     \
    "{\"tool\":\"jitterlab\",\"schema\":1,\"kind\":\"c2c\",\"version\":\"0.1.0\","                 \
    "\"argv\":[\"jitterlab\",\"c2c\"],\"started_at\":\"2026-12-02T01:00:00.000Z\","

/* A document of n CPUs: CPU i in package i / (n / 2), LLC = package,
 * median i->k = 10 + i + k ns, min one less; null on the diagonal. */
static char *c2c_doc(int n, const char *extra)
{
    size_t cap = 2048 + (size_t)n * (size_t)n * 24 + (size_t)n * 96 + strlen(extra);
    char *s = malloc(cap);
    FILE *f = fmemopen(s, cap, "w");
    fprintf(f,
            HEADER "%s\"system\":{\"hostname\":\"h<&>\"},\"config\":{\"mode\":\"cas\","
                   "\"round_trips\":100,\"rounds\":2},\"clock\":\"tsc\",\"realtime\":true,",
            extra);
    fputs("\"topology\":[", f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s{\"cpu\":%d,\"core_id\":%d,\"package_id\":%d,\"llc_id\":%d}", i ? "," : "", i,
                i, i / (n / 2 ? n / 2 : 1), i / (n / 2 ? n / 2 : 1));
    fputs("],\"matrix\":{\"cpus\":[", f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%d", i ? "," : "", i);
    for (int m = 0; m < 2; m++) {
        fprintf(f, "],\"%s\":[", m ? "min_ns" : "median_ns");
        for (int i = 0; i < n; i++) {
            fprintf(f, "%s[", i ? "," : "");
            for (int k = 0; k < n; k++) {
                if (i == k)
                    fprintf(f, "%snull", k ? "," : "");
                else
                    fprintf(f, "%s%d", k ? "," : "", 10 + i + k - m);
            }
            fputs("]", f);
        }
    }
    fputs("]},\"groups\":[{\"group\":\"same-llc\",\"pairs\":2,\"min_ns\":11,\"median_ns\":11,"
          "\"max_ns\":11,\"best_min_ns\":10}]}",
          f);
    fclose(f);
    return s;
}

static int read_text(const char *text, struct report_c2c *c, char *err)
{
    return report_c2c_read_buffer(text, strlen(text), c, err, 256);
}

static char *draw(const struct report_c2c *c)
{
    struct report_input in = {.version = "0.1.0", .c2c = c, .nc2c = 1};
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    assert_int_equal(report_html_write(f, &in, NULL), 0);
    fclose(f);
    return page;
}

/* Occurrences of needle, by one pass: strstr from each match would be
 * quadratic under ASan, whose strstr measures the whole rest each time. */
static int count(const char *hay, const char *needle)
{
    size_t len = strlen(needle);
    int n = 0;
    for (const char *p = hay; *p; p++)
        if (*p == needle[0] && strncmp(p, needle, len) == 0)
            n++;
    return n;
}

static void test_c2c_reader_takes_matrix_topology_and_groups(void **state)
{
    (void)state;
    char *doc = c2c_doc(4, ""), err[256] = "";
    struct report_c2c c;
    assert_int_equal(read_text(doc, &c, err), 0);
    assert_int_equal(c.ncpu, 4);
    assert_true(isnan(c.median_ns[0]));
    assert_true(c.median_ns[1 * 4 + 2] == 13.0);
    assert_true(c.min_ns[1 * 4 + 2] == 12.0);
    assert_int_equal(c.cpu[3].package_id, 1);
    assert_int_equal(c.cpu[3].llc_id, 1);
    assert_string_equal(c.mode, "cas");
    assert_int_equal(c.round_trips, 100);
    assert_int_equal(c.ngroup, 1);
    assert_true(c.group[0].best_min_ns == 10.0);
    assert_true(c.realtime);
    report_c2c_free(&c);
    free(doc);
}

static void refused(const char *text, const char *why)
{
    struct report_c2c c;
    char err[256] = "";
    assert_int_equal(read_text(text, &c, err), -1);
    if (!strstr(err, why))
        fail_msg("error \"%s\" does not say \"%s\"", err, why);
}

static void test_c2c_reader_refuses_hostile_shapes(void **state)
{
    (void)state;
    refused(HEADER "\"matrix\":{\"cpus\":[0,1],\"median_ns\":[[null,1]],\"min_ns\":[[null,1],"
                   "[1,null]]}}",
            "1 rows for 2 CPUs");
    refused(HEADER "\"matrix\":{\"cpus\":[0,1],\"median_ns\":[[null,1],[1]],\"min_ns\":[[null,1],"
                   "[1,null]]}}",
            "not a row of 2 values");
    refused(HEADER "\"matrix\":{\"cpus\":[3,3],\"median_ns\":[[null,1],[1,null]],"
                   "\"min_ns\":[[null,1],[1,null]]}}",
            "CPU 3 twice");
    refused(HEADER "\"matrix\":{\"cpus\":[0,1],\"median_ns\":[[null,-1],[1,null]],"
                   "\"min_ns\":[[null,1],[1,null]]}}",
            "out of range");
    refused(HEADER "\"matrix\":{\"cpus\":[0,1],\"median_ns\":[[null,1e300],[1,null]],"
                   "\"min_ns\":[[null,1],[1,null]]}}",
            "out of range");
    refused(HEADER "\"matrix\":{\"cpus\":[0,1],\"median_ns\":[[null,\"x\"],[1,null]],"
                   "\"min_ns\":[[null,1],[1,null]]}}",
            "not a number or null");
    refused(HEADER "\"matrix\":{\"cpus\":[0,-1],\"median_ns\":[],\"min_ns\":[]}}", "not a CPU id");
    refused(HEADER "\"other\":1}", "matrix");
    /* the page labels the matrix by its last CPU: none is refused here */
    refused(HEADER "\"matrix\":{\"cpus\":[],\"median_ns\":[],\"min_ns\":[]}}", "at least one CPU");
    refused("{\"tool\":\"jitterlab\",\"schema\":1,\"kind\":\"inspect\",\"version\":\"0.1.0\"}",
            "not a c2c document");
}

static void test_run_reader_points_a_c2c_document_to_the_option(void **state)
{
    (void)state;
    char *doc = c2c_doc(2, ""), err[256] = "";
    static struct report_run run;
    assert_int_equal(report_run_read_buffer(doc, strlen(doc), &run, err, sizeof err), -1);
    if (!strstr(err, "give it with --c2c"))
        fail_msg("error: %s", err);
    free(doc);
}

static void test_heat_map_has_a_cell_per_pair_and_boundaries(void **state)
{
    (void)state;
    char *doc = c2c_doc(4, ""), err[256] = "";
    struct report_c2c c;
    assert_int_equal(read_text(doc, &c, err), 0);
    char *page = draw(&c);
    assert_non_null(strstr(page, "data-plot=\"c2c-heatmap\""));
    assert_int_equal(count(page, "<title>CPU "), 16); /* one tooltip per cell */
    assert_non_null(strstr(page, "CPU 1 \xe2\x86\x92 CPU 2: 13 ns"));
    assert_non_null(strstr(page, "same CPU"));
    /* packages change between CPU 1 and 2: one thick line each way */
    assert_int_equal(count(page, "stroke-width=\"2\""), 2);
    assert_null(strstr(page, "h<&>"));
    assert_non_null(strstr(page, "h&lt;&amp;&gt;"));
    assert_non_null(strstr(page, "same-llc"));
    assert_non_null(strstr(page, "from 1 core-to-core matrix"));
    assert_non_null(strstr(page, "</html>"));
    free(page);
    report_c2c_free(&c);
    free(doc);
}

/* Two CPUs: both pairs have the same median (11 ns), so min = max: one
 * colour, one legend entry saying so, not nine bands all "at least 11 ns". */
static void test_heat_legend_of_one_value_is_one_entry(void **state)
{
    (void)state;
    char *doc = c2c_doc(2, ""), err[256] = "";
    struct report_c2c c;
    assert_int_equal(read_text(doc, &c, err), 0);
    char *page = draw(&c);
    assert_int_equal(count(page, "(every pair)"), 1);
    assert_non_null(strstr(page, ">11 ns (every pair)</text>"));
    assert_null(strstr(page, "\xe2\x89\xa5")); /* no "at least" band */
    free(page);
    report_c2c_free(&c);
    free(doc);
    /* a range: each band says which values it holds */
    doc = c2c_doc(4, "");
    assert_int_equal(read_text(doc, &c, err), 0);
    page = draw(&c);
    assert_null(strstr(page, "(every pair)"));
    assert_non_null(strstr(page, ">11 ns to "));
    assert_non_null(strstr(page, " to 15 ns</text>"));
    free(page);
    report_c2c_free(&c);
    free(doc);
}

static void test_heat_map_of_many_cpus_has_no_tooltips(void **state)
{
    (void)state;
    char *doc = c2c_doc(100, "\"interrupted\":true,"), err[256] = "";
    struct report_c2c c;
    assert_int_equal(read_text(doc, &c, err), 0);
    char *page = draw(&c);
    assert_int_equal(count(page, "<title>CPU "), 0);
    assert_true(count(page, "<rect ") >= 100 * 100);
    assert_non_null(strstr(page, "interrupted"));
    free(page);
    report_c2c_free(&c);
    free(doc);
}

/* 256 CPUs: a cell per pair, and CPU labels far enough apart to read:
 * the columns every 16th CPU (3-digit labels), the rows every 8th. */
static void test_heat_map_of_256_cpus_labels_every_16th_column(void **state)
{
    (void)state;
    char *doc = c2c_doc(256, ""), err[256] = "";
    struct report_c2c c;
    assert_int_equal(read_text(doc, &c, err), 0);
    char *page = draw(&c);
    assert_true(count(page, "<rect ") >= 256 * 256);
    assert_int_equal(count(page, "text-anchor=\"middle\" fill=\"#333333\">"), 256 / 16);
    assert_int_equal(count(page, "text-anchor=\"end\" fill=\"#333333\">"), 256 / 8);
    assert_non_null(strstr(page, "fill=\"#333333\">240</text>"));
    assert_null(strstr(page, "fill=\"#333333\">7</text>"));
    free(page);
    report_c2c_free(&c);
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_c2c_reader_takes_matrix_topology_and_groups),
        cmocka_unit_test(test_c2c_reader_refuses_hostile_shapes),
        cmocka_unit_test(test_run_reader_points_a_c2c_document_to_the_option),
        cmocka_unit_test(test_heat_map_has_a_cell_per_pair_and_boundaries),
        cmocka_unit_test(test_heat_legend_of_one_value_is_one_entry),
        cmocka_unit_test(test_heat_map_of_many_cpus_has_no_tooltips),
        cmocka_unit_test(test_heat_map_of_256_cpus_labels_every_16th_column),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
