/*
 * Fuzz target: the text and terminal forms of machine strings
 * (src/common/safe_text.c). The text form of any bytes is valid UTF-8
 * (jansson takes it), decodes back to the same bytes and is decodable
 * after any cut; the terminal form holds no control byte; decoding any
 * input never writes past its buffer.
 */
#include "fuzz.h"

#include "common/json_text.h"
#include "common/safe_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fuzz_cstring(data, size);
    size_t n = strlen(in);
    char *form = safe_text_dup(in);
    if (!form)
        abort();
    json_t *j = json_string(form);
    if (!j)
        abort();
    json_decref(j);
    char *back = malloc(strlen(form) + 1);
    if (!back || safe_text_decode(form, back, strlen(form) + 1) != (int)n || memcmp(back, in, n))
        abort();
    char cut[17];
    safe_text(cut, sizeof cut, in);
    if (safe_text_decode(cut, back, sizeof cut) < 0)
        abort();
    (void)safe_text_decode(in, back, n + 1);
    char term[64];
    safe_text_term(term, sizeof term, in);
    for (const unsigned char *p = (const unsigned char *)term; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            abort();
    json_decref(json_text_new(in));
    free(back);
    free(form);
    free(in);
    return 0;
}
