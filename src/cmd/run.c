/*
 * `jitterlab run`: parse options into an engine configuration, check every
 * input before anything is started or written (exit 2 with the option and
 * the reason), then act as the collector: pinned to a housekeeping CPU, it
 * drains the per-CPU rings, feeds the live view, the samples file and the
 * --report-every windows, and at the end writes the summary and every
 * requested output atomically, also after SIGINT/SIGTERM.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/run_collector.h"
#include "common/units.h"
#include "engine/counters.h"
#include "engine/engine.h"
#include "engine/workload.h"
#include "load/load.h"
#include "common/atomic_file.h"
#include "out/histfile.h"
#include "out/json_result.h"
#include "out/report.h"
#include "out/text_report.h"
#include "sys/cpulist.h"
#include "inspect/inspect_system.h"
#include "sys/pm_qos.h"
#include "sys/system_info.h"
#include "tune/session.h"

#define RUN_MAX_LOADS 16
/* The longest run (and the longest any planned time may lie ahead): far
 * beyond any real measurement, far below where start + duration overflows. */
#define RUN_MAX_DURATION_NS      (366LL * 24 * 3600 * NS_PER_S)
#define RUN_DEFAULT_KEEP_WINDOWS 3600

struct run_params {
    int64_t interval_ns;
    int64_t duration_ns;
    uint64_t loops;
    int policy;
    const char *policy_name;
    int priority;
    bool priority_set;
    struct cpulist cpus;
    const char *cpus_text;
    enum engine_clock clock;
    int64_t tolerance_ns;
    int64_t budget_ns;
    int64_t report_every_ns;
    uint64_t report_every_samples;
    int64_t pm_qos_us;
    bool quiet;
    const char *json_path;
    const char *hist_path;
    int64_t hist_max_ns;
    const char *samples_path;
    const char *intervals_path;
    uint64_t keep_windows;
    bool wide;
    const char *sysroot_dir;
    const char *workload_text;
    struct workload_spec workload;
    uint64_t seed;
    int64_t deadline_ns; /* 0 until defaulted to the interval */
    uint32_t counters_mask;
    const char *load_text[RUN_MAX_LOADS];
    struct load_spec loads[RUN_MAX_LOADS];
    int nloads;
    uint32_t tune_actions; /* --tune[=PROFILE]; 0 = no tuning */
    const char *tune_profile;
};

static bool has_workload(const struct run_params *p)
{
    return p->workload.kind != WORKLOAD_NONE;
}

/* Execution/response columns appear with a workload or counters. */
static bool control_task_columns(const struct run_params *p)
{
    return has_workload(p) || p->counters_mask != 0;
}

static void run_usage(FILE *out)
{
    fprintf(out,
            "usage: jitterlab run [options]\n"
            "\n"
            "Measures wake-up latency: one pinned thread per CPU sleeps to absolute planned\n"
            "times (start + k * interval) and records how late it runs, in nanoseconds.\n"
            "Cycles whose planned time passed before the previous one ended are counted\n"
            "as missed periods. Durations take units: ns, us, ms, s, m, h.\n"
            "\n"
            "  -i, --interval DUR      cycle interval (bare number: us; default 1ms)\n"
            "  -a, --cpus LIST         CPUs to measure, e.g. 1-3,6 (default: the isolated\n"
            "                          CPUs, else every online CPU but CPU 0)\n"
            "  -p, --priority N        real-time priority 1..99 (default 90)\n"
            "      --policy P          fifo | rr | other (default fifo)\n"
            "  -D, --duration DUR      run time (bare number: s; default 10s unless -l)\n"
            "  -l, --loops N           stop after N samples per CPU\n"
            "      --clock C           monotonic | tsc (tsc: invariant TSC only)\n"
            "      --tolerance DUR     count samples whose latency or |period error|\n"
            "                          exceeds DUR (bare number: us)\n"
            "      --budget DUR        exit 3 when any latency exceeds DUR (bare: us)\n"
            "      --report-every N|DUR  a line per CPU every N samples or every DUR\n"
            "      --wide              every period, error and execution column in those\n"
            "                          lines (default: fits 100 columns)\n"
            "      --intervals FILE    every window as CSV, written as it closes\n"
            "      --keep-windows N    windows kept in the JSON result, the newest (default\n"
            "                          3600; the rest are counted as dropped)\n"
            "      --pm-qos US         hold /dev/cpu_dma_latency at US during the run\n"
            "      --workload KIND     work done after each wake-up: none,\n"
            "                          ptrchase[:SIZE[:STEPS]] (default 2 x L2, 5000 steps),\n"
            "                          spin:DUR (a calibrated busy computation)\n"
            "      --seed N            ptrchase permutation seed (default 1)\n"
            "      --deadline DUR      response time (latency + execution) limit; cycles\n"
            "                          beyond it are deadline misses (default: interval)\n"
            "      --load KIND[@CPUS]  a best-effort load for the run's duration (repeatable;\n"
            "                          default CPUs: online ones not measured); KIND as in\n"
            "                          jitterlab load: cpu, pulse:ON:OFF[:KIND], cache[:SIZE],\n"
            "                          memory[:SIZE], cmd:COMMAND\n"
            "      --tune[=PROFILE]    apply `jitterlab tune` (latency or realtime, default\n"
            "                          latency) for --budget (default 50us) before the first\n"
            "                          cycle, hold PM QoS, restore everything at the end\n"
            "                          (also after Ctrl-C/SIGTERM)\n"
            "      --counters LIST     per-cycle counters: cycles, instructions, llc-misses,\n"
            "                          context-switches, cpu-migrations, page-faults, all\n"
            "  -q, --quiet             print nothing but errors\n"
            "      --json FILE         write the result document (schema 1)\n"
            "      --histogram-file FILE  cyclictest -h format, 1 us rows\n"
            "      --histogram-max DUR rows of that file (bare: us; default 1000us)\n"
            "      --samples FILE      every sample as CSV: cpu,t_ns,latency_ns\n"
            "      --sysroot DIR       read /sys, /proc, /dev under DIR\n"
            "  -h, --help              this text\n"
            "\n"
            "Without root or CAP_SYS_NICE it runs SCHED_OTHER and says so. Ctrl-C ends the\n"
            "run early and still writes every output, marked interrupted.\n"
            "Exit codes: 0 ok, 1 runtime failure, 2 bad usage, 3 budget exceeded.\n");
}

