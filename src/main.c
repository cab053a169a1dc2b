/*
 * jitterlab entry point: the subcommand table (name -> cmd_NAME), top-level
 * help and --version, and the stop flag that SIGINT, SIGTERM, SIGQUIT and SIGHUP set. Each
 * subcommand owns its option parsing; `jitterlab help NAME` runs
 * `jitterlab NAME --help`.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "tune/session.h"

static volatile sig_atomic_t stop_flag;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

void stop_handlers_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal; /* no SA_RESTART: sleeps end early */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    /* A dropped ssh session (SIGHUP) must restore a tuned machine too; under
     * nohup, where SIGHUP is ignored, it stays ignored. */
    struct sigaction old;
    if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaction(SIGHUP, &sa, NULL);
}

bool stop_requested(void)
{
    return stop_flag != 0;
}

struct subcommand {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

static const struct subcommand subcommands[] = {
    {"run", cmd_run, "measure wake-up latency with one real-time thread per CPU"},
    {"inspect", cmd_inspect, "say whether this machine can meet a latency budget, and why not"},
    {"load", cmd_load, "run a pinned, bounded best-effort load (cpu, pulse, cache, memory, cmd)"},
    {"tune", cmd_tune, "apply, hold, show or restore reversible latency tuning"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: jitterlab SUBCOMMAND [options]\n"
                 "       jitterlab help SUBCOMMAND | --help | --version\n\n"
                 "jitterlab measures, explains and reduces real-time latency on Linux.\n\n"
                 "subcommands:\n");
    for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
        fprintf(out, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(out, "\nexit codes: 0 ok, 1 runtime failure, 2 bad usage or input,\n"
                 "            3 latency budget exceeded\n"
                 "environment: JITTERLAB_SYSROOT=DIR reads /sys, /proc, /dev under DIR\n");
}

static const struct subcommand *find(const char *name)
{
    for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
        if (strcmp(subcommands[i].name, name) == 0)
            return &subcommands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    /* A closed pipe (| head) must end output, not the process: a run that
     * tuned the machine still has to restore it. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("jitterlab %s\n", JITTERLAB_VERSION);
        return EXIT_OK;
    }
    if (strcmp(name, "help") == 0) {
        if (argc < 3) {
            usage(stdout);
            return EXIT_OK;
        }
        const struct subcommand *sc = find(argv[2]);
        if (!sc) {
            fprintf(stderr, "jitterlab: help: unknown subcommand '%s'\n", argv[2]);
            return EXIT_USAGE;
        }
        char *help_argv[] = {argv[2], "--help", NULL};
        return sc->fn(2, help_argv);
    }
    const struct subcommand *sc = find(name);
    if (!sc) {
        fprintf(stderr, "jitterlab: unknown subcommand '%s' (see jitterlab --help)\n", name);
        return EXIT_USAGE;
    }
    if (sc->fn != cmd_tune) {
        /* A run or hold that died left the machine tuned: say so every time. */
        char warning[1024];
        tune_stale_warning(tune_state_path(NULL), warning, sizeof(warning));
        if (warning[0])
            fprintf(stderr, "jitterlab: WARNING: %s\n", warning);
    }
    return sc->fn(argc - 1, argv + 1);
}
