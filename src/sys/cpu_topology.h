/*
 * SMT: the global switch (/sys/devices/system/cpu/smt/{control,active}) and,
 * per CPU, the hardware threads that share its core (thread_siblings_list).
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

#endif
