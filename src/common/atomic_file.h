/*
 * Output files appear whole or not at all: data goes to a hidden temporary
 * file in the target's directory, which is fsynced and renamed over the
 * target on commit (then the directory is fsynced), or unlinked on abort.
 *
 * What the path names decides how it is written:
 * - nothing yet: a new file with mode 0666 & ~umask, as any program makes;
 * - a regular file: replaced, keeping its mode (and owner where allowed);
 * - a symbolic link: the file it points to is replaced, the link stays;
 * - a FIFO or character device (/dev/null, `>(gzip)`): written in place,
 *   never replaced; an open descriptor named through /proc (/dev/stdout,
 *   /dev/fd/N) is written through that descriptor;
 * - a directory, socket or block device: refused.
 * A stream cannot be unwritten, so only files get the all-or-nothing promise.
 */
#ifndef JITTERLAB_COMMON_ATOMIC_FILE_H
#define JITTERLAB_COMMON_ATOMIC_FILE_H

#include <stdbool.h>
#include <stdio.h>

struct atomic_file {
    FILE *fp;
    bool stream;         /* written in place: no temporary file, no rename */
    char path[4096];     /* the file finally written (symbolic links resolved) */
    char tmp_path[4096]; /* "" for a stream */
};

/* Checks that path could be written without creating anything. Returns 0,
 * or -1 with a reason in why. */
int atomic_file_check(const char *path, char *why, size_t whylen);
/* Opens the temporary file (or the stream). Returns 0 or -1 with errno set.
 * A FIFO blocks here until it has a reader, as for any writer. */
int atomic_file_open(struct atomic_file *f, const char *path);
/* Flushes, fsyncs, closes and renames. Returns 0 or -1 with errno set (the
 * temporary file is removed on failure). */
int atomic_file_commit(struct atomic_file *f);
/* A log instead: path is opened to append in place (created when missing,
 * 0666 & ~umask), so that it grows while the process runs and logrotate
 * can move it; commit only flushes and closes, abort closes. *empty says
 * whether it is a regular file with nothing in it (a header is due). 0 or -1 with errno. */
int atomic_file_open_append(struct atomic_file *f, const char *path, bool *empty);
void atomic_file_abort(struct atomic_file *f);

#endif
