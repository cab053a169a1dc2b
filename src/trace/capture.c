/*
 * The live half of the tracepoint capture (see capture.h). tracefs gives the
 * event ids and formats (libtracefs mounts it on demand, as perf does, and
 * leaves it mounted: a mounted tracefs changes nothing until a tracer is
 * enabled), /proc/kallsyms the names of hrtimer callbacks and work
 * functions. Each CPU gets one ring buffer: the first event opened on it
 * owns the mmap, the others are redirected there with
 * PERF_EVENT_IOC_SET_OUTPUT, so one reader pass per CPU sees every event in
 * time order. Decoding is trace_decode.c's. The same reader also runs over
 * rings in plain memory (trace_capture_open_memory), which the unit tests
 * fill with the records they want.
 */
#include "trace/capture.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
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
#include <traceevent/kbuffer.h>
#include <unistd.h>

#include "trace/trace_decode.h"

#define MIN_BUFFER_BYTES (1u << 20)
#define MAX_BUFFER_BYTES (16u << 20)
/* The most one write of the kernel takes in the ring: a record (its size
 * is 16 bits) and the PERF_RECORD_LOST written with it. */
#define RECORD_MAX_BYTES (65536u + 128u)

struct capture_cpu {
    int cpu;
    int fds[TRACE_MAX_FORMATS];       /* fds[0] owns the ring */
    int format_of[TRACE_MAX_FORMATS]; /* fds[k] is decoder.format[format_of[k]] */
    int nfds;
    struct perf_event_mmap_page *meta;
    uint8_t *data;
    uint64_t tail;
    /* The ring may have been full since a read: records may have been
     * dropped whose PERF_RECORD_LOST the kernel writes only with the next
     * record that fits, which will lie at or after clear_at (the head once
     * the reader had made room). */
    bool may_have_lost;
    uint64_t clear_at;
    /* ftrace: the CPU's trace_pipe_raw, the sub-buffer last read from it
     * and where in it the reader is */
    struct tracefs_cpu *tcpu;
    struct kbuffer *kbuf;
    void *page;
    bool loaded;
};

/* Where the records are written: an ftrace instance of our own (the
 * kernel's trace ring, the cheapest write on the measured CPU), perf rings
 * (where no instance can be made), or plain memory (the unit tests). */
enum capture_ring { RING_FTRACE, RING_PERF, RING_MEMORY };

struct trace_capture {
    struct tep_handle *tep;
    struct trace_decoder decoder;
    int ncpu;
    struct capture_cpu *cpu;
    size_t map_bytes;  /* meta page + data */
    size_t data_bytes; /* a power of two */
    uint64_t lost;
    uint64_t events;
    enum capture_ring ring;
    struct tracefs_instance *inst; /* RING_FTRACE */
    char missing[512];
};

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

static void add_missing(struct trace_capture *tc, const char *system, const char *event)
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
            add_missing(tc, w->system, w->event);
    }
    char **vectors = tracefs_system_events(dir, "irq_vectors");
    for (size_t i = 0; vectors && vectors[i]; i++)
        trace_decoder_add_vector(&tc->decoder, tc->tep, vectors[i]); /* vector_* are not */
    if (!vectors)
        add_missing(tc, "irq_vectors", "*");
    tracefs_list_free(vectors);
}

/* A bench aid: JITTERLAB_TRACE_EVENTS="sched,irq_vectors:local_timer_entry,..."
 * opens only the events of the systems or the system:event names listed,
 * so that what each costs the measured CPU can be measured apart. */
static bool event_selected(const char *event)
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
        if (!event_selected(f->event))
            continue;
        int fd = perf_open(f, c->cpu);
        if (fd < 0) {
            if (!refused)
                refused = errno;
            if (errno == ENOSYS || errno == EMFILE)
                break;
            if (first_cpu)
                add_missing(tc, f->event, NULL);
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

/* ---- the ftrace instance ---- */

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

void trace_capture_remove_stale(void)
{
    const char *dir = tracefs_tracing_dir();
    char path[4096];
    if (!dir || snprintf(path, sizeof(path), "%s/instances", dir) >= (int)sizeof(path))
        return;
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        int pid;
        char tail;
        if (sscanf(e->d_name, INSTANCE_PREFIX "%d-%*u%c", &pid, &tail) < 1 || pid <= 0 ||
            pid == (int)getpid() || jitterlab_alive(pid))
            continue;
        char inst[4096 + 256];
        snprintf(inst, sizeof(inst), "%s/%s", path, e->d_name);
        rmdir(inst); /* the kernel stops its events and frees its ring */
    }
    closedir(d);
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

static int event_write(struct trace_capture *tc, const char *event, const char *file,
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
static int ftrace_open(struct trace_capture *tc, const struct cpulist *cpus, size_t bytes_per_cpu,
                       char *err, size_t errlen)
{
    static unsigned serial;
    char name[64], text[64];
    snprintf(name, sizeof(name), INSTANCE_PREFIX "%d-%u", (int)getpid(), serial++);
    trace_capture_remove_stale();
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
        if (!event_selected(event))
            continue;
        if (event_write(tc, event, "enable", "1") == 0)
            enabled++;
        else
            add_missing(tc, event, NULL);
    }
    if (enabled == 0) {
        snprintf(err, errlen, "no tracepoint could be enabled in tracefs instance %s", name);
        return -1;
    }
    tc->ring = RING_FTRACE;
    return 0;
}

static void ftrace_close(struct trace_capture *tc)
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
static size_t ftrace_read(struct trace_capture *tc, struct capture_cpu *c, struct trace_event *out,
                          size_t max)
{
    size_t n = 0;
    while (n < max) {
        if (c->loaded) {
            unsigned long long ts;
            uint8_t *rec = kbuffer_read_event(c->kbuf, &ts);
            if (rec) {
                int size = kbuffer_event_size(c->kbuf);
                int rc = size > 0 ? trace_decode_record(&tc->decoder, rec, (uint32_t)size,
                                                        (int64_t)ts, c->cpu, &out[n])
                                  : -1;
                if (rc > 0) {
                    trace_decoder_count(&tc->decoder, rec);
                    n++;
                } else if (rc < 0) {
                    n = trace_decode_mark_lost(out, n, 1, &tc->lost);
                }
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
        if (ftrace_open(tc, cpus, bytes_per_cpu, err, errlen) == 0) {
            *out = tc;
            return 0;
        }
        ftrace_close(tc);
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

size_t trace_capture_read(struct trace_capture *tc, int cpu_index, struct trace_event *out,
                          size_t max)
{
    if (cpu_index < 0 || cpu_index >= tc->ncpu)
        return 0;
    struct capture_cpu *c = &tc->cpu[cpu_index];
    if (tc->ring == RING_FTRACE) {
        size_t n = ftrace_read(tc, c, out, max);
        for (size_t k = 0; k < n; k++)
            tc->events += out[k].kind != TRACE_LOST;
        return n;
    }
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
        return event_write(tc, event, "enable", "0");
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

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int trace_capture_tid_filter(const char *field, const int *tids, int n, char *out, size_t len)
{
    int *t = malloc((size_t)n * 3 * sizeof(*t));
    if (!t || n <= 0) {
        free(t);
        return -1;
    }
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

int trace_capture_filter_tids(struct trace_capture *tc, const char *event, const char *field,
                              const int *tids)
{
    char filter[TRACE_FILTER_RANGES * 96];
    if (tc->ring == RING_FTRACE)
        return trace_capture_tid_filter(field, tids, tc->ncpu, filter, sizeof(filter)) == 0
                   ? event_write(tc, event, "filter", filter)
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
    ftrace_close(tc);
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
