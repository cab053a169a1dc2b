/*
 * The collector of `jitterlab run` (see run_collector.h). Runs on the main
 * thread, pinned to a housekeeping CPU, waking every COLLECT_PERIOD_NS. The
 * engine's per-CPU results stay the exact summary; what is computed here
 * (live figures, windows, the samples file) comes from the rings and so
 * misses what a full ring dropped, which the summary reports.
 */
#include "cmd/run_collector.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "common/stop.h"
#include "common/clock.h"
#include "common/units.h"

#define COLLECT_PERIOD_NS (100 * NS_PER_MS)
#define LIVE_PERIOD_NS    (250 * NS_PER_MS)
#define PLAIN_PERIOD_NS   (1000 * NS_PER_MS)
#define DRAIN_BATCH       4096

static void window_reset(struct interval_stats *w, int cpu)
{
    memset(w, 0, sizeof(*w));
    w->cpu = cpu;
    running_stats_init(&w->latency);
    running_stats_init(&w->period);
    running_stats_init(&w->error);
    running_stats_init(&w->exec);
}

/* How many windows the run can close at most (0 when unbounded). */
static uint64_t windows_expected(const struct collector_config *cfg, int ncpu)
{
    uint64_t cycles = cfg->loops;
    if (cfg->duration_ns > 0) {
        uint64_t by_time = (uint64_t)(cfg->duration_ns / cfg->interval_ns) + 1;
        if (!cycles || by_time < cycles)
            cycles = by_time;
    }
    uint64_t per_cpu;
    if (cfg->report_every_samples > 0)
        per_cpu = cycles / cfg->report_every_samples + 2;
    else if (cfg->duration_ns > 0)
        per_cpu = (uint64_t)(cfg->duration_ns / cfg->report_every_ns) + 2;
    else
        per_cpu =
            (uint64_t)((double)cycles * (double)cfg->interval_ns / (double)cfg->report_every_ns) +
            2;
    return per_cpu * (uint64_t)ncpu;
}

static void write_interval_row(FILE *f, const struct interval_stats *w, bool with_exec)
{
    fprintf(f, "%d,%lld,%llu,%llu", w->cpu, (long long)w->t_ns, (unsigned long long)w->samples,
            (unsigned long long)w->missed);
    if (w->latency.count)
        fprintf(f, ",%lld,%.1f,%lld", (long long)w->latency.min, w->latency.mean,
                (long long)w->latency.max);
    else
        fputs(",,,", f);
    if (w->period.count)
        fprintf(f, ",%lld,%lld", (long long)w->period.min, (long long)w->period.max);
    else
        fputs(",,", f);
    fprintf(f, ",%llu", (unsigned long long)w->over_tolerance);
    if (with_exec) {
        if (w->exec.count)
            fprintf(f, ",%lld,%.1f,%lld", (long long)w->exec.min, w->exec.mean,
                    (long long)w->exec.max);
        else
            fputs(",,,", f);
        fprintf(f, ",%llu", (unsigned long long)w->deadline_misses);
    }
    fputc('\n', f);
}

static void window_close(struct collector *c, int i, int64_t t_end_ns)
{
    const struct collector_config *cfg = c->cfg;
    struct interval_stats *w = &c->window[i];
    if (w->samples == 0 && w->missed == 0)
        return;
    w->t_ns = t_end_ns;
    if (c->kept_cap > 0)
        c->kept[c->windows_closed % c->kept_cap] = *w;
    c->windows_closed++;
    if (c->intervals_open)
        write_interval_row(c->intervals.fp, w, cfg->control_task);
    if (!cfg->quiet) {
        if (c->tty)
            live_view_clear(stdout, c->live_lines);
        c->live_lines = 0;
        if (!c->header_printed) {
            text_interval_header(stdout, cfg->control_task, cfg->wide);
            c->header_printed = true;
        }
        text_interval_line(stdout, w, cfg->interval_ns, cfg->tolerance_ns, cfg->control_task,
                           cfg->wide);
        fflush(stdout); /* a window is news now, also through a pipe */
    }
    window_reset(w, w->cpu);
}

static void window_add(struct collector *c, int i, const struct cycle_sample *s)
{
    const struct collector_config *cfg = c->cfg;
    if (cfg->report_every_ns > 0) {
        int64_t idx = s->t_ns / cfg->report_every_ns;
        if (idx != c->window_index[i]) {
            window_close(c, i, (c->window_index[i] + 1) * cfg->report_every_ns);
            c->window_index[i] = idx;
        }
    }
    struct interval_stats *w = &c->window[i];
    w->samples++;
    w->missed += s->missed;
    running_stats_add(&w->latency, s->latency_ns);
    running_stats_add(&w->exec, s->exec_ns);
    if (s->latency_ns + s->exec_ns > cfg->deadline_ns)
        w->deadline_misses++;
    int64_t error = 0;
    if (s->period_ns > 0) {
        running_stats_add(&w->period, s->period_ns);
        error = s->period_ns - cfg->interval_ns;
    }
    if (cfg->tolerance_ns >= 0) {
        bool period_beyond = error > cfg->tolerance_ns || -error > cfg->tolerance_ns;
        if (period_beyond || s->latency_ns > cfg->tolerance_ns)
            w->over_tolerance++;
        if (period_beyond)
            running_stats_add(&w->error, error);
    }
    if (cfg->report_every_samples > 0 && w->samples >= cfg->report_every_samples)
        window_close(c, i, s->t_ns);
}

