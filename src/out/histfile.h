/*
 * The cyclictest -h histogram text format, so that existing plotting scripts
 * (OSADL's latency plots, gnuplot recipes) read jitterlab's results unchanged.
 */
#ifndef JITTERLAB_OUT_HISTFILE_H
#define JITTERLAB_OUT_HISTFILE_H

#include "out/report.h"

/* Writes the file atomically; 0 or -1 with errno set. */
int histfile_write(const struct run_report *rep, const char *path);

#endif
