/*
 * The per-CPU table parser behind /proc/interrupts and /proc/softirqs
 * (src/sys/percpu_table.c): which column is which CPU (from the header,
 * offline CPUs without one), rows with a single count (ERR, MIS) or fewer
 * counts than columns, targets without a column (PERCPU_COUNT_UNKNOWN),
 * ids and descriptions as the kernel pads them, refused text, re-parsing
 * into the same table, a 256-CPU header at snapshot rates, and
 * percpu_table_find with and without its hint.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sys/percpu_table.h"

#define UNKNOWN PERCPU_COUNT_UNKNOWN

static void table_for(struct percpu_table *t, const char *targets)
{
    static struct cpulist cpus;
    const char *why = NULL;
    if (cpulist_parse(targets, &cpus, &why) != 0)
        fail_msg("%s: %s", targets, why);
    assert_int_equal(percpu_table_init(t, &cpus), 0);
}

static void parse_ok(struct percpu_table *t, const char *text)
{
    const char *why = NULL;
    int rc = percpu_table_parse(t, text, &why);
    if (rc != 0)
        fail_msg("parse: %d (%s)", rc, why ? why : "");
}

static const char interrupts_4cpu[] =
    "           CPU0       CPU1       CPU2       CPU3       \n"
    "  0:         35          0          0          0  IR-IO-APIC    2-edge      timer\n"
    "  9:          0         12          0          0  IR-IO-APIC    9-fasteoi   acpi\n"
    " 36:          0          0      31302          7  PCI-MSIX-0000:00:02.0   1-edge      "
    "virtio1-req.0\n"
    "NMI:          1          2          3          4   Non-maskable interrupts\n"
    "LOC:     139631     351445     100000    2000000   Local timer interrupts\n"
    "ERR:          5\n"
    "MIS:          0\n";

static void test_percpu_table_header_names_the_column_of_each_cpu(void **state)
{
    (void)state;
    struct percpu_table t;
    table_for(&t, "1,3");
    parse_ok(&t, interrupts_4cpu);
    assert_int_equal(t.ntarget, 2);
    assert_int_equal(t.nrow, 7);
    assert_string_equal(t.row[2].id, "36");
    assert_int_equal(percpu_count(&t, 2, 0), 0); /* CPU 1 */
    assert_int_equal(percpu_count(&t, 2, 1), 7); /* CPU 3 */
    assert_int_equal(percpu_count(&t, 4, 0), 351445);
    assert_int_equal(percpu_count(&t, 4, 1), 2000000);
    assert_int_equal(percpu_count(&t, 1, 0), 12);
    percpu_table_free(&t);
}

static void test_percpu_table_ids_and_descriptions_as_the_kernel_pads_them(void **state)
{
    (void)state;
    struct percpu_table t;
    table_for(&t, "0-3");
    parse_ok(&t, interrupts_4cpu);
    assert_string_equal(t.row[0].id, "0");
    assert_true(t.row[0].numeric);
    assert_string_equal(t.row[0].desc, "IR-IO-APIC 2-edge timer");
    assert_string_equal(t.row[2].desc, "PCI-MSIX-0000:00:02.0 1-edge virtio1-req.0");
    assert_string_equal(t.row[3].id, "NMI");
    assert_false(t.row[3].numeric);
    assert_string_equal(t.row[4].desc, "Local timer interrupts");
    percpu_table_free(&t);
}

static void test_percpu_table_offline_cpu_has_no_column(void **state)
{
    (void)state;
    /* CPU 1 offline: the kernel prints no column for it, CPU 2 is the second */
    struct percpu_table t;
    table_for(&t, "0-3");
    parse_ok(&t, "           CPU0       CPU2       CPU3       \n"
                 "LOC:        100        200        300   Local timer interrupts\n");
    assert_int_equal(percpu_count(&t, 0, 0), 100);
    assert_int_equal(percpu_count(&t, 0, 1), UNKNOWN);
    assert_int_equal(percpu_count(&t, 0, 2), 200);
    assert_int_equal(percpu_count(&t, 0, 3), 300);
    assert_string_equal(t.row[0].desc, "Local timer interrupts");
    percpu_table_free(&t);
}

