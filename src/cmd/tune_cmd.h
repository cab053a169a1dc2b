/*
 * The parts of `jitterlab tune` that `jitterlab run --tune` and main.c use:
 * the state file location, applying a profile for a budget, restoring with
 * the report people read, and the boot-time proposal.
 */
#ifndef JITTERLAB_CMD_TUNE_CMD_H
#define JITTERLAB_CMD_TUNE_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sys/cpulist.h"
#include "sys/system_info.h"
#include "tune/tune.h"

/* given, else $JITTERLAB_TUNE_STATE, else TUNE_DEFAULT_STATE */
const char *tune_state_path(const char *given);
/* The action mask of a profile or an --only list; 0 with *bad_opt and why. */
uint32_t tune_actions_for(const char *profile, const char *only, const char **bad_opt, char *why,
                          size_t whylen);
/* One apply, or a whole run --tune / tune hold: the journal's lock, held from
 * begin to end, and what was applied (summary, for the result document). */
struct tune_session {
    int lock_fd;
    enum tune_mode mode;
    const char *state_path;
    struct tune_plan plan;
    struct tune_summary summary;
};
/* Locks the journal, plans, prints (unless quiet), journals and applies.
 * Returns an exit code; on failure nothing is changed and nothing held. */
int tune_session_begin(struct tune_session *s, const struct tune_request *rq, const char *profile,
                       const char *state_path, enum tune_mode mode, bool quiet);
/* A run or hold restores (and reports) here and unlocks; the plan stays
 * readable (summary) until tune_session_free. Returns an exit code. */
int tune_session_end(struct tune_session *s, bool quiet);
/* Unlocks (without restoring) and frees the plan. */
void tune_session_free(struct tune_session *s);
/* Locks, restores and reports; a missing snapshot is EXIT_USAGE when
 * missing_is_error, else fine. Returns an exit code. */
int tune_restore_report(const char *state_path, bool quiet, bool missing_is_error);
void tune_print_boot_proposal(FILE *out, const struct cpulist *targets,
                              const struct system_info *si);

#endif
