/*
 * `jitterlab rendezvous`: times an all-CPU rendezvous (a hypervisor's
 * TSC-calibration loop: every CPU spins on one semaphore, the master's TSC
 * stamp is read by all on the last iteration) with three layouts of the
 * shared fields, interleaved, and reports per layout and CPU the loop-exit
 * and total times and each layout's ratio to packed with a 95 % interval
 * over batches. The measurement is crosscpu/rendezvous.c, the statistics
 * crosscpu/rendezvous_stats.c; this file parses, checks, runs and writes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/rendezvous_cli.h"
#include "common/atomic_file.h"
#include "common/clock.h"
#include "common/stop.h"
#include "crosscpu/rendezvous.h"
#include "crosscpu/rendezvous_stats.h"
#include "crosscpu/timebase.h"
#include "out/json_rendezvous.h"
#include "out/json_result.h"
#include "out/text_rendezvous.h"
#include "sys/system_info.h"

static void rendezvous_usage(FILE *out)
{
    fprintf(out,
            "usage: jitterlab rendezvous [options]\n"
            "\n"
            "Times an all-CPU rendezvous as a hypervisor's TSC calibration does it: every\n"
            "CPU spins on one shared semaphore for a few loop iterations, the lowest CPU (the\n"
            "master) takes a TSC stamp on the first pass, every CPU reads it on the last.\n"
            "Three layouts of the shared fields, interleaved rendezvous by rendezvous:\n"
            "  packed      semaphore, master time and stamp on one cache line\n"
            "  padded      the stamp on a cache line of its own, prefetched before the last\n"
            "              iteration\n"
            "  local-copy  packed, each CPU copying the stamp into a local at the end of\n"
            "              each iteration\n"
            "Reports per layout and CPU the loop-exit time (stamp read on the last iteration\n"
            "-> after the loop) and the total time (entry -> after the loop) in TSC cycles,\n"
            "and each layout's ratio to packed with a 95%% interval over batches.\n"
            "\n"
            "  -a, --cpus LIST         CPUs taking part, the lowest is the master (default:\n"
            "                          every online CPU; at least 2)\n"
            "  -n, --rendezvous N      rendezvous to time (default %d)\n"
            "      --iterations N      loop iterations per rendezvous (default %d)\n"
            "      --layout LIST       comma-separated: packed, padded, local-copy (default\n"
            "                          all three); a ratio needs packed\n"
            "      --batches N         interleaved batches for the ratio's interval (default\n"
            "                          %d; each needs a rendezvous of every layout)\n"
            "      --policy P          fifo | other (default fifo; other when FIFO is refused)\n"
            "  -p, --priority N        SCHED_FIFO priority 1..99 (default %d)\n"
            "      --csv FILE          one row per layout and CPU\n"
            "      --json FILE         the result (kind \"rendezvous\")\n"
            "  -q, --quiet             print nothing but errors\n"
            "      --sysroot DIR       read /sys, /proc, /dev under DIR\n"
            "  -h, --help              this text\n",
            RENDEZVOUS_DEFAULT_COUNT, RENDEZVOUS_DEFAULT_ITERATIONS, RENDEZVOUS_DEFAULT_BATCHES,
            RENDEZVOUS_DEFAULT_PRIORITY);
}

enum { OPT_ITERATIONS = 256, OPT_LAYOUT, OPT_BATCHES, OPT_CSV };

static const struct option rendezvous_options[] = {
    {"rendezvous", required_argument, NULL, 'n'},
    {"iterations", required_argument, NULL, OPT_ITERATIONS},
    {"layout", required_argument, NULL, OPT_LAYOUT},
    {"batches", required_argument, NULL, OPT_BATCHES},
    CLI_OPTION_SCHED,
    {"csv", required_argument, NULL, OPT_CSV},
    CLI_COMMON_OPTIONS,
    CLI_OPTION_END,
};

#define LAYOUT_NAMES "packed, padded, local-copy"

static int parse_layouts(struct rendezvous_params *p, const char *text)
{
    p->layout_text = text;
    p->nlayouts = 0;
    const char *s = text;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (len == 0)
            return usage_error("--layout", text, "empty layout name (" LAYOUT_NAMES ")");
        int l = rv_layout_find(s, len);
        if (l < 0) {
            char why[160];
            snprintf(why, sizeof why, "unknown layout '%.*s' (" LAYOUT_NAMES ")", (int)len, s);
            return usage_error("--layout", text, why);
        }
        for (int i = 0; i < p->nlayouts; i++)
            if (p->layouts[i] == (enum rv_layout)l) {
                char why[96];
                snprintf(why, sizeof why, "%s is named twice", rv_layout_name(l));
                return usage_error("--layout", text, why);
            }
        p->layouts[p->nlayouts++] = (enum rv_layout)l;
        if (!comma)
            return 0;
        s = comma + 1;
    }
}

static int rendezvous_option(void *params, int c, const char *arg)
{
    struct rendezvous_params *p = params;
    int rc = cli_sched_option(&p->sched, c, arg);
    if (rc >= 0)
        return rc;
    switch (c) {
    case 'n':
        return parse_int_option("--rendezvous", arg, 1, RENDEZVOUS_MAX_COUNT, &p->count);
    case OPT_ITERATIONS:
        return parse_int_option("--iterations", arg, 1, RENDEZVOUS_MAX_ITERATIONS, &p->iterations);
    case OPT_LAYOUT:
        return parse_layouts(p, arg);
    case OPT_BATCHES:
        return parse_int_option("--batches", arg, 1, RENDEZVOUS_MAX_BATCHES, &p->batches);
    default: /* OPT_CSV */
        p->csv_path = arg;
        return 0;
    }
}

