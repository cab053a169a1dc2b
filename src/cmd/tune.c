/*
 * `jitterlab tune apply|restore|status|hold`: options and output for the
 * reversible tuning of tune/tune.c. apply changes what can change at run time
 * and prints, never applies, what needs a boot parameter or a firmware
 * setting; hold does the same for as long as it runs in the foreground (with
 * the PM QoS request that only a living process can hold) and restores on
 * exit; restore and status read the journal.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "common/stop.h"
#include "cmd/options.h"
#include "cmd/tune_cli.h"
#include "common/clock.h"
#include "common/safe_text.h"
#include "common/units.h"
#include "sys/kernel_config.h"
#include "sys/pm_qos.h"
#include "sys/read_notes.h"
#include "sys/system_info.h"
#include "trace/capture.h"
#include "tune/session.h"
#include "tune/tune.h"
#include "tune/tune_boot.h"

/* The session's outcomes are the exit codes they become. */
_Static_assert((int)TUNE_OK == (int)EXIT_OK && (int)TUNE_FAILED == (int)EXIT_RUNTIME &&
                   (int)TUNE_NO_SNAPSHOT == (int)EXIT_USAGE,
               "tune outcomes must match the exit codes");

static void tune_usage(FILE *out)
{
    fprintf(out, "usage: jitterlab tune apply   [options]   change settings, keep a snapshot\n"
                 "       jitterlab tune restore [--state FILE]  put every snapshot value back\n"
                 "       jitterlab tune status  [--state FILE]  current value vs snapshot\n"
                 "       jitterlab tune hold    [options] [-D DUR]  apply, hold PM QoS, restore\n"
                 "                                  on Ctrl-C/SIGTERM or after DUR\n"
                 "\n"
                 "Before the first write the old value of everything that will change goes to\n"
                 "the state file (fsynced); restore writes them back, verifies each and removes\n"
                 "the file only when all are back. A second apply keeps the first snapshot.\n"
                 "restore also removes the trace instances a killed run --explain or noise\n"
                 "left recording (a running one's are left alone).\n"
                 "\n"
                 "  --profile P         latency (default): pm-qos, idle-states, resume-latency,\n"
                 "                      cpufreq, timer-migration; realtime: also irq-affinity\n"
                 "  --only A,B          exactly these actions instead of a profile:\n"
                 "                      ");
    for (int i = 0; i < tune_action_count; i++)
        fprintf(out, "%s%s", tune_actions[i].name, i + 1 < tune_action_count ? ", " : "\n");
    fprintf(out,
            "                      (rt-throttling, thp, nmi-watchdog and cache-partition only\n"
            "                      this way)\n"
            "  -a, --cpus LIST     target CPUs (default: the isolated CPUs, else every online\n"
            "                      CPU but CPU 0)\n"
            "  --budget DUR        latency the CPUs must meet (bare number: us; default 50us)\n"
            "  --freq KHZ          fixed frequency for cpufreq (default: the highest)\n"
            "  --boost on|off      switch turbo/boost (default: leave it)\n"
            "  --cache-ways N      cache-partition: L3 ways of the target CPUs' resctrl group\n"
            "                      (default: a quarter of them, at least min_cbm_bits)\n"
            "  --cache-group NAME  cache-partition: the group's name (default %s)\n"
            "  --mba PCT           cache-partition: memory bandwidth of the default group\n"
            "                      (1-100 %%; where info/MB exists)\n"
            "  --dry-run           print each change as a shell command, change nothing\n"
            "  --state FILE        state file (default $JITTERLAB_TUNE_STATE, else %s)\n"
            "  -D, --duration DUR  hold: how long (bare number: s; default until Ctrl-C)\n"
            "  --sysroot DIR       work on the tree under DIR\n"
            "  -q, --quiet         print nothing but errors\n"
            "\n"
            "A change the kernel refuses is listed, left as it was and kept out of the\n"
            "snapshot; the others stay applied.\n"
            "\n"
            "Exit codes: 0 ok, 1 a change was refused or a restore failed (listed), 2 bad\n"
            "usage, a refused plan (cache-partition) or no snapshot to restore.\n",
            TUNE_CACHE_GROUP, TUNE_DEFAULT_STATE);
}

