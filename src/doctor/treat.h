/*
 * The treatment: the runtime remedies prescribed (tune actions a journal
 * can put back) tried one at a time, in rank order. Each is applied, checked
 * to have taken effect, then measured against the state before it in an
 * interleaved A/B (before, after; after, before; ... for the rounds asked),
 * and judged by compare's tests on the tail. Better: kept, and the state it
 * leaves is the baseline of the next. No difference: put back, unless
 * keep_neutral. Worse, not taken effect, or failed: put back. A stop request
 * puts back the change under test and ends the treatment; kept changes stay.
 * Pure logic: the machine, the runs and the verdict come through struct
 * treat_ops, so that tests drive it with fakes.
 */
#ifndef JITTERLAB_DOCTOR_TREAT_H
#define JITTERLAB_DOCTOR_TREAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compare/compare.h"

#define TREAT_MAX            16
#define TREAT_MAX_REPEAT     16
#define TREAT_DEFAULT_REPEAT 6

enum treat_status {
    TREAT_NOT_TRIED, /* a stop request came first */
    TREAT_KEPT,      /* better (or no difference with keep_neutral) */
    TREAT_PUT_BACK,  /* no difference or worse */
    TREAT_NO_EFFECT, /* applied but did not take effect: put back */
    TREAT_NOTHING,   /* the action found nothing to change */
    TREAT_FAILED,    /* could not be applied or measured: put back */
    TREAT_STOPPED,   /* a stop request during it: put back */
};

/* "not-tried", "kept", "put-back", "no-effect", "nothing-to-change",
 * "failed", "stopped" */
const char *treat_status_name(enum treat_status s);

/* The tail of one arm, over its runs pooled (the figures a verdict rests on). */
struct treat_tail {
    uint64_t samples;        /* all its runs' */
    double over_rate;        /* samples over the budget per sample; -1 unknown */
    int64_t p999_ns, max_ns; /* -1 unknown */
};

struct treatment {
    size_t prescription; /* its index in the prescriptions */
    char action[24];     /* the tune action */
    int on_top_of;       /* the kept treatment it was measured on, -1: the baseline */
    enum treat_status status;
    enum verdict verdict; /* compare's, on the tail (VERDICT_NA: not measured) */
    /* compare's verdicts: over-budget rate, p99.9, max */
    enum verdict tail_verdict[3];
    struct treat_tail before, after;
    int rounds;    /* A/B rounds completed */
    int changes;   /* values the action changed */
    char why[400]; /* what the status rests on, for people */
};

/* The metrics a verdict is taken on. */
extern const enum compare_metric treat_tail_metrics[3];

struct treat_ops {
    void *ctx;
    /* Applies treatment t through the journal: 0 applied (*changes set),
     * 1 nothing to change, -1 failed (nothing changed); why says. */
    int (*apply)(void *ctx, struct treatment *t, char *why, size_t n);
    /* Whether the change took effect (value read back, effect seen): 1
     * yes, 0 no (why). */
    int (*took_effect)(void *ctx, struct treatment *t, char *why, size_t n);
    /* The machine as before (after = false) or after the change: 0 or -1. */
    int (*set_arm)(void *ctx, struct treatment *t, bool after, char *why, size_t n);
    /* One run of an arm in round r: 0 done, 1 stopped, -1 failed (why). */
    int (*measure)(void *ctx, struct treatment *t, bool after, int round, char *why, size_t n);
    /* compare's verdict on the runs made: fills verdict, tail_verdict,
     * before and after; 0 or -1 (why). */
    int (*judge)(void *ctx, struct treatment *t, int rounds, char *why, size_t n);
    /* Undoes the change and forgets it in the journal: 0 or -1 (why). */
    int (*put_back)(void *ctx, struct treatment *t, char *why, size_t n);
    bool (*stopped)(void *ctx);
};

struct treat_config {
    int repeat;        /* A/B rounds, 1..TREAT_MAX_REPEAT */
    bool keep_neutral; /* keep a change with no difference */
};

struct treat_outcome {
    size_t n;
    struct treatment t[TREAT_MAX]; /* filled by the caller: prescription, action */
    int final_state;               /* the last kept treatment, -1: the baseline */
    int stopped_at;                /* the treatment a stop request hit, -1 none */
    int put_back_failed;           /* put backs that failed (the journal still holds them) */
};

/* Runs the treatments of out (prescription and action set, in rank order). */
void treat_run(const struct treat_config *cfg, const struct treat_ops *ops,
               struct treat_outcome *out);

/* The file of a treatment's run: "treat-2-after-1.json" (i and round from 0). */
void treat_run_file(char *buf, size_t len, size_t i, bool after, int round);

/* better: any of the tail's verdicts better and none worse; worse: any worse. */
enum verdict treat_verdict_of(const enum verdict tail[3]);

#endif
