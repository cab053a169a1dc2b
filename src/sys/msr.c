/*
 * /dev/cpu/N/msr access (see msr.h): open once per CPU, pread per value.
 */
#include "sys/msr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int msr_open(const struct sysroot *sr, int cpu)
{
    char rel[64], path[4096 + 64];
    snprintf(rel, sizeof rel, "/dev/cpu/%d/msr", cpu);
    if (sysroot_path(sr, rel, path, sizeof path) != 0)
        return -ENAMETOOLONG;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int msr_read(int fd, uint32_t reg, uint64_t *value)
{
    for (;;) {
        ssize_t got = pread(fd, value, sizeof *value, (off_t)reg);
        if (got == (ssize_t)sizeof *value)
            return 0;
        if (got < 0 && errno == EINTR)
            continue;
        return got < 0 ? -errno : -EIO;
    }
}
