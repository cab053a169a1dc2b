/*
 * Unit tests for src/out/report_doctor.c: a doctor document in a report
 * names the runs to draw (the baseline, the first before and after runs
 * of each change kept, the final state's run) and is refused when it is
 * not a doctor document or its treatment is not an object with items.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out/report_doctor.h"

static char *write_doc(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/jl-report-doctor.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

#define HEAD "{\"tool\": \"jitterlab\", \"schema\": 1, \"kind\": \"doctor\", "

static void test_report_doctor_names_the_runs_of_the_changes_kept(void **state)
{
    (void)state;
    char *path = write_doc(
        HEAD "\"baseline\": {\"result\": \"d/baseline.json\"}, \"treatment\": {\"items\": ["
             "{\"status\": \"put-back\", \"before_runs\": [\"d/t1b.json\"], \"after_runs\": "
             "[\"d/t1a.json\"]},"
             "{\"status\": \"kept\", \"before_runs\": [\"d/t2b.json\", \"d/t2b2.json\"], "
             "\"after_runs\": [\"d/t2a.json\"]},"
             "{\"status\": \"kept\", \"before_runs\": [7], \"after_runs\": []}], "
             "\"final_result\": \"d/final.json\"}}\n");
    struct report_doctor d;
    char err[200];
    assert_int_equal(report_doctor_read(path, &d, err, sizeof err), 0);
    assert_int_equal(d.nrun, 4);
    assert_string_equal(d.run[0], "d/baseline.json");
    assert_string_equal(d.run[1], "d/t2b.json");
    assert_string_equal(d.run[2], "d/t2a.json");
    assert_string_equal(d.run[3], "d/final.json");
    report_doctor_free(&d);
    unlink(path);
}

static void test_report_doctor_refuses_what_is_not_one(void **state)
{
    (void)state;
    struct report_doctor d;
    char err[200];
    char *path = write_doc("{\"tool\": \"jitterlab\", \"schema\": 1, \"kind\": \"run\"}\n");
    assert_int_equal(report_doctor_read(path, &d, err, sizeof err), -1);
    assert_string_equal(err, "not a doctor document");
    unlink(path);
    path = write_doc(HEAD "\"treatment\": {\"items\": 5}}\n");
    assert_int_equal(report_doctor_read(path, &d, err, sizeof err), -1);
    assert_string_equal(err, "treatment: not an object with items");
    unlink(path);
    /* without --apply: the baseline only, or nothing when it was removed */
    path = write_doc(HEAD "\"baseline\": {\"result\": null}}\n");
    assert_int_equal(report_doctor_read(path, &d, err, sizeof err), 0);
    assert_int_equal(d.nrun, 0);
    report_doctor_free(&d);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_doctor_names_the_runs_of_the_changes_kept),
        cmocka_unit_test(test_report_doctor_refuses_what_is_not_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