static void test_percpu_table_err_and_mis_rows_have_a_single_count(void **state)
{
    (void)state;
    /* ERR and MIS are machine-wide: one number for all CPUs, so they are
     * marked and no CPU gets it (telemetry would add it to CPU 0) */
    struct percpu_table t;
    table_for(&t, "0-3");
    parse_ok(&t, interrupts_4cpu);
    assert_string_equal(t.row[5].id, "ERR");
    assert_true(t.row[5].machine_wide);
    assert_true(t.row[6].machine_wide);
    assert_false(t.row[0].machine_wide);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(percpu_count(&t, 5, i), UNKNOWN);
        assert_int_equal(percpu_count(&t, 6, i), UNKNOWN);
    }
    assert_string_equal(t.row[5].desc, "");
    assert_string_equal(t.row[6].id, "MIS");
    percpu_table_free(&t);
    /* without CPU 0 among the targets the single count is nobody's */
    table_for(&t, "1-3");
    parse_ok(&t, interrupts_4cpu);
    for (int i = 0; i < 3; i++)
        assert_int_equal(percpu_count(&t, 5, i), UNKNOWN);
    percpu_table_free(&t);
}

static void test_percpu_table_row_with_fewer_counts_than_columns(void **state)
{
    (void)state;
    struct percpu_table t;
    table_for(&t, "0-3");
    parse_ok(&t, "           CPU0       CPU1       CPU2       CPU3       \n"
                 " 24:          1          2  IO-APIC   5-edge      ACPI:Ged\n"
                 "  7:          9\n");
    assert_int_equal(percpu_count(&t, 0, 0), 1);
    assert_int_equal(percpu_count(&t, 0, 1), 2);
    assert_int_equal(percpu_count(&t, 0, 2), UNKNOWN);
    assert_int_equal(percpu_count(&t, 0, 3), UNKNOWN);
    assert_string_equal(t.row[0].desc, "IO-APIC 5-edge ACPI:Ged");
    assert_int_equal(percpu_count(&t, 1, 0), 9);
    assert_int_equal(percpu_count(&t, 1, 1), UNKNOWN);
    percpu_table_free(&t);
}

static void test_percpu_table_cpu_without_a_column_is_unknown(void **state)
{
    (void)state;
    struct percpu_table t;
    table_for(&t, "0,7,1000");
    parse_ok(&t, "                    CPU0       CPU1       \n"
                 "          HI:          0          0\n"
                 "       TIMER:      27031      30211\n");
    assert_string_equal(t.row[1].id, "TIMER");
    assert_string_equal(t.row[1].desc, "");
    assert_int_equal(percpu_count(&t, 1, 0), 27031);
    assert_int_equal(percpu_count(&t, 1, 1), UNKNOWN);
    assert_int_equal(percpu_count(&t, 1, 2), UNKNOWN);
    percpu_table_free(&t);
}

static void test_percpu_table_counts_at_the_edge_of_64_bits(void **state)
{
    (void)state;
    struct percpu_table t;
    table_for(&t, "0-2");
    parse_ok(&t, "  CPU0  CPU1  CPU2\n"
                 "X: 18446744073709551614 18446744073709551615 99999999999999999999999 tail\n");
    assert_int_equal(percpu_count(&t, 0, 0), UINT64_MAX - 1);
    assert_int_equal(percpu_count(&t, 0, 1), UNKNOWN); /* never a count */
    assert_int_equal(percpu_count(&t, 0, 2), UNKNOWN); /* does not fit */
    assert_string_equal(t.row[0].desc, "tail");
    percpu_table_free(&t);
}

