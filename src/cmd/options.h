/*
 * What every subcommand's option parsing shares: the getopt loop, the common
 * options (--cpus/-a, --sysroot with JITTERLAB_SYSROOT, -q/--quiet, --json,
 * -h/--help, unknown options and missing values), the one format of usage
 * errors ("jitterlab: --opt VALUE: why", exit 2), number and duration
 * options and the checks of CPU lists and output paths that must happen
 * before anything runs or is written.
 *
 * A subcommand describes itself in a struct cli_command: its usage text, its
 * getopt tables (which list the common options it takes with CLI_OPTION_*,
 * or all of them with CLI_COMMON_OPTIONS) and a handler for its own options.
 * cli_parse() runs the loop and fills a struct cli_common.
 */
#ifndef JITTERLAB_CMD_OPTIONS_H
#define JITTERLAB_CMD_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sys/cpulist.h"
#include "sys/system_info.h"

/* getopt values of the common long options without a short one; a
 * subcommand's own values start at 256 and stay below these. */
enum cli_common_opt {
    CLI_OPT_SYSROOT = 0x1000,
    CLI_OPT_JSON,
    CLI_OPT_POLICY,
};

#define CLI_OPTION_CPUS                                                                            \
    {                                                                                              \
        "cpus", required_argument, NULL, 'a'                                                       \
    }
#define CLI_OPTION_SYSROOT                                                                         \
    {                                                                                              \
        "sysroot", required_argument, NULL, CLI_OPT_SYSROOT                                        \
    }
#define CLI_OPTION_QUIET                                                                           \
    {                                                                                              \
        "quiet", no_argument, NULL, 'q'                                                            \
    }
#define CLI_OPTION_JSON                                                                            \
    {                                                                                              \
        "json", required_argument, NULL, CLI_OPT_JSON                                              \
    }
#define CLI_OPTION_HELP                                                                            \
    {                                                                                              \
        "help", no_argument, NULL, 'h'                                                             \
    }
#define CLI_OPTION_END                                                                             \
    {                                                                                              \
        NULL, 0, NULL, 0                                                                           \
    }
/* Every common option; the short ones are CLI_COMMON_SHORT. */
#define CLI_COMMON_OPTIONS                                                                         \
    CLI_OPTION_CPUS, CLI_OPTION_SYSROOT, CLI_OPTION_QUIET, CLI_OPTION_JSON, CLI_OPTION_HELP
#define CLI_COMMON_SHORT "a:qh"

/* --policy fifo|other and -p/--priority N as the cross-CPU measurements
 * (c2c, tsc, rendezvous) take them: SCHED_FIFO at CLI_SCHED_DEFAULT_PRIORITY
 * unless told; a priority with --policy other is refused, as in run. A
 * subcommand lists CLI_OPTION_SCHED in its table and "p:" in its short
 * options, passes every option to cli_sched_option first, and calls
 * cli_sched_finish after cli_parse. */
#define CLI_SCHED_DEFAULT_PRIORITY 10
#define CLI_OPTION_SCHED                                                                           \
    {"policy", required_argument, NULL, CLI_OPT_POLICY},                                           \
    {                                                                                              \
        "priority", required_argument, NULL, 'p'                                                   \
    }

struct cli_sched {
    bool fifo;    /* --policy fifo (the default) */
    int priority; /* 0 with --policy other */
    bool priority_set;
};

void cli_sched_init(struct cli_sched *s);
/* -1 when c is not --policy or --priority; else 0, or EXIT_USAGE after the
 * message. */
int cli_sched_option(struct cli_sched *s, int c, const char *arg);
/* 0, or EXIT_USAGE for a --priority beside --policy other. */
int cli_sched_finish(struct cli_sched *s);
/* "fifo" or "other". */
const char *cli_sched_policy(const struct cli_sched *s);
/* The one notice after a measurement that asked for SCHED_FIFO and ran at
 * SCHED_OTHER (realtime false); nothing with quiet. */
void cli_sched_notice(const char *subcommand, const struct cli_sched *s, bool realtime, bool quiet);

/* What the common options set. cpus is empty unless --cpus was given;
 * sysroot_dir falls back to $JITTERLAB_SYSROOT. */
