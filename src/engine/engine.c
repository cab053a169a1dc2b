/*
 * The engine's creation, memory and results (see engine.h); the cycle loop
 * and its threads are engine_threads.c.
 *
 * Memory is sized and allocated first, then locked: with CAP_IPC_LOCK (or an
 * unlimited RLIMIT_MEMLOCK) every page the process touches, now and later
 * (mlockall with MCL_ONFAULT: a page is locked when first touched, so that
 * the parts of libc, libm and of the other subcommands that a run never
 * uses stay out of memory; everything the loop touches is written here
 * and by each thread before its first cycle, and the thread counts the
 * page faults it takes all the same: cpu_result.page_faults); otherwise
 * only the engine's own buffers, and only when they fit the limit, so that
 * an unprivileged run never fails later for want of lockable memory. The
 * rings are sized from the interval, the CPU count and a memory budget.
 */
#include "engine/engine_internal.h"

#include "common/tsc.h"
#include "engine/cycle_clock.h"
#include "engine/waker.h"

#include <errno.h>
#include <stddef.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* A ring holds RING_HOLD_NS of samples, so that a collector that falls
 * behind for that long loses none, unless all the rings together would
 * exceed RING_BUDGET_BYTES: then each is halved, but not below
 * RING_MIN_HOLD_NS of samples (a telemetry snapshot of 256 CPUs and the
 * drain pass after it take tens of ms), and the collector wakes more often
 * instead, RING_PASSES times per ring's worth of samples
 * (engine_drain_period_ns). RING_LIMIT_BYTES is never exceeded; no ring has
 * fewer than RING_MIN_ENTRIES. */
#define RING_HOLD_NS      (2 * 1000000000LL)
#define RING_MIN_HOLD_NS  (200 * 1000000LL)
#define RING_BUDGET_BYTES ((uint64_t)16 << 20)
#define RING_LIMIT_BYTES  ((uint64_t)64 << 20)
#define RING_MIN_ENTRIES  256u
#define RING_MAX_ENTRIES  (1u << 20)
#define RING_PASSES       4

/* cap halved while rings of cap entries, per bytes an entry, pass `bytes`,
 * keeping at least `least` entries and RING_MIN_ENTRIES. */
static uint64_t halve_to(uint64_t cap, uint64_t per, uint64_t bytes, uint64_t least)
{
    while (cap > RING_MIN_ENTRIES && cap * per > bytes && cap / 2 >= least)
        cap >>= 1;
    return cap;
}

uint64_t engine_ring_capacity(int64_t interval_ns, int ncpu)
{
    int64_t iv = interval_ns > 0 ? interval_ns : 1;
    uint64_t want = (uint64_t)(RING_HOLD_NS / iv), least = (uint64_t)(RING_MIN_HOLD_NS / iv);
    uint64_t cap = RING_MIN_ENTRIES;
    while (cap < want && cap < RING_MAX_ENTRIES)
        cap <<= 1;
    uint64_t n = ncpu > 0 ? (uint64_t)ncpu : 1, per = sizeof(struct cycle_sample) * n;
    return halve_to(halve_to(cap, per, RING_BUDGET_BYTES, least), per, RING_LIMIT_BYTES, 0);
}

int64_t engine_drain_period_ns(const struct engine *e)
{
    /* A pass takes what arrived since the last, on every ring: at most what
     * the budget's rings would hold over RING_PASSES, so that passes stay
     * short (and fit the samples writer's buffers) when the rings are
     * deeper than the budget to hold RING_MIN_HOLD_NS. */
    uint64_t entries = halve_to(e->slots[0].ring.mask + 1,
                                sizeof(struct cycle_sample) * (uint64_t)e->n, RING_BUDGET_BYTES, 0);
    int64_t pass = (int64_t)entries / RING_PASSES * e->cfg.interval_ns;
    int64_t max = 100 * 1000 * 1000, min = 1000 * 1000;
    return pass > max ? max : pass < min ? min : pass;
}

uint64_t engine_drain(struct engine *e, int i, struct cycle_sample *out, uint64_t max)
{
    struct cpu_slot *s = &e->slots[i];
    uint64_t got = sample_ring_pop(&s->ring, out, max);
    const struct record_rules rules = record_rules_of(&e->cfg);
    for (uint64_t k = 0; k < got; k++) {
        cycle_tally_add(&s->taken, &rules, out[k].latency_ns, out[k].period_ns, out[k].exec_ns);
        cpu_result_record_exec(&s->result, out[k].latency_ns, out[k].exec_ns, true);
    }
    return got;
}

