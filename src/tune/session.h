/*
 * A tune session: what `jitterlab tune apply|hold|restore` and `jitterlab run
 * --tune` share. It holds the journal's lock from begin to end, plans,
 * prints the plan, journals and applies; a run or hold restores at the end
 * and reports what came back. Printing goes to the streams the subcommand
 * passes (out NULL = quiet); errors go to err in the program's one format.
 */
#ifndef JITTERLAB_TUNE_SESSION_H
#define JITTERLAB_TUNE_SESSION_H

#include <stdbool.h>
#include <stdio.h>

#include "sys/sysroot.h"
#include "tune/tune.h"

/* Outcomes, numbered as the process exit codes they become (docs/architecture.md). */
enum tune_outcome {
    TUNE_OK = 0,
    TUNE_FAILED = 1,      /* a lock, plan, write or restore failed */
    TUNE_NO_SNAPSHOT = 2, /* restore asked for with nothing to restore */
    TUNE_REFUSED = 2,     /* the plan broke a rule (plan.refusal): nothing changed */
};

/* given, else $JITTERLAB_TUNE_STATE, else TUNE_DEFAULT_STATE */
const char *tune_state_path(const char *given);

/* One apply, or a whole run --tune / tune hold. */
struct tune_session {
    int lock_fd;
    enum tune_mode mode;
    const char *state_path;
    FILE *out; /* NULL = quiet */
    FILE *err;
    struct tune_plan plan;
    struct tune_summary summary; /* what was applied, for the result document */
    int applied;                 /* changes written by begin */
    int refused;                 /* changes the kernel refused (not journaled) */
};

/* Locks the journal, plans, prints, journals and applies. On failure nothing
 * is changed and nothing held. Changes the kernel refused are no failure
 * (TUNE_OK, said on err, counted in s->refused): the caller decides. */
enum tune_outcome tune_session_begin(struct tune_session *s, const struct tune_request *rq,
                                     const char *profile, const char *state_path,
                                     enum tune_mode mode, FILE *out, FILE *err);
/* A run or hold restores (and reports) here and unlocks; the plan stays
 * readable (summary) until tune_session_free. */
enum tune_outcome tune_session_end(struct tune_session *s);
/* Unlocks (without restoring) and frees the plan. */
void tune_session_free(struct tune_session *s);
/* Locks, restores and reports; a missing snapshot is TUNE_NO_SNAPSHOT when
 * missing_is_error, else fine. */
enum tune_outcome tune_restore_report(const char *state_path, bool missing_is_error, FILE *out,
                                      FILE *err);
/* Each change as "  [action] what: old -> new  (path)", or with dry_run as
 * the shell command that would make it ("mount -t resctrl ...", "mkdir
 * DIR", "echo 'L3:0=e00' > FILE", one echo per line of a value); then the
 * notes. */
void tune_plan_print(FILE *out, const struct tune_plan *plan, const struct sysroot *sr,
                     bool dry_run);

#endif
