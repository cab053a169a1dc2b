/*
 * `jitterlab c2c`: the core-to-core latency matrix of the chosen CPUs
 * (default every online CPU). Parses and checks the options, reads the
 * topology (sysfs, through the sysroot), chooses the clock, runs the
 * measurement (crosscpu/c2c.c) with a progress bar on a terminal's stderr,
 * then prints the matrix and the group summary and writes --csv and --json
 * (kind "c2c"). SIGINT/SIGTERM/SIGHUP end it between two slices of round
 * trips; what was measured is still written, marked interrupted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/c2c_cli.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "common/atomic_file.h"
#include "common/clock.h"
#include "common/stop.h"
#include "common/units.h"
#include "crosscpu/c2c.h"
#include "crosscpu/timebase.h"
#include "out/json_c2c.h"
#include "out/json_result.h"
#include "out/text_c2c.h"
#include "out/text_many.h"
#include "sys/cpu_topology.h"
#include "sys/system_info.h"

static void c2c_usage(FILE *out)
{
    fprintf(out,
            "usage: jitterlab c2c [options]\n"
            "\n"
            "Measures the core-to-core latency: for every ordered pair of the CPUs two pinned\n"
            "threads pass one cache line back and forth, and the initiating one times each\n"
            "round trip. Prints the matrix of median one-way latencies (round trip / 2, ns)\n"
            "beside each CPU's core, LLC and package, and a summary per group (smt-sibling,\n"
            "same-llc, other-llc, same-package, other-package).\n"
            "\n"
            "  -a, --cpus LIST         CPUs to measure, at least two (default: every online CPU)\n"
            "      --mode M            load-store: each side waits for the other's value, then\n"
            "                          writes its own (default); cas: compare-and-swap hand-over\n"
            "  -n, --round-trips N     timed round trips per round (default %d)\n"
            "      --rounds N          rounds per pair; the one with the lowest median is kept\n"
            "                          (default %d)\n"
            "      --policy P          fifo | other (default fifo; other when FIFO is refused)\n"
            "  -p, --priority N        SCHED_FIFO priority 1..99 (default %d)\n"
            "      --csv FILE          one row per ordered pair\n"
            "      --per-cpu           the matrix also above %d CPUs (default there: the\n"
            "                          groups, the %d slowest and the %d fastest pairs)\n"
            "      --json FILE         matrix, pairs, topology and groups (kind \"c2c\")\n"
            "  -q, --quiet             print nothing but errors\n"
            "      --sysroot DIR       read /sys, /proc, /dev under DIR\n"
            "  -h, --help              this text\n"
            "\n"
            "A wait longer than %lld ms loses the round (a timeout); a pair whose rounds all\n"
            "time out has no latency. The threads rest %lld ms after at most %lld ms of round\n"
            "trips. A pair takes about rounds x (1 ms + N round trips); n CPUs make n x (n - 1)\n"
            "pairs (256 CPUs: 65280).\n",
            C2C_DEFAULT_ROUND_TRIPS, C2C_DEFAULT_ROUNDS, C2C_DEFAULT_PRIORITY, TEXT_MANY_MAX_ROWS,
            TEXT_MANY_WORST, TEXT_MANY_WORST, (long long)(C2C_TIMEOUT_NS / NS_PER_MS),
            (long long)(C2C_REST_NS / NS_PER_MS), (long long)(C2C_SLICE_NS / NS_PER_MS));
}

enum { OPT_MODE = 256, OPT_ROUNDS, OPT_CSV, OPT_PER_CPU };

static const struct option c2c_options[] = {
    {"mode", required_argument, NULL, OPT_MODE},
    {"round-trips", required_argument, NULL, 'n'},
    {"rounds", required_argument, NULL, OPT_ROUNDS},
    CLI_OPTION_SCHED,
    {"csv", required_argument, NULL, OPT_CSV},
    {"per-cpu", no_argument, NULL, OPT_PER_CPU},
    CLI_COMMON_OPTIONS,
    CLI_OPTION_END,
};

static int c2c_option(void *params, int c, const char *arg)
{
    struct c2c_params *p = params;
    long v = 0;
    int rc = cli_sched_option(&p->sched, c, arg);
    if (rc >= 0)
        return rc;
    switch (c) {
    case OPT_MODE:
        if (c2c_mode_parse(arg, &p->mode) != 0)
            return usage_error("--mode", arg, "must be load-store or cas");
        return 0;
    case 'n':
        rc = parse_int_option("--round-trips", arg, 1, C2C_MAX_ROUND_TRIPS, &v);
        p->round_trips = (int)v;
        return rc;
    case OPT_ROUNDS:
        rc = parse_int_option("--rounds", arg, 1, C2C_MAX_ROUNDS, &v);
        p->rounds = (int)v;
        return rc;
    case OPT_PER_CPU:
        p->per_cpu = true;
        return 0;
    default: /* OPT_CSV */
        p->csv_path = arg;
        return 0;
    }
}

