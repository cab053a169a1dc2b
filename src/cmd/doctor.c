/*
 * `jitterlab doctor`: what stands between a loop and its latency budget on
 * these CPUs, and what fixes it. Reads the machine and runs the inspect
 * rules in-process (src/inspect/), measures a baseline as a child `jitterlab
 * run --explain=BUDGET` of this binary with the user's workload and loads
 * (src/experiment/child.c: its own process group, Ctrl-C forwarded, its
 * result kept), or reads a result already made (--from). The diagnosis and
 * prescriptions come from src/doctor/, the outputs from src/out/. Only
 * --apply changes the machine: the treatment is cmd/doctor_apply.c.
 * Exit 0 when the final state (without --apply: the baseline) met the
 * budget, 3 when not, 1 on a runtime failure, 2 on bad input (before
 * anything is run or written).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/doctor_cli.h"
#include "cmd/doctor_internal.h"
#include "cmd/options.h"
#include "cmd/run_cli.h"
#include "common/clock.h"
#include "common/stop.h"
#include "common/units.h"
#include "doctor/diagnosis.h"
#include "doctor/prescribe.h"
#include "experiment/child.h"
#include "inspect/inspect_rules.h"
#include "inspect/inspect_system.h"
#include "out/json_doctor.h"
#include "out/json_result.h"
#include "out/result_read.h"
#include "out/text_doctor.h"

#define DOCTOR_DEFAULT_DURATION_NS (30 * NS_PER_S)
#define DOCTOR_SLACK_NS            (30 * NS_PER_S) /* the run's start-up and writing */
#define DOCTOR_GRACE_NS            (5 * NS_PER_S)  /* SIGINT to SIGKILL */

static void doctor_usage(FILE *out)
{
    fprintf(out,
            "usage: jitterlab doctor [options]\n"
            "\n"
            "What stands between a loop on CPUS and its latency budget, and what fixes it.\n"
            "Inspects the machine, measures a baseline (a `jitterlab run --explain` at the\n"
            "budget, with the workload and loads given, as the machine is configured), ranks\n"
            "the causes of the samples over the budget by what they cost it, with the inspect\n"
            "findings that point at the same thing, and prescribes remedies: tune commands,\n"
            "the kernel command line for these CPUs, the thread to move, the firmware's or\n"
            "the hypervisor's part. Without --apply nothing on the machine is changed. With\n"
            "--from, a run already made is diagnosed instead of a new baseline.\n"
            "\n"
            "  -a, --cpus LIST     the loop's CPUs (default: the isolated CPUs, else every\n"
            "                      online CPU but CPU 0; with --from: the result's)\n"
            "      --budget DUR    latency every cycle must meet (bare number: us; required\n"
            "                      unless --from, where it is the result's spike threshold)\n"
            "  -i, --interval DUR  the baseline's cycle interval (bare number: us; default 1ms)\n"
            "  -D, --duration DUR  the baseline's length (bare number: s; default 30s)\n"
            "  -w, --workload SPEC\n"
            "                      the loop's work per cycle, as run takes it\n"
            "      --load SPEC     a best-effort load during the baseline, as run takes it\n"
            "                      (repeatable)\n"
            "  -o, --output DIR    a new directory for baseline.json and doctor.json\n"
            "                      (refused when it exists)\n"
            "      --from FILE     diagnose a run already made with --explain=BUDGET\n"
            "                      instead of measuring\n"
            "      --apply         treat: try each runtime remedy (a tune action) in rank\n"
            "                      order through the tune journal, check it took effect, A/B\n"
            "                      it against the state before it, keep it when compare says\n"
            "                      better, else put it back (undo all: jitterlab tune restore)\n"
            "      --repeat N      A/B rounds per remedy: 1, or 6-16 (default 6)\n"
            "      --keep-neutral  keep a change compare finds no difference for\n"
            "      --only ACTIONS  treat with these tune actions only (comma-separated), of\n"
            "                      those prescribed\n"
            "      --json FILE     write doctor.json (schema 1, kind doctor) there\n"
            "      --sysroot DIR   read /sys, /proc under DIR (with --from; with --apply the\n"
            "                      tune actions act on DIR, the runs measure this machine)\n"
            "  -q, --quiet         print nothing but errors\n"
            "  -h, --help          this text\n"
            "\n"
            "Exit codes: 0 the final state (the baseline without --apply) met the budget,\n"
            "1 runtime failure, 2 bad usage, 3 it did not meet the budget.\n");
}

