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
#include "common/stop.h"
#include "cmd/options.h"
#include "cmd/run_cli.h"
#include "cmd/run_deadline.h"
#include "cmd/run_export.h"
#include "cmd/run_result.h"
#include "cmd/run_sinks.h"
#include "cmd/run_tail.h"
#include "cmd/run_tail_watch.h"
#include "common/units.h"
#include "engine/counters.h"
#include "engine/collector.h"
#include "engine/engine.h"
#include "engine/workload.h"
#include "load/load.h"
#include "common/atomic_file.h"
#include "out/histfile.h"
#include "out/json_result.h"
#include "out/report.h"
#include "out/run_stream.h"
#include "out/text_report.h"
#include "sys/cpulist.h"
#include "sys/resctrl.h"
#include "inspect/inspect_system.h"
#include "sys/pm_qos.h"
#include "sys/system_info.h"
#include "telemetry/run_telemetry.h"
#include "telemetry/telemetry.h"
#include "trace/explain.h"
#include "tune/session.h"

/* Telemetry records the run can close at most: one per CPU and window. */
static uint64_t telemetry_windows_expected(const struct run_params *p, int64_t period_ns)
{
    if (p->duration_ns == 0 && p->loops == 0)
        return p->keep_windows; /* --forever */
    double run_ns =
        p->duration_ns > 0 ? (double)p->duration_ns : (double)p->loops * (double)p->interval_ns;
    if (p->loops && p->duration_ns > 0 && (double)p->loops * (double)p->interval_ns < run_ns)
        run_ns = (double)p->loops * (double)p->interval_ns;
    double per_cpu = run_ns / (double)period_ns + 3; /* the start, a late end, the last */
    double all = per_cpu * p->common.cpus.count;
    return all < (double)p->keep_windows ? (uint64_t)all : p->keep_windows;
}

/* Opens the telemetry of the measured CPUs; false after the message. */
/* telemetry_follow_thread_ends's view of the engine */
static int64_t thread_run_ns_at_end(void *eng, int i)
{
    return engine_thread_run_ns(eng, i);
}

static bool open_telemetry(const struct run_params *p, const struct system_info *si,
                           const struct sysroot *sr, struct telemetry **t, struct run_telemetry *rt)
{
    char err[256];
    struct telemetry_config tcfg = {.sr = sr,
                                    .cpus = &p->common.cpus,
                                    .quiet = !p->telemetry_all,
                                    .kernel_release = si->kernel,
                                    .measured_threads = true};
    *t = telemetry_open(&tcfg, err, sizeof(err));
    if (!*t ||
        run_telemetry_init(
            rt, *t, telemetry_windows_expected(p, run_telemetry_period_ns(p->report_every_ns)), err,
            sizeof(err)) != 0) {
        fprintf(stderr, "jitterlab: %s\n", err);
        return false;
    }
    return true;
}