static const struct cli_command c2c_cli = {
    "c2c", c2c_usage, "n:p:" CLI_COMMON_SHORT, c2c_options, c2c_option, NULL,
};

int c2c_parse_args(int argc, char **argv, struct c2c_params *p)
{
    memset(p, 0, sizeof(*p));
    p->mode = C2C_LOAD_STORE;
    p->round_trips = C2C_DEFAULT_ROUND_TRIPS;
    p->rounds = C2C_DEFAULT_ROUNDS;
    cli_sched_init(&p->sched);
    int rc = cli_parse(&c2c_cli, &p->common, p, argc, argv, 1, NULL);
    if (rc >= 0)
        return rc;
    if (p->common.cpus.count == 1)
        return usage_error("--cpus", p->common.cpus_text, "needs at least two CPUs");
    if ((rc = cli_sched_finish(&p->sched)) != 0)
        return rc;
    return -1;
}

/* The progress bar (a terminal's stderr only) and the one notice when
 * SCHED_FIFO was refused. */
struct progress {
    bool bar, quiet, fifo, noticed;
    int64_t start_ns, last_ns;
};

static void on_progress(void *arg, const struct c2c_progress *p)
{
    struct progress *pr = arg;
    if (pr->fifo && !p->realtime && !pr->noticed && !pr->quiet) {
        fprintf(stderr,
                "%sjitterlab: c2c: SCHED_FIFO is not permitted; measuring at SCHED_OTHER "
                "(\"realtime\": false)\n",
                pr->bar ? "\r\033[K" : "");
        pr->noticed = true;
    }
    if (!pr->bar)
        return;
    int64_t now = monotonic_now_ns();
    if (now - pr->last_ns < 100 * NS_PER_MS && p->done < p->total)
        return;
    pr->last_ns = now;
    enum { BAR = 30 };
    char bar[BAR + 1];
    size_t fill = p->total ? p->done * BAR / p->total : BAR;
    for (size_t i = 0; i < BAR; i++)
        bar[i] = i < fill ? '#' : ' ';
    bar[BAR] = '\0';
    double elapsed_s = (double)(now - pr->start_ns) / 1e9;
    double left_s = p->done ? elapsed_s / (double)p->done * (double)(p->total - p->done) : 0;
    fprintf(stderr, "\rc2c: [%s] %zu/%zu pairs, %.0f s left\033[K", bar, p->done, p->total, left_s);
    fflush(stderr);
}

static int write_csv(const char *path, const struct c2c_result *r)
{
    struct atomic_file f;
    if (atomic_file_open(&f, path) != 0)
        return -1;
    c2c_csv_write(f.fp, r);
    if (ferror(f.fp)) {
        atomic_file_abort(&f);
        errno = EIO;
        return -1;
    }
    return atomic_file_commit(&f);
}

static int write_json(const struct c2c_params *p, const struct system_info *si, int argc,
                      char **argv, const char *started_at, const struct c2c_result *r)
{
    json_t *doc = json_document_new("c2c", JITTERLAB_VERSION, argc, argv, started_at);
    json_object_set_new(doc, "system", json_system_info(si));
    json_c2c_fill(doc, r);
    int rc = json_write_file(doc, p->common.json_path);
    json_decref(doc);
    return rc;
}

/* CPUs, outputs: exit 2 before anything runs. */
static int check_inputs(struct c2c_params *p, const struct sysroot *sr,
                        const struct system_info *si)
{
    int rc;
    if (p->common.cpus.count == 0)
        p->common.cpus = si->online;
    else if ((rc = check_cpus_online("--cpus", p->common.cpus_text, &p->common.cpus, si)) != 0)
        return rc;
    if (p->common.cpus.count < 2) {
        fprintf(stderr,
                "jitterlab: c2c: needs at least two CPUs (online: %s, from "
                "%s/sys/devices/system/cpu/online)\n",
                si->cpus_online[0] ? si->cpus_online : "unknown", sr->prefix);
        return EXIT_USAGE;
    }
    if ((rc = check_json_and_csv(p->common.json_path, p->csv_path)) != 0)
        return rc;
    return 0;
}

