/*
 * `jitterlab stat`: turbostat-like telemetry of any CPUs, no real-time
 * thread. Every -i it takes a telemetry snapshot (telemetry/) and shows
 * each CPU's figures since the last one: a table redrawn on a terminal,
 * plain rows in a pipe, rows streamed to --csv, and the newest intervals
 * kept for --json (kind "stat"). Ends at -D or on SIGINT/SIGTERM/SIGHUP;
 * an interrupted interval is still measured and written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/stat_cli.h"
#include "common/atomic_file.h"
#include "common/clock.h"
#include "common/stop.h"
#include "common/units.h"
#include "out/json_result.h"
#include "out/json_telemetry.h"
#include "out/text_stat.h"
#include "stats/keep_ring.h"
#include "sys/system_info.h"
#include "telemetry/telemetry.h"

#define POLL_NS (100 * NS_PER_MS)

static void stat_usage(FILE *out)
{
    fprintf(out,
            "usage: jitterlab stat [options]\n"
            "\n"
            "Shows what the CPUs do, turbostat-style, without a real-time thread: frequency\n"
            "(Avg_MHz, Bzy_MHz, TSC_MHz), Busy%%, idle-state residency and entries, interrupts\n"
            "and softirqs by source, context switches, steal time, SMIs, temperatures and\n"
            "package power, each from the best source this machine has (absent ones are\n"
            "named once, with the reason).\n"
            "\n"
            "  -a, --cpus LIST         CPUs to show (default: every online CPU)\n"
            "  -i, --interval DUR      time between two rows (bare number: s; default 1s,\n"
            "                          at least 10ms)\n"
            "  -D, --duration DUR      stop after DUR (bare number: s; default: at Ctrl-C)\n"
            "      --csv FILE          one row per CPU and interval\n"
            "      --json FILE         the intervals and the sources (kind \"stat\")\n"
            "      --keep-windows N    CPU-intervals kept for --json, the newest, in whole\n"
            "                          intervals, at least one (default %d)\n"
            "  -q, --quiet             print nothing but errors\n"
            "      --sysroot DIR       read /sys, /proc, /dev under DIR\n"
            "  -h, --help              this text\n",
            STAT_DEFAULT_KEEP);
}

enum { OPT_CSV = 256, OPT_KEEP };

static const struct option stat_options[] = {
    {"interval", required_argument, NULL, 'i'},
    {"duration", required_argument, NULL, 'D'},
    {"csv", required_argument, NULL, OPT_CSV},
    {"keep-windows", required_argument, NULL, OPT_KEEP},
    CLI_COMMON_OPTIONS,
    CLI_OPTION_END,
};

static int stat_option(void *params, int c, const char *arg)
{
    struct stat_params *p = params;
    long v;
    int rc;
    switch (c) {
    case 'i':
        rc = parse_positive_duration("--interval", arg, NS_PER_S, &p->interval_ns);
        if (rc == 0 && p->interval_ns < STAT_MIN_INTERVAL_NS)
            return usage_error("--interval", arg, "must be at least 10ms");
        return rc;
    case 'D':
        return parse_positive_duration("--duration", arg, NS_PER_S, &p->duration_ns);
    case OPT_CSV:
        p->csv_path = arg;
        return 0;
    default: /* OPT_KEEP */
        rc = parse_int_option("--keep-windows", arg, 0, 1000000L, &v);
        p->keep_windows = (uint64_t)v;
        return rc;
    }
}

static const struct cli_command stat_cli = {
    "stat", stat_usage, "i:D:" CLI_COMMON_SHORT, stat_options, stat_option, NULL,
};

int stat_parse_args(int argc, char **argv, struct stat_params *p)
{
    memset(p, 0, sizeof(*p));
    p->interval_ns = STAT_DEFAULT_INTERVAL_NS;
    p->keep_windows = STAT_DEFAULT_KEEP;
    return cli_parse(&stat_cli, &p->common, p, argc, argv, 1, NULL);
}

/* One interval for --json: every CPU's figures; the newest are kept in a
 * keep ring of whole intervals. */
struct stat_interval {
    double t_s;
    double elapsed_s;
    int64_t ctxt_total;
    struct telemetry_cpu_figures fig[]; /* one per CPU */
};

