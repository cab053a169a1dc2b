/*
 * Copying and appending text into fixed-size buffers and the fields of
 * plain-data structs: what does not fit is cut (at a byte) and the result
 * is always terminated.
 */
#ifndef JITTERLAB_COMMON_TEXT_H
#define JITTERLAB_COMMON_TEXT_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static inline void text_copy(char *dst, size_t len, const char *src)
{
    if (len == 0)
        return;
    size_t n = strnlen(src, len - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Appends to buf (NUL-terminated, len bytes) without overrunning it. */
__attribute__((format(printf, 3, 4))) static inline void text_append(char *buf, size_t len,
                                                                     const char *fmt, ...)
{
    size_t used = strnlen(buf, len);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

#endif
