/*
 * The subcommands and what they share with main.c: exit codes, the version,
 * and the shape of the subcommand table. main.c holds the table; each row
 * names the subcommand, its function, its properties (flags) and the line
 * `jitterlab --help` shows. subcommand_main() applies the flags, so a
 * property of a subcommand is a column, never a comparison of functions.
 */
#ifndef JITTERLAB_CMD_CMD_H
#define JITTERLAB_CMD_CMD_H

#include <stddef.h>

enum exit_code {
    EXIT_OK = 0,
    EXIT_RUNTIME = 1,    /* something failed while running */
    EXIT_USAGE = 2,      /* bad option or input; nothing was written */
    EXIT_BUDGET = 3,     /* a latency budget was exceeded */
    EXIT_UNVERIFIED = 4, /* inspect --strict: readiness could not be established */
};

#define JITTERLAB_VERSION "0.1.0"

int cmd_run(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_experiment(int argc, char **argv);
int cmd_c2c(int argc, char **argv);
int cmd_noise(int argc, char **argv);
int cmd_tsc(int argc, char **argv);
int cmd_rendezvous(int argc, char **argv);
int cmd_tail(int argc, char **argv);

/* Per-subcommand properties, the table's flags column. */
enum subcommand_flag {
    /* Warn first when a run or hold that died left the machine tuned. */
    SUBCOMMAND_WARN_STALE_TUNE = 1u << 0,
};

struct subcommand {
    const char *name;
    int (*fn)(int argc, char **argv);
    unsigned flags; /* enum subcommand_flag */
    const char *summary;
};

/* `jitterlab ARGS`: top-level help and --version, `help NAME`, else finds
 * the subcommand, applies its flags and runs it. Returns the exit code. */
int subcommand_main(const struct subcommand *table, size_t n, int argc, char **argv);

#endif