enum {
    OPT_POLICY = 256,
    OPT_CLOCK,
    OPT_TOLERANCE,
    OPT_BUDGET,
    OPT_REPORT_EVERY,
    OPT_PM_QOS,
    OPT_JSON,
    OPT_HIST_FILE,
    OPT_HIST_MAX,
    OPT_SAMPLES,
    OPT_SYSROOT,
    OPT_WORKLOAD,
    OPT_SEED,
    OPT_DEADLINE,
    OPT_COUNTERS,
    OPT_LOAD,
    OPT_TUNE,
    OPT_INTERVALS,
    OPT_KEEP_WINDOWS,
    OPT_WIDE,
};

static const struct option run_options[] = {
    {"interval", required_argument, NULL, 'i'},
    {"cpus", required_argument, NULL, 'a'},
    {"priority", required_argument, NULL, 'p'},
    {"policy", required_argument, NULL, OPT_POLICY},
    {"duration", required_argument, NULL, 'D'},
    {"loops", required_argument, NULL, 'l'},
    {"clock", required_argument, NULL, OPT_CLOCK},
    {"tolerance", required_argument, NULL, OPT_TOLERANCE},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"report-every", required_argument, NULL, OPT_REPORT_EVERY},
    {"pm-qos", required_argument, NULL, OPT_PM_QOS},
    {"quiet", no_argument, NULL, 'q'},
    {"json", required_argument, NULL, OPT_JSON},
    {"histogram-file", required_argument, NULL, OPT_HIST_FILE},
    {"histogram-max", required_argument, NULL, OPT_HIST_MAX},
    {"samples", required_argument, NULL, OPT_SAMPLES},
    {"sysroot", required_argument, NULL, OPT_SYSROOT},
    {"workload", required_argument, NULL, OPT_WORKLOAD},
    {"seed", required_argument, NULL, OPT_SEED},
    {"deadline", required_argument, NULL, OPT_DEADLINE},
    {"counters", required_argument, NULL, OPT_COUNTERS},
    {"load", required_argument, NULL, OPT_LOAD},
    {"tune", optional_argument, NULL, OPT_TUNE},
    {"intervals", required_argument, NULL, OPT_INTERVALS},
    {"keep-windows", required_argument, NULL, OPT_KEEP_WINDOWS},
    {"wide", no_argument, NULL, OPT_WIDE},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* Returns -1 to continue, or an exit code. */
