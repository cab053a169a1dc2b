/*
 * Model-specific registers through /dev/cpu/N/msr (the msr driver): one
 * 8-byte pread at the register's number as offset. Reading a CPU's MSR
 * this way runs rdmsr on that CPU by an inter-processor interrupt, so a
 * caller that measures a CPU must not read its MSRs while it measures.
 * Under a fixture sysroot the "device" is a plain file, and since
 * registers one number apart (MPERF 0xE7, APERF 0xE8) would overlap at
 * byte offsets, a plain file holds register R at offset 8 x R.
 */
#ifndef JITTERLAB_SYS_MSR_H
#define JITTERLAB_SYS_MSR_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/sysroot.h"

#define MSR_IA32_TSC   0x10
#define MSR_SMI_COUNT  0x34 /* Intel: SMIs since reset, bits 31:0 */
#define MSR_IA32_MPERF 0xE7
#define MSR_IA32_APERF 0xE8

struct msr_file {
    int fd;     /* -1: not open */
    bool plain; /* a regular file (a fixture): register R at 8 x R */
};

/* Opens /dev/cpu/N/msr read-only: 0, or -errno (f->fd stays -1). */
int msr_open(const struct sysroot *sr, int cpu, struct msr_file *f);
/* 0 with *value, or -errno (-EIO: the CPU has no such register). */
int msr_read(const struct msr_file *f, uint32_t reg, uint64_t *value);
void msr_close(struct msr_file *f);

#endif