static const struct cli_command rendezvous_cli = {
    "rendezvous",       rendezvous_usage,  "n:p:" CLI_COMMON_SHORT,
    rendezvous_options, rendezvous_option, NULL,
};

/* The checks that join several options. */
static int check_combination(struct rendezvous_params *p)
{
    char why[160], value[32];
    int rc = cli_sched_finish(&p->sched);
    if (rc != 0)
        return rc;
    if (p->common.cpus_text && p->common.cpus.count < 2)
        return usage_error("--cpus", p->common.cpus_text, "a rendezvous needs at least 2 CPUs");
    snprintf(value, sizeof value, "%ld", p->batches);
    if (p->batches > p->count) {
        snprintf(why, sizeof why, "more batches than rendezvous (-n %ld)", p->count);
        return usage_error("--batches", value, why);
    }
    long rounds = p->count / p->nlayouts;
    if (p->batches > rounds) {
        snprintf(why, sizeof why,
                 "each batch needs a rendezvous of each of the %d layouts: at most %ld with -n %ld",
                 p->nlayouts, rounds, p->count);
        return usage_error("--batches", value, why);
    }
    return -1;
}

int rendezvous_parse_args(int argc, char **argv, struct rendezvous_params *p)
{
    memset(p, 0, sizeof(*p));
    p->count = RENDEZVOUS_DEFAULT_COUNT;
    p->iterations = RENDEZVOUS_DEFAULT_ITERATIONS;
    p->batches = RENDEZVOUS_DEFAULT_BATCHES;
    cli_sched_init(&p->sched);
    for (int i = 0; i < RV_LAYOUT_COUNT; i++)
        p->layouts[i] = (enum rv_layout)i;
    p->nlayouts = RV_LAYOUT_COUNT;
    int rc = cli_parse(&rendezvous_cli, &p->common, p, argc, argv, 1, NULL);
    if (rc >= 0)
        return rc;
    return check_combination(p);
}

/* The CPUs taking part: --cpus, else every online CPU; 0 or an exit code. */
static int choose_cpus(struct rendezvous_params *p, const struct system_info *si)
{
    int rc;
    if (p->common.cpus.count == 0) {
        p->common.cpus = si->online;
        if (p->common.cpus.count < 2) {
            fprintf(stderr, "jitterlab: --cpus: a rendezvous needs at least 2 CPUs (online: %s)\n",
                    si->cpus_online[0] ? si->cpus_online : "unknown");
            return EXIT_USAGE;
        }
    } else if ((rc = check_cpus_online("--cpus", p->common.cpus_text, &p->common.cpus, si)) != 0) {
        return rc;
    }
    /* every CPU keeps 17 bytes per rendezvous, all in memory */
    long most = RENDEZVOUS_MAX_RECORDS / p->common.cpus.count;
    if (p->count > most) {
        char value[32], why[128];
        snprintf(value, sizeof value, "%ld", p->count);
        snprintf(why, sizeof why, "at most %ld rendezvous on %d CPUs (the records stay in memory)",
                 most, p->common.cpus.count);
        return usage_error("--rendezvous", value, why);
    }
    return 0;
}

