/*
 * Reads /proc/sys/kernel/{sched_rt_runtime_us, sched_rt_period_us,
 * timer_migration, nmi_watchdog, watchdog}, the transparent hugepage switches
 * and the swap lines of /proc/meminfo. /proc/meminfo rather than /proc/swaps:
 * "used" is SwapTotal - SwapFree in one consistent snapshot.
 */
#include "sys/kernel_tunables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"

int sysfs_selected_word(const char *text, char *buf, size_t len)
{
    buf[0] = '\0';
    const char *open = strchr(text, '[');
    const char *close = open ? strchr(open, ']') : NULL;
    if (!open || !close || close == open + 1)
        return -1;
    size_t n = (size_t)(close - open - 1);
    if (n >= len)
        n = len - 1;
    memcpy(buf, open + 1, n);
    buf[n] = '\0';
    return 0;
}

static void read_choice(const struct sysroot *sr, const char *path, char *buf, size_t len,
                        struct read_notes *notes)
{
    char text[256];
    buf[0] = '\0';
    if (read_text(sr, path, text, sizeof text) != READ_OK)
        return;
    if (sysfs_selected_word(text, buf, len) != 0)
        read_notes_add(notes, path, "no [selected] choice");
}

/* "SwapTotal:  8388604 kB" -> 8388604 */
static int64_t meminfo_kb(const char *meminfo, const char *key)
{
    size_t n = strlen(key);
    for (const char *line = meminfo; line && *line;) {
        if (strncmp(line, key, n) == 0 && line[n] == ':') {
            char *end = NULL;
            long long v = strtoll(line + n + 1, &end, 10);
            if (end != line + n + 1 && v >= 0)
                return v;
            return VALUE_UNKNOWN;
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return VALUE_UNKNOWN;
}

void kernel_tunables_read(const struct sysroot *sr, struct kernel_tunables *out,
                          struct read_notes *notes)
{
    memset(out, 0, sizeof *out);
    read_int_noted(sr, "/proc/sys/kernel/sched_rt_runtime_us", &out->sched_rt_runtime_us, notes);
    read_int_noted(sr, "/proc/sys/kernel/sched_rt_period_us", &out->sched_rt_period_us, notes);
    read_int_noted(sr, "/proc/sys/kernel/timer_migration", &out->timer_migration, notes);
    read_int_noted(sr, "/proc/sys/kernel/nmi_watchdog", &out->nmi_watchdog, notes);
    read_int_noted(sr, "/proc/sys/kernel/watchdog", &out->watchdog, notes);
    read_choice(sr, THP_DIR "/enabled", out->thp_enabled, sizeof out->thp_enabled, notes);
    read_choice(sr, THP_DIR "/defrag", out->thp_defrag, sizeof out->thp_defrag, notes);

    out->swap_total_kb = out->swap_free_kb = VALUE_UNKNOWN;
    char *meminfo = malloc(16384);
    if (!meminfo)
        return;
    if (read_text(sr, "/proc/meminfo", meminfo, 16384) == READ_OK) {
        out->swap_total_kb = meminfo_kb(meminfo, "SwapTotal");
        out->swap_free_kb = meminfo_kb(meminfo, "SwapFree");
        if (out->swap_total_kb == VALUE_UNKNOWN || out->swap_free_kb == VALUE_UNKNOWN)
            read_notes_add(notes, "/proc/meminfo", "no SwapTotal/SwapFree lines");
    }
    free(meminfo);
}
