/*
 * `jitterlab doctor` for people: the diagnosis table, the prescriptions as
 * commands, the kernel command line, the conclusion; within 100 columns.
 */
#ifndef JITTERLAB_OUT_TEXT_DOCTOR_H
#define JITTERLAB_OUT_TEXT_DOCTOR_H

#include <stdio.h>

#include "out/json_doctor.h"

void text_doctor_report(FILE *out, const struct doctor_report *r);

#endif
