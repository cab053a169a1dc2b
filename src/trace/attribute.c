/*
 * Spike attribution (the model is written down in attribute.h). Four walks
 * over the events of one CPU, none of which allocates: the handlers already
 * open when the array starts (exits without entries), whether the CPU
 * starts idle and who runs; the expiry E of the thread's timer and the
 * switch S to it; the local-timer interrupt that runs E; then the timeline
 * from planned_ns to wake_ns, each piece going to the innermost activity,
 * and the running task corrected by every event that says in which task it
 * was recorded (switches out of the idle task may leave no event). The parts gather in a
 * small fixed table keyed by kind, name, pid and id, and are folded into at
 * most SPIKE_CAUSES_MAX at the end. Timestamps are clamped so that they never
 * go back, which is all the ordering the walks rely on.
 */
#include "trace/attribute.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const cause_kind_names[CAUSE_KIND_COUNT] = {
    [CAUSE_TIMER_IRQ_LATE] = "timer-irq-late",
    [CAUSE_IDLE_EXIT] = "idle-exit",
    [CAUSE_VCPU_WAKE_LATE] = "vcpu-wake-late",
    [CAUSE_IRQ] = "irq",
    [CAUSE_SOFTIRQ] = "softirq",
    [CAUSE_IPI] = "ipi",
    [CAUSE_TIMER] = "timer",
    [CAUSE_THREAD] = "thread",
    [CAUSE_WORKQUEUE] = "workqueue",
    [CAUSE_WAKEUP] = "wakeup",
    [CAUSE_UNEXPLAINED] = "unexplained",
};

const char *cause_kind_name(unsigned kind)
{
    return kind < CAUSE_KIND_COUNT ? cause_kind_names[kind] : "?";
}

int cause_kind_from_name(const char *name)
{
    for (unsigned k = 0; name && k < CAUSE_KIND_COUNT; k++)
        if (strcmp(name, cause_kind_names[k]) == 0)
            return (int)k;
    return -1;
}

const char *cause_policy_name(int32_t prio)
{
    if (prio < 0)
        return "SCHED_DEADLINE";
    return prio < 100 ? "SCHED_FIFO/RR" : "SCHED_OTHER";
}

int cause_user_priority(int32_t prio)
{
    return prio >= 0 && prio < 100 ? 99 - prio : 0;
}

/* ---- the handler stack ---- */

enum frame_type { FRAME_VECTOR, FRAME_IRQ, FRAME_SOFTIRQ, FRAME_HRTIMER, FRAME_WORK };

#define FRAME_DEPTH 8

struct frame {
    uint8_t type;
    bool ours;                    /* our hrtimer callback, or the interrupt that runs it */
    const struct trace_event *ev; /* the entry, or the exit for a frame open from the start */
};

struct handler_stack {
    struct frame f[FRAME_DEPTH];
    unsigned depth;
    unsigned untracked; /* entries nested deeper than FRAME_DEPTH, still open */
};

/* The frame type of a handler event, or -1; *entry says entry or exit. */
static int frame_type_of(unsigned kind, bool *entry)
{
    *entry = true;
    switch (kind) {
    case TRACE_VECTOR_EXIT:
        *entry = false;
        /* fall through */
    case TRACE_VECTOR_ENTRY:
        return FRAME_VECTOR;
    case TRACE_IRQ_EXIT:
        *entry = false;
        /* fall through */
    case TRACE_IRQ_ENTRY:
        return FRAME_IRQ;
    case TRACE_SOFTIRQ_EXIT:
        *entry = false;
        /* fall through */
    case TRACE_SOFTIRQ_ENTRY:
        return FRAME_SOFTIRQ;
    case TRACE_HRTIMER_EXIT:
        *entry = false;
        /* fall through */
    case TRACE_HRTIMER_ENTRY:
        return FRAME_HRTIMER;
    case TRACE_WORK_END:
        *entry = false;
        /* fall through */
    case TRACE_WORK_START:
        return FRAME_WORK;
    default:
        return -1;
    }
}