static void print_header(const struct run_params *p, const struct system_info *si,
                         const struct sysroot *sr, int pm_fd, const struct telemetry *t,
                         const struct engine *eng)
{
    char cpus[1024], iv[32], dur[32], policy[96];
    cpulist_format(&p->common.cpus, cpus, sizeof(cpus));
    format_duration(p->interval_ns, iv, sizeof(iv));
    if (p->forever)
        snprintf(dur, sizeof(dur), "until stopped");
    else if (p->duration_ns > 0)
        format_duration(p->duration_ns, dur, sizeof(dur));
    else
        snprintf(dur, sizeof(dur), "%llu loops", (unsigned long long)p->loops);
    /* the policy the threads get, known since engine_create */
    if (p->policy == SCHED_DEADLINE)
        run_deadline_text(&p->reservation, policy, sizeof(policy));
    else
        run_policy_text(p->policy, p->priority, engine_degraded(eng), policy, sizeof(policy));
    printf("jitterlab run: CPU %s, interval %s, %s, %s, clock %s\n", cpus, iv, policy, dur,
           p->clock == ENGINE_CLOCK_TSC ? "tsc" : "monotonic");
    if (run_has_deadline(p)) {
        char dl[32];
        format_duration(p->deadline_ns, dl, sizeof(dl));
        if (has_workload(p))
            printf("workload %s, deadline %s\n", p->workload.text, dl);
        else
            printf("no workload, deadline %s (on the latency alone)\n", dl);
    }
    char preempt[64];
    system_info_preempt_label(si, preempt, sizeof preempt);
    printf("kernel %s (%s), clocksource %s%s%s\n", si->kernel[0] ? si->kernel : "?", preempt,
           si->clocksource[0] ? si->clocksource : "?", si->hypervisor[0] ? ", hypervisor " : "",
           si->hypervisor);
    char hold[320];
    if (pm_fd >= 0) {
        pm_qos_hold_describe(sr, p->pm_qos_us, " for the run", hold, sizeof hold);
        printf("PM QoS: %s\n", hold);
    } else if (si->cpu_dma_latency_us < 0)
        printf("PM QoS: /dev/cpu_dma_latency unreadable (needs root)\n");
    else if (si->cpu_dma_latency_us == PM_QOS_NO_REQUEST_US)
        printf("PM QoS: no CPU latency request in force (use --pm-qos DUR to hold one)\n");
    else
        printf("PM QoS: CPU latency request in force: %lld µs\n",
               (long long)si->cpu_dma_latency_us);
    if (t) {
        char every[32], absent[512] = "";
        size_t used = 0;
        format_duration(run_telemetry_period_ns(p->report_every_ns), every, sizeof(every));
        for (int f = 0; f < TELEMETRY_FIGURES; f++)
            if (!telemetry_source(t, (enum telemetry_figure)f)->name && used < sizeof(absent))
                used += (size_t)snprintf(absent + used, sizeof(absent) - used, "%s%s",
                                         used ? ", " : "", telemetry_figure_key[f]);
        printf("telemetry every %s (%s sources)%s%s\n", every, p->telemetry_all ? "all" : "quiet",
               absent[0] ? "; absent: " : "", absent);
    }
    fflush(stdout);
}

/* The warnings a run owes its reader once the threads run. */
/* A cache-thrashing load beside CPUs that share every L3 way with it, on a
 * machine that could partition them: what inspect reports as
 * cache-not-partitioned, a warning here because the load is in the plan. */
static void warn_unpartitioned_cache(const struct run_params *p, const struct sysroot *sr)
{
    const char *load = NULL;
    for (int i = 0; i < p->nloads && !load; i++)
        if (strstr(p->load_text[i], "cache") || strstr(p->load_text[i], "memory"))
            load = p->load_text[i];
    int cp = tune_action_find("cache-partition");
    if (!load || (cp >= 0 && (p->tune_actions & (1u << cp))))
        return;
    struct resctrl_info *r = malloc(sizeof *r);
    static struct read_notes ignored;
    if (!r)
        return;
    resctrl_read(sr, r, &ignored);
    if (!r->why_unsupported[0] && !resctrl_group_of(r, &p->common.cpus))
        fprintf(stderr,
                "jitterlab: warning: --load %s thrashes the last-level cache that the measured "
                "CPUs share with it in every way (cache-not-partitioned); give them ways of "
                "their own with --tune=cache-partition\n",
                load);
    free(r);
}

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
    if (p->common.quiet)
        return;
    if (engine_memory_lock(eng) == ENGINE_LOCK_BUFFERS)
        fprintf(stderr, "jitterlab: warning: only the measurement buffers are locked in memory "
                        "(no CAP_IPC_LOCK); page faults elsewhere may add latency\n");
    else if (engine_memory_lock(eng) == ENGINE_LOCK_NONE)
        fprintf(stderr, "jitterlab: warning: memory not locked (needs root, CAP_IPC_LOCK or a "
                        "RLIMIT_MEMLOCK that fits the buffers); page faults may add latency\n");
}

/* The run; typed is argv as it was typed, before parsing reordered argv. */
static int run_main(int argc, char **argv, char **typed);

