/*
 * The kernel log reader (src/sys/kmsg.c): record headers parsed exactly
 * (level, facility, sequence, time, the text after ';'), continuation lines
 * skipped, the fixture trees' logs read whole, and hostile input survived:
 * lines far beyond the limit, binary bytes and NULs, no final newline,
 * malformed and overflowing headers, a directory or no file at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sys/kmsg.h"
#include "test_fixture.h"
#include "test_tree.h"

#define MAX_SEEN 64

struct seen {
    int n;
    char text[MAX_SEEN][KMSG_TEXT_MAX + 1];
    uint64_t seq[MAX_SEEN];
    int level[MAX_SEEN];
    bool truncated[MAX_SEEN];
    size_t len[MAX_SEEN];
};

static void collect(void *arg, const struct kmsg_record *rec)
{
    struct seen *s = arg;
    assert_int_equal(strlen(rec->text), rec->len);
    if (s->n >= MAX_SEEN)
        return;
    snprintf(s->text[s->n], sizeof s->text[0], "%s", rec->text);
    s->seq[s->n] = rec->seq;
    s->level[s->n] = rec->level;
    s->truncated[s->n] = rec->truncated;
    s->len[s->n] = rec->len;
    s->n++;
}

static int read_tree(const char *root, struct seen *s, struct kmsg_stats *st, char *why,
                     size_t whylen)
{
    struct sysroot sr;
    sysroot_init(&sr, root);
    memset(s, 0, sizeof *s);
    return kmsg_read(&sr, collect, s, st, why, whylen);
}

static void test_kmsg_parse_line_reads_every_header_field(void **state)
{
    (void)state;
    char text[64];
    struct kmsg_record r;
    const char *line = "30,1234,8502371,-;tsc: Marking TSC unstable due to clocksource watchdog";
    assert_int_equal(kmsg_parse_line(line, strlen(line), &r, text, sizeof text), 0);
    assert_int_equal(r.level, 6); /* 30 = facility 3 (daemon) << 3 | 6 */
    assert_int_equal(r.facility, 3);
    assert_int_equal(r.seq, 1234);
    assert_int_equal(r.usec, 8502371);
    assert_string_equal(r.text, "tsc: Marking TSC unstable due to clocksource watchdog");
    assert_false(r.truncated);
    /* more fields after the flags, as newer kernels may add */
    line = "4,7,99,c,caller=T1;text";
    assert_int_equal(kmsg_parse_line(line, strlen(line), &r, text, sizeof text), 0);
    assert_int_equal(r.level, 4);
    assert_string_equal(r.text, "text");
    /* an empty text is a record */
    line = "6,8,100,-;";
    assert_int_equal(kmsg_parse_line(line, strlen(line), &r, text, sizeof text), 0);
    assert_string_equal(r.text, "");
}

static void test_kmsg_parse_line_refuses_malformed_headers(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "tsc: Detected 2096.011 MHz processor", /* dmesg's text without a header */
        "[    0.000304] tsc: Detected 2096.011 MHz processor",
        "6,1,2;no flags field",
        "6,1,2,-no semicolon",
        "6,,2,-;empty seq",
        "x,1,2,-;letters",
        "6,1,2,;empty flags",
        "6,18446744073709551616,2,-;seq beyond 64 bits",
        "16777216,1,2,-;prio beyond 24 bits",
        "",
        "6",
        "6,",
        "6,1,2,",
    };
    char text[64];
    struct kmsg_record r;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (kmsg_parse_line(bad[i], strlen(bad[i]), &r, text, sizeof text) != -1)
            fail_msg("'%s' was taken", bad[i]);
}

static void test_kmsg_parse_line_sanitises_bytes_and_cuts_at_the_buffer(void **state)
{
    (void)state;
    char text[8];
    struct kmsg_record r;
    const char line[] = "6,1,2,-;a\x01\x00\xff\x7f"
                        "bcdefgh";
    assert_int_equal(kmsg_parse_line(line, sizeof line - 1, &r, text, sizeof text), 0);
    assert_string_equal(r.text, "a????bc");
    assert_int_equal(r.len, 7);
    assert_true(r.truncated);
}

static void test_kmsg_reads_a_fixture_log_in_order(void **state)
{
    (void)state;
    struct sysroot sr;
    fixture_sysroot(&sr, "tsc-invariant-clean");
    static struct seen s;
    struct kmsg_stats st;
    char why[128];
    assert_int_equal(kmsg_read(&sr, collect, &s, &st, why, sizeof why), 0);
    assert_false(st.device);
    assert_int_equal(st.records, 15);
    assert_int_equal(s.n, 15);
    assert_int_equal(st.malformed, 0); /* the " SUBSYSTEM=" line is a continuation */
    assert_true(st.have_first_seq);
    assert_int_equal(st.first_seq, 0);
    assert_string_equal(s.text[2], "tsc: Detected 3500.000 MHz processor");
    assert_int_equal(s.seq[2], 52);
    assert_int_equal(s.level[0], 5);
    for (int i = 1; i < s.n; i++)
        assert_true(s.seq[i] > s.seq[i - 1]);
}

