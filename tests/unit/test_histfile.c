/*
 * Unit tests for src/out/histfile.c against the layout cyclictest 2.x
 * writes with `-q -h N`: the "# /dev/cpu_dma_latency set to Nus" line before
 * "# Histogram" only when a PM QoS request was held, the rows, the trailer,
 * and an overflow cycle list cut at the row count (then "# NNNNN others"),
 * also beyond 1024 rows, which is where jitterlab used to cut it.
 * Results are built by hand, so every expected line is exact.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "out/histfile.h"
#include "test_tree.h"

#define ROWS 5

struct fixture {
    char *root;
    char path[PATH_MAX];
    uint64_t hist[2][ROWS];
    uint64_t cycles[2][ROWS]; /* as many as the rows, as the engine keeps */
    struct cpu_result res[2];
    const struct cpu_result *cpu[2];
    struct run_report rep;
};

/* One CPU's result: `in_rows` samples of 2 µs, then `over` samples of 10 ms
 * at cycles 100, 101, ... (as many as the engine keeps: one per row). */
static void fill_cpu(struct fixture *fx, int j, int cpu, uint64_t in_rows, uint64_t over)
{
    struct cpu_result *r = &fx->res[j];
    cpu_result_init(r, cpu);
    r->us_hist = fx->hist[j];
    r->us_rows = ROWS;
    r->overflow_cycles = fx->cycles[j];
    for (uint64_t i = 0; i < in_rows; i++) {
        r->us_hist[2]++;
        running_stats_add(&r->latency, 2500);
        r->samples++;
    }
    for (uint64_t i = 0; i < over; i++) {
        if (i < ROWS)
            r->overflow_cycles[i] = 100 + i;
        running_stats_add(&r->latency, 10000000);
        r->us_overflow++;
        r->samples++;
    }
    fx->cpu[j] = r;
}

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));
    if (!fx || temp_tree_setup((void **)&fx->root) != 0)
        return -1;
    snprintf(fx->path, sizeof fx->path, "%s/h.hist", fx->root);
    fx->rep.cpu = fx->cpu;
    fx->rep.pm_qos_us = -1;
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    int rc = temp_tree_teardown((void **)&fx->root);
    free(fx);
    return rc;
}

/* The whole file as text (the tests' files are small). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* The line starting with prefix, without its newline, or NULL. */
static const char *line_of(const char *text, const char *prefix, char *out, size_t len)
{
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            snprintf(out, len, "%.*s", (int)n, p);
            return out;
        }
        p += n + (e ? 1 : 0);
    }
    return NULL;
}

static void test_histfile_writes_cpu_dma_latency_first_when_held(void **state)
{
    struct fixture *fx = *state;
    fill_cpu(fx, 0, 1, 3, 0);
    fx->rep.ncpu = 1;
    fx->rep.pm_qos_us = 0;
    assert_int_equal(histfile_write(&fx->rep, fx->path), 0);
    const char *t = slurp(fx->path);
    assert_true(
        strncmp(t, "# /dev/cpu_dma_latency set to 0us\n# Histogram\n000000 000000\n",
                strlen("# /dev/cpu_dma_latency set to 0us\n# Histogram\n000000 000000\n")) == 0);

    fx->rep.pm_qos_us = 25;
    assert_int_equal(histfile_write(&fx->rep, fx->path), 0);
    t = slurp(fx->path);
    assert_true(strncmp(t, "# /dev/cpu_dma_latency set to 25us\n# Histogram\n",
                        strlen("# /dev/cpu_dma_latency set to 25us\n# Histogram\n")) == 0);
}

static void test_histfile_omits_cpu_dma_latency_when_not_held(void **state)
{
    struct fixture *fx = *state;
    fill_cpu(fx, 0, 1, 3, 0);
    fx->rep.ncpu = 1;
    fx->rep.pm_qos_us = -1;
    assert_int_equal(histfile_write(&fx->rep, fx->path), 0);
    const char *t = slurp(fx->path);
    assert_true(strncmp(t, "# Histogram\n", strlen("# Histogram\n")) == 0);
    assert_null(strstr(t, "cpu_dma_latency"));
}

static void test_histfile_lists_at_most_one_overflow_cycle_per_row(void **state)
{
    struct fixture *fx = *state;
    fill_cpu(fx, 0, 1, 3, 20); /* 20 overflows, 5 rows: 5 listed, 15 others */
    fill_cpu(fx, 1, 3, 3, 4);  /* fewer overflows than rows: all listed */
    fx->rep.ncpu = 2;
    assert_int_equal(histfile_write(&fx->rep, fx->path), 0);
    const char *t = slurp(fx->path);
    char l[4096];
    assert_non_null(line_of(t, "# Histogram Overflows:", l, sizeof l));
    assert_string_equal(l, "# Histogram Overflows: 00020 00004");
    assert_non_null(line_of(t, "# Thread 0:", l, sizeof l));
    assert_string_equal(l, "# Thread 0: 00100 00101 00102 00103 00104 # 00015 others");
    assert_non_null(line_of(t, "# Thread 1:", l, sizeof l));
    assert_string_equal(l, "# Thread 1: 00100 00101 00102 00103");
    assert_non_null(line_of(t, "# jitterlab: thread-to-CPU", l, sizeof l));
    assert_string_equal(l, "# jitterlab: thread-to-CPU 0:1 1:3");
}

