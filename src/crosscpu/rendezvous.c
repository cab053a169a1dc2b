/*
 * The rendezvous protocol and the start barrier around it (see rendezvous.h).
 *
 * One rendezvous of N CPUs and I iterations; the semaphore counts arrivals.
 *   arrive: a member adds 1 and waits until the count reaches N; the master
 *           waits until it is N-1 (every member is in), takes the stamp on
 *           the first pass, then adds 1 (N: the members may go on);
 *   last iteration: every CPU reads the stamp, then its clock (t_read);
 *   depart: a member adds 1 and waits until the master has brought the count
 *           back to 0; the master waits for 2N-1 (every member is out), then
 *           stores 0.
 * The start barrier lives on lines of its own (open, one ack per member,
 * go): the master resets the layout's fields only once every member has
 * answered the new rendezvous, i.e. has left the one before, so a member
 * that a FIFO hog starved mid-rendezvous comes back to a clean state instead
 * of wedging the others.
 */
#include "crosscpu/rendezvous.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/stop.h"
#include "crosscpu/team.h"

static const char *const layout_names[RV_LAYOUT_COUNT] = {"packed", "padded", "local-copy"};

const char *rv_layout_name(enum rv_layout l)
{
    return (unsigned)l < RV_LAYOUT_COUNT ? layout_names[l] : "?";
}

int rv_layout_find(const char *s, size_t len)
{
    for (int i = 0; i < RV_LAYOUT_COUNT; i++)
        if (strlen(layout_names[i]) == len && memcmp(layout_names[i], s, len) == 0)
            return i;
    return -1;
}

/* Zeroed memory in whole cache lines, so that no two CPUs' records share one. */
static void *alloc_lines(size_t bytes)
{
    size_t rounded = (bytes + RV_CACHE_LINE - 1) / RV_CACHE_LINE * RV_CACHE_LINE;
    void *p = aligned_alloc(RV_CACHE_LINE, rounded ? rounded : RV_CACHE_LINE);
    if (p)
        memset(p, 0, rounded ? rounded : RV_CACHE_LINE); /* prefaulted too */
    return p;
}

int rv_result_alloc(struct rv_result *res, int ncpu, size_t n, const enum rv_layout *layouts,
                    int nlayouts)
{
    memset(res, 0, sizeof *res);
    if (ncpu < 1 || nlayouts < 1 || nlayouts > RV_LAYOUT_COUNT)
        return -1;
    res->ncpu = ncpu;
    res->n = n;
    res->nlayouts = nlayouts;
    memcpy(res->layouts, layouts, (size_t)nlayouts * sizeof *layouts);
    res->cpu = alloc_lines((size_t)ncpu * sizeof *res->cpu); /* a line each */
    if (!res->cpu)
        return -1;
    for (int i = 0; i < ncpu; i++) {
        struct rv_cpu_records *c = &res->cpu[i];
        c->loop_exit = alloc_lines(n * sizeof(uint64_t));
        c->total = alloc_lines(n * sizeof(uint64_t));
        c->status = alloc_lines(n);
        if (!c->loop_exit || !c->total || !c->status) {
            rv_result_free(res);
            return -1;
        }
    }
    return 0;
}

void rv_result_free(struct rv_result *res)
{
    if (res->cpu) {
        for (int i = 0; i < res->ncpu; i++) {
            struct rv_cpu_records *c = &res->cpu[i];
            free(c->loop_exit);
            free(c->total);
            free(c->status);
        }
        free(res->cpu);
    }
    memset(res, 0, sizeof *res);
}

bool rv_completed(const struct rv_result *res, size_t r)
{
    for (int i = 0; i < res->ncpu; i++)
        if (res->cpu[i].status[r] != RV_OK)
            return false;
    return true;
}

#define RV_DONE UINT64_MAX

/* A member's answer to the open word, on a line of its own. */
struct rv_ack {
    alignas(RV_CACHE_LINE) _Atomic uint64_t seq;
};

/* The layouts' fields live in RV_SLOTS slots of 256 bytes that they take
 * in turn (rv_slot_of): the cost of moving a line between the CPUs depends
 * on its address (on this VM by up to +-10 % from one run to the next, the
 * same code at another address), so every layout must see every address
 * alike. A slot holds either layout; 256 bytes keep its lines from pairing
 * with another slot's under the adjacent-line prefetchers, which fetch
 * aligned pairs of lines. The barrier's words sit on blocks of their own. */
#define RV_BLOCK 128

struct rv_slot {
    alignas(2 * RV_BLOCK) union {
        struct rv_packed packed; /* packed and local-copy */
        struct rv_padded padded;
    } u;
};

