/*
 * doctor.json (schema 1, kind "doctor", docs/doctor.md): the header, the
 * baseline run it read, the diagnosis (causes ranked by what they cost the
 * budget, with their findings and remedy ids), the prescriptions and the
 * conclusion.
 */
#ifndef JITTERLAB_OUT_JSON_DOCTOR_H
#define JITTERLAB_OUT_JSON_DOCTOR_H

#include <jansson.h>

#include "doctor/diagnosis.h"
#include "doctor/prescribe.h"
#include "doctor/treat.h"

/* What --apply did. */
struct doctor_treatment_report {
    const struct treat_outcome *outcome;
    int repeat;
    bool keep_neutral;
    const char *journal;      /* the tune state file */
    const char *dir;          /* the runs' directory; NULL when it was removed */
    const char *stopped_in;   /* "baseline", "treatment 2", "conclusion"; NULL: not stopped */
    const char *final_result; /* the final state's run (a path), NULL when none */
    /* the final state's conclusion; NULL when it was not measured (stopped) */
    const struct doctor_conclusion *final;
};

struct doctor_report {
    const char *version, *started_at;
    int argc;
    char **argv;
    const char *cpus;             /* the targets, kernel list form */
    const char *baseline;         /* the run result read (a path), or NULL when it was removed */
    const char *baseline_command; /* the run, for people; NULL with --from */
    const struct doctor_diagnosis *diagnosis;
    const struct doctor_prescriptions *prescriptions;
    const struct doctor_treatment_report *treatment; /* NULL without --apply */
};

/* The conclusion that decides: the final state's when it was measured,
 * else the baseline's. */
const struct doctor_conclusion *doctor_report_conclusion(const struct doctor_report *r);

json_t *json_doctor_document(const struct doctor_report *r);

/* The runs of a doctor.json's final state, as an arm of compare: the run
 * made after every decision (treatment.final_result) and the "after" runs
 * of the last treatment kept, measured in that same state. Writes at most
 * max heap strings to paths and returns how many, or -1 with why (a
 * document without --apply, stopped before its final state, or made
 * without -o, whose runs are gone). */
int json_doctor_final_runs(const json_t *doc, char **paths, int max, char *why, size_t whylen);

#endif