enum { OPT_BUDGET = 256, OPT_LOAD, OPT_FROM, OPT_APPLY, OPT_REPEAT, OPT_KEEP_NEUTRAL, OPT_ONLY };

static const struct option doctor_options[] = {
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"interval", required_argument, NULL, 'i'},
    {"duration", required_argument, NULL, 'D'},
    {"workload", required_argument, NULL, 'w'},
    {"load", required_argument, NULL, OPT_LOAD},
    {"output", required_argument, NULL, 'o'},
    {"from", required_argument, NULL, OPT_FROM},
    {"apply", no_argument, NULL, OPT_APPLY},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"keep-neutral", no_argument, NULL, OPT_KEEP_NEUTRAL},
    {"only", required_argument, NULL, OPT_ONLY},
    CLI_COMMON_OPTIONS,
    CLI_OPTION_END,
};

static int doctor_option(void *params, int c, const char *arg)
{
    struct doctor_params *p = params;
    switch (c) {
    case OPT_BUDGET:
        p->budget_text = arg;
        return parse_positive_duration("--budget", arg, NS_PER_US, &p->budget_ns);
    case 'i':
        p->interval_text = arg;
        return parse_positive_duration("--interval", arg, NS_PER_US, &p->interval_ns);
    case 'D':
        p->duration_text = arg;
        return parse_positive_duration("--duration", arg, NS_PER_S, &p->duration_ns);
    case 'w':
        p->workload_text = arg;
        return 0;
    case OPT_LOAD:
        if (p->nloads == DOCTOR_MAX_LOADS)
            return usage_error("--load", arg, "at most 16 loads");
        p->load_text[p->nloads++] = arg;
        return 0;
    case 'o':
        p->out_dir = arg;
        return 0;
    case OPT_APPLY:
        p->apply = true;
        return 0;
    case OPT_REPEAT: {
        long n;
        int rc = parse_int_option("--repeat", arg, 1, TREAT_MAX_REPEAT, &n);
        p->repeat = (int)n;
        /* compare's test between runs has a smallest p above its level with
         * 2 to 5 runs a side: every change would read insufficient-data */
        if (rc == 0 && n > 1 && n < 6)
            return usage_error("--repeat", arg,
                               "compare's test between runs cannot reach its level with fewer "
                               "than 6 runs a side: 1 judges within the runs, 6 or more between "
                               "them");
        return rc;
    }
    case OPT_KEEP_NEUTRAL:
        p->keep_neutral = true;
        return 0;
    case OPT_ONLY: {
        const char *bad = NULL;
        char why[600];
        p->only_text = arg;
        p->only_mask = tune_actions_for(NULL, arg, &bad, why, sizeof why);
        return p->only_mask ? 0 : usage_error("--only", arg, why);
    }
    default: /* OPT_FROM */
        p->from = arg;
        return 0;
    }
}

/* What only measuring takes, refused beside --from. */
static int doctor_finish(struct doctor_params *p)
{
    if (p->from) {
        const char *opt = p->interval_ns     ? "--interval"
                          : p->duration_ns   ? "--duration"
                          : p->workload_text ? "--workload"
                          : p->nloads        ? "--load"
                          : p->out_dir       ? "--output"
                          : p->apply         ? "--apply"
                          : p->repeat        ? "--repeat"
                          : p->keep_neutral  ? "--keep-neutral"
                          : p->only_text     ? "--only"
                                             : NULL;
        if (opt)
            return usage_error(opt, NULL,
                               "sets the baseline doctor measures; --from diagnoses a run "
                               "already made");
        return -1;
    }
    if (!p->budget_ns)
        return usage_error("--budget", NULL, "is required: the latency every cycle must meet");
    if (!p->apply && (p->repeat || p->keep_neutral || p->only_text))
        return usage_error(p->repeat         ? "--repeat"
                           : p->keep_neutral ? "--keep-neutral"
                                             : "--only",
                           NULL, "sets the treatment: give --apply too");
    if (!p->repeat)
        p->repeat = TREAT_DEFAULT_REPEAT;
    if (p->common.sysroot_dir && p->common.sysroot_dir[0] && strcmp(p->common.sysroot_dir, "/") &&
        !p->apply)
        return usage_error("--sysroot", p->common.sysroot_dir,
                           "doctor measures this machine; a tree is read only with --from, or "
                           "tuned with --apply");
    if (!p->duration_ns)
        p->duration_ns = DOCTOR_DEFAULT_DURATION_NS;
    if (!p->interval_ns)
        p->interval_ns = NS_PER_MS;
    return -1;
}

