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

struct doctor_report {
    const char *version, *started_at;
    int argc;
    char **argv;
    const char *cpus;             /* the targets, kernel list form */
    const char *baseline;         /* the run result read (a path), or NULL when it was removed */
    const char *baseline_command; /* the run, for people; NULL with --from */
    const struct doctor_diagnosis *diagnosis;
    const struct doctor_prescriptions *prescriptions;
};

json_t *json_doctor_document(const struct doctor_report *r);

#endif
