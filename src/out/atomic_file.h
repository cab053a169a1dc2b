/*
 * Output files appear whole or not at all: data goes to a hidden temporary
 * file in the target's directory, which is fsynced and renamed over the
 * target on commit, or unlinked on abort.
 */
#ifndef JITTERLAB_OUT_ATOMIC_FILE_H
#define JITTERLAB_OUT_ATOMIC_FILE_H

#include <stdio.h>

struct atomic_file {
    FILE *fp;
    char path[4096];
    char tmp_path[4096];
};

/* Checks that path could be written (directory exists and is writable, path
 * is not a directory) without creating anything. Returns 0, or -1 with a
 * reason in why. */
int atomic_file_check(const char *path, char *why, size_t whylen);
/* Opens the temporary file. Returns 0 or -1 with errno set. */
int atomic_file_open(struct atomic_file *f, const char *path);
/* Flushes, fsyncs, closes and renames. Returns 0 or -1 with errno set (the
 * temporary file is removed on failure). */
int atomic_file_commit(struct atomic_file *f);
void atomic_file_abort(struct atomic_file *f);

#endif
