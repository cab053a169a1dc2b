/*
 * What a result document says about the machine it was measured on: kernel,
 * preempt model (decided here, once, for every output), command line, CPU
 * model, online/isolated/nohz_full CPUs, clocksource, TSC flags, hypervisor,
 * PM QoS. Read once, before the run, through the sysroot. Missing files
 * leave empty strings (printed as null).
 */
#ifndef JITTERLAB_SYS_SYSTEM_INFO_H
#define JITTERLAB_SYS_SYSTEM_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/cpulist.h"
#include "sys/sysroot.h"

struct system_info {
    char hostname[256];
    char kernel[256];         /* release, /proc/sys/kernel/osrelease */
    char kernel_version[512]; /* /proc/version */
    char preempt_model[32];   /* the running model, the one answer for every
                                 output: "PREEMPT_RT", "full", "voluntary",
                                 "none", "lazy", "dynamic" (PREEMPT_DYNAMIC and
                                 nothing tells the mode), "" (unknown) */
    char preempt_source[64];  /* the path the model was read from */
    char cmdline[4096];
    char cpu_model[256];
    char arch[32];
    char cpus_online[1024]; /* kernel list form */
    char isolated[1024];
    char nohz_full[1024];
    char clocksource[64];
    char clocksource_available[256];
    char hypervisor[64]; /* "" when bare metal */
    /* where the name came from: "/sys/hypervisor/type", "/dev/kmsg" (the
     * kernel's "Hypervisor detected: NAME"), the DMI vendor's path, or
     * "/proc/cpuinfo" (only the flag: hypervisor "unknown"); "" on bare metal */
    char hypervisor_source[64];
    bool tsc_present; /* "tsc" in the CPU flags (x86) */
    bool tsc_constant;
    bool tsc_nonstop;
    bool tsc_invariant;         /* constant_tsc && nonstop_tsc */
    int64_t cpu_dma_latency_us; /* -1 when unreadable */
    struct cpulist online;
    struct cpulist isolated_list;
};

/* Fills *out. Never fails: unreadable items stay empty / -1. */
void system_info_read(const struct sysroot *sr, struct system_info *out);
/* The preempt model as the run and inspect headers print it, in the same
 * word the documents hold: "preempt=none", "preempt=PREEMPT_RT",
 * "preempt=dynamic (mode unknown)", "preempt=unknown". A bare "(none)"
 * after the kernel release read as "nothing known". */
void system_info_preempt_label(const struct system_info *si, char *buf, size_t len);
/* The CPUs a real-time user means when none are named: the isolated CPUs,
 * else every online CPU but CPU 0 (CPU 0 alone on a single-CPU machine). */
void system_info_default_cpus(const struct system_info *si, struct cpulist *out);

#endif
