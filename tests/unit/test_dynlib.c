/*
 * Unit tests for src/common/dynlib.c and the two loaded APIs: a library
 * that is not there and a symbol it lacks are named in the error; libcurl
 * and libmicrohttpd load with every entry point the code calls.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/dynlib.h"
#include "export/curl_api.h"
#include "export/mhd_api.h"

struct one_fn {
    size_t (*len)(const char *s);
};

static void test_dynlib_names_a_missing_library(void **state)
{
    (void)state;
    struct one_fn api = {0};
    const struct dynlib_symbol sym[] = {{"strlen", offsetof(struct one_fn, len)}};
    char err[256];
    assert_null(dynlib_open("libjitterlab-none.so.9", sym, 1, &api, err, sizeof err));
    assert_non_null(strstr(err, "cannot load libjitterlab-none.so.9"));
}

static void test_dynlib_names_a_missing_symbol_and_fills_the_rest(void **state)
{
    (void)state;
    struct one_fn api = {0};
    const struct dynlib_symbol good[] = {{"strlen", offsetof(struct one_fn, len)}};
    const struct dynlib_symbol bad[] = {{"jitterlab_no_such_symbol", 0}};
    char err[256];
    void *h = dynlib_open("libc.so.6", good, 1, &api, err, sizeof err);
    assert_non_null(h);
    assert_int_equal(api.len("four"), 4);
    dynlib_close(h);
    assert_null(dynlib_open("libc.so.6", bad, 1, &api, err, sizeof err));
    assert_string_equal(err, "libc.so.6 has no jitterlab_no_such_symbol");
}

static void test_curl_and_microhttpd_load_every_entry_point(void **state)
{
    (void)state;
    char err[256];
    struct curl_api c;
    memset(&c, 0, sizeof c);
    void *h = curl_api_load(&c, err, sizeof err);
    assert_non_null(h);
    assert_non_null(c.easy_init);
    assert_non_null(c.slist_free_all);
    assert_string_equal(c.easy_strerror(CURLE_OK), "No error");
    dynlib_close(h);
    struct mhd_api m;
    memset(&m, 0, sizeof m);
    h = mhd_api_load(&m, err, sizeof err);
    assert_non_null(h);
    assert_non_null(m.start_daemon);
    assert_non_null(m.lookup_connection_value);
    dynlib_close(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dynlib_names_a_missing_library),
        cmocka_unit_test(test_dynlib_names_a_missing_symbol_and_fills_the_rest),
        cmocka_unit_test(test_curl_and_microhttpd_load_every_entry_point),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
