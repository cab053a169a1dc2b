/*
 * What telemetry knows of each CPU's time beyond the MSRs: busy from the
 * run time the scheduler counts (/proc/schedstat for every task of a CPU,
 * else in `run` the measured thread's own /proc/TID/schedstat, kept at
 * its end), and whether /proc/stat's steal can be trusted. telemetry.c
 * chooses these sources at open time and reads the run times at each
 * snapshot through the functions here.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "telemetry/telemetry_internal.h"

/* The 7th number of the "cpuN" line of /proc/schedstat: the time tasks
 * (not idle) ran on that CPU, in ns, added when each leaves it. -1 when
 * the line or the number is missing. */
static int64_t schedstat_cpu_run_ns(const char *text, int cpu)
{
    char tag[24];
    int n = snprintf(tag, sizeof tag, "\ncpu%d ", cpu);
    const char *line = text ? strstr(text, tag) : NULL;
    if (!line)
        return -1;
    const char *p = line + n;
    long long v = -1;
    for (int field = 1; field <= 7; field++) {
        char *end;
        v = strtoll(p, &end, 10);
        if (end == p || v < 0)
            return -1;
        p = end;
    }
    return (int64_t)v;
}

/* The first number of /proc/<tid>/schedstat: the thread's run time in ns. */
static int64_t thread_run_ns(struct telemetry *t, int tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/schedstat", tid);
    if (tid <= 0 || sysroot_read_file(&t->sr, path, &t->buf) <= 0)
        return -1;
    char *end;
    long long v = strtoll(t->buf.text, &end, 10);
    return end != t->buf.text && v >= 0 ? (int64_t)v : -1;
}

/* Busy without MPERF, from the most faithful source there is: tick samples
 * of /proc/stat alias with any load whose period divides the tick (a spin
 * of 100 us every 250 us reads 0-2% at HZ 250), the scheduler's run time
 * in ns does not. */
void telemetry_choose_busy(struct telemetry *t)
{
    if (t->busy_via == BUSY_VIA_MSR)
        return;
    int first = t->cpus.count > 0 ? t->cpus.cpu[0] : 0;
    if (sysroot_read_file(&t->sr, "/proc/schedstat", &t->buf) > 0 &&
        schedstat_cpu_run_ns(t->buf.text, first) >= 0) {
        t->busy_via = BUSY_VIA_SCHEDSTAT;
        telemetry_set_source(t, TELEMETRY_BUSY_PCT, "schedstat");
    } else if (t->cfg.measured_threads && thread_run_ns(t, (int)getpid()) >= 0 &&
               (t->tid = calloc((size_t)t->cpus.count + 1, sizeof *t->tid)) != NULL) {
        t->busy_via = BUSY_VIA_THREAD;
        telemetry_set_source(t, TELEMETRY_BUSY_PCT, "thread-schedstat");
    } else {
        t->busy_via = BUSY_VIA_TICKS;
        telemetry_set_source(t, TELEMETRY_BUSY_PCT, "proc-stat-ticks");
    }
}

/* The run time of CPU index i's measured thread. Its file goes when it
 * exits (the last snapshot of a run comes after that) and its tid may be
 * reused: a thread that ended is asked for its final run time, before the
 * file and again when the file is gone (it may have ended in between). */
static int64_t measured_thread_run_ns(struct telemetry *t, int i)
{
    int64_t end = t->run_ns_at_end ? t->run_ns_at_end(t->run_ns_at_end_ctx, i) : -1;
    if (end >= 0)
        return end;
    int64_t v = thread_run_ns(t, t->tid[i]);
    if (v < 0 && t->run_ns_at_end)
        v = t->run_ns_at_end(t->run_ns_at_end_ctx, i);
    return v;
}

void telemetry_read_run_times(struct telemetry *t, struct snapshot *s)
{
    bool all = t->busy_via == BUSY_VIA_SCHEDSTAT &&
               sysroot_read_file(&t->sr, "/proc/schedstat", &t->buf) > 0;
    for (int i = 0; i < t->cpus.count; i++)
        s->cpu[i].run_ns = all ? schedstat_cpu_run_ns(t->buf.text, t->cpus.cpu[i])
                           : t->busy_via == BUSY_VIA_THREAD ? measured_thread_run_ns(t, i)
                                                            : -1;
}

void telemetry_follow_thread_ends(struct telemetry *t, int64_t (*run_ns_at_end)(void *ctx, int i),
                                  void *ctx)
{
    t->run_ns_at_end = run_ns_at_end;
    t->run_ns_at_end_ctx = ctx;
}

void telemetry_set_threads(struct telemetry *t, const int *tid)
{
    if (t->tid)
        memcpy(t->tid, tid, (size_t)t->cpus.count * sizeof *t->tid);
}

/* Steal is what a hypervisor says it took. One that says nothing (no
 * steal-time support on either side) leaves 0 in /proc/stat since boot,
 * which is "unknown", not "none": a figure of 0 there would claim a vCPU
 * was never taken away. On bare metal 0 is the truth. */
void telemetry_choose_steal(struct telemetry *t)
{
    bool guest = sysroot_read_file(&t->sr, "/sys/hypervisor/type", &t->buf) > 0 &&
                 !isspace((unsigned char)t->buf.text[0]);
    if (!guest && sysroot_read_file(&t->sr, "/proc/cpuinfo", &t->buf) > 0) {
        const char *flags = strstr(t->buf.text, "\nflags");
        const char *eol = flags ? strchr(flags + 1, '\n') : NULL;
        const char *hv = flags ? strstr(flags, " hypervisor") : NULL;
        guest = hv && (!eol || hv < eol);
    }
    unsigned long long v[8] = {0};
    bool none = sysroot_read_file(&t->sr, "/proc/stat", &t->buf) > 0 &&
                sscanf(t->buf.text, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
                       &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8 &&
                v[7] == 0;
    if (guest && none)
        telemetry_set_absent(
            t, TELEMETRY_STEAL,
            "the hypervisor reports no steal time (0 in /proc/stat since boot): what it "
            "takes is unknown, not 0");
    else
        telemetry_set_source(t, TELEMETRY_STEAL, "proc-stat");
}
