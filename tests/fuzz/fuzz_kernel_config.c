/*
 * Fuzz target: the kernel build configuration (src/sys/kernel_config.c):
 * the input's lines fed one by one, and the input as the (compressed)
 * /proc/config.gz of a sysroot. A HZ it accepts is one a kernel can have.
 */
#include "fuzz.h"

#include <zlib.h>

#include "sys/kernel_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kernel_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.hz = VALUE_UNKNOWN;
    char *text = fuzz_cstring(data, size);
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        kernel_config_line(&cfg, line);
    }
    free(text);
    if (cfg.hz != VALUE_UNKNOWN && (cfg.hz < 1 || cfg.hz > KERNEL_CONFIG_HZ_MAX))
        abort();

    char path[300];
    snprintf(path, sizeof path, "%s", fuzz_write_file("proc/config.gz", "", 0));
    gzFile gz = gzopen(path, "wb");
    if (!gz || (size && gzwrite(gz, data, (unsigned)size) != (int)size) || gzclose(gz) != Z_OK)
        abort();
    struct sysroot sr;
    sysroot_init(&sr, fuzz_dir());
    static struct read_notes notes;
    notes.count = 0;
    kernel_config_read(&sr, &cfg, &notes);
    return 0;
}
