/*
 * `run --explain` on the collector thread (see explain.h). Per measured
 * CPU: a linear window of the newest decoded events (compacted, never
 * grown), the spikes waiting for their events, and a latency histogram
 * for the default threshold. A spike waits until the trace has covered its
 * wake-up: a record of its CPU later than the wake-up has been read, or
 * the buffer was read empty after the drain that delivered it while the
 * ring cannot have dropped anything (the kernel writes each event when it
 * happens, and a drop only when the ring is full), or the run ended. A
 * ring that overflowed says so only with the next record that fits
 * (PERF_RECORD_LOST), so a buffer read empty proves nothing then. The
 * losses are kept as gaps in time (between the records read around each
 * loss), and exactly the spikes whose window meets a gap are flagged.
 */
#include "trace/explain.h"

#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/histogram.h"
#include "sys/cpuidle.h"
#include "sys/system_info.h"
#include "trace/attribute.h"
#include "trace/capture.h"

#define EXPLAIN_SCHED_DEADLINE 6 /* SCHED_DEADLINE, which not every libc names */

#define WINDOW_EVENTS  32768 /* per CPU: ~3 MiB */
#define CHUNK_EVENTS   2048
#define PENDING_SPIKES 1024 /* per CPU between two drain passes */
#define P50_EVERY      256  /* samples between two updates of the median */
#define GAPS           64   /* per CPU; the oldest two are merged beyond it */
#define BUFFER_ENV     "JITTERLAB_TRACE_BUFFER_BYTES" /* a test aid: force overflows */

/* A stretch of time without events: records were lost between from_ns
 * and to_ns (the records read around the loss). */
struct trace_gap {
    int64_t from_ns;
    int64_t to_ns;
};

struct pending_spike {
    int64_t planned_ns;
    int64_t wake_ns;
    int64_t prev_end_ns;
    unsigned flags;
};

struct explain_cpu {
    int cpu;
    int tid;
    struct trace_event *window;
    size_t nwindow;
    struct pending_spike *pending;
    size_t npending;
    struct latency_hist hist;
    uint64_t since_p50;
    int64_t p50_ns;
    int64_t prev_end_ns; /* end of the previous cycle's work; < 0: unknown */
    uint64_t spikes;
    int64_t last_event_ns; /* the newest record read; INT64_MIN: none yet */
    bool gap_open;         /* records lost after last_event_ns, none read since */
    struct trace_gap gap[GAPS];
    size_t ngaps;
};

/* The trace buffer per CPU: the test aid's size when it is set (4 KiB ..
 * 16 MiB), else enough for the poll period at this interval. */
static size_t buffer_bytes(const struct explain_config *cfg)
{
    const char *env = getenv(BUFFER_ENV);
    unsigned long long v = env ? strtoull(env, NULL, 10) : 0;
    if (v >= 4096 && v <= (16u << 20))
        return (size_t)v;
    return trace_capture_bytes_for(cfg->interval_ns, cfg->poll_period_ns);
}

int explain_open(struct explain *x, const struct explain_config *cfg, char *err, size_t errlen)
{
    memset(x, 0, sizeof(*x));
    x->cfg = *cfg;
    x->ncpu = cfg->cpus->count;
    err[0] = '\0';
    if (cfg->capture)
        x->capture = cfg->capture;
    else if (trace_capture_open(cfg->cpus, buffer_bytes(cfg), &x->capture, err, errlen) != 0)
        x->capture = NULL; /* the window method: spikes are only detected and counted */
    int max_cpu = 0;
    for (int i = 0; i < x->ncpu; i++)
        if (cfg->cpus->cpu[i] > max_cpu)
            max_cpu = cfg->cpus->cpu[i];
    x->cpu = calloc((size_t)x->ncpu, sizeof(*x->cpu));
    x->kept_policy = calloc(cfg->keep ? cfg->keep : 1, sizeof(*x->kept_policy));
    if (!x->cpu || !x->kept_policy || spikes_init(&x->store, cfg->keep, max_cpu + 1) != 0)
        goto oom;
    for (int i = 0; i < x->ncpu; i++) {
        struct explain_cpu *c = &x->cpu[i];
        c->cpu = cfg->cpus->cpu[i];
        c->prev_end_ns = -1;
        c->last_event_ns = INT64_MIN;
        latency_hist_init(&c->hist);
        if (!x->capture)
            continue;
        c->window = calloc(WINDOW_EVENTS, sizeof(*c->window));
        c->pending = calloc(PENDING_SPIKES, sizeof(*c->pending));
        if (!c->window || !c->pending)
            goto oom;
        /* resident before the run: the collector never faults them in */
        memset(c->window, 0, WINDOW_EVENTS * sizeof(*c->window));
    }
    return x->capture ? 0 : 1;
oom:
    snprintf(err, errlen, "out of memory for the trace windows");
    explain_free(x);
    return -1;
}