static bool frame_matches(const struct frame *f, int type, const struct trace_event *exit)
{
    if (f->type != type || f->ev->id != exit->id)
        return false;
    return type != FRAME_VECTOR || strncmp(f->ev->name, exit->name, sizeof exit->name) == 0;
}

static void stack_push(struct handler_stack *st, int type, const struct trace_event *ev, bool ours)
{
    if (st->depth < FRAME_DEPTH)
        st->f[st->depth++] = (struct frame){(uint8_t)type, ours, ev};
    else
        st->untracked++;
}

/* Closes the frame an exit ends (and any left open above it). Returns false
 * for an exit whose entry is not on the stack. */
static bool stack_pop(struct handler_stack *st, int type, const struct trace_event *exit)
{
    if (st->untracked > 0) {
        st->untracked--;
        return true;
    }
    for (unsigned i = st->depth; i-- > 0;) {
        if (frame_matches(&st->f[i], type, exit)) {
            st->depth = i;
            return true;
        }
    }
    return false;
}

/* ---- walking the events ---- */

#define IDLE_NONE    (-1) /* not in an idle state */
#define IDLE_UNKNOWN (-2) /* idle, state not known */
/* cpu_idle's state is an unsigned 32-bit field; PWR_EVENT_EXIT is its -1. */
#define IDLE_STATE_MAX INT64_C(0xffff)

/* Events the walks look at: this CPU's, of a known kind. */
static bool event_counts(const struct trace_event *ev, const struct spike_request *req)
{
    return ev->kind < TRACE_KIND_COUNT && ev->cpu == req->cpu;
}

/* Event time, never before the previous one (*last keeps the running max). */
static int64_t clamped_time(const struct trace_event *ev, int64_t *last)
{
    if (ev->t_ns > *last)
        *last = ev->t_ns;
    return *last;
}

static int64_t idle_state_of(const struct trace_event *ev)
{
    return ev->arg >= 0 && ev->arg <= IDLE_STATE_MAX ? ev->arg : IDLE_NONE;
}

struct task {
    bool known;
    int32_t pid;
    int32_t prio;
    char comm[TRACE_COMM_LEN * 2];
};

