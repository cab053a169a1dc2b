/*
 * What main() does with the subcommand table (cmd.h): top-level help (the
 * list comes from the table), --version, `jitterlab help NAME` (runs
 * `jitterlab NAME --help`), and the flags that hold before a subcommand runs.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "tune/session.h"
#include "tune/tune.h"

static void usage(FILE *out, const struct subcommand *table, size_t n)
{
    fprintf(out, "usage: jitterlab SUBCOMMAND [options]\n"
                 "       jitterlab help SUBCOMMAND | --help | --version\n\n"
                 "jitterlab measures, explains and reduces real-time latency on Linux.\n\n"
                 "subcommands:\n");
    int width = 0; /* the longest name, so the summaries line up */
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(table[i].name) > width)
            width = (int)strlen(table[i].name);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "  %-*s  %s\n", width, table[i].name, table[i].summary);
    fprintf(out, "\nexit codes: 0 ok, 1 runtime failure, 2 bad usage or input,\n"
                 "            3 latency budget exceeded\n"
                 "environment: JITTERLAB_SYSROOT=DIR reads /sys, /proc, /dev under DIR\n");
}

static const struct subcommand *find(const struct subcommand *table, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

static void apply_flags(unsigned flags)
{
    if (flags & SUBCOMMAND_WARN_STALE_TUNE) {
        /* A run or hold that died left the machine tuned: say so every time. */
        char warning[1024];
        tune_stale_warning(tune_state_path(NULL), warning, sizeof(warning));
        if (warning[0])
            fprintf(stderr, "jitterlab: WARNING: %s\n", warning);
    }
}

int subcommand_main(const struct subcommand *table, size_t n, int argc, char **argv)
{
    /* A closed pipe (| head) must end output, not the process: a run that
     * tuned the machine still has to restore it. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        usage(stderr, table, n);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        usage(stdout, table, n);
        return EXIT_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("jitterlab %s\n", JITTERLAB_VERSION);
        return EXIT_OK;
    }
    if (strcmp(name, "help") == 0) {
        if (argc < 3) {
            usage(stdout, table, n);
            return EXIT_OK;
        }
        const struct subcommand *sc = find(table, n, argv[2]);
        if (!sc) {
            fprintf(stderr, "jitterlab: help: unknown subcommand '%s'\n", argv[2]);
            return EXIT_USAGE;
        }
        char *help_argv[] = {argv[2], "--help", NULL};
        return sc->fn(2, help_argv);
    }
    const struct subcommand *sc = find(table, n, name);
    if (!sc) {
        fprintf(stderr, "jitterlab: unknown subcommand '%s' (see jitterlab --help)\n", name);
        return EXIT_USAGE;
    }
    apply_flags(sc->flags);
    return sc->fn(argc - 1, argv + 1);
}
