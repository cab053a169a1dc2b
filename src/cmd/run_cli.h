/*
 * The options of `jitterlab run`: parsing (run_parse_args, which touches
 * nothing) and the checks that need the machine (run_validate: the CPUs, the
 * TSC, the workload, the loads, the output paths). Both run before anything
 * is started or written, so bad input ends with exit 2 and no output.
 */
#ifndef JITTERLAB_CMD_RUN_CLI_H
#define JITTERLAB_CMD_RUN_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/options.h"
#include "cmd/run_wake_cli.h"
#include "common/units.h"
#include "engine/engine.h"
#include "engine/workload.h"
#include "export/exporter.h"
#include "export/influx.h"
#include "export/metrics.h"
#include "load/load.h"
#include "sys/sysroot.h"
#include "sys/system_info.h"

#define RUN_MAX_LOADS 16
/* The longest run (and the longest any planned time may lie ahead): far
 * beyond any real measurement, far below where start + duration overflows. */
#define RUN_MAX_DURATION_NS      (366LL * 24 * 3600 * NS_PER_S)
#define RUN_DEFAULT_KEEP_WINDOWS 3600
#define RUN_DEFAULT_EXPLAIN_KEEP 1000
/* A spike threshold beyond this explains nothing a run could show. */
#define RUN_MAX_EXPLAIN_NS (60 * NS_PER_S)
/* Telemetry windows without --report-every DUR, and the shortest: a
 * snapshot reads a dozen procfs files, which takes a millisecond or more. */
#define RUN_DEFAULT_TELEMETRY_NS NS_PER_S
#define RUN_MIN_TELEMETRY_NS     (100 * NS_PER_MS)
/* Report windows of --influx without --report-every. */
#define RUN_DEFAULT_INFLUX_WINDOW_NS (10 * NS_PER_S)

/* The telemetry window: --report-every DUR when it is at least 100 ms,
 * else 1 s. */
static inline int64_t run_telemetry_period_ns(int64_t report_every_ns)
{
    return report_every_ns >= RUN_MIN_TELEMETRY_NS ? report_every_ns : RUN_DEFAULT_TELEMETRY_NS;
}

struct run_params {
    struct cli_common common; /* cpus: as given, then as chosen by run_validate */
    bool duration_set;
    const char *duration_text; /* -D as given */
    int64_t interval_ns;
    bool interval_set; /* -i given */
    int64_t duration_ns;
    uint64_t loops;
    int policy;
    const char *policy_name;
    int priority;
    bool priority_set;
    enum engine_clock clock;
    int64_t tolerance_ns;
    int64_t budget_ns;
    int64_t report_every_ns;
    uint64_t report_every_samples;
    int64_t pm_qos_us;
    const char *hist_path;
    int64_t hist_max_ns;
    const char *samples_path;
    const char *intervals_path;
    uint64_t keep_windows;
    bool wide;
    bool per_cpu; /* --per-cpu: a summary row for every CPU, however many */
    const char *workload_text;
    struct workload_spec workload;
    uint64_t seed;
    int64_t deadline_ns; /* --deadline; with a workload and none given, the
                            interval; with --policy deadline, the reservation's;
                            else 0: no deadline */
    const char *deadline_text;
    /* --policy deadline: --runtime, --deadline and --period, completed by
     * run_deadline_finish (cmd/run_deadline.h) */
    struct deadline_reservation reservation;
    const char *runtime_text;
    const char *period_text;
    uint32_t counters_mask;
    const char *load_text[RUN_MAX_LOADS];
    struct load_spec loads[RUN_MAX_LOADS];
    int nloads;
    bool explain;                 /* --explain[=DUR] */
    int64_t explain_threshold_ns; /* 0: max(50 us, 10 x the CPU's running median) */
    uint64_t explain_keep;        /* --explain-keep: spikes kept in full */
    bool explain_keep_set;
    bool telemetry;        /* on unless --no-telemetry */
    bool telemetry_all;    /* --telemetry all: also sources read by interrupting a CPU */
    uint32_t tune_actions; /* --tune[=PROFILE]; 0 = no tuning */
    const char *tune_profile;
    bool forever; /* --forever or -D 0: until stopped */
    const char *prometheus_text;
    bool prometheus; /* --prometheus [ADDR:]PORT */
    struct listen_addr prometheus_addr;
    const char *prometheus_buckets_text;
    struct metrics_bounds prometheus_bounds;
    const char *influx_text; /* --influx DEST */
    struct influx_dest influx;
    uint32_t cyclictest_taken; /* RUN_CYCLICTEST_*: cyclictest's options taken, with a note */
    /* --tail: the tail analysis at the end (docs/tail.md, "In a run");
     * --until-confident P:WIDTH implies it and stops the run once every
     * measured CPU knows its latency at P within WIDTH */
    bool tail;
    const char *until_confident_text;
    double confident_probability; /* P per cycle, in (0, 1); 0: no --until-confident */
    double confident_width;       /* WIDTH as a fraction: 0.1 for 10% */
    struct run_wake wake;         /* --wake MECH, --waker-cpu, --waker-priority */
};

/* cyclictest's options that run takes: -m/--mlockall and -n/--nanosleep
 * (what jitterlab always does), --histfile FILE (--histogram-file FILE). */
enum {
    RUN_CYCLICTEST_MLOCKALL = 1u << 0,
    RUN_CYCLICTEST_NANOSLEEP = 1u << 1,
    RUN_CYCLICTEST_HISTFILE = 1u << 2,
};

static inline bool has_workload(const struct run_params *p)
{
    return p->workload.kind != WORKLOAD_NONE;
}

/* A deadline is a limit on a task's response time: the run has one with a
 * workload (by default the interval) or an explicit --deadline (then the
 * response time of an empty cycle is its latency). Without one no cycle
 * counts as a deadline miss and no output shows the figure. */
static inline bool run_has_deadline(const struct run_params *p)
{
    return p->deadline_ns > 0;
}

/* Execution/response columns appear with a workload, counters or a
 * deadline. */
static inline bool control_task_columns(const struct run_params *p)
{
    return has_workload(p) || p->counters_mask != 0 || run_has_deadline(p);
}

/* The policy of the run header: "SCHED_FIFO 90", "SCHED_OTHER", or with
 * degraded (the real-time policy was not permitted) what the threads got
 * and what was refused: "SCHED_OTHER (SCHED_FIFO 90 refused: not
 * permitted)". */
void run_policy_text(int policy, int priority, bool degraded, char *buf, size_t len);

/* The warning a spin workload at least as long as the interval owes (most
 * periods will be missed), naming both values, in buf without the
 * "jitterlab: " prefix; false when there is none. After run_validate (the
 * workload parsed). */
bool run_workload_warning(const struct run_params *p, char *buf, size_t len);

/* One note on err for each of cyclictest's options that p took: what it
 * does here. Nothing when none was given. */
void run_cyclictest_notes(const struct run_params *p, FILE *err);

/* -1 to continue, or an exit code (the help text or the message printed).
 * p must be all zero (static storage or calloc): it is not cleared here,
 * because clearing its 300 KB (sixteen load specs, each with a CPU list)
 * would make every page of it resident in a run that uses one. */
int run_parse_args(int argc, char **argv, struct run_params *p);
/* The usage text of `jitterlab run --help` (run_usage.c). */
void run_usage(FILE *out);
/* -1 to continue, or EXIT_USAGE after the message; chooses the default CPUs
 * and parses the workload and the loads. */
int run_validate(struct run_params *p, const struct system_info *si, const struct sysroot *sr);

#endif
