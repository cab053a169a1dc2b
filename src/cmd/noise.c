/*
 * `jitterlab noise`: parses and checks the options (noise_cli.c), chooses
 * the CPUs and the clock, pins itself (the collector) to a housekeeping
 * CPU, opens the tracepoints (trace/explain.h in its busy mode) unless
 * --no-trace or not permitted, and the quiet telemetry (for steal, SMIs and
 * the window method), runs the measurement (noise/noise.h) while printing
 * one line per CPU and report window, then writes the summary, --json and
 * --histogram-file. SIGINT/SIGTERM/SIGHUP end the measurement early; what
 * was measured is still reported and written, marked interrupted.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/noise_cli.h"
#include "cmd/options.h"
#include "common/clock.h"
#include "common/stop.h"
#include "common/units.h"
#include "noise/noise.h"
#include "noise/noise_causes.h"
#include "out/histfile.h"
#include "out/json_noise.h"
#include "out/json_result.h"
#include "out/text_noise.h"
#include "out/text_report.h"
#include "telemetry/run_telemetry.h"
#include "telemetry/telemetry.h"
#include "trace/explain.h"
#include "trace/window_explain.h"

#define NOISE_TELEMETRY_KEEP 3600 /* telemetry windows kept, all CPUs together, as run */
#define KIND_QUEUE           4096 /* > the spikes explain keeps pending per CPU */
#define LIVE_PERIOD_NS       (250 * NS_PER_MS)

/* Everything the collector's sinks need. */
struct noise_ctx {
    const struct noise_params *p;
    int n;
    struct explain *x; /* NULL: --no-trace */
    bool traced;       /* x has its tracepoints */
    struct run_telemetry *rt;
    int64_t next_tick_ns;
    struct noise_causes *causes;     /* per CPU index: the gaps */
    struct noise_causes *off_causes; /* per CPU index: the sleeps between slices */
    /* per CPU index, what each record handed to explain is, in order: the
     * attributed callback takes them back one by one */
    struct kind_queue {
        uint8_t off[KIND_QUEUE];
        uint32_t head, tail;
    } * queue;
    const struct noise_config *cfg;
    int64_t start_ns; /* CLOCK_MONOTONIC of the run's start */
    /* per CPU index, over every telemetry window */
    struct telemetry_sum {
        double steal_pct_ns, steal_ns; /* steal % x window length; the windows' length */
        int64_t smi;
        bool smi_known;
    } * tele_sum;
    /* the terminal view (stdout a terminal, not quiet) */
    struct noise_live_cpu *live;
    int live_lines;
    int64_t live_drawn_ns;
};

static void on_started(void *arg, int64_t start_ns, const int *tids)
{
    struct noise_ctx *c = arg;
    c->start_ns = start_ns;
    if (c->x)
        explain_start(c->x, start_ns, tids);
    if (c->rt)
        run_telemetry_start(c->rt);
}

static void on_gap(void *arg, int i, const struct cycle_sample *g)
{
    struct noise_ctx *c = arg;
    bool off = g->missed == NOISE_OFF;
    if (c->traced) {
        struct kind_queue *q = &c->queue[i];
        if (q->head - q->tail < KIND_QUEUE && explain_sample(c->x, c->cfg->cpus[i], g))
            q->off[q->head++ % KIND_QUEUE] = off;
    } else if (!off) {
        /* CLOCK_MONOTONIC, as the attributed gaps have them */
        struct spike s = {.cpu = c->cfg->cpus[i],
                          .planned_ns = c->start_ns + g->t_ns - g->latency_ns,
                          .wake_ns = c->start_ns + g->t_ns,
                          .latency_ns = g->latency_ns};
        noise_largest_add(&c->causes[i], &s);
    }
    if (c->rt && !off)
        run_telemetry_sample(c->rt, i, g, true);
    if (c->live && !off) {
        c->live[i].gaps++;
        c->live[i].noise_ns += g->latency_ns;
        if (g->latency_ns > c->live[i].max_ns)
            c->live[i].max_ns = g->latency_ns;
    }
}