static void test_percpu_table_long_ids_and_descriptions_are_cut(void **state)
{
    (void)state;
    struct percpu_table t;
    table_for(&t, "0");
    char text[1024];
    char desc[300];
    memset(desc, 'd', sizeof desc - 1);
    desc[sizeof desc - 1] = '\0';
    snprintf(text, sizeof text, "CPU0\nA_VERY_LONG_ROW_IDENTIFIER: 5 %s\n", desc);
    parse_ok(&t, text);
    assert_int_equal(strlen(t.row[0].id), sizeof t.row[0].id - 1);
    assert_memory_equal(t.row[0].id, "A_VERY_LONG_ROW", 15);
    assert_int_equal(strlen(t.row[0].desc), sizeof t.row[0].desc - 1);
    assert_int_equal(percpu_count(&t, 0, 0), 5);
    percpu_table_free(&t);
}

static void test_percpu_table_refuses_text_without_a_cpu_header(void **state)
{
    (void)state;
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"  0:         12          3   IO-APIC   2-edge      timer\n", "no CPU header line"},
        {"CPUs are busy\nLOC: 1\n", "no CPU header line"},
        {"\n           CPU0\nLOC: 1\n", "no CPU header line"},
        {"", "empty"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct percpu_table t;
        table_for(&t, "0-1");
        const char *why = NULL;
        assert_int_equal(percpu_table_parse(&t, cases[k].text, &why), -1);
        assert_non_null(why);
        assert_string_equal(why, cases[k].why);
        assert_int_equal(t.nrow, 0);
        percpu_table_free(&t);
    }
}

static void test_percpu_table_skips_rows_without_a_colon(void **state)
{
    (void)state;
    struct percpu_table t;
    table_for(&t, "0-1");
    parse_ok(&t, "  CPU0  CPU1\nno colon here 5 6\nLOC: 7 8 timer\n\n");
    assert_int_equal(t.nrow, 1);
    assert_string_equal(t.row[0].id, "LOC");
    assert_int_equal(percpu_count(&t, 0, 1), 8);
    percpu_table_free(&t);
    table_for(&t, "0-1");
    parse_ok(&t, "  CPU0  CPU1"); /* a header and nothing else: no rows */
    assert_int_equal(t.nrow, 0);
    percpu_table_free(&t);
}

static void test_percpu_table_reparse_replaces_the_rows(void **state)
{
    (void)state;
    struct percpu_table t;
    table_for(&t, "0-1");
    static char big[32768];
    size_t used = (size_t)snprintf(big, sizeof big, "CPU0 CPU1\n");
    for (int r = 0; r < 300; r++)
        used +=
            (size_t)snprintf(big + used, sizeof big - used, "%d: %d %d dev%d\n", r, r, 2 * r, r);
    parse_ok(&t, big);
    assert_int_equal(t.nrow, 300);
    assert_true(t.cap >= 300);
    assert_int_equal(percpu_count(&t, 299, 1), 598);
    assert_string_equal(t.row[299].desc, "dev299");
    int cap = t.cap;
    parse_ok(&t, "CPU0 CPU1\nLOC: 3 4\n");
    assert_int_equal(t.nrow, 1);
    assert_int_equal(t.cap, cap); /* kept for the next snapshot */
    assert_int_equal(percpu_count(&t, 0, 0), 3);
    percpu_table_free(&t);
}

static void test_percpu_table_without_targets_still_reads_rows(void **state)
{
    (void)state;
    struct percpu_table t;
    table_for(&t, "");
    parse_ok(&t, interrupts_4cpu);
    assert_int_equal(t.ntarget, 0);
    assert_int_equal(t.nrow, 7);
    assert_string_equal(t.row[4].id, "LOC");
    percpu_table_free(&t);
}

