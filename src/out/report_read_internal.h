/*
 * What the report's readers share between their files: report_read.c
 * hands the explain part of a run result (explain, spikes or
 * spike_windows, spike_summary) to report_read_explain.c.
 */
#ifndef JITTERLAB_OUT_REPORT_READ_INTERNAL_H
#define JITTERLAB_OUT_REPORT_READ_INTERNAL_H

#include "out/report_json.h"
#include "out/report_model.h"

/* 0, or -1 with the reason in r. run->root, run->cpu are read. */
int report_read_explain(struct jreader *r, struct report_run *run);

#endif