static void on_attributed(void *arg, int i, const struct spike *s)
{
    struct noise_ctx *c = arg;
    struct kind_queue *q = &c->queue[i];
    bool off = q->tail != q->head && q->off[q->tail++ % KIND_QUEUE];
    noise_causes_add(off ? &c->off_causes[i] : &c->causes[i], s);
}

static void on_window(void *arg, int i, const struct noise_window *w)
{
    struct noise_ctx *c = arg;
    if (c->live) {
        c->live[i].last_window_pct =
            w->measured_ns > 0 ? 100.0 * (double)w->noise_ns / (double)w->measured_ns : 0;
    } else if (!c->p->common.quiet) {
        text_noise_window(stdout, w);
        fflush(stdout);
    }
}

static void on_drained(void *arg, int64_t now_ns)
{
    struct noise_ctx *c = arg;
    if (c->traced)
        explain_drained(c->x);
    if (c->live && now_ns - c->live_drawn_ns >= LIVE_PERIOD_NS) {
        const struct noise_config *g = c->cfg;
        int64_t spun = noise_slices_overlap(0, now_ns, g->runtime_ns, g->period_ns, g->duration_ns);
        c->live_lines =
            text_noise_live(stdout, c->live, c->n, now_ns, spun, g->duration_ns, c->live_lines);
        c->live_drawn_ns = now_ns;
    }
    if (!c->rt)
        return;
    run_telemetry_poll(c->rt);
    if (now_ns >= c->next_tick_ns && now_ns < c->cfg->duration_ns) {
        run_telemetry_tick(c->rt, now_ns);
        c->next_tick_ns += c->cfg->window_ns;
    }
}

/* Outputs before anything runs: exit 2 for a path that cannot be written. */
static int check_outputs(const struct noise_params *p)
{
    int rc;
    if ((rc = check_output_path("--json", p->common.json_path)) != 0 ||
        (rc = check_output_path("--histogram-file", p->hist_path)) != 0)
        return rc;
    const struct cli_output outputs[] = {
        {"--json", p->common.json_path},
        {"--histogram-file", p->hist_path},
    };
    return check_distinct_outputs(outputs, 2);
}

/* Each closed telemetry window of CPU index i: its steal and SMIs into
 * the run's totals (all windows, not only the kept ones). */
static void on_telemetry_window(void *arg, int i, const struct telemetry_window *w)
{
    struct noise_ctx *c = arg;
    struct telemetry_sum *t = &c->tele_sum[i];
    if (!isnan(w->fig.steal_pct)) {
        t->steal_pct_ns += w->fig.steal_pct * (double)w->duration_ns;
        t->steal_ns += (double)w->duration_ns;
    }
    if (w->fig.smi >= 0) {
        t->smi_known = true;
        t->smi += w->fig.smi;
    }
}

static int write_histfile(const struct noise_report *rep, const char *path)
{
    struct histfile_column col[CPULIST_MAX_CPUS];
    for (int i = 0; i < rep->n; i++) {
        const struct noise_slot *s = rep->cpu[i].slot;
        col[i] = (struct histfile_column){.cpu = s->cpu,
                                          .count = s->gaps,
                                          .min_ns = s->stats.min,
                                          .mean_ns = s->stats.mean,
                                          .max_ns = s->stats.max,
                                          .us_hist = s->us_hist,
                                          .us_overflow = s->us_overflow,
                                          .overflow_at = s->overflow_at};
    }
    return histfile_write_columns(col, rep->n, rep->cfg->us_rows, -1, path);
}

