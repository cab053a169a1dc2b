/*
 * The capture's ftrace ring (see capture.h): a tracefs instance of the
 * run's own, "jitterlab-PID-N", with only the measured CPUs recording, the
 * "mono" trace clock (CLOCK_MONOTONIC), overwrite mode, every wanted event
 * enabled in it and nowhere else; each CPU's sub-buffers read from its
 * trace_pipe_raw and decoded with libtraceevent's kbuffer. The instances
 * of jitterlabs that are gone are removed; the filter that passes the
 * measuring threads' tids is built here. capture.c falls back to perf
 * rings where no instance can be made.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs/tracefs.h>
#include <traceevent/kbuffer.h>
#include <unistd.h>

#include "trace/capture.h"
#include "trace/capture_internal.h"
#include "trace/trace_decode.h"

#define INSTANCE_PREFIX "jitterlab-"

/* Whether pid is a live jitterlab (a recycled pid runs something else). */
static bool jitterlab_alive(int pid)
{
    char path[64], comm[32] = "";
    snprintf(path, sizeof(path), "/proc/%d/comm", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return kill(pid, 0) == 0 || errno != ESRCH;
    bool ok = fgets(comm, sizeof(comm), f) != NULL;
    fclose(f);
    return !ok || strncmp(comm, "jitterlab", 9) == 0;
}

int trace_capture_remove_stale(char *names, size_t len)
{
    const char *dir = tracefs_tracing_dir();
    char path[4096];
    int removed = 0;
    size_t used = 0;
    if (names && len)
        names[0] = '\0';
    if (!dir || snprintf(path, sizeof(path), "%s/instances", dir) >= (int)sizeof(path))
        return 0;
    DIR *d = opendir(path);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        int pid;
        if (sscanf(e->d_name, INSTANCE_PREFIX "%d-", &pid) != 1 || pid <= 0 ||
            pid == (int)getpid() || jitterlab_alive(pid))
            continue;
        char inst[4096 + 256];
        snprintf(inst, sizeof(inst), "%s/%s", path, e->d_name);
        if (rmdir(inst) != 0) /* the kernel stops its events and frees its ring */
            continue;
        removed++;
        if (names && used < len) {
            int w = snprintf(names + used, len - used, "%s%s", used ? ", " : "", e->d_name);
            used = w < 0 ? len : used + (size_t)w;
        }
    }
    closedir(d);
    return removed;
}

/* "system:event" into its two names; -1 when it has no colon. */
static int split_event(const char *event, char *system, size_t len, const char **name)
{
    const char *colon = strchr(event, ':');
    if (!colon || (size_t)(colon - event) >= len)
        return -1;
    memcpy(system, event, (size_t)(colon - event));
    system[colon - event] = '\0';
    *name = colon + 1;
    return 0;
}

int capture_ftrace_event_write(struct trace_capture *tc, const char *event, const char *file,
                               const char *text)
{
    char system[48];
    const char *name;
    if (split_event(event, system, sizeof(system), &name) != 0)
        return -1;
    return tracefs_event_file_write(tc->inst, system, name, file, text) < 0 ? -1 : 0;
}

static int instance_write(struct trace_capture *tc, const char *file, const char *text, char *err,
                          size_t errlen)
{
    if (tracefs_instance_file_write(tc->inst, file, text) >= 0)
        return 0;
    snprintf(err, errlen, "cannot write %s to %s of tracefs instance %s: %s", text, file,
             tracefs_instance_get_name(tc->inst), strerror(errno));
    return -1;
}

/* An instance of our own with the CPUs' rings (overwrite mode: a full
 * ring drops its oldest records and tells the reader at the next
 * sub-buffer, so a loss is known by the time the ring reads empty), the
 * CLOCK_MONOTONIC clock ("mono") and every wanted event enabled, tracing
 * still off. 0, or -1 with err (the caller falls back to perf). */
int capture_ftrace_open(struct trace_capture *tc, const struct cpulist *cpus, size_t bytes_per_cpu,
                        char *err, size_t errlen)
{
    static unsigned serial;
    char name[64], text[64];
    snprintf(name, sizeof(name), INSTANCE_PREFIX "%d-%u", (int)getpid(), serial++);
    trace_capture_remove_stale(NULL, 0);
    tc->inst = tracefs_instance_create(name);
    if (!tc->inst) {
        snprintf(err, errlen, "cannot create tracefs instance %s: %s", name, strerror(errno));
        return -1;
    }
    size_t kb = (bytes_per_cpu + 1023) / 1024;
    tc->data_bytes = kb * 1024;
    if (instance_write(tc, "tracing_on", "0", err, errlen) != 0 ||
        instance_write(tc, "trace_clock", "mono", err, errlen) != 0 ||
        instance_write(tc, "options/overwrite", "1", err, errlen) != 0 ||
        instance_write(tc, "buffer_size_kb", "4", err, errlen) != 0) /* the unmeasured CPUs' */
        return -1;
    char list[4096];
    if (cpulist_format(cpus, list, sizeof(list)) < 0 ||
        tracefs_instance_set_affinity(tc->inst, list) < 0) {
        snprintf(err, errlen, "cannot set the CPUs of tracefs instance %s", name);
        return -1;
    }
    for (int i = 0; i < tc->ncpu; i++) {
        struct capture_cpu *c = &tc->cpu[i];
        char file[64];
        snprintf(file, sizeof(file), "per_cpu/cpu%d/buffer_size_kb", c->cpu);
        snprintf(text, sizeof(text), "%zu", kb);
        if (instance_write(tc, file, text, err, errlen) != 0)
            return -1;
        c->tcpu = tracefs_cpu_open(tc->inst, c->cpu, true);
        c->kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
        c->page = c->tcpu ? malloc((size_t)tracefs_cpu_read_size(c->tcpu)) : NULL;
        if (!c->tcpu || !c->kbuf || !c->page) {
            snprintf(err, errlen, "cannot open the trace ring of CPU %d", c->cpu);
            return -1;
        }
    }
    int enabled = 0;
    for (int k = 0; k < tc->decoder.nformats; k++) {
        const char *event = tc->decoder.format[k].event;
        if (!capture_event_selected(event))
            continue;
        if (capture_ftrace_event_write(tc, event, "enable", "1") == 0)
            enabled++;
        else
            capture_add_missing(tc, event, NULL);
    }
    if (enabled == 0) {
        snprintf(err, errlen, "no tracepoint could be enabled in tracefs instance %s", name);
        return -1;
    }
    tc->ring = RING_FTRACE;
    return 0;
}

