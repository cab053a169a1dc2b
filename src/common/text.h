/*
 * Copying text into the fixed-size fields of plain-data structs: what does
 * not fit is cut (at a byte) and the result is always terminated.
 */
#ifndef JITTERLAB_COMMON_TEXT_H
#define JITTERLAB_COMMON_TEXT_H

#include <string.h>

static inline void text_copy(char *dst, size_t len, const char *src)
{
    if (len == 0)
        return;
    size_t n = strnlen(src, len - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

#endif
