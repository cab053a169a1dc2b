/*
 * The live half of the tracepoint capture (see capture.h). tracefs gives the
 * event ids and formats (libtracefs mounts it on demand, as perf does, and
 * leaves it mounted: a mounted tracefs changes nothing until a tracer is
 * enabled), /proc/kallsyms the names of hrtimer callbacks and work
 * functions. The ftrace instance is capture_ftrace.c's; here the perf
 * rings, where none can be made. Each CPU gets one ring buffer: the first
 * event opened on it
 * owns the mmap, the others are redirected there with
 * PERF_EVENT_IOC_SET_OUTPUT, so one reader pass per CPU sees every event in
 * time order. Decoding is trace_decode.c's. The same reader also runs over
 * rings in plain memory (trace_capture_open_memory), which the unit tests
 * fill with the records they want.
 */
#include "trace/capture.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <tracefs/tracefs.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "trace/capture_internal.h"
#include "trace/trace_decode.h"

#define MIN_BUFFER_BYTES (1u << 20)
#define MAX_BUFFER_BYTES (16u << 20)
/* The most one write of the kernel takes in the ring: a record (its size
 * is 16 bits) and the PERF_RECORD_LOST written with it. */
#define RECORD_MAX_BYTES (65536u + 128u)

static const char *const trace_systems[] = {"sched", "irq",       "irq_vectors", "timer",
                                            "power", "workqueue", NULL};

size_t trace_capture_bytes_for(int64_t interval_ns, int64_t poll_period_ns)
{
    /* A cycle costs about a dozen events of ~100 bytes on the measured CPU
     * (timer interrupt, hrtimer, wake-up, two switches, idle exit and
     * entry); eight poll periods of that leaves room for interrupt storms
     * and a late collector. */
    double cycles = interval_ns > 0 ? (double)poll_period_ns / (double)interval_ns : 1;
    double want = cycles * 12 * 128 * 8;
    size_t bytes = MIN_BUFFER_BYTES;
    while ((double)bytes < want && bytes < MAX_BUFFER_BYTES)
        bytes <<= 1;
    return bytes;
}

void capture_add_missing(struct trace_capture *tc, const char *system, const char *event)
{
    size_t len = strlen(tc->missing);
    snprintf(tc->missing + len, sizeof(tc->missing) - len, "%s%s%s%s", len ? ", " : "", system,
             event ? ":" : "", event ? event : "");
}

/* Kernel text symbols, so that hrtimer callbacks and work functions have
 * names. Without readable addresses (kptr_restrict) they stay addresses. */
static void load_kernel_symbols(struct trace_capture *tc)
{
    FILE *f = fopen("/proc/kallsyms", "r");
    if (!f)
        return;
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    char line[512];
    bool any_address = false;
    if (!text) {
        fclose(f);
        return;
    }
    while (fgets(line, sizeof(line), f)) {
        unsigned long long addr;
        char type;
        if (sscanf(line, "%llx %c", &addr, &type) != 2 || (type != 't' && type != 'T'))
            continue;
        any_address |= addr != 0;
        size_t n = strlen(line);
        if (len + n + 1 > cap) {
            char *bigger = realloc(text, cap * 2);
            if (!bigger)
                break; /* the symbols read so far still name what they can */
            text = bigger;
            cap *= 2;
        }
        memcpy(text + len, line, n);
        len += n;
    }
    fclose(f);
    if (any_address) {
        text[len] = '\0';
        if (tep_parse_kallsyms(tc->tep, text) == 0)
            tc->decoder.symbols = tc->tep;
    }
    free(text);
}

/* Every wanted event tep knows goes into the decoder; the others are
 * listed as missing. */
static void build_decoder(struct trace_capture *tc, const char *dir)
{
    trace_decoder_init(&tc->decoder);
    for (size_t i = 0; i < trace_wanted_count; i++) {
        const struct trace_wanted *w = &trace_wanted_events[i];
        if (trace_decoder_add(&tc->decoder, tc->tep, w->system, w->event, w->kind) != 0)
            capture_add_missing(tc, w->system, w->event);
    }
    char **vectors = tracefs_system_events(dir, "irq_vectors");
    for (size_t i = 0; vectors && vectors[i]; i++)
        trace_decoder_add_vector(&tc->decoder, tc->tep, vectors[i]); /* vector_* are not */
    if (!vectors)
        capture_add_missing(tc, "irq_vectors", "*");
    tracefs_list_free(vectors);
}

/* A bench aid: JITTERLAB_TRACE_EVENTS="sched,irq_vectors:local_timer_entry,..."
 * opens only the events of the systems or the system:event names listed,
 * so that what each costs the measured CPU can be measured apart. */
