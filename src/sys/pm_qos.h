/*
 * CPU latency PM QoS (/dev/cpu_dma_latency): the kernel honours a request
 * only while the file stays open and drops it when the holder closes or dies,
 * so holding it is reversible by construction.
 */
#ifndef JITTERLAB_SYS_PM_QOS_H
#define JITTERLAB_SYS_PM_QOS_H

#include <stdint.h>

#include "sys/sysroot.h"

/* The value reported when nobody holds a request. */
#define PM_QOS_NO_REQUEST_US INT64_C(2000000000)

/* Opens the file and writes the request. Returns the fd to keep open, or
 * -errno. */
int pm_qos_hold(const struct sysroot *sr, int32_t latency_us);
void pm_qos_release(int fd);
/* Current effective value, or -errno. */
int64_t pm_qos_read(const struct sysroot *sr);

#endif
