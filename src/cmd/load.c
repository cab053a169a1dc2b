/*
 * `jitterlab load KIND`: run one best-effort load on its own, pinned and
 * bounded, with a live line of the duty cycle each load CPU achieves. The
 * same loads run beside a measurement with `jitterlab run --load`. Ends at
 * -D, or on SIGINT/SIGTERM, always taking its threads and child processes
 * with it. A cmd load that fails in its first ON phase is an error (exit 2,
 * nothing written); later failures are a warning at the end.
 */
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "common/stop.h"
#include "cmd/load_cli.h"
#include "cmd/options.h"
#include "common/clock.h"
#include "common/units.h"
#include "load/load.h"
#include "out/json_load.h"
#include "out/json_result.h"
#include "sys/system_info.h"

#define LIVE_PERIOD_NS  (500 * NS_PER_MS)
#define PLAIN_PERIOD_NS NS_PER_S
#define MAX_DUTY_ROWS   64

static void load_usage(FILE *out)
{
    fprintf(out, "usage: jitterlab load KIND [options]\n"
                 "\n"
                 "Runs a best-effort load on the given CPUs, the way it would run beside a\n"
                 "real-time loop (see also jitterlab run --load), and shows the duty cycle\n"
                 "each CPU achieves. Loads never use a real-time policy.\n"
                 "\n"
                 "KIND:\n");
    char kinds[2048];
    load_kinds_help(kinds, sizeof(kinds));
    fputs(kinds, out);
    fprintf(out, "\n"
                 "  -a, --cpus LIST         CPUs to load (default: the isolated CPUs, else every\n"
                 "                          online CPU but CPU 0); cmd runs once on all of them\n"
                 "  -D, --duration DUR      how long (bare number: s; default 10s)\n"
                 "      --policy P          other | batch | idle (default other)\n"
                 "      --nice N            nice value -20..19 (default 0)\n"
                 "      --json FILE         write what ran and the achieved duty cycles\n"
                 "  -q, --quiet             print nothing but errors\n"
                 "      --sysroot DIR       read /sys, /proc, /dev under DIR\n"
                 "  -h, --help              this text\n");
}

enum { OPT_POLICY = 256, OPT_NICE };

static const struct option load_options[] = {
    {"duration", required_argument, NULL, 'D'},
    {"policy", required_argument, NULL, OPT_POLICY},
    {"nice", required_argument, NULL, OPT_NICE},
    CLI_COMMON_OPTIONS,
    CLI_OPTION_END,
};

/* Parses "other", "batch", "idle"; -1 otherwise. */
static int load_policy_parse(const char *text)
{
    if (strcmp(text, "other") == 0)
        return SCHED_OTHER;
    if (strcmp(text, "batch") == 0)
        return SCHED_BATCH;
    if (strcmp(text, "idle") == 0)
        return SCHED_IDLE;
    return -1;
}

static int load_option(void *params, int c, const char *arg)
{
    struct load_params *p = params;
    long v;
    int rc = 0;
    switch (c) {
    case 'D':
        return parse_positive_duration("--duration", arg, NS_PER_S, &p->duration_ns);
    case OPT_POLICY:
        p->sched.policy = load_policy_parse(arg);
        if (p->sched.policy < 0)
            return usage_error("--policy", arg,
                               "must be other, batch or idle (loads never run real-time)");
        return 0;
    default: /* OPT_NICE */
        rc = parse_int_option("--nice", arg, -20, 19, &v);
        p->sched.nice = (int)v;
        return rc;
    }
}

static const struct cli_command load_cli = {
    "load", load_usage, "D:" CLI_COMMON_SHORT, load_options, load_option, NULL,
};

int load_parse_args(int argc, char **argv, struct load_params *p)
{
    memset(p, 0, sizeof(*p));
    p->duration_ns = 10 * NS_PER_S;
    p->sched.policy = SCHED_OTHER;
    int first_arg;
    int rc = cli_parse(&load_cli, &p->common, p, argc, argv, 1, &first_arg);
    if (rc >= 0)
        return rc;
    if (first_arg >= argc) {
        fprintf(stderr, "jitterlab: load: which load? (e.g. jitterlab load pulse:100ms:400ms "
                        "-a 1; see jitterlab help load)\n");
        return EXIT_USAGE;
    }
    p->kind_text = argv[first_arg];
    optind = first_arg + 1;
    if ((rc = check_no_more_args("load", argc, argv)) != 0)
        return rc;
    return -1;
}

