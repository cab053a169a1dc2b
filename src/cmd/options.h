/*
 * What every subcommand's option parsing shares: the one format of usage
 * errors ("jitterlab: --opt VALUE: why", exit 2), number and duration
 * options and the checks of CPU lists and output
 * paths that must happen before anything runs or is written.
 */
#ifndef JITTERLAB_CMD_OPTIONS_H
#define JITTERLAB_CMD_OPTIONS_H

#include <stdint.h>

#include "sys/cpulist.h"
#include "sys/system_info.h"

/* getopt_long returned ':' (missing value) or '?' (unknown option), with
 * opterr = 0: prints which, and returns EXIT_USAGE. */
int option_parse_error(const char *subcommand, int c, char **argv);
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
/* 0, or EXIT_USAGE when path could not be written (nothing is created). */
int check_output_path(const char *opt, const char *path);

#endif