/* What tells the attribution which expiry is the measuring thread's (E,
 * attribute.h), at the least cost on the wake-up path: the timer its sleep
 * armed, hrtimer_start filtered in the kernel to the thread (recorded when
 * it goes to sleep, off the wake-up path), and then no sched_waking at all
 * (one record less inside the timer interrupt, every cycle). When the
 * kernel refuses that filter: sched_waking filtered to the thread instead,
 * and no hrtimer_start (every timer armed on the CPU would be recorded).
 * Other tasks are named by their switches either way. */
static void record_own_timer_only(struct trace_capture *tc, const int *tids)
{
    if (trace_capture_filter_tids(tc, "timer:hrtimer_start", "common_pid", tids) == 0) {
        trace_capture_drop_event(tc, "sched:sched_waking");
        return;
    }
    trace_capture_drop_event(tc, "timer:hrtimer_start");
    trace_capture_filter_tids(tc, "sched:sched_waking", "pid", tids); /* refused: all are kept */
}

int explain_start(struct explain *x, int64_t start_ns, const int *tids)
{
    x->start_ns = start_ns;
    for (int i = 0; i < x->ncpu; i++)
        x->cpu[i].tid = tids[i];
    if (x->capture)
        record_own_timer_only(x->capture, tids);
    return x->capture ? trace_capture_enable(x->capture) : 0;
}

static int cpu_index(const struct explain *x, int cpu)
{
    for (int i = 0; i < x->ncpu; i++)
        if (x->cpu[i].cpu == cpu)
            return i;
    return -1;
}

