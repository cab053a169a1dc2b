/*
 * Fuzz target: /proc/cpuinfo as system_info_read (src/sys/system_info.c)
 * reads it from a sysroot: the CPU model and the TSC and hypervisor flags;
 * and as the telemetry reads each CPU's "cpu MHz" from it where there is
 * no cpufreq (src/telemetry/telemetry.c), for 4 CPUs.
 */
#include "fuzz.h"

#include "sys/system_info.h"
#include "telemetry/telemetry.h"

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
    struct cpulist *cpus = calloc(1, sizeof *cpus);
    if (!cpus)
        abort();
    for (int c = 0; c < 4; c++)
        cpulist_add(cpus, c);
    struct telemetry_config tcfg = {
        .sr = &sr, .cpus = cpus, .quiet = false, .kernel_release = "6.1.0"};
    char err[256];
    struct telemetry *t = telemetry_open(&tcfg, err, sizeof err);
    if (t) {
        telemetry_snapshot(t);
        telemetry_close(t);
    }
    free(cpus);
    return 0;
}
