/*
 * Reading many small optional files for `jitterlab inspect`: a value is read,
 * absent (unknown), or present but not what the kernel writes there
 * ("unreadable"). The last case is recorded as a note with the path so that a
 * report can say which file held garbage instead of inventing a finding.
 */
#ifndef JITTERLAB_SYS_READ_NOTES_H
#define JITTERLAB_SYS_READ_NOTES_H

#include <stddef.h>
#include <stdint.h>

#include "sys/cpulist.h"
#include "sys/sysroot.h"

/* An integer that could not be read. */
#define VALUE_UNKNOWN INT64_MIN

#define READ_NOTES_MAX 64

struct read_note {
    char path[256];
    char reason[160];
};

struct read_notes {
    int count;
    int dropped; /* notes beyond READ_NOTES_MAX */
    struct read_note note[READ_NOTES_MAX];
};

enum read_status {
    READ_GARBAGE = -1, /* present but malformed: noted */
    READ_ABSENT = 0,   /* missing or not readable: unknown */
    READ_OK = 1,
};

void read_notes_add(struct read_notes *notes, const char *path, const char *reason);
/* Integer file; *out = VALUE_UNKNOWN unless READ_OK. */
enum read_status read_int_noted(const struct sysroot *sr, const char *path, int64_t *out,
                                struct read_notes *notes);
/* Text file, trailing blanks trimmed; "" unless READ_OK. */
enum read_status read_text(const struct sysroot *sr, const char *path, char *buf, size_t len);
/* CPU list file: text kept in buf, parsed into *out (empty unless READ_OK). */
enum read_status read_cpulist_noted(const struct sysroot *sr, const char *path, char *buf,
                                    size_t len, struct cpulist *out, struct read_notes *notes);

#endif
