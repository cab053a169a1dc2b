/*
 * /proc/stat as telemetry reads it: each CPU's time by kind (user, nice,
 * system, idle, iowait, irq, softirq, steal, guest, guest_nice, in USER_HZ
 * ticks) and the machine-wide context-switch count. The parser takes the
 * text, so unit tests and the fuzzer drive it without a file.
 */
#ifndef JITTERLAB_SYS_PROC_STAT_H
#define JITTERLAB_SYS_PROC_STAT_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/cpulist.h"
#include "sys/read_notes.h"
#include "sys/sysroot.h"

enum cpu_time_kind {
    CPU_TIME_USER,
    CPU_TIME_NICE,
    CPU_TIME_SYSTEM,
    CPU_TIME_IDLE,
    CPU_TIME_IOWAIT,
    CPU_TIME_IRQ,
    CPU_TIME_SOFTIRQ,
    CPU_TIME_STEAL,
    CPU_TIME_GUEST,      /* already counted in user */
    CPU_TIME_GUEST_NICE, /* already counted in nice */
    CPU_TIME_KINDS
};

struct proc_stat_cpu {
    int cpu;
    bool present; /* a cpuN line was found (an offline CPU has none) */
    int nkinds;   /* columns the line had (older kernels have fewer) */
    uint64_t ticks[CPU_TIME_KINDS];
};

struct proc_stat {
    bool has_ctxt;
    uint64_t ctxt;
    int ncpu;
    struct proc_stat_cpu *cpu; /* one per CPU asked for, in that order */
};

/* Allocates one entry per CPU of cpus. 0, or -1 when out of memory. */
int proc_stat_init(struct proc_stat *st, const struct cpulist *cpus);
/* Fills st from the text of /proc/stat. 0, or -1 with *why when the text
 * has no "cpu" line or a cpu line is not numbers. */
int proc_stat_parse(const char *text, struct proc_stat *st, const char **why);
/* Reads /proc/stat through the sysroot: 0, -1 when it cannot be read (a
 * note is left for garbage). */
int proc_stat_read(const struct sysroot *sr, struct sysroot_buf *buf, struct proc_stat *st,
                   struct read_notes *notes);
void proc_stat_free(struct proc_stat *st);
/* Sum of every kind but guest (counted twice otherwise). */
uint64_t proc_stat_total_ticks(const struct proc_stat_cpu *c);

#endif
