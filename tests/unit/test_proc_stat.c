/*
 * /proc/stat as telemetry reads it (src/sys/proc_stat.c): the per-CPU
 * ticks of the CPUs asked for, the 4 to 10 columns of different kernels,
 * ctxt, what is refused (letters, short lines, numbers beyond 64 bits),
 * the read through a sysroot with its note, and the reusable buffer of
 * sysroot_read_file (src/sys/sysroot.c) that the procfs readers share.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sys/proc_stat.h"
#include "test_fixture.h"
#include "test_tree.h"

static struct cpulist cpus;

static void stat_for(struct proc_stat *st, const char *list)
{
    const char *why = NULL;
    if (cpulist_parse(list, &cpus, &why) != 0)
        fail_msg("%s: %s", list, why);
    assert_int_equal(proc_stat_init(st, &cpus), 0);
}

static const char two_cpus[] = "cpu  30603 0 16416 209216 406 0 392 0 0 0\n"
                               "cpu0 13159 0 8475 106686 76 0 230 0 0 0\n"
                               "cpu1 17444 0 7940 102530 329 0 162 0 0 0\n"
                               "intr 739550 0 0 0 0 0 0 0 0\n"
                               "ctxt 913313\n"
                               "btime 1796152369\n"
                               "processes 19970\n"
                               "procs_running 1\n"
                               "procs_blocked 0\n"
                               "softirq 312832 0 49230 3 1184 29122 0 4 130187 0 103102\n";

static void test_proc_stat_keeps_cpus_asked_for_in_their_order(void **state)
{
    (void)state;
    struct proc_stat st;
    stat_for(&st, "1,3");
    const char *why = NULL;
    assert_int_equal(proc_stat_parse(two_cpus, &st, &why), 0);
    assert_int_equal(st.ncpu, 2);
    assert_int_equal(st.cpu[0].cpu, 1);
    assert_true(st.cpu[0].present);
    assert_int_equal(st.cpu[0].nkinds, 10);
    assert_int_equal(st.cpu[0].ticks[CPU_TIME_USER], 17444);
    assert_int_equal(st.cpu[0].ticks[CPU_TIME_SYSTEM], 7940);
    assert_int_equal(st.cpu[0].ticks[CPU_TIME_IDLE], 102530);
    assert_int_equal(st.cpu[0].ticks[CPU_TIME_IOWAIT], 329);
    assert_int_equal(st.cpu[0].ticks[CPU_TIME_SOFTIRQ], 162);
    /* CPU 3 is offline: no cpu3 line */
    assert_int_equal(st.cpu[1].cpu, 3);
    assert_false(st.cpu[1].present);
    assert_true(st.has_ctxt);
    assert_int_equal(st.ctxt, 913313);
    proc_stat_free(&st);
}

static void test_proc_stat_machine_line_is_not_cpu0(void **state)
{
    (void)state;
    struct proc_stat st;
    stat_for(&st, "0");
    const char *why = NULL;
    assert_int_equal(proc_stat_parse(two_cpus, &st, &why), 0);
    assert_int_equal(st.cpu[0].ticks[CPU_TIME_USER], 13159);
    assert_int_equal(st.cpu[0].ticks[CPU_TIME_IDLE], 106686);
    proc_stat_free(&st);
}

static void test_proc_stat_takes_4_to_10_columns(void **state)
{
    (void)state;
    /* 2.4 kernels had 4 columns, 2.6 added iowait irq softirq (7), then
     * steal (8), guest (9) and guest_nice (10); a future 11th is ignored */
    static const struct {
        const char *line;
        int nkinds;
    } cases[] = {
        {"cpu0 1 2 3 4\n", 4},
        {"cpu0 1 2 3 4 5 6 7\n", 7},
        {"cpu0 1 2 3 4 5 6 7 8\n", 8},
        {"cpu0 1 2 3 4 5 6 7 8 9\n", 9},
        {"cpu0 1 2 3 4 5 6 7 8 9 10\n", 10},
        {"cpu0 1 2 3 4 5 6 7 8 9 10 11 12\n", 10},
        {"cpu0\t1\t2  3 4", 4}, /* tabs, runs of blanks, no final newline */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct proc_stat st;
        stat_for(&st, "0");
        const char *why = NULL;
        assert_int_equal(proc_stat_parse(cases[k].line, &st, &why), 0);
        assert_true(st.cpu[0].present);
        assert_int_equal(st.cpu[0].nkinds, cases[k].nkinds);
        for (int i = 0; i < CPU_TIME_KINDS; i++)
            assert_int_equal(st.cpu[0].ticks[i], i < cases[k].nkinds ? (uint64_t)i + 1 : 0);
        assert_false(st.has_ctxt);
        proc_stat_free(&st);
    }
}

