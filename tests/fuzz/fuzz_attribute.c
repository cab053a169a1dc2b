/*
 * Fuzz target: the spike attribution (src/trace/attribute.c) and the spike
 * store. The first 8 bytes make the request (wake, prev_end, flags), every
 * further 8 bytes one event (time step that may go back, kind, CPU, pids,
 * state, id, a name from a small list or 32 bytes without a NUL). Whatever
 * the events, the parts must add up exactly to the latency, stay within
 * SPIKE_CAUSES_MAX, be non-negative, carry terminated names, and the
 * dominant part must be the largest.
 */
#include "fuzz.h"

#include "trace/attribute.h"
#include "trace/spikes.h"

#define FUZZ_EVENTS_MAX 512
#define FUZZ_TID        100

static const char *const fuzz_names[] = {
    "local_timer", "hrtimer_wakeup", "reschedule", "call_function", "eth0", "RCU", "disturb", ""};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct trace_event events[FUZZ_EVENTS_MAX];
    static struct spike_store store;
    static int store_ready;
    if (size < 8)
        return 0;
    if (!store_ready) {
        if (spikes_init(&store, 4, 2) != 0)
            abort();
        store_ready = 1;
    }
    const int64_t planned = 1000000;
    struct spike_request req = {
        .cpu = 1,
        .tid = FUZZ_TID,
        .planned_ns = planned,
        .wake_ns = planned + (int64_t)(data[0] | data[1] << 8) * 16 - 2048,
        .prev_end_ns = planned + (int64_t)(data[2] | data[3] << 8) * 16 - 524288,
        .flags = (data[4] & 1 ? SPIKE_EVENTS_LOST : 0) | (data[4] & 2 ? SPIKE_BUSY : 0),
    };
    size_t n = 0;
    int64_t t = planned - (int64_t)data[5] * 256;
    for (size_t off = 8; off + 8 <= size && n < FUZZ_EVENTS_MAX; off += 8, n++) {
        const uint8_t *b = data + off;
        struct trace_event *e = &events[n];
        memset(e, 0, sizeof *e);
        t += (int64_t)(int8_t)b[0] * 64;
        e->t_ns = t;
        e->kind = (uint16_t)(b[1] % (TRACE_KIND_COUNT + 1));
        e->cpu = (int16_t)(b[2] & 0x80 ? 0 : 1);
        e->pid = (b[2] & 0x40) ? FUZZ_TID : (int32_t)(b[2] & 3);
        e->prev_pid = (b[3] & 0x40) ? FUZZ_TID : (int32_t)(b[3] & 3);
        e->prio = b[3] & 0x80 ? 4 : 120;
        e->arg = (int64_t)(int8_t)b[4];
        e->id = b[5] & 3;
        if (b[6] & 0x80)
            memset(e->name, 'x', sizeof e->name);
        else
            snprintf(e->name, sizeof e->name, "%s", fuzz_names[b[6] & 7]);
        memset(e->prev_comm, b[7] & 1 ? 'p' : 0, sizeof e->prev_comm);
    }

    struct spike s;
    attribute_spike(events, n, &req, &s);
    if (s.latency_ns != req.wake_ns - req.planned_ns || s.ncauses > SPIKE_CAUSES_MAX)
        abort();
    if (s.latency_ns > 0) {
        int64_t sum = 0;
        for (unsigned i = 0; i < s.ncauses; i++) {
            if (s.causes[i].ns < 0 || s.causes[i].ns > s.causes[s.dominant].ns ||
                s.causes[i].kind >= CAUSE_KIND_COUNT ||
                strnlen(s.causes[i].name, sizeof s.causes[i].name) == sizeof s.causes[i].name)
                abort();
            sum += s.causes[i].ns;
        }
        if (sum != s.latency_ns || s.ncauses == 0)
            abort();
    } else if (s.ncauses != 0) {
        abort();
    }
    spikes_add(&store, &s);
    struct spike_summary_row rows[SPIKES_GROUPS_MAX + 1];
    char line[256];
    size_t rows_n = spikes_summary(&store, rows, SPIKES_GROUPS_MAX + 1);
    for (size_t i = 0; i < rows_n; i++)
        spike_summary_text(&rows[i], store.total, NULL, line, sizeof line);
    return 0;
}
