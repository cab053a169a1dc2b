/*
 * `jitterlab inspect`: is this machine ready for real-time work at a given
 * latency budget, and if not, why. Parses the options, checks every input
 * before anything is read or written (exit 2 with the option and the
 * reason), reads the machine through the sysroot (src/inspect/inspect_system.c),
 * runs the rules (src/inspect/inspect_rules.c) and prints the report and/or
 * writes the JSON document atomically. With --measure a short run on the
 * target CPUs (src/cmd/inspect_measure.c) is folded into the verdict. Exit
 * 0 whatever the verdict unless --strict.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/inspect_cli.h"
#include "cmd/inspect_measure.h"
#include "cmd/options.h"
#include "common/units.h"
#include "common/atomic_file.h"
#include "common/stop.h"
#include "out/json_inspect.h"
#include "out/json_result.h"
#include "out/text_inspect.h"
#include "sys/cpulist.h"
#include "inspect/inspect_rules.h"
#include "inspect/inspect_system.h"

#define DEFAULT_BUDGET_NS   (50 * NS_PER_US)
#define DEFAULT_INTERVAL_NS (1000 * NS_PER_US) /* run's default */
#define MEASURE_MIN_CYCLES  100

static void inspect_usage(FILE *out)
{
    fprintf(out,
            "usage: jitterlab inspect [options]\n"
            "\n"
            "Reads the machine (cpuidle, cpufreq, kernel and command line, isolation, IRQs,\n"
            "threads, scheduler and memory settings) and says whether it can meet a latency\n"
            "budget on the target CPUs, and if not, why: one finding per rule with its\n"
            "severity (critical, warning, info, ok), the values read and their paths, the\n"
            "effect and the fix (a `jitterlab tune apply --only ACTION`, a sysfs write, a\n"
            "boot parameter or a firmware setting). Finding ids are listed in\n"
            "docs/inspect.md. The verdict: not-ready when a finding is critical;\n"
            "unverified when a finding's effect cannot be bounded from inside (a\n"
            "hypervisor, an undecidable preemption model) and nothing measured says\n"
            "otherwise; else ready.\n"
            "\n"
            "  -a, --cpus LIST     target CPUs, e.g. 1-3 (default: the isolated CPUs, else\n"
            "                      every online CPU but CPU 0)\n"
            "      --budget DUR    latency the machine must meet (bare number: us;\n"
            "                      default 50us)\n"
            "      --measure DUR   also measure: a `jitterlab run` of DUR (bare number: s) on\n"
            "                      the target CPUs, as the machine is configured; its max\n"
            "                      latency and missed periods join the verdict (ready\n"
            "                      only if the max is within the budget; at least 100\n"
            "                      intervals)\n"
            "  -i, --interval DUR  the measurement's cycle interval (bare number: us;\n"
            "                      default 1ms)\n"
            "      --strict        exit 3 when the verdict is not-ready, 4 when it is\n"
            "                      unverified\n"
            "      --json FILE     write the inspect document (schema 1, kind inspect)\n"
            "      --sysroot DIR   read /sys, /proc, /dev under DIR\n"
            "  -q, --quiet         print nothing but errors\n"
            "  -h, --help          this text\n"
            "\n"
            "Missing files make a check unknown, never an error; a file holding garbage is\n"
            "listed as unreadable and gives no finding. Without root some files (e.g.\n"
            "/dev/cpu_dma_latency) are unreadable.\n"
            "Exit codes: 0 done (any verdict), 1 runtime failure, 2 bad usage,\n"
            "3 not-ready with --strict, 4 unverified with --strict.\n");
}

enum { OPT_BUDGET = 256, OPT_STRICT, OPT_MEASURE };

static const struct option inspect_options[] = {
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"measure", required_argument, NULL, OPT_MEASURE},
    {"interval", required_argument, NULL, 'i'},
    CLI_COMMON_OPTIONS,
    CLI_OPTION_END,
};

static int inspect_option(void *params, int c, const char *arg)
{
    struct inspect_params *p = params;
    if (c == OPT_BUDGET)
        return parse_positive_duration("--budget", arg, NS_PER_US, &p->budget_ns);
    if (c == OPT_MEASURE)
        return parse_positive_duration("--measure", arg, NS_PER_S, &p->measure_ns);
    if (c == 'i')
        return parse_positive_duration("--interval", arg, NS_PER_US, &p->interval_ns);
    p->strict = true; /* OPT_STRICT */
    return 0;
}