static void test_proc_stat_total_leaves_out_guest_time(void **state)
{
    (void)state;
    /* guest and guest_nice are already counted in user and nice */
    struct proc_stat st;
    stat_for(&st, "0");
    const char *why = NULL;
    assert_int_equal(proc_stat_parse("cpu0 10 20 30 40 50 60 70 80 1000 2000\n", &st, &why), 0);
    assert_int_equal(proc_stat_total_ticks(&st.cpu[0]), 10 + 20 + 30 + 40 + 50 + 60 + 70 + 80);
    proc_stat_free(&st);
}

static void test_proc_stat_refuses_what_the_kernel_never_writes(void **state)
{
    (void)state;
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"cpu0 5 ten 15 20 0 0 0 0 0 0\n", "a cpu line that is not 4 or more numbers"},
        {"cpu  1 2 3 4\ncpu1 1 2 3\n", "a cpu line that is not 4 or more numbers"},
        {"cpu0 1 2 3 -4\n", "a cpu line that is not 4 or more numbers"},
        {"cpu0 1 2 3 18446744073709551616\n", "a cpu line that is not 4 or more numbers"},
        {"cpu0x 1 2 3 4\n", "a cpu line that is not 4 or more numbers"},
        {"cpufreq 1 2 3 4\n", "a cpu line without a CPU number"},
        {"intr 1 2 3\nctxt 5\n", "no cpu line"},
        {"", "no cpu line"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct proc_stat st;
        stat_for(&st, "0-1");
        const char *why = NULL;
        if (proc_stat_parse(cases[k].text, &st, &why) != -1)
            fail_msg("'%s' accepted", cases[k].text);
        assert_non_null(why);
        assert_string_equal(why, cases[k].why);
        proc_stat_free(&st);
    }
}

static void test_proc_stat_largest_count_fits(void **state)
{
    (void)state;
    struct proc_stat st;
    stat_for(&st, "0");
    const char *why = NULL;
    assert_int_equal(proc_stat_parse("cpu0 18446744073709551615 0 0 0\n", &st, &why), 0);
    assert_int_equal(st.cpu[0].ticks[CPU_TIME_USER], UINT64_MAX);
    proc_stat_free(&st);
}

static void test_proc_stat_ctxt_that_is_not_a_number_is_left_out(void **state)
{
    (void)state;
    struct proc_stat st;
    stat_for(&st, "0");
    const char *why = NULL;
    assert_int_equal(proc_stat_parse("cpu0 1 2 3 4\nctxt lots\n", &st, &why), 0);
    assert_false(st.has_ctxt);
    assert_int_equal(proc_stat_parse("cpu0 1 2 3 4\nctxt 12 13\n", &st, &why), 0);
    assert_false(st.has_ctxt);
    assert_int_equal(proc_stat_parse("cpu0 1 2 3 4\nctxt 12\n", &st, &why), 0);
    assert_true(st.has_ctxt);
    assert_int_equal(st.ctxt, 12);
    proc_stat_free(&st);
}

static void test_proc_stat_reparse_forgets_cpus_that_went_away(void **state)
{
    (void)state;
    struct proc_stat st;
    stat_for(&st, "0-1");
    const char *why = NULL;
    assert_int_equal(proc_stat_parse(two_cpus, &st, &why), 0);
    assert_true(st.cpu[1].present);
    assert_int_equal(proc_stat_parse("cpu0 1 2 3 4\n", &st, &why), 0);
    assert_true(st.cpu[0].present);
    assert_false(st.cpu[1].present);
    assert_false(st.has_ctxt);
    proc_stat_free(&st);
}

static void test_proc_stat_cpu_numbers_beyond_the_limit_match_nothing(void **state)
{
    (void)state;
    struct proc_stat st;
    stat_for(&st, "0,4095");
    const char *why = NULL;
    assert_int_equal(
        proc_stat_parse("cpu0 1 2 3 4\ncpu40950 9 9 9 9\ncpu4095 5 6 7 8\n", &st, &why), 0);
    assert_int_equal(st.cpu[1].ticks[CPU_TIME_USER], 5);
    proc_stat_free(&st);
}

static void test_proc_stat_read_through_the_sysroot(void **state)
{
    (void)state;
    struct sysroot sr;
    fixture_sysroot(&sr, "stat/vm/t0");
    struct proc_stat st;
    stat_for(&st, "0-1");
    struct sysroot_buf buf = {0};
    struct read_notes notes = {0};
    assert_int_equal(proc_stat_read(&sr, &buf, &st, &notes), 0);
    assert_true(st.cpu[0].present && st.cpu[1].present);
    assert_int_equal(st.cpu[1].ticks[CPU_TIME_USER], 17444);
    assert_int_equal(st.ctxt, 913313);
    assert_int_equal(notes.count, 0);
    /* the garbage fixture: letters in cpu0's line */
    fixture_sysroot(&sr, "stat/garbage/t0");
    assert_int_equal(proc_stat_read(&sr, &buf, &st, &notes), -1);
    assert_false(st.cpu[0].present);
    assert_false(st.cpu[1].present);
    assert_int_equal(notes.count, 1);
    assert_string_equal(notes.note[0].path, "/proc/stat");
    assert_string_equal(notes.note[0].reason, "a cpu line that is not 4 or more numbers");
    sysroot_buf_free(&buf);
    proc_stat_free(&st);
}

