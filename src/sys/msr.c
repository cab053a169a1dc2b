/*
 * /dev/cpu/N/msr access (see msr.h): open once per CPU, pread per value.
 */
#include "sys/msr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int msr_open(const struct sysroot *sr, int cpu, struct msr_file *f)
{
    char rel[64], path[4096 + 64];
    f->fd = -1;
    f->plain = false;
    snprintf(rel, sizeof rel, "/dev/cpu/%d/msr", cpu);
    if (sysroot_path(sr, rel, path, sizeof path) != 0)
        return -ENAMETOOLONG;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    f->plain = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    f->fd = fd;
    return 0;
}

int msr_read(const struct msr_file *f, uint32_t reg, uint64_t *value)
{
    off_t at = f->plain ? (off_t)reg * 8 : (off_t)reg;
    for (;;) {
        ssize_t got = pread(f->fd, value, sizeof *value, at);
        if (got == (ssize_t)sizeof *value)
            return 0;
        if (got < 0 && errno == EINTR)
            continue;
        return got < 0 ? -errno : -EIO;
    }
}

void msr_close(struct msr_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
}