static int parse_args(int argc, char **argv, struct run_params *p)
{
    const char *why;
    long v;
    memset(p, 0, sizeof(*p));
    p->interval_ns = NS_PER_MS;
    p->policy = SCHED_FIFO;
    p->policy_name = "fifo";
    p->priority = 90;
    p->clock = ENGINE_CLOCK_MONOTONIC;
    p->tolerance_ns = -1;
    p->budget_ns = -1;
    p->pm_qos_us = -1;
    p->hist_max_ns = 1000 * NS_PER_US;
    p->seed = 1;
    p->keep_windows = RUN_DEFAULT_KEEP_WINDOWS;
    bool duration_set = false;

    opterr = 0;
    optind = 1;
    int c, rc;
    while ((c = getopt_long(argc, argv, ":i:a:p:D:l:qh", run_options, NULL)) != -1) {
        rc = 0;
        switch (c) {
        case 'i':
            rc = parse_positive_duration("--interval", optarg, NS_PER_US, &p->interval_ns);
            if (!rc && p->interval_ns > 3600 * NS_PER_S)
                rc = usage_error("--interval", optarg, "must be at most 1h");
            break;
        case 'a':
            p->cpus_text = optarg;
            if (cpulist_parse(optarg, &p->cpus, &why) != 0)
                rc = usage_error("--cpus", optarg, why);
            else if (p->cpus.count == 0)
                rc = usage_error("--cpus", optarg, "empty CPU list");
            break;
        case 'p':
            rc = parse_int_option("--priority", optarg, 1, 99, &v);
            p->priority = (int)v;
            p->priority_set = true;
            break;
        case OPT_POLICY:
            if (strcmp(optarg, "fifo") == 0)
                p->policy = SCHED_FIFO;
            else if (strcmp(optarg, "rr") == 0)
                p->policy = SCHED_RR;
            else if (strcmp(optarg, "other") == 0)
                p->policy = SCHED_OTHER;
            else
                rc = usage_error("--policy", optarg, "must be fifo, rr or other");
            p->policy_name = optarg;
            break;
        case 'D':
            rc = parse_positive_duration("--duration", optarg, NS_PER_S, &p->duration_ns);
            duration_set = true;
            break;
        case 'l':
            rc = parse_int_option("--loops", optarg, 1, 1000000000000L, &v);
            p->loops = (uint64_t)v;
            break;
        case OPT_CLOCK:
            if (strcmp(optarg, "monotonic") == 0)
                p->clock = ENGINE_CLOCK_MONOTONIC;
            else if (strcmp(optarg, "tsc") == 0)
                p->clock = ENGINE_CLOCK_TSC;
            else
                rc = usage_error("--clock", optarg, "must be monotonic or tsc");
            break;
        case OPT_TOLERANCE:
            rc = parse_positive_duration("--tolerance", optarg, NS_PER_US, &p->tolerance_ns);
            break;
        case OPT_BUDGET:
            rc = parse_positive_duration("--budget", optarg, NS_PER_US, &p->budget_ns);
            break;
        case OPT_REPORT_EVERY:
            if (all_digits(optarg)) {
                rc = parse_int_option("--report-every", optarg, 1, 1000000000L, &v);
                p->report_every_samples = (uint64_t)v;
                p->report_every_ns = 0; /* the last --report-every wins */
            } else {
                rc = parse_positive_duration("--report-every", optarg, NS_PER_S,
                                             &p->report_every_ns);
                p->report_every_samples = 0;
            }
            break;
        case OPT_PM_QOS:
            rc = parse_int_option("--pm-qos", optarg, 0, 2000000000L, &v);
            p->pm_qos_us = v;
            break;
        case 'q':
            p->quiet = true;
            break;
        case OPT_JSON:
            p->json_path = optarg;
            break;
        case OPT_HIST_FILE:
            p->hist_path = optarg;
            break;
        case OPT_HIST_MAX:
            rc = parse_positive_duration("--histogram-max", optarg, NS_PER_US, &p->hist_max_ns);
            if (!rc && (p->hist_max_ns < NS_PER_US || p->hist_max_ns > 10 * NS_PER_S))
                rc = usage_error("--histogram-max", optarg, "must be from 1us to 10s");
            break;
        case OPT_SAMPLES:
            p->samples_path = optarg;
            break;
        case OPT_INTERVALS:
            p->intervals_path = optarg;
            break;
        case OPT_KEEP_WINDOWS:
            rc = parse_int_option("--keep-windows", optarg, 0, 1000000L, &v);
            p->keep_windows = (uint64_t)v;
            break;
        case OPT_WIDE:
            p->wide = true;
            break;
        case OPT_SYSROOT:
            p->sysroot_dir = optarg;
            break;
        case OPT_WORKLOAD:
            p->workload_text = optarg;
            break;
        case OPT_SEED:
            rc = parse_int_option("--seed", optarg, 0, LONG_MAX, &v);
            p->seed = (uint64_t)v;
            break;
        case OPT_DEADLINE:
            rc = parse_positive_duration("--deadline", optarg, NS_PER_US, &p->deadline_ns);
            break;
        case OPT_LOAD:
            if (p->nloads == RUN_MAX_LOADS)
                rc = usage_error("--load", optarg, "too many loads (at most 16)");
            else
                p->load_text[p->nloads++] = optarg;
            break;
        case OPT_TUNE: {
            const char *bad_opt = NULL;
            char twhy[600];
            p->tune_profile = optarg ? optarg : "latency";
            p->tune_actions = tune_actions_for(p->tune_profile, NULL, &bad_opt, twhy, sizeof(twhy));
            if (!p->tune_actions)
                rc = usage_error("--tune", p->tune_profile, twhy);
            break;
        }
        case OPT_COUNTERS:
            if (counters_parse(optarg, &p->counters_mask, &why) != 0)
                rc = usage_error("--counters", optarg, why);
            break;
        case 'h':
            run_usage(stdout);
            return EXIT_OK;
        default:
            return option_parse_error("run", c, argv);
        }
        if (rc)
            return rc;
    }
    if ((rc = check_no_more_args("run", argc, argv)) != 0)
        return rc;
    if (!duration_set && !p->loops)
        p->duration_ns = 10 * NS_PER_S;
    if (p->loops && (double)p->loops * (double)p->interval_ns > (double)RUN_MAX_DURATION_NS) {
        char n[32];
        snprintf(n, sizeof(n), "%llu", (unsigned long long)p->loops);
        return usage_error("--loops", n, "loops x interval must be at most 366 days");
    }
    if ((p->intervals_path || p->wide) && !p->report_every_ns && !p->report_every_samples)
        return usage_error(p->intervals_path ? "--intervals" : "--wide", p->intervals_path,
                           "needs --report-every");
    if (p->policy == SCHED_OTHER) {
        if (p->priority_set)
            return usage_error("--priority", NULL, "has no meaning with --policy other");
        p->priority = 0;
    }
    if (!p->sysroot_dir)
        p->sysroot_dir = getenv("JITTERLAB_SYSROOT");
    if (p->deadline_ns == 0)
        p->deadline_ns = p->interval_ns;
    return -1;
}