void capture_ftrace_close(struct trace_capture *tc)
{
    for (int i = 0; i < tc->ncpu; i++) {
        struct capture_cpu *c = &tc->cpu[i];
        if (c->tcpu)
            tracefs_cpu_close(c->tcpu);
        if (c->kbuf)
            kbuffer_free(c->kbuf);
        free(c->page);
        c->tcpu = NULL;
        c->kbuf = NULL;
        c->page = NULL;
    }
    if (tc->inst) {
        tracefs_instance_file_write(tc->inst, "tracing_on", "0");
        tracefs_instance_destroy(tc->inst);
        tracefs_instance_free(tc->inst);
        tc->inst = NULL;
    }
}

/* The CPU's records from its trace_pipe_raw, a sub-buffer at a time (the
 * kernel hands over a partly written one too); a sub-buffer flagged with
 * missed events puts a TRACE_LOST marker before its first record. */
size_t capture_ftrace_read(struct trace_capture *tc, struct capture_cpu *c, struct trace_event *out,
                           size_t max)
{
    size_t n = 0;
    while (n < max) {
        if (c->loaded) {
            unsigned long long ts;
            uint8_t *rec = kbuffer_read_event(c->kbuf, &ts);
            if (rec) {
                int size = kbuffer_event_size(c->kbuf);
                n = trace_decode_append(&tc->decoder, rec, size > 0 ? (size_t)size : 0, (int64_t)ts,
                                        c->cpu, out, n, &tc->lost);
                kbuffer_next_event(c->kbuf, NULL);
                continue;
            }
            c->loaded = false;
        }
        if (tracefs_cpu_read(c->tcpu, c->page, true) <= 0)
            break;
        if (kbuffer_load_subbuffer(c->kbuf, c->page) < 0) {
            n = trace_decode_mark_lost(out, n, 1, &tc->lost);
            continue;
        }
        c->loaded = true;
        int missed = kbuffer_missed_events(c->kbuf);
        if (missed != 0) /* -1: some, how many not told */
            n = trace_decode_mark_lost(out, n, missed > 0 ? (uint64_t)missed : 1, &tc->lost);
    }
    return n;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int trace_capture_tid_filter(const char *field, const int *tids, int n, char *out, size_t len)
{
    int *t = n > 0 ? malloc((size_t)n * 3 * sizeof(*t)) : NULL;
    if (!t)
        return -1;
    int *lo = t + n, *hi = t + 2 * n, nr = 0;
    memcpy(t, tids, (size_t)n * sizeof(*t));
    qsort(t, (size_t)n, sizeof(*t), cmp_int);
    for (int i = 0; i < n; i++) {
        if (nr > 0 && (long)t[i] <= (long)hi[nr - 1] + 1) {
            hi[nr - 1] = t[i];
            continue;
        }
        lo[nr] = hi[nr] = t[i];
        nr++;
    }
    while (nr > TRACE_FILTER_RANGES) {
        int best = 0;
        for (int r = 1; r + 1 < nr; r++)
            if ((long)lo[r + 1] - hi[r] < (long)lo[best + 1] - hi[best])
                best = r;
        hi[best] = hi[best + 1];
        memmove(&lo[best + 1], &lo[best + 2], (size_t)(nr - best - 2) * sizeof(*lo));
        memmove(&hi[best + 1], &hi[best + 2], (size_t)(nr - best - 2) * sizeof(*hi));
        nr--;
    }
    size_t used = 0;
    int rc = 0;
    out[0] = '\0';
    for (int r = 0; r < nr && rc == 0; r++) {
        int w = lo[r] == hi[r]
                    ? snprintf(out + used, len - used, "%s%s == %d", r ? " || " : "", field, lo[r])
                    : snprintf(out + used, len - used, "%s(%s >= %d && %s <= %d)", r ? " || " : "",
                               field, lo[r], field, hi[r]);
        if (w < 0 || (size_t)w >= len - used)
            rc = -1;
        else
            used += (size_t)w;
    }
    free(t);
    return rc;
}
