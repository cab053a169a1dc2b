/*
 * The human report of `jitterlab inspect`: findings grouped by area, the
 * area with the worst finding first, worst first inside an area, then the
 * unknown and unreadable notes and the verdict. ANSI colour on request
 * (the caller asks for it only when stdout is a terminal).
 */
#ifndef JITTERLAB_OUT_TEXT_INSPECT_H
#define JITTERLAB_OUT_TEXT_INSPECT_H

#include <stdbool.h>
#include <stdio.h>

#include "inspect/inspect_rules.h"
#include "inspect/inspect_system.h"

void text_inspect_report(FILE *out, const struct inspect_system *s,
                         const struct inspect_findings *f, bool colour);

#endif