/* Each --load parses, runs on online CPUs (by default those not measured)
 * and leaves at least one measured CPU alone. */
static int validate_loads(struct run_params *p, const struct system_info *si,
                          const struct sysroot *sr)
{
    char why[700];
    int rc;
    for (int i = 0; i < p->nloads; i++) {
        struct load_spec *l = &p->loads[i];
        if (load_parse(p->load_text[i], sr, true, l, why, sizeof(why)) != 0)
            return usage_error("--load", p->load_text[i], why);
        if (!l->cpus_given) {
            cpulist_subtract(&si->online, &p->cpus, &l->cpus);
            if (l->cpus.count == 0)
                return usage_error("--load", p->load_text[i],
                                   "no CPU left for the load (every online CPU is measured); "
                                   "name its CPUs with @CPUS");
        } else if ((rc = check_cpus_online("--load", p->load_text[i], &l->cpus, si)) != 0) {
            return rc;
        }
        struct cpulist left;
        cpulist_subtract(&p->cpus, &l->cpus, &left);
        if (left.count == 0)
            return usage_error("--load", p->load_text[i],
                               "its CPUs include every measured CPU; a load runs beside the "
                               "measurement, not on all of it");
    }
    return 0;
}

/* The CPUs this process may run threads on (cpuset, taskset). */
static void affinity_cpus(struct cpulist *out)
{
    out->count = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return;
    for (int cpu = 0; cpu < CPU_SETSIZE && cpu < CPULIST_MAX_CPUS; cpu++)
        if (CPU_ISSET(cpu, &set))
            cpulist_add(out, cpu);
}

/* --cpus as given (online, within the affinity), or by default the isolated
 * CPUs that are usable, saying which were dropped and why. */
