/*
 * SMT: the global switch (/sys/devices/system/cpu/smt/{control,active}) and,
 * per CPU, the hardware threads that share its core (thread_siblings_list),
 * its core and package, and its last-level cache (the highest-level data or
 * unified cache under cpuN/cache/index*: its id, else the first CPU that
 * shares it). From these, what two CPUs share: a core, a last-level cache,
 * a package or nothing (cpu_pair_group).
 */
#ifndef JITTERLAB_SYS_CPU_TOPOLOGY_H
#define JITTERLAB_SYS_CPU_TOPOLOGY_H

#include <stdint.h>

#include "sys/cpulist.h"
#include "sys/read_notes.h"
#include "sys/sysroot.h"

struct cpu_siblings {
    int cpu;
    char thread_siblings[128]; /* kernel list form, "" when unknown */
    int64_t core_id;           /* topology/core_id; VALUE_UNKNOWN */
    int64_t package_id;        /* topology/physical_package_id; VALUE_UNKNOWN */
    int64_t llc_level;         /* cache level of the last-level cache; VALUE_UNKNOWN */
    int64_t llc_id;            /* its cache/indexN/id, else the first CPU of its
                                  shared_cpu_list; VALUE_UNKNOWN */
    char llc_cpus[128];        /* its shared_cpu_list, "" when unknown */
};

struct cpu_topology {
    char smt_control[32]; /* on, off, forceoff, notsupported, notimplemented, "" */
    int64_t smt_active;   /* 0/1, VALUE_UNKNOWN */
    int ncpu;
    struct cpu_siblings *cpu;
};

/* Reads the SMT switch and the siblings of every CPU in cpus. 0 or -1 (memory). */
int cpu_topology_read(const struct sysroot *sr, const struct cpulist *cpus,
                      struct cpu_topology *out, struct read_notes *notes);
void cpu_topology_free(struct cpu_topology *t);
/* The entry of cpu, or NULL. */
const struct cpu_siblings *cpu_topology_find(const struct cpu_topology *t, int cpu);

/* What two CPUs share, closest first. SAME_PACKAGE: one package, the
 * last-level cache unknown; UNKNOWN: not even the packages are known. */
enum cpu_pair_group {
    CPU_PAIR_SAME,
    CPU_PAIR_SMT,
    CPU_PAIR_SAME_LLC,
    CPU_PAIR_OTHER_LLC,
    CPU_PAIR_SAME_PACKAGE,
    CPU_PAIR_OTHER_PACKAGE,
    CPU_PAIR_UNKNOWN,
};
#define CPU_PAIR_GROUPS (CPU_PAIR_UNKNOWN + 1)

enum cpu_pair_group cpu_pair_group(const struct cpu_siblings *a, const struct cpu_siblings *b);
/* "same", "smt-sibling", "same-llc", "other-llc", "same-package",
 * "other-package", "unknown": the names in every output. */
const char *cpu_pair_group_name(enum cpu_pair_group g);

#endif