bool capture_event_selected(const char *event)
{
    const char *list = getenv("JITTERLAB_TRACE_EVENTS");
    if (!list)
        return true;
    size_t system_len = strcspn(event, ":");
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if ((len == strlen(event) && strncmp(p, event, len) == 0) ||
            (len == system_len && strncmp(p, event, len) == 0))
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

static int perf_open(const struct trace_format *f, int cpu)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_TRACEPOINT;
    a.size = sizeof(a);
    a.config = f->id;
    a.sample_period = 1;
    /* The least each record can hold (trace_decode.c): the ring is the
     * CPU's, the task is in the raw part; no callchain, no stack. */
    a.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
    a.disabled = 1;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void refused_reason(int errnum, char *err, size_t errlen)
{
    int paranoid = -9;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) {
        if (fscanf(f, "%d", &paranoid) != 1)
            paranoid = -9;
        fclose(f);
    }
    if (errnum == EACCES || errnum == EPERM) {
        if (paranoid != -9)
            snprintf(err, errlen,
                     "perf_event_open refused: %s (kernel.perf_event_paranoid = %d; needs root "
                     "or CAP_PERFMON, or a kernel lockdown forbids tracing)",
                     strerror(errnum), paranoid);
        else
            snprintf(err, errlen, "perf_event_open refused: %s (needs root or CAP_PERFMON)",
                     strerror(errnum));
    } else {
        snprintf(err, errlen, "perf_event_open: %s", strerror(errnum));
    }
}

/* Opens every event on one CPU into one ring. 0, or -1 with err when
 * none could be opened (a single refused event is listed as missing:
 * some kernels refuse one tracepoint, e.g. irq_vectors:irq_work_exit). */
static int open_cpu(struct trace_capture *tc, struct capture_cpu *c, bool first_cpu, char *err,
                    size_t errlen)
{
    int refused = 0;
    for (int k = 0; k < tc->decoder.nformats; k++) {
        const struct trace_format *f = &tc->decoder.format[k];
        if (!capture_event_selected(f->event))
            continue;
        int fd = perf_open(f, c->cpu);
        if (fd < 0) {
            if (!refused)
                refused = errno;
            if (errno == ENOSYS || errno == EMFILE)
                break;
            if (first_cpu)
                capture_add_missing(tc, f->event, NULL);
            continue;
        }
        if (c->nfds == 0) {
            void *map = mmap(NULL, tc->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (map == MAP_FAILED) {
                int me = errno;
                close(fd);
                snprintf(err, errlen,
                         "cannot map a %zu KiB trace buffer for CPU %d: %s (see "
                         "kernel.perf_event_mlock_kb)",
                         tc->data_bytes / 1024, c->cpu, strerror(me));
                return -1;
            }
            c->meta = map;
            c->data = (uint8_t *)map + c->meta->data_offset;
            if (c->meta->data_offset == 0)
                c->data = (uint8_t *)map + sysconf(_SC_PAGESIZE);
        } else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, c->fds[0]) != 0) {
            int se = errno;
            close(fd);
            snprintf(err, errlen, "cannot share CPU %d's trace buffer: %s", c->cpu, strerror(se));
            return -1;
        }
        c->format_of[c->nfds] = k;
        c->fds[c->nfds++] = fd;
    }
    if (c->nfds == 0 || refused == ENOSYS || refused == EMFILE) {
        refused_reason(refused, err, errlen);
        return -1;
    }
    return 0;
}

int trace_capture_open(const struct cpulist *cpus, size_t bytes_per_cpu, struct trace_capture **out,
                       char *err, size_t errlen)
{
    *out = NULL;
    const char *dir = tracefs_tracing_dir(); /* mounts tracefs when it is not */
    if (!dir) {
        snprintf(err, errlen, "no tracefs (not mounted and mounting it failed)");
        return -1;
    }
    struct trace_capture *tc = calloc(1, sizeof(*tc));
    if (!tc) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    tc->tep = tracefs_local_events_system(dir, trace_systems);
    if (!tc->tep) {
        snprintf(err, errlen, "cannot read the event formats under %s", dir);
        trace_capture_close(tc);
        return -1;
    }
    build_decoder(tc, dir);
    if (tc->decoder.nformats == 0) {
        snprintf(err, errlen, "none of the sched, irq, timer, power tracepoints exists under %s",
                 dir);
        trace_capture_close(tc);
        return -1;
    }
    load_kernel_symbols(tc);

    tc->cpu = calloc((size_t)cpus->count, sizeof(*tc->cpu));
    if (!tc->cpu) {
        snprintf(err, errlen, "out of memory");
        trace_capture_close(tc);
        return -1;
    }
    tc->ncpu = cpus->count;
    for (int i = 0; i < tc->ncpu; i++)
        tc->cpu[i].cpu = cpus->cpu[i];
    /* The kernel's trace ring first; perf rings where no instance can be
     * made (JITTERLAB_TRACE_RING=perf asks for them: a bench aid). */
    const char *ring = getenv("JITTERLAB_TRACE_RING");
    if (!ring || strcmp(ring, "perf") != 0) {
        char missing[sizeof(tc->missing)];
        memcpy(missing, tc->missing, sizeof(missing));
        if (capture_ftrace_open(tc, cpus, bytes_per_cpu, err, errlen) == 0) {
            *out = tc;
            return 0;
        }
        capture_ftrace_close(tc);
        memcpy(tc->missing, missing, sizeof(missing));
    }
    tc->ring = RING_PERF;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = 1;
    while (pages * page < bytes_per_cpu && pages < (1u << 20))
        pages <<= 1;
    tc->data_bytes = pages * page;
    tc->map_bytes = tc->data_bytes + page;
    for (int i = 0; i < tc->ncpu; i++) {
        if (open_cpu(tc, &tc->cpu[i], i == 0, err, errlen) != 0) {
            trace_capture_close(tc);
            return -1;
        }
    }
    *out = tc;
    return 0;
}