/* The measurement measures this machine: not a fixture tree. */
static int inspect_finish(void *params)
{
    struct inspect_params *p = params;
    if (p->interval_ns && !p->measure_ns)
        return usage_error("--interval", NULL, "sets the --measure run's interval; add --measure");
    if (p->measure_ns && p->common.sysroot_dir && p->common.sysroot_dir[0] &&
        strcmp(p->common.sysroot_dir, "/") != 0)
        return usage_error("--measure", NULL,
                           "measures this machine, not a --sysroot (or JITTERLAB_SYSROOT) tree");
    if (!p->interval_ns)
        p->interval_ns = DEFAULT_INTERVAL_NS;
    /* a handful of samples says nothing about a machine's worst case */
    if (p->measure_ns && p->measure_ns / p->interval_ns < MEASURE_MIN_CYCLES) {
        char why[160], least[32];
        format_duration_arg(p->interval_ns * MEASURE_MIN_CYCLES, least, sizeof least);
        snprintf(why, sizeof why, "fewer than %d cycles of the interval; at least %s",
                 MEASURE_MIN_CYCLES, least);
        return usage_error("--measure", NULL, why);
    }
    return -1;
}

static const struct cli_command inspect_cli = {
    "inspect", inspect_usage, CLI_COMMON_SHORT "i:", inspect_options, inspect_option, NULL,
};

int inspect_parse_args(int argc, char **argv, struct inspect_params *p)
{
    memset(p, 0, sizeof(*p));
    p->budget_ns = DEFAULT_BUDGET_NS;
    int rc = cli_parse(&inspect_cli, &p->common, p, argc, argv, 1, NULL);
    return rc >= 0 ? rc : inspect_finish(p);
}

/* Checks that need the machine: the CPUs are online, the output can be written. */
static int validate(const struct inspect_params *p, const struct sysroot *sr)
{
    if (p->common.sysroot_dir && p->common.sysroot_dir[0] &&
        access(p->common.sysroot_dir, R_OK | X_OK) != 0)
        return usage_error("--sysroot", p->common.sysroot_dir, strerror(errno));
    int rc = 0;
    if (p->common.cpus.count > 0) {
        struct system_info *si = malloc(sizeof *si);
        if (!si)
            return EXIT_RUNTIME;
        system_info_read(sr, si);
        rc = check_cpus_online("--cpus", p->common.cpus_text, &p->common.cpus, si);
        free(si);
        if (rc)
            return rc;
    }
    if ((rc = check_output_path("--json", p->common.json_path)) != 0)
        return rc;
    return -1;
}

int cmd_inspect(int argc, char **argv)
{
    struct inspect_params *p = malloc(sizeof *p);
    struct inspect_system *sys = malloc(sizeof *sys);
    struct inspect_findings *findings = malloc(sizeof *findings);
    int rc = EXIT_RUNTIME;
    if (!p || !sys || !findings) {
        fprintf(stderr, "jitterlab: inspect: out of memory\n");
        goto out;
    }
    rc = inspect_parse_args(argc, argv, p);
    if (rc >= 0)
        goto out;
    struct sysroot sr;
    sysroot_init(&sr, p->common.sysroot_dir);
    rc = validate(p, &sr);
    if (rc >= 0)
        goto out;

    if (inspect_system_read(&sr, &p->common.cpus, sys) != 0) {
        fprintf(stderr, "jitterlab: inspect: out of memory\n");
        rc = EXIT_RUNTIME;
        goto out;
    }
    if (p->measure_ns) {
        char cpus[1024];
        struct inspect_measurement *m = malloc(sizeof *m);
        if (!m) {
            fprintf(stderr, "jitterlab: inspect: out of memory\n");
            rc = EXIT_RUNTIME;
            goto out;
        }
        cpulist_format(&sys->targets, cpus, sizeof cpus);
        struct inspect_measure_spec spec = {"/proc/self/exe", cpus, p->interval_ns, p->measure_ns,
                                            p->budget_ns};
        stop_handlers_install(); /* Ctrl-C ends the measurement, not the report */
        if (!p->common.quiet)
            fprintf(stderr, "jitterlab inspect: measuring CPU%s %s for the verdict...\n",
                    strpbrk(cpus, ",-") ? "s" : "", cpus);
        inspect_measure(&spec, m);
        inspect_rules_run_measured(sys, p->budget_ns, m, findings);
        free(m);
    } else {
        inspect_rules_run(sys, p->budget_ns, findings);
    }
    if (!p->common.quiet)
        text_inspect_report(stdout, sys, findings, isatty(STDOUT_FILENO) != 0);
    rc = EXIT_OK;
    if (p->common.json_path) {
        json_t *doc = json_inspect_document(sys, findings, JITTERLAB_VERSION);
        if (!doc || json_write_file(doc, p->common.json_path) != 0) {
            fprintf(stderr, "jitterlab: --json %s: %s\n", p->common.json_path, strerror(errno));
            rc = EXIT_RUNTIME;
        }
        json_decref(doc);
    }
    if (rc == EXIT_OK && p->strict && findings->verdict == INSPECT_NOT_READY)
        rc = EXIT_BUDGET;
    if (rc == EXIT_OK && p->strict && findings->verdict == INSPECT_UNVERIFIED)
        rc = EXIT_UNVERIFIED;
    inspect_system_free(sys);
out:
    free(p);
    free(sys);
    free(findings);
    return rc;
}
