/*
 * `jitterlab tsc`: can the TSC be trusted on these CPUs, as `run --clock
 * tsc` trusts it? Reads the flags, clocksources, tsc= boot values and the
 * kernel's own TSC verdicts (crosscpu/tsc_check.c, through the sysroot),
 * then measures on the live CPUs: a warp test over the CPU pairs for -D,
 * each CPU's offset from the first and its rate. The verdict (safe or
 * unsafe, with reasons) is the output: the exit status is 0 either way.
 * With --sysroot the static part comes from the tree while the
 * measurements still run here, on this machine's CPUs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/tsc_cli.h"
#include "common/atomic_file.h"
#include "common/clock.h"
#include "common/json_text.h"
#include "common/stop.h"
#include "common/units.h"
#include "crosscpu/timebase.h"
#include "crosscpu/tsc_check.h"
#include "out/json_result.h"
#include "out/json_tsc.h"
#include "out/text_tsc.h"
#include "sys/cpu_topology.h"
#include "sys/system_info.h"

static void tsc_usage(FILE *out)
{
    fprintf(out,
            "usage: jitterlab tsc [options]\n"
            "\n"
            "Checks whether the TSC can be trusted on these CPUs (as run --clock tsc does):\n"
            "the CPU flags, the clocksources, tsc= on the kernel command line and the kernel's\n"
            "own TSC verdicts in its log; then, on the CPUs, a warp test over every pair\n"
            "(reads under one shared last value: a read below it is a warp), each CPU's offset\n"
            "from the first CPU (minimum round trip, with its bound) and each CPU's TSC rate\n"
            "against CLOCK_MONOTONIC_RAW. Prints the verdict, safe or unsafe with the reasons;\n"
            "exits 0 either way.\n"
            "\n"
            "  -a, --cpus LIST         CPUs to check, the first is the reference (default: every\n"
            "                          online CPU)\n"
            "  -D, --duration DUR      the warp test's total, split over the pairs, at least 5ms\n"
            "                          each (bare number: s; default 2s)\n"
            "      --policy P          fifo | other (default fifo; other when FIFO is refused)\n"
            "  -p, --priority N        SCHED_FIFO priority 1..99 (default %d)\n"
            "      --csv FILE          the warp test, one row per pair\n"
            "      --json FILE         everything (kind \"tsc\")\n"
            "  -q, --quiet             print nothing but errors\n"
            "      --sysroot DIR       read /sys, /proc, /dev under DIR (the measurements still\n"
            "                          run on this machine's CPUs)\n"
            "  -h, --help              this text\n",
            TSC_DEFAULT_PRIORITY);
}

enum { OPT_CSV = 256 };

static const struct option tsc_options[] = {
    {"duration", required_argument, NULL, 'D'},
    CLI_OPTION_SCHED,
    {"csv", required_argument, NULL, OPT_CSV},
    CLI_COMMON_OPTIONS,
    CLI_OPTION_END,
};

static int tsc_option(void *params, int c, const char *arg)
{
    struct tsc_params *p = params;
    int rc = cli_sched_option(&p->sched, c, arg);
    if (rc >= 0)
        return rc;
    switch (c) {
    case 'D':
        return parse_positive_duration("--duration", arg, NS_PER_S, &p->duration_ns);
    default: /* OPT_CSV */
        p->csv_path = arg;
        return 0;
    }
}

static const struct cli_command tsc_cli = {
    "tsc", tsc_usage, "D:p:" CLI_COMMON_SHORT, tsc_options, tsc_option, NULL,
};

int tsc_parse_args(int argc, char **argv, struct tsc_params *p)
{
    memset(p, 0, sizeof(*p));
    p->duration_ns = TSC_DEFAULT_DURATION_NS;
    cli_sched_init(&p->sched);
    int rc = cli_parse(&tsc_cli, &p->common, p, argc, argv, 1, NULL);
    if (rc >= 0)
        return rc;
    if ((rc = cli_sched_finish(&p->sched)) != 0)
        return rc;
    return -1;
}

