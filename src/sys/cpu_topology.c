/*
 * Reads the SMT state and each CPU's thread siblings, core and package
 * through the sysroot.
 * A sibling list that does not parse is noted and left empty, so that a rule
 * never guesses which CPUs share a core.
 */
#include "sys/cpu_topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cpu_topology_read(const struct sysroot *sr, const struct cpulist *cpus,
                      struct cpu_topology *out, struct read_notes *notes)
{
    memset(out, 0, sizeof *out);
    read_text(sr, "/sys/devices/system/cpu/smt/control", out->smt_control, sizeof out->smt_control);
    read_int_noted(sr, "/sys/devices/system/cpu/smt/active", &out->smt_active, notes);
    if (cpus->count == 0)
        return 0;
    out->cpu = calloc((size_t)cpus->count, sizeof *out->cpu);
    struct cpulist *scratch = malloc(sizeof *scratch);
    if (!out->cpu || !scratch) {
        free(scratch);
        return -1;
    }
    out->ncpu = cpus->count;
    for (int i = 0; i < cpus->count; i++) {
        char path[128];
        out->cpu[i].cpu = cpus->cpu[i];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
                 cpus->cpu[i]);
        read_cpulist_noted(sr, path, out->cpu[i].thread_siblings,
                           sizeof out->cpu[i].thread_siblings, scratch, notes);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_id", cpus->cpu[i]);
        read_int_noted(sr, path, &out->cpu[i].core_id, notes);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
                 cpus->cpu[i]);
        read_int_noted(sr, path, &out->cpu[i].package_id, notes);
    }
    free(scratch);
    return 0;
}

void cpu_topology_free(struct cpu_topology *t)
{
    free(t->cpu);
    t->cpu = NULL;
    t->ncpu = 0;
}
