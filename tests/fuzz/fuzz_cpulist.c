/*
 * Fuzz target: the CPU list parser (src/sys/cpulist.c). An accepted list is
 * ascending and unique, formats, parses back to itself, and agrees with
 * cpulist_text_contains.
 */
#include "fuzz.h"

#include "sys/cpulist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct cpulist list, again;
    char *text = fuzz_cstring(data, size);
    const char *why = NULL;
    if (cpulist_parse(text, &list, &why) != 0) {
        if (!why || list.count != 0)
            abort();
        free(text);
        return 0;
    }
    for (int i = 0; i < list.count; i++)
        if (list.cpu[i] < 0 || list.cpu[i] >= CPULIST_MAX_CPUS ||
            (i > 0 && list.cpu[i] <= list.cpu[i - 1]))
            abort();
    static char formatted[CPULIST_MAX_CPUS * 6];
    if (cpulist_format(&list, formatted, sizeof formatted) != 0)
        abort();
    if (cpulist_parse(formatted, &again, &why) != 0 || again.count != list.count ||
        memcmp(again.cpu, list.cpu, (size_t)list.count * sizeof list.cpu[0]) != 0)
        abort();
    for (int cpu = 0; cpu < 64; cpu++)
        if (cpulist_text_contains(text, cpu) != cpulist_contains(&list, cpu))
            abort();
    free(text);
    return 0;
}
