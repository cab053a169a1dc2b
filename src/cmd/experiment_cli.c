/*
 * `jitterlab experiment`'s command line and the checks of an experiment
 * file before anything runs: the options, the file read whole, every step's
 * run, load and tune words as `jitterlab run` takes them, and each run's
 * time limit.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/experiment_cli.h"
#include "cmd/options.h"
#include "cmd/run_cli.h"
#include "common/clock.h"
#include "common/units.h"
#include "experiment/plan.h"

/* A run may overrun its own duration by this much (setup, tuning, writing
 * its document) before the experiment stops it, and the run fails. */
#define RUN_SLACK_NS (120 * NS_PER_S)
/* A test aid: every run's time limit in ms instead (a limit reached fast). */
#define RUN_LIMIT_ENV "JITTERLAB_EXPERIMENT_RUN_LIMIT_MS"

static void experiment_usage(FILE *out)
{
    fprintf(out,
            "usage: jitterlab experiment FILE [-o DIR] [--dry-run] [-q]\n"
            "       jitterlab experiment --resume DIR [--dry-run] [-q]\n"
            "\n"
            "Runs an A/B experiment: each [step NAME] of the INI file FILE is a jitterlab run\n"
            "command line, run `repeat` times, interleaved (A B A B ..., so that drift hits\n"
            "every step alike) or blocked, `settle` apart, each run in a child process with\n"
            "the step's before and after commands (sh -c). Every step's options are checked\n"
            "before anything runs. DIR gets STEP-REPEAT.json per finished run (and the outputs\n"
            "the step's save key names, STEP-REPEAT.samples.csv, ...), experiment.ini,\n"
            "experiment.json, compare.json and report.html (docs/experiments.md).\n"
            "\n"
            "  -o, --output DIR        results directory, which must not exist (default\n"
            "                          ./NAME-YYYYmmdd-HHMMSS)\n"
            "      --resume DIR        run what DIR is missing (DIR/experiment.ini), in the\n"
            "                          same order, then write compare.json and report.html\n"
            "      --dry-run           print the runs in order with their command lines\n"
            "  -q, --quiet             print nothing but errors\n"
            "  -h, --help              this text\n"
            "\n"
            "Ctrl-C (or SIGTERM, SIGHUP) stops the running measurement, runs its after and\n"
            "ends; --resume continues. A run that overruns its duration by 120 s is stopped\n"
            "and fails. Exit codes: 0 ok (also when interrupted), 1 a run failed or was\n"
            "skipped, 2 bad usage or experiment file, 3 a run exceeded its --budget.\n");
}

enum { OPT_RESUME = 256, OPT_DRY_RUN };

static const struct option experiment_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"resume", required_argument, NULL, OPT_RESUME},
    {"dry-run", no_argument, NULL, OPT_DRY_RUN},
    CLI_OPTION_QUIET,
    CLI_OPTION_HELP,
    CLI_OPTION_END,
};

static int experiment_option(void *params, int c, const char *arg)
{
    struct experiment_params *p = params;
    switch (c) {
    case 'o':
        if (!*arg)
            return usage_error("--output", NULL, "must not be empty");
        p->output_dir = arg;
        return 0;
    case OPT_RESUME:
        if (!*arg)
            return usage_error("--resume", NULL, "must not be empty");
        p->resume_dir = arg;
        return 0;
    default: /* OPT_DRY_RUN */
        p->dry_run = true;
        return 0;
    }
}

static const struct cli_command experiment_cli = {
    "experiment", experiment_usage, "o:qh", experiment_options, experiment_option, NULL,
};

int experiment_parse_args(int argc, char **argv, struct experiment_params *p)
{
    memset(p, 0, sizeof(*p));
    int first_arg;
    int rc = cli_parse(&experiment_cli, &p->common, p, argc, argv, 1, &first_arg);
    if (rc >= 0)
        return rc;
    if (first_arg < argc)
        p->file = argv[first_arg++];
    if (first_arg < argc) {
        fprintf(stderr,
                "jitterlab: experiment: unexpected argument '%s' (see jitterlab help experiment)\n",
                argv[first_arg]);
        return EXIT_USAGE;
    }
    if (p->resume_dir && p->file)
        return usage_error("--resume", p->resume_dir, "takes no FILE (it runs DIR/experiment.ini)");
    if (p->resume_dir && p->output_dir)
        return usage_error("--output", p->output_dir,
                           "has no meaning with --resume (the results stay in DIR)");
    if (!p->resume_dir && !p->file) {
        fprintf(stderr, "jitterlab: experiment: which experiment file? (e.g. jitterlab "
                        "experiment examples/c-states.ini; see jitterlab help experiment)\n");
        return EXIT_USAGE;
    }
    return -1;
}

