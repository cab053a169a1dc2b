/*
 * /proc/interrupts for inspect and tune: the counts on the target CPUs
 * (parsed by percpu_table.c) and, per line, the chip and handler names.
 * Architecture lines (LOC, RES, CAL, ...) have no affinity files; some
 * (ERR, MIS) have a single count. Device IRQs get their affinity from
 * /proc/irq/N and a placement from both lists: the requested one says what
 * tune can still move, the effective one, where the kernel exposes it,
 * where the interrupt arrives now (it follows a new request only at the
 * IRQ's next interrupt, and never for a managed IRQ).
 */
#include "sys/irq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/percpu_table.h"

enum irq_placement irq_placement_of(const struct cpulist *requested,
                                    const struct cpulist *effective, const struct cpulist *targets)
{
    bool requested_on = false, effective_on = false;
    for (int i = 0; i < targets->count; i++) {
        requested_on |= requested && cpulist_contains(requested, targets->cpu[i]);
        effective_on |= effective && cpulist_contains(effective, targets->cpu[i]);
    }
    if (requested_on)
        return IRQ_ALLOWED_ON_TARGET;
    return effective_on ? IRQ_MOVE_PENDING : IRQ_OFF_TARGETS;
}

void irq_moved_mask(const struct cpulist *requested, const struct cpulist *targets,
                    const struct cpulist *keep, struct cpulist *out)
{
    cpulist_subtract(requested, targets, out);
    if (out->count == 0)
        *out = *keep;
}

/* One affinity file: a short copy of its text for people, the list in full
 * (read_cpulist_noted parses a long list of a big machine from the whole
 * file). False when absent or not a list. */
static bool read_mask(const struct sysroot *sr, const char *path, char *text, size_t len,
                      struct cpulist *list, struct read_notes *notes)
{
    return read_cpulist_noted(sr, path, text, len, list, notes) == READ_OK;
}

static void read_affinity(const struct sysroot *sr, struct irq_line *irq,
                          const struct cpulist *targets, struct read_notes *notes)
{
    char path[128];
    struct cpulist *requested = malloc(sizeof *requested);
    struct cpulist *effective = malloc(sizeof *effective);
    if (requested && effective) {
        snprintf(path, sizeof path, "/proc/irq/%s/smp_affinity_list", irq->id);
        bool have_requested = read_mask(sr, path, irq->smp_affinity_list,
                                        sizeof irq->smp_affinity_list, requested, notes);
        snprintf(path, sizeof path, "/proc/irq/%s/effective_affinity_list", irq->id);
        bool have_effective = read_mask(sr, path, irq->effective_affinity_list,
                                        sizeof irq->effective_affinity_list, effective, notes);
        irq->placement = irq_placement_of(have_requested ? requested : NULL,
                                          have_effective ? effective : NULL, targets);
        /* where it arrives now: the effective list's answer, else the requested one's */
        irq->affine_to_target = have_effective
                                    ? irq_placement_of(NULL, effective, targets) != IRQ_OFF_TARGETS
                                    : irq->placement == IRQ_ALLOWED_ON_TARGET;
    }
    free(requested);
    free(effective);
}

int irq_read(const struct sysroot *sr, const struct cpulist *targets, struct irq_table *out,
             struct read_notes *notes)
{
    memset(out, 0, sizeof *out);
    struct percpu_table pt;
    if (percpu_table_init(&pt, targets) != 0)
        return -1;
    struct sysroot_buf buf = {0};
    int rc = 0;
    if (sysroot_read_file(sr, "/proc/interrupts", &buf) >= 0) {
        const char *why = NULL;
        int prc = percpu_table_parse(&pt, buf.text, &why);
        if (prc == -1)
            read_notes_add(notes, "/proc/interrupts", why);
        rc = prc == -2 ? -1 : 0;
    }
    sysroot_buf_free(&buf);
    size_t per = targets->count > 0 ? (size_t)targets->count : 1;
    out->target_cpu = malloc(per * sizeof *out->target_cpu);
    out->irq = calloc(pt.nrow > 0 ? (size_t)pt.nrow : 1, sizeof *out->irq);
    out->counts = malloc((pt.nrow > 0 ? (size_t)pt.nrow : 1) * per * sizeof *out->counts);
    if (rc != 0 || !out->target_cpu || !out->irq || !out->counts) {
        percpu_table_free(&pt);
        return -1;
    }
    memcpy(out->target_cpu, targets->cpu, (size_t)targets->count * sizeof *out->target_cpu);
    out->ntarget = targets->count;
    if (pt.nrow > 0)
        memcpy(out->counts, pt.counts, (size_t)pt.nrow * (size_t)pt.ntarget * sizeof *out->counts);
    for (int r = 0; r < pt.nrow; r++) {
        struct irq_line *irq = &out->irq[r];
        snprintf(irq->id, sizeof irq->id, "%s", pt.row[r].id);
        snprintf(irq->desc, sizeof irq->desc, "%s", pt.row[r].desc);
        irq->numeric = pt.row[r].numeric;
        for (int i = 0; i < out->ntarget; i++)
            if (percpu_count(&pt, r, i) != PERCPU_COUNT_UNKNOWN)
                irq->target_total += percpu_count(&pt, r, i);
        if (irq->numeric)
            read_affinity(sr, irq, targets, notes);
    }
    out->nirq = pt.nrow;
    percpu_table_free(&pt);
    return 0;
}

void irq_free(struct irq_table *t)
{
    free(t->target_cpu);
    free(t->irq);
    free(t->counts);
    memset(t, 0, sizeof *t);
}
