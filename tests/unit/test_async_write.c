/*
 * Unit tests for src/common/async_write.c: every record reaches the file,
 * in order, as its text, across many buffer hand-overs; a flush makes the
 * rows so far readable while the writer goes on; finish leaves the file
 * complete and the FILE to the caller.
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

#include "common/async_write.h"

static size_t format_numbers(const void *ctx, const void *in, size_t n, char *out)
{
    (void)ctx;
    const uint64_t *v = in;
    size_t len = 0;
    for (size_t k = 0; k < n; k++)
        len += (size_t)sprintf(out + len, "%llu\n", (unsigned long long)v[k]);
    return len;
}

static void test_async_write_keeps_every_record_in_order(void **state)
{
    (void)state;
    char path[] = "/tmp/jl-aw-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fputs("header\n", fp);
    char err[128];
    struct async_write *w =
        async_write_start(fp, sizeof(uint64_t), format_numbers, NULL, err, sizeof err);
    assert_non_null(w);
    enum { N = 200000 }; /* many buffers of 8192 records */
    for (uint64_t i = 0; i < N; i++)
        *(uint64_t *)async_write_record(w) = i;
    async_write_finish(w);
    assert_int_equal(ferror(fp), 0);
    fclose(fp);
    FILE *in = fopen(path, "r");
    char line[64];
    assert_non_null(fgets(line, sizeof line, in));
    assert_string_equal(line, "header\n");
    uint64_t next = 0;
    while (fgets(line, sizeof line, in)) {
        assert_int_equal(strtoull(line, NULL, 10), next);
        next++;
    }
    assert_int_equal(next, N);
    fclose(in);
    unlink(path);
}

static void test_async_write_flush_makes_rows_readable_while_it_goes_on(void **state)
{
    (void)state;
    char path[] = "/tmp/jl-aw-XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    char err[128];
    struct async_write *w =
        async_write_start(fp, sizeof(uint64_t), format_numbers, NULL, err, sizeof err);
    assert_non_null(w);
    for (uint64_t i = 0; i < 10; i++)
        *(uint64_t *)async_write_record(w) = i;
    async_write_flush(w);
    /* the writer flushes after the buffer; wait for it, bounded */
    off_t size = 0;
    for (int tries = 0; tries < 2000 && size < 20; tries++) {
        FILE *in = fopen(path, "r");
        fseek(in, 0, SEEK_END);
        size = ftell(in);
        fclose(in);
        if (size < 20)
            usleep(1000);
    }
    assert_int_equal(size, 20); /* "0\n" .. "9\n" */
    *(uint64_t *)async_write_record(w) = 10;
    async_write_finish(w);
    fclose(fp);
    FILE *in = fopen(path, "r");
    fseek(in, 0, SEEK_END);
    assert_int_equal(ftell(in), 23);
    fclose(in);
    unlink(path);
}

static void test_async_write_with_nothing_written_leaves_the_file_as_it_was(void **state)
{
    (void)state;
    char path[] = "/tmp/jl-aw-XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    fputs("cpu,t_ns\n", fp);
    char err[128];
    struct async_write *w = async_write_start(fp, 16, format_numbers, NULL, err, sizeof err);
    assert_non_null(w);
    async_write_finish(w);
    fclose(fp);
    FILE *in = fopen(path, "r");
    char line[64];
    assert_non_null(fgets(line, sizeof line, in));
    assert_string_equal(line, "cpu,t_ns\n");
    assert_null(fgets(line, sizeof line, in));
    fclose(in);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_async_write_keeps_every_record_in_order),
        cmocka_unit_test(test_async_write_flush_makes_rows_readable_while_it_goes_on),
        cmocka_unit_test(test_async_write_with_nothing_written_leaves_the_file_as_it_was),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
