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

struct inspect_params {
    struct cpulist cpus; /* empty: the default CPUs */
    const char *cpus_text;
    int64_t budget_ns;
    bool strict;
    bool quiet;
    const char *json_path;
    const char *sysroot_dir;
};

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

enum {
    OPT_BUDGET = 256,
    OPT_STRICT,
    OPT_JSON,
    OPT_SYSROOT,
};

static const struct option inspect_options[] = {
    {"cpus", required_argument, NULL, 'a'},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"json", required_argument, NULL, OPT_JSON},
    {"sysroot", required_argument, NULL, OPT_SYSROOT},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Returns -1 to continue, or an exit code. */
static int parse_args(int argc, char **argv, struct inspect_params *p)
{
    const char *why;
    memset(p, 0, sizeof *p);
    p->budget_ns = DEFAULT_BUDGET_NS;
    opterr = 0;
    optind = 1;
    int c, rc;
    while ((c = getopt_long(argc, argv, ":a:qh", inspect_options, NULL)) != -1) {
        switch (c) {
        case 'a':
            p->cpus_text = optarg;
            if (cpulist_parse(optarg, &p->cpus, &why) != 0)
                return usage_error("--cpus", optarg, why);
            if (p->cpus.count == 0)
                return usage_error("--cpus", optarg, "empty CPU list");
            break;
        case OPT_BUDGET:
            if ((rc = parse_positive_duration("--budget", optarg, NS_PER_US, &p->budget_ns)) != 0)
                return rc;
            break;
        case OPT_STRICT:
            p->strict = true;
            break;
        case OPT_JSON:
            p->json_path = optarg;
            break;
        case OPT_SYSROOT:
            p->sysroot_dir = optarg;
            break;
        case 'q':
            p->quiet = true;
            break;
        case 'h':
            inspect_usage(stdout);
            return EXIT_OK;
        default:
            return option_parse_error("inspect", c, argv);
        }
    }
    if ((rc = check_no_more_args("inspect", argc, argv)) != 0)
        return rc;
    if (!p->sysroot_dir)
        p->sysroot_dir = getenv("JITTERLAB_SYSROOT");
    return -1;
}

/* Checks that need the machine: the CPUs are online, the output can be written. */
static int validate(const struct inspect_params *p, const struct sysroot *sr)
{
    if (p->sysroot_dir && p->sysroot_dir[0] && access(p->sysroot_dir, R_OK | X_OK) != 0)
        return usage_error("--sysroot", p->sysroot_dir, strerror(errno));
    int rc = 0;
    if (p->cpus.count > 0) {
        struct system_info *si = malloc(sizeof *si);
        if (!si)
            return EXIT_RUNTIME;
        system_info_read(sr, si);
        rc = check_cpus_online("--cpus", p->cpus_text, &p->cpus, si);
        free(si);
        if (rc)
            return rc;
    }
    if ((rc = check_output_path("--json", p->json_path)) != 0)
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
    rc = parse_args(argc, argv, p);
    if (rc >= 0)
        goto out;
    struct sysroot sr;
    sysroot_init(&sr, p->sysroot_dir);
    rc = validate(p, &sr);
    if (rc >= 0)
        goto out;

    if (inspect_system_read(&sr, &p->cpus, sys) != 0) {
        fprintf(stderr, "jitterlab: inspect: out of memory\n");
        rc = EXIT_RUNTIME;
        goto out;
    }
    inspect_rules_run(sys, p->budget_ns, findings);
    if (!p->quiet)
        text_inspect_report(stdout, sys, findings, isatty(STDOUT_FILENO) != 0);
    rc = EXIT_OK;
    if (p->json_path) {
        json_t *doc = json_inspect_document(sys, findings, JITTERLAB_VERSION);
        if (!doc || json_write_file(doc, p->json_path) != 0) {
            fprintf(stderr, "jitterlab: --json %s: %s\n", p->json_path, strerror(errno));
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