static void test_percpu_table_256_cpu_header_parses_at_snapshot_rates(void **state)
{
    (void)state;
    enum { NCPU = 256, NROW = 400, ROUNDS = 40 };
    size_t cap = (size_t)NROW * NCPU * 12 + 8192;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t used = (size_t)snprintf(text, cap, "%*s", 12, "");
    for (int c = 0; c < NCPU; c++)
        used += (size_t)snprintf(text + used, cap - used, "CPU%-8d", c);
    text[used++] = '\n';
    for (int r = 0; r < NROW; r++) {
        used += (size_t)snprintf(text + used, cap - used, "%4d: ", r);
        for (int c = 0; c < NCPU; c++)
            used += (size_t)snprintf(text + used, cap - used, "%10u ", (unsigned)(r * 1000 + c));
        used += (size_t)snprintf(text + used, cap - used, " IR-PCI-MSIX 0-edge dev%d\n", r);
    }
    struct percpu_table t;
    table_for(&t, "0-255");
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int k = 0; k < ROUNDS; k++)
        parse_ok(&t, text);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ms =
        ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6) / ROUNDS;
    print_message("256 CPUs x %d rows (%zu KiB): %.2f ms per parse\n", NROW, used / 1024, ms);
    assert_int_equal(t.nrow, NROW);
    assert_int_equal(percpu_count(&t, NROW - 1, 255), (uint64_t)(NROW - 1) * 1000 + 255);
    assert_int_equal(percpu_count(&t, 17, 128), 17128);
    assert_string_equal(t.row[NROW - 1].desc, "IR-PCI-MSIX 0-edge dev399");
    /* a 1 s snapshot must not spend a sizeable part of it parsing (about
     * 1 ms at -O2 on the shared 2-vCPU VM; not timed under valgrind) */
    const char *preload = getenv("LD_PRELOAD");
    bool valgrind = preload && strstr(preload, "vgpreload");
    if (ms > 100 && !valgrind)
        fail_msg("%.2f ms per parse of a 256-CPU /proc/interrupts", ms);
    percpu_table_free(&t);
    free(text);
}

static void test_percpu_table_find_uses_the_hint_then_searches(void **state)
{
    (void)state;
    struct percpu_table t;
    table_for(&t, "0-3");
    parse_ok(&t, interrupts_4cpu);
    assert_int_equal(percpu_table_find(&t, "LOC", 4), 4);  /* the hint is right */
    assert_int_equal(percpu_table_find(&t, "LOC", 0), 4);  /* the hint is wrong */
    assert_int_equal(percpu_table_find(&t, "LOC", -1), 4); /* no hint */
    assert_int_equal(percpu_table_find(&t, "LOC", 99), 4); /* a hint beyond the rows */
    assert_int_equal(percpu_table_find(&t, "0", 3), 0);
    assert_int_equal(percpu_table_find(&t, "MIS", -1), 6);
    assert_int_equal(percpu_table_find(&t, "RES", 4), -1);
    assert_int_equal(percpu_table_find(&t, "LO", -1), -1); /* whole ids only */
    assert_int_equal(percpu_table_find(&t, "", -1), -1);
    percpu_table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percpu_table_header_names_the_column_of_each_cpu),
        cmocka_unit_test(test_percpu_table_ids_and_descriptions_as_the_kernel_pads_them),
        cmocka_unit_test(test_percpu_table_offline_cpu_has_no_column),
        cmocka_unit_test(test_percpu_table_err_and_mis_rows_have_a_single_count),
        cmocka_unit_test(test_percpu_table_row_with_fewer_counts_than_columns),
        cmocka_unit_test(test_percpu_table_cpu_without_a_column_is_unknown),
        cmocka_unit_test(test_percpu_table_counts_at_the_edge_of_64_bits),
        cmocka_unit_test(test_percpu_table_long_ids_and_descriptions_are_cut),
        cmocka_unit_test(test_percpu_table_refuses_text_without_a_cpu_header),
        cmocka_unit_test(test_percpu_table_skips_rows_without_a_colon),
        cmocka_unit_test(test_percpu_table_reparse_replaces_the_rows),
        cmocka_unit_test(test_percpu_table_without_targets_still_reads_rows),
        cmocka_unit_test(test_percpu_table_256_cpu_header_parses_at_snapshot_rates),
        cmocka_unit_test(test_percpu_table_find_uses_the_hint_then_searches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
