/*
 * Whole input files (see read_file.h).
 */
#include "common/read_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *open_input_file(const char *path, size_t max, size_t *size, char *err, size_t errlen)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused
     * below like every other file that is not regular */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        snprintf(err, errlen, "%s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "not a regular file");
        fclose(f);
        return NULL;
    }
    if ((uintmax_t)st.st_size > max) {
        snprintf(err, errlen, "larger than %zu MiB", max >> 20);
        fclose(f);
        return NULL;
    }
    *size = (size_t)st.st_size;
    return f;
}

int inputs_over_total(const char *const *paths, int n, uint64_t max, uint64_t *total)
{
    *total = 0;
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0 || !S_ISREG(st.st_mode))
            continue; /* its reader says why */
        *total += (uint64_t)st.st_size;
        if (*total > max)
            return i;
    }
    return -1;
}