static void test_proc_stat_read_of_a_missing_file_is_not_a_note(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    sysroot_init(&sr, root);
    struct proc_stat st;
    stat_for(&st, "0");
    struct sysroot_buf buf = {0};
    struct read_notes notes = {0};
    const char *why = NULL;
    assert_int_equal(proc_stat_parse("cpu0 1 2 3 4\nctxt 9\n", &st, &why), 0);
    assert_int_equal(proc_stat_read(&sr, &buf, &st, &notes), -1);
    assert_false(st.cpu[0].present);
    assert_false(st.has_ctxt);
    assert_int_equal(notes.count, 0);
    sysroot_buf_free(&buf);
    proc_stat_free(&st);
}

/* ---- sysroot_read_file: the buffer the procfs readers reuse ---------------- */

static void test_sysroot_read_file_reuses_its_buffer(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    sysroot_init(&sr, root);
    static char big[100000];
    memset(big, 'a', sizeof big - 1);
    write_text(root, "/proc/big", big);
    write_text(root, "/proc/small", "cpu0 1 2 3 4\n");
    write_text(root, "/proc/empty", "");
    struct sysroot_buf b = {0};
    assert_int_equal(sysroot_read_file(&sr, "/proc/big", &b), (long)sizeof big - 1);
    assert_int_equal(b.len, sizeof big - 1);
    assert_int_equal(strlen(b.text), sizeof big - 1);
    char *text = b.text;
    size_t cap = b.cap;
    assert_int_equal(sysroot_read_file(&sr, "/proc/small", &b), 13);
    assert_ptr_equal(b.text, text); /* no allocation for a smaller file */
    assert_int_equal(b.cap, cap);
    assert_string_equal(b.text, "cpu0 1 2 3 4\n"); /* the newline is kept */
    assert_int_equal(sysroot_read_file(&sr, "/proc/empty", &b), 0);
    assert_string_equal(b.text, "");
    assert_int_equal(sysroot_read_file(&sr, "/proc/none", &b), -ENOENT);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.text, "");
    assert_int_equal(sysroot_read_file(&sr, "/proc", &b), -EISDIR);
    sysroot_buf_free(&b);
    assert_null(b.text);
    assert_int_equal(b.cap, 0);
    /* a first read that fails leaves no buffer behind */
    assert_int_equal(sysroot_read_file(&sr, "/proc/none", &b), -ENOENT);
    assert_null(b.text);
}

static void sparse_file(const char *root, const char *rel, off_t size)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s%s", root, rel);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, size), 0);
    close(fd);
}

static void test_sysroot_read_file_refuses_beyond_the_limit(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    sysroot_init(&sr, root);
    sparse_file(root, "/over", (off_t)SYSROOT_FILE_MAX + 1);
    struct sysroot_buf b = {0};
    assert_int_equal(sysroot_read_file(&sr, "/over", &b), -EFBIG);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.text, "");
    sysroot_buf_free(&b);
}

static void test_sysroot_read_file_takes_a_file_of_exactly_the_limit(void **state)
{
    /* "-EFBIG beyond SYSROOT_FILE_MAX" (sysroot.h): the limit itself fits */
    const char *root = *state;
    struct sysroot sr;
    sysroot_init(&sr, root);
    sparse_file(root, "/limit", (off_t)SYSROOT_FILE_MAX);
    struct sysroot_buf b = {0};
    assert_int_equal(sysroot_read_file(&sr, "/limit", &b), (long)SYSROOT_FILE_MAX);
    sysroot_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, temp_tree_setup, temp_tree_teardown)
        cmocka_unit_test(test_proc_stat_keeps_cpus_asked_for_in_their_order),
        cmocka_unit_test(test_proc_stat_machine_line_is_not_cpu0),
        cmocka_unit_test(test_proc_stat_takes_4_to_10_columns),
        cmocka_unit_test(test_proc_stat_total_leaves_out_guest_time),
        cmocka_unit_test(test_proc_stat_refuses_what_the_kernel_never_writes),
        cmocka_unit_test(test_proc_stat_largest_count_fits),
        cmocka_unit_test(test_proc_stat_ctxt_that_is_not_a_number_is_left_out),
        cmocka_unit_test(test_proc_stat_reparse_forgets_cpus_that_went_away),
        cmocka_unit_test(test_proc_stat_cpu_numbers_beyond_the_limit_match_nothing),
        cmocka_unit_test(test_proc_stat_read_through_the_sysroot),
        T(test_proc_stat_read_of_a_missing_file_is_not_a_note),
        T(test_sysroot_read_file_reuses_its_buffer),
        T(test_sysroot_read_file_refuses_beyond_the_limit),
        T(test_sysroot_read_file_takes_a_file_of_exactly_the_limit),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