static int write_outputs(const struct rendezvous_params *p, const struct rendezvous_report *rep)
{
    int rc = EXIT_OK;
    if (p->csv_path) {
        struct atomic_file f;
        if (atomic_file_open(&f, p->csv_path) != 0) {
            fprintf(stderr, "jitterlab: --csv %s: %s\n", p->csv_path, strerror(errno));
            rc = EXIT_RUNTIME;
        } else {
            csv_rendezvous(f.fp, rep);
            if (atomic_file_commit(&f) != 0) {
                fprintf(stderr, "jitterlab: --csv %s: %s\n", p->csv_path, strerror(errno));
                rc = EXIT_RUNTIME;
            }
        }
    }
    if (p->common.json_path) {
        json_t *doc = json_rendezvous_document(rep);
        if (json_write_file(doc, p->common.json_path) != 0) {
            fprintf(stderr, "jitterlab: --json %s: %s\n", p->common.json_path, strerror(errno));
            rc = EXIT_RUNTIME;
        }
        json_decref(doc);
    }
    return rc;
}

int cmd_rendezvous(int argc, char **argv)
{
    static struct rendezvous_params p;
    int rc = rendezvous_parse_args(argc, argv, &p);
    if (rc >= 0)
        return rc;
    struct sysroot sr;
    sysroot_init(&sr, p.common.sysroot_dir);
    static struct system_info si;
    system_info_read(&sr, &si);
    if ((rc = choose_cpus(&p, &si)) != 0)
        return rc;
    if ((rc = check_json_and_csv(p.common.json_path, p.csv_path)) != 0)
        return rc;
    stop_handlers_install();

    char started_at[40], err[256];
    rfc3339_now(started_at, sizeof(started_at));
    struct timebase tb;
    timebase_init(&tb, si.tsc_invariant);
    if (!tb.tsc && !p.common.quiet)
        fprintf(stderr, "jitterlab: rendezvous: timing with CLOCK_MONOTONIC (%s): figures are ns\n",
                tb.why);
    const int ncpu = p.common.cpus.count;
    struct rv_result res;
    if (rv_result_alloc(&res, ncpu, (size_t)p.count, p.layouts, p.nlayouts) != 0) {
        fprintf(stderr, "jitterlab: rendezvous: out of memory for %ld rendezvous\n", p.count);
        return EXIT_RUNTIME;
    }
    struct rv_config cfg = {
        .cpus = p.common.cpus.cpu,
        .ncpu = ncpu,
        .rendezvous = (size_t)p.count,
        .iterations = (int)p.iterations,
        .layouts = p.layouts,
        .nlayouts = p.nlayouts,
        .fifo = p.sched.fifo,
        .priority = p.sched.priority,
        .batches = (int)p.batches,
        .tb = &tb,
        .deadline_ns = RV_DEADLINE_NS,
    };
    int64_t t0 = monotonic_now_ns();
    if (rv_run(&cfg, &res, err, sizeof err) != 0) {
        fprintf(stderr, "jitterlab: rendezvous: %s\n", err);
        rv_result_free(&res);
        return EXIT_RUNTIME;
    }
    double duration_s = (double)(monotonic_now_ns() - t0) / 1e9;
    cli_sched_notice("rendezvous", &p.sched, res.realtime, p.common.quiet);
    struct rv_stats st;
    if (rv_stats_compute(&res, (int)p.batches, &st) != 0) {
        fprintf(stderr, "jitterlab: rendezvous: out of memory\n");
        rv_result_free(&res);
        return EXIT_RUNTIME;
    }
    struct rendezvous_report rep = {
        .si = &si,
        .version = JITTERLAB_VERSION,
        .argc = argc,
        .argv = argv,
        .started_at = started_at,
        .duration_s = duration_s,
        .interrupted = res.interrupted,
        .realtime = res.realtime,
        .cpus = p.common.cpus.cpu,
        .ncpu = ncpu,
        .rendezvous = p.count,
        .iterations = p.iterations,
        .layouts = p.layouts,
        .nlayouts = p.nlayouts,
        .batches = p.batches,
        .policy = cli_sched_policy(&p.sched),
        .priority = p.sched.priority,
        .tb = &tb,
        .deadline_ns = cfg.deadline_ns,
        .stats = &st,
    };
    if (!p.common.quiet)
        text_rendezvous(stdout, &rep);
    rc = write_outputs(&p, &rep);
    if (res.interrupted && !p.common.quiet)
        fprintf(stderr,
                "jitterlab: rendezvous: interrupted after %zu of %ld rendezvous; outputs hold "
                "those\n",
                res.attempted, p.count);
    rv_stats_free(&st);
    rv_result_free(&res);
    return rc;
}