/* Reads the experiment file whole. NULL after the message (exit 2). */
char *experiment_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "jitterlab: %s: cannot read: %s\n", path, strerror(errno));
        return NULL;
    }
    char *text = malloc(PLAN_MAX_FILE_BYTES + 1);
    size_t n = text ? fread(text, 1, PLAN_MAX_FILE_BYTES + 1, f) : 0;
    bool bad = ferror(f);
    fclose(f);
    if (!text || bad || n > PLAN_MAX_FILE_BYTES) {
        fprintf(stderr, "jitterlab: %s: %s\n", path,
                !text ? "out of memory"
                : bad ? "cannot read"
                      : "larger than 1 MiB (is this an experiment file?)");
        free(text);
        return NULL;
    }
    text[n] = '\0';
    *len = n;
    return text;
}

/* Checks argv[0, n) of step s as `jitterlab run` would, naming the line of
 * key k on error; *limit_ns (when given) gets how long the run may take. */
static int check_run_words(const struct plan_step *s, int n, int k, const char *file,
                           int64_t *limit_ns)
{
    char *argv[WORDS_MAX + 2];
    memcpy(argv, s->argv.word, (size_t)n * sizeof(*argv)); /* getopt reorders */
    argv[n] = NULL;
    struct run_params *rp = calloc(1, sizeof(*rp));
    struct system_info *si = calloc(1, sizeof(*si));
    int rc = rp && si ? run_parse_args(n, argv, rp) : EXIT_RUNTIME;
    const char *why = NULL;
    const struct plan_save_kind *per_run = NULL;
    char buf[300];
    if (rc < 0) {
        const char *given[PLAN_SAVE_KINDS] = {
            [SAVE_SAMPLES] = rp->samples_path,
            [SAVE_HISTOGRAM] = rp->hist_path,
            [SAVE_INTERVALS] = rp->intervals_path,
        };
        for (int w = PLAN_SAVE_KINDS - 1; w >= 0; w--)
            per_run = given[w] ? &plan_save_kinds[w] : per_run;
    }
    if (rc == EXIT_OK)
        why = "-h/--help prints a text and measures nothing";
    else if (rc >= 0)
        why = "not accepted by jitterlab run (see the message above)";
    else if (rp->common.json_path)
        why = "--json is the experiment's to give (it writes DIR/STEP-REPEAT.json)";
    else if (per_run) {
        snprintf(buf, sizeof(buf),
                 "%s would be written over by every run; save = %s writes one per run "
                 "(DIR/STEP-REPEAT.%s)",
                 per_run->option, per_run->word, per_run->suffix);
        why = buf;
    } else if (rp->forever)
        why = "--forever (or -D 0) runs until stopped; a step's run needs an end (-D DURATION "
              "or -l LOOPS)";
    if (!why) {
        struct sysroot sr;
        sysroot_init(&sr, rp->common.sysroot_dir);
        system_info_read(&sr, si);
        if ((rc = run_validate(rp, si, &sr)) >= 0)
            why = "not accepted by jitterlab run on this machine (see the message above)";
        else if (limit_ns && (s->save & (1u << SAVE_INTERVALS)) && !rp->report_every_ns &&
                 !rp->report_every_samples)
            why = "save = intervals needs --report-every in run (an interval is one report)";
    }
    if (why)
        fprintf(stderr, "jitterlab: %s:%d: [step %s] %s: %s\n", file, s->key[k].line, s->name,
                plan_step_keys[k], why);
    else if (limit_ns) {
        int64_t d =
            rp->duration_set || !rp->loops ? rp->duration_ns : (int64_t)rp->loops * rp->interval_ns;
        *limit_ns = deadline_after_ns(d, RUN_SLACK_NS);
    }
    free(rp);
    free(si);
    return why ? EXIT_USAGE : 0;
}

/* $JITTERLAB_EXPERIMENT_RUN_LIMIT_MS: 0 when unset, -1 after the message. */
static int64_t run_limit_from_env(void)
{
    const char *text = getenv(RUN_LIMIT_ENV);
    long ms;
    const char *why;
    if (!text)
        return 0;
    if (parse_int_range(text, 1, 86400000L, &ms, &why) != 0) {
        fprintf(stderr, "jitterlab: %s=%s: must be a whole number of ms from 1 to 86400000\n",
                RUN_LIMIT_ENV, text);
        return -1;
    }
    return (int64_t)ms * NS_PER_MS;
}

/* Every step's run options, then with its loads, then with its tuning, so
 * that a message names the line that brought the bad word. */
int experiment_check_steps(const struct experiment_plan *plan, const char *file, int64_t *limit_ns)
{
    int64_t forced_ns = run_limit_from_env();
    if (forced_ns < 0)
        return EXIT_USAGE;
    for (int i = 0; i < plan->nsteps; i++) {
        const struct plan_step *s = &plan->step[i];
        int rc = check_run_words(s, s->run_end, STEP_RUN, file, NULL);
        if (rc == 0 && s->key[STEP_LOAD].text)
            rc = check_run_words(s, s->load_end, STEP_LOAD, file, NULL);
        if (rc == 0)
            rc = check_run_words(s, s->argv.count, s->key[STEP_TUNE].text ? STEP_TUNE : STEP_RUN,
                                 file, &limit_ns[i]);
        if (rc != 0)
            return rc;
        if (forced_ns)
            limit_ns[i] = forced_ns;
    }
    return 0;
}
