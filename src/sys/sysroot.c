/*
 * The sysroot: the one place that turns "/sys/..." into a real path and does
 * the small reads and writes that sysfs, procfs and /dev need. A prefix of ""
 * is the live machine; a fixture directory makes the whole program look at a
 * recorded machine instead. Files here are tiny (one value each), so a read is
 * one open/read-loop/close into the caller's buffer, and errors come back as
 * -errno for the caller to explain in context.
 */
#include "sys/sysroot.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

void sysroot_init(struct sysroot *sr, const char *dir)
{
    sr->prefix[0] = '\0';
    if (!dir)
        return;
    /* A dir that does not fit is cut; every path built on it is then longer
     * than PATH_MAX, so opens fail (ENAMETOOLONG) instead of reading the
     * wrong tree. */
    snprintf(sr->prefix, sizeof sr->prefix, "%s", dir);
    size_t n = strlen(sr->prefix);
    while (n > 0 && sr->prefix[n - 1] == '/')
        sr->prefix[--n] = '\0';
}

int sysroot_path(const struct sysroot *sr, const char *abs_path, char *buf, size_t len)
{
    if (!buf || len == 0)
        return -1;
    int n = snprintf(buf, len, "%s%s", sr->prefix, abs_path);
    if (n < 0 || (size_t)n >= len) {
        buf[0] = '\0';
        return -1;
    }
    return 0;
}

/*
 * Reads up to len - 1 bytes; a longer file is cut there (the return value says
 * how much was kept). Only one trailing newline is stripped, and only when the
 * whole file was read.
 */
int sysroot_read_string(const struct sysroot *sr, const char *abs_path, char *buf, size_t len)
{
    char path[4096 + 256];

    if (!buf || len == 0)
        return -EINVAL;
    buf[0] = '\0';
    if (sysroot_path(sr, abs_path, path, sizeof path) != 0)
        return -ENAMETOOLONG;

    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;

    size_t used = 0;
    bool at_eof = false;
    while (used < len - 1) {
        ssize_t got = read(fd, buf + used, len - 1 - used);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            int err = errno;
            close(fd);
            buf[0] = '\0';
            return -err;
        }
        if (got == 0) {
            at_eof = true;
            break;
        }
        used += (size_t)got;
    }
    close(fd);

    if (at_eof && used > 0 && buf[used - 1] == '\n')
        used--;
    buf[used] = '\0';
    return (int)used;
}

int sysroot_read_int64(const struct sysroot *sr, const char *abs_path, int64_t *out)
{
    char buf[128];
    int n = sysroot_read_string(sr, abs_path, buf, sizeof buf);
    if (n < 0)
        return n;
    if ((size_t)n >= sizeof buf - 1)
        return -EINVAL; /* longer than any one number with blanks around it */

    const char *p = buf;
    while (isspace((unsigned char)*p))
        p++;
    const char *digits = (*p == '+' || *p == '-') ? p + 1 : p;
    if (!isdigit((unsigned char)*digits))
        return -EINVAL;

    char *end = NULL;
    errno = 0;
    long long value = strtoll(p, &end, 10);
    if (errno == ERANGE)
        return -ERANGE;
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0')
        return -EINVAL;
    *out = (int64_t)value;
    return 0;
}

static int open_root(const struct sysroot *sr)
{
    int root = open(sr->prefix[0] ? sr->prefix : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    return root < 0 ? -errno : root;
}

int sysroot_open_walk(const struct sysroot *sr, const char *abs_path, int flags)
{
    char rel[4096];
    if (abs_path[0] != '/')
        return -EINVAL;
    if (snprintf(rel, sizeof rel, "%s", abs_path) >= (int)sizeof rel)
        return -ENAMETOOLONG;
    int dir = open_root(sr);
    if (dir < 0)
        return dir;
    char *save = NULL;
    char *name = strtok_r(rel, "/", &save);
    while (name) {
        char *next = strtok_r(NULL, "/", &save);
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
            close(dir);
            return -EXDEV;
        }
        int fd = next ? openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                      : openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC);
        int err = errno;
        close(dir);
        if (fd < 0)
            return err == ENOTDIR && next ? -ELOOP : -err; /* a symlinked directory */
        dir = fd;
        name = next;
    }
    return dir; /* "/" alone names the root directory */
}