struct rv_shared {
    struct rv_slot slot[RV_SLOTS];
    alignas(RV_BLOCK) _Atomic uint64_t open; /* (r + 1) << 1 | nap, or RV_DONE */
    alignas(RV_BLOCK) _Atomic uint64_t go;   /* r + 1 once rendezvous r may begin */
};

struct rv_run {
    const struct rv_config *cfg;
    struct rv_result *res;
    struct rv_shared *sh;
    struct rv_ack *acks; /* [ncpu]; index 0 unused */
    uint64_t deadline_ticks;
    uint64_t slice_ticks;
};

/* The fields one rendezvous works on. */
struct rv_fields {
    atomic_uint *sem;
    _Atomic uint64_t *time;
    _Atomic uint64_t *stamp;
    enum rv_layout layout;
};

/* The fields rendezvous r works on: its layout in its slot. */
static struct rv_fields fields_of(const struct rv_run *run, size_t r)
{
    const struct rv_config *cfg = run->cfg;
    enum rv_layout l = cfg->layouts[rv_layout_index_of(r, cfg->nlayouts)];
    struct rv_slot *s = &run->sh->slot[rv_slot_of(r, cfg->nlayouts, cfg->batches)];
    if (l == RV_PADDED)
        return (struct rv_fields){&s->u.padded.semaphore, &s->u.padded.master_time,
                                  &s->u.padded.master_stamp, l};
    return (struct rv_fields){&s->u.packed.semaphore, &s->u.packed.master_time,
                              &s->u.packed.master_stamp, l};
}

