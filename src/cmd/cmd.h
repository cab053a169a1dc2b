/*
 * The subcommands and what they share with main.c: exit codes, the version,
 * and the stop request set by SIGINT/SIGTERM (the only process-wide mutable
 * state, owned by main.c).
 */
#ifndef JITTERLAB_CMD_CMD_H
#define JITTERLAB_CMD_CMD_H

#include <stdbool.h>

enum exit_code {
    EXIT_OK = 0,
    EXIT_RUNTIME = 1, /* something failed while running */
    EXIT_USAGE = 2,   /* bad option or input; nothing was written */
    EXIT_BUDGET = 3,  /* a latency budget was exceeded */
};

#define JITTERLAB_VERSION "0.1.0"

int cmd_run(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_tune(int argc, char **argv);

/* Installs SIGINT/SIGTERM/SIGQUIT/SIGHUP handlers that only record the
 * request (SIGHUP stays ignored when inherited so, as under nohup). */
void stop_handlers_install(void);
bool stop_requested(void);

#endif