enum {
    OPT_PROFILE = 256,
    OPT_ONLY,
    OPT_BUDGET,
    OPT_FREQ,
    OPT_BOOST,
    OPT_DRY_RUN,
    OPT_STATE,
    OPT_CACHE_WAYS,
    OPT_CACHE_GROUP,
    OPT_MBA,
};

static const struct option tune_options[] = {
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"only", required_argument, NULL, OPT_ONLY},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"freq", required_argument, NULL, OPT_FREQ},
    {"boost", required_argument, NULL, OPT_BOOST},
    {"dry-run", no_argument, NULL, OPT_DRY_RUN},
    {"state", required_argument, NULL, OPT_STATE},
    {"cache-ways", required_argument, NULL, OPT_CACHE_WAYS},
    {"cache-group", required_argument, NULL, OPT_CACHE_GROUP},
    {"mba", required_argument, NULL, OPT_MBA},
    {"duration", required_argument, NULL, 'D'},
    CLI_OPTION_CPUS,
    CLI_OPTION_SYSROOT,
    CLI_OPTION_QUIET,
    CLI_OPTION_HELP,
    CLI_OPTION_END,
};

static int tune_option(void *params, int c, const char *arg)
{
    struct tune_params *p = params;
    long v;
    int rc = 0;
    switch (c) {
    case OPT_PROFILE:
        p->profile = arg;
        break;
    case OPT_ONLY:
        p->only = arg;
        break;
    case OPT_BUDGET:
        rc = parse_positive_duration("--budget", arg, NS_PER_US, &p->budget_ns);
        break;
    case OPT_FREQ:
        rc = parse_int_option("--freq", arg, 1, 100000000L, &v);
        p->freq_khz = v;
        break;
    case OPT_BOOST:
        if (strcmp(arg, "on") == 0 || strcmp(arg, "off") == 0)
            p->boost = strcmp(arg, "on") == 0;
        else
            rc = usage_error("--boost", arg, "must be on or off");
        break;
    case OPT_DRY_RUN:
        p->dry_run = true;
        break;
    case OPT_STATE:
        p->state_path = arg;
        break;
    case OPT_CACHE_WAYS:
        rc = parse_int_option("--cache-ways", arg, 1, 64, &v);
        p->cache_ways = (int)v;
        break;
    case OPT_CACHE_GROUP:
        p->cache_group = arg;
        if (!tune_group_name_ok(arg))
            rc = usage_error("--cache-group", arg,
                             "must be a plain name of up to 48 characters (A-Z a-z 0-9 _ -), "
                             "not info, mon_groups or mon_data");
        break;
    case OPT_MBA:
        rc = parse_int_option("--mba", arg, 1, 100, &v);
        p->mba_pct = (int)v;
        break;
    default: /* 'D' */
        rc = parse_positive_duration("--duration", arg, NS_PER_S, &p->duration_ns);
        break;
    }
    return rc;
}

static const struct cli_command tune_cli = {
    "tune", tune_usage, "D:a:qh", tune_options, tune_option, NULL,
};

int tune_parse_args(int argc, char **argv, struct tune_params *p)
{
    memset(p, 0, sizeof(*p));
    p->budget_ns = 50 * NS_PER_US;
    p->boost = -1;
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        tune_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    p->verb = argv[1];
    bool changes = strcmp(p->verb, "apply") == 0 || strcmp(p->verb, "hold") == 0;
    if (!changes && strcmp(p->verb, "restore") != 0 && strcmp(p->verb, "status") != 0)
        return usage_error("tune", p->verb, "unknown verb (use apply, restore, status, hold)");
    int rc = cli_parse(&tune_cli, &p->common, p, argc, argv, 2, NULL);
    if (rc >= 0)
        return rc;
    p->state_path = tune_state_path(p->state_path);
    if (changes) {
        const char *bad_opt = NULL;
        char why[600];
        p->actions = tune_actions_for(p->profile, p->only, &bad_opt, why, sizeof(why));
        /* --only, when given, decides alone; else the profile */
        if (!p->actions)
            return p->only ? usage_error("--only", p->only, why)
                           : usage_error("--profile", p->profile, why);
    }
    /* the cache-partition options mean nothing to another action or verb */
    char value[64] = "";
    const char *opt = NULL, *shown = value;
    if (p->cache_ways) {
        opt = "--cache-ways";
        snprintf(value, sizeof(value), "%d", p->cache_ways);
    } else if (p->cache_group) {
        opt = "--cache-group";
        shown = p->cache_group;
    } else if (p->mba_pct) {
        opt = "--mba";
        snprintf(value, sizeof(value), "%d", p->mba_pct);
    }
    if (opt && !(p->actions & (1u << tune_action_find("cache-partition"))))
        return usage_error(opt, shown,
                           changes ? "only with the cache-partition action (--only "
                                     "cache-partition)"
                                   : "only with tune apply or hold");
    return -1;
}

