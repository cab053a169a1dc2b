/*
 * /proc/interrupts for inspect and tune: the counts on the target CPUs
 * (parsed by percpu_table.c) and, per line, the chip and handler names.
 * Architecture lines (LOC, RES, CAL, ...) have no affinity files; some
 * (ERR, MIS) have a single count. Device IRQs get their affinity
 * from /proc/irq/N; the effective affinity, where the kernel exposes it, is
 * where the interrupt actually arrives and wins over the requested one.
 */
#include "sys/irq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/percpu_table.h"

static void read_affinity(const struct sysroot *sr, struct irq_line *irq, const struct irq_table *t,
                          struct read_notes *notes)
{
    char path[128];
    struct cpulist *scratch = malloc(sizeof *scratch);
    if (!scratch)
        return;
    snprintf(path, sizeof path, "/proc/irq/%s/smp_affinity_list", irq->id);
    read_cpulist_noted(sr, path, irq->smp_affinity_list, sizeof irq->smp_affinity_list, scratch,
                       notes);
    snprintf(path, sizeof path, "/proc/irq/%s/effective_affinity_list", irq->id);
    read_cpulist_noted(sr, path, irq->effective_affinity_list, sizeof irq->effective_affinity_list,
                       scratch, notes);
    free(scratch);
    const char *where =
        irq->effective_affinity_list[0] ? irq->effective_affinity_list : irq->smp_affinity_list;
    for (int i = 0; i < t->ntarget; i++)
        if (cpulist_text_contains(where, t->target_cpu[i]))
            irq->affine_to_target = true;
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
            read_affinity(sr, irq, out, notes);
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
