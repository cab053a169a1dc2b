/*
 * What the report's readers share between their files: report_read.c
 * hands the explain part of a run result (explain, spikes or
 * spike_windows, spike_summary) to report_read_explain.c; the readers of
 * the other documents (report_read_docs.c, report_read_c2c.c) load and
 * check a document's header the same way.
 */
#ifndef JITTERLAB_OUT_REPORT_READ_INTERNAL_H
#define JITTERLAB_OUT_REPORT_READ_INTERNAL_H

#include "out/report_json.h"
#include "out/report_model.h"

/* 0, or -1 with the reason in r. run->root, run->cpu are read. */
int report_read_explain(struct jreader *r, struct report_run *run);

/* Parses path (at most RESULT_READ_MAX_BYTES) into *root, once, and
 * checks its header and that its kind is want. 0, or -1 with the reason
 * (and *root NULL). */
int report_load_doc(struct jreader *r, const char *path, const char *want, json_t **root);
/* The same on text in memory. */
int report_load_doc_buffer(struct jreader *r, const char *text, size_t len, const char *want,
                           json_t **root);

#endif
