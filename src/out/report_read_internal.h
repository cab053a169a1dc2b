/*
 * What the report's readers share between their files: report_read.c
 * hands the explain part of a run result (explain, spikes or
 * spike_windows, spike_summary) to report_read_explain.c and its tail
 * object to report_read_tail.c; the readers of
 * the other documents (report_read_docs.c, report_read_c2c.c) load and
 * check a document's header the same way.
 */
#ifndef JITTERLAB_OUT_REPORT_READ_INTERNAL_H
#define JITTERLAB_OUT_REPORT_READ_INTERNAL_H

#include "out/report_json.h"
#include "out/report_model.h"

/* 0, or -1 with the reason in r. run->root, run->cpu are read. */
int report_read_explain(struct jreader *r, struct report_run *run);

/* The tail object obj (a run result's `tail`, or a tail document's root)
 * into *t; an entry's CPU must be among the ncpu ids of cpus (any CPU when
 * cpus is NULL). 0, or -1 with the reason in r (and *t freed). */
int report_read_tail(struct jreader *r, const json_t *obj, const char *where, const int *cpus,
                     int ncpu, struct report_tail *t);
void report_tail_free(struct report_tail *t);

/* Parses path (at most RESULT_READ_MAX_BYTES) into *root, once, and
 * checks its header and that its kind is want. 0, or -1 with the reason
 * (and *root NULL). */
int report_load_doc(struct jreader *r, const char *path, const char *want, json_t **root);
/* The same on text in memory. */
int report_load_doc_buffer(struct jreader *r, const char *text, size_t len, const char *want,
                           json_t **root);

#endif
