/*
 * What `jitterlab c2c` prints and the rows of its --csv: the matrix of
 * median one-way latencies (rows = from CPU, columns = to CPU, "-" on the
 * diagonal), coloured in bands when asked, with each CPU's core, LLC and
 * package beside its row so that SMT siblings, shared caches and sockets
 * show, then the summary per group; for many CPUs the summary and the
 * slowest and fastest pairs.
 */
#ifndef JITTERLAB_OUT_TEXT_C2C_H
#define JITTERLAB_OUT_TEXT_C2C_H

#include <stdbool.h>
#include <stdio.h>

#include "crosscpu/c2c.h"

#define C2C_COLOUR_BANDS 4

/* colour: ANSI colours (the caller decides: a terminal, NO_COLOR unset).
 * More CPUs than TEXT_MANY_MAX_ROWS show the group summary and the slowest
 * and fastest pairs instead of the matrix, unless per_cpu (--per-cpu). */
void text_c2c_show(FILE *out, const struct c2c_result *r, bool colour, bool per_cpu);
/* text_c2c_show without per_cpu. */
void text_c2c_print(FILE *out, const struct c2c_result *r, bool colour);
/* from,to,group,min_ns,median_ns,timeouts: a header and one row per
 * ordered pair, empty fields where nothing was measured. */
void c2c_csv_write(FILE *out, const struct c2c_result *r);

#endif