static const struct cli_command doctor_cli = {
    "doctor", doctor_usage, CLI_COMMON_SHORT "i:D:w:o:", doctor_options, doctor_option, NULL,
};

int doctor_parse_args(int argc, char **argv, struct doctor_params *p)
{
    memset(p, 0, sizeof *p);
    int rc = cli_parse(&doctor_cli, &p->common, p, argc, argv, 1, NULL);
    return rc >= 0 ? rc : doctor_finish(p);
}

/* The child's arguments: run at the budget with the user's workload and
 * loads; command gets the same for people. outputs: with its --json. */
static void build_child_argv(struct doctor *d, bool outputs)
{
    struct doctor_params *p = &d->p;
    int n = 0;
    char **a = d->child_argv;
    format_duration_arg(p->budget_ns, d->budget_arg, sizeof d->budget_arg);
    format_duration_arg(p->interval_ns, d->interval_arg, sizeof d->interval_arg);
    format_duration_arg(p->duration_ns, d->duration_arg, sizeof d->duration_arg);
    snprintf(d->explain_arg, sizeof d->explain_arg, "--explain=%s", d->budget_arg);
    snprintf(d->baseline, sizeof d->baseline, "%s/baseline.json", d->dir);
    a[n++] = "jitterlab", a[n++] = "run", a[n++] = "-a", a[n++] = d->cpus;
    a[n++] = "-i", a[n++] = d->interval_arg, a[n++] = "-D", a[n++] = d->duration_arg;
    a[n++] = "--budget", a[n++] = d->budget_arg, a[n++] = d->explain_arg;
    if (p->workload_text)
        a[n++] = "--workload", a[n++] = (char *)p->workload_text;
    for (int i = 0; i < p->nloads; i++)
        a[n++] = "--load", a[n++] = (char *)p->load_text[i];
    d->command[0] = '\0';
    for (int i = 0; i < n; i++)
        snprintf(d->command + strlen(d->command), sizeof d->command - strlen(d->command), "%s%s",
                 i ? " " : "", a[i]);
    if (outputs) {
        a[n++] = "--json";
        d->json_slot = n;
        a[n++] = d->baseline;
    }
    a[n++] = "-q";
    a[n] = NULL;
}

/* The baseline's options checked by run's own parser, before anything runs. */
static int check_child_argv(struct doctor *d)
{
    struct run_params *rp = calloc(1, sizeof *rp);
    if (!rp)
        return EXIT_RUNTIME;
    int argc = 0;
    while (d->child_argv[argc])
        argc++;
    int rc = run_parse_args(argc - 1, d->child_argv + 1, rp);
    if (rc < 0)
        rc = run_validate(rp, &d->si, &d->sr);
    free(rp);
    return rc;
}

/* --from FILE: the document, checked as a run result; the budget and CPUs
 * it was taken at. */
