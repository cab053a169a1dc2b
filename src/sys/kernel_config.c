/*
 * /proc/config.gz through zlib, line by line, keeping a handful of options.
 * The preemption model is the one CONFIG_PREEMPT_{RT,NONE,VOLUNTARY,LAZY}
 * or CONFIG_PREEMPT that is "=y"; on a PREEMPT_DYNAMIC kernel that is the
 * boot default, which preempt= on the command line can override.
 */
#include "sys/kernel_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define CONFIG_GZ_PATH "/proc/config.gz"

static bool option_is_yes(const char *line, const char *name)
{
    size_t n = strlen(name);
    return strncmp(line, name, n) == 0 && strncmp(line + n, "=y", 2) == 0 &&
           (line[n + 2] == '\0' || line[n + 2] == '\n');
}

void kernel_config_line(struct kernel_config *cfg, const char *line)
{
    static const struct {
        const char *option;
        const char *model;
    } models[] = {{"CONFIG_PREEMPT_RT", "rt"},
                  {"CONFIG_PREEMPT_NONE", "none"},
                  {"CONFIG_PREEMPT_VOLUNTARY", "voluntary"},
                  {"CONFIG_PREEMPT_LAZY", "lazy"},
                  {"CONFIG_PREEMPT", "full"}};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        /* RT wins over whatever else is set (RT kernels also set PREEMPTION) */
        if (option_is_yes(line, models[i].option) && strcmp(cfg->preempt, "rt") != 0)
            snprintf(cfg->preempt, sizeof cfg->preempt, "%s", models[i].model);
    }
    if (option_is_yes(line, "CONFIG_PREEMPT_DYNAMIC"))
        cfg->preempt_dynamic = true;
    if (option_is_yes(line, "CONFIG_NO_HZ_FULL"))
        cfg->no_hz_full = true;
    if (option_is_yes(line, "CONFIG_RCU_NOCB_CPU"))
        cfg->rcu_nocb_cpu = true;
    if (strncmp(line, "CONFIG_HZ=", 10) == 0) {
        char *end = NULL;
        errno = 0;
        long hz = strtol(line + 10, &end, 10);
        while (isspace((unsigned char)*end))
            end++;
        /* a whole number a kernel can have, not strtol's LONG_MAX on overflow */
        if (end != line + 10 && *end == '\0' && errno == 0 && hz > 0 && hz <= KERNEL_CONFIG_HZ_MAX)
            cfg->hz = hz;
    }
}

void kernel_config_read(const struct sysroot *sr, struct kernel_config *out,
                        struct read_notes *notes)
{
    memset(out, 0, sizeof *out);
    out->hz = VALUE_UNKNOWN;
    char path[4096 + 64];
    if (sysroot_path(sr, CONFIG_GZ_PATH, path, sizeof path) != 0)
        return;
    FILE *probe = fopen(path, "rb");
    if (!probe)
        return; /* absent or not readable: unknown */
    unsigned char magic[2] = {0, 0};
    size_t got = fread(magic, 1, 2, probe);
    fclose(probe);
    if (got != 2 || magic[0] != 0x1f || magic[1] != 0x8b) {
        read_notes_add(notes, CONFIG_GZ_PATH, "not gzip data");
        return;
    }
    gzFile gz = gzopen(path, "rb");
    if (!gz)
        return;
    char line[512];
    int config_lines = 0;
    while (gzgets(gz, line, sizeof line)) {
        if (strncmp(line, "CONFIG_", 7) == 0 || strncmp(line, "# CONFIG_", 9) == 0)
            config_lines++;
        kernel_config_line(out, line);
    }
    int err = 0;
    gzerror(gz, &err);
    gzclose(gz);
    if (err != Z_OK || config_lines == 0) {
        read_notes_add(notes, CONFIG_GZ_PATH,
                       err != Z_OK ? "corrupt gzip data" : "no CONFIG_ lines");
        struct kernel_config empty = {.hz = VALUE_UNKNOWN};
        *out = empty;
        return;
    }
    out->present = true;
}