/* The per-CPU parts of the report and every CPU together. */
static void fill_report(struct noise_report *rep, struct noise *nz, struct noise_ctx *ctx)
{
    rep->all_floor_ns = INT64_MAX;
    running_stats_init(&rep->all_stats);
    latency_hist_init(rep->all_hist);
    for (int i = 0; i < rep->n; i++) {
        struct noise_report_cpu *c = &rep->cpu[i];
        const struct noise_slot *s = noise_slot(nz, i);
        c->slot = s;
        c->win = noise_windows(nz, i, &c->nwin, &c->win_dropped);
        c->ncauses = noise_causes_sorted(&ctx->causes[i], c->causes);
        c->noff_causes = noise_causes_sorted(&ctx->off_causes[i], c->off_causes);
        c->off_causes_ns = ctx->off_causes[i].total_ns;
        c->causes_ns = ctx->causes[i].total_ns;
        c->attributed = ctx->causes[i].attributed;
        c->largest = noise_largest_sorted(&ctx->causes[i], &c->nlargest);
        c->ring_drops = noise_ring_drops(nz, i);
        const struct telemetry_sum *t = &ctx->tele_sum[i];
        c->steal_pct = t->steal_ns > 0 ? t->steal_pct_ns / t->steal_ns : NAN;
        c->smi = t->smi_known ? t->smi : -1;
        rep->all_noise_ns += s->noise_ns;
        rep->all_measured_ns += s->measured_ns;
        rep->all_gaps += s->gaps;
        if (s->iterations && s->floor_ns < rep->all_floor_ns)
            rep->all_floor_ns = s->floor_ns;
        running_stats_merge(&rep->all_stats, &s->stats);
        latency_hist_merge(rep->all_hist, &s->hist);
    }
}

