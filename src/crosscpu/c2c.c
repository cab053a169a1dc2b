/*
 * The c2c ping-pong (see c2c.h): a team_run per ordered pair, thread 0 on
 * "from" initiates, thread 1 on "to" answers. Round trips go in chunks (the
 * slices of at most C2C_SLICE_NS): the initiator names chunk c in `cmd` and
 * rests, the responder rests, acknowledges c in `ack` (so it no longer
 * writes the line) and waits. The line then carries base(c) + 1, 2, 3, ...:
 * the responder takes the odd tokens, the initiator the even ones, and END(c)
 * ends the chunk; tokens carry their chunk, so a late write from an abandoned
 * chunk is never taken for a current one. A team per pair costs ~0.2 ms
 * here, about 1 % of a pair: no persistent per-CPU threads.
 */
#include "crosscpu/c2c.h"

#include <assert.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/stop.h"
#include "crosscpu/sample_stats.h"
#include "crosscpu/team.h"

/* The cache line the two threads pass, alone on its line. */
struct c2c_line {
    alignas(64) _Atomic uint64_t value;
    char pad[64 - sizeof(_Atomic uint64_t)];
};
static_assert(sizeof(struct c2c_line) == 64, "the shared line fills one cache line");
static_assert(alignof(struct c2c_line) == 64, "the shared line starts a cache line");

#define CHUNK_SHIFT    40                  /* chunk c's tokens start at c << 40 */
#define END_BIT        (UINT64_C(1) << 39) /* above any token of a chunk */
#define CMD_STOP       UINT64_MAX          /* cmd: the pair is over */
#define NAP_NS         (50 * 1000)         /* polls that need not spin sleep this long */
#define ACK_WAIT_NS    INT64_C(50000000)   /* the responder's acknowledgement, sleeping */
#define IDLE_NS        INT64_C(5000000000) /* a responder without a command gives up */
#define DEADLINE_EVERY 64                  /* spins between two clock reads */

struct session {
    struct c2c_line line;
    alignas(64) _Atomic uint64_t cmd; /* written by the initiator */
    alignas(64) _Atomic uint64_t ack; /* written by the responder */
    /* Read-only while the pair runs, but for the initiator's results. */
    alignas(64) const struct c2c_config *cfg;
    uint64_t timeout_ticks, slice_ticks, ack_ticks, idle_ticks;
    uint64_t *samples;       /* round_trips round trips, in ticks */
    struct c2c_round *round; /* rounds */
    int timeouts;
    bool interrupted;
};

const char *c2c_mode_name(enum c2c_mode m)
{
    return m == C2C_CAS ? "cas" : "load-store";
}

int c2c_mode_parse(const char *text, enum c2c_mode *out)
{
    if (strcmp(text, "load-store") == 0)
        *out = C2C_LOAD_STORE;
    else if (strcmp(text, "cas") == 0)
        *out = C2C_CAS;
    else
        return -1;
    return 0;
}

static uint64_t chunk_base(uint64_t c)
{
    return c << CHUNK_SHIFT;
}

static uint64_t chunk_end(uint64_t c)
{
    return chunk_base(c) | END_BIT;
}

static void sleep_ns(long ns)
{
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL); /* signals are blocked in the team */
}

/* The initiator's step: waits until the line holds want, then writes next
 * (in cas mode both at once). false past the deadline. */
static inline bool take(struct c2c_line *l, enum c2c_mode mode, uint64_t want, uint64_t next,
                        const struct timebase *tb, uint64_t deadline)
{
    unsigned spins = 0;
    if (mode == C2C_CAS) {
        for (;;) {
            uint64_t expect = want;
            if (atomic_compare_exchange_weak_explicit(&l->value, &expect, next,
                                                      memory_order_acq_rel, memory_order_acquire))
                return true;
            if (++spins % DEADLINE_EVERY == 0 && timebase_ticks(tb) > deadline)
                return false;
            cpu_relax();
        }
    }
    while (atomic_load_explicit(&l->value, memory_order_acquire) != want) {
        if (++spins % DEADLINE_EVERY == 0 && timebase_ticks(tb) > deadline)
            return false;
        cpu_relax();
    }
    atomic_store_explicit(&l->value, next, memory_order_release);
    return true;
}

enum answer { ANSWERED, CHUNK_ENDED, TIMED_OUT };

