/*
 * `jitterlab inspect`: is this machine ready for real-time work at a given
 * latency budget, and if not, why. Parses the options, checks every input
 * before anything is read or written (exit 2 with the option and the
 * reason), reads the machine through the sysroot (src/inspect/inspect_system.c),
 * runs the rules (src/inspect/inspect_rules.c) and prints the report and/or
 * writes the JSON document atomically. Exit 0 either way unless --strict.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/inspect_cli.h"
#include "cmd/options.h"
#include "common/units.h"
#include "common/atomic_file.h"
#include "out/json_inspect.h"
#include "out/json_result.h"
#include "out/text_inspect.h"
#include "sys/cpulist.h"
#include "inspect/inspect_rules.h"
#include "inspect/inspect_system.h"

#define DEFAULT_BUDGET_NS (50 * NS_PER_US)

static void inspect_usage(FILE *out)
{
    fprintf(out, "usage: jitterlab inspect [options]\n"
                 "\n"
                 "Reads the machine (cpuidle, cpufreq, kernel and command line, isolation, IRQs,\n"
                 "threads, scheduler and memory settings) and says whether it can meet a latency\n"
                 "budget on the target CPUs, and if not, why: one finding per rule with its\n"
                 "severity (critical, warning, info, ok), the values read and their paths, the\n"
                 "effect and the fix (a `jitterlab tune apply --only ACTION`, a sysfs write, a\n"
                 "boot parameter or a firmware setting). The verdict is ready unless a finding\n"
                 "is critical. Finding ids are listed in docs/inspect.md.\n"
                 "\n"
                 "  -a, --cpus LIST     target CPUs, e.g. 1-3 (default: the isolated CPUs, else\n"
                 "                      every online CPU but CPU 0)\n"
                 "      --budget DUR    latency the machine must meet (bare number: us;\n"
                 "                      default 50us)\n"
                 "      --strict        exit 3 when the verdict is not-ready\n"
                 "      --json FILE     write the inspect document (schema 1, kind inspect)\n"
                 "      --sysroot DIR   read /sys, /proc, /dev under DIR\n"
                 "  -q, --quiet         print nothing but errors\n"
                 "  -h, --help          this text\n"
                 "\n"
                 "Missing files make a check unknown, never an error; a file holding garbage is\n"
                 "listed as unreadable and gives no finding. Without root some files (e.g.\n"
                 "/dev/cpu_dma_latency) are unreadable.\n"
                 "Exit codes: 0 done (either verdict), 1 runtime failure, 2 bad usage,\n"
                 "3 not-ready with --strict.\n");
}

enum { OPT_BUDGET = 256, OPT_STRICT };

static const struct option inspect_options[] = {
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"strict", no_argument, NULL, OPT_STRICT},
    CLI_COMMON_OPTIONS,
    CLI_OPTION_END,
};

static int inspect_option(void *params, int c, const char *arg)
{
    struct inspect_params *p = params;
    if (c == OPT_BUDGET)
        return parse_positive_duration("--budget", arg, NS_PER_US, &p->budget_ns);
    p->strict = true; /* OPT_STRICT */
    return 0;
}

static const struct cli_command inspect_cli = {
    "inspect", inspect_usage, CLI_COMMON_SHORT, inspect_options, inspect_option, NULL,
};

int inspect_parse_args(int argc, char **argv, struct inspect_params *p)
{
    memset(p, 0, sizeof(*p));
    p->budget_ns = DEFAULT_BUDGET_NS;
    return cli_parse(&inspect_cli, &p->common, p, argc, argv, 1, NULL);
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
    inspect_rules_run(sys, p->budget_ns, findings);
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
    if (rc == EXIT_OK && p->strict && !findings->ready)
        rc = EXIT_BUDGET;
    inspect_system_free(sys);
out:
    free(p);
    free(sys);
    free(findings);
    return rc;
}
