/*
 * Every read or write of /sys, /proc and /dev goes through a sysroot: a
 * directory prefix ("" for the live machine) so that tests can point the
 * whole program at a fixture tree (--sysroot DIR or JITTERLAB_SYSROOT).
 */
#ifndef JITTERLAB_SYS_SYSROOT_H
#define JITTERLAB_SYS_SYSROOT_H

#include <stddef.h>
#include <stdint.h>

struct sysroot {
    char prefix[4096]; /* no trailing slash; "" = live machine */
};

/* Sets the prefix from dir (may be NULL or "" for the live machine). */
void sysroot_init(struct sysroot *sr, const char *dir);
/* Writes prefix + abs_path into buf. Returns 0, or -1 if it does not fit. */
int sysroot_path(const struct sysroot *sr, const char *abs_path, char *buf, size_t len);
/* Reads a whole (small) file, strips the trailing newline. Returns the number
 * of bytes kept (>= 0) or -errno. buf is always NUL-terminated. */
int sysroot_read_string(const struct sysroot *sr, const char *abs_path, char *buf, size_t len);
/* Reads a file holding one integer. Returns 0, -errno, or -EINVAL for garbage. */
int sysroot_read_int64(const struct sysroot *sr, const char *abs_path, int64_t *out);
/* Writes a string to a file (no newline added), opened as
 * sysroot_open_beneath does; never creates, never truncates a sysfs/procfs
 * attribute (a plain file under a fixture is cut to the new value). Returns 0
 * or -errno. */
int sysroot_write_string(const struct sysroot *sr, const char *abs_path, const char *value);

/* The longest value sysroot_read_value accepts (an IRQ affinity list of a
 * machine with thousands of CPUs fits). */
#define SYSROOT_VALUE_MAX (64 * 1024)
/* Reads a whole file, opened as sysroot_open_beneath does, into a heap string
 * (*out, the caller frees it), one trailing newline stripped. Returns its
 * length, or -errno (-EFBIG beyond SYSROOT_VALUE_MAX: never cut). */
int sysroot_read_value(const struct sysroot *sr, const char *abs_path, char **out);

/* A growable buffer for files too large for one value (/proc/interrupts of
 * a machine with hundreds of CPUs): reused from read to read, so a reader
 * that runs every second allocates only while the file grows. */
struct sysroot_buf {
    char *text; /* NUL-terminated after a read */
    size_t len;
    size_t cap;
};
/* The largest file sysroot_read_file takes. */
#define SYSROOT_FILE_MAX (64u << 20)
/* Reads the whole file into b (plain open: procfs and sysfs reads may pass
 * the symlinks of /sys/class). Returns its length, or -errno (-EFBIG beyond
 * SYSROOT_FILE_MAX). */
long sysroot_read_file(const struct sysroot *sr, const char *abs_path, struct sysroot_buf *b);
void sysroot_buf_free(struct sysroot_buf *b);
/* Opens abs_path below the prefix (or "/") without following any symlink on
 * the way and without leaving the tree: openat2 with RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS (Linux 5.6+), else sysroot_open_walk. Never creates.
 * Returns an fd (O_CLOEXEC) or -errno (-ELOOP: a symlink, -EXDEV: "..";
 * -EINVAL: not an absolute path). */
int sysroot_open_beneath(const struct sysroot *sr, const char *abs_path, int flags);
/* The fallback of sysroot_open_beneath for older kernels: one
 * openat(O_NOFOLLOW | O_DIRECTORY) per directory, refusing "." and "..". */
int sysroot_open_walk(const struct sysroot *sr, const char *abs_path, int flags);

#endif
