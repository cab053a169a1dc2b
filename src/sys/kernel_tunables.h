/*
 * Scheduler and memory settings that disturb real-time threads: RT
 * throttling, timer migration, the NMI and soft-lockup watchdogs,
 * transparent hugepages and swap in use.
 */
#ifndef JITTERLAB_SYS_KERNEL_TUNABLES_H
#define JITTERLAB_SYS_KERNEL_TUNABLES_H

#include <stdint.h>

#include "sys/read_notes.h"
#include "sys/sysroot.h"

/* Integers are VALUE_UNKNOWN, strings "" where a file is missing. */
struct kernel_tunables {
    int64_t sched_rt_runtime_us; /* -1 = no throttling */
    int64_t sched_rt_period_us;
    int64_t timer_migration;
    int64_t nmi_watchdog;
    int64_t watchdog;     /* /proc/sys/kernel/watchdog (soft + hard lockup) */
    char thp_enabled[16]; /* the [selected] word: always, madvise, never */
    char thp_defrag[16];
    int64_t swap_total_kb; /* /proc/meminfo */
    int64_t swap_free_kb;
};

void kernel_tunables_read(const struct sysroot *sr, struct kernel_tunables *out,
                          struct read_notes *notes);
/* The word in brackets of a sysfs choice ("always [madvise] never"), or ""
 * (exposed for tests). Returns 0, or -1 when there is no bracketed word. */
int sysfs_selected_word(const char *text, char *buf, size_t len);

#endif
