/*
 * Parses /proc/interrupts: the header names the CPU of each column (offline
 * CPUs have none), each line is "ID: count per column, then the chip and
 * handler names". Architecture lines (LOC, RES, CAL, ...) have no affinity
 * files; some (ERR, MIS) have a single count. Device IRQs get their affinity
 * from /proc/irq/N; the effective affinity, where the kernel exposes it, is
 * where the interrupt actually arrives and wins over the requested one.
 */
#include "sys/irq.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column index of each target CPU, -1 when the header has no column for it. */
static int parse_header(const char *line, const struct irq_table *t, int *column_of_target)
{
    for (int i = 0; i < t->ntarget; i++)
        column_of_target[i] = -1;
    int column = 0;
    for (const char *p = line; (p = strstr(p, "CPU")) != NULL; column++) {
        p += 3;
        char *end = NULL;
        long cpu = strtol(p, &end, 10);
        if (end == p)
            return -1;
        for (int i = 0; i < t->ntarget; i++)
            if (t->target_cpu[i] == cpu)
                column_of_target[i] = column;
        p = end;
    }
    return column;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
}

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

static int grow(struct irq_table *t, int *cap)
{
    int next = *cap ? *cap * 2 : 64;
    struct irq_line *irq = realloc(t->irq, (size_t)next * sizeof *irq);
    if (!irq)
        return -1;
    t->irq = irq;
    size_t per = t->ntarget > 0 ? (size_t)t->ntarget : 1;
    uint64_t *counts = realloc(t->counts, (size_t)next * per * sizeof *counts);
    if (!counts)
        return -1;
    t->counts = counts;
    *cap = next;
    return 0;
}

static void parse_line(char *line, int ncolumns, const int *column_of_target, struct irq_table *t,
                       struct irq_line *irq, uint64_t *counts)
{
    char *colon = strchr(line, ':');
    char *id = line;
    while (isspace((unsigned char)*id))
        id++;
    *colon = '\0';
    memset(irq, 0, sizeof *irq);
    snprintf(irq->id, sizeof irq->id, "%s", id);
    irq->numeric = irq->id[0] != '\0';
    for (const char *c = irq->id; *c; c++)
        if (!isdigit((unsigned char)*c))
            irq->numeric = false;

    char *p = colon + 1;
    uint64_t column_value[8192 / 8];
    int ncounts = 0;
    uint64_t *values = ncolumns <= (int)(sizeof column_value / sizeof column_value[0])
                           ? column_value
                           : malloc((size_t)ncolumns * sizeof *values);
    while (values && ncounts < ncolumns) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!isdigit((unsigned char)*p))
            break;
        char *end = NULL;
        values[ncounts++] = strtoull(p, &end, 10);
        p = end;
    }
    for (int i = 0; i < t->ntarget; i++) {
        int col = column_of_target[i];
        counts[i] = values && col >= 0 && col < ncounts ? values[col] : IRQ_COUNT_UNKNOWN;
        if (counts[i] != IRQ_COUNT_UNKNOWN)
            irq->target_total += counts[i];
    }
    if (values != column_value)
        free(values);
    while (isspace((unsigned char)*p))
        p++;
    snprintf(irq->desc, sizeof irq->desc, "%s", p);
    trim(irq->desc);
    /* collapse runs of blanks: the kernel pads columns */
    char *w = irq->desc;
    for (const char *r = irq->desc; *r; r++)
        if (!(isspace((unsigned char)*r) && w > irq->desc && w[-1] == ' '))
            *w++ = isspace((unsigned char)*r) ? ' ' : *r;
    *w = '\0';
}

int irq_read(const struct sysroot *sr, const struct cpulist *targets, struct irq_table *out,
             struct read_notes *notes)
{
    memset(out, 0, sizeof *out);
    if (targets->count > 0) {
        out->target_cpu = malloc((size_t)targets->count * sizeof *out->target_cpu);
        if (!out->target_cpu)
            return -1;
        memcpy(out->target_cpu, targets->cpu, (size_t)targets->count * sizeof *out->target_cpu);
        out->ntarget = targets->count;
    }
    char path[4096 + 64];
    if (sysroot_path(sr, "/proc/interrupts", path, sizeof path) != 0)
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap_line = 0;
    int *column_of_target = calloc((size_t)(out->ntarget > 0 ? out->ntarget : 1), sizeof(int));
    int rc = column_of_target ? 0 : -1;
    int ncolumns = -1, cap = 0;
    while (rc == 0 && getline(&line, &cap_line, f) > 0) {
        if (ncolumns < 0) {
            ncolumns = parse_header(line, out, column_of_target);
            if (ncolumns <= 0) {
                read_notes_add(notes, "/proc/interrupts", "no CPU header line");
                break;
            }
            continue;
        }
        if (!strchr(line, ':'))
            continue;
        if (out->nirq == cap && grow(out, &cap) != 0) {
            rc = -1;
            break;
        }
        struct irq_line *irq = &out->irq[out->nirq];
        parse_line(line, ncolumns, column_of_target, out, irq,
                   out->counts + (size_t)out->nirq * (size_t)out->ntarget);
        out->nirq++;
        if (irq->numeric)
            read_affinity(sr, irq, out, notes);
    }
    free(column_of_target);
    free(line);
    fclose(f);
    return rc;
}

void irq_free(struct irq_table *t)
{
    free(t->target_cpu);
    free(t->irq);
    free(t->counts);
    memset(t, 0, sizeof *t);
}
