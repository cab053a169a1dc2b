/*
 * The kernel command line (/proc/cmdline) parsed into the parameters that
 * decide real-time behaviour: isolation (isolcpus with its flags, nohz_full,
 * rcu_nocbs, irqaffinity), idle (idle=, intel_idle.max_cstate,
 * processor.max_cstate), clocks (clocksource=, tsc=), watchdogs, preempt=,
 * skew_tick and mitigations. Everything after "--" belongs to init.
 */
#ifndef JITTERLAB_SYS_KERNEL_CMDLINE_H
#define JITTERLAB_SYS_KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/cpulist.h"

/* A parameter whose value is a CPU list: present, as written, parsed. */
struct cmdline_cpus {
    bool present;
    bool valid; /* the list parsed (false for e.g. "0-7:2/4", which we do not expand) */
    bool all;   /* rcu_nocbs=all, or rcu_nocbs without a value */
    char text[256];
    struct cpulist cpus;
};

struct kernel_cmdline {
    struct cmdline_cpus isolcpus; /* cpus part only; flags below */
    bool isolcpus_nohz, isolcpus_domain, isolcpus_managed_irq;
    struct cmdline_cpus nohz_full;
    struct cmdline_cpus rcu_nocbs;
    struct cmdline_cpus irqaffinity;
    char idle[32];                 /* "" when absent */
    int64_t intel_idle_max_cstate; /* -1 when absent */
    int64_t processor_max_cstate;  /* -1 when absent */
    char clocksource[64];
    char tsc[128]; /* every tsc= value, comma-joined in order */
    bool nosoftlockup;
    char nmi_watchdog[32];
    int64_t skew_tick; /* -1 when absent */
    char mitigations[64];
    char preempt[32]; /* preempt= of PREEMPT_DYNAMIC kernels */
    bool nosmt;
};

/* Parses text (NULL or "" give an empty result). Never fails: a parameter
 * whose value does not parse keeps its text with valid = false. */
void kernel_cmdline_parse(const char *text, struct kernel_cmdline *out);

#endif