static int read_from(struct doctor *d)
{
    char err[300];
    struct doctor_params *p = &d->p;
    d->result = result_load_file(p->from, err, sizeof err);
    struct result_doc doc;
    if (!d->result || result_read_tree(d->result, &doc, err, sizeof err) != 0)
        return usage_error("--from", p->from, err);
    bool run = strcmp(doc.kind, "run") == 0;
    if (run && !p->common.cpus.count)
        for (int i = 0; i < doc.ncpus; i++)
            if (doc.cpus[i].cpu >= 0)
                cpulist_add(&d->targets, doc.cpus[i].cpu);
    result_doc_free(&doc);
    if (!run)
        return usage_error("--from", p->from, "not a run result");
    const json_t *x = json_object_get(d->result, "explain");
    if (!json_is_object(x))
        return usage_error("--from", p->from,
                           "made without --explain: run it with --explain=BUDGET");
    const json_t *t = json_object_get(x, "threshold_ns");
    if (!json_is_integer(t))
        return usage_error("--from", p->from,
                           "its spikes were taken by the default rule, not at a budget: run it "
                           "with --explain=BUDGET");
    int64_t threshold = (int64_t)json_integer_value(t);
    if (p->budget_ns && p->budget_ns != threshold) {
        char why[200], b[32];
        format_duration(threshold, b, sizeof b);
        snprintf(why, sizeof why,
                 "the result's spikes were taken above %s (--explain=%s): its causes are "
                 "those of that budget",
                 b, b);
        return usage_error("--budget", p->budget_text, why);
    }
    p->budget_ns = threshold;
    snprintf(d->baseline, sizeof d->baseline, "%s", p->from);
    return -1;
}

/* -o DIR (refused when it exists) or a private temporary one. */
static int make_dir(struct doctor *d)
{
    if (d->p.out_dir) {
        snprintf(d->dir, sizeof d->dir, "%s", d->p.out_dir);
        if (mkdir(d->dir, 0777) != 0) {
            char why[300];
            snprintf(why, sizeof why, "cannot create: %s", strerror(errno));
            return usage_error("--output", d->dir,
                               errno == EEXIST ? "exists; doctor writes a new directory" : why);
        }
        return -1;
    }
    snprintf(d->dir, sizeof d->dir, "/tmp/jitterlab-doctor.XXXXXX");
    if (!mkdtemp(d->dir)) {
        fprintf(stderr, "jitterlab: doctor: a temporary directory in /tmp: %s\n", strerror(errno));
        return EXIT_RUNTIME;
    }
    d->temp_dir = true;
    return -1;
}

/* The progress line on a terminal: the phase and the time left. */
static void progress(struct doctor *d)
{
    if (d->p.common.quiet || !isatty(STDERR_FILENO))
        return;
    int64_t run_ns = d->p.duration_ns + 2 * NS_PER_S; /* a run's start and end */
    char left[32];
    format_duration((int64_t)(d->runs_total - d->runs_done) * run_ns, left, sizeof left);
    fprintf(stderr, "\r\033[Kjitterlab doctor: %s, run %d of %d, about %s left", d->phase,
            d->runs_done + 1, d->runs_total, left);
}

int doctor_run_child(struct doctor *d, const char *json_path, bool explain, char *why,
                     size_t whylen)
{
    d->child_argv[d->json_slot] = (char *)json_path;
    char *argv[64];
    int n = 0;
    for (char **a = d->child_argv; *a; a++)
        if (explain || *a != d->explain_arg)
            argv[n++] = *a;
    argv[n] = NULL;
    struct child_spec cs = {
        .path = "/proc/self/exe",
        .argv = argv,
        .capture = true,
        .forward_stop = true,
        .limit_ns = d->p.duration_ns + DOCTOR_SLACK_NS,
        .grace_ns = DOCTOR_GRACE_NS,
    };
    struct child_result *res = calloc(1, sizeof *res);
    if (!res) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    progress(d);
    int rc = 0;
    if (child_run(&cs, res) != 0) {
        snprintf(why, whylen, "the run could not be started: %s", strerror(res->spawn_errno));
        rc = -1;
    } else if (access(json_path, F_OK) != 0) {
        char how[96], said[200];
        child_describe(res, how, sizeof how);
        child_last_line(res, said, sizeof said);
        snprintf(why, whylen, "the run ended (%s) without a result%s%s", how, said[0] ? ": " : "",
                 said);
        rc = -1;
    } else if (res->interrupted || stop_requested()) {
        rc = 1;
    }
    free(res);
    d->runs_done++;
    if (!d->p.common.quiet && isatty(STDERR_FILENO))
        fprintf(stderr, "\r\033[K");
    return rc;
}

