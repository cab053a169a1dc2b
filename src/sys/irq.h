/*
 * Interrupts as seen from a set of target CPUs: every line of
 * /proc/interrupts with its counts on those CPUs, and for device IRQs the
 * affinity from /proc/irq/N/smp_affinity_list and effective_affinity_list,
 * with the one placement model inspect's irq-on-rt-cpu and tune's
 * irq-affinity share: what inspect counts as movable is what tune moves.
 */
#ifndef JITTERLAB_SYS_IRQ_H
#define JITTERLAB_SYS_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/cpulist.h"
#include "sys/read_notes.h"
#include "sys/sysroot.h"

#define IRQ_COUNT_UNKNOWN UINT64_MAX /* = PERCPU_COUNT_UNKNOWN */

/* Where a device IRQ stands against the target CPUs. The requested mask
 * (smp_affinity_list) is what can be written; the effective one
 * (effective_affinity_list) is where the kernel delivers it now. A new
 * requested mask takes effect at the IRQ's next interrupt, and a managed IRQ
 * keeps its CPU whatever is written (only isolcpus=managed_irq moves it). */
enum irq_placement {
    IRQ_OFF_TARGETS,       /* no target in either mask (or nothing known) */
    IRQ_ALLOWED_ON_TARGET, /* the requested mask includes a target: tune moves it */
    IRQ_MOVE_PENDING,      /* the requested mask excludes the targets (or is unreadable)
                            * but the effective one still has one: nothing to write */
};

/* requested or effective NULL: unknown (effective: absent on older kernels). */
enum irq_placement irq_placement_of(const struct cpulist *requested,
                                    const struct cpulist *effective, const struct cpulist *targets);
/* The requested mask tune writes for an IRQ_ALLOWED_ON_TARGET one: the
 * requested mask without the targets, or keep (the housekeeping CPUs) when
 * nothing would be left. */
void irq_moved_mask(const struct cpulist *requested, const struct cpulist *targets,
                    const struct cpulist *keep, struct cpulist *out);

struct irq_line {
    char id[16];  /* "36", "LOC", "NMI" */
    bool numeric; /* a device IRQ with a /proc/irq/N directory */
    char desc[128];
    char smp_affinity_list[256];       /* "" when unknown */
    char effective_affinity_list[256]; /* "" when absent (older kernels) */
    enum irq_placement placement;      /* from both lists in full (irq_placement_of) */
    /* Arrives on a target now: effective, else requested, list has one (the
     * IRQs a run's document lists); inspect and tune go by placement. */
    bool affine_to_target;
    uint64_t target_total; /* sum of the known counts on the targets */
};

struct irq_table {
    int ntarget;
    int *target_cpu; /* the target CPUs, ascending */
    int nirq;
    struct irq_line *irq;
    uint64_t *counts; /* nirq x ntarget; IRQ_COUNT_UNKNOWN where no column */
};

/* Reads /proc/interrupts and the /proc/irq affinities. 0, or -1 when out of
 * memory. An unreadable /proc/interrupts leaves nirq = 0. */
int irq_read(const struct sysroot *sr, const struct cpulist *targets, struct irq_table *out,
             struct read_notes *notes);
void irq_free(struct irq_table *t);
static inline uint64_t irq_count(const struct irq_table *t, int irq, int target_index)
{
    return t->counts[(size_t)irq * (size_t)t->ntarget + (size_t)target_index];
}

#endif
