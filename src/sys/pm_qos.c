/*
 * Hold and read the CPU latency PM QoS request through the sysroot. The
 * request is a native 32-bit integer written to /dev/cpu_dma_latency; the
 * value read back is the aggregate currently in force.
 */
#include "sys/pm_qos.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "sys/cpuidle.h"

#define PM_QOS_PATH "/dev/cpu_dma_latency"

int pm_qos_hold(const struct sysroot *sr, int32_t latency_us)
{
    /* as root: no symlink in a tree may redirect the write */
    int fd = sysroot_open_beneath(sr, PM_QOS_PATH, O_RDWR);
    if (fd < 0)
        return fd;
    if (write(fd, &latency_us, sizeof(latency_us)) != (ssize_t)sizeof(latency_us)) {
        int err = errno ? errno : EIO;
        close(fd);
        return -err;
    }
    return fd;
}

void pm_qos_release(int fd)
{
    if (fd >= 0)
        close(fd);
}

/* The file reads as the current limit in binary: 4 bytes, a native s32 in
 * µs. A fixture written by hand may hold it as text instead. */
int64_t pm_qos_read(const struct sysroot *sr)
{
    char path[4200];
    if (sysroot_path(sr, PM_QOS_PATH, path, sizeof(path)) != 0)
        return -ENAMETOOLONG;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    unsigned char raw[32];
    ssize_t n;
    do {
        n = read(fd, raw, sizeof raw - 1);
    } while (n < 0 && errno == EINTR);
    int err = errno;
    close(fd);
    if (n < 0)
        return -err;
    if (n == (ssize_t)sizeof(int32_t)) {
        int32_t value;
        memcpy(&value, raw, sizeof value);
        return value;
    }
    if (n == 0)
        return -EINVAL;
    raw[n] = '\0';
    char *end = NULL;
    errno = 0;
    long long value = strtoll((const char *)raw, &end, 10);
    if (errno != 0 || end == (char *)raw || value < 0)
        return -EINVAL;
    while (isspace((unsigned char)*end))
        end++;
    return *end == '\0' ? (int64_t)value : -EINVAL;
}

void pm_qos_hold_describe(const struct sysroot *sr, int64_t latency_us, const char *span, char *buf,
                          size_t len)
{
    const char *no_driver = cpuidle_no_driver_why(sr);
    int n = snprintf(buf, len, "holding /dev/cpu_dma_latency at %lld µs%s", (long long)latency_us,
                     span);
    if (no_driver && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "; it changes nothing now: %s (held in case one loads)",
                 no_driver);
}