/* Progress on a terminal: one line, redrawn. */
static void show_progress(void *arg, const char *what, int done, int total)
{
    (void)arg;
    fprintf(stderr, "\rjitterlab: tsc: %s %d/%d\033[K", what, done + 1, total);
}

static json_t *json_config(const struct tsc_params *p)
{
    json_t *cpus = json_array();
    for (int i = 0; i < p->common.cpus.count; i++)
        json_array_append_new(cpus, json_integer(p->common.cpus.cpu[i]));
    json_t *c = json_object();
    json_object_set_new(c, "cpus", cpus);
    json_object_set_new(c, "reference_cpu", json_integer(p->common.cpus.cpu[0]));
    json_object_set_new(c, "duration_ns", json_integer((json_int_t)p->duration_ns));
    json_object_set_new(c, "policy", json_string(cli_sched_policy(&p->sched)));
    json_object_set_new(c, "priority", json_integer(p->sched.priority));
    json_object_set_new(c, "sysroot",
                        p->common.sysroot_dir && p->common.sysroot_dir[0]
                            ? json_text_new(p->common.sysroot_dir)
                            : json_null());
    json_object_set_new(c, "pair_floor_ns", json_integer(TSC_PAIR_FLOOR_NS));
    json_object_set_new(c, "slice_spin_ns", json_integer(TSC_SLICE_SPIN_NS));
    json_object_set_new(c, "slice_sleep_ns", json_integer(TSC_SLICE_SLEEP_NS));
    json_object_set_new(c, "offset_rounds", json_integer(TSC_OFFSET_ROUNDS));
    json_object_set_new(c, "round_timeout_ns", json_integer(TSC_ROUND_TIMEOUT_NS));
    json_object_set_new(c, "rate_interval_ns", json_integer(TSC_RATE_INTERVAL_NS));
    return c;
}

struct tsc_outcome {
    const struct tsc_static *st;
    const struct tsc_results *r;
    const struct tsc_verdict *v;
    const struct timebase *tb;
    const char *started_at;
    double duration_s;
};

static int write_json(const struct tsc_params *p, const struct system_info *si, int argc,
                      char **argv, const struct tsc_outcome *o)
{
    json_t *doc = json_document_new("tsc", JITTERLAB_VERSION, argc, argv, o->started_at);
    json_object_set_new(doc, "duration_s", json_real(o->duration_s));
    json_object_set_new(doc, "interrupted", json_boolean(o->r->interrupted));
    json_object_set_new(doc, "system", json_system_info(si));
    json_object_set_new(doc, "config", json_config(p));
    json_timebase_fields(doc, o->tb);
    json_object_set_new(doc, "realtime", json_boolean(o->r->realtime));
    json_tsc_figures(doc, o->st, o->r, o->v);
    int rc = json_write_file(doc, p->common.json_path);
    json_decref(doc);
    return rc;
}

static int write_csv(const char *path, const struct tsc_results *r)
{
    struct atomic_file f;
    if (atomic_file_open(&f, path) != 0)
        return -1;
    tsc_csv_write(f.fp, r);
    return atomic_file_commit(&f);
}

/* The CPUs: --cpus checked against this machine (the measurements run
 * here, whatever tree --sysroot names), else every online CPU. */
static int choose_cpus(struct tsc_params *p, const struct system_info *live)
{
    int rc;
    if (p->common.cpus.count == 0)
        p->common.cpus = live->online;
    else if ((rc = check_cpus_online("--cpus", p->common.cpus_text, &p->common.cpus, live)) != 0)
        return rc;
    if (p->common.cpus.count == 0) {
        fprintf(stderr, "jitterlab: tsc: no online CPU found (/sys/devices/system/cpu/online)\n");
        return EXIT_USAGE;
    }
    return 0;
}

