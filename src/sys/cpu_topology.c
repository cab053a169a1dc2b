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

#define CACHE_INDEX_MAX 16

/* The last-level cache of cpu: the highest level that is not an
 * instruction cache. Leaves the fields unknown when cache/ is absent. */
static void read_llc(const struct sysroot *sr, struct cpu_siblings *c, struct cpulist *scratch,
                     struct read_notes *notes)
{
    c->llc_level = VALUE_UNKNOWN;
    c->llc_id = VALUE_UNKNOWN;
    int best = -1;
    for (int k = 0; k < CACHE_INDEX_MAX; k++) {
        char path[128], type[32];
        int64_t level;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/level", c->cpu, k);
        if (read_int_noted(sr, path, &level, notes) != READ_OK)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/type", c->cpu, k);
        read_text(sr, path, type, sizeof type);
        if (strcmp(type, "Instruction") == 0 || level <= c->llc_level)
            continue;
        c->llc_level = level;
        best = k;
    }
    if (best < 0)
        return;
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
             c->cpu, best);
    if (read_cpulist_noted(sr, path, c->llc_cpus, sizeof c->llc_cpus, scratch, notes) == READ_OK &&
        scratch->count > 0)
        c->llc_id = scratch->cpu[0];
    int64_t id;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/id", c->cpu, best);
    if (read_int_noted(sr, path, &id, NULL) == READ_OK)
        c->llc_id = id;
}

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
        read_llc(sr, &out->cpu[i], scratch, notes);
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

const struct cpu_siblings *cpu_topology_find(const struct cpu_topology *t, int cpu)
{
    for (int i = 0; i < t->ncpu; i++)
        if (t->cpu[i].cpu == cpu)
            return &t->cpu[i];
    return NULL;
}

static bool known(int64_t v)
{
    return v != VALUE_UNKNOWN;
}

enum cpu_pair_group cpu_pair_group(const struct cpu_siblings *a, const struct cpu_siblings *b)
{
    if (a->cpu == b->cpu)
        return CPU_PAIR_SAME;
    bool packages = known(a->package_id) && known(b->package_id);
    if (packages && a->package_id != b->package_id)
        return CPU_PAIR_OTHER_PACKAGE;
    if (cpulist_text_contains(a->thread_siblings, b->cpu) ||
        cpulist_text_contains(b->thread_siblings, a->cpu))
        return CPU_PAIR_SMT;
    if (known(a->llc_id) && known(b->llc_id) && a->llc_level == b->llc_level)
        return a->llc_id == b->llc_id ? CPU_PAIR_SAME_LLC : CPU_PAIR_OTHER_LLC;
    return packages ? CPU_PAIR_SAME_PACKAGE : CPU_PAIR_UNKNOWN;
}

const char *cpu_pair_group_name(enum cpu_pair_group g)
{
    static const char *const names[CPU_PAIR_GROUPS] = {
        "same", "smt-sibling", "same-llc", "other-llc", "same-package", "other-package", "unknown",
    };
    return (unsigned)g < CPU_PAIR_GROUPS ? names[g] : "unknown";
}
