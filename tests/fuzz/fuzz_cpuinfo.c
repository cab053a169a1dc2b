/*
 * Fuzz target: /proc/cpuinfo as system_info_read (src/sys/system_info.c)
 * reads it from a sysroot: the CPU model and the TSC and hypervisor flags.
 */
#include "fuzz.h"

#include "sys/system_info.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write_file("proc/cpuinfo", data, size);
    struct sysroot sr;
    sysroot_init(&sr, fuzz_dir());
    struct system_info *si = malloc(sizeof *si);
    if (!si)
        abort();
    system_info_read(&sr, si);
    if (strlen(si->cpu_model) >= sizeof si->cpu_model ||
        (si->tsc_invariant && !(si->tsc_constant && si->tsc_nonstop)))
        abort();
    free(si);
    return 0;
}
