/*
 * Fuzz target: the duration and integer parsers of src/common/units.c
 * (what --interval, --duration and load phases go through). Accepted values
 * are never negative, the bounded parser never returns more than its bound,
 * and every accepted value formats.
 */
#include "fuzz.h"

#include "common/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstring(data, size);
    const char *why = NULL;
    int64_t ns = -1;
    char buf[64];
    static const int64_t bare_units[] = {1, NS_PER_US, NS_PER_S};
    for (size_t i = 0; i < sizeof bare_units / sizeof bare_units[0]; i++) {
        if (parse_duration_ns(text, bare_units[i], &ns, &why) == 0) {
            if (ns < 0)
                abort();
            format_duration(ns, buf, sizeof buf);
        } else if (!why) {
            abort();
        }
        if (parse_duration_bounded_ns(text, bare_units[i], &ns, &why) == 0 &&
            (ns < 0 || ns > DURATION_MAX_NS))
            abort();
    }
    long v = 0;
    if (parse_int_range(text, -100, 100, &v, &why) == 0 && (v < -100 || v > 100))
        abort();
    free(text);
    return 0;
}