/* First index in [0, n) whose time is >= t (events are in time order). */
static size_t first_at_or_after(const struct trace_event *ev, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ev[mid].t_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether a live task's policy and real-time priority are what the trace
 * says of the task that ran (its kernel priority): else the pid is another
 * task's by now, or the task changed its policy since. */
static bool policy_fits(int policy, int rt_priority, int32_t prio)
{
    if (prio < 0)
        return policy == EXPLAIN_SCHED_DEADLINE;
    if (prio < 100)
        return (policy == SCHED_FIFO || policy == SCHED_RR) && rt_priority == 99 - prio;
    return policy == SCHED_OTHER || policy == SCHED_BATCH || policy == SCHED_IDLE;
}

/* The policy of a task now, within a poll period of its spike, when it
 * still fits the trace's priority (policy_fits); a task that has ended
 * since (a disturber that stopped right after its last burst) keeps the
 * policy last read for its pid at the same priority. -1 when not known:
 * the trace's priority then names the class alone. */
static int policy_of(struct explain *x, int32_t pid, int32_t prio)
{
    if (pid <= 0)
        return -1;
    int policy = sched_getscheduler(pid);
    struct sched_param sp = {0};
    if (policy >= 0 && sched_getparam(pid, &sp) == 0 &&
        policy_fits(policy & ~SCHED_RESET_ON_FORK, sp.sched_priority, prio)) {
        policy &= ~SCHED_RESET_ON_FORK;
        struct explain_policy_seen seen = {pid, prio, (int16_t)policy};
        for (size_t k = 0; k < EXPLAIN_POLICIES_SEEN; k++)
            if (x->seen[k].pid == pid || x->seen[k].pid == 0) {
                x->seen[k] = seen;
                return policy;
            }
        x->seen[x->next_seen++ % EXPLAIN_POLICIES_SEEN] = seen;
        return policy;
    }
    for (size_t k = 0; k < EXPLAIN_POLICIES_SEEN; k++)
        if (x->seen[k].pid == pid && x->seen[k].prio == prio)
            return x->seen[k].policy;
    return -1;
}

/* Whether records were lost in [from_ns, to_ns]. */
static bool gap_meets(const struct explain_cpu *c, int64_t from_ns, int64_t to_ns)
{
    if (c->gap_open && to_ns >= c->last_event_ns)
        return true;
    for (size_t k = 0; k < c->ngaps; k++)
        if (c->gap[k].from_ns <= to_ns && from_ns <= c->gap[k].to_ns)
            return true;
    return false;
}

/* Keeps a gap; beyond GAPS the oldest two become one that spans both, so
 * that a spike in either is still flagged. */
static void add_gap(struct explain_cpu *c, int64_t from_ns, int64_t to_ns)
{
    if (c->ngaps == GAPS) {
        c->gap[1].from_ns = c->gap[0].from_ns;
        memmove(c->gap, c->gap + 1, (GAPS - 1) * sizeof(*c->gap));
        c->ngaps--;
    }
    c->gap[c->ngaps++] = (struct trace_gap){from_ns, to_ns};
}

/* Takes the n events just decoded at the window's end: the loss markers
 * become gaps between the records around them and leave the window. */
static void take_events(struct explain_cpu *c, size_t n)
{
    struct trace_event *ev = c->window + c->nwindow;
    size_t kept = 0;
    for (size_t k = 0; k < n; k++) {
        if (ev[k].kind == TRACE_LOST) {
            c->gap_open = true;
            continue;
        }
        if (c->gap_open) {
            add_gap(c, c->last_event_ns, ev[k].t_ns);
            c->gap_open = false;
        }
        if (ev[k].t_ns > c->last_event_ns)
            c->last_event_ns = ev[k].t_ns;
        if (kept != k)
            ev[kept] = ev[k];
        kept++;
    }
    c->nwindow += kept;
}

static void attribute_pending(struct explain *x, struct explain_cpu *c,
                              const struct pending_spike *p)
{
    /* One interval before the previous cycle's end: the state at the
     * planned time (who runs, what handler is open) is rebuilt from it. */
    size_t lo = first_at_or_after(c->window, c->nwindow, p->prev_end_ns - x->cfg.interval_ns);
    size_t hi = first_at_or_after(c->window, c->nwindow, p->wake_ns + 1);
    struct spike_request req = {.cpu = c->cpu,
                                .tid = c->tid,
                                .planned_ns = p->planned_ns,
                                .wake_ns = p->wake_ns,
                                .prev_end_ns = p->prev_end_ns,
                                .flags = p->flags,
                                .hypervisor = x->cfg.platform.hypervisor,
                                .idle_driver = x->cfg.platform.idle_driver,
                                .idle_exit_latency_max_ns =
                                    x->cfg.platform.idle_exit_latency_max_ns};
    if (lo == 0 && c->nwindow > 0 && c->window[0].t_ns > p->prev_end_ns)
        req.flags |= SPIKE_EVENTS_LOST; /* the window no longer reaches back far enough */
    if (gap_meets(c, p->prev_end_ns - x->cfg.interval_ns, p->wake_ns))
        req.flags |= SPIKE_EVENTS_LOST;
    struct spike s;
    attribute_spike(c->window + lo, hi > lo ? hi - lo : 0, &req, &s);
    for (size_t j = 0; j < s.ncauses && j < SPIKE_CAUSES_MAX; j++)
        s.causes[j].policy = (int16_t)(s.causes[j].kind == CAUSE_THREAD
                                           ? policy_of(x, s.causes[j].pid, s.causes[j].prio)
                                           : -1);
    if (x->cfg.attributed)
        x->cfg.attributed(x->cfg.attributed_arg, (int)(c - x->cpu), &s);
    spikes_add(&x->store, &s);
}

/* Attributes the pending spikes that woke before `before` (all of them
 * with INT64_MAX), keeping the others in order. */
static void attribute_ready(struct explain *x, struct explain_cpu *c, int64_t before)
{
    size_t left = 0;
    for (size_t k = 0; k < c->npending; k++) {
        if (c->pending[k].wake_ns < before)
            attribute_pending(x, c, &c->pending[k]);
        else
            c->pending[left++] = c->pending[k];
    }
    c->npending = left;
}

/* Makes room for one more chunk: keeps what the oldest pending spike needs,
 * or the newest half of the window when that is too much. */
static void compact_window(struct explain *x, struct explain_cpu *c)
{
    if (c->nwindow + CHUNK_EVENTS <= WINDOW_EVENTS)
        return;
    int64_t need_from = c->nwindow ? c->window[c->nwindow - 1].t_ns - 2 * x->cfg.interval_ns : 0;
    for (size_t k = 0; k < c->npending; k++)
        if (c->pending[k].prev_end_ns - x->cfg.interval_ns < need_from)
            need_from = c->pending[k].prev_end_ns - x->cfg.interval_ns;
    size_t from = first_at_or_after(c->window, c->nwindow, need_from);
    if (c->nwindow - from > WINDOW_EVENTS / 2) {
        from = c->nwindow - WINDOW_EVENTS / 2;
        for (size_t k = 0; k < c->npending; k++)
            c->pending[k].flags |= SPIKE_EVENTS_LOST;
    }
    memmove(c->window, c->window + from, (c->nwindow - from) * sizeof(*c->window));
    c->nwindow -= from;
    /* A spike whose window starts before the first event kept is flagged
     * anyway (attribute_pending): older gaps no longer matter. */
    size_t old = 0;
    while (old < c->ngaps && c->nwindow > 0 &&
           c->gap[old].to_ns < c->window[0].t_ns - x->cfg.interval_ns)
        old++;
    memmove(c->gap, c->gap + old, (c->ngaps - old) * sizeof(*c->gap));
    c->ngaps -= old;
}

/* Reads the CPU's trace buffer empty; attributes the spikes it covers. */
static void read_cpu(struct explain *x, int i, bool last)
{
    struct explain_cpu *c = &x->cpu[i];
    size_t n;
    do {
        compact_window(x, c);
        n = trace_capture_read(x->capture, i, c->window + c->nwindow, CHUNK_EVENTS);
        take_events(c, n);
        /* woke before the newest record: all their events are in */
        attribute_ready(x, c, c->last_event_ns);
    } while (n == CHUNK_EVENTS);
    bool may_have_lost = c->gap_open || trace_capture_may_have_lost(x->capture, i);
    if (last && may_have_lost) {
        /* The run is over and a loss the kernel never reported may lie
         * after the last record: a spike that reaches past it is flagged. */
        c->gap_open = true;
        attribute_ready(x, c, INT64_MAX);
    } else if (last || !may_have_lost) {
        attribute_ready(x, c, INT64_MAX); /* read empty, nothing dropped: every event is in */
    }
}

static bool add_pending(struct explain *x, struct explain_cpu *c, const struct pending_spike *p)
{
    if (c->npending == PENDING_SPIKES && x->cfg.busy)
        return false; /* a storm of gaps: counted, not attributed */
    if (c->npending == PENDING_SPIKES) {
        /* More spikes than a pass can hold: explain the oldest with what
         * the window has now. */
        c->pending[0].flags |= SPIKE_EVENTS_LOST;
        attribute_pending(x, c, &c->pending[0]);
        memmove(c->pending, c->pending + 1, (c->npending - 1) * sizeof(*c->pending));
        c->npending--;
    }
    c->pending[c->npending++] = *p;
    return true;
}

static int64_t threshold_of(const struct explain *x, const struct explain_cpu *c)
{
    if (x->cfg.threshold_ns > 0)
        return x->cfg.threshold_ns;
    int64_t t = EXPLAIN_P50_FACTOR * c->p50_ns;
    return t > EXPLAIN_MIN_THRESHOLD_NS ? t : EXPLAIN_MIN_THRESHOLD_NS;
}

bool explain_sample(struct explain *x, int cpu, const struct cycle_sample *s)
{
    int i = cpu_index(x, cpu);
    if (i < 0)
        return false;
    struct explain_cpu *c = &x->cpu[i];
    int64_t wake = x->start_ns + s->t_ns;
    int64_t planned = wake - s->latency_ns;
    if (x->cfg.busy) {
        c->spikes++;
        return x->capture && add_pending(x, c,
                                         &(struct pending_spike){.planned_ns = planned,
                                                                 .wake_ns = wake,
                                                                 .prev_end_ns = planned,
                                                                 .flags = SPIKE_BUSY});
    }
    int64_t prev_end =
        c->prev_end_ns >= 0 && s->missed == 0 ? c->prev_end_ns : planned - x->cfg.interval_ns;
    c->prev_end_ns = wake + s->exec_ns;
    latency_hist_add(&c->hist, s->latency_ns);
    /* For the first P50_EVERY samples the median follows every sample:
     * compared with a median of 0, they would all be spikes above 50 us. */
    if (++c->since_p50 >= P50_EVERY || c->hist.count <= P50_EVERY) {
        c->p50_ns = latency_hist_percentile(&c->hist, 50);
        c->since_p50 = 0;
    }
    if (s->latency_ns <= threshold_of(x, c))
        return false;
    c->spikes++;
    if (x->capture)
        add_pending(
            x, c,
            &(struct pending_spike){
                .planned_ns = planned, .wake_ns = wake, .prev_end_ns = prev_end, .flags = 0});
    return true;
}

void explain_drained(struct explain *x)
{
    if (!x->capture)
        return;
    for (int i = 0; i < x->ncpu; i++)
        read_cpu(x, i, false);
}

uint64_t explain_spikes(const struct explain *x)
{
    uint64_t n = 0;
    for (int i = 0; i < x->ncpu; i++)
        n += x->cpu[i].spikes;
    return n;
}

void explain_platform_read(const struct sysroot *sr, const struct system_info *si,
                           const struct cpulist *cpus, struct explain_platform *out)
{
    *out = (struct explain_platform){.hypervisor = si->hypervisor[0] != '\0'};
    struct cpuidle_info ci;
    struct read_notes *notes = calloc(1, sizeof *notes);
    if (!notes || cpuidle_read(sr, cpus, &ci, notes) != 0) {
        free(notes);
        return;
    }
    /* no driver, or no cpuidle at all: the kernel's default idle, a halt */
    out->idle_driver = ci.driver[0] && strcmp(ci.driver, "none") != 0;
    for (int i = 0; i < ci.ncpu; i++)
        for (int k = 0; k < ci.cpu[i].nstates; k++) {
            int64_t us = ci.cpu[i].state[k].latency_us;
            if (us != VALUE_UNKNOWN && us * 1000 > out->idle_exit_latency_max_ns)
                out->idle_exit_latency_max_ns = us * 1000;
        }
    cpuidle_free(&ci);
    free(notes);
}

const char *explain_thread_policy(int32_t prio, int policy)
{
    if (prio < 0)
        return "SCHED_DEADLINE";
    if (prio < 100)
        return policy == SCHED_RR     ? "SCHED_RR"
               : policy == SCHED_FIFO ? "SCHED_FIFO"
                                      : "SCHED_FIFO/RR";
    return policy == SCHED_BATCH  ? "SCHED_BATCH"
           : policy == SCHED_IDLE ? "SCHED_IDLE"
                                  : "SCHED_OTHER";
}

void explain_finish(struct explain *x)
{
    if (x->finished)
        return;
    x->finished = true;
    if (!x->capture)
        return;
    trace_capture_disable(x->capture);
    for (int i = 0; i < x->ncpu; i++)
        read_cpu(x, i, true);
    x->events = trace_capture_events(x->capture);
    x->events_lost = trace_capture_lost(x->capture);
    x->ntracepoints = trace_capture_counts(x->capture, x->tracepoint, x->tracepoint_events,
                                           EXPLAIN_TRACEPOINTS_MAX);
    x->kept = spikes_sorted_by_time(&x->store, &x->kept_count);
    x->nrows = spikes_summary(&x->store, x->rows, SPIKES_GROUPS_MAX + 1);
    /* The policy seen when each spike was explained; the live task's when
     * that was unknown. */
    for (size_t k = 0; k < x->kept_count; k++)
        for (size_t j = 0; j < x->kept[k].ncauses && j < SPIKE_CAUSES_MAX; j++)
            x->kept_policy[k][j] =
                x->kept[k].causes[j].kind == CAUSE_THREAD
                    ? explain_thread_policy(x->kept[k].causes[j].prio, x->kept[k].causes[j].policy)
                    : NULL;
    for (size_t r = 0; r < x->nrows; r++)
        x->row_policy[r] = x->rows[r].kind == CAUSE_THREAD
                               ? explain_thread_policy(x->rows[r].prio, x->rows[r].policy)
                               : NULL;
}

int explain_by_windows(struct explain *x, const struct telemetry_window *w, size_t n,
                       const char *const *softirq_names, int nsoftirq)
{
    window_explanation_free(&x->windows);
    return window_explain(w, n, softirq_names, nsoftirq, &x->windows);
}

uint64_t explain_cpu_spikes(const struct explain *x, int i)
{
    return x->cpu[i].spikes;
}

void explain_free(struct explain *x)
{
    if (x->cpu)
        for (int i = 0; i < x->ncpu; i++) {
            free(x->cpu[i].window);
            free(x->cpu[i].pending);
        }
    free(x->cpu);
    free(x->kept_policy);
    spikes_free(&x->store);
    window_explanation_free(&x->windows);
    trace_capture_close(x->capture);
    memset(x, 0, sizeof(*x));
}
