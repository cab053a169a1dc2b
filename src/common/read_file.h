/*
 * Opening an input file the user names (a result document): a regular
 * file only, at most a given size, for a parser that reads it as a stream
 * (so that its text is never held beside the parsed tree). The commands
 * that read many documents also cap their total (inputs_over_total), since
 * each costs memory while it is worked on.
 */
#ifndef JITTERLAB_COMMON_READ_FILE_H
#define JITTERLAB_COMMON_READ_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The regular file path opened for reading, if it holds at most max bytes
 * (*size: how many it held when opened), else NULL with the reason in err. */
FILE *open_input_file(const char *path, size_t max, size_t *size, char *err, size_t errlen);

/* Adds up the sizes of the regular files among paths[0 .. n) into *total;
 * the index of the first whose size takes the total beyond max, or -1
 * when they all fit. A file that cannot be read counts nothing: its reader
 * says why. */
int inputs_over_total(const char *const *paths, int n, uint64_t max, uint64_t *total);

#endif
