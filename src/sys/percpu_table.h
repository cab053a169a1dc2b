/*
 * The shape /proc/interrupts and /proc/softirqs share: a header naming the
 * CPU of each column ("CPU0 CPU1 ..."; offline CPUs have no column), then
 * one row per source, "ID: one count per column, then free text" (the chip
 * and handler names of an interrupt; nothing for a softirq). Some rows
 * (ERR, MIS) have a single count for the whole machine: they are marked so
 * and give no CPU a count. The parser takes the text and keeps, per row,
 * the counts of the target CPUs only.
 */
#ifndef JITTERLAB_SYS_PERCPU_TABLE_H
#define JITTERLAB_SYS_PERCPU_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/cpulist.h"

/* A target CPU the file has no column for (offline, or a short row). */
#define PERCPU_COUNT_UNKNOWN UINT64_MAX

struct percpu_row {
    char id[16];       /* "36", "LOC", "TIMER" */
    char desc[128];    /* blanks collapsed; "" for softirqs */
    bool numeric;      /* the id is a number (a device IRQ) */
    bool machine_wide; /* one count for all CPUs (ERR, MIS): no CPU's count is known */
};

struct percpu_table {
    int ntarget;
    int *target_cpu; /* ascending */
    int nrow;
    int cap;
    struct percpu_row *row;
    uint64_t *counts;      /* nrow x ntarget */
    int *target_of_column; /* parse scratch, CPULIST_MAX_CPUS entries */
};

/* Sets the targets (copied). 0, or -1 when out of memory. */
int percpu_table_init(struct percpu_table *t, const struct cpulist *targets);
/* Replaces the rows with those of text. 0; -1 with *why when the header
 * names no CPU; -2 when out of memory. Rows without a colon are skipped. */
int percpu_table_parse(struct percpu_table *t, const char *text, const char **why);
void percpu_table_free(struct percpu_table *t);

static inline uint64_t percpu_count(const struct percpu_table *t, int row, int target_index)
{
    return t->counts[(size_t)row * (size_t)t->ntarget + (size_t)target_index];
}

/* The row with this id, -1 when none; hint is where to look first (the
 * same row of the previous snapshot, usually the right one). */
int percpu_table_find(const struct percpu_table *t, const char *id, int hint);

#endif
