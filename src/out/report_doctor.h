/*
 * A doctor document (kind "doctor", `jitterlab doctor --json` or -o DIR's
 * doctor.json) in a report: the runs it names (the baseline, the before
 * and after runs of each change kept, the final state's run) are drawn as
 * results, and a section tells the story: the causes, each treatment with
 * its verdict and the figures it rests on, the conclusion. The document
 * is untrusted: every value is type-checked, every string escaped.
 */
#ifndef JITTERLAB_OUT_REPORT_DOCTOR_H
#define JITTERLAB_OUT_REPORT_DOCTOR_H

#include <stddef.h>

#include <jansson.h>

#include "out/report_model.h"

struct report_doctor {
    const char *path;
    json_t *root;
    int nrun;
    const char *run[REPORT_MAX_RESULTS]; /* paths, into root */
};

/* 0, or -1 with err (not a doctor document, a value of the wrong type). */
int report_doctor_read(const char *path, struct report_doctor *d, char *err, size_t errlen);
void report_doctor_free(struct report_doctor *d);

#endif