static void print_duty(FILE *out, const struct load_runner *lr, const struct load_spec *spec,
                       double elapsed_s, double total_s, bool tty)
{
    struct load_duty d[MAX_DUTY_ROWS];
    uint64_t starts = 0;
    int n = load_runner_duty(lr, 0, d, MAX_DUTY_ROWS, &starts);
    fprintf(out, "%s%6.1f / %.1f s  %s duty:", tty ? "\r" : "", elapsed_s, total_s, spec->text);
    for (int i = 0; i < n; i++) {
        if (d[i].cpu >= 0)
            fprintf(out, "  cpu%d %5.1f%%", d[i].cpu, d[i].duty * 100);
        else
            fprintf(out, "  cpus %5.1f%%", d[i].duty * 100);
    }
    if (load_is_external(spec))
        fprintf(out, "  starts %llu", (unsigned long long)starts);
    fputs(tty ? "\033[K" : "\n", out);
    fflush(out);
}

static int write_json(const struct load_params *p, const struct system_info *si, int argc,
                      char **argv, const struct load_spec *spec, const struct load_runner *lr,
                      const char *started_at, double duration_s, bool interrupted)
{
    json_t *doc = json_document_new("load", JITTERLAB_VERSION, argc, argv, started_at);
    json_object_set_new(doc, "duration_s", json_real(duration_s));
    json_object_set_new(doc, "interrupted", json_boolean(interrupted));
    json_object_set_new(doc, "system", json_system_info(si));
    json_object_set_new(doc, "loads", json_load_list(spec, 1, &p->sched, lr));
    int rc = json_write_file(doc, p->common.json_path);
    json_decref(doc);
    return rc;
}

/* The load once its options are parsed; argv is the command line as typed. */
static int load_main(struct load_params *p, int argc, char **argv)
{
    int rc;
    struct sysroot sr;
    sysroot_init(&sr, p->common.sysroot_dir);
    static struct system_info si;
    system_info_read(&sr, &si);
    static struct load_spec spec;
    char why[600];
    if (load_parse(p->kind_text, &sr, false, &spec, why, sizeof(why)) != 0)
        return usage_error("load", p->kind_text, why);
    if (p->common.cpus.count == 0)
        system_info_default_cpus(&si, &p->common.cpus);
    else if ((rc = check_cpus_online("--cpus", p->common.cpus_text, &p->common.cpus, &si)) != 0)
        return rc;
    if ((rc = check_output_path("--json", p->common.json_path)) != 0)
        return rc;
    spec.cpus = p->common.cpus;
    spec.cpus_given = true;

    stop_handlers_install();
    char started_at[40];
    rfc3339_now(started_at, sizeof(started_at));
    char err[600];
    struct load_runner *lr =
        load_runner_start(&spec, 1, &p->sched, p->duration_ns, err, sizeof(err));
    if (!lr) {
        fprintf(stderr, "jitterlab: load: %s\n", err);
        return EXIT_RUNTIME;
    }
    int failed_load;
    if (load_runner_check_start(lr, &failed_load, err, sizeof(err)) != 0) {
        load_runner_destroy(lr);
        return usage_error("load", p->kind_text, err);
    }
    int64_t start = monotonic_now_ns();
    bool tty = isatty(STDOUT_FILENO);
    double total_s = (double)p->duration_ns / 1e9;
    int64_t next_line = start + (tty ? LIVE_PERIOD_NS : PLAIN_PERIOD_NS);
    bool interrupted = false;
    while (!load_runner_finished(lr)) {
        struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, NULL);
        if (stop_requested()) {
            interrupted = true;
            break;
        }
        int64_t now = monotonic_now_ns();
        if (!p->common.quiet && now >= next_line) {
            print_duty(stdout, lr, &spec, (double)(now - start) / 1e9, total_s, tty);
            next_line = now + (tty ? LIVE_PERIOD_NS : PLAIN_PERIOD_NS);
        }
    }
    load_runner_stop(lr);
    double elapsed_s = (double)(monotonic_now_ns() - start) / 1e9;
    if (!p->common.quiet) {
        print_duty(stdout, lr, &spec, elapsed_s, total_s, tty);
        if (tty)
            fputc('\n', stdout);
    }
    if (load_runner_failure_summary(lr, 0, err, sizeof(err)))
        fprintf(stderr, "jitterlab: load %s: %s\n", spec.text, err);
    rc = EXIT_OK;
    if (p->common.json_path &&
        write_json(p, &si, argc, argv, &spec, lr, started_at, elapsed_s, interrupted) != 0) {
        fprintf(stderr, "jitterlab: --json %s: cannot write\n", p->common.json_path);
        rc = EXIT_RUNTIME;
    }
    load_runner_destroy(lr);
    return rc;
}

int cmd_load(int argc, char **argv)
{
    static struct load_params p;
    /* the command line as typed, for the document: parsing reorders argv */
    char **typed = cli_argv_copy(argc, argv);
    int rc = load_parse_args(argc, argv, &p);
    if (rc < 0)
        rc = load_main(&p, argc, typed ? typed : argv);
    free(typed);
    return rc;
}
