/*
 * Cache sizes from sysfs. Each index* directory under cpu0/cache describes
 * one cache (level, type, size such as "1280K"); instruction caches are
 * skipped. Missing directories (VMs often have none) give 0: callers fall
 * back to a documented default.
 */
#include "sys/cache_info.h"

#include <stdio.h>
#include <string.h>

#include "common/units.h"

#define CACHE_INDEX_MAX 10

uint64_t cache_size_bytes(const struct sysroot *sr, int level)
{
    uint64_t best = 0;
    int64_t best_level = 0;
    for (int i = 0; i < CACHE_INDEX_MAX; i++) {
        char path[96], text[64];
        int64_t lvl = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (sysroot_read_int64(sr, path, &lvl) != 0)
            continue;
        if (level > 0 ? lvl != level : lvl < best_level)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (sysroot_read_string(sr, path, text, sizeof text) > 0 &&
            strcmp(text, "Instruction") == 0)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        uint64_t bytes = 0;
        if (sysroot_read_string(sr, path, text, sizeof text) <= 0 ||
            parse_size_bytes(text, &bytes) != 0 || bytes == 0)
            continue;
        if (level > 0)
            return bytes;
        best = bytes;
        best_level = lvl;
    }
    return best;
}