static int choose_cpus(struct run_params *p, const struct system_info *si)
{
    static struct cpulist allowed, usable, gone, want;
    affinity_cpus(&allowed);
    if (p->cpus.count > 0) {
        int rc = check_cpus_online("--cpus", p->cpus_text, &p->cpus, si);
        if (rc != 0 || allowed.count == 0)
            return rc;
        cpulist_subtract(&p->cpus, &allowed, &gone);
        if (gone.count > 0) {
            char why[600], list[512];
            cpulist_format(&allowed, list, sizeof(list));
            snprintf(why, sizeof(why),
                     "CPU %d is outside this process's CPU affinity (allowed: %s)", gone.cpu[0],
                     list);
            return usage_error("--cpus", p->cpus_text, why);
        }
        return 0;
    }
    system_info_default_cpus(si, &want);
    if (allowed.count == 0) /* affinity unknown: trust the machine's lists */
        allowed = si->online;
    cpulist_subtract(&si->online, &allowed, &gone);
    cpulist_subtract(&si->online, &gone, &usable); /* online and allowed */
    cpulist_subtract(&want, &usable, &gone);
    cpulist_subtract(&want, &gone, &p->cpus);
    if (p->cpus.count == 0) {
        /* None of the defaults is usable: every usable CPU but the first,
         * which stays for housekeeping when there is more than one. */
        p->cpus = usable;
        if (usable.count > 1) {
            memmove(p->cpus.cpu, p->cpus.cpu + 1, (size_t)(usable.count - 1) * sizeof(int));
            p->cpus.count--;
        }
    }
    if (gone.count > 0 && !p->quiet) {
        char dropped[512], chosen[512];
        cpulist_format(&gone, dropped, sizeof(dropped));
        cpulist_format(&p->cpus, chosen, sizeof(chosen));
        fprintf(stderr,
                "jitterlab: warning: default CPUs %s dropped (offline or outside this process's "
                "CPU affinity); measuring %s\n",
                dropped, chosen);
    }
    return p->cpus.count > 0 ? 0 : usage_error("--cpus", NULL, "no CPU is usable");
}

/* Checks that need the machine: CPUs online, TSC, workload, loads, output paths. */
static int validate(struct run_params *p, const struct system_info *si, const struct sysroot *sr)
{
    const char *reason;
    int rc;
    if (workload_parse(p->workload_text ? p->workload_text : "none", sr, p->seed, &p->workload,
                       &reason) != 0)
        return usage_error("--workload", p->workload_text, reason);
    if ((rc = choose_cpus(p, si)) != 0)
        return rc;
    if (p->clock == ENGINE_CLOCK_TSC) {
        if (!engine_tsc_supported())
            return usage_error("--clock", "tsc", "refused: this architecture has no TSC");
        if (!si->tsc_invariant)
            return usage_error("--clock", "tsc",
                               "refused: the CPU does not report an invariant TSC "
                               "(constant_tsc and nonstop_tsc missing from /proc/cpuinfo)");
    }
    if ((rc = validate_loads(p, si, sr)) != 0)
        return rc;
    if ((rc = check_output_path("--json", p->json_path)) != 0 ||
        (rc = check_output_path("--histogram-file", p->hist_path)) != 0 ||
        (rc = check_output_path("--samples", p->samples_path)) != 0 ||
        (rc = check_output_path("--intervals", p->intervals_path)) != 0)
        return rc;
    return -1;
}

