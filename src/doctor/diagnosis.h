/*
 * What stands between a run and its latency budget: the causes of the
 * samples over the budget, ranked by what they cost it, each with the
 * inspect findings that point at the same thing (a shared remedy, see
 * doctor/remedy.h), and whether the run met the budget. Built from a run
 * result taken with `--explain=BUDGET` (so that its spikes are exactly the
 * samples over the budget) and the inspect findings of the same CPUs. Pure:
 * reads a parsed document, writes nothing.
 */
#ifndef JITTERLAB_DOCTOR_DIAGNOSIS_H
#define JITTERLAB_DOCTOR_DIAGNOSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "doctor/remedy.h"
#include "inspect/inspect_rules.h"

#define DOCTOR_CAUSES_MAX         40
#define DOCTOR_CAUSE_FINDINGS_MAX 8
#define DOCTOR_CAUSE_REMEDIES_MAX 6

struct doctor_cause {
    char kind[24]; /* a cause kind (trace/attribute.h) or the window method's */
    char name[96];
    int64_t pid;      /* a thread's pid with most spikes; -1 otherwise */
    char policy[24];  /* a thread's; "" otherwise */
    int64_t priority; /* a thread's, as chrt shows it */
    uint64_t count;   /* samples over the budget it dominated */
    /* their latency beyond the budget, summed; -1 when the result does not
     * tell (the window method) */
    int64_t over_ns;
    double share;           /* of all over-budget time (of the count without it) */
    int64_t max_latency_ns; /* its largest spike */
    size_t nfindings;
    const char *findings[DOCTOR_CAUSE_FINDINGS_MAX]; /* inspect finding ids */
    size_t nremedies;
    const struct remedy *remedies[DOCTOR_CAUSE_REMEDIES_MAX];
};

/* A nearest-rank quantile of the run and the samples beyond its rank. */
struct doctor_quantile {
    bool known;
    int64_t ns;
    uint64_t beyond; /* samples ranked above it: what it rests on */
};

struct doctor_conclusion {
    int64_t budget_ns;
    bool met; /* every sample within the budget and no period missed */
    uint64_t samples, missed, over_budget;
    struct doctor_quantile p999, p9999, max;
    bool interrupted; /* the run was stopped before its end */
    double measured_s;
};

struct doctor_diagnosis {
    char method[16]; /* "tracepoints" or "window" */
    size_t ncauses;
    struct doctor_cause cause[DOCTOR_CAUSES_MAX]; /* largest cost first */
    struct doctor_conclusion conclusion;
};

/* The causes and the conclusion of the run result root (kind "run", with
 * --explain at budget_ns) against findings on machine m. 0, or -1 with err
 * saying what the document lacks. */
int doctor_diagnose(const json_t *root, int64_t budget_ns, const struct inspect_findings *findings,
                    const struct remedy_machine *m, struct doctor_diagnosis *out, char *err,
                    size_t errlen);

/* Whether the run result root (with --explain at budget_ns) met it, and the
 * tail it rests on. */
void doctor_conclude(const json_t *root, int64_t budget_ns, struct doctor_conclusion *c);

/* A finding counts when it is a warning or worse. */
bool doctor_finding_counts(const struct inspect_finding *f);

#endif
