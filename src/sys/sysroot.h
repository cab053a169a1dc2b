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
/* Writes a string to a file (no newline added). Returns 0 or -errno. */
int sysroot_write_string(const struct sysroot *sr, const char *abs_path, const char *value);

#endif