static void print_boot_proposal(FILE *out, const struct cpulist *targets,
                                const struct system_info *si, const struct sysroot *sr)
{
    struct kernel_config cfg;
    struct read_notes *ignored = calloc(1, sizeof *ignored); /* inspect lists them */
    memset(&cfg, 0, sizeof cfg);
    if (ignored)
        kernel_config_read(sr, &cfg, ignored);
    free(ignored);
    struct tune_boot_proposal *b = malloc(sizeof *b);
    if (!b)
        return;
    tune_boot_propose(si, &cfg, targets, b);
    fprintf(out, "\nNot changeable at run time (never applied by jitterlab):\n");
    fprintf(out, "  kernel command line: %s\n", b->cmdline);
    if (b->left_out[0])
        fprintf(out, "  left out: %s\n", b->left_out);
    if (b->unchecked[0])
        fprintf(out, "  not checked: %s\n", b->unchecked);
    if (b->rt_kernel)
        fprintf(out, "  kernel: a PREEMPT_RT build (Debian: linux-image-rt-amd64)\n");
    fprintf(out, "  firmware: %s\n", b->firmware);
    free(b);
}

static int tune_status(const struct tune_params *p)
{
    static struct tune_journal j;
    char err[600];
    int rc = tune_journal_load(p->state_path, &j, err, sizeof(err));
    if (rc == 1) {
        printf("no settings changed by jitterlab (no snapshot in %s)\n", p->state_path);
        return EXIT_OK;
    }
    if (rc < 0) {
        fprintf(stderr, "jitterlab: tune status: %s\n", err);
        return EXIT_RUNTIME;
    }
    struct sysroot sr;
    sysroot_init(&sr, j.sysroot);
    printf("snapshot %s: %d setting%s changed (%s, pid %ld, %s%s)\n", p->state_path, j.changes.n,
           j.changes.n == 1 ? "" : "s", j.mode == TUNE_MODE_APPLY ? "apply" : "run/hold", j.pid,
           j.created_at, j.complete ? "" : ", apply did not finish");
    for (int i = 0; i < j.changes.n; i++) {
        const struct tune_change *c = &j.changes.change[i];
        if (c->op != TUNE_OP_WRITE) {
            printf("  %-14s %s %s (restore: %s)\n", c->action, tune_op_name(c->op), c->path,
                   c->op == TUNE_OP_MKDIR ? "rmdir" : "umount");
            continue;
        }
        char *now = NULL;
        if (sysroot_read_value(&sr, c->path, &now) < 0)
            now = strdup("?");
        const char *state = tune_value_matches_at(c->path, c->new_value, now)   ? "tuned"
                            : tune_value_matches_at(c->path, c->old_value, now) ? "original"
                                                                                : "changed since";
        printf("  %-14s %-60s now %-10s snapshot %-10s set %-10s [%s]\n", c->action, c->path, now,
               c->old_value, c->new_value, state);
        free(now);
    }
    tune_plan_free(&j.changes);
    return EXIT_OK;
}

