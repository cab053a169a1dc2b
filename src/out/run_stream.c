/*
 * The streamed outputs of a run (see run_stream.h): the collector calls the
 * sinks below on the housekeeping CPU; nothing here runs on a measured CPU.
 */
#include "out/run_stream.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/async_write.h"
#include "common/units.h"
#include "out/text_report.h"

#define LIVE_PERIOD_NS  (250 * NS_PER_MS)
#define PLAIN_PERIOD_NS (1000 * NS_PER_MS)

/* Decimal digits of v at p; returns the end. The samples file takes a row
 * per sample, millions a second on a big machine: no printf; the length
 * first, then two digits per division written from the end. */
static char *put_i64(char *p, int64_t v)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    if (v < 0)
        *p++ = '-';
    int n = 1;
    for (uint64_t t = u; t >= 10; t /= 10)
        n++;
    char *end = p + n, *q = end;
    while (u >= 100) {
        q -= 2;
        memcpy(q, pairs + (u % 100) * 2, 2);
        u /= 100;
    }
    if (u >= 10) {
        q -= 2;
        memcpy(q, pairs + u * 2, 2);
    } else {
        *--q = (char)('0' + u);
    }
    return end;
}

/* What a samples row needs of a sample, as the collector queues it. */
struct sample_record {
    int64_t t_ns, latency_ns, exec_ns, llc_misses;
    int32_t cpu, ipc_milli, context_switches;
};

/* The writer thread's side: records to rows (the columns of the header). */
static size_t format_sample_rows(const void *ctx, const void *in, size_t n, char *out)
{
    const struct run_stream_config *cfg = ctx;
    const struct sample_record *recs = in;
    char *p = out;
    for (size_t k = 0; k < n; k++) {
        const struct sample_record *s = &recs[k];
        p = put_i64(p, s->cpu);
        *p++ = ',';
        p = put_i64(p, s->t_ns);
        *p++ = ',';
        p = put_i64(p, s->latency_ns);
        if (cfg->control_task) {
            *p++ = ',';
            p = put_i64(p, s->exec_ns);
            *p++ = ',';
            p = put_i64(p, s->latency_ns + s->exec_ns);
        }
        if (cfg->counters) {
            *p++ = ',';
            if (s->llc_misses >= 0)
                p = put_i64(p, s->llc_misses);
            *p++ = ',';
            if (s->ipc_milli >= 0) { /* as %.3f of ipc_milli / 1000 */
                p = put_i64(p, s->ipc_milli / 1000);
                *p++ = '.';
                int frac = s->ipc_milli % 1000;
                *p++ = (char)('0' + frac / 100);
                *p++ = (char)('0' + frac / 10 % 10);
                *p++ = (char)('0' + frac % 10);
            }
            *p++ = ',';
            if (s->context_switches >= 0)
                p = put_i64(p, s->context_switches);
        }
        *p++ = '\n';
    }
    return (size_t)(p - out);
}

static void write_sample_row(void *ctx, int cpu, const struct cycle_sample *s)
{
    struct run_stream *rs = ctx;
    if (!rs->samples_open)
        return; /* a log that could not be reopened */
    struct sample_record *r = async_write_record(rs->samples_writer);
    *r = (struct sample_record){.t_ns = s->t_ns,
                                .latency_ns = s->latency_ns,
                                .exec_ns = s->exec_ns,
                                .llc_misses = s->llc_misses,
                                .cpu = cpu,
                                .ipc_milli = s->ipc_milli,
                                .context_switches = s->context_switches};
}

static void write_interval_row(FILE *f, const struct interval_stats *w, bool with_exec,
                               bool with_deadline)
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
        if (with_deadline)
            fprintf(f, ",%llu", (unsigned long long)w->deadline_misses);
        else
            fputc(',', f); /* no deadline: no count */
    }
    fputc('\n', f);
}

static void window_closed(void *ctx, const struct interval_stats *w)
{
    struct run_stream *rs = ctx;
    const struct run_stream_config *cfg = &rs->cfg;
    if (rs->intervals_open)
        write_interval_row(rs->intervals.fp, w, cfg->control_task, cfg->deadline);
    if (cfg->quiet)
        return;
    if (rs->tty)
        live_view_clear(stdout, rs->live_lines);
    rs->live_lines = 0;
    if (!rs->header_printed) {
        text_interval_header(stdout, cfg->control_task, cfg->wide);
        rs->header_printed = true;
    }
    text_interval_line(stdout, w, cfg->interval_ns, cfg->tolerance_ns, cfg->control_task,
                       cfg->deadline, cfg->wide);
    fflush(stdout); /* a window is news now, also through a pipe */
}

static void live_frame(void *ctx, const struct live_frame *f)
{
    struct run_stream *rs = ctx;
    if (rs->tty)
        rs->live_lines = live_view_draw(stdout, f, rs->live_lines);
    else if (!rs->cfg.periodic)
        live_plain_lines(stdout, f);
}