static void write_sample_row(struct collector *c, int cpu, const struct cycle_sample *s)
{
    FILE *f = c->samples.fp;
    fprintf(f, "%d,%lld,%lld", cpu, (long long)s->t_ns, (long long)s->latency_ns);
    if (c->cfg->control_task)
        fprintf(f, ",%lld,%lld", (long long)s->exec_ns, (long long)(s->latency_ns + s->exec_ns));
    if (c->cfg->counters) {
        fputc(',', f);
        if (s->llc_misses >= 0)
            fprintf(f, "%lld", (long long)s->llc_misses);
        fputc(',', f);
        if (s->ipc_milli >= 0)
            fprintf(f, "%.3f", s->ipc_milli / 1000.0);
        fputc(',', f);
        if (s->context_switches >= 0)
            fprintf(f, "%d", s->context_switches);
    }
    fputc('\n', f);
}

void collector_drain(struct collector *c)
{
    const struct collector_config *cfg = c->cfg;
    bool periodic = collector_periodic(cfg);
    for (int i = 0; i < c->n; i++) {
        uint64_t got;
        while ((got = engine_drain(c->eng, i, c->buf, DRAIN_BATCH)) > 0) {
            struct live_cpu *l = &c->live[i];
            for (uint64_t k = 0; k < got; k++) {
                const struct cycle_sample *s = &c->buf[k];
                l->samples++;
                l->missed += s->missed;
                l->current_ns = s->latency_ns;
                running_stats_add(&l->exec, s->exec_ns);
                if (s->latency_ns + s->exec_ns > cfg->deadline_ns)
                    l->deadline_misses++;
                running_stats_add(&l->latency, s->latency_ns);
                latency_hist_add(l->hist, s->latency_ns);
                if (c->samples_open)
                    write_sample_row(c, l->cpu, s);
                if (periodic)
                    window_add(c, i, s);
            }
            if (got < DRAIN_BATCH)
                break;
        }
    }
}

static int open_output(struct atomic_file *f, bool *is_open, const char *path, const char *header,
                       const char *opt, char *err, size_t errlen)
{
    if (!path)
        return 0;
    if (atomic_file_open(f, path) != 0) {
        snprintf(err, errlen, "%s %s: %s", opt, path, strerror(errno));
        return -1;
    }
    *is_open = true;
    fputs(header, f->fp);
    return 0;
}

int collector_init(struct collector *c, const struct collector_config *cfg, struct engine *eng,
                   char *err, size_t errlen)
{
    memset(c, 0, sizeof(*c));
    c->cfg = cfg;
    c->eng = eng;
    c->n = engine_cpu_count(eng);
    c->tty = isatty(STDOUT_FILENO);
    c->live = calloc((size_t)c->n, sizeof(*c->live));
    c->live_hist = malloc((size_t)c->n * sizeof(*c->live_hist));
    c->window = calloc((size_t)c->n, sizeof(*c->window));
    c->window_index = calloc((size_t)c->n, sizeof(*c->window_index));
    c->buf = malloc(DRAIN_BATCH * sizeof(*c->buf));
    if (!c->live || !c->live_hist || !c->window || !c->window_index || !c->buf) {
        snprintf(err, errlen, "cannot set up the collector: out of memory");
        return -1;
    }
    if (collector_periodic(cfg)) {
        uint64_t want = windows_expected(cfg, c->n);
        c->kept_cap = cfg->keep_windows < want ? cfg->keep_windows : want;
        if (c->kept_cap > 0) {
            c->kept = calloc(c->kept_cap, sizeof(*c->kept));
            if (!c->kept) {
                snprintf(err, errlen,
                         "--keep-windows %llu: cannot allocate %llu windows (%llu bytes); "
                         "keep fewer",
                         (unsigned long long)cfg->keep_windows, (unsigned long long)c->kept_cap,
                         (unsigned long long)(c->kept_cap * sizeof(*c->kept)));
                return -1;
            }
            memset(c->kept, 0, c->kept_cap * sizeof(*c->kept)); /* resident before the run */
        }
    }
    for (int i = 0; i < c->n; i++) {
        c->live[i].cpu = engine_result(eng, i)->cpu;
        running_stats_init(&c->live[i].latency);
        running_stats_init(&c->live[i].exec);
        latency_hist_init(&c->live_hist[i]);
        c->live[i].hist = &c->live_hist[i];
        window_reset(&c->window[i], c->live[i].cpu);
    }
    char header[160];
    snprintf(header, sizeof(header), "cpu,t_ns,latency_ns%s%s\n",
             cfg->control_task ? ",exec_ns,response_ns" : "",
             cfg->counters ? ",llc_misses,ipc,context_switches" : "");
    if (open_output(&c->samples, &c->samples_open, cfg->samples_path, header, "--samples", err,
                    errlen) != 0)
        return -1;
    snprintf(header, sizeof(header),
             "cpu,t_ns,samples,missed,min_ns,mean_ns,max_ns,period_min_ns,period_max_ns,"
             "over_tolerance%s\n",
             cfg->control_task ? ",exec_min_ns,exec_mean_ns,exec_max_ns,deadline_misses" : "");
    return open_output(&c->intervals, &c->intervals_open, cfg->intervals_path, header,
                       "--intervals", err, errlen);
}

