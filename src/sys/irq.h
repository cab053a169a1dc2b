/*
 * Interrupts as seen from a set of target CPUs: every line of
 * /proc/interrupts with its counts on those CPUs, and for device IRQs the
 * affinity from /proc/irq/N/smp_affinity_list and effective_affinity_list.
 */
#ifndef JITTERLAB_SYS_IRQ_H
#define JITTERLAB_SYS_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/cpulist.h"
#include "sys/read_notes.h"
#include "sys/sysroot.h"

#define IRQ_COUNT_UNKNOWN UINT64_MAX /* = PERCPU_COUNT_UNKNOWN */

struct irq_line {
    char id[16];  /* "36", "LOC", "NMI" */
    bool numeric; /* a device IRQ with a /proc/irq/N directory */
    char desc[128];
    char smp_affinity_list[256];       /* "" when unknown */
    char effective_affinity_list[256]; /* "" when absent (older kernels) */
    bool affine_to_target;             /* effective, else smp, affinity has a target */
    uint64_t target_total;             /* sum of the known counts on the targets */
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