static void nap(void)
{
    struct timespec ts = {0, (long)RV_NAP_NS};
    clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

enum until { UNTIL_EQ, UNTIL_GE, UNTIL_LE };

static inline bool holds(unsigned v, enum until how, unsigned target)
{
    return how == UNTIL_EQ ? v == target : how == UNTIL_GE ? v >= target : v <= target;
}

/* Spins until the semaphore holds the condition or the deadline has passed;
 * true when it held. The clock is read every 16 polls: a read costs about
 * what a pause does, and the deadline needs no finer grain. */
static inline bool spin_sem(const struct timebase *tb, atomic_uint *sem, enum until how,
                            unsigned target, uint64_t deadline)
{
    for (unsigned k = 1;; k++) {
        if (holds(atomic_load_explicit(sem, memory_order_acquire), how, target))
            return true;
        if ((k & 15) == 0 && timebase_ticks(tb) > deadline)
            return holds(atomic_load_explicit(sem, memory_order_acquire), how, target);
        cpu_relax();
    }
}

/* One rendezvous on CPU index `index` (0: the master), recorded as r.
 * Inlined once per layout with `layout` a constant, so that no branch on
 * the layout is left in the timed part to be mispredicted when the layout
 * changes from one rendezvous to the next. */
static inline __attribute__((always_inline)) void rendezvous_body(const struct rv_run *run,
                                                                  int index, size_t r,
                                                                  const struct rv_fields *f,
                                                                  const enum rv_layout layout)
{
    const struct timebase *tb = run->cfg->tb;
    const unsigned n = (unsigned)run->cfg->ncpu;
    const int last = run->cfg->iterations - 1;
    const bool master = index == 0;
    struct rv_cpu_records *rec = &run->res->cpu[index];
    uint64_t latched = 0, stamp = 0, t_read = 0;
    bool ok = true;
    const uint64_t t_entry = timebase_ticks(tb);
    const uint64_t deadline = t_entry + run->deadline_ticks;
    for (int k = 0; k <= last && ok; k++) {
        if (master) {
            if (!(ok = spin_sem(tb, f->sem, UNTIL_EQ, n - 1, deadline)))
                break;
            if (k == 0) { /* the first pass: the master's clock and stamp */
                atomic_store_explicit(f->time, timebase_ticks(tb), memory_order_relaxed);
                atomic_store_explicit(f->stamp, read_tsc(), memory_order_relaxed);
            }
            atomic_fetch_add_explicit(f->sem, 1, memory_order_release);
        } else {
            atomic_fetch_add_explicit(f->sem, 1, memory_order_acq_rel);
            if (!(ok = spin_sem(tb, f->sem, UNTIL_GE, n, deadline)))
                break;
        }
        if (k == last) {
            /* local-copy uses what it latched at the end of the iteration
             * before; with a single iteration there is none to use */
            stamp = layout == RV_LOCAL_COPY && k > 0
                        ? latched
                        : atomic_load_explicit(f->stamp, memory_order_relaxed);
            t_read = timebase_ticks(tb); /* rdtscp: after the load completed */
        } else if (layout == RV_PADDED) {
            __builtin_prefetch((const void *)f->stamp, 0, 3);
        }
        if (master) {
            if (!(ok = spin_sem(tb, f->sem, UNTIL_EQ, 2 * n - 1, deadline)))
                break;
            atomic_store_explicit(f->sem, 0, memory_order_release);
        } else {
            atomic_fetch_add_explicit(f->sem, 1, memory_order_acq_rel);
            ok = spin_sem(tb, f->sem, UNTIL_LE, n, deadline);
        }
        /* the latch: on every iteration but the last, whose copy nobody reads */
        if (layout == RV_LOCAL_COPY && k < last)
            latched = atomic_load_explicit(f->stamp, memory_order_relaxed);
    }
    const uint64_t t_exit = timebase_ticks(tb);
    /* a CPU preempted past the deadline may still see its condition at
     * once when it runs again: the rendezvous counts only if it ended in time */
    ok = ok && t_exit - t_entry <= run->deadline_ticks;
    if (ok) {
        rec->loop_exit[r] = t_exit - t_read;
        rec->total[r] = t_exit - t_entry;
    }
    rec->sink += stamp + atomic_load_explicit(f->time, memory_order_relaxed);
    rec->status[r] = ok ? RV_OK : RV_TIMEOUT;
}

static __attribute__((noinline)) void rendezvous_packed(const struct rv_run *run, int index,
                                                        size_t r, const struct rv_fields *f)
{
    rendezvous_body(run, index, r, f, RV_PACKED);
}

static __attribute__((noinline)) void rendezvous_padded(const struct rv_run *run, int index,
                                                        size_t r, const struct rv_fields *f)
{
    rendezvous_body(run, index, r, f, RV_PADDED);
}

static __attribute__((noinline)) void rendezvous_local_copy(const struct rv_run *run, int index,
                                                            size_t r, const struct rv_fields *f)
{
    rendezvous_body(run, index, r, f, RV_LOCAL_COPY);
}

static void rendezvous_once(const struct rv_run *run, int index, size_t r,
                            const struct rv_fields *f)
{
    if (f->layout == RV_PADDED)
        rendezvous_padded(run, index, r, f);
    else if (f->layout == RV_LOCAL_COPY)
        rendezvous_local_copy(run, index, r, f);
    else
        rendezvous_packed(run, index, r, f);
}

/* The master at the start barrier: every member answered `want`. */
static bool wait_acks(const struct rv_run *run, uint64_t want)
{
    const struct timebase *tb = run->cfg->tb;
    const uint64_t deadline = timebase_ticks(tb) + run->deadline_ticks;
    for (int i = 1; i < run->cfg->ncpu; i++) {
        for (unsigned k = 1; atomic_load_explicit(&run->acks[i].seq, memory_order_acquire) != want;
             k++) {
            if ((k & 15) == 0 && timebase_ticks(tb) > deadline)
                return false;
            cpu_relax();
        }
    }
    return true;
}

/* The master initialises the whole structure before each rendezvous, as a
 * calibration does with a fresh one: the semaphore must restart from 0
 * after a timeout, and every line starts out in the master's cache (without
 * this, padded's first-pass stamp write would take its line back from the
 * members inside the timed part: about +4 % total on the 2-vCPU VM). */
static void reset_fields(const struct rv_fields *f)
{
    atomic_store_explicit(f->time, 0, memory_order_relaxed);
    atomic_store_explicit(f->stamp, 0, memory_order_relaxed);
    atomic_store_explicit(f->sem, 0, memory_order_relaxed);
    /* published by the release store of go */
}

static void master_body(const struct rv_run *run)
{
    const struct rv_config *cfg = run->cfg;
    const struct timebase *tb = cfg->tb;
    struct rv_shared *sh = run->sh;
    struct rv_cpu_records *rec = &run->res->cpu[0];
    uint64_t last_nap = timebase_ticks(tb);
    size_t attempted = 0;
    bool interrupted = false;
    for (size_t r = 0; r < cfg->rendezvous; r++) {
        if (stop_requested()) {
            interrupted = true;
            break;
        }
        bool sleep_now = timebase_ticks(tb) - last_nap > run->slice_ticks;
        atomic_store_explicit(&sh->open, ((uint64_t)(r + 1) << 1) | sleep_now,
                              memory_order_release);
        if (sleep_now) {
            nap(); /* the members nap too: the open word told them */
            last_nap = timebase_ticks(tb);
        }
        attempted = r + 1;
        struct rv_fields f = fields_of(run, r);
        if (!wait_acks(run, r + 1)) {
            rec->status[r] = RV_START_TIMEOUT;
            continue;
        }
        reset_fields(&f);
        atomic_store_explicit(&sh->go, r + 1, memory_order_release);
        rendezvous_once(run, 0, r, &f);
    }
    atomic_store_explicit(&sh->open, RV_DONE, memory_order_release);
    /* written once at the end: the members read *res (its cpu pointer) */
    run->res->attempted = attempted;
    run->res->interrupted = interrupted;
}

enum go_answer { GO, MOVED_ON, NO_ANSWER };

/* A member waiting for a new open word; false when none came in time. */
static bool wait_open(const struct rv_run *run, uint64_t answered, uint64_t *open)
{
    const struct timebase *tb = run->cfg->tb;
    const uint64_t deadline = timebase_ticks(tb) + run->deadline_ticks;
    for (unsigned k = 1;; k++) {
        uint64_t o = atomic_load_explicit(&run->sh->open, memory_order_acquire);
        if (o == RV_DONE || (o >> 1) != answered) {
            *open = o;
            return true;
        }
        if ((k & 15) == 0 && timebase_ticks(tb) > deadline)
            return false;
        cpu_relax();
    }
}

/* A member that answered `open`: the master lets rendezvous `want` begin,
 * or gave up on it and opened another. */
static enum go_answer wait_go(const struct rv_run *run, uint64_t want, uint64_t open)
{
    const struct timebase *tb = run->cfg->tb;
    const uint64_t deadline = timebase_ticks(tb) + run->deadline_ticks;
    for (unsigned k = 1;; k++) {
        if (atomic_load_explicit(&run->sh->go, memory_order_acquire) == want)
            return GO;
        if (atomic_load_explicit(&run->sh->open, memory_order_acquire) != open)
            return MOVED_ON;
        if ((k & 15) == 0 && timebase_ticks(tb) > deadline)
            return NO_ANSWER;
        cpu_relax();
    }
}

static void member_body(const struct rv_run *run, int index)
{
    const struct rv_config *cfg = run->cfg;
    const struct timebase *tb = cfg->tb;
    uint64_t answered = 0, open;
    uint64_t last_sleep = timebase_ticks(tb);
    for (;;) {
        if (!wait_open(run, answered, &open)) {
            nap(); /* the master sleeps, or is not running */
            last_sleep = timebase_ticks(tb);
            continue;
        }
        if (open == RV_DONE)
            break;
        /* told to, or (should the master not say so) after two slices */
        if ((open & 1) || timebase_ticks(tb) - last_sleep > 2 * run->slice_ticks) {
            nap();
            last_sleep = timebase_ticks(tb);
        }
        uint64_t want = open >> 1;
        atomic_store_explicit(&run->acks[index].seq, want, memory_order_release);
        answered = want;
        enum go_answer a;
        while ((a = wait_go(run, want, open)) == NO_ANSWER) {
            nap();
            last_sleep = timebase_ticks(tb);
        }
        if (a == GO) {
            size_t r = (size_t)(want - 1);
            struct rv_fields f = fields_of(run, r);
            rendezvous_once(run, index, r, &f);
        }
    }
}

static void body(void *arg, int index)
{
    const struct rv_run *run = arg;
    if (index == 0)
        master_body(run);
    else
        member_body(run, index);
}

int rv_run(const struct rv_config *cfg, struct rv_result *res, char *err, size_t errlen)
{
    if (cfg->ncpu < 2 || res->ncpu != cfg->ncpu || res->n < cfg->rendezvous ||
        cfg->iterations < 1 || cfg->nlayouts < 1 || cfg->batches < 1) {
        snprintf(err, errlen, "rendezvous: inconsistent configuration");
        return -1;
    }
    struct rv_run run = {.cfg = cfg, .res = res};
    run.sh = aligned_alloc(2 * RV_BLOCK, sizeof *run.sh);
    if (run.sh)
        memset(run.sh, 0, sizeof *run.sh);
    run.acks = alloc_lines((size_t)cfg->ncpu * sizeof *run.acks);
    if (!run.sh || !run.acks) {
        free(run.sh);
        free(run.acks);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    run.deadline_ticks =
        timebase_ticks_of_ns(cfg->tb, cfg->deadline_ns > 0 ? cfg->deadline_ns : RV_DEADLINE_NS);
    run.slice_ticks = timebase_ticks_of_ns(cfg->tb, RV_SLICE_NS);
    res->attempted = 0;
    res->interrupted = false;
    struct team_config tc = {
        .cpus = cfg->cpus,
        .n = cfg->ncpu,
        .fifo = cfg->fifo,
        .priority = cfg->priority,
        .body = body,
        .arg = &run,
    };
    struct team_report rep;
    int rc = team_run(&tc, &rep, err, errlen);
    res->realtime = rep.realtime;
    free(run.sh);
    free(run.acks);
    return rc;
}
