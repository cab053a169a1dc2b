/*
 * Reading a whole input file the user names (a result document, an
 * experiment's records): a regular file only, at most a given size, read
 * in one go and NUL-terminated, so that a parser gets its bytes or a
 * reason, never a partial file.
 */
#ifndef JITTERLAB_COMMON_READ_FILE_H
#define JITTERLAB_COMMON_READ_FILE_H

#include <stddef.h>

/* The text of the regular file path, at most max bytes, NUL-terminated
 * (*text is the caller's to free): 0, or -1 with the reason in err. */
int read_whole_file(const char *path, size_t max, char **text, size_t *len, char *err,
                    size_t errlen);

#endif