int cmd_tsc(int argc, char **argv)
{
    static struct tsc_params p;
    int rc = tsc_parse_args(argc, argv, &p);
    if (rc >= 0)
        return rc;
    struct sysroot sr, live_sr;
    sysroot_init(&sr, p.common.sysroot_dir);
    sysroot_init(&live_sr, NULL);
    static struct system_info si, live_si;
    system_info_read(&sr, &si);
    if (sr.prefix[0])
        system_info_read(&live_sr, &live_si);
    else
        live_si = si;
    if ((rc = choose_cpus(&p, &live_si)) != 0)
        return rc;
    if ((rc = check_json_and_csv(p.common.json_path, p.csv_path)) != 0)
        return rc;
    stop_handlers_install();

    char started_at[40], err[256];
    rfc3339_now(started_at, sizeof(started_at));
    int64_t t0 = monotonic_now_ns();
    static struct tsc_static st;
    static struct tsc_verdict v;
    tsc_check_static(&sr, si.hypervisor, &st);
    struct timebase tb;
    timebase_init(&tb, live_si.tsc_invariant);
    struct cpu_topology topo = {0};
    bool have_topo = cpu_topology_read(&sr, &p.common.cpus, &topo, NULL) == 0;
    bool progress = !p.common.quiet && isatty(STDERR_FILENO);
    struct tsc_flags live_flags = st.flags;
    if (sr.prefix[0])
        tsc_read_flags(&live_sr, &live_flags);
    struct tsc_check_config cfg = {
        .cpus = p.common.cpus.cpu,
        .ncpu = p.common.cpus.count,
        .warp_ns = p.duration_ns,
        .offsets = true,
        .rates = true,
        /* bare metal without rdtscp faults on it; a hypervisor may only hide the flag */
        .no_rdtscp = live_flags.readable && !live_flags.rdtscp && !live_si.hypervisor[0],
        .fifo = p.sched.fifo,
        .priority = p.sched.priority,
        .topo = have_topo ? &topo : NULL,
        .progress = progress ? show_progress : NULL,
    };
    struct tsc_results r;
    if (tsc_results_init(&r, &cfg) != 0) {
        fprintf(stderr, "jitterlab: tsc: out of memory\n");
        if (have_topo)
            cpu_topology_free(&topo);
        return EXIT_RUNTIME;
    }
    rc = tsc_check_measure(&cfg, &tb, &r, err, sizeof err);
    if (progress)
        fprintf(stderr, "\r\033[K");
    if (have_topo)
        cpu_topology_free(&topo);
    if (rc != 0) {
        fprintf(stderr, "jitterlab: tsc: %s\n", err);
        tsc_results_free(&r);
        return EXIT_RUNTIME;
    }
    if (r.arch_tsc && !r.no_rdtscp) /* else nothing ran */
        cli_sched_notice("tsc", &p.sched, r.realtime, p.common.quiet);
    tsc_verdict_decide(&st, &r, &v);

    rc = EXIT_OK;
    if (!p.common.quiet) {
        char cpus_text[1024];
        cpulist_format(&p.common.cpus, cpus_text, sizeof cpus_text);
        struct tsc_text text = {&st, &r, &v, cpus_text, timebase_name(&tb), r.realtime};
        tsc_text_print(stdout, &text);
        fflush(stdout);
    }
    if (p.csv_path && write_csv(p.csv_path, &r) != 0) {
        fprintf(stderr, "jitterlab: --csv %s: %s\n", p.csv_path, strerror(errno));
        rc = EXIT_RUNTIME;
    }
    struct tsc_outcome o = {&st, &r, &v, &tb, started_at, (double)(monotonic_now_ns() - t0) / 1e9};
    if (p.common.json_path && write_json(&p, &si, argc, argv, &o) != 0) {
        fprintf(stderr, "jitterlab: --json %s: %s\n", p.common.json_path, strerror(errno));
        rc = EXIT_RUNTIME;
    }
    if (r.interrupted && !p.common.quiet)
        fprintf(stderr, "jitterlab: tsc: interrupted; the outputs hold what was measured\n");
    tsc_results_free(&r);
    return rc;
}
