/*
 * Helpers for the tests of text outputs: render into memory
 * (open_memstream), leave ANSI escapes out, count display columns (UTF-8:
 * one per character, so µ is one), find a line by its start, read back the
 * rows of a table and the cells of a strip (out/text_many.h). Include it
 * after cmocka.h: the checks fail through cmocka.
 */
#ifndef JITTERLAB_TEST_TEXT_H
#define JITTERLAB_TEST_TEXT_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/text_many.h"

struct text {
    char *buf;
    size_t len;
    FILE *fp;
};

static inline FILE *text_open(struct text *t)
{
    t->buf = NULL;
    t->len = 0;
    t->fp = open_memstream(&t->buf, &t->len);
    assert_non_null(t->fp);
    return t->fp;
}

static inline const char *text_close(struct text *t)
{
    fclose(t->fp);
    return t->buf;
}

/* A copy of s without ANSI escapes (ESC [ ... final byte). */
static inline char *strip_ansi(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    assert_non_null(out);
    while (*s) {
        if (s[0] == '\033' && s[1] == '[') {
            s += 2;
            while (*s && !(*s >= 0x40 && *s <= 0x7e))
                s++;
            if (*s)
                s++;
            continue;
        }
        *o++ = *s++;
    }
    *o = '\0';
    return out;
}

/* Display columns of one line: UTF-8 continuation bytes take none. */
static inline int columns(const char *line, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)line[i] & 0xc0) != 0x80)
            n++;
    return n;
}

static inline void assert_fits_100_columns(const char *text)
{
    char *plain = strip_ansi(text);
    for (const char *p = plain; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (columns(p, len) > TEXT_MANY_COLUMNS)
            fail_msg("%d columns: '%.*s'", columns(p, len), (int)len, p);
        p += len + (nl ? 1 : 0);
    }
    free(plain);
}

/* The line that starts with prefix (after ANSI escapes are left out), or
 * NULL; *next is where the line after it starts. */
static inline const char *line_starting(const char *plain, const char *prefix, const char **next)
{
    for (const char *p = plain; *p;) {
        const char *nl = strchr(p, '\n');
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            if (next)
                *next = nl ? nl + 1 : p + strlen(p);
            return p;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    return NULL;
}

/* A row of a table: a CPU number, then a number. */
static inline bool is_row(const char *line)
{
    int cpu;
    double v;
    return sscanf(line, "%d %lf", &cpu, &v) == 2;
}

/* The rows right after the line starting with title: exactly n, and the
 * CPU of each (its first number) as in want: a worst list. */
static inline void assert_rows_name(const char *plain, const char *title, const int *want, int n)
{
    const char *p = NULL;
    if (!line_starting(plain, title, &p))
        fail_msg("no line '%s' in:\n%s", title, plain);
    int k = 0;
    for (; *p && is_row(p); k++) {
        int cpu = -1;
        sscanf(p, "%d", &cpu);
        if (k < n && cpu != want[k])
            fail_msg("%s row %d: CPU %d, want %d", title, k, cpu, want[k]);
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    if (k != n)
        fail_msg("%s: %d rows, want %d", title, k, n);
}

static inline int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The strip after its legend line: every cell in order; returns how many. */
static inline int strip_cells(const char *plain, const char *legend, char *cells, int max)
{
    const char *p = NULL;
    if (!line_starting(plain, legend, &p))
        fail_msg("no strip legend '%s'", legend);
    int n = 0;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        int first;
        if (len < 7 || sscanf(p, "%d", &first) != 1)
            break;
        for (size_t i = 6; i < len; i++)
            if (p[i] != ' ' && n < max)
                cells[n++] = p[i];
        p += len + (nl ? 1 : 0);
    }
    return n;
}

#endif