void collector_run(struct collector *c, bool *interrupted)
{
    const struct collector_config *cfg = c->cfg;
    int64_t start = engine_start_ns(c->eng);
    int64_t next_view = monotonic_now_ns() + (c->tty ? LIVE_PERIOD_NS : PLAIN_PERIOD_NS);
    while (!engine_finished(c->eng)) {
        struct timespec pause = {0, COLLECT_PERIOD_NS};
        nanosleep(&pause, NULL);
        if (stop_requested())
            *interrupted = true;
        if (*interrupted)
            engine_stop(c->eng); /* again each time: a wake-up can be lost */
        collector_drain(c);
        int64_t now = monotonic_now_ns();
        if (cfg->quiet || now < next_view)
            continue;
        struct live_frame f = {
            .elapsed_s = now > start ? (double)(now - start) / 1e9 : 0,
            .total_s = (double)cfg->duration_ns / 1e9,
            .loops = cfg->loops,
            .cpus = c->live,
            .ncpu = c->n,
            .control_task = cfg->control_task,
        };
        if (c->tty) {
            c->live_lines = live_view_draw(stdout, &f, c->live_lines);
            next_view = now + LIVE_PERIOD_NS;
        } else {
            if (!collector_periodic(cfg))
                live_plain_lines(stdout, &f);
            next_view = now + PLAIN_PERIOD_NS;
        }
    }
}

void collector_finish(struct collector *c, int64_t end_ns)
{
    const struct collector_config *cfg = c->cfg;
    collector_drain(c);
    if (collector_periodic(cfg)) {
        for (int i = 0; i < c->n; i++) {
            /* Missed periods after the last sample reach no ring entry. */
            c->window[i].missed += engine_result(c->eng, i)->missed - c->live[i].missed;
            int64_t start_ns = engine_start_ns(c->eng);
            int64_t t_end = start_ns > 0 ? end_ns - start_ns : 0;
            if (cfg->report_every_ns > 0 && (c->window_index[i] + 1) * cfg->report_every_ns < t_end)
                t_end = (c->window_index[i] + 1) * cfg->report_every_ns;
            window_close(c, i, t_end);
        }
    }
    if (c->tty && !cfg->quiet)
        live_view_clear(stdout, c->live_lines);
    c->live_lines = 0;
}

/* Reverses n windows in place. */
static void reverse_windows(struct interval_stats *w, uint64_t n)
{
    for (uint64_t i = 0; i < n / 2; i++) {
        struct interval_stats t = w[i];
        w[i] = w[n - 1 - i];
        w[n - 1 - i] = t;
    }
}

const struct interval_stats *collector_windows(struct collector *c, uint64_t *count,
                                               uint64_t *dropped)
{
    uint64_t n = c->windows_closed < c->kept_cap ? c->windows_closed : c->kept_cap;
    *count = n;
    *dropped = c->windows_closed - n;
    if (c->windows_closed > c->kept_cap && c->kept_cap > 0 && !c->kept_linear) {
        /* Rotate the ring so that the oldest kept window comes first. */
        uint64_t head = c->windows_closed % c->kept_cap;
        reverse_windows(c->kept, head);
        reverse_windows(c->kept + head, c->kept_cap - head);
        reverse_windows(c->kept, c->kept_cap);
        c->kept_linear = true;
    }
    return c->kept;
}

int collector_commit(struct collector *c, const char **opt, const char **path)
{
    int rc = 0;
    if (c->samples_open) {
        c->samples_open = false;
        if (atomic_file_commit(&c->samples) != 0) {
            *opt = "--samples";
            *path = c->cfg->samples_path;
            rc = -1;
        }
    }
    if (c->intervals_open) {
        c->intervals_open = false;
        if (atomic_file_commit(&c->intervals) != 0 && rc == 0) {
            *opt = "--intervals";
            *path = c->cfg->intervals_path;
            rc = -1;
        }
    }
    return rc;
}

void collector_free(struct collector *c)
{
    if (c->samples_open)
        atomic_file_abort(&c->samples);
    if (c->intervals_open)
        atomic_file_abort(&c->intervals);
    free(c->live);
    free(c->live_hist);
    free(c->window);
    free(c->window_index);
    free(c->kept);
    free(c->buf);
}