/* The responder's step: takes want (writing next) or sees the chunk's end.
 * The deadline starts at the first clock read, DEADLINE_EVERY spins in,
 * so that a quick answer costs no clock read. */
static inline enum answer answer(struct c2c_line *l, enum c2c_mode mode, uint64_t want,
                                 uint64_t next, uint64_t end, const struct timebase *tb,
                                 uint64_t timeout_ticks)
{
    unsigned spins = 0;
    uint64_t deadline = 0;
    for (;;) {
        uint64_t seen = want;
        if (mode == C2C_CAS) {
            if (atomic_compare_exchange_weak_explicit(&l->value, &seen, next, memory_order_acq_rel,
                                                      memory_order_acquire))
                return ANSWERED;
        } else {
            seen = atomic_load_explicit(&l->value, memory_order_acquire);
            if (seen == want) {
                atomic_store_explicit(&l->value, next, memory_order_release);
                return ANSWERED;
            }
        }
        if (seen == end)
            return CHUNK_ENDED;
        if (++spins % DEADLINE_EVERY == 0) {
            uint64_t now = timebase_ticks(tb);
            if (deadline == 0)
                deadline = now + timeout_ticks;
            else if (now > deadline)
                return TIMED_OUT;
        }
        cpu_relax();
    }
}

/* Sleeps until the responder acknowledged chunk c; false past ACK_WAIT_NS. */
static bool wait_ack(struct session *s, uint64_t c)
{
    const struct timebase *tb = s->cfg->tb;
    uint64_t deadline = timebase_ticks(tb) + s->ack_ticks;
    while (atomic_load_explicit(&s->ack, memory_order_acquire) != c) {
        if (timebase_ticks(tb) > deadline)
            return false;
        sleep_ns(NAP_NS);
    }
    return true;
}

/* One chunk: round trips into samples[*got..] until the round is full or
 * the slice is over. false when a wait timed out. */
static bool run_chunk(struct session *s, uint64_t c, int *got)
{
    const struct c2c_config *cfg = s->cfg;
    const struct timebase *tb = cfg->tb;
    uint64_t tok = chunk_base(c) + 2, end = chunk_end(c);
    uint64_t t_prev = timebase_ticks(tb);
    uint64_t slice_end = t_prev + s->slice_ticks;
    atomic_store_explicit(&s->line.value, chunk_base(c) + 1, memory_order_release);
    for (;;) {
        bool last = *got + 1 >= cfg->round_trips || t_prev >= slice_end;
        if (!take(&s->line, cfg->mode, tok, last ? end : tok + 1, tb, t_prev + s->timeout_ticks)) {
            atomic_store_explicit(&s->line.value, end, memory_order_release);
            return false;
        }
        uint64_t t = timebase_ticks(tb);
        s->samples[(*got)++] = t - t_prev;
        t_prev = t;
        tok += 2;
        if (last)
            return true;
    }
}

static void initiate(struct session *s)
{
    const struct c2c_config *cfg = s->cfg;
    uint64_t c = 0;
    for (int r = 0; r < cfg->rounds && !s->interrupted; r++) {
        int got = 0;
        bool lost = false;
        while (got < cfg->round_trips && !lost) {
            if (stop_requested()) {
                s->interrupted = true;
                break;
            }
            atomic_store_explicit(&s->cmd, ++c, memory_order_release);
            sleep_ns(C2C_REST_NS);
            lost = !wait_ack(s, c) || !run_chunk(s, c, &got);
        }
        if (lost) {
            s->timeouts++;
        } else if (got == cfg->round_trips) {
            struct sample_summary sum;
            sample_summary_u64(s->samples, (size_t)got, &sum);
            s->round[r] = (struct c2c_round){true, sum.min, sum.median};
        }
    }
    atomic_store_explicit(&s->cmd, CMD_STOP, memory_order_release);
}

