/*
 * What the two files of `jitterlab doctor` share: cmd/doctor.c (options,
 * the diagnosis, the outputs) and cmd/doctor_apply.c (the treatment on the
 * machine: tune journal, A/B runs, compare's verdict, the final state).
 */
#ifndef JITTERLAB_CMD_DOCTOR_INTERNAL_H
#define JITTERLAB_CMD_DOCTOR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cmd/doctor_cli.h"
#include "doctor/diagnosis.h"
#include "doctor/prescribe.h"
#include "doctor/treat.h"
#include "inspect/inspect_rules.h"
#include "inspect/inspect_system.h"
#include "sys/system_info.h"
#include "tune/tune.h"

/* Everything one doctor holds; freed by doctor_free. */
struct doctor {
    struct doctor_params p;
    struct sysroot sr;
    struct system_info si;
    struct cpulist targets;
    char cpus[1024];
    char budget_arg[32], interval_arg[32], duration_arg[32], explain_arg[48];
    char dir[4096];      /* -o DIR, or the temporary directory */
    bool temp_dir;       /* dir is ours to remove */
    char baseline[4200]; /* the run result read */
    char command[1024];  /* the baseline run, for people */
    char *child_argv[64];
    int json_slot; /* child_argv's --json path */
    json_t *result;
    struct inspect_system sys;
    bool sys_read;
    struct inspect_findings findings;
    struct doctor_diagnosis diagnosis;
    struct doctor_prescriptions prescriptions;
    /* --apply */
    const char *state_path; /* the tune journal */
    int lock_fd;            /* the journal's lock, held from before the baseline */
    bool locked;
    struct treat_outcome treat;
    struct tune_plan plan[TREAT_MAX];    /* each treatment's changes, as applied */
    struct tune_plan earlier[TREAT_MAX]; /* the journal before each */
    int runs_done, runs_total;           /* for the progress line */
    char phase[160];         /* "baseline", "treatment 2 of 5 (irq-affinity)", "conclusion" */
    char stopped_in[48];     /* where a stop request hit; "" none */
    char final_result[4200]; /* the final state's run, "" when none */
    bool final_measured;
    struct doctor_conclusion final;
};

/* One child `jitterlab run` with the baseline's options writing json_path,
 * with its --explain or without (the treatment's runs: the tracer is the
 * diagnosis's instrument, not part of the loop): 0 finished, 1 stopped by
 * a stop request (its result holds the samples so far), -1 failed (why). */
int doctor_run_child(struct doctor *d, const char *json_path, bool explain, char *why,
                     size_t whylen);

/* Takes the journal's lock (before anything is measured, so that a busy
 * journal costs no baseline): -1, or an exit code after the message. */
int doctor_apply_lock(struct doctor *d);
/* The treatment (--apply) and the final state's run, the lock held: fills
 * d->treat, d->final. -1 (an exit code is kept for failures to come). */
int doctor_apply(struct doctor *d);
/* Frees the plans of the treatment and releases the lock. */
void doctor_apply_free(struct doctor *d);

#endif
