/*
 * What fixes what: the one table from a cause of late wake-ups (a kind of
 * `run --explain`, src/trace/attribute.h, or of its window method) or an
 * inspect finding id (src/inspect/rules_*.c) to remedies, and the remedies
 * themselves. A remedy is a tune action (named by its id in tune_actions[],
 * src/tune/tune_actions.c) or an advice of one kind: a boot parameter, a
 * thread to move or lower, the kernel, the firmware, the hypervisor.
 * Everything links by id: a new cause kind or finding is one row, and
 * tests/unit/test_remedy.c fails when one has none. Pure data and lookups;
 * the concrete commands for a machine come from doctor/prescribe.c.
 */
#ifndef JITTERLAB_DOCTOR_REMEDY_H
#define JITTERLAB_DOCTOR_REMEDY_H

#include <stdbool.h>
#include <stddef.h>

enum remedy_kind {
    REMEDY_TUNE,       /* a tune action: jitterlab tune apply --only ID */
    REMEDY_BOOT,       /* kernel command line parameters */
    REMEDY_THREAD,     /* a thread to move off the CPUs or lower */
    REMEDY_KERNEL,     /* another kernel build or preemption model */
    REMEDY_SYSTEM,     /* a system setting without a tune action */
    REMEDY_FIRMWARE,   /* BIOS or firmware (the host's on a VM) */
    REMEDY_HYPERVISOR, /* the hypervisor's part: guest and host */
    REMEDY_NONE,       /* nothing to change: says why */
};

struct remedy {
    const char *id;
    enum remedy_kind kind;
    const char *tune_action; /* REMEDY_TUNE: its id in tune_actions[]; else NULL */
    const char *summary;     /* one line for people */
};

/* What a row needs of the machine. */
enum remedy_when {
    REMEDY_ALWAYS = 0,
    /* a guest whose halted vCPU exits through the hypervisor: a hypervisor
     * and no cpuidle driver */
    REMEDY_VM_HALT,
    REMEDY_NOT_VM_HALT,
    REMEDY_VM,    /* any hypervisor */
    REMEDY_METAL, /* none */
};

enum remedy_source {
    REMEDY_FROM_CAUSE,   /* key: a cause kind ("thread", "idle-exit", "steal", ...) */
    REMEDY_FROM_FINDING, /* key: an inspect finding id */
};

struct remedy_link {
    enum remedy_source source;
    const char *key;
    const char *name; /* a cause of this name only (NULL: any); its rows replace the kind's */
    enum remedy_when when;
    const char *remedy; /* its id in the remedy table */
};

/* The machine facts the rows' conditions read. */
struct remedy_machine {
    bool vm;                /* a hypervisor was detected */
    bool no_cpuidle_driver; /* no cpuidle driver is active */
};

size_t remedy_count(void);
const struct remedy *remedy_at(size_t i);
const struct remedy *remedy_find(const char *id);
size_t remedy_link_count(void);
const struct remedy_link *remedy_link_at(size_t i);
bool remedy_when_holds(enum remedy_when when, const struct remedy_machine *m);

/* The remedies of a cause kind (and name: NULL for any) or finding on this
 * machine, in table order: writes at most max and returns how many there
 * are. Rows for the cause's very name, when there are any, replace the
 * kind's. */
size_t remedies_for(enum remedy_source source, const char *key, const char *name,
                    const struct remedy_machine *m, const struct remedy **out, size_t max);
/* "tune", "boot", "thread", "kernel", "system", "firmware", "hypervisor", "none" */
const char *remedy_kind_name(enum remedy_kind kind);

#endif