const struct cycle_tally *engine_taken_tally(const struct engine *e, int i)
{
    return &e->slots[i].taken;
}

void engine_settle(struct engine *e)
{
    struct cycle_sample rest[64];
    for (int i = 0; i < e->n; i++) {
        struct cpu_slot *s = &e->slots[i];
        if (!atomic_load_explicit(&s->done, memory_order_acquire))
            continue; /* never started, or still running: nothing is final */
        while (engine_drain(e, i, rest, sizeof(rest) / sizeof(rest[0])) > 0)
            ;
        cpu_result_set_tally(&s->result, &s->taken, &s->dropped);
    }
}

struct sample_ring *engine_ring(struct engine *e, int i)
{
    return &e->slots[i].ring;
}

void cpu_result_init(struct cpu_result *r, int cpu)
{
    memset(r, 0, sizeof(*r));
    r->cpu = cpu;
    r->page_faults = -1;
    running_stats_init(&r->latency);
    running_stats_init(&r->period);
    latency_hist_init(&r->hist);
    running_stats_init(&r->exec);
    running_stats_init(&r->response);
    running_stats_init(&r->llc);
    running_stats_init(&r->ipc_milli);
}

/* What every cycle writes stays on the result's first two cache lines,
 * and a push on the ring's first. */
_Static_assert(offsetof(struct cpu_result, us_rows) + sizeof(uint32_t) <= 2 * 64,
               "the per-cycle fields of cpu_result pass two cache lines");
_Static_assert(offsetof(struct sample_ring, tail) == 64,
               "the ring's producer fields pass one cache line");
_Static_assert(offsetof(struct cpu_slot, result) + offsetof(struct cpu_result, us_rows) +
                       sizeof(uint32_t) <=
                   SLOT_HOT_PAGE,
               "the slot's per-cycle lines pass its first page");

void cycle_tally_init(struct cycle_tally *t)
{
    memset(t, 0, sizeof(*t));
    running_stats_init(&t->period);
    running_stats_init(&t->exec);
    running_stats_init(&t->response);
}

void cpu_result_set_tally(struct cpu_result *r, const struct cycle_tally *a,
                          const struct cycle_tally *b)
{
    r->over_tolerance = a->over_tolerance;
    r->deadline_misses = a->deadline_misses;
    r->period = a->period;
    r->exec = a->exec;
    r->response = a->response;
    if (b) {
        r->over_tolerance += b->over_tolerance;
        r->deadline_misses += b->deadline_misses;
        running_stats_merge(&r->period, &b->period);
        running_stats_merge(&r->exec, &b->exec);
        running_stats_merge(&r->response, &b->response);
    }
    cpu_result_finish_hists(r);
}

void cpu_result_finish_hists(struct cpu_result *r)
{
    latency_hist_set_range(&r->hist, r->latency.count, r->latency.min, r->latency.max);
    if (r->exec_hist) {
        latency_hist_set_range(r->exec_hist, r->exec.count, r->exec.min, r->exec.max);
        latency_hist_set_range(r->response_hist, r->response.count, r->response.min,
                               r->response.max);
    }
}

/* The buffers the cycle loop writes, one by one (for a partial lock). */
static size_t engine_buffer(const struct engine *e, size_t k, void **addr)
{
    size_t per_cpu = 4;
    if (k == 0) {
        *addr = e->slots;
        return sizeof(struct cpu_slot) * (size_t)e->n;
    }
    k--;
    if (k >= per_cpu * (size_t)e->n)
        return SIZE_MAX;
    const struct cpu_slot *s = &e->slots[k / per_cpu];
    switch (k % per_cpu) {
    case 0:
        *addr = s->ring.slots;
        return (s->ring.mask + 1) * sizeof(struct cycle_sample);
    case 1:
        *addr = s->result.us_hist;
        return s->result.us_hist ? s->result.us_rows * sizeof(uint64_t) : 0;
    case 2:
        *addr = s->result.overflow_cycles;
        return s->result.overflow_cycles ? s->result.us_rows * sizeof(uint64_t) : 0;
    default:
        *addr = s->hists;
        return s->hists_count * sizeof(*s->hists);
    }
}