static void test_histfile_lists_exactly_row_count_overflows_without_others(void **state)
{
    struct fixture *fx = *state;
    fill_cpu(fx, 0, 1, 0, ROWS);
    fx->rep.ncpu = 1;
    assert_int_equal(histfile_write(&fx->rep, fx->path), 0);
    char l[4096];
    assert_non_null(line_of(slurp(fx->path), "# Thread 0:", l, sizeof l));
    assert_string_equal(l, "# Thread 0: 00100 00101 00102 00103 00104");
}

static void test_histfile_trailer_matches_cyclictest_layout(void **state)
{
    struct fixture *fx = *state;
    fill_cpu(fx, 0, 1, 3, 1);
    fx->rep.ncpu = 1;
    fx->rep.pm_qos_us = 0;
    assert_int_equal(histfile_write(&fx->rep, fx->path), 0);
    assert_string_equal(slurp(fx->path), "# /dev/cpu_dma_latency set to 0us\n"
                                         "# Histogram\n"
                                         "000000 000000\n"
                                         "000001 000000\n"
                                         "000002 000003\n"
                                         "000003 000000\n"
                                         "000004 000000\n"
                                         "# Total: 000000003\n"
                                         "# Min Latencies: 00002\n"
                                         "# Avg Latencies: 02501\n"
                                         "# Max Latencies: 10000\n"
                                         "# Histogram Overflows: 00001\n"
                                         "# Histogram Overflow at cycle number:\n"
                                         "# Thread 0: 00100\n"
                                         "# jitterlab: thread-to-CPU 0:1\n");
}

/* A 2000-row histogram (--histogram-max 2000us) keeps 2000 overflow cycle
 * numbers, as cyclictest -h 2000 does: recorded by the engine's own rule
 * (cpu_result_record_us) and listed by the file, "others" only beyond. */
static void test_histfile_lists_as_many_overflows_as_rows_beyond_1024(void **state)
{
    struct fixture *fx = *state;
    enum { WIDE_ROWS = 2000 };
    struct cpu_result *r = &fx->res[0];
    for (uint64_t over = 1500; over <= 2100; over += 600) {
        cpu_result_init(r, 1);
        r->us_rows = WIDE_ROWS;
        r->us_hist = calloc(WIDE_ROWS, sizeof(uint64_t));
        r->overflow_cycles = calloc(WIDE_ROWS, sizeof(uint64_t));
        assert_non_null(r->us_hist);
        assert_non_null(r->overflow_cycles);
        for (uint64_t k = 0; k < over; k++) {
            running_stats_add(&r->latency, 3 * NS_PER_MS);
            r->samples++;
            cpu_result_record_us(r, 3 * NS_PER_MS, 10 + k);
        }
        fx->cpu[0] = r;
        fx->rep.ncpu = 1;
        assert_int_equal(histfile_write(&fx->rep, fx->path), 0);
        static char l[32768];
        assert_non_null(line_of(slurp(fx->path), "# Thread 0:", l, sizeof l));
        uint64_t listed = over < WIDE_ROWS ? over : WIDE_ROWS;
        /* "# Thread 0:" then " %05llu" per cycle number */
        const char *others = strstr(l, " # ");
        size_t numbers_len = others ? (size_t)(others - l) : strlen(l);
        assert_int_equal(numbers_len, strlen("# Thread 0:") + 6 * listed);
        char last[16];
        snprintf(last, sizeof last, " %05llu", (unsigned long long)(10 + listed - 1));
        assert_memory_equal(l + numbers_len - 6, last, 6);
        if (over > WIDE_ROWS)
            assert_string_equal(others, " # 00100 others");
        else
            assert_null(others);
        free(r->us_hist);
        free(r->overflow_cycles);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_histfile_writes_cpu_dma_latency_first_when_held, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_histfile_omits_cpu_dma_latency_when_not_held, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_histfile_lists_at_most_one_overflow_cycle_per_row,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_histfile_lists_exactly_row_count_overflows_without_others, setup, teardown),
        cmocka_unit_test_setup_teardown(test_histfile_lists_as_many_overflows_as_rows_beyond_1024,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_histfile_trailer_matches_cyclictest_layout, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