static size_t interval_size(int ncpu)
{
    return sizeof(struct stat_interval) + (size_t)ncpu * sizeof(struct telemetry_cpu_figures);
}

/* Whole intervals of keep_windows CPU-intervals; at least one when
 * anything is to be kept. */
static uint64_t intervals_kept(uint64_t keep_windows, int ncpu)
{
    uint64_t cap = keep_windows / (uint64_t)ncpu;
    return cap == 0 && keep_windows > 0 ? 1 : cap;
}

static int write_json(const struct stat_params *p, const struct system_info *si, int argc,
                      char **argv, const char *started_at, double duration_s, bool interrupted,
                      const struct telemetry *t, struct keep_ring *kept)
{
    json_t *doc = json_document_new("stat", JITTERLAB_VERSION, argc, argv, started_at);
    json_object_set_new(doc, "duration_s", json_real(duration_s));
    json_object_set_new(doc, "interrupted", json_boolean(interrupted));
    json_object_set_new(doc, "system", json_system_info(si));
    json_t *cpus = json_array();
    for (int i = 0; i < p->common.cpus.count; i++)
        json_array_append_new(cpus, json_integer(p->common.cpus.cpu[i]));
    json_object_set_new(
        doc, "config",
        json_pack("{s:I,s:o,s:o,s:I}", "interval_ns", (json_int_t)p->interval_ns, "duration_ns",
                  p->duration_ns ? json_integer((json_int_t)p->duration_ns) : json_null(), "cpus",
                  cpus, "keep_windows", (json_int_t)p->keep_windows));
    json_object_set_new(doc, "sources", json_telemetry_sources(t));
    json_t *samples = json_array();
    uint64_t n, dropped;
    const unsigned char *first = keep_ring_oldest_first(kept, &n, &dropped);
    int ncpu = p->common.cpus.count;
    for (uint64_t j = 0; j < n; j++) {
        const struct stat_interval *iv = (const void *)(first + j * interval_size(ncpu));
        json_t *s = json_object();
        json_object_set_new(s, "t_s", json_real(iv->t_s));
        json_object_set_new(s, "elapsed_s", json_real(iv->elapsed_s));
        json_object_set_new(s, "ctxt_total",
                            iv->ctxt_total >= 0 ? json_integer((json_int_t)iv->ctxt_total)
                                                : json_null());
        json_t *rows = json_array();
        for (int i = 0; i < ncpu; i++) {
            json_t *r = json_object();
            json_object_set_new(r, "cpu", json_integer(iv->fig[i].cpu));
            json_telemetry_figures(r, &iv->fig[i], t);
            json_array_append_new(rows, r);
        }
        json_object_set_new(s, "cpus", rows);
        json_array_append_new(samples, s);
    }
    json_object_set_new(doc, "samples", samples);
    json_object_set_new(doc, "samples_dropped", json_integer((json_int_t)dropped));
    int rc = json_write_file(doc, p->common.json_path);
    json_decref(doc);
    return rc;
}

