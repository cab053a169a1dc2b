/*
 * The tail analysis as JSON (docs/result-schema.md, "The tail document"):
 * one entry per CPU and for all CPUs together, the same object in the tail
 * document (`jitterlab tail --json`, kind "tail") and in a run result's
 * `tail` (`run --tail`). `jitterlab report` and `compare` read it back.
 */
#ifndef JITTERLAB_OUT_JSON_TAIL_H
#define JITTERLAB_OUT_JSON_TAIL_H

#include <jansson.h>

#include "stats/tail.h"

/* What the analysis was asked, beside its results. */
struct tail_config {
    double confidence; /* of every interval */
    const double *probabilities;
    size_t nprobabilities;
    int64_t budget_ns;    /* -1: none */
    int64_t threshold_ns; /* -1: chosen per entry by the ladder */
    int64_t interval_ns;
    const char *samples_file; /* NULL: fitted on the histograms */
};

/* One entry: cpu >= 0, or -1 for all CPUs together ("cpu": "all"). Its
 * "confidence" is 0.95 (the result does not carry it): json_tail_object
 * sets the one of its config. */
json_t *json_tail_entry(const struct tail_result *r, int cpu);

/* {confidence, probabilities, budget_ns, threshold_ns, interval_ns,
 *  samples_file, cpus: [...], all: {...}}: a run result's `tail`, and the
 * body of the tail document. all may be NULL (one CPU). */
json_t *json_tail_object(const struct tail_config *cfg, const struct tail_result *cpus,
                         const int *cpu_ids, size_t n, const struct tail_result *all);

#endif
