/*
 * CPU latency PM QoS (/dev/cpu_dma_latency): the kernel honours a request
 * only while the file stays open and drops it when the holder closes or dies,
 * so holding it is reversible by construction.
 */
#ifndef JITTERLAB_SYS_PM_QOS_H
#define JITTERLAB_SYS_PM_QOS_H

#include <stddef.h>
#include <stdint.h>

#include "sys/sysroot.h"

/* The value reported when nobody holds a request. */
#define PM_QOS_NO_REQUEST_US INT64_C(2000000000)

/* Opens the file and writes the request. Returns the fd to keep open, or
 * -errno. */
int pm_qos_hold(const struct sysroot *sr, int32_t latency_us);
void pm_qos_release(int fd);
/* The one line that says a hold of latency_us is in force ("holding
 * /dev/cpu_dma_latency at 0 µs" + span, e.g. " for the run"), and, when no
 * cpuidle driver reads it, that it changes nothing now and why. */
void pm_qos_hold_describe(const struct sysroot *sr, int64_t latency_us, const char *span, char *buf,
                          size_t len);
/* Current effective value, or -errno. */
int64_t pm_qos_read(const struct sysroot *sr);

#endif