static int tune_hold(const struct tune_params *p, const struct tune_request *rq)
{
    stop_handlers_install();
    static struct tune_session session;
    int rc = (int)tune_session_begin(&session, rq, p->profile, p->state_path, TUNE_MODE_HOLD,
                                     p->common.quiet ? NULL : stdout, stderr);
    if (rc != EXIT_OK)
        return rc;
    int fd = -1;
    if (rq->actions & (1u << tune_action_find("pm-qos"))) {
        fd = pm_qos_hold(rq->sr, (int32_t)(tune_exit_latency_limit_ns(p->budget_ns) / NS_PER_US));
        if (fd < 0)
            fprintf(stderr, "jitterlab: tune hold: cannot hold /dev/cpu_dma_latency: %s\n",
                    strerror(-fd));
        else if (!p->common.quiet) {
            char hold[320];
            pm_qos_hold_describe(rq->sr, tune_exit_latency_limit_ns(p->budget_ns) / NS_PER_US,
                                 " until tune ends", hold, sizeof hold);
            printf("PM QoS: %s\n", hold);
        }
    }
    if (!p->common.quiet)
        printf("holding; Ctrl-C restores everything\n");
    fflush(stdout);
    /* duration_ns <= DURATION_MAX_NS (the option parser), so no sum here can overflow */
    int64_t start = monotonic_now_ns();
    while (!stop_requested() &&
           (p->duration_ns == 0 || monotonic_now_ns() - start < p->duration_ns)) {
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    pm_qos_release(fd);
    rc = (int)tune_session_end(&session);
    if (rc == EXIT_OK && session.refused > 0)
        rc = EXIT_RUNTIME; /* held what was applied; the refusals were listed at the start */
    tune_session_free(&session);
    return rc;
}

/* restore: the snapshot, and the trace instances of runs that are gone
 * (an --explain or noise killed before it could remove its own: its
 * tracepoints would go on recording on its CPUs). The exit status is the
 * snapshot's (2 without one), whatever instances were removed. */
static int tune_restore_all(const struct tune_params *p)
{
    char names[1024], shown[SAFE_TEXT_TERM_LEN(sizeof(names))];
    int removed = trace_capture_remove_stale(names, sizeof(names));
    if (removed > 0 && !p->common.quiet)
        printf("jitterlab tune: removed %d trace instance%s of runs that are gone: %s\n", removed,
               removed == 1 ? "" : "s", safe_text_term(shown, sizeof(shown), names));
    return (int)tune_restore_report(p->state_path, true, p->common.quiet ? NULL : stdout, stderr);
}

int cmd_tune(int argc, char **argv)
{
    static struct tune_params p;
    int rc = tune_parse_args(argc, argv, &p);
    if (rc >= 0)
        return rc;
    if (strcmp(p.verb, "restore") == 0)
        return tune_restore_all(&p);
    if (strcmp(p.verb, "status") == 0)
        return tune_status(&p);

    struct sysroot sr;
    sysroot_init(&sr, p.common.sysroot_dir);
    static struct system_info si;
    system_info_read(&sr, &si);
    if (p.common.cpus.count == 0)
        system_info_default_cpus(&si, &p.common.cpus);
    else if ((rc = check_cpus_online("--cpus", p.common.cpus_text, &p.common.cpus, &si)) != 0)
        return rc;

    static struct tune_request rq;
    rq = (struct tune_request){.sr = &sr,
                               .targets = p.common.cpus,
                               .budget_ns = p.budget_ns,
                               .freq_khz = p.freq_khz,
                               .boost = p.boost,
                               .actions = p.actions,
                               .cache_ways = p.cache_ways,
                               .cache_group = p.cache_group,
                               .mba_pct = p.mba_pct};
    if (strcmp(p.verb, "hold") == 0)
        return tune_hold(&p, &rq);
    if (p.dry_run) {
        static struct tune_plan plan;
        if (tune_plan_build(&rq, &plan) == -2) {
            fprintf(stderr, "jitterlab: %s; nothing was changed\n", plan.refusal);
            tune_plan_free(&plan);
            return EXIT_USAGE;
        }
        printf("# jitterlab tune apply --dry-run: %d change%s, nothing written\n", plan.n,
               plan.n == 1 ? "" : "s");
        tune_plan_print(stdout, &plan, &sr, true);
        print_boot_proposal(stdout, &p.common.cpus, &si, &sr);
        tune_plan_free(&plan);
        return EXIT_OK;
    }
    static struct tune_session session;
    rc = (int)tune_session_begin(&session, &rq, p.profile, p.state_path, TUNE_MODE_APPLY,
                                 p.common.quiet ? NULL : stdout, stderr);
    if (rc == EXIT_OK && session.refused > 0)
        rc = EXIT_RUNTIME; /* the applied ones stay; the refused are listed on stderr */
    tune_session_free(&session);
    if (!p.common.quiet)
        print_boot_proposal(stdout, &p.common.cpus, &si, &sr);
    return rc;
}