static int ioctl_all(struct trace_capture *tc, unsigned long request)
{
    int rc = 0;
    for (int i = 0; i < tc->ncpu; i++)
        for (int k = 0; k < tc->cpu[i].nfds; k++)
            if (ioctl(tc->cpu[i].fds[k], request, 0) != 0)
                rc = -1;
    return rc;
}

int trace_capture_enable(struct trace_capture *tc)
{
    if (tc->ring == RING_FTRACE)
        return tracefs_trace_on(tc->inst) < 0 ? -1 : 0;
    return ioctl_all(tc, PERF_EVENT_IOC_ENABLE);
}

int trace_capture_disable(struct trace_capture *tc)
{
    if (tc->ring == RING_FTRACE)
        return tracefs_trace_off(tc->inst) < 0 ? -1 : 0;
    return ioctl_all(tc, PERF_EVENT_IOC_DISABLE);
}

/* The records between the perf ring's tail and head, as trace_decode_ring
 * decodes them; the tail handed back to the kernel. */
static size_t perf_read(struct trace_capture *tc, struct capture_cpu *c, struct trace_event *out,
                        size_t max)
{
    uint64_t head = __atomic_load_n(&c->meta->data_head, __ATOMIC_ACQUIRE);
    /* The kernel drops a write only when it does not fit before the tail
     * we gave it last; a ring this full may have dropped one. */
    bool full = head - c->tail + RECORD_MAX_BYTES > tc->data_bytes;
    size_t n = trace_decode_ring(&tc->decoder, c->data, tc->data_bytes, head, &c->tail, c->cpu, out,
                                 max, &tc->lost);
    if (c->may_have_lost && c->tail > c->clear_at)
        c->may_have_lost = false; /* read past it: a loss would have shown */
    /* The kernel may reuse what lies before the new tail. */
    __atomic_store_n(&c->meta->data_tail, c->tail, __ATOMIC_SEQ_CST);
    if (full) {
        c->may_have_lost = true;
        c->clear_at = __atomic_load_n(&c->meta->data_head, __ATOMIC_SEQ_CST);
    }
    return n;
}

size_t trace_capture_read(struct trace_capture *tc, int cpu_index, struct trace_event *out,
                          size_t max)
{
    if (cpu_index < 0 || cpu_index >= tc->ncpu)
        return 0;
    struct capture_cpu *c = &tc->cpu[cpu_index];
    size_t n =
        tc->ring == RING_FTRACE ? capture_ftrace_read(tc, c, out, max) : perf_read(tc, c, out, max);
    for (size_t k = 0; k < n; k++)
        tc->events += out[k].kind != TRACE_LOST;
    return n;
}

/* The index in c->fds of event, or -1. */
static int fd_index(const struct trace_capture *tc, const struct capture_cpu *c, const char *event)
{
    for (int k = 0; k < c->nfds; k++)
        if (strcmp(tc->decoder.format[c->format_of[k]].event, event) == 0)
            return k;
    return -1;
}

int trace_capture_drop_event(struct trace_capture *tc, const char *event)
{
    if (tc->ring == RING_FTRACE)
        return capture_ftrace_event_write(tc, event, "enable", "0");
    int rc = 0;
    for (int i = 0; i < tc->ncpu; i++) {
        struct capture_cpu *c = &tc->cpu[i];
        int k = fd_index(tc, c, event);
        if (k < 0)
            continue;
        if (k == 0) { /* owns the ring */
            rc = -1;
            continue;
        }
        close(c->fds[k]);
        c->nfds--;
        memmove(&c->fds[k], &c->fds[k + 1], (size_t)(c->nfds - k) * sizeof(c->fds[0]));
        memmove(&c->format_of[k], &c->format_of[k + 1],
                (size_t)(c->nfds - k) * sizeof(c->format_of[0]));
    }
    return rc;
}

