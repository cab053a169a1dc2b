/*
 * The text and terminal forms of machine strings (safe_text.h). One walk
 * over the bytes serves both: each step is either a whole valid UTF-8
 * character, copied or escaped by the form's rule, or one byte escaped as
 * \xNN. A piece is written whole or not at all, so a cut never splits a
 * character or an escape.
 */
#include "common/safe_text.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t safe_text_utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return c ? 1 : 0;
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf; /* range of the second byte */
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        else if (c == 0xed)
            hi = 0x9f; /* UTF-16 surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90; /* overlong */
        else if (c == 0xf4)
            hi = 0x8f; /* beyond U+10FFFF */
    } else
        return 0; /* continuation byte, overlong lead (C0, C1) or F5-FF */
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

/* Output with a cut at whole pieces; need counts the whole form. */
struct sink {
    char *out;
    size_t len, used, need;
    bool full;
};

static void put(struct sink *k, const char *piece, size_t n)
{
    k->need += n;
    if (k->full || k->len == 0 || k->used + n >= k->len) {
        k->full = true;
        return;
    }
    memcpy(k->out + k->used, piece, n);
    k->used += n;
}

static void put_byte_escape(struct sink *k, unsigned char c)
{
    char esc[5];
    snprintf(esc, sizeof esc, "\\x%02x", c);
    put(k, esc, 4);
}

static void finish(struct sink *k)
{
    if (k->len > 0)
        k->out[k->used] = '\0';
}

/* A character the terminal would act on rather than show. */
static bool is_control(const unsigned char *s, size_t n)
{
    if (n == 1)
        return s[0] < 0x20 || s[0] == 0x7f;
    return n == 2 && s[0] == 0xc2 && s[1] < 0xa0; /* C1: U+0080-U+009F */
}

size_t safe_text(char *out, size_t len, const char *s)
{
    struct sink k = {.out = out, .len = len};
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        size_t n = safe_text_utf8_len(p);
        if (n == 0) {
            put_byte_escape(&k, *p++);
            continue;
        }
        if (*p == '\\')
            put(&k, "\\\\", 2);
        else
            put(&k, (const char *)p, n);
        p += n;
    }
    finish(&k);
    return k.need;
}

char *safe_text_dup(const char *s)
{
    size_t need = safe_text(NULL, 0, s);
    char *out = malloc(need + 1);
    if (out)
        safe_text(out, need + 1, s);
    return out;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int safe_text_decode(const char *s, char *out, size_t len)
{
    if (len == 0)
        return -1;
    size_t used = 0;
    for (const char *p = s; *p;) {
        char c = *p++;
        if (c == '\\') {
            if (*p == '\\') {
                p++;
            } else if (*p == 'x' && hex_digit(p[1]) >= 0 && hex_digit(p[2]) >= 0) {
                c = (char)(hex_digit(p[1]) * 16 + hex_digit(p[2]));
                p += 3;
                if (c == '\0')
                    return -1;
            } else
                return -1;
        }
        if (used + 1 >= len)
            return -1;
        out[used++] = c;
    }
    out[used] = '\0';
    return (int)used;
}

const char *safe_text_term(char *out, size_t len, const char *s)
{
    struct sink k = {.out = out, .len = len};
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        size_t n = safe_text_utf8_len(p);
        if (n == 0 || is_control(p, n)) {
            for (size_t i = 0; i < (n ? n : 1); i++)
                put_byte_escape(&k, p[i]);
            p += n ? n : 1;
            continue;
        }
        put(&k, (const char *)p, n);
        p += n;
    }
    finish(&k);
    return out;
}
