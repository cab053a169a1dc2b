/*
 * Unit tests for src/out/samples_read.c: a samples file reads back per CPU
 * in file order (run's extra columns read over); a bad header, a bad line
 * (named by its number), negative or absurd values, a CPU the result lacks,
 * time going back, too many or too few rows and the row cap are refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "out/samples_read.h"

static const int cpus[] = {1, 3};

/* Reads text with the CPUs 1 and 3 expecting e1 and e3 rows. */
static int read_text(const char *text, uint64_t e1, uint64_t e3, uint64_t max_rows,
                     struct samples_data *d, char *err, size_t errlen)
{
    const uint64_t expected[] = {e1, e3};
    if (samples_data_init(d, cpus, expected, 2, max_rows, err, errlen) != 0)
        return -1;
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(f);
    int rc = samples_read_stream(f, d, max_rows, err, errlen);
    fclose(f);
    return rc;
}

static void test_samples_read_keeps_each_cpus_latencies_in_file_order(void **state)
{
    (void)state;
    struct samples_data d;
    char err[256] = "";
    const char *text = "cpu,t_ns,latency_ns\n1,1000,1000\n3,1200,1200\n1,2050,50\n3,2000,0\n"
                       "1,3007,7";
    if (read_text(text, 3, 2, 100, &d, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(d.rows, 5);
    assert_int_equal(d.cpus[0].cpu, 1);
    assert_int_equal(d.cpus[0].n, 3);
    assert_int_equal(d.cpus[0].latency_ns[0], 1000);
    assert_int_equal(d.cpus[0].latency_ns[1], 50);
    assert_int_equal(d.cpus[0].latency_ns[2], 7);
    assert_int_equal(d.cpus[1].n, 2);
    assert_int_equal(d.cpus[1].latency_ns[1], 0);
    samples_data_free(&d);
}

static void test_samples_read_reads_over_the_workload_and_counter_columns(void **state)
{
    (void)state;
    struct samples_data d;
    char err[256] = "";
    const char *text = "cpu,t_ns,latency_ns,exec_ns,response_ns,llc_misses,ipc,context_switches\n"
                       "1,1000,1000,20,1020,5,1.250,0\n3,900,900,20,920,,,\n";
    if (read_text(text, 1, 1, 100, &d, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(d.cpus[0].latency_ns[0], 1000);
    assert_int_equal(d.cpus[1].latency_ns[0], 900);
    samples_data_free(&d);
}

struct refusal {
    const char *text;
    uint64_t e1, e3;
    const char *want;
};

static void test_samples_read_refuses_hostile_files(void **state)
{
    (void)state;
    static const struct refusal r[] = {
        {"", 0, 0, "empty: not a samples file"},
        {"cpu,t,latency\n1,1,1\n", 1, 0, "line 1: not the header \"cpu,t_ns,latency_ns\""},
        {"cpu,t_ns,latency_ns,x\n", 0, 0, "line 1: not the header"},
        {"cpu,t_ns,latency_ns\n1,5,-3\n", 1, 0, "line 2: latency_ns: negative"},
        {"cpu,t_ns,latency_ns\n1,-5,3\n", 1, 0, "line 2: t_ns: negative"},
        {"cpu,t_ns,latency_ns\n1,5,99999999999999999999\n", 1, 0,
         "line 2: latency_ns: more than 31622400000000000"},
        {"cpu,t_ns,latency_ns\n1,5,31622400000000001\n", 1, 0, "line 2: latency_ns: more than"},
        {"cpu,t_ns,latency_ns\n5000,5,3\n", 1, 0, "line 2: cpu: more than 4095"},
        {"cpu,t_ns,latency_ns\n1,5,3\n2,5,3\n", 1, 0, "line 3: CPU 2 is not a CPU of the result"},
        {"cpu,t_ns,latency_ns\n1,5,3\n1,4,3\n", 2, 0,
         "line 3: t_ns 4: before the previous line of CPU 1 (5)"},
        {"cpu,t_ns,latency_ns\n1,5,x\n", 1, 0, "line 2: latency_ns: not a number"},
        {"cpu,t_ns,latency_ns\n1,5,3,4\n", 1, 0,
         "line 2: latency_ns: not a number, or more fields"},
        {"cpu,t_ns,latency_ns\n1,5\n", 1, 0, "line 2: t_ns: not a number, or fewer fields"},
        {"cpu,t_ns,latency_ns\n1,5,3\r\n", 1, 0, "line 2: latency_ns: not a number"},
        {"cpu,t_ns,latency_ns\n\n", 1, 0, "line 2: cpu: not a number"},
        {"cpu,t_ns,latency_ns\n 1,5,3\n", 1, 0, "line 2: cpu: not a number"},
        {"cpu,t_ns,latency_ns,exec_ns,response_ns\n1,5,3,4\n", 1, 0,
         "line 2: fewer fields than the header's"},
        {"cpu,t_ns,latency_ns,exec_ns,response_ns\n1,5,3,4,7,8\n", 1, 0,
         "line 2: more fields than the header's"},
        {"cpu,t_ns,latency_ns\n1,5,3\n1,6,3\n", 1, 0,
         "line 3: CPU 1 has more rows than the 1 samples of the result"},
        {"cpu,t_ns,latency_ns\n1,5,3\n", 2, 0,
         "CPU 1 has 1 rows, the result 2 samples (after its ring drops)"},
        {"cpu,t_ns,latency_ns\n1,5,3\n", 1, 1, "CPU 3 has 0 rows, the result 1 samples"},
        {"cpu,t_ns,latency_ns\n1,5,3\n1,6,3\n1,7,3\n", SAMPLES_ANY_ROWS, 0,
         "line 4: more than 2 rows, the most this reader takes"},
        {"cpu,t_ns,latency_ns\n1,5,3\n", 2, 1, "the result holds more than 2 samples"},
        {"cpu,t_ns,latency_ns\n1,5,"
         "300000000000000000000000000000000000000000000000000000000000000000000000000000000000"
         "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
         "00000000000000000\n",
         1, 0, "line 2: longer than 176 characters"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        struct samples_data d;
        char err[256] = "";
        int rc = read_text(r[i].text, r[i].e1, r[i].e3, 2, &d, err, sizeof err);
        if (rc != -1 || !strstr(err, r[i].want))
            fail_msg("case %zu: rc %d, err \"%s\", expected \"%s\"", i, rc, err, r[i].want);
        assert_null(d.cpus);
    }
}

static void test_samples_read_refuses_a_nul_byte_and_a_missing_file(void **state)
{
    (void)state;
    static const char text[] = "cpu,t_ns,latency_ns\n1,5\0003\n";
    struct samples_data d;
    char err[256] = "";
    const uint64_t expected[] = {1, 0};
    assert_int_equal(samples_data_init(&d, cpus, expected, 2, 10, err, sizeof err), 0);
    FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
    assert_int_equal(samples_read_stream(f, &d, 10, err, sizeof err), -1);
    fclose(f);
    assert_non_null(strstr(err, "line 2: longer than 176 characters, or not text"));
    assert_int_equal(samples_data_init(&d, cpus, expected, 2, 10, err, sizeof err), 0);
    assert_int_equal(samples_read_file("/nonexistent/samples.csv", &d, err, sizeof err), -1);
    assert_null(d.cpus);
    assert_true(err[0] != '\0');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples_read_keeps_each_cpus_latencies_in_file_order),
        cmocka_unit_test(test_samples_read_reads_over_the_workload_and_counter_columns),
        cmocka_unit_test(test_samples_read_refuses_hostile_files),
        cmocka_unit_test(test_samples_read_refuses_a_nul_byte_and_a_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
