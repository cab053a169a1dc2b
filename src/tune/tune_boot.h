/*
 * What tune proposes and never applies (tune_boot.c): the kernel command
 * line, a PREEMPT_RT kernel and the firmware settings for the target CPUs,
 * fitted to the machine read: only the boot parameters this kernel was
 * built to take (the rest listed with the option it lacks), and on a
 * virtual machine the firmware named as the host's. Pure: cmd/tune.c reads
 * the machine and prints.
 */
#ifndef JITTERLAB_TUNE_TUNE_BOOT_H
#define JITTERLAB_TUNE_TUNE_BOOT_H

#include <stdbool.h>

#include "sys/cpulist.h"
#include "sys/kernel_config.h"
#include "sys/system_info.h"

struct tune_boot_proposal {
    char cmdline[4096];  /* the parameters this kernel takes, space-separated */
    char left_out[2048]; /* "" or the parameters left out, each with why */
    char unchecked[256]; /* "" or why the kernel's build could not be checked */
    bool rt_kernel;      /* propose a PREEMPT_RT build: the running one is not */
    char firmware[1024]; /* the firmware line: this machine's, or the host's on a VM */
};

/* cfg->present false (no /proc/config.gz): every parameter is proposed and
 * unchecked says which ones the kernel's build decides. */
void tune_boot_propose(const struct system_info *si, const struct kernel_config *cfg,
                       const struct cpulist *targets, struct tune_boot_proposal *out);

#endif