int cmd_run(int argc, char **argv)
{
    /* the command line as typed, for the document (cli_argv_copy), as in
     * jitterlab load */
    char **typed = cli_argv_copy(argc, argv);
    int rc = run_main(argc, argv, typed ? typed : argv);
    free(typed);
    return rc;
}

static int run_main(int argc, char **argv, char **typed)
{
    static struct run_params p; /* large (CPU lists); one per process */
    int rc = run_parse_args(argc, argv, &p);
    if (rc >= 0)
        return rc;
    /* From here on a stop request ends the run in order, also during the
     * setup (reading the machine, building a large workload). */
    stop_handlers_install();
    if (p.forever)
        stop_hup_reopens(); /* a daemon's SIGHUP: reopen the logs */

    struct sysroot sr;
    sysroot_init(&sr, p.common.sysroot_dir);
    static struct system_info si;
    system_info_read(&sr, &si);
    rc = run_validate(&p, &si, &sr);
    if (rc >= 0)
        return rc;
    if (!p.common.quiet)
        run_cyclictest_notes(&p, stderr);
    char workload_warning[256];
    if (!p.common.quiet && run_workload_warning(&p, workload_warning, sizeof workload_warning))
        fprintf(stderr, "jitterlab: %s\n", workload_warning);
    if (!p.common.quiet)
        warn_unpartitioned_cache(&p, &sr);
    static struct inspect_system machine; /* the result's "system" object, read once tuned */
    bool have_machine = false;

    /* Everything below is released at `done`, in reverse order. */
    int pm_fd = -1;
    struct engine *eng = NULL;
    struct collector c = {0};
    struct run_stream rs = {0};
    static struct explain explain;
    static struct run_sinks sinks_all;
    struct telemetry *tele = NULL;
    static struct run_telemetry rtele;
    bool telemetry_on = false; /* rtele is initialised */
    bool explaining = false;   /* explain is open (with or without tracepoints) */
    const char *explain_reason = NULL;
    static char explain_err[512];
    struct load_runner *loads = NULL;
    struct latency_hist *all_hist = NULL;
    static struct run_export exp;
    bool exporting = false;
    static struct run_state st;
    static struct run_tail tail;
    static struct tail_watch watch; /* --until-confident, --tail --prometheus */
    bool tuned = false;             /* a tune session is open: end it (restore) at `done` */
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
        .reservation = p.reservation,
        .cpus = &p.common.cpus,
        .clock = p.clock,
        .tolerance_ns = p.tolerance_ns,
        .us_hist_rows = p.hist_path ? (uint32_t)(p.hist_max_ns / NS_PER_US) : 0,
        .workload = &p.workload,
        .deadline_ns = p.deadline_ns,
        .counters_mask = p.counters_mask,
        .wake = p.wake.mech,
        .waker_cpu = p.wake.waker_cpu,
        .waker_priority = p.wake.waker_priority,
    };
    struct collector_config ccfg = {
        .report_every_ns = p.report_every_ns,
        .report_every_samples = p.report_every_samples,
        .keep_windows = p.keep_windows,
        .control_task = control_task_columns(&p),
        .deadline = run_has_deadline(&p),
    };
    struct run_stream_config scfg = {
        .quiet = p.common.quiet,
        .wide = p.wide,
        .periodic = collector_periodic(&ccfg),
        .control_task = control_task_columns(&p),
        .deadline = run_has_deadline(&p),
        .counters = p.counters_mask != 0,
        .interval_ns = p.interval_ns,
        .tolerance_ns = p.tolerance_ns,
        .samples_path = p.samples_path,
        .intervals_path = p.intervals_path,
        .append = p.forever,
    };
    cli_pin_to_housekeeping(&p.common.cpus, &si, p.common.quiet);
    eng = engine_create(&cfg, err, sizeof(err));
    if (!eng) {
        fprintf(stderr, "jitterlab: %s\n", err);
        goto done;
    }
    if (p.explain) {
        struct explain_config xcfg = {.cpus = &p.common.cpus,
                                      .interval_ns = p.interval_ns,
                                      .threshold_ns = p.explain_threshold_ns,
                                      .keep = p.explain_keep,
                                      .poll_period_ns = COLLECTOR_PERIOD_NS};
        explain_platform_read(&sr, &si, &p.common.cpus, &xcfg.platform);
        int xrc = explain_open(&explain, &xcfg, explain_err, sizeof(explain_err));
        if (xrc < 0) {
            fprintf(stderr, "jitterlab: --explain: %s\n", explain_err);
            goto done;
        }
        explaining = true;
        if (xrc > 0) {
            explain_reason = explain_err;
            fprintf(stderr, "jitterlab: --explain: tracepoints unavailable (%s); %s\n", explain_err,
                    p.telemetry ? "attributing per telemetry window"
                                : "with --no-telemetry there are no windows to attribute spikes "
                                  "to: they are only counted");
        }
    }
    for (int i = 0; i < p.common.cpus.count; i++)
        sinks_all.index_of_cpu[p.common.cpus.cpu[i]] = i;
    if (p.telemetry) {
        if (!open_telemetry(&p, &si, &sr, &tele, &rtele))
            goto done;
        telemetry_on = true;
        rtele.on_window = run_sink_telemetry_window;
        rtele.on_window_ctx = &sinks_all;
    }
    /* the exporter's thread starts here, on the housekeeping CPUs */
    if (run_export_open(&exp, &p, &si) != 0)
        goto done;
    exporting = true;
    sinks_all.exp = &exp;
    sinks_all.st = &st;
    if (tail_watch_wanted(&p)) {
        const char *opt = p.until_confident_text ? "--until-confident" : "--tail";
        if (tail_watch_open(&watch, &p, p.common.cpus.cpu, p.common.cpus.count,
                            exp.metrics_on ? &exp.metrics : NULL, err, sizeof err) != 0) {
            fprintf(stderr, "jitterlab: %s%s%s: %s\n", opt, p.until_confident_text ? " " : "",
                    p.until_confident_text ? p.until_confident_text : "", err);
            goto done;
        }
        sinks_all.watch = &watch;
        sinks_all.watch_report_windows = p.report_every_ns > 0 || p.report_every_samples > 0;
    }
    st = (struct run_state){
        .p = &p, .argc = argc, .argv = typed, .si = &si, .c = &c, .rs = &rs, .exp = &exp};
    struct collector_sinks sinks;
    if (run_stream_open(&rs, &scfg, err, sizeof(err)) != 0 ||
        (sinks_all.stream = run_stream_sinks(&rs), sinks_all.explain = explaining ? &explain : NULL,
         sinks_all.telemetry = telemetry_on ? &rtele : NULL,
         sinks = run_sinks_of(&sinks_all, run_telemetry_period_ns(p.report_every_ns)),
         collector_init(&c, &ccfg, &sinks, eng, err, sizeof(err))) != 0) {
        fprintf(stderr, "jitterlab: %s\n", err);
        goto done;
    }
    all_hist = malloc(3 * sizeof(*all_hist)); /* latency, exec, response */
    if (!all_hist) {
        fprintf(stderr, "jitterlab: out of memory\n");
        goto done;
    }
    if (!p.common.quiet)
        print_header(&p, &si, &sr, pm_fd, tele, eng);

    struct run_report rep;
    rfc3339_now(st.started_at, sizeof(st.started_at));
    struct load_sched load_sched = {.policy = SCHED_OTHER, .nice = 0};
    if (p.nloads > 0) {
        loads = load_runner_start(p.loads, p.nloads, &load_sched, 0, err, sizeof(err));
        if (!loads) {
            fprintf(stderr, "jitterlab: --load: %s\n", err);
            goto done;
        }
        int failed_load;
        if (load_runner_check_start(loads, &failed_load, err, sizeof(err)) != 0) {
            fprintf(stderr, "jitterlab: --load %s: %s\n", p.loads[failed_load].text, err);
            rc = EXIT_USAGE;
            goto done;
        }
    }
    static struct tune_session tune_ses;
    if (p.tune_actions) {
        struct tune_request tune_rq = {.sr = &sr,
                                       .targets = p.common.cpus,
                                       .budget_ns = tune_budget_ns,
                                       .boost = -1,
                                       .actions = p.tune_actions};
        /* cache-partition gives a ptrchase working set the ways it fills */
        if (p.workload.kind == WORKLOAD_PTRCHASE)
            tune_rq.cache_working_set_size = p.workload.size_bytes;
        enum tune_outcome began =
            tune_session_begin(&tune_ses, &tune_rq, p.tune_profile, tune_state_path(NULL),
                               TUNE_MODE_RUN, p.common.quiet ? NULL : stdout, stderr);
        if (began != TUNE_OK) {
            if (began == TUNE_REFUSED)
                rc = EXIT_USAGE; /* a refused plan: said on stderr, nothing changed */
            goto done;
        }
        tuned = true;
    }
    /* what the run measures under: read once tuned */
    have_machine = p.common.json_path && inspect_system_read(&sr, &p.common.cpus, &machine) == 0;
    st.machine = have_machine ? &machine : NULL;
    st.eng = eng;
    st.tele = tele;
    st.rtele = telemetry_on ? &rtele : NULL;
    st.explain = explaining ? &explain : NULL;
    st.explain_reason = explain_reason;
    st.tune = p.tune_actions ? &tune_ses.summary : NULL;
    st.load_sched = &load_sched;
    st.loads = loads;
    st.all_hist = all_hist;
    st.pm_held = pm_held;
    /* A stop during the setup (a large workload takes a while) ends the run
     * before its first cycle: an empty result, still written. */
    bool interrupted = stop_requested();
    if (!interrupted) {
        if (engine_start(eng, err, sizeof(err)) != 0) {
            int refused_cpu = -1;
            int refused = engine_refused(eng, &refused_cpu);
            if (refused) { /* the reservation asked for: bad input, nothing written */
                run_deadline_refusal(&p, &sr, refused, refused_cpu, err, sizeof(err));
                fprintf(stderr, "jitterlab: --policy deadline: %s\n", err);
                rc = EXIT_USAGE;
            } else {
                fprintf(stderr, "jitterlab: %s\n", err);
            }
            goto done;
        }
        warn_after_start(&p, eng);
        if (telemetry_on) {
            int tids[CPULIST_MAX_CPUS];
            for (int i = 0; i < engine_cpu_count(eng); i++)
                tids[i] = engine_thread_tid(eng, i);
            telemetry_set_threads(tele, tids);
            telemetry_follow_thread_ends(tele, thread_run_ns_at_end, eng);
            run_telemetry_start(&rtele);
        }
        if (explaining) {
            int tids[CPULIST_MAX_CPUS];
            for (int i = 0; i < engine_cpu_count(eng); i++)
                tids[i] = engine_thread_tid(eng, i);
            explain_start(&explain, engine_start_ns(eng), tids);
        }
        run_export_started(&exp, eng, explaining ? &explain : NULL);
        if (sinks_all.watch && tail_watch_start(&watch, engine_start_ns(eng), err, sizeof err) != 0)
            fprintf(stderr, "jitterlab: %s; the tail is analysed at the end only\n", err);
        st.running = true;
        collector_run(&c, &interrupted);
        engine_join(eng);
    }
    tail_watch_stop(&watch); /* a check under way ends first */
    int64_t end_ns = monotonic_now_ns();
    /* The last telemetry snapshot, before loads stop and tuning is undone. */
    bool ran = engine_start_ns(eng) > 0;
    if (telemetry_on && ran)
        run_telemetry_tick(&rtele, end_ns - engine_start_ns(eng));
    if (loads) {
        load_runner_stop(loads);
        for (int i = 0; i < p.nloads; i++)
            if (load_runner_failure_summary(loads, i, err, sizeof(err)))
                fprintf(stderr, "jitterlab: load %s: %s\n", p.loads[i].text, err);
    }
    int tune_rc = EXIT_OK;
    if (tuned) {
        tuned = false;
        tune_rc = (int)tune_session_end(&tune_ses);
    }
    pm_qos_release(pm_fd);
    pm_fd = -1;
    collector_finish(&c, end_ns);
    if (explaining)
        explain_finish(&explain);
    if (telemetry_on && ran) {
        uint64_t missed[CPULIST_MAX_CPUS];
        for (int i = 0; i < c.n; i++)
            missed[i] = engine_result(eng, i)->missed;
        run_telemetry_finish(&rtele, missed);
    }
    run_stream_end_live(&rs);
    if (stop_signalled())
        interrupted = true;
    int sleep_cpu = -1;
    int sleep_err = engine_sleep_error(eng, &sleep_cpu);
    if (sleep_err)
        fprintf(stderr, "jitterlab: CPU %d: clock_nanosleep failed: %s; its measurement ended\n",
                sleep_cpu, strerror(sleep_err));

    const struct cpu_result *results[CPULIST_MAX_CPUS];
    for (int i = 0; i < c.n; i++)
        results[i] = engine_result(eng, i);
    st.running = ran;
    run_result_fill(&st, &rep, results, end_ns, interrupted, false);
    exporting = false;
    run_export_close(&exp);
    rep.influx = p.influx_text ? &exp.influx_counts : NULL;
    rep.influx_dest = p.influx.shown;
    if (rep.influx && rep.influx->dropped)
        fprintf(stderr, "jitterlab: --influx %s: %llu of %llu points not delivered (last: %s)\n",
                p.influx.shown, (unsigned long long)rep.influx->dropped,
                (unsigned long long)rep.influx->points, rep.influx->last_error);

    const struct run_tail_confidence *confidence =
        p.confident_probability > 0
            ? tail_watch_outcome(&watch, stop_signalled(), p.duration_ns > 0 ? "-D" : "-l")
            : NULL;
    /* --tail with --samples fits the exact sequence: the samples file is
     * committed first and read back (run_tail.c). */
    int samples_rc = EXIT_OK;
    const char *commit_opt = NULL, *commit_path = NULL;
    if (p.tail && p.samples_path && run_stream_commit(&rs, &commit_opt, &commit_path) != 0) {
        fprintf(stderr, "jitterlab: %s %s: %s\n", commit_opt, commit_path, strerror(errno));
        samples_rc = EXIT_RUNTIME;
    }
    if (p.tail && run_tail_analyse(&p, &rep, confidence, &tail, err, sizeof err) != 0)
        fprintf(stderr, "jitterlab: %s; the result goes without it\n", err);
    if (!p.common.quiet) {
        text_summary(stdout, &rep);
        run_deadline_summary(stdout, &p, &rep);
    }
    int out_rc = run_result_write(&p, &rs, &rep);
    rc = run_result_verdict(&p, &rep, samples_rc != EXIT_OK ? samples_rc : out_rc, tune_rc);
    if (rc == EXIT_OK && sleep_err)
        rc = EXIT_RUNTIME;
    if (interrupted && !p.common.quiet)
        fprintf(stderr, "jitterlab: interrupted; outputs hold every sample taken\n");
done:
    if (tuned)
        tune_session_end(&tune_ses);
    if (exporting)
        run_export_close(&exp);
    run_tail_free(&tail);
    tail_watch_free(&watch);
    free(all_hist);
    load_runner_destroy(loads);
    collector_free(&c);
    if (explaining)
        explain_free(&explain);
    if (telemetry_on)
        run_telemetry_free(&rtele);
    telemetry_close(tele);
    run_stream_close(&rs);
    engine_destroy(eng);
    pm_qos_release(pm_fd);
    if (have_machine)
        inspect_system_free(&machine);
    if (p.tune_actions)
        tune_session_free(&tune_ses);
    return rc;
}