/* The baseline run as a child; its result parsed into d->result. */
static int measure(struct doctor *d)
{
    build_child_argv(d, true);
    stop_handlers_install(); /* Ctrl-C stops the baseline, not the diagnosis */
    if (!d->p.common.quiet)
        fprintf(stderr, "jitterlab doctor: measuring the baseline: %s\n", d->command);
    snprintf(d->phase, sizeof d->phase, "baseline");
    d->runs_total = 1;
    char why[600], err[300];
    int rc = doctor_run_child(d, d->baseline, true, why, sizeof why);
    if (rc < 0) {
        fprintf(stderr, "jitterlab: doctor: the baseline: %s\n", why);
        return EXIT_RUNTIME;
    }
    if (rc > 0)
        snprintf(d->stopped_in, sizeof d->stopped_in, "baseline");
    if (!(d->result = result_load_file(d->baseline, err, sizeof err))) {
        fprintf(stderr, "jitterlab: doctor: %s: %s\n", d->baseline, err);
        return EXIT_RUNTIME;
    }
    return -1;
}

static int write_doc(json_t *doc, const char *opt, const char *path)
{
    if (json_write_file(doc, path) == 0)
        return 0;
    fprintf(stderr, "jitterlab: %s %s: %s\n", opt, path, strerror(errno));
    return EXIT_RUNTIME;
}

/* -o DIR's report.html, by `jitterlab report DIR/doctor.json`: the runs it
 * names and the doctor section. */
static int write_html(struct doctor *d, const char *doc_path)
{
    char html[4200];
    snprintf(html, sizeof html, "%s/report.html", d->dir);
    char *argv[] = {"jitterlab", "report", (char *)doc_path, "-o", html, "-q", NULL};
    struct child_spec cs = {.path = "/proc/self/exe",
                            .argv = argv,
                            .capture = true,
                            .limit_ns = DOCTOR_SLACK_NS,
                            .grace_ns = DOCTOR_GRACE_NS};
    struct child_result *res = calloc(1, sizeof *res);
    if (!res)
        return EXIT_RUNTIME;
    int rc = child_run(&cs, res) == 0 && res->exit_status == 0 ? 0 : EXIT_RUNTIME;
    if (rc) {
        char how[96], said[200];
        child_describe(res, how, sizeof how);
        child_last_line(res, said, sizeof said);
        fprintf(stderr, "jitterlab: doctor: %s: the report ended (%s)%s%s\n", html, how,
                said[0] ? ": " : "", said);
    }
    free(res);
    return rc;
}

static int report(struct doctor *d, int argc, char **argv)
{
    char started_at[40], doc_path[4200];
    rfc3339_now(started_at, sizeof started_at);
    bool keep = !d->temp_dir;
    struct doctor_report r = {
        .version = JITTERLAB_VERSION,
        .started_at = started_at,
        .argc = argc,
        .argv = argv,
        .cpus = d->cpus,
        .baseline = keep ? d->baseline : NULL,
        .baseline_command = d->p.from ? NULL : d->command,
        .diagnosis = &d->diagnosis,
        .prescriptions = &d->prescriptions,
    };
    struct doctor_treatment_report tr = {
        .outcome = &d->treat,
        .repeat = d->p.repeat,
        .keep_neutral = d->p.keep_neutral,
        .journal = d->state_path,
        .dir = keep ? d->dir : NULL,
        .stopped_in = d->stopped_in[0] ? d->stopped_in : NULL,
        .final_result = keep && d->final_measured ? d->final_result : NULL,
        .final = d->final_measured ? &d->final : NULL,
    };
    if (d->p.apply)
        r.treatment = &tr;
    if (!d->p.common.quiet)
        text_doctor_report(stdout, &r);
    json_t *doc = json_doctor_document(&r);
    int rc = doc ? 0 : EXIT_RUNTIME;
    if (doc && d->p.out_dir) {
        snprintf(doc_path, sizeof doc_path, "%s/doctor.json", d->dir);
        rc = write_doc(doc, "--output", doc_path);
        if (!rc)
            rc = write_html(d, doc_path);
    }
    if (doc && !rc && d->p.common.json_path)
        rc = write_doc(doc, "--json", d->p.common.json_path);
    json_decref(doc);
    if (rc)
        return rc;
    if (d->treat.put_back_failed) {
        fprintf(stderr,
                "jitterlab: doctor: %d change%s could not be put back (see above); `jitterlab "
                "tune restore` puts back everything in %s\n",
                d->treat.put_back_failed, d->treat.put_back_failed == 1 ? "" : "s", d->state_path);
        return EXIT_RUNTIME;
    }
    return doctor_report_conclusion(&r)->met ? EXIT_OK : EXIT_BUDGET;
}

