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
#include "sys/tune.h"

/* given, else $JITTERLAB_TUNE_STATE, else TUNE_DEFAULT_STATE */
const char *tune_state_path(const char *given);
/* The action mask of a profile or an --only list; 0 with *bad_opt and why. */
uint32_t tune_actions_for(const char *profile, const char *only, const char **bad_opt, char *why,
                          size_t whylen);
/* Plans, prints (unless quiet), journals and applies. Returns an exit code. */
int tune_apply_for(const struct sysroot *sr, const struct cpulist *targets, int64_t budget_ns,
                   uint32_t actions, int64_t freq_khz, int boost, const char *state_path,
                   enum tune_mode mode, bool quiet);
/* Restores and reports; a missing snapshot is EXIT_USAGE when
 * missing_is_error, else fine. Returns an exit code. */
int tune_restore_report(const char *state_path, bool quiet, bool missing_is_error);
void tune_print_boot_proposal(FILE *out, const struct cpulist *targets,
                              const struct system_info *si);

#endif