/* Locks what may be locked once everything is allocated (see the top). */
static enum engine_lock lock_memory(struct engine *e)
{
    if (memory_may_lock_everything() &&
        (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0 ||
         mlockall(MCL_CURRENT | MCL_FUTURE) == 0)) /* a kernel before 4.4 */
        return ENGINE_LOCK_ALL;
    struct rlimit rl;
    if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0)
        return ENGINE_LOCK_NONE;
    size_t total = 0, len;
    void *addr;
    for (size_t k = 0; (len = engine_buffer(e, k, &addr)) != SIZE_MAX; k++)
        total += len;
    /* Page rounding: every buffer may start and end in a page of its own. */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (total + 2 * page * (3 * (size_t)e->n + 1) > rl.rlim_cur)
        return ENGINE_LOCK_NONE;
    for (size_t k = 0; (len = engine_buffer(e, k, &addr)) != SIZE_MAX; k++) {
        if (len > 0 && mlock(addr, len) != 0) {
            munlockall();
            return ENGINE_LOCK_NONE;
        }
    }
    return ENGINE_LOCK_BUFFERS;
}

static void *probe_thread(void *arg)
{
    return arg;
}

/* Whether a thread may be created with the requested real-time policy: a
 * thread that only returns, created as the measuring threads will be, so
 * that the run knows (and its header says) the policy it will get before
 * anything starts. False only for EPERM; engine_start falls back again if
 * the permission goes away in between. */
static bool realtime_permitted(const struct engine_config *cfg)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    /* glibc keeps a joined thread's stack for reuse, and a later mlockall
     * would make the default 8 MiB of it resident. */
    pthread_attr_setstacksize(&attr, THREAD_STACK_BYTES);
    struct sched_param sp = {.sched_priority = cfg->priority};
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, cfg->policy);
    pthread_attr_setschedparam(&attr, &sp);
    pthread_t t;
    int rc = pthread_create(&t, &attr, probe_thread, NULL);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        pthread_join(t, NULL);
    return rc != EPERM;
}

struct engine *engine_create(const struct engine_config *cfg, char *err, unsigned long errlen)
{
    /* The engine holds cache-line aligned members: aligned storage. */
    size_t size = (sizeof(struct engine) + 63) / 64 * 64;
    struct engine *e = aligned_alloc(64, size);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    memset(e, 0, size);
    e->cfg = *cfg;
    e->cpus = *cfg->cpus;
    e->cfg.cpus = &e->cpus;
    e->cfg.workload = NULL; /* the caller's spec is copied below */
    if (cfg->workload) {
        e->workload_spec = *cfg->workload;
        e->cfg.workload = &e->workload_spec;
    }
    e->n = e->cpus.count;
    /* SCHED_DEADLINE never falls back: each thread asks for it in the start
     * gate, and a refusal ends the run (engine_refused). */
    e->degraded =
        cfg->policy != SCHED_OTHER && cfg->policy != SCHED_DEADLINE && !realtime_permitted(cfg);
    pthread_mutex_init(&e->gate_lock, NULL);
    pthread_condattr_t ca; /* the start gate's deadline is on CLOCK_MONOTONIC */
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&e->gate_cond, &ca);
    pthread_condattr_destroy(&ca);

    e->slots = aligned_alloc(SLOT_HOT_PAGE, sizeof(struct cpu_slot) * (size_t)e->n);
    if (!e->slots)
        goto oom;
    memset(e->slots, 0, sizeof(struct cpu_slot) * (size_t)e->n);
    uint64_t cap = engine_ring_capacity(cfg->interval_ns, e->n);
    const uint32_t ipc_pair = (1u << COUNTER_INSTRUCTIONS) | (1u << COUNTER_CYCLES);
    for (int i = 0; i < e->n; i++) {
        struct cpu_slot *s = &e->slots[i];
        struct cpu_result *r = &s->result;
        s->engine = e;
        cpu_result_init(r, e->cpus.cpu[i]);
        cycle_tally_init(&s->dropped);
        cycle_tally_init(&s->taken);
        if (cfg->workload && cfg->workload->kind != WORKLOAD_NONE) {
            s->workload = workload_create(cfg->workload, err, errlen);
            if (!s->workload) {
                engine_destroy(e);
                return NULL;
            }
        }
        s->ring.mask = cap - 1;
        s->ring.slots = calloc(cap, sizeof(struct cycle_sample));
        if (!s->ring.slots)
            goto oom;
        memset(s->ring.slots, 0, cap * sizeof(struct cycle_sample)); /* prefault */
        bool llc = cfg->counters_mask & (1u << COUNTER_LLC_MISSES);
        bool ipc = (cfg->counters_mask & ipc_pair) == ipc_pair;
        s->hists_count = 2 + (llc ? 1 : 0) + (ipc ? 1 : 0);
        s->hists = malloc(s->hists_count * sizeof(*s->hists));
        if (!s->hists)
            goto oom;
        for (size_t h = 0; h < s->hists_count; h++)
            latency_hist_init(&s->hists[h]); /* and prefaulted */
        r->exec_hist = &s->hists[0];
        r->response_hist = &s->hists[1];
        r->llc_hist = llc ? &s->hists[2] : NULL;
        r->ipc_milli_hist = ipc ? &s->hists[llc ? 3 : 2] : NULL;
        if (cfg->us_hist_rows > 0) {
            r->us_rows = cfg->us_hist_rows;
            r->us_hist = calloc(cfg->us_hist_rows, sizeof(uint64_t));
            r->overflow_cycles = calloc(cfg->us_hist_rows, sizeof(uint64_t));
            if (!r->us_hist || !r->overflow_cycles)
                goto oom;
            memset(r->us_hist, 0, cfg->us_hist_rows * sizeof(uint64_t));
            memset(r->overflow_cycles, 0, cfg->us_hist_rows * sizeof(uint64_t)); /* prefault */
        }
    }
    if (cfg->wake != WAKE_TIMER && wakers_create(e, err, errlen) != 0) {
        engine_destroy(e);
        return NULL;
    }
    e->lock = lock_memory(e);
    if (cfg->clock == ENGINE_CLOCK_TSC) {
        if (!engine_tsc_supported()) {
            snprintf(err, errlen, "--clock tsc: this build's CPU architecture has no TSC");
            engine_destroy(e);
            return NULL;
        }
        char why[128];
        if (tsc_calibrate(&e->tsc_hz, why, sizeof why) != 0) {
            snprintf(err, errlen, "--clock tsc: %s", why);
            engine_destroy(e);
            return NULL;
        }
        e->ns_per_tick = 1e9 / e->tsc_hz;
    }
    return e;
