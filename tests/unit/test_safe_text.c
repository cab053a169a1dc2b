/*
 * Unit tests for src/common/safe_text.c and json_text.c: the text form of
 * machine strings is valid UTF-8 that decodes back to the same bytes, and
 * the terminal form shows control bytes instead of passing them on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_text.h"
#include "common/safe_text.h"

static void text_is(const char *in, const char *want)
{
    char out[256];
    size_t need = safe_text(out, sizeof out, in);
    assert_string_equal(out, want);
    assert_int_equal(need, strlen(want));
}

static void round_trips(const char *in)
{
    char form[256], back[256];
    safe_text(form, sizeof form, in);
    /* jansson takes only valid UTF-8: the form always is */
    json_t *j = json_string(form);
    assert_non_null(j);
    json_decref(j);
    assert_int_equal(safe_text_decode(form, back, sizeof back), (int)strlen(in));
    assert_string_equal(back, in);
}

static void test_safe_text_keeps_valid_utf8(void **state)
{
    (void)state;
    text_is("ksoftirqd/1", "ksoftirqd/1");
    text_is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    text_is("", "");
    text_is(NULL, "");
}

static void test_safe_text_escapes_invalid_bytes(void **state)
{
    (void)state;
    text_is("a\xff"
            "b",
            "a\\xffb");
    text_is("\x80", "\\x80");
    /* overlong encodings of '/' and of U+0000 */
    text_is("\xc0\xaf", "\\xc0\\xaf");
    text_is("\xe0\x80\xaf", "\\xe0\\x80\\xaf");
    text_is("\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf");
    /* a UTF-16 surrogate, and a code point beyond U+10FFFF */
    text_is("\xed\xa0\x80", "\\xed\\xa0\\x80");
    text_is("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
    /* sequences cut short, at the end and before a valid character */
    text_is("x\xe2\x82", "x\\xe2\\x82");
    text_is("\xf0\x9f\x98"
            "A",
            "\\xf0\\x9f\\x98A");
}

static void test_safe_text_doubles_backslash(void **state)
{
    (void)state;
    text_is("a\\b", "a\\\\b");
    /* a name that already reads like an escape stays apart from one */
    text_is("\\xff", "\\\\xff");
}

static void test_safe_text_round_trips(void **state)
{
    (void)state;
    const char *cases[] = {"plain",     "\xff\xfe",
                           "\\x41",     "\x1b[31mred\x1b[0m",
                           "\\\\\xc3",  "\xed\xa0\x80\xc0\xaf",
                           "tab\there", "\xf4\x90\x80\x80!"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        round_trips(cases[i]);
    char all[256];
    for (int i = 1; i < 256; i++)
        all[i - 1] = (char)i;
    all[255] = '\0';
    char *form = safe_text_dup(all);
    assert_non_null(form);
    char *back = malloc(strlen(form) + 1);
    assert_non_null(back);
    assert_int_equal(safe_text_decode(form, back, strlen(form) + 1), 255);
    assert_memory_equal(back, all, 256);
    free(back);
    free(form);
}

static void test_safe_text_decode_refuses_what_is_no_form(void **state)
{
    (void)state;
    char out[64];
    assert_int_equal(safe_text_decode("a\\", out, sizeof out), -1);
    assert_int_equal(safe_text_decode("\\q", out, sizeof out), -1);
    assert_int_equal(safe_text_decode("\\x4", out, sizeof out), -1);
    assert_int_equal(safe_text_decode("\\xg0", out, sizeof out), -1);
    assert_int_equal(safe_text_decode("\\x00", out, sizeof out), -1);
    assert_int_equal(safe_text_decode("abcdef", out, 4), -1);
    assert_int_equal(safe_text_decode("\\x4A\\x4b", out, sizeof out), 2);
    assert_string_equal(out, "JK");
}

static void test_safe_text_cuts_at_whole_pieces(void **state)
{
    (void)state;
    char out[6];
    /* "ab" + "\xff" (4) would need 7 bytes with the terminator */
    assert_int_equal(safe_text(out, sizeof out, "ab\xff"), 6);
    assert_string_equal(out, "ab");
    assert_int_equal(safe_text(out, 4, "\xe2\x82\xac\xe2\x82\xac"), 6);
    assert_string_equal(out, "\xe2\x82\xac");
    assert_int_equal(safe_text(out, 3, "\\\\"), 4);
    assert_string_equal(out, "\\\\");
    char term[5];
    assert_string_equal(safe_text_term(term, sizeof term, "a\x1b[1m"), "a");
}

static void test_safe_text_term_shows_control_bytes(void **state)
{
    (void)state;
    char out[256];
    assert_string_equal(safe_text_term(out, sizeof out, "\x1b]0;pwned\x07"), "\\x1b]0;pwned\\x07");
    assert_string_equal(safe_text_term(out, sizeof out,
                                       "a\x7f"
                                       "b\n\r\t"),
                        "a\\x7fb\\x0a\\x0d\\x09");
    /* C1 controls: CSI as one byte (invalid) and as UTF-8 U+009B */
    assert_string_equal(safe_text_term(out, sizeof out,
                                       "\x9b"
                                       "2J\xc2\x9b"
                                       "2J"),
                        "\\x9b2J\\xc2\\x9b2J");
    assert_string_equal(safe_text_term(out, sizeof out, "caf\xc3\xa9\xff\\x"),
                        "caf\xc3\xa9\\xff\\x");
    assert_string_equal(safe_text_term(out, sizeof out, NULL), "");
}

static void test_json_text_never_loses_a_name(void **state)
{
    (void)state;
    json_t *o = json_object();
    json_object_set_new(o, "name", json_text_new("bad\xff\x1b[2J"));
    assert_string_equal(json_string_value(json_object_get(o, "name")), "bad\\xff\x1b[2J");
    char *dump = json_dumps(o, JSON_COMPACT);
    assert_string_equal(dump, "{\"name\":\"bad\\\\xff\\u001B[2J\"}");
    free(dump);
    json_decref(o);
    char big[1000];
    memset(big, 0xff, sizeof big - 1);
    big[sizeof big - 1] = '\0';
    json_t *j = json_text_new(big);
    assert_int_equal(json_string_length(j), 4 * (sizeof big - 1));
    json_decref(j);
    j = json_text_or_null("");
    assert_true(json_is_null(j));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_safe_text_keeps_valid_utf8),
        cmocka_unit_test(test_safe_text_escapes_invalid_bytes),
        cmocka_unit_test(test_safe_text_doubles_backslash),
        cmocka_unit_test(test_safe_text_round_trips),
        cmocka_unit_test(test_safe_text_decode_refuses_what_is_no_form),
        cmocka_unit_test(test_safe_text_cuts_at_whole_pieces),
        cmocka_unit_test(test_safe_text_term_shows_control_bytes),
        cmocka_unit_test(test_json_text_never_loses_a_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