static void respond(struct session *s)
{
    const struct c2c_config *cfg = s->cfg;
    const struct timebase *tb = cfg->tb;
    uint64_t last = 0, idle_deadline = timebase_ticks(tb) + s->idle_ticks;
    for (;;) {
        uint64_t c = atomic_load_explicit(&s->cmd, memory_order_acquire);
        if (c == CMD_STOP)
            return;
        if (c == last) {
            if (timebase_ticks(tb) > idle_deadline)
                return; /* the initiator is gone or starved: its waits time out */
            sleep_ns(NAP_NS);
            continue;
        }
        last = c;
        atomic_store_explicit(&s->ack, c, memory_order_release);
        uint64_t tok = chunk_base(c) + 1, end = chunk_end(c);
        while (answer(&s->line, cfg->mode, tok, tok + 1, end, tb, s->timeout_ticks) == ANSWERED)
            tok += 2;
        sleep_ns(C2C_REST_NS);
        idle_deadline = timebase_ticks(tb) + s->idle_ticks;
    }
}

static void pair_body(void *arg, int index)
{
    if (index == 0)
        initiate(arg);
    else
        respond(arg);
}

static void session_reset(struct session *s, const struct c2c_config *cfg)
{
    atomic_store(&s->line.value, 0);
    atomic_store(&s->cmd, 0);
    atomic_store(&s->ack, 0);
    s->cfg = cfg;
    s->timeouts = 0;
    s->interrupted = false;
    memset(s->round, 0, (size_t)cfg->rounds * sizeof *s->round);
}

int c2c_measure(const struct c2c_config *cfg, struct c2c_matrix *m, struct c2c_report *rep,
                char *err, size_t errlen)
{
    memset(rep, 0, sizeof *rep);
    const struct timebase *tb = cfg->tb;
    struct c2c_progress prog = {0, (size_t)m->ncpu * (size_t)(m->ncpu - 1), cfg->fifo};
    struct session *s = aligned_alloc(alignof(struct session), sizeof(struct session));
    uint64_t *samples = calloc((size_t)cfg->round_trips, sizeof *samples);
    struct c2c_round *rounds = calloc((size_t)cfg->rounds, sizeof *rounds);
    int rc = -1;
    if (!s || !samples || !rounds) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    memset(s, 0, sizeof *s);
    memset(samples, 0xff, (size_t)cfg->round_trips * sizeof *samples); /* fault the pages in */
    s->samples = samples;
    s->round = rounds;
    int64_t timeout_ns = cfg->timeout_ns > 0 ? cfg->timeout_ns : C2C_TIMEOUT_NS;
    s->timeout_ticks = timebase_ticks_of_ns(tb, timeout_ns);
    s->slice_ticks = timebase_ticks_of_ns(tb, C2C_SLICE_NS);
    s->ack_ticks = timebase_ticks_of_ns(tb, ACK_WAIT_NS);
    s->idle_ticks = timebase_ticks_of_ns(tb, IDLE_NS);

    rc = 0;
    int stuck = -1; /* a CPU our threads could not run on */
    for (int i = 0; i < m->ncpu && !rep->interrupted; i++) {
        for (int k = 0; k < m->ncpu && !rep->interrupted; k++) {
            struct c2c_pair *p = c2c_matrix_at(m, i, k);
            if (i == k)
                continue;
            if (stop_requested()) {
                rep->interrupted = true;
                break;
            }
            if (p->from == stuck || p->to == stuck) { /* known to fail: no 2 s wait again */
                rep->pairs_unstarted++;
                continue;
            }
            session_reset(s, cfg);
            int cpus[2] = {p->from, p->to};
            struct team_config tc = {cpus, 2, cfg->fifo, cfg->priority, pair_body, s};
            struct team_report tr;
            char why[sizeof rep->start_error];
            if (team_run(&tc, &tr, why, sizeof why) != 0) {
                if (rep->pairs_unstarted++ == 0)
                    snprintf(rep->start_error, sizeof rep->start_error, "%s", why);
                if (tr.stuck_cpu >= 0)
                    stuck = tr.stuck_cpu;
                continue;
            }
            p->attempted = true;
            p->timeouts = s->timeouts;
            c2c_pair_finish(p, rounds, cfg->rounds, tb->ns_per_tick);
            rep->timeouts += s->timeouts;
            rep->interrupted = s->interrupted;
            prog.realtime = prog.realtime && tr.realtime;
            prog.done = ++rep->pairs_done;
            if (cfg->progress)
                cfg->progress(cfg->progress_arg, &prog);
        }
    }
done:
    rep->realtime = rep->pairs_done > 0 && prog.realtime;
    free(rounds);
    free(samples);
    free(s);
    return rc;
}
