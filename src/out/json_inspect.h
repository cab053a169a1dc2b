/*
 * JSON for `jitterlab inspect` (kind "inspect") and the machine object that
 * both inspect and run documents carry as "system": the run document's
 * system keys plus everything struct inspect_system holds.
 */
#ifndef JITTERLAB_OUT_JSON_INSPECT_H
#define JITTERLAB_OUT_JSON_INSPECT_H

#include <jansson.h>

#include "inspect/inspect_rules.h"
#include "inspect/inspect_system.h"

json_t *inspect_system_json(const struct inspect_system *s);
/* The same object for a run result: counts of threads and IRQs, but only
 * the ones inspect_*_listed_in_run picks, not the machine's every thread. */
json_t *run_system_json(const struct inspect_system *s);
/* {tool, schema: 1, kind: "inspect", version, budget_ns, cpus, verdict,
 *  verdict_reason, findings[], unknown[], system} */
json_t *json_inspect_document(const struct inspect_system *s, const struct inspect_findings *f,
                              const char *version);

#endif
