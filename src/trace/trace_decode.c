/*
 * The pure half of the tracepoint capture (see trace_decode.h): the table of
 * tracepoints with the role of each field, the layouts taken from
 * libtraceevent, and the bounded reader of perf records. Every read from the
 * ring or a raw record is checked against the bytes that are really there
 * first; what does not fit is lost, counted, and the reader moves on.
 */
#include "trace/trace_decode.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <traceevent/event-parse.h>

/* Field name per role, or NULL (one row per tracepoint kind). */
struct event_fields {
    enum trace_kind kind;
    const char *field[ROLE_COUNT];
};

static const struct event_fields fields_by_kind[] = {
    {TRACE_IRQ_ENTRY, {[ROLE_ID] = "irq", [ROLE_NAME] = "name"}},
    {TRACE_IRQ_EXIT, {[ROLE_ID] = "irq", [ROLE_ARG] = "ret"}},
    {TRACE_SOFTIRQ_ENTRY, {[ROLE_SOFTIRQ] = "vec"}},
    {TRACE_SOFTIRQ_EXIT, {[ROLE_SOFTIRQ] = "vec"}},
    {TRACE_VECTOR_ENTRY, {[ROLE_ID] = "vector"}},
    {TRACE_VECTOR_EXIT, {[ROLE_ID] = "vector"}},
    {TRACE_HRTIMER_ENTRY, {[ROLE_ID] = "hrtimer", [ROLE_ARG] = "now", [ROLE_FUNC] = "function"}},
    {TRACE_HRTIMER_EXIT, {[ROLE_ID] = "hrtimer"}},
    {TRACE_IDLE, {[ROLE_ARG] = "state"}},
    {TRACE_SWITCH,
     {[ROLE_PID] = "next_pid",
      [ROLE_PRIO] = "next_prio",
      [ROLE_NAME] = "next_comm",
      [ROLE_PREV_PID] = "prev_pid",
      [ROLE_PREV_PRIO] = "prev_prio",
      [ROLE_PREV_COMM] = "prev_comm",
      [ROLE_ARG] = "prev_state"}},
    {TRACE_WAKING,
     {[ROLE_PID] = "pid", [ROLE_PRIO] = "prio", [ROLE_NAME] = "comm", [ROLE_ARG] = "target_cpu"}},
    {TRACE_WORK_START, {[ROLE_ID] = "work", [ROLE_FUNC] = "function"}},
    {TRACE_WORK_END, {[ROLE_ID] = "work"}},
    {TRACE_HRTIMER_START, {[ROLE_ID] = "hrtimer"}},
};

const struct trace_wanted trace_wanted_events[] = {
    {"sched", "sched_switch", TRACE_SWITCH},
    {"sched", "sched_waking", TRACE_WAKING},
    {"irq", "irq_handler_entry", TRACE_IRQ_ENTRY},
    {"irq", "irq_handler_exit", TRACE_IRQ_EXIT},
    {"irq", "softirq_entry", TRACE_SOFTIRQ_ENTRY},
    {"irq", "softirq_exit", TRACE_SOFTIRQ_EXIT},
    {"timer", "hrtimer_expire_entry", TRACE_HRTIMER_ENTRY},
    {"timer", "hrtimer_expire_exit", TRACE_HRTIMER_EXIT},
    {"timer", "hrtimer_start", TRACE_HRTIMER_START},
    {"power", "cpu_idle", TRACE_IDLE},
    {"workqueue", "workqueue_execute_start", TRACE_WORK_START},
    {"workqueue", "workqueue_execute_end", TRACE_WORK_END},
};
const size_t trace_wanted_count = sizeof(trace_wanted_events) / sizeof(trace_wanted_events[0]);

