/*
 * The prescriptions: the remedies of the ranked causes, then of the
 * inspect findings nothing measured has named, each once, made concrete
 * for this machine and these CPUs: the tune command, the kernel command
 * line (computed: nohz_full only with CONFIG_NO_HZ_FULL, irqaffinity = the
 * housekeeping CPUs, ...), the thread to move with its exact taskset and
 * chrt commands, the firmware or the hypervisor's part. Each names what it
 * answers by cause or finding id, so that a later treatment can apply the
 * tune ones and measure again. Pure: reads the machine snapshot.
 */
#ifndef JITTERLAB_DOCTOR_PRESCRIBE_H
#define JITTERLAB_DOCTOR_PRESCRIBE_H

#include <stddef.h>
#include <stdint.h>

#include "doctor/diagnosis.h"
#include "doctor/remedy.h"
#include "inspect/inspect_system.h"

#define DOCTOR_PRESCRIPTIONS_MAX 48

struct doctor_prescription {
    const struct remedy *remedy;
    int64_t pid;       /* move-thread of a measured thread: its pid; -1 otherwise */
    char because[256]; /* "cause 1 thread spin/4711; finding threads-on-rt-cpu" */
    char command[512]; /* what to run or add, one command per line; "" when none */
    char advice[640];  /* the words around it */
};

struct doctor_prescriptions {
    size_t count;
    struct doctor_prescription p[DOCTOR_PRESCRIPTIONS_MAX]; /* causes' first, by rank */
    char boot_cmdline[512]; /* every boot parameter prescribed, one line; "" when none */
};

/* The machine facts the remedy table's conditions read. */
void doctor_machine_of(const struct inspect_system *s, struct remedy_machine *m);

void doctor_prescribe(const struct doctor_diagnosis *d, const struct inspect_findings *findings,
                      const struct inspect_system *s, int64_t budget_ns,
                      struct doctor_prescriptions *out);

/* Whether prescribe knows how to make remedy id concrete (for tests). */
int doctor_remedy_rendered(const char *id);

#endif