int cmd_noise(int argc, char **argv)
{
    char **argv_typed = cli_argv_copy(argc, argv);
    static struct noise_params p;
    int rc = noise_parse_args(argc, argv, &p);
    if (rc >= 0) {
        free(argv_typed);
        return rc;
    }
    struct sysroot sr;
    sysroot_init(&sr, p.common.sysroot_dir);
    static struct system_info si;
    system_info_read(&sr, &si);
    if ((rc = cli_choose_cpus(&p.common, &si)) != 0 || (rc = check_outputs(&p)) != 0) {
        free(argv_typed);
        return rc;
    }
    stop_handlers_install();
    cli_pin_to_housekeeping(&p.common.cpus, &si, p.common.quiet);

    char started_at[40], err[512];
    rfc3339_now(started_at, sizeof started_at);
    struct timebase tb;
    timebase_init(&tb, si.tsc_invariant);
    const int n = p.common.cpus.count;
    struct noise_config cfg = {.cpus = p.common.cpus.cpu,
                               .n = n,
                               .fifo = p.sched.fifo,
                               .priority = p.sched.priority,
                               .duration_ns = p.duration_ns,
                               .threshold_ns = p.threshold_ns,
                               .runtime_ns = p.sched.fifo ? p.runtime_ns : p.duration_ns,
                               .period_ns = p.sched.fifo ? p.period_ns : p.duration_ns,
                               .window_ns = p.report_every_ns,
                               .us_rows = p.hist_path ? (uint32_t)(p.hist_max_ns / NS_PER_US) : 0,
                               .tb = &tb};
    rc = EXIT_RUNTIME;
    static struct explain explain;
    static struct run_telemetry rtele;
    static struct window_explanation wx;
    struct telemetry *tele = NULL;
    struct noise *nz = NULL;
    struct noise_causes *causes = calloc((size_t)n, sizeof *causes);
    struct noise_causes *off_causes = calloc((size_t)n, sizeof *off_causes);
    struct kind_queue *queue = calloc((size_t)n, sizeof *queue);
    struct telemetry_sum *tele_sum = calloc((size_t)n, sizeof *tele_sum);
    struct noise_report_cpu *rcpu = calloc((size_t)n, sizeof *rcpu);
    struct latency_hist *all_hist = malloc(sizeof *all_hist);
    bool tty = !p.common.quiet && isatty(STDOUT_FILENO);
    struct noise_live_cpu *live = tty ? calloc((size_t)n, sizeof *live) : NULL;
    for (int i = 0; live && i < n; i++)
        live[i] = (struct noise_live_cpu){.cpu = p.common.cpus.cpu[i], .last_window_pct = NAN};
    struct noise_ctx ctx = {.p = &p,
                            .n = n,
                            .causes = causes,
                            .off_causes = off_causes,
                            .queue = queue,
                            .cfg = &cfg,
                            .live = live,
                            .tele_sum = tele_sum};
    const char *method = "window", *reason = NULL;
    bool explain_open_ok = false, telemetry_ok = false;
    if (!causes || !off_causes || !queue || !tele_sum || !rcpu || !all_hist || (tty && !live)) {
        fprintf(stderr, "jitterlab: noise: out of memory\n");
        goto done;
    }
    for (int i = 0; i < n; i++)
        if (noise_causes_init(&causes[i], (size_t)p.largest) != 0 ||
            noise_causes_init(&off_causes[i], 0) != 0) {
            fprintf(stderr, "jitterlab: noise: out of memory\n");
            goto done;
        }
    if (!p.no_trace) {
        struct explain_config xcfg = {.cpus = &p.common.cpus,
                                      .interval_ns = 100 * NS_PER_US,
                                      .threshold_ns = p.threshold_ns,
                                      .keep = 0,
                                      .poll_period_ns = NOISE_POLL_NS,
                                      .busy = true,
                                      .attributed = on_attributed,
                                      .attributed_arg = &ctx};
        static char xerr[512];
        int xrc = explain_open(&explain, &xcfg, xerr, sizeof xerr);
        if (xrc < 0) {
            fprintf(stderr, "jitterlab: noise: %s\n", xerr);
            goto done;
        }
        if (xrc == 0) {
            explain_open_ok = true;
            ctx.x = &explain;
            ctx.traced = true;
            method = "tracepoints";
        } else {
            explain_free(&explain);
            reason = xerr;
            if (!p.common.quiet)
                fprintf(stderr,
                        "jitterlab: noise: tracepoints unavailable (%s); causes per report "
                        "window instead\n",
                        xerr);
        }
    } else {
        reason = "--no-trace";
    }
    struct telemetry_config tcfg = {
        .sr = &sr, .cpus = &p.common.cpus, .quiet = true, .kernel_release = si.kernel};
    tele = telemetry_open(&tcfg, err, sizeof err);
    uint64_t keep = (uint64_t)(p.duration_ns / p.report_every_ns + 2) * (uint64_t)n;
    if (keep > NOISE_TELEMETRY_KEEP)
        keep = NOISE_TELEMETRY_KEEP; /* the newest: the window method's baseline */
    if (!tele || run_telemetry_init(&rtele, tele, keep, err, sizeof err) != 0) {
        fprintf(stderr, "jitterlab: noise: %s\n", err);
        goto done;
    }
    telemetry_ok = true;
    rtele.on_window = on_telemetry_window;
    rtele.on_window_ctx = &ctx;
    ctx.rt = &rtele;
    ctx.next_tick_ns = p.report_every_ns;
    if (noise_create(&cfg, &nz, err, sizeof err) != 0) {
        fprintf(stderr, "jitterlab: noise: %s\n", err);
        goto done;
    }
    if (!p.common.quiet) {
        text_noise_header(stdout, &cfg, &tb, method, reason);
        fflush(stdout);
    }
    const struct noise_sinks sinks = {.arg = &ctx,
                                      .started = on_started,
                                      .gap = on_gap,
                                      .window = on_window,
                                      .drained = on_drained};
    if (noise_run(nz, &sinks, err, sizeof err) != 0) {
        fprintf(stderr, "jitterlab: noise: %s\n", err);
        goto done;
    }
    if (ctx.live)
        live_view_clear(stdout, ctx.live_lines);
    int64_t elapsed = noise_elapsed_ns(nz);
    run_telemetry_tick(&rtele, elapsed);
    if (ctx.traced)
        explain_finish(&explain);
    uint64_t missed[CPULIST_MAX_CPUS] = {0};
    run_telemetry_finish(&rtele, missed);
    uint64_t ntw = 0, tdropped = 0;
    const struct telemetry_window *tw = run_telemetry_windows(&rtele, &ntw, &tdropped);
    if (!ctx.traced && window_explain(tw, ntw, telemetry_softirq_names(tele),
                                      telemetry_softirq_count(tele), &wx) != 0)
        fprintf(stderr, "jitterlab: noise: out of memory for the window attribution\n");

    struct noise_report rep = {.version = JITTERLAB_VERSION,
                               .argc = argc,
                               .argv = argv_typed ? argv_typed : argv,
                               .started_at = started_at,
                               .system = &si,
                               .cfg = &cfg,
                               .tb = &tb,
                               .realtime = noise_realtime(nz),
                               .interrupted = noise_interrupted(nz),
                               .start_ns = noise_start_ns(nz),
                               .elapsed_ns = elapsed,
                               .largest_per_cpu = p.largest,
                               .n = n,
                               .cpu = rcpu,
                               .all_hist = all_hist,
                               .method = method,
                               .method_reason = reason,
                               .events = ctx.traced ? explain.events : 0,
                               .events_lost = ctx.traced ? explain.events_lost : 0,
                               .windows = ctx.traced ? NULL : &wx,
                               .per_cpu = p.per_cpu};
    fill_report(&rep, nz, &ctx);
    for (int i = 0; i < n; i++)
        if (rcpu[i].ring_drops && !p.common.quiet)
            fprintf(stderr,
                    "jitterlab: noise: CPU %d: %llu of %llu gaps not seen by the collector (its "
                    "ring was full): the windows, causes and longest gaps miss them, the totals "
                    "and percentiles do not%s\n",
                    rcpu[i].slot->cpu, (unsigned long long)rcpu[i].ring_drops,
                    (unsigned long long)rcpu[i].slot->gaps,
                    rcpu[i].slot->floor_ns * 2 > p.threshold_ns
                        ? "; the threshold is close to the loop's own floor"
                        : "");
    if (!p.common.quiet)
        text_noise_summary(stdout, &rep);
    cli_sched_notice("noise", &p.sched, rep.realtime, p.common.quiet);
    fflush(stdout);
    rc = EXIT_OK;
    if (p.hist_path && write_histfile(&rep, p.hist_path) != 0) {
        fprintf(stderr, "jitterlab: --histogram-file %s: %s\n", p.hist_path, strerror(errno));
        rc = EXIT_RUNTIME;
    }
    if (p.common.json_path) {
        json_t *doc = json_noise_result(&rep);
        if (json_write_file(doc, p.common.json_path) != 0) {
            fprintf(stderr, "jitterlab: --json %s: %s\n", p.common.json_path, strerror(errno));
            rc = EXIT_RUNTIME;
        }
        json_decref(doc);
    }
    if (rep.interrupted && !p.common.quiet)
        fprintf(stderr,
                "jitterlab: noise: interrupted after %.3f s; the outputs hold what was "
                "measured\n",
                (double)elapsed / 1e9);
done:
    noise_free(nz);
    if (telemetry_ok)
        run_telemetry_free(&rtele);
    telemetry_close(tele);
    if (explain_open_ok)
        explain_free(&explain);
    window_explanation_free(&wx);
    for (int i = 0; causes && i < n; i++)
        noise_causes_free(&causes[i]);
    for (int i = 0; off_causes && i < n; i++)
        noise_causes_free(&off_causes[i]);
    free(causes);
    free(off_causes);
    free(queue);
    free(live);
    free(tele_sum);
    free(rcpu);
    free(all_hist);
    free(argv_typed);
    return rc;
}
