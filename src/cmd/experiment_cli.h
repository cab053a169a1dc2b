/*
 * The options of `jitterlab experiment`, parsed without reading the file or
 * running anything (src/cmd/experiment.c), so that unit tests can call the
 * parser: FILE or --resume DIR, -o DIR, --dry-run, -q; and the check of
 * the steps' run options, which needs run_cli.h.
 */
#ifndef JITTERLAB_CMD_EXPERIMENT_CLI_H
#define JITTERLAB_CMD_EXPERIMENT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/options.h"
#include "experiment/plan.h"

struct experiment_params {
    struct cli_common common; /* -q, -h; the sysroot from $JITTERLAB_SYSROOT */
    const char *file;         /* the experiment file; NULL with --resume */
    const char *output_dir;   /* -o; NULL: ./NAME-YYYYmmdd-HHMMSS */
    const char *resume_dir;   /* --resume */
    bool dry_run;
};

/* -1 to continue, or an exit code (the help text or the message printed). */
int experiment_parse_args(int argc, char **argv, struct experiment_params *p);
/* Checks every step's argv as `jitterlab run` does (run_parse_args, then
 * run_validate on this machine): 0, or EXIT_USAGE after run's message and
 * "jitterlab: FILE:LINE: [step NAME] KEY: why" naming the line of the run,
 * load or tune key that brought the bad word. limit_ns[i] gets how long a
 * run of step i may take before the experiment stops it. */
int experiment_check_steps(const struct experiment_plan *plan, const char *file, int64_t *limit_ns);
/* Reads the experiment file whole. NULL after the message (exit 2). */
char *experiment_read_file(const char *path, size_t *len);

#endif
