/*
 * Unit tests for src/common/redact.c: the credentials of every URL in a
 * text, and nothing else, become "***".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/redact.h"

static void expect_redacted(const char *in, const char *want)
{
    char *got = redact_dup(in);
    assert_non_null(got);
    if (strcmp(got, want) != 0)
        fail_msg("'%s': '%s', want '%s'", in, got, want);
    assert_int_equal(redact_needed(in), strcmp(in, want) != 0);
    assert_false(redact_needed(got)); /* twice changes nothing */
    free(got);
}

static void test_redact_user_info_and_secret_query_parameters(void **state)
{
    (void)state;
    expect_redacted("http://user:secret@127.0.0.1:8086/write?db=jl&u=admin&p=secret2",
                    "http://***@127.0.0.1:8086/write?db=jl&u=***&p=***");
    expect_redacted("--influx=https://tok@en@h/api/v2/write?org=o&bucket=b&token=t0k",
                    "--influx=https://***@h/api/v2/write?org=o&bucket=b&token=***");
    expect_redacted("http://h:8086/write?P=x;Password=y#frag",
                    "http://h:8086/write?P=***;Password=***#frag");
    expect_redacted("a http://u:p@a/ and udp://v:q@b:1 end",
                    "a http://***@a/ and udp://***@b:1 end");
    expect_redacted("http://h/write?db=x&u=", "http://h/write?db=x&u=***");
}

static void test_redact_leaves_what_holds_no_secret(void **state)
{
    (void)state;
    expect_redacted("http://127.0.0.1:8086/write?db=jl&precision=ns",
                    "http://127.0.0.1:8086/write?db=jl&precision=ns");
    expect_redacted("/var/log/jl.influx", "/var/log/jl.influx");
    expect_redacted("mail me@host, p=3", "mail me@host, p=3");
    expect_redacted("http://h/p@th?up=1", "http://h/p@th?up=1");
    expect_redacted("", "");
    expect_redacted("://", "://");
}

static void test_redact_in_place_cuts_to_fit(void **state)
{
    (void)state;
    char buf[20] = "http://u:pw@h/x";
    redact_in_place(buf, sizeof buf);
    assert_string_equal(buf, "http://***@h/x");
    char small[12] = "http://a@b";
    redact_in_place(small, sizeof small);
    assert_string_equal(small, "http://***@");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_redact_user_info_and_secret_query_parameters),
        cmocka_unit_test(test_redact_leaves_what_holds_no_secret),
        cmocka_unit_test(test_redact_in_place_cuts_to_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
