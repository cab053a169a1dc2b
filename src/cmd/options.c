/*
 * Shared option parsing and input checks for the subcommands; see
 * options.h. Every check here runs before a subcommand touches the machine
 * or creates a file, so bad input always ends with exit 2 and no output.
 */
#include "cmd/options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "common/units.h"
#include "common/atomic_file.h"

/* One common option: -1 taken, else an exit code. */
static int common_option(const struct cli_command *cmd, struct cli_common *co, int c, char **argv)
{
    const char *why;
    switch (c) {
    case 'a':
        co->cpus_text = optarg;
        if (cpulist_parse(optarg, &co->cpus, &why) != 0)
            return usage_error("--cpus", optarg, why);
        if (co->cpus.count == 0)
            return usage_error("--cpus", optarg, "empty CPU list");
        return -1;
    case CLI_OPT_SYSROOT:
        co->sysroot_dir = optarg;
        return -1;
    case CLI_OPT_JSON:
        co->json_path = optarg;
        return -1;
    case 'q':
        co->quiet = true;
        return -1;
    case 'h':
        cmd->usage(stdout);
        return EXIT_OK;
    default:
        return option_parse_error(cmd->name, c, argv);
    }
}

/* getopt_long values that the common handling owns: the common options,
 * unknown options ('?') and missing values (':'). */
static bool is_common(int c)
{
    return c == 'a' || c == 'q' || c == 'h' || c == CLI_OPT_SYSROOT || c == CLI_OPT_JSON ||
           c == ':' || c == '?';
}

int cli_parse(const struct cli_command *cmd, struct cli_common *co, void *params, int argc,
              char **argv, int first, int *rest)
{
    char shortopts[64];
    snprintf(shortopts, sizeof(shortopts), ":%s", cmd->short_options);
    memset(co, 0, sizeof(*co));
    /* getopt starts afresh only when optind is 0 (glibc keeps its permutation
     * state otherwise): parse argv from `first` as if it were a new vector. */
    int shift = first > 0 ? first - 1 : 0;
    char **av = argv + shift;
    int ac = argc - shift;
    opterr = 0;
    optind = 0;
    int c, rc;
    while ((c = getopt_long(ac, av, shortopts, cmd->long_options, NULL)) != -1) {
        if (is_common(c)) {
            if ((rc = common_option(cmd, co, c, av)) >= 0)
                return rc;
        } else if ((rc = cmd->option(params, c, optarg)) != 0) {
            return rc;
        }
    }
    if (rest)
        *rest = optind + shift;
    else if ((rc = check_no_more_args(cmd->name, ac, av)) != 0)
        return rc;
    if (!co->sysroot_dir)
        co->sysroot_dir = getenv("JITTERLAB_SYSROOT");
    return -1;
}

int option_parse_error(const char *subcommand, int c, char **argv)
{
    if (c == ':')
        return usage_error(argv[optind - 1], NULL, "needs a value");
    fprintf(stderr, "jitterlab: %s: unknown option '%s' (see jitterlab help %s)\n", subcommand,
            argv[optind - 1], subcommand);
    return EXIT_USAGE;
}

int check_no_more_args(const char *subcommand, int argc, char **argv)
{
    if (optind >= argc)
        return 0;
    fprintf(stderr, "jitterlab: %s: unexpected argument '%s' (see jitterlab help %s)\n", subcommand,
            argv[optind], subcommand);
    return EXIT_USAGE;
}

int usage_error(const char *opt, const char *value, const char *why)
{
    if (value)
        fprintf(stderr, "jitterlab: %s %s: %s\n", opt, value, why);
    else
        fprintf(stderr, "jitterlab: %s: %s\n", opt, why);
    return EXIT_USAGE;
}

int parse_int_option(const char *opt, const char *text, long min, long max, long *out)
{
    const char *why;
    if (parse_int_range(text, min, max, out, &why) == 0)
        return 0;
    char msg[96];
    snprintf(msg, sizeof(msg), "must be a whole number from %ld to %ld", min, max);
    return usage_error(opt, text, msg);
}

int parse_positive_duration(const char *opt, const char *text, int64_t bare_unit_ns, int64_t *out)
{
    const char *why;
    if (parse_duration_bounded_ns(text, bare_unit_ns, out, &why) != 0)
        return usage_error(opt, text, why);
    if (*out <= 0)
        return usage_error(opt, text, "must be greater than 0");
    return 0;
}

int check_cpus_online(const char *opt, const char *text, const struct cpulist *cpus,
                      const struct system_info *si)
{
    if (si->online.count == 0)
        return 0; /* online list unknown: the kernel will say */
    for (int i = 0; i < cpus->count; i++) {
        if (!cpulist_contains(&si->online, cpus->cpu[i])) {
            char list[1024], why[1200];
            cpulist_format(&si->online, list, sizeof(list));
            snprintf(why, sizeof(why), "CPU %d is not online (online: %s)", cpus->cpu[i], list);
            return usage_error(opt, text, why);
        }
    }
    return 0;
}

int check_output_path(const char *opt, const char *path)
{
    char why[4200];
    if (path && atomic_file_check(path, why, sizeof(why)) != 0)
        return usage_error(opt, path, why);
    return 0;
}

void cli_sched_init(struct cli_sched *s)
{
    *s = (struct cli_sched){.fifo = true, .priority = CLI_SCHED_DEFAULT_PRIORITY};
}

int cli_sched_option(struct cli_sched *s, int c, const char *arg)
{
    if (c == CLI_OPT_POLICY) {
        if (strcmp(arg, "fifo") != 0 && strcmp(arg, "other") != 0)
            return usage_error("--policy", arg, "must be fifo or other");
        s->fifo = strcmp(arg, "fifo") == 0;
        return 0;
    }
    if (c != 'p')
        return -1;
    long v;
    int rc = parse_int_option("--priority", arg, 1, 99, &v);
    s->priority = (int)v;
    s->priority_set = true;
    return rc;
}

int cli_sched_finish(struct cli_sched *s)
{
    if (s->fifo)
        return 0;
    if (s->priority_set)
        return usage_error("--priority", NULL, "has no meaning with --policy other");
    s->priority = 0;
    return 0;
}

const char *cli_sched_policy(const struct cli_sched *s)
{
    return s->fifo ? "fifo" : "other";
}
