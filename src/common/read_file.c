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

int read_whole_file(const char *path, size_t max, char **text, size_t *len, char *err,
                    size_t errlen)
{
    *text = NULL;
    *len = 0;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused
     * below like every other file that is not regular */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        snprintf(err, errlen, "%s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "not a regular file");
        fclose(f);
        return -1;
    }
    if ((uintmax_t)st.st_size > max) {
        snprintf(err, errlen, "larger than %zu MiB", max >> 20);
        fclose(f);
        return -1;
    }
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n + 1);
    size_t got = buf ? fread(buf, 1, n, f) : 0;
    int rd_err = ferror(f);
    fclose(f);
    if (!buf || got != n || rd_err) {
        snprintf(err, errlen, "%s", buf ? "short read" : "out of memory");
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}