int sysroot_open_beneath(const struct sysroot *sr, const char *abs_path, int flags)
{
    if (abs_path[0] != '/')
        return -EINVAL;
    int root = open_root(sr);
    if (root < 0)
        return root;
    struct open_how how = {
        .flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    };
    const char *rel = abs_path + strspn(abs_path, "/");
    int fd = (int)syscall(SYS_openat2, root, *rel ? rel : ".", &how, sizeof how);
    int err = errno;
    close(root);
    if (fd >= 0)
        return fd;
    if (err == ENOSYS)
        return sysroot_open_walk(sr, abs_path, flags);
    return -err;
}

int sysroot_read_value(const struct sysroot *sr, const char *abs_path, char **out)
{
    *out = NULL;
    int fd = sysroot_open_beneath(sr, abs_path, O_RDONLY);
    if (fd < 0)
        return fd;
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap + 1);
    int err = buf ? 0 : ENOMEM;
    while (!err) {
        if (used == cap) {
            if (cap >= SYSROOT_VALUE_MAX) {
                err = EFBIG;
                break;
            }
            char *grown = realloc(buf, 2 * cap + 1);
            if (!grown) {
                err = ENOMEM;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + used, cap - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            err = errno;
        else if (got == 0)
            break;
        else
            used += (size_t)got;
    }
    close(fd);
    if (err) {
        free(buf);
        return -err;
    }
    if (used > 0 && buf[used - 1] == '\n')
        used--;
    buf[used] = '\0';
    *out = buf;
    return (int)used;
}

long sysroot_read_file(const struct sysroot *sr, const char *abs_path, struct sysroot_buf *b)
{
    char path[4096 + 256];
    b->len = 0;
    if (b->text)
        b->text[0] = '\0';
    if (sysroot_path(sr, abs_path, path, sizeof path) != 0)
        return -ENAMETOOLONG;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int err = 0;
    for (;;) {
        /* Room for one byte past the end (to see the end of the file) and
         * the terminating NUL: a file of SYSROOT_FILE_MAX bytes fits. */
        if (b->cap - b->len < 2) {
            if (b->cap >= SYSROOT_FILE_MAX + 2) {
                err = EFBIG;
                break;
            }
            size_t next = b->cap ? 2 * b->cap : 16384;
            if (next > SYSROOT_FILE_MAX + 2)
                next = SYSROOT_FILE_MAX + 2;
            char *grown = realloc(b->text, next);
            if (!grown) {
                err = ENOMEM;
                break;
            }
            b->text = grown;
            b->cap = next;
        }
        ssize_t got = read(fd, b->text + b->len, b->cap - b->len - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            err = errno;
        if (got <= 0)
            break;
        b->len += (size_t)got;
    }
    close(fd);
    if (b->text)
        b->text[err ? 0 : b->len] = '\0';
    if (err) {
        b->len = 0;
        return -err;
    }
    return (long)b->len;
}

void sysroot_buf_free(struct sysroot_buf *b)
{
    free(b->text);
    memset(b, 0, sizeof *b);
}

/* sysfs and procfs attributes take a value per write() and have no length to
 * cut; a plain file (a fixture tree) keeps stale bytes unless cut. */
static bool is_kernel_attribute(int fd)
{
    struct statfs fs;
    return fstatfs(fd, &fs) == 0 && (fs.f_type == SYSFS_MAGIC || fs.f_type == PROC_SUPER_MAGIC);
}

/* No O_CREAT: sysfs and procfs files exist or the knob is absent, and creating
 * a plain file in their place (under a fixture) would hide that. No O_TRUNC
 * and no symlinks followed: writes run as root, and a link or a hard link in
 * a tree must not turn one into a write (or truncation) of another file. */
int sysroot_write_string(const struct sysroot *sr, const char *abs_path, const char *value)
{
    int fd = sysroot_open_beneath(sr, abs_path, O_WRONLY);
    if (fd < 0)
        return fd;
    struct stat st;
    bool plain = !is_kernel_attribute(fd) && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (plain && st.st_nlink > 1) {
        close(fd);
        return -EMLINK; /* the same file is also somewhere else */
    }

    size_t len = strlen(value);
    size_t done = 0;
    while (done < len) {
        ssize_t put = write(fd, value + done, len - done);
        if (put < 0) {
            if (errno == EINTR)
                continue;
            int err = errno;
            close(fd);
            return -err;
        }
        done += (size_t)put;
    }
    if (plain && ftruncate(fd, (off_t)len) != 0) {
        int err = errno;
        close(fd);
        return -err;
    }
    /* a failed close can mean the value never landed (e.g. a fixture on NFS) */
    if (close(fd) != 0)
        return -errno;
    return 0;
}