/* Everything that reads or checks before the machine is measured. */
static int prepare(struct doctor *d)
{
    struct doctor_params *p = &d->p;
    if (p->common.sysroot_dir && p->common.sysroot_dir[0] &&
        access(p->common.sysroot_dir, R_OK | X_OK) != 0)
        return usage_error("--sysroot", p->common.sysroot_dir, strerror(errno));
    sysroot_init(&d->sr, p->common.sysroot_dir);
    system_info_read(&d->sr, &d->si);
    int rc;
    if (p->common.cpus.count) {
        if ((rc = check_cpus_online("--cpus", p->common.cpus_text, &p->common.cpus, &d->si)))
            return rc;
        d->targets = p->common.cpus;
    }
    if ((rc = check_output_path("--json", p->common.json_path)))
        return rc;
    if (p->from) {
        if ((rc = read_from(d)) >= 0)
            return rc;
    } else if (!d->targets.count) {
        system_info_default_cpus(&d->si, &d->targets);
    }
    cpulist_format(&d->targets, d->cpus, sizeof d->cpus);
    if (!p->from) {
        build_child_argv(d, false); /* nothing is created yet */
        if ((rc = check_child_argv(d)) >= 0)
            return rc;
        if ((rc = make_dir(d)) >= 0)
            return rc;
    }
    return -1;
}

static void doctor_free(struct doctor *d)
{
    if (d->sys_read)
        inspect_system_free(&d->sys);
    json_decref(d->result);
    if (d->temp_dir) {
        unlink(d->baseline);
        char path[4200], name[64];
        for (size_t i = 0; i < d->treat.n; i++)
            for (int r = 0; r < 2 * d->treat.t[i].rounds + 2; r++) {
                treat_run_file(name, sizeof name, i, r % 2, r / 2);
                snprintf(path, sizeof path, "%s/%s", d->dir, name);
                unlink(path);
            }
        if (d->final_result[0])
            unlink(d->final_result);
        rmdir(d->dir);
    }
    doctor_apply_free(d);
    free(d);
}

int cmd_doctor(int argc, char **argv)
{
    struct doctor *d = calloc(1, sizeof *d);
    char **typed = cli_argv_copy(argc, argv);
    int rc = EXIT_RUNTIME;
    if (!d || !typed) {
        fprintf(stderr, "jitterlab: doctor: out of memory\n");
        goto out;
    }
    if ((rc = doctor_parse_args(argc, argv, &d->p)) >= 0 || (rc = prepare(d)) >= 0 ||
        (d->p.apply && (rc = doctor_apply_lock(d)) >= 0))
        goto out;
    /* the machine as the baseline will find it, then the baseline */
    if (inspect_system_read(&d->sr, &d->targets, &d->sys) != 0) {
        fprintf(stderr, "jitterlab: doctor: out of memory\n");
        rc = EXIT_RUNTIME;
        goto out;
    }
    d->sys_read = true;
    inspect_rules_run(&d->sys, d->p.budget_ns, &d->findings);
    if (!d->p.from && (rc = measure(d)) >= 0)
        goto out;
    struct remedy_machine m;
    doctor_machine_of(&d->sys, &m);
    char err[300];
    if (doctor_diagnose(d->result, d->p.budget_ns, &d->findings, &m, &d->diagnosis, err,
                        sizeof err) != 0) {
        fprintf(stderr, "jitterlab: doctor: %s: %s\n", d->baseline, err);
        rc = d->p.from ? EXIT_USAGE : EXIT_RUNTIME;
        goto out;
    }
    doctor_prescribe(&d->diagnosis, &d->findings, &d->sys, d->p.budget_ns, &d->prescriptions);
    if (d->p.apply && (rc = doctor_apply(d)) >= 0)
        goto out;
    rc = report(d, argc, typed);
out:
    if (d)
        doctor_free(d);
    free(typed);
    return rc;
}
