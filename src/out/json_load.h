/*
 * The description of best-effort loads and what they achieved, as written
 * in `config.load` of a run result and in `loads` of a load document.
 */
#ifndef JITTERLAB_OUT_JSON_LOAD_H
#define JITTERLAB_OUT_JSON_LOAD_H

#include <jansson.h>

#include "load/load.h"

/* An array with one object per load; runner may be NULL (nothing ran). */
json_t *json_load_list(const struct load_spec *specs, int n, const struct load_sched *sched,
                       const struct load_runner *runner);
const char *load_policy_name(int policy);

#endif
