/*
 * Fuzz target: the resctrl schemata parser (src/sys/resctrl.c). Accepted or
 * not, the group stays within its bounds; an accepted text's L3 masks,
 * written back in the kernel's form, parse to the same masks.
 */
#include "fuzz.h"

#include "sys/resctrl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct resctrl_group g, again;
    char *text = fuzz_cstring(data, size);
    const char *why = NULL;
    if (resctrl_parse_schemata(text, &g, &why) != 0) {
        if (!why)
            abort();
        free(text);
        return 0;
    }
    if (g.ndomains < 0 || g.ndomains > RESCTRL_MAX_DOMAINS)
        abort();
    static char line[RESCTRL_MAX_DOMAINS * 32 + 8];
    size_t o = (size_t)snprintf(line, sizeof line, "L3:");
    for (int i = 0; i < g.ndomains; i++)
        o += (size_t)snprintf(line + o, sizeof line - o, "%s%d=%llx", i ? ";" : "", g.domain[i].id,
                              (unsigned long long)g.domain[i].mask);
    if (resctrl_parse_schemata(line, &again, &why) != 0 || again.ndomains != g.ndomains)
        abort();
    for (int i = 0; i < g.ndomains; i++)
        if (again.domain[i].id != g.domain[i].id || again.domain[i].mask != g.domain[i].mask)
            abort();
    free(text);
    return 0;
}