int cmd_stat(int argc, char **argv)
{
    static struct stat_params p;
    int rc = stat_parse_args(argc, argv, &p);
    if (rc >= 0)
        return rc;
    struct sysroot sr;
    sysroot_init(&sr, p.common.sysroot_dir);
    static struct system_info si;
    system_info_read(&sr, &si);
    if (p.common.cpus.count == 0)
        p.common.cpus = si.online;
    else if ((rc = check_cpus_online("--cpus", p.common.cpus_text, &p.common.cpus, &si)) != 0)
        return rc;
    if (p.common.cpus.count == 0) {
        fprintf(stderr, "jitterlab: stat: no online CPU found (%s/sys/devices/system/cpu/online)\n",
                sr.prefix);
        return EXIT_USAGE;
    }
    if ((rc = check_json_and_csv(p.common.json_path, p.csv_path)) != 0)
        return rc;
    stop_handlers_install();

    char started_at[40], err[256];
    rfc3339_now(started_at, sizeof(started_at));
    struct telemetry_config tcfg = {
        .sr = &sr, .cpus = &p.common.cpus, .quiet = false, .kernel_release = si.kernel};
    struct telemetry *t = telemetry_open(&tcfg, err, sizeof(err));
    if (!t) {
        fprintf(stderr, "jitterlab: %s\n", err);
        return EXIT_RUNTIME;
    }
    int ncpu = p.common.cpus.count;
    struct stat_interval *iv = calloc(1, interval_size(ncpu));
    struct telemetry_cpu_figures *fig = iv ? iv->fig : NULL;
    struct keep_ring kept = {0};
    struct atomic_file csv = {0};
    bool csv_open = false, csv_header = false;
    rc = EXIT_RUNTIME;
    if (!iv || keep_ring_init(&kept, interval_size(ncpu),
                              p.common.json_path ? intervals_kept(p.keep_windows, ncpu) : 0) != 0) {
        fprintf(stderr, "jitterlab: stat: out of memory\n");
        goto done;
    }
    if (p.csv_path) {
        if (atomic_file_open(&csv, p.csv_path) != 0) {
            fprintf(stderr, "jitterlab: --csv %s: %s\n", p.csv_path, strerror(errno));
            goto done;
        }
        csv_open = true;
    }
    char absent[1024];
    telemetry_absent_line(t, absent, sizeof(absent));
    if (!p.common.quiet && absent[0])
        fprintf(stderr, "jitterlab: stat: not on this machine: %s\n", absent);

    bool tty = isatty(STDOUT_FILENO);
    struct stat_table table;
    bool table_ready = false;
    int64_t start = monotonic_now_ns();
    int64_t end = p.duration_ns > 0 ? start + p.duration_ns : INT64_MAX;
    int64_t next = start + p.interval_ns;
    bool interrupted = false;
    for (;;) {
        int64_t now = monotonic_now_ns();
        int64_t wake = next < end ? next : end;
        if (wake > now + POLL_NS)
            wake = now + POLL_NS;
        sleep_until_ns(wake);
        telemetry_poll(t);
        now = monotonic_now_ns();
        interrupted = stop_requested();
        bool last = interrupted || now >= end;
        if (now < next && !last)
            continue;
        telemetry_snapshot(t);
        double elapsed = telemetry_elapsed_s(t);
        double t_s = (double)(now - start) / 1e9;
        if (interrupted && elapsed < 0.001)
            break; /* nothing measured since the last row */
        for (int i = 0; i < ncpu; i++)
            telemetry_cpu_delta(t, i, &fig[i]);
        if (!table_ready) {
            stat_table_init(&table, t, &fig[0], tty);
            table_ready = true;
        }
        if (!p.common.quiet)
            stat_table_print(&table, stdout, t_s, fig, ncpu);
        if (csv_open) {
            if (!csv_header)
                stat_csv_header(csv.fp, t, &fig[0]);
            csv_header = true;
            stat_csv_rows(csv.fp, t, t_s, fig, ncpu);
            fflush(csv.fp);
        }
        iv->t_s = t_s;
        iv->elapsed_s = elapsed;
        iv->ctxt_total = telemetry_system_ctxt(t);
        keep_ring_add(&kept, iv);
        if (last)
            break;
        while (next <= now)
            next += p.interval_ns;
    }
    double duration_s = (double)(monotonic_now_ns() - start) / 1e9;
    rc = EXIT_OK;
    if (csv_open) {
        if (!csv_header)
            stat_csv_header(csv.fp, t, NULL);
        csv_open = false;
        if (atomic_file_commit(&csv) != 0) {
            fprintf(stderr, "jitterlab: --csv %s: %s\n", p.csv_path, strerror(errno));
            rc = EXIT_RUNTIME;
        }
    }
    if (p.common.json_path &&
        write_json(&p, &si, argc, argv, started_at, duration_s, interrupted, t, &kept) != 0) {
        fprintf(stderr, "jitterlab: --json %s: %s\n", p.common.json_path, strerror(errno));
        rc = EXIT_RUNTIME;
    }
    if (interrupted && !p.common.quiet)
        fprintf(stderr, "jitterlab: stat: interrupted; outputs hold every interval taken\n");
done:
    if (csv_open)
        atomic_file_abort(&csv);
    keep_ring_free(&kept);
    free(iv);
    telemetry_close(t);
    return rc;
}
