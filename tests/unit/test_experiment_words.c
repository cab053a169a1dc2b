/*
 * The experiment file's word splitter (src/experiment/words.c): shell
 * quoting without any expansion, every error it reports, and words_quote
 * writing words back so that they split the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "experiment/words.h"

/* Splits text and compares with the expected words, NULL-terminated. */
static void expect_words(const char *text, const char *const *want)
{
    struct words w = {0};
    char why[128] = "";
    if (words_split(text, &w, why, sizeof(why)) != 0)
        fail_msg("'%s': %s", text, why);
    int n = 0;
    while (want[n])
        n++;
    if (w.count != n)
        fail_msg("'%s': %d words, want %d", text, w.count, n);
    for (int i = 0; i < n; i++)
        if (strcmp(w.word[i], want[i]) != 0)
            fail_msg("'%s': word %d is '%s', want '%s'", text, i, w.word[i], want[i]);
    assert_null(w.word[n]);
    words_free(&w);
}

static void test_words_split_at_blanks_tabs_and_newlines(void **state)
{
    (void)state;
    expect_words("-a 1  -D\t5s\n--workload ptrchase ",
                 (const char *[]){"-a", "1", "-D", "5s", "--workload", "ptrchase", NULL});
    expect_words("", (const char *[]){NULL});
    expect_words("   \t ", (const char *[]){NULL});
}

static void test_words_quotes_keep_blanks_and_join_with_neighbours(void **state)
{
    (void)state;
    expect_words("--load 'cmd:stress-ng --cpu 1' x",
                 (const char *[]){"--load", "cmd:stress-ng --cpu 1", "x", NULL});
    expect_words("\"a b\"c'd e'", (const char *[]){"a bcd e", NULL});
    expect_words("'' \"\"", (const char *[]){"", "", NULL});
    expect_words("'it'\\''s'", (const char *[]){"it's", NULL});
}

static void test_words_backslashes_as_in_a_shell(void **state)
{
    (void)state;
    /* outside quotes: the next character is literal */
    expect_words("a\\ b c\\\"d \\'", (const char *[]){"a b", "c\"d", "'", NULL});
    /* a backslash-newline joins */
    expect_words("ab\\\ncd", (const char *[]){"abcd", NULL});
    /* in double quotes only \" \\ \$ \` and \newline are escapes */
    expect_words("\"a\\\"b\\\\c\\$d\\`e\\nf\"", (const char *[]){"a\"b\\c$d`e\\nf", NULL});
    /* in single quotes nothing is */
    expect_words("'a\\b\\'", (const char *[]){"a\\b\\", NULL});
}

static void test_words_never_expand_anything(void **state)
{
    (void)state;
    expect_words("$HOME * ~ `date` $(id) ${X}",
                 (const char *[]){"$HOME", "*", "~", "`date`", "$(id)", "${X}", NULL});
    expect_words("a;b | c > d", (const char *[]){"a;b", "|", "c", ">", "d", NULL});
}

static void expect_error(const char *text, const char *why_want)
{
    struct words w = {0};
    char why[128] = "";
    assert_int_equal(words_split(text, &w, why, sizeof(why)), -1);
    assert_string_equal(why, why_want);
    assert_int_equal(w.count, 0);
    assert_null(w.word);
}

static void test_words_errors(void **state)
{
    (void)state;
    expect_error("-a 'one", "unterminated single quote");
    expect_error("-a \"one", "unterminated double quote");
    expect_error("-a \"one\\\"", "unterminated double quote");
    expect_error("-a one\\", "ends with a backslash");
    char many[4 * WORDS_MAX + 8] = "";
    for (int i = 0; i <= WORDS_MAX; i++)
        strcat(many, "x ");
    expect_error(many, "more than 256 words");
}

static void test_words_quote_round_trips(void **state)
{
    (void)state;
    const char *words[] = {"plain-word_1.2:3,4@5%6+7=8/9",
                           "a b",
                           "",
                           "it's",
                           "\"q\"",
                           "$HOME",
                           "a\\b",
                           "tab\there",
                           "*"};
    char line[1024] = "";
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (i)
            strcat(line, " ");
        words_quote(words[i], line, sizeof(line));
    }
    assert_non_null(strstr(line, "plain-word_1.2:3,4@5%6+7=8/9 'a b' '' 'it'\\''s'"));
    struct words w = {0};
    char why[64];
    assert_int_equal(words_split(line, &w, why, sizeof(why)), 0);
    assert_int_equal(w.count, (int)(sizeof(words) / sizeof(words[0])));
    for (int i = 0; i < w.count; i++)
        assert_string_equal(w.word[i], words[i]);
    words_free(&w);
}

static void test_words_quote_never_overruns(void **state)
{
    (void)state;
    char small[8] = "ab";
    words_quote("it's long", small, sizeof(small));
    assert_int_equal(strlen(small), 7);
    char full[3] = "ab";
    words_quote("x", full, sizeof(full));
    assert_string_equal(full, "ab");
}

static void test_words_append(void **state)
{
    (void)state;
    struct words w = {0};
    char why[64];
    assert_int_equal(words_append(&w, "run", why, sizeof(why)), 0);
    assert_int_equal(words_append(&w, "", why, sizeof(why)), 0);
    assert_int_equal(w.count, 2);
    assert_string_equal(w.word[0], "run");
    assert_string_equal(w.word[1], "");
    assert_null(w.word[2]);
    words_free(&w);
    assert_int_equal(w.count, 0);
    words_free(&w); /* twice is harmless */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words_split_at_blanks_tabs_and_newlines),
        cmocka_unit_test(test_words_quotes_keep_blanks_and_join_with_neighbours),
        cmocka_unit_test(test_words_backslashes_as_in_a_shell),
        cmocka_unit_test(test_words_never_expand_anything),
        cmocka_unit_test(test_words_errors),
        cmocka_unit_test(test_words_quote_round_trips),
        cmocka_unit_test(test_words_quote_never_overruns),
        cmocka_unit_test(test_words_append),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