static int open_output(struct atomic_file *f, bool *is_open, const char *path, const char *header,
                       bool append, const char *opt, char *err, size_t errlen)
{
    if (!path)
        return 0;
    bool empty = true;
    if ((append ? atomic_file_open_append(f, path, &empty) : atomic_file_open(f, path)) != 0) {
        snprintf(err, errlen, "%s %s: %s", opt, path, strerror(errno));
        return -1;
    }
    *is_open = true;
    if (empty)
        fputs(header, f->fp);
    return 0;
}

/* The samples file's rows go through a writer thread (async_write.h). */
static int start_samples_writer(struct run_stream *rs, char *err, size_t errlen)
{
    if (!rs->samples_open)
        return 0;
    char why[128];
    rs->samples_writer = async_write_start(rs->samples.fp, sizeof(struct sample_record),
                                           format_sample_rows, &rs->cfg, why, sizeof why);
    if (!rs->samples_writer) {
        snprintf(err, errlen, "--samples %s: %s", rs->cfg.samples_path, why);
        atomic_file_abort(&rs->samples);
        rs->samples_open = false;
        return -1;
    }
    return 0;
}

static void stop_samples_writer(struct run_stream *rs)
{
    async_write_finish(rs->samples_writer);
    rs->samples_writer = NULL;
}

int run_stream_open(struct run_stream *rs, const struct run_stream_config *cfg, char *err,
                    size_t errlen)
{
    memset(rs, 0, sizeof(*rs));
    rs->cfg = *cfg;
    rs->tty = isatty(STDOUT_FILENO);
    snprintf(rs->samples_header, sizeof(rs->samples_header), "cpu,t_ns,latency_ns%s%s\n",
             cfg->control_task ? ",exec_ns,response_ns" : "",
             cfg->counters ? ",llc_misses,ipc,context_switches" : "");
    snprintf(rs->intervals_header, sizeof(rs->intervals_header),
             "cpu,t_ns,samples,missed,min_ns,mean_ns,max_ns,period_min_ns,period_max_ns,"
             "over_tolerance%s\n",
             cfg->control_task ? ",exec_min_ns,exec_mean_ns,exec_max_ns,deadline_misses" : "");
    if (open_output(&rs->samples, &rs->samples_open, cfg->samples_path, rs->samples_header,
                    cfg->append, "--samples", err, errlen) != 0 ||
        start_samples_writer(rs, err, errlen) != 0)
        return -1;
    return open_output(&rs->intervals, &rs->intervals_open, cfg->intervals_path,
                       rs->intervals_header, cfg->append, "--intervals", err, errlen);
}

void run_stream_flush(struct run_stream *rs)
{
    if (!rs->cfg.append)
        return;
    if (rs->samples_open)
        async_write_flush(rs->samples_writer);
    if (rs->intervals_open)
        fflush(rs->intervals.fp);
}

int run_stream_reopen(struct run_stream *rs, char *err, size_t errlen)
{
    if (!rs->cfg.append)
        return 0;
    int rc = 0;
    if (rs->samples_open) {
        rs->samples_open = false;
        stop_samples_writer(rs);
        atomic_file_commit(&rs->samples);
        rc |= open_output(&rs->samples, &rs->samples_open, rs->cfg.samples_path, rs->samples_header,
                          true, "--samples", err, errlen);
        if (rc == 0)
            rc |= start_samples_writer(rs, err, errlen);
    }
    if (rs->intervals_open) {
        rs->intervals_open = false;
        atomic_file_commit(&rs->intervals);
        rc |= open_output(&rs->intervals, &rs->intervals_open, rs->cfg.intervals_path,
                          rs->intervals_header, true, "--intervals", err, errlen);
    }
    return rc;
}

struct collector_sinks run_stream_sinks(struct run_stream *rs)
{
    bool live = !rs->cfg.quiet && (rs->tty || !rs->cfg.periodic);
    return (struct collector_sinks){
        .ctx = rs,
        .sample = rs->samples_open ? write_sample_row : NULL,
        .window = window_closed,
        .live = live ? live_frame : NULL,
        .live_period_ns = rs->tty ? LIVE_PERIOD_NS : PLAIN_PERIOD_NS,
    };
}

void run_stream_end_live(struct run_stream *rs)
{
    if (rs->tty && !rs->cfg.quiet)
        live_view_clear(stdout, rs->live_lines);
    rs->live_lines = 0;
}

int run_stream_commit(struct run_stream *rs, const char **opt, const char **path)
{
    int rc = 0;
    if (rs->samples_open) {
        rs->samples_open = false;
        stop_samples_writer(rs);
        if (atomic_file_commit(&rs->samples) != 0) {
            *opt = "--samples";
            *path = rs->cfg.samples_path;
            rc = -1;
        }
    }
    if (rs->intervals_open) {
        rs->intervals_open = false;
        if (atomic_file_commit(&rs->intervals) != 0 && rc == 0) {
            *opt = "--intervals";
            *path = rs->cfg.intervals_path;
            rc = -1;
        }
    }
    return rc;
}

void run_stream_close(struct run_stream *rs)
{
    if (rs->samples_open) {
        stop_samples_writer(rs);
        atomic_file_abort(&rs->samples);
    }
    if (rs->intervals_open)
        atomic_file_abort(&rs->intervals);
    rs->samples_open = rs->intervals_open = false;
}
