/*
 * The build configuration of the running kernel from /proc/config.gz
 * (CONFIG_IKCONFIG_PROC), reduced to the options that matter for latency:
 * the preemption model, NO_HZ_FULL, RCU_NOCB_CPU, HZ.
 */
#ifndef JITTERLAB_SYS_KERNEL_CONFIG_H
#define JITTERLAB_SYS_KERNEL_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/read_notes.h"
#include "sys/sysroot.h"

/* The largest CONFIG_HZ taken as real (kernels offer 100 .. 1000). */
#define KERNEL_CONFIG_HZ_MAX 100000

struct kernel_config {
    bool present;         /* /proc/config.gz was read */
    char preempt[16];     /* "rt", "full", "voluntary", "none", "lazy" or "" */
    bool preempt_dynamic; /* CONFIG_PREEMPT_DYNAMIC=y */
    bool no_hz_full;
    bool rcu_nocb_cpu;
    int64_t hz; /* VALUE_UNKNOWN when not set */
};

/* Reads /proc/config.gz. Absent: present = false. Not gzip or no CONFIG_
 * line at all: a note, present = false. */
void kernel_config_read(const struct sysroot *sr, struct kernel_config *out,
                        struct read_notes *notes);
/* Feeds one line of the config text (exposed for tests). */
void kernel_config_line(struct kernel_config *cfg, const char *line);

#endif