static void copy_name(char *dst, size_t dst_len, const char *src, size_t src_len)
{
    size_t len = strnlen(src, src_len);
    if (len >= dst_len)
        len = dst_len - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* The task an event was recorded in, when the event says: a switch's prev
 * task (0: the idle task), or the current tid perf stores with every other
 * event but sched_waking (whose pid is the woken task). There a 0 says
 * nothing: the idle task, or a record built without it. -1: not told. */
static int32_t event_task(const struct trace_event *ev)
{
    if (ev->kind == TRACE_SWITCH)
        return ev->prev_pid >= 0 ? ev->prev_pid : -1;
    if (ev->kind == TRACE_WAKING || ev->pid <= 0)
        return -1;
    return ev->pid;
}

#define NAME_SCAN_MAX 4096 /* events searched each way for a task's comm */

/* Whether ev names task pid (comm and priority), and if so into *t. */
static bool task_from_event(const struct trace_event *ev, int32_t pid, struct task *t)
{
    if (ev->kind == TRACE_SWITCH && ev->prev_pid == pid) {
        copy_name(t->comm, sizeof t->comm, ev->prev_comm, sizeof ev->prev_comm);
        t->prio = ev->prev_prio;
        return true;
    }
    if ((ev->kind == TRACE_SWITCH || ev->kind == TRACE_WAKING) && ev->pid == pid) {
        copy_name(t->comm, sizeof t->comm, ev->name, sizeof ev->name);
        t->prio = ev->prio;
        return true;
    }
    return false;
}

/* Task pid, seen running at events[i] by an event that carries only its
 * tid: its comm and priority from the nearest switch or waking that names
 * it, later ones first (the task switches out before our thread runs),
 * else "tid N". */
static void task_named(const struct trace_event *events, size_t n, size_t i,
                       const struct spike_request *req, int32_t pid, struct task *t)
{
    *t = (struct task){.known = true, .pid = pid, .prio = 120};
    for (size_t j = i; j < n && j <= i + NAME_SCAN_MAX; j++)
        if (event_counts(&events[j], req) && task_from_event(&events[j], pid, t))
            return;
    for (size_t j = i; j-- > 0 && i - j <= NAME_SCAN_MAX;)
        if (event_counts(&events[j], req) && task_from_event(&events[j], pid, t))
            return;
    snprintf(t->comm, sizeof t->comm, "tid %d", (int)pid);
}

/* What the CPU was doing when the array starts. */
struct start_state {
    struct handler_stack open; /* handlers already open (innermost on top) */
    struct task running;
    int64_t idle;
    size_t counted; /* events of this CPU */
};

static void find_start_state(const struct trace_event *events, size_t n,
                             const struct spike_request *req, struct start_state *start)
{
    struct handler_stack st = {0};
    const struct trace_event *unmatched[FRAME_DEPTH];
    int unmatched_type[FRAME_DEPTH];
    unsigned n_unmatched = 0;
    bool seen_idle = false, idle_exit_first = false;

    memset(start, 0, sizeof *start);
    for (size_t i = 0; i < n; i++) {
        const struct trace_event *ev = &events[i];
        if (!event_counts(ev, req))
            continue;
        start->counted++;
        bool entry;
        int type = frame_type_of(ev->kind, &entry);
        if (type >= 0 && entry) {
            stack_push(&st, type, ev, false);
        } else if (type >= 0) {
            if (!stack_pop(&st, type, ev) && st.depth == 0 && n_unmatched < FRAME_DEPTH) {
                unmatched[n_unmatched] = ev;
                unmatched_type[n_unmatched++] = type;
            }
        } else if (ev->kind == TRACE_IDLE && !seen_idle) {
            seen_idle = true;
            idle_exit_first = idle_state_of(ev) == IDLE_NONE;
        }
        if (!start->running.known && event_task(ev) >= 0)
            task_named(events, n, i, req, event_task(ev), &start->running);
    }
    /* The first exit without an entry closes the innermost open handler. */
    for (unsigned k = n_unmatched; k-- > 0;)
        stack_push(&start->open, unmatched_type[k], unmatched[k], false);
    bool idle_task = start->running.known && start->running.pid == 0;
    start->idle = idle_exit_first || (!seen_idle && idle_task) ? IDLE_UNKNOWN : IDLE_NONE;
}

#define EXPIRY_SCAN_MAX 64 /* events searched for the waking inside one callback */

/* The index of E (the expiry that wakes tid) and of S (the last switch to
 * tid after E, by wake_ns); n for none. A later expiry starts S afresh.
 * An expiry wakes tid when its callback has a waking of tid, or when it is
 * the timer tid armed last (its hrtimer_start, recorded in tid: the sleep). */
static void find_expiry_and_switch(const struct trace_event *events, size_t n,
                                   const struct spike_request *req, size_t *expiry,
                                   size_t *switch_in)
{
    int64_t last = INT64_MIN;
    bool armed = false;
    uint64_t armed_id = 0;
    *expiry = *switch_in = n;
    for (size_t i = 0; i < n; i++) {
        const struct trace_event *ev = &events[i];
        if (!event_counts(ev, req))
            continue;
        int64_t t = clamped_time(ev, &last);
        if (t > req->wake_ns)
            break;
        if (*expiry < n && ev->kind == TRACE_SWITCH && ev->pid == req->tid)
            *switch_in = i;
        if (ev->kind == TRACE_HRTIMER_START && ev->pid == req->tid) {
            armed = true;
            armed_id = ev->id;
        }
        if (ev->kind != TRACE_HRTIMER_ENTRY || t < req->prev_end_ns)
            continue;
        if (armed && ev->id == armed_id) {
            *expiry = i;
            *switch_in = n;
            continue;
        }
        for (size_t j = i + 1; j < n && j <= i + EXPIRY_SCAN_MAX; j++) {
            const struct trace_event *in = &events[j];
            if (!event_counts(in, req))
                continue;
            if ((in->kind == TRACE_HRTIMER_EXIT && in->id == ev->id) ||
                in->kind == TRACE_HRTIMER_ENTRY)
                break;
            if (in->kind == TRACE_WAKING && in->pid == req->tid) {
                *expiry = i;
                *switch_in = n;
                break;
            }
        }
    }
}

/* The interrupt (an irq_vectors frame) open around E, or NULL. */
static const struct trace_event *find_expiry_vector(const struct trace_event *events, size_t n,
                                                    const struct spike_request *req,
                                                    const struct start_state *start, size_t expiry)
{
    struct handler_stack st = start->open;
    for (size_t i = 0; i < n && i <= expiry; i++) {
        const struct trace_event *ev = &events[i];
        if (!event_counts(ev, req))
            continue;
        if (i == expiry) {
            for (unsigned k = st.depth; k-- > 0;)
                if (st.f[k].type == FRAME_VECTOR)
                    return st.f[k].ev;
            return NULL;
        }
        bool entry;
        int type = frame_type_of(ev->kind, &entry);
        if (type >= 0 && entry)
            stack_push(&st, type, ev, false);
        else if (type >= 0)
            stack_pop(&st, type, ev);
    }
    return NULL;
}

/* ---- gathering the parts ---- */

#define PARTS_MAX 32

struct parts {
    struct spike_cause c[PARTS_MAX];
    unsigned n;
    int64_t overflow_ns; /* parts that found no room */
};

static void parts_add(struct parts *p, unsigned kind, const char *name, size_t name_len,
                      int32_t pid, int32_t prio, uint64_t id, int64_t ns)
{
    char key[TRACE_COMM_LEN * 2];
    copy_name(key, sizeof key, name, name_len);
    for (unsigned i = 0; i < p->n; i++) {
        struct spike_cause *c = &p->c[i];
        if (c->kind == kind && c->pid == pid && c->id == id && strcmp(c->name, key) == 0) {
            c->ns += ns;
            c->prio = prio;
            return;
        }
    }
    if (p->n == PARTS_MAX) {
        p->overflow_ns += ns;
        return;
    }
    struct spike_cause *c = &p->c[p->n++];
    *c = (struct spike_cause){.kind = (uint16_t)kind, .pid = pid, .prio = prio, .id = id, .ns = ns};
    memcpy(c->name, key, sizeof key);
}

/* Everything the timeline walk knows at one moment. */
struct walk {
    const struct spike_request *req;
    struct handler_stack st;
    struct task running;
    int64_t idle;
    bool has_expiry, after_expiry, after_switch;
    bool slept; /* our thread switched out after prev_end_ns: it waits for this cycle */
    const char *unexplained_name;
};

static void add_idle_exit(struct parts *p, const struct walk *w, int64_t ns)
{
    char name[TRACE_COMM_LEN * 2];
    const struct spike_request *req = w->req;
    uint64_t id = w->idle >= 0 ? (uint64_t)w->idle : 0;
    if (w->idle == IDLE_UNKNOWN)
        snprintf(name, sizeof name, "idle");
    else if (req->idle_state_names && (uint64_t)w->idle < req->idle_state_count &&
             req->idle_state_names[w->idle])
        snprintf(name, sizeof name, "%s", req->idle_state_names[w->idle]);
    else
        snprintf(name, sizeof name, "state %u", (unsigned)w->idle);
    parts_add(p, CAUSE_IDLE_EXIT, name, sizeof name, 0, 0, id, ns);
}

/* Idle time before E that no guest idle state explains becomes the host's
 * late wake-up of the halted vCPU (the rule is in attribute.h); without a
 * cpuidle driver every such part is the one "halt". */
static void name_vcpu_wake_late(struct parts *p, const struct spike_request *req)
{
    if (!req->hypervisor)
        return;
    int64_t beyond_ns = req->idle_exit_latency_max_ns > 0
                            ? req->idle_exit_latency_max_ns * VCPU_WAKE_LATE_FACTOR
                            : INT64_MAX;
    unsigned halt = p->n; /* the "halt" part once made */
    for (unsigned i = 0; i < p->n; i++) {
        struct spike_cause *c = &p->c[i];
        if (c->kind != CAUSE_IDLE_EXIT || (req->idle_driver && c->ns <= beyond_ns))
            continue;
        c->kind = CAUSE_VCPU_WAKE_LATE;
        if (req->idle_driver)
            continue;
        if (halt < p->n) { /* one halt, however the states were named */
            p->c[halt].ns += c->ns;
            memmove(c, c + 1, (p->n - i - 1) * sizeof *c);
            p->n--;
            i--;
            continue;
        }
        halt = i;
        snprintf(c->name, sizeof c->name, "halt");
        c->id = 0;
    }
}

/* The part for a piece of ns in the current state. */
static void add_piece(struct parts *p, const struct walk *w, int64_t ns)
{
    for (unsigned k = w->st.depth; k-- > 0;) {
        const struct frame *f = &w->st.f[k];
        const struct trace_event *ev = f->ev;
        const size_t nl = sizeof ev->name;
        if (f->ours && f->type == FRAME_VECTOR)
            continue; /* the interrupt that runs our timer: counted by phase */
        switch (f->type) {
        case FRAME_VECTOR:
            if (strncmp(ev->name, "local_timer", nl) == 0)
                parts_add(p, CAUSE_TIMER, ev->name, nl, 0, 0, 0, ns);
            else
                parts_add(p, CAUSE_IPI, ev->name, nl, 0, 0, 0, ns);
            return;
        case FRAME_IRQ:
            parts_add(p, CAUSE_IRQ, ev->name, nl, 0, 0, ev->id, ns);
            return;
        case FRAME_SOFTIRQ:
            parts_add(p, CAUSE_SOFTIRQ, ev->name, nl, 0, 0, 0, ns);
            return;
        case FRAME_HRTIMER:
            if (f->ours)
                parts_add(p, CAUSE_WAKEUP, "", 1, 0, 0, 0, ns);
            else
                parts_add(p, CAUSE_TIMER, ev->name, nl, 0, 0, 0, ns);
            return;
        default:
            parts_add(p, CAUSE_WORKQUEUE, ev->name, nl, 0, 0, 0, ns);
            return;
        }
    }
    const struct task *run = &w->running;
    bool other = run->known && run->pid != 0 && run->pid != w->req->tid;
    if (w->req->flags & SPIKE_BUSY) {
        if (run->known && run->pid == w->req->tid)
            parts_add(p, w->slept ? CAUSE_WAKEUP : CAUSE_UNEXPLAINED, w->slept ? "" : "no event", 9,
                      0, 0, 0, ns);
        else if (run->known && run->pid != 0)
            parts_add(p, CAUSE_THREAD, run->comm, sizeof run->comm, run->pid, run->prio, 0, ns);
        else
            parts_add(p, CAUSE_UNEXPLAINED, run->known ? "idle" : w->unexplained_name,
                      TRACE_COMM_LEN * 2, 0, 0, 0, ns);
    } else if (!w->has_expiry) {
        if (run->known && run->pid == w->req->tid && w->slept) /* woken, wake-up not traced */
            parts_add(p, CAUSE_WAKEUP, "", 1, 0, 0, 0, ns);
        else if (run->known && run->pid != 0)
            parts_add(p, CAUSE_THREAD, run->comm, sizeof run->comm, run->pid, run->prio, 0, ns);
        else if (run->known) /* idle, and nothing recorded how the CPU left it */
            parts_add(p, CAUSE_UNEXPLAINED, "idle, wake-up not traced", TRACE_COMM_LEN * 2, 0, 0, 0,
                      ns);
        else
            parts_add(p, CAUSE_UNEXPLAINED, w->unexplained_name, TRACE_COMM_LEN * 2, 0, 0, 0, ns);
    } else if (!w->after_expiry) {
        if (w->idle != IDLE_NONE)
            add_idle_exit(p, w, ns);
        else
            parts_add(p, CAUSE_TIMER_IRQ_LATE, "", 1, 0, 0, 0, ns);
    } else if (!w->after_switch && other) {
        parts_add(p, CAUSE_THREAD, run->comm, sizeof run->comm, run->pid, run->prio, 0, ns);
    } else if (!w->after_switch && !run->known) {
        parts_add(p, CAUSE_UNEXPLAINED, w->unexplained_name, TRACE_COMM_LEN * 2, 0, 0, 0, ns);
    } else {
        parts_add(p, CAUSE_WAKEUP, "", 1, 0, 0, 0, ns);
    }
}

/* An event recorded in another task than the one the walk has running
 * says that task ran up to it: the switch to it left no event (switches
 * out of the idle task, and everything recorded in its context, are
 * missing on some kernels), so it takes the whole stretch since the
 * previous event; when the idle task was running, the moment it left the
 * CPU is not known. */
static void walk_reveal(struct walk *w, const struct trace_event *events, size_t n, size_t i)
{
    int32_t pid = event_task(&events[i]);
    if (pid < 0 || (w->running.known && w->running.pid == pid))
        return;
    task_named(events, n, i, w->req, pid, &w->running);
    if (pid != 0)
        w->idle = IDLE_NONE;
}

static void walk_apply(struct walk *w, const struct trace_event *ev, int64_t t, bool ours)
{
    bool entry;
    int type = frame_type_of(ev->kind, &entry);
    if (type >= 0 && entry) {
        stack_push(&w->st, type, ev, ours);
    } else if (type >= 0) {
        stack_pop(&w->st, type, ev);
    } else if (ev->kind == TRACE_IDLE) {
        w->idle = idle_state_of(ev);
    } else if (ev->kind == TRACE_SWITCH) {
        if (ev->prev_pid == w->req->tid && ev->pid != w->req->tid && t >= w->req->prev_end_ns)
            w->slept = true;
        w->running.known = true;
        w->running.pid = ev->pid;
        w->running.prio = ev->prio;
        copy_name(w->running.comm, sizeof w->running.comm, ev->name, sizeof ev->name);
        w->idle = IDLE_NONE;
    }
}

/* Folds the parts into out: at most SPIKE_CAUSES_MAX, the largest kept in
 * order, the rest one "other causes" part at the end. */
static void parts_fold(const struct parts *p, struct spike *out)
{
    bool keep[PARTS_MAX] = {false};
    unsigned room = p->n + (p->overflow_ns > 0) <= SPIKE_CAUSES_MAX ? p->n : SPIKE_CAUSES_MAX - 1;
    for (unsigned r = 0; r < room; r++) {
        unsigned best = PARTS_MAX;
        for (unsigned i = 0; i < p->n; i++)
            if (!keep[i] && (best == PARTS_MAX || p->c[i].ns > p->c[best].ns))
                best = i;
        if (best == PARTS_MAX)
            break;
        keep[best] = true;
    }
    int64_t rest_ns = p->overflow_ns;
    out->ncauses = 0;
    for (unsigned i = 0; i < p->n; i++) {
        if (keep[i])
            out->causes[out->ncauses++] = p->c[i];
        else
            rest_ns += p->c[i].ns;
    }
    if (room < p->n || p->overflow_ns > 0) {
        out->flags |= SPIKE_CAUSES_FOLDED;
        struct spike_cause *c = &out->causes[out->ncauses++];
        *c = (struct spike_cause){.kind = CAUSE_UNEXPLAINED, .ns = rest_ns};
        snprintf(c->name, sizeof c->name, "other causes");
    }
}

/* The dominant part, and the sum made exact (any remainder to the largest). */
static void finish(struct spike *out)
{
    int64_t sum = 0;
    out->dominant = 0;
    for (uint16_t i = 0; i < out->ncauses; i++) {
        sum += out->causes[i].ns;
        if (out->causes[i].ns > out->causes[out->dominant].ns)
            out->dominant = i;
    }
    if (out->ncauses > 0)
        out->causes[out->dominant].ns += out->latency_ns - sum;
}

void attribute_spike(const struct trace_event *events, size_t n, const struct spike_request *req,
                     struct spike *out)
{
    memset(out, 0, sizeof *out);
    out->cpu = req->cpu;
    out->tid = req->tid;
    out->planned_ns = req->planned_ns;
    out->wake_ns = req->wake_ns;
    out->latency_ns = req->wake_ns - req->planned_ns;
    out->flags = req->flags & (SPIKE_EVENTS_LOST | SPIKE_BUSY);
    if (!events)
        n = 0;
    if (out->latency_ns <= 0)
        return;

    struct parts parts = {0};
    if (req->flags & SPIKE_EVENTS_LOST) {
        parts_add(&parts, CAUSE_UNEXPLAINED, "events lost", 12, 0, 0, 0, out->latency_ns);
        parts_fold(&parts, out);
        finish(out);
        return;
    }

    struct start_state start;
    find_start_state(events, n, req, &start);
    size_t expiry = n, switch_in = n;
    if (req->flags & SPIKE_BUSY) {
        /* the thread was running when the gap began, whatever came before */
        start.running = (struct task){.known = true, .pid = req->tid, .prio = 120};
        start.idle = IDLE_NONE;
        start.open.depth = 0;
        start.open.untracked = 0;
    } else {
        find_expiry_and_switch(events, n, req, &expiry, &switch_in);
    }
    const struct trace_event *expiry_vector =
        expiry < n ? find_expiry_vector(events, n, req, &start, expiry) : NULL;
    for (unsigned k = 0; k < start.open.depth; k++)
        start.open.f[k].ours = start.open.f[k].ev == expiry_vector;

    struct walk w = {
        .req = req,
        .st = start.open,
        .running = start.running,
        .idle = start.idle,
        .has_expiry = expiry < n,
    };
    if (start.counted == 0)
        w.unexplained_name = "no events";
    else if (req->flags & SPIKE_BUSY)
        w.unexplained_name = "no event";
    else
        w.unexplained_name = w.has_expiry ? "" : "no timer expiry";
    if (expiry == n && !(req->flags & SPIKE_BUSY))
        out->flags |= SPIKE_NO_EXPIRY;
    int64_t cursor = req->planned_ns, last = INT64_MIN;
    for (size_t i = 0; i < n && cursor < req->wake_ns; i++) {
        const struct trace_event *ev = &events[i];
        if (!event_counts(ev, req))
            continue;
        int64_t t = clamped_time(ev, &last);
        int64_t end = t < req->wake_ns ? t : req->wake_ns;
        walk_reveal(&w, events, n, i);
        if (end > cursor) {
            add_piece(&parts, &w, end - cursor);
            cursor = end;
        }
        walk_apply(&w, ev, t, i == expiry || ev == expiry_vector);
        if (i == expiry)
            w.after_expiry = true;
        if (i == switch_in)
            w.after_switch = true;
    }
    if (cursor < req->wake_ns)
        add_piece(&parts, &w, req->wake_ns - cursor);
    name_vcpu_wake_late(&parts, req);
    parts_fold(&parts, out);
    finish(out);
}