/* include/linux/interrupt.h order, as softirq_entry's print format names them. */
static const char *const softirq_names[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                            "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

void trace_decoder_init(struct trace_decoder *d)
{
    memset(d, 0, sizeof(*d));
}

static const struct event_fields *fields_of(enum trace_kind kind)
{
    for (size_t i = 0; i < sizeof(fields_by_kind) / sizeof(fields_by_kind[0]); i++)
        if (fields_by_kind[i].kind == kind)
            return &fields_by_kind[i];
    return NULL;
}

static int add_format(struct trace_decoder *d, struct tep_handle *tep, const char *system,
                      const char *event, enum trace_kind kind, const char *fixed_name)
{
    struct tep_event *ev = tep ? tep_find_event_by_name(tep, system, event) : NULL;
    const struct event_fields *roles = fields_of(kind);
    if (!ev || !roles || d->nformats >= TRACE_MAX_FORMATS || ev->id < 0 || ev->id > 65535)
        return -1;
    struct trace_format *f = &d->format[d->nformats];
    memset(f, 0, sizeof(*f));
    f->id = (uint16_t)ev->id;
    f->kind = (uint16_t)kind;
    snprintf(f->name, sizeof(f->name), "%s", fixed_name ? fixed_name : "");
    snprintf(f->event, sizeof(f->event), "%s:%s", system, event);
    for (int r = 0; r < ROLE_COUNT; r++) {
        if (!roles->field[r])
            continue;
        struct tep_format_field *tf = tep_find_field(ev, roles->field[r]);
        if (!tf || tf->offset < 0 || tf->size <= 0 || tf->offset > 65535 || tf->size > 65535)
            continue; /* an older kernel without the field: the member stays 0 */
        f->field[r] = (struct trace_field){.offset = (uint16_t)tf->offset,
                                           .size = (uint16_t)tf->size,
                                           .present = 1,
                                           .dynamic = (tf->flags & TEP_FIELD_IS_DYNAMIC) != 0};
    }
    d->index_of[f->id] = (uint8_t)(d->nformats + 1);
    d->nformats++;
    return 0;
}

int trace_decoder_add(struct trace_decoder *d, struct tep_handle *tep, const char *system,
                      const char *event, enum trace_kind kind)
{
    return add_format(d, tep, system, event, kind, NULL);
}

int trace_decoder_add_vector(struct trace_decoder *d, struct tep_handle *tep, const char *event)
{
    size_t len = strlen(event);
    char name[TRACE_COMM_LEN * 2];
    enum trace_kind kind;
    if (len > 6 && strcmp(event + len - 6, "_entry") == 0) {
        kind = TRACE_VECTOR_ENTRY;
        len -= 6;
    } else if (len > 5 && strcmp(event + len - 5, "_exit") == 0) {
        kind = TRACE_VECTOR_EXIT;
        len -= 5;
    } else {
        return -1;
    }
    if (len >= sizeof(name))
        len = sizeof(name) - 1;
    memcpy(name, event, len);
    name[len] = '\0';
    return add_format(d, tep, "irq_vectors", event, kind, name);
}

/* Little-endian host: the raw fields are in host order. */
static uint64_t read_uint(const uint8_t *p, uint16_t size)
{
    uint8_t b1;
    uint16_t b2;
    uint32_t b4;
    uint64_t b8;
    switch (size) {
    case 1:
        memcpy(&b1, p, 1);
        return b1;
    case 2:
        memcpy(&b2, p, 2);
        return b2;
    case 4:
        memcpy(&b4, p, 4);
        return b4;
    default:
        memcpy(&b8, p, 8);
        return b8;
    }
}

/* A C string of at most len bytes into dst (always terminated). */
static void copy_name(char *dst, size_t cap, const uint8_t *src, size_t len)
{
    size_t n = 0;
    while (n < len && n + 1 < cap && src[n])
        n++;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int trace_decode_raw(const struct trace_decoder *d, const uint8_t *raw, uint32_t raw_size,
                     struct trace_event *ev)
{
    if (raw_size < 2)
        return -1;
    uint16_t type;
    memcpy(&type, raw, 2);
    uint8_t idx = d->index_of[type];
    if (!idx || idx > d->nformats)
        return 0;
    const struct trace_format *f = &d->format[idx - 1];
    ev->kind = f->kind;
    memcpy(ev->name, f->name, sizeof(ev->name));
    for (int r = 0; r < ROLE_COUNT; r++) {
        const struct trace_field *tf = &f->field[r];
        if (!tf->present)
            continue;
        if ((uint32_t)tf->offset + tf->size > raw_size)
            return -1;
        const uint8_t *p = raw + tf->offset;
        if (r == ROLE_NAME || r == ROLE_PREV_COMM) {
            char *dst = r == ROLE_NAME ? ev->name : ev->prev_comm;
            size_t cap = r == ROLE_NAME ? sizeof(ev->name) : sizeof(ev->prev_comm);
            if (tf->dynamic) {
                if (tf->size != 4)
                    return -1;
                uint32_t loc = (uint32_t)read_uint(p, 4);
                uint32_t off = loc & 0xffff, len = loc >> 16;
                if (off + len > raw_size)
                    return -1;
                copy_name(dst, cap, raw + off, len);
            } else {
                copy_name(dst, cap, p, tf->size);
            }
            continue;
        }
        if (tf->size != 1 && tf->size != 2 && tf->size != 4 && tf->size != 8)
            return -1;
        uint64_t v = read_uint(p, tf->size);
        int64_t sv = tf->size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
        switch (r) {
        case ROLE_PID:
            ev->pid = (int32_t)sv;
            break;
        case ROLE_PRIO:
            ev->prio = (int32_t)sv;
            break;
        case ROLE_PREV_PID:
            ev->prev_pid = (int32_t)sv;
            break;
        case ROLE_PREV_PRIO:
            ev->prev_prio = (int32_t)sv;
            break;
        case ROLE_ARG:
            ev->arg = sv;
            break;
        case ROLE_ID:
            ev->id = v;
            break;
        case ROLE_FUNC: {
            const char *sym = d->symbols ? tep_find_function(d->symbols, v) : NULL;
            if (sym)
                snprintf(ev->name, sizeof(ev->name), "%s", sym);
            else
                snprintf(ev->name, sizeof(ev->name), "0x%llx", (unsigned long long)v);
            break;
        }
        case ROLE_SOFTIRQ:
            ev->id = v;
            if (v < sizeof(softirq_names) / sizeof(softirq_names[0]))
                snprintf(ev->name, sizeof(ev->name), "%s", softirq_names[v]);
            else
                snprintf(ev->name, sizeof(ev->name), "vec%llu", (unsigned long long)v);
            break;
        default:
            break;
        }
    }
    return 1;
}

/* len bytes at ring position pos (which may wrap) into dst. */
static void ring_copy(const uint8_t *data, uint64_t size, uint64_t pos, uint8_t *dst, size_t len)
{
    uint64_t at = pos & (size - 1);
    size_t first = (size_t)(size - at) < len ? (size_t)(size - at) : len;
    memcpy(dst, data + at, first);
    if (first < len)
        memcpy(dst + first, data, len - first);
}

/* What PERF_SAMPLE_TIME | RAW puts before the raw bytes: the time and the
 * raw size. Nothing more is asked of the kernel, since every record costs
 * the measured CPU: the ring is the CPU's own, and the task the event was
 * recorded in is the raw part's common_pid (offset 4 in every tracepoint). */
#define SAMPLE_HEAD_BYTES (8 + 4)
#define COMMON_PID_OFFSET 4

size_t trace_decode_append(struct trace_decoder *d, const uint8_t *raw, size_t raw_size,
                           int64_t t_ns, int cpu, struct trace_event *out, size_t n, uint64_t *lost)
{
    if (raw_size < COMMON_PID_OFFSET + 4 || raw_size > UINT32_MAX)
        return trace_decode_mark_lost(out, n, 1, lost);
    struct trace_event *ev = &out[n];
    int32_t pid;
    memcpy(&pid, raw + COMMON_PID_OFFSET, 4);
    memset(ev, 0, sizeof(*ev));
    ev->t_ns = t_ns;
    ev->cpu = (int16_t)cpu;
    ev->pid = pid;
    int rc = trace_decode_raw(d, raw, (uint32_t)raw_size, ev);
    if (rc < 0)
        return trace_decode_mark_lost(out, n, 1, lost);
    if (rc == 0)
        return n;  /* not one of ours */
    uint16_t type; /* decoded: the raw part holds its common_type */
    memcpy(&type, raw, 2);
    d->count[d->index_of[type] - 1]++;
    return n + 1;
}

size_t trace_decode_mark_lost(struct trace_event *out, size_t n, uint64_t records, uint64_t *lost)
{
    *lost += records;
    if (n > 0 && out[n - 1].kind == TRACE_LOST) {
        out[n - 1].arg += (int64_t)records;
        return n;
    }
    memset(&out[n], 0, sizeof(out[n]));
    out[n].kind = TRACE_LOST;
    out[n].cpu = -1;
    out[n].arg = (int64_t)records;
    return n + 1;
}

size_t trace_decode_ring(struct trace_decoder *d, const uint8_t *data, uint64_t size, uint64_t head,
                         uint64_t *tail, int cpu, struct trace_event *out, size_t max,
                         uint64_t *lost)
{
    size_t n = 0;
    uint64_t pos = *tail;
    if (max == 0)
        return 0;
    if (size == 0 || (size & (size - 1)) != 0 || head - pos > size) {
        /* Not a ring, or the writer lapped us: nothing in it can be trusted. */
        if (head != pos)
            n = trace_decode_mark_lost(out, n, 1, lost);
        *tail = head;
        return n;
    }
    while (n < max && head - pos >= sizeof(struct perf_event_header)) {
        struct perf_event_header h;
        ring_copy(data, size, pos, (uint8_t *)&h, sizeof(h));
        if (h.size < sizeof(h) || h.size > head - pos) {
            /* the record boundaries are gone: skip the rest */
            n = trace_decode_mark_lost(out, n, 1, lost);
            pos = head;
            break;
        }
        size_t body = h.size - sizeof(h);
        uint64_t at = (pos + sizeof(h)) & (size - 1);
        const uint8_t *rec = data + at;
        if (at + body > size) {
            ring_copy(data, size, pos + sizeof(h), d->scratch, body);
            rec = d->scratch;
        }
        if (h.type == PERF_RECORD_SAMPLE) {
            /* the time, the raw size, the raw bytes */
            uint64_t time;
            uint32_t raw_size;
            if (body < SAMPLE_HEAD_BYTES) {
                n = trace_decode_mark_lost(out, n, 1, lost);
            } else {
                memcpy(&time, rec, 8);
                memcpy(&raw_size, rec + 8, 4);
                n = raw_size > body - SAMPLE_HEAD_BYTES
                        ? trace_decode_mark_lost(out, n, 1, lost)
                        : trace_decode_append(d, rec + SAMPLE_HEAD_BYTES, raw_size, (int64_t)time,
                                              cpu, out, n, lost);
            }
        } else if (h.type == PERF_RECORD_LOST && body >= 16) {
            /* The kernel writes it just before the first record that fitted
             * again: the lost ones lie between the records around it. */
            uint64_t count;
            memcpy(&count, rec + 8, 8);
            n = trace_decode_mark_lost(out, n, count, lost);
        }
        pos += h.size;
    }
    *tail = pos;
    return n;
}