int trace_capture_filter_tids(struct trace_capture *tc, const char *event, const char *field,
                              const int *tids)
{
    char filter[TRACE_FILTER_RANGES * 96];
    if (tc->ring == RING_FTRACE)
        return trace_capture_tid_filter(field, tids, tc->ncpu, filter, sizeof(filter)) == 0
                   ? capture_ftrace_event_write(tc, event, "filter", filter)
                   : -1;
    int rc = 0;
    for (int i = 0; i < tc->ncpu; i++) {
        struct capture_cpu *c = &tc->cpu[i];
        int k = fd_index(tc, c, event);
        snprintf(filter, sizeof(filter), "%s == %d", field, tids[i]);
        if (k < 0 || ioctl(c->fds[k], PERF_EVENT_IOC_SET_FILTER, filter) != 0)
            rc = -1;
    }
    return rc;
}

bool trace_capture_may_have_lost(const struct trace_capture *tc, int cpu_index)
{
    /* ftrace's ring reports what it overwrote on the next sub-buffer the
     * reader takes: one read to empty has seen every loss (may_have_lost
     * stays false there) */
    return cpu_index >= 0 && cpu_index < tc->ncpu && tc->cpu[cpu_index].may_have_lost;
}

int trace_capture_open_memory(const struct cpulist *cpus, size_t bytes_per_cpu,
                              const struct trace_decoder *decoder, struct trace_capture **out)
{
    *out = NULL;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data = page;
    while (data < bytes_per_cpu && data < MAX_BUFFER_BYTES)
        data <<= 1;
    struct trace_capture *tc = calloc(1, sizeof(*tc));
    if (!tc)
        return -1;
    tc->ring = RING_MEMORY;
    tc->decoder = *decoder;
    memset(tc->decoder.count, 0, sizeof(tc->decoder.count)); /* this capture's own */
    tc->data_bytes = data;
    tc->map_bytes = data + page;
    tc->cpu = calloc((size_t)cpus->count, sizeof(*tc->cpu));
    if (!tc->cpu) {
        trace_capture_close(tc);
        return -1;
    }
    tc->ncpu = cpus->count;
    for (int i = 0; i < tc->ncpu; i++) {
        struct capture_cpu *c = &tc->cpu[i];
        c->cpu = cpus->cpu[i];
        c->meta = calloc(1, tc->map_bytes);
        if (!c->meta) {
            trace_capture_close(tc);
            return -1;
        }
        c->meta->data_offset = page;
        c->meta->data_size = data;
        c->data = (uint8_t *)c->meta + page;
    }
    *out = tc;
    return 0;
}

void trace_capture_memory_write(struct trace_capture *tc, int cpu_index, const void *bytes,
                                size_t len)
{
    struct capture_cpu *c = &tc->cpu[cpu_index];
    const uint8_t *p = bytes;
    uint64_t head = c->meta->data_head;
    for (size_t k = 0; k < len; k++)
        c->data[(head + k) & (tc->data_bytes - 1)] = p[k];
    __atomic_store_n(&c->meta->data_head, head + len, __ATOMIC_RELEASE);
}

uint64_t trace_capture_lost(const struct trace_capture *tc)
{
    return tc->lost;
}

uint64_t trace_capture_events(const struct trace_capture *tc)
{
    return tc->events;
}

size_t trace_capture_counts(const struct trace_capture *tc, const char **event, uint64_t *count,
                            size_t max)
{
    size_t n = 0;
    for (int k = 0; k < tc->decoder.nformats && n < max; k++) {
        if (tc->decoder.count[k] == 0)
            continue;
        event[n] = tc->decoder.format[k].event;
        count[n++] = tc->decoder.count[k];
    }
    return n;
}

const char *trace_capture_missing(const struct trace_capture *tc)
{
    return tc->missing;
}

size_t trace_capture_buffer_bytes(const struct trace_capture *tc)
{
    return tc->data_bytes;
}

const char *trace_capture_ring(const struct trace_capture *tc)
{
    return tc->ring == RING_FTRACE ? "ftrace" : tc->ring == RING_PERF ? "perf" : "memory";
}

void trace_capture_close(struct trace_capture *tc)
{
    if (!tc)
        return;
    capture_ftrace_close(tc);
    for (int i = 0; i < tc->ncpu; i++) {
        struct capture_cpu *c = &tc->cpu[i];
        if (c->meta && tc->ring == RING_MEMORY)
            free(c->meta);
        else if (c->meta)
            munmap(c->meta, tc->map_bytes);
        for (int k = 0; k < c->nfds; k++)
            close(c->fds[k]);
    }
    free(tc->cpu);
    if (tc->tep)
        tep_free(tc->tep);
    free(tc);
}
