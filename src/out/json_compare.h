/*
 * The compare document (kind "compare", docs/compare.md): the inputs by
 * arm, and per non-baseline arm and CPU entry every metric with its values,
 * ratio, interval, test and verdict. `jitterlab report` reads it back.
 */
#ifndef JITTERLAB_OUT_JSON_COMPARE_H
#define JITTERLAB_OUT_JSON_COMPARE_H

#include <jansson.h>

#include "compare/compare.h"

struct compare_input {
    const char *label;
    int nfiles;
    const char *const *files;
};

/* narms inputs (the first the baseline) and narms - 1 comparisons. */
json_t *json_compare_document(const char *version, int argc, char **argv, const char *started_at,
                              const struct compare_config *cfg, const struct compare_input *in,
                              int narms, const struct arm_comparison *cmp,
                              const struct compare_family *fam);

#endif