oom:
    snprintf(err, errlen, "out of memory allocating per-CPU buffers");
    engine_destroy(e);
    return NULL;
}

size_t engine_memory_bytes(const struct engine *e)
{
    size_t total = (sizeof(struct engine) + 63) / 64 * 64;
    void *addr;
    size_t len;
    for (size_t k = 0; (len = engine_buffer(e, k, &addr)) != SIZE_MAX; k++)
        total += len;
    return total;
}

size_t engine_stack_bytes(void)
{
    return THREAD_STACK_BYTES;
}

const struct engine_config *engine_config(const struct engine *e)
{
    return &e->cfg;
}

int engine_cpu_count(const struct engine *e)
{
    return e->n;
}

const struct cpu_result *engine_result(const struct engine *e, int i)
{
    return &e->slots[i].result;
}

uint64_t engine_ring_drops(const struct engine *e, int i)
{
    return atomic_load_explicit(&e->slots[i].ring.drops, memory_order_relaxed);
}

int64_t engine_start_ns(const struct engine *e)
{
    return e->start_ns;
}

double engine_tsc_hz(const struct engine *e)
{
    return e->tsc_hz;
}

bool engine_degraded(const struct engine *e)
{
    return e->degraded;
}

enum engine_lock engine_memory_lock(const struct engine *e)
{
    return e->lock;
}

int engine_thread_tid(const struct engine *e, int i)
{
    return e->slots[i].tid;
}

int64_t engine_thread_run_ns(const struct engine *e, int i)
{
    return atomic_load_explicit(&e->slots[i].done, memory_order_acquire) ? e->slots[i].run_ns_at_end
                                                                         : -1;
}

int engine_sleep_error(const struct engine *e, int *cpu)
{
    for (int i = 0; i < e->n; i++)
        if (e->slots[i].sleep_error) {
            *cpu = e->slots[i].result.cpu;
            return e->slots[i].sleep_error;
        }
    return 0;
}

void engine_destroy(struct engine *e)
{
    if (!e)
        return;
    /* A thread whose CPU never ran it still reads its slot and the gate
     * when it does: then the last such thread frees the engine. */
    pthread_mutex_lock(&e->gate_lock);
    bool wait = e->orphans > 0;
    e->destroy_pending = wait;
    pthread_mutex_unlock(&e->gate_lock);
    if (!wait)
        engine_free(e);
}

void engine_free(struct engine *e)
{
    if (e->slots) {
        wakers_free(e);
        for (int i = 0; i < e->n; i++) {
            free(e->slots[i].ring.slots);
            free(e->slots[i].result.us_hist);
            free(e->slots[i].result.overflow_cycles);
            free(e->slots[i].hists);
            workload_destroy(e->slots[i].workload);
        }
        free(e->slots);
    }
    pthread_mutex_destroy(&e->gate_lock);
    pthread_cond_destroy(&e->gate_cond);
    if (e->lock != ENGINE_LOCK_NONE)
        munlockall();
    free(e);
}