int cmd_c2c(int argc, char **argv)
{
    static struct c2c_params p;
    int rc = c2c_parse_args(argc, argv, &p);
    if (rc >= 0)
        return rc;
    struct sysroot sr;
    sysroot_init(&sr, p.common.sysroot_dir);
    static struct system_info si;
    system_info_read(&sr, &si);
    if ((rc = check_inputs(&p, &sr, &si)) != 0)
        return rc;
    stop_handlers_install();

    char started_at[40], err[256];
    rfc3339_now(started_at, sizeof(started_at));
    struct cpu_topology topo;
    struct c2c_matrix m;
    if (cpu_topology_read(&sr, &p.common.cpus, &topo, NULL) != 0) {
        fprintf(stderr, "jitterlab: c2c: out of memory\n");
        return EXIT_RUNTIME;
    }
    if (c2c_matrix_init(&m, p.common.cpus.cpu, p.common.cpus.count) != 0) {
        cpu_topology_free(&topo);
        fprintf(stderr, "jitterlab: c2c: out of memory\n");
        return EXIT_RUNTIME;
    }
    c2c_matrix_set_groups(&m, &topo);
    struct timebase tb;
    timebase_init(&tb, si.tsc_invariant);

    struct progress pr = {.bar = !p.common.quiet && isatty(STDERR_FILENO),
                          .quiet = p.common.quiet,
                          .fifo = p.sched.fifo};
    struct c2c_config cfg = {
        .mode = p.mode,
        .round_trips = p.round_trips,
        .rounds = p.rounds,
        .fifo = p.sched.fifo,
        .priority = p.sched.priority,
        .tb = &tb,
        .timeout_ns = C2C_TIMEOUT_NS,
        .progress = on_progress,
        .progress_arg = &pr,
    };
    struct c2c_result res = {
        .cfg = &cfg, .m = &m, .topo = &topo, .hypervisor = si.hypervisor[0] ? si.hypervisor : NULL};
    int64_t start = monotonic_now_ns();
    pr.start_ns = pr.last_ns = start;
    int mrc = c2c_measure(&cfg, &m, &res.rep, err, sizeof err);
    res.duration_s = (double)(monotonic_now_ns() - start) / 1e9;
    if (pr.bar)
        fprintf(stderr, "\r\033[K");
    rc = EXIT_OK;
    if (mrc != 0) {
        fprintf(stderr, "jitterlab: c2c: %s\n", err);
        rc = EXIT_RUNTIME;
        goto done;
    }
    res.ngroups = c2c_group_stats(&m, res.group);
    if (res.ngroups < 0) {
        fprintf(stderr, "jitterlab: c2c: out of memory\n");
        rc = EXIT_RUNTIME;
        goto done;
    }
    if (!p.common.quiet)
        text_c2c_show(stdout, &res, isatty(STDOUT_FILENO) && !getenv("NO_COLOR"), p.per_cpu);
    fflush(stdout);
    if (p.csv_path && write_csv(p.csv_path, &res) != 0) {
        fprintf(stderr, "jitterlab: --csv %s: %s\n", p.csv_path, strerror(errno));
        rc = EXIT_RUNTIME;
    }
    if (p.common.json_path && write_json(&p, &si, argc, argv, started_at, &res) != 0) {
        fprintf(stderr, "jitterlab: --json %s: %s\n", p.common.json_path, strerror(errno));
        rc = EXIT_RUNTIME;
    }
    if (res.rep.pairs_unstarted) {
        fprintf(stderr, "jitterlab: c2c: %zu pair%s not measured: %s\n", res.rep.pairs_unstarted,
                res.rep.pairs_unstarted == 1 ? "" : "s", res.rep.start_error);
        if (res.rep.pairs_done == 0)
            rc = EXIT_RUNTIME;
    }
    if (res.rep.interrupted && !p.common.quiet)
        fprintf(stderr, "jitterlab: c2c: interrupted; outputs hold the %zu pairs measured\n",
                res.rep.pairs_done);
done:
    c2c_matrix_free(&m);
    cpu_topology_free(&topo);
    return rc;
}