static void test_kmsg_survives_hostile_lines(void **state)
{
    const char *root = *state;
    /* a 1 MiB line, binary with NULs, a header-less line, CRLF, then a last
     * line without its newline */
    size_t big = 1 << 20;
    char *data = malloc(big + 4096);
    assert_non_null(data);
    size_t n = 0;
    n += (size_t)sprintf(data + n, "6,1,10,-;");
    memset(data + n, 'A', big);
    n += big;
    data[n++] = '\n';
    const char bin[] = "6,2,20,-;bin\x00\x01\x02\xfe\xff"
                       "end\n";
    memcpy(data + n, bin, sizeof bin - 1);
    n += sizeof bin - 1;
    n += (size_t)sprintf(data + n, "garbage without a header\n\n\n");
    n += (size_t)sprintf(data + n, "6,3,30,-;crlf\r\n");
    n += (size_t)sprintf(data + n, "6,4,40,-;Measured 99 cycles TSC warp between CPUs");
    write_file(root, "/dev/kmsg", data, n);
    free(data);

    static struct seen s;
    struct kmsg_stats st;
    char why[128];
    assert_int_equal(read_tree(root, &s, &st, why, sizeof why), 0);
    assert_int_equal(st.records, 4);
    assert_int_equal(st.malformed, 1);
    assert_int_equal(st.truncated, 1);
    assert_true(s.truncated[0]);
    assert_int_equal(s.len[0], KMSG_TEXT_MAX);
    assert_int_equal(s.seq[1], 2);
    assert_string_equal(s.text[1], "bin?????end");
    assert_string_equal(s.text[2], "crlf?");
    assert_string_equal(s.text[3], "Measured 99 cycles TSC warp between CPUs");
    assert_int_equal(s.seq[3], 4);
}

static void test_kmsg_empty_log_is_readable_with_no_record(void **state)
{
    const char *root = *state;
    write_text(root, "/dev/kmsg", "");
    static struct seen s;
    struct kmsg_stats st;
    char why[128];
    assert_int_equal(read_tree(root, &s, &st, why, sizeof why), 0);
    assert_int_equal(st.records, 0);
    assert_false(st.have_first_seq);
}

static void test_kmsg_unreadable_says_why(void **state)
{
    const char *root = *state;
    static struct seen s;
    struct kmsg_stats st;
    char why[128];
    assert_int_equal(read_tree(root, &s, &st, why, sizeof why), -1);
    assert_string_equal(why, "not readable: No such file or directory");
    /* a directory where the device should be */
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/dev/kmsg", root);
    write_text(root, "/dev/placeholder", "");
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(read_tree(root, &s, &st, why, sizeof why), -1);
    assert_string_equal(why, "not readable: Is a directory");
    rmdir(dir);
    /* no permission (root reads anything: only checked as another user) */
    write_text(root, "/dev/kmsg", "6,1,2,-;x\n");
    if (geteuid() != 0) {
        snprintf(dir, sizeof dir, "%s/dev/kmsg", root);
        chmod(dir, 0);
        assert_int_equal(read_tree(root, &s, &st, why, sizeof why), -1);
        assert_string_equal(why, "not readable: Permission denied");
    }
}

static void test_kmsg_live_device_reads_until_eagain(void **state)
{
    (void)state;
    struct sysroot sr;
    sysroot_init(&sr, NULL);
    static struct seen s;
    struct kmsg_stats st;
    char why[128];
    int rc = kmsg_read(&sr, collect, &s, &st, why, sizeof why);
    if (rc != 0) {
        /* dmesg_restrict for non-root, or no /dev/kmsg in a container */
        assert_non_null(strstr(why, "not readable: "));
        skip();
    }
    assert_true(st.device);
    assert_true(st.records > 0); /* the boot's first record at least */
    assert_false(st.capped);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kmsg_parse_line_reads_every_header_field),
        cmocka_unit_test(test_kmsg_parse_line_refuses_malformed_headers),
        cmocka_unit_test(test_kmsg_parse_line_sanitises_bytes_and_cuts_at_the_buffer),
        cmocka_unit_test(test_kmsg_reads_a_fixture_log_in_order),
        cmocka_unit_test_setup_teardown(test_kmsg_survives_hostile_lines, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_kmsg_empty_log_is_readable_with_no_record,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_kmsg_unreadable_says_why, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test(test_kmsg_live_device_reads_until_eagain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