static void pin_to_housekeeping(const struct run_params *p, const struct system_info *si)
{
    struct cpulist house;
    cpulist_subtract(&si->online, &p->cpus, &house);
    if (house.count == 0) {
        if (!p->quiet)
            fprintf(stderr, "jitterlab: warning: every online CPU is measured; the collector "
                            "shares them\n");
        return;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int i = 0; i < house.count; i++)
        if (house.cpu[i] < CPU_SETSIZE)
            CPU_SET(house.cpu[i], &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void print_header(const struct run_params *p, const struct system_info *si, int pm_fd)
{
    char cpus[1024], iv[32], dur[32];
    cpulist_format(&p->cpus, cpus, sizeof(cpus));
    format_duration(p->interval_ns, iv, sizeof(iv));
    if (p->duration_ns > 0)
        format_duration(p->duration_ns, dur, sizeof(dur));
    else
        snprintf(dur, sizeof(dur), "%llu loops", (unsigned long long)p->loops);
    printf("jitterlab run: CPU %s, interval %s, %s", cpus, iv,
           p->policy == SCHED_FIFO ? "SCHED_FIFO"
           : p->policy == SCHED_RR ? "SCHED_RR"
                                   : "SCHED_OTHER");
    if (p->policy != SCHED_OTHER)
        printf(" %d", p->priority);
    printf(", %s, clock %s\n", dur, p->clock == ENGINE_CLOCK_TSC ? "tsc" : "monotonic");
    if (has_workload(p)) {
        char dl[32];
        format_duration(p->deadline_ns, dl, sizeof(dl));
        printf("workload %s, deadline %s\n", p->workload.text, dl);
    }
    printf("kernel %s (%s), clocksource %s%s%s\n", si->kernel[0] ? si->kernel : "?",
           si->preempt_model[0] ? si->preempt_model : "preempt model unknown",
           si->clocksource[0] ? si->clocksource : "?", si->hypervisor[0] ? ", hypervisor " : "",
           si->hypervisor);
    if (pm_fd >= 0)
        printf("PM QoS: holding /dev/cpu_dma_latency at %lld µs for the run\n",
               (long long)p->pm_qos_us);
    else if (si->cpu_dma_latency_us < 0)
        printf("PM QoS: /dev/cpu_dma_latency unreadable (needs root)\n");
    else if (si->cpu_dma_latency_us == PM_QOS_NO_REQUEST_US)
        printf("PM QoS: no CPU latency request in force (use --pm-qos US to hold one)\n");
    else
        printf("PM QoS: CPU latency request in force: %lld µs\n",
               (long long)si->cpu_dma_latency_us);
    fflush(stdout);
}

static int write_outputs(const struct run_params *p, struct collector *c,
                         const struct run_report *rep)
{
    int rc = EXIT_OK;
    const char *opt = NULL, *path = NULL;
    if (collector_commit(c, &opt, &path) != 0) {
        fprintf(stderr, "jitterlab: %s %s: %s\n", opt, path, strerror(errno));
        rc = EXIT_RUNTIME;
    }
    if (p->json_path) {
        json_t *doc = json_run_result(rep);
        if (!doc || json_write_file(doc, p->json_path) != 0) {
            fprintf(stderr, "jitterlab: --json %s: %s\n", p->json_path, strerror(errno));
            rc = EXIT_RUNTIME;
        }
        json_decref(doc);
    }
    if (p->hist_path && histfile_write(rep, p->hist_path) != 0) {
        fprintf(stderr, "jitterlab: --histogram-file %s: %s\n", p->hist_path, strerror(errno));
        rc = EXIT_RUNTIME;
    }
    return rc;
}

/* The warnings a run owes its reader once the threads run. */
static void warn_after_start(const struct run_params *p, struct engine *eng)
{
    if (engine_degraded(eng))
        fprintf(stderr,
                "jitterlab: WARNING: no permission for %s (needs root or "
                "CAP_SYS_NICE): running SCHED_OTHER; these numbers are not real-time\n",
                p->policy == SCHED_RR ? "SCHED_RR" : "SCHED_FIFO");
    const struct cpu_result *first = engine_result(eng, 0);
    if ((p->counters_mask & COUNTERS_HARDWARE_MASK) && !first->hw_available)
        fprintf(stderr,
                "jitterlab: hardware counters unavailable: %s; software counters "
                "still counted\n",
                first->hw_reason[0] ? first->hw_reason : "not requested");
    if (p->quiet)
        return;
    if (engine_memory_lock(eng) == ENGINE_LOCK_BUFFERS)
        fprintf(stderr, "jitterlab: warning: only the measurement buffers are locked in memory "
                        "(no CAP_IPC_LOCK); page faults elsewhere may add latency\n");
    else if (engine_memory_lock(eng) == ENGINE_LOCK_NONE)
        fprintf(stderr, "jitterlab: warning: memory not locked (needs root, CAP_IPC_LOCK or a "
                        "RLIMIT_MEMLOCK that fits the buffers); page faults may add latency\n");
}

/* The final exit code from the outputs, the budget and the restore. */
static int run_verdict(const struct run_params *p, const struct run_report *rep, int out_rc,
                       int tune_rc)
{
    int rc = out_rc;
    if (rc == EXIT_OK && p->budget_ns >= 0) {
        char max[32], budget[32];
        format_duration(p->budget_ns, budget, sizeof(budget));
        if (rep->all_samples == 0) {
            /* Nothing measured is never within budget. */
            fprintf(stderr, "jitterlab: --budget %s: no sample was taken\n", budget);
            rc = EXIT_RUNTIME;
        } else if (rep->all_latency.max > p->budget_ns) {
            format_duration(rep->all_latency.max, max, sizeof(max));
            fprintf(stderr, "jitterlab: latency budget exceeded: max %s > --budget %s\n", max,
                    budget);
            rc = EXIT_BUDGET;
        }
    }
    if (rc == EXIT_OK && tune_rc != EXIT_OK)
        rc = tune_rc;
    return rc;
}

static void fill_report(struct run_report *rep, const struct run_params *p, struct engine *eng,
                        struct collector *c, int64_t end_ns, bool pm_held)
{
    rep->version = JITTERLAB_VERSION;
    int64_t start_ns = engine_start_ns(eng);
    rep->duration_s = start_ns > 0 ? (double)(end_ns - start_ns) / 1e9 : 0;
    if (rep->duration_s < 0)
        rep->duration_s = 0;
    rep->interval_ns = p->interval_ns;
    rep->duration_ns = p->duration_ns;
    rep->loops = p->loops;
    rep->policy = p->policy == SCHED_FIFO ? "fifo" : p->policy == SCHED_RR ? "rr" : "other";
    rep->priority = p->priority;
    rep->realtime = p->policy != SCHED_OTHER && !engine_degraded(eng);
    rep->memory_locked = engine_memory_lock(eng) == ENGINE_LOCK_ALL;
    rep->memory_lock = engine_memory_lock(eng) == ENGINE_LOCK_ALL       ? "all"
                       : engine_memory_lock(eng) == ENGINE_LOCK_BUFFERS ? "buffers"
                                                                        : "none";
    rep->cpus = &p->cpus;
    rep->clock = p->clock == ENGINE_CLOCK_TSC ? "tsc" : "monotonic";
    rep->tsc_hz = engine_tsc_hz(eng);
    rep->tolerance_ns = p->tolerance_ns;
    rep->budget_ns = p->budget_ns;
    rep->pm_qos_us = pm_held ? p->pm_qos_us : -1;
    rep->report_every_ns = p->report_every_ns;
    rep->report_every_samples = p->report_every_samples;
    rep->keep_windows = p->keep_windows;
    rep->workload = has_workload(p) ? &p->workload : NULL;
    rep->seed = p->seed;
    rep->deadline_ns = p->deadline_ns;
    rep->counters_mask = p->counters_mask;
    rep->control_task = control_task_columns(p);
    rep->loads = p->loads;
    rep->nloads = p->nloads;
    rep->ncpu = c->n;
    if (collector_periodic(c->cfg)) {
        rep->has_intervals = true;
        rep->intervals = collector_windows(c, &rep->interval_count, &rep->intervals_dropped);
    }
}

int cmd_run(int argc, char **argv)
{
    static struct run_params p; /* large (CPU lists); one per process */
    int rc = parse_args(argc, argv, &p);
    if (rc >= 0)
        return rc;
    /* From here on a stop request ends the run in order, also during the
     * setup (reading the machine, building a large workload). */
    stop_handlers_install();

    struct sysroot sr;
    sysroot_init(&sr, p.sysroot_dir);
    static struct system_info si;
    system_info_read(&sr, &si);
    rc = validate(&p, &si, &sr);
    if (rc >= 0)
        return rc;
    static struct inspect_system machine; /* the result's "system" object, read once tuned */
    bool have_machine = false;

    /* Everything below is released at `done`, in reverse order. */
    int pm_fd = -1;
    struct engine *eng = NULL;
    struct collector c;
    bool collector_ready = false;
    struct load_runner *loads = NULL;
    struct latency_hist *all_hist = NULL;
    bool tuned = false; /* a tune session is open: end it (restore) at `done` */
    char err[512];
    rc = EXIT_RUNTIME;

    int64_t tune_budget_ns = p.budget_ns > 0 ? p.budget_ns : 50 * NS_PER_US;
    if (p.tune_actions && (p.tune_actions & (1u << tune_action_find("pm-qos"))) && p.pm_qos_us < 0)
        p.pm_qos_us = tune_exit_latency_limit_ns(tune_budget_ns) / NS_PER_US;
    bool pm_held = false;
    if (p.pm_qos_us >= 0) {
        pm_fd = pm_qos_hold(&sr, (int32_t)p.pm_qos_us);
        pm_held = pm_fd >= 0;
        if (pm_fd < 0) {
            fprintf(stderr, "jitterlab: --pm-qos %lld: cannot hold /dev/cpu_dma_latency: %s\n",
                    (long long)p.pm_qos_us, strerror(-pm_fd));
            goto done;
        }
    }

    struct engine_config cfg = {
        .interval_ns = p.interval_ns,
        .duration_ns = p.duration_ns,
        .loops = p.loops,
        .policy = p.policy,
        .priority = p.priority,
        .cpus = &p.cpus,
        .clock = p.clock,
        .tolerance_ns = p.tolerance_ns,
        .us_hist_rows = p.hist_path ? (uint32_t)(p.hist_max_ns / NS_PER_US) : 0,
        .workload = &p.workload,
        .deadline_ns = p.deadline_ns,
        .counters_mask = p.counters_mask,
    };
    struct collector_config ccfg = {
        .interval_ns = p.interval_ns,
        .duration_ns = p.duration_ns,
        .loops = p.loops,
        .deadline_ns = p.deadline_ns,
        .tolerance_ns = p.tolerance_ns,
        .report_every_ns = p.report_every_ns,
        .report_every_samples = p.report_every_samples,
        .keep_windows = p.keep_windows,
        .quiet = p.quiet,
        .wide = p.wide,
        .control_task = control_task_columns(&p),
        .counters = p.counters_mask != 0,
        .samples_path = p.samples_path,
        .intervals_path = p.intervals_path,
    };
    pin_to_housekeeping(&p, &si);
    eng = engine_create(&cfg, err, sizeof(err));
    if (!eng) {
        fprintf(stderr, "jitterlab: %s\n", err);
        goto done;
    }
    collector_ready = true;
    if (collector_init(&c, &ccfg, eng, err, sizeof(err)) != 0) {
        fprintf(stderr, "jitterlab: %s\n", err);
        goto done;
    }
    all_hist = malloc(3 * sizeof(*all_hist)); /* latency, exec, response */
    if (!all_hist) {
        fprintf(stderr, "jitterlab: out of memory\n");
        goto done;
    }
    if (!p.quiet)
        print_header(&p, &si, pm_fd);

    struct run_report rep;
    memset(&rep, 0, sizeof(rep));
    rfc3339_now(rep.started_at, sizeof(rep.started_at));
    struct load_sched load_sched = {.policy = SCHED_OTHER, .nice = 0};
    if (p.nloads > 0) {
        loads = load_runner_start(p.loads, p.nloads, &load_sched, 0, err, sizeof(err));
        if (!loads) {
            fprintf(stderr, "jitterlab: --load: %s\n", err);
            goto done;
        }
    }
    static struct tune_session tune_ses;
    if (p.tune_actions) {
        struct tune_request tune_rq = {.sr = &sr,
                                       .targets = p.cpus,
                                       .budget_ns = tune_budget_ns,
                                       .boost = -1,
                                       .actions = p.tune_actions};
        if (tune_session_begin(&tune_ses, &tune_rq, p.tune_profile, tune_state_path(NULL),
                               TUNE_MODE_RUN, p.quiet ? NULL : stdout, stderr) != TUNE_OK)
            goto done;
        tuned = true;
    }
    /* what the run measures under: read once tuned */
    have_machine = p.json_path && inspect_system_read(&sr, &p.cpus, &machine) == 0;
    /* A stop during the setup (a large workload takes a while) ends the run
     * before its first cycle: an empty result, still written. */
    bool interrupted = stop_requested();
    if (!interrupted) {
        if (engine_start(eng, err, sizeof(err)) != 0) {
            fprintf(stderr, "jitterlab: %s\n", err);
            goto done;
        }
        warn_after_start(&p, eng);
        collector_run(&c, &interrupted);
        engine_join(eng);
    }
    int64_t end_ns = monotonic_now_ns();
    if (loads)
        load_runner_stop(loads);
    int tune_rc = EXIT_OK;
    if (tuned) {
        tuned = false;
        tune_rc = (int)tune_session_end(&tune_ses);
    }
    pm_qos_release(pm_fd);
    pm_fd = -1;
    collector_finish(&c, end_ns);
    if (stop_requested())
        interrupted = true;
    int sleep_cpu = -1;
    int sleep_err = engine_sleep_error(eng, &sleep_cpu);
    if (sleep_err)
        fprintf(stderr, "jitterlab: CPU %d: clock_nanosleep failed: %s; its measurement ended\n",
                sleep_cpu, strerror(sleep_err));

    const struct cpu_result *results[CPULIST_MAX_CPUS];
    for (int i = 0; i < c.n; i++)
        results[i] = engine_result(eng, i);
    rep.argc = argc;
    rep.argv = argv;
    rep.interrupted = interrupted;
    rep.system = &si;
    rep.machine = have_machine ? &machine : NULL;
    rep.tune = p.tune_actions ? &tune_ses.summary : NULL;
    rep.load_sched = &load_sched;
    rep.load_runner = loads;
    rep.cpu = results;
    rep.all_hist = &all_hist[0];
    rep.all_exec_hist = &all_hist[1];
    rep.all_response_hist = &all_hist[2];
    fill_report(&rep, &p, eng, &c, end_ns, pm_held);
    run_report_merge(&rep);

    if (!p.quiet)
        text_summary(stdout, &rep);
    rc = run_verdict(&p, &rep, write_outputs(&p, &c, &rep), tune_rc);
    if (rc == EXIT_OK && sleep_err)
        rc = EXIT_RUNTIME;
    if (interrupted && !p.quiet)
        fprintf(stderr, "jitterlab: interrupted; outputs hold every sample taken\n");
done:
    if (tuned)
        tune_session_end(&tune_ses);
    free(all_hist);
    load_runner_destroy(loads);
    if (collector_ready)
        collector_free(&c);
    engine_destroy(eng);
    pm_qos_release(pm_fd);
    if (have_machine)
        inspect_system_free(&machine);
    if (p.tune_actions)
        tune_session_free(&tune_ses);
    return rc;
}