struct cli_common {
    struct cpulist cpus;
    const char *cpus_text;
    const char *sysroot_dir;
    const char *json_path;
    bool quiet;
};

struct cli_command {
    const char *name; /* in messages: "jitterlab NAME: unknown option" */
    void (*usage)(FILE *out);
    const char *short_options; /* without the leading ':' */
    const struct option *long_options;
    /* The subcommand's own options: 0 taken, else an exit code after the
     * message. c is getopt_long's value, arg its optarg (may be NULL). */
    int (*option)(void *params, int c, const char *arg);
    /* Said after "-h is --help and takes no value" when a value follows
     * -h (run: where cyclictest's -h N went); NULL: nothing more. */
    const char *help_value_hint;
};

/* Parses argv[first..]: every option the subcommand's handler does not know
 * goes to the common handling. Arguments left after the options are an
 * error unless rest is given (then *rest is the index of the first).
 * Returns -1 to continue, EXIT_OK after --help, or EXIT_USAGE after the
 * message. Writes nothing but the help text and the message. */
int cli_parse(const struct cli_command *cmd, struct cli_common *common, void *params, int argc,
              char **argv, int first, int *rest);

/* A copy of the pointers argv[0..argc) (and the NULL after them), taken
 * before cli_parse: getopt_long reorders argv in place (options first,
 * arguments last), and a document records the command line as it was
 * typed. The strings are shared, not copied. NULL when out of memory; the
 * caller frees it with free(). */
char **cli_argv_copy(int argc, char **argv);

/* getopt_long returned ':' (missing value) or '?' (unknown or ambiguous
 * option), with opterr = 0: prints which (an ambiguous abbreviation with
 * the options it could mean), and returns EXIT_USAGE. */
int option_parse_error(const struct cli_command *cmd, int c, char **argv);
/* EXIT_USAGE naming the first argument left after the options, else 0. */
int check_no_more_args(const char *subcommand, int argc, char **argv);
/* Prints the message and returns EXIT_USAGE. value may be NULL. */
int usage_error(const char *opt, const char *value, const char *why);
/* 0, or EXIT_USAGE after the message. */
int parse_int_option(const char *opt, const char *text, long min, long max, long *out);
/* A duration in (0, DURATION_MAX_NS]; 0, or EXIT_USAGE after the message. */
int parse_positive_duration(const char *opt, const char *text, int64_t bare_unit_ns, int64_t *out);
/* 0, or EXIT_USAGE naming the first CPU that is not online. */
int check_cpus_online(const char *opt, const char *text, const struct cpulist *cpus,
                      const struct system_info *si);
/* The CPUs to measure: --cpus as given (online, within this process's
 * affinity), or by default the isolated CPUs that are usable, else every
 * usable CPU but the first, saying which defaults were dropped and why.
 * 0, or EXIT_USAGE after the message. */
int cli_choose_cpus(struct cli_common *c, const struct system_info *si);
/* Pins the calling thread (a collector) to the online CPUs not measured;
 * warns (unless quiet) when there are none. */
void cli_pin_to_housekeeping(const struct cpulist *measured, const struct system_info *si,
                             bool quiet);
/* 0, or EXIT_USAGE when path could not be written (nothing is created). */
int check_output_path(const char *opt, const char *path);
/* 0, or EXIT_USAGE with a message naming the input (with the option it
 * came with, or the command) that takes the documents paths[0 .. n) beyond
 * RESULT_READ_TOTAL_MAX_BYTES together: refused before any is read.
 * opts[i] may be NULL (a plain argument); opts itself too. */
int check_inputs_total(const char *cmd, const char *const *opts, const char *const *paths, int n);

/* An output option and its path (NULL: not asked for). */
struct cli_output {
    const char *opt, *path;
};
/* 0, or EXIT_USAGE naming the second of two outputs that are one file (by
 * name, by inode, or by directory and name), so that no output silently
 * overwrites another. */
int check_distinct_outputs(const struct cli_output *out, int n);
/* check_output_path for --json and --csv, and that they are two files. */
int check_json_and_csv(const char *json_path, const char *csv_path);

#endif
