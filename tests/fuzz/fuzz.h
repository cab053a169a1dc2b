/*
 * Shared by the fuzz targets (tests/fuzz/fuzz_*.c): each defines
 * LLVMFuzzerTestOneInput, which libFuzzer drives under `make fuzz` and
 * replay.c drives over the seed corpus under `make test`. The parsers take
 * C strings or files below a sysroot, so the input is copied into a
 * NUL-terminated buffer or written to a file in a private temporary
 * directory (made once per process, mode 0700, removed at exit).
 */
#ifndef JITTERLAB_TESTS_FUZZ_H
#define JITTERLAB_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string (stops at an embedded NUL, as a file read would
 * for the string parsers); the caller frees it. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

static char fuzz_dir_path[64];

static void fuzz_dir_remove(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir_path);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz: could not remove %s\n", fuzz_dir_path);
}

/* The private directory (a sysroot for the readers). */
static inline const char *fuzz_dir(void)
{
    if (!fuzz_dir_path[0]) {
        snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "/tmp/jl-fuzz.XXXXXX");
        if (!mkdtemp(fuzz_dir_path))
            abort();
        atexit(fuzz_dir_remove);
    }
    return fuzz_dir_path;
}

/* Writes data to fuzz_dir()/rel (its parent directories made first) and
 * returns the full path in a static buffer. */
static inline const char *fuzz_write_file(const char *rel, const void *data, size_t size)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), rel);
    for (char *p = path + strlen(fuzz_dir()) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0700);
        *p = '/';
    }
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
    return path;
}

#endif
