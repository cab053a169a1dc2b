/*
 * The TSC check's measurements (see tsc_check.h). Each step is a team of
 * pinned threads (crosscpu/team.h) per pair or per CPU whose bodies follow
 * one absolute schedule of slices in CLOCK_MONOTONIC: they spin together
 * for a slice, sleep together, and end at the schedule's end even when the
 * partner never runs (a FIFO hog on its CPU), so no body waits on another
 * without a deadline. What a body writes sits on cache lines of its own;
 * the shared "last value" and request/answer words have lines of their own.
 */
#include "crosscpu/tsc_check.h"

#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/stop.h"
#include "common/tsc.h"
#include "crosscpu/team.h"
#include "sys/kernel_cmdline.h"
#include "sys/kmsg.h"

#define NS_PER_S_D 1e9

/* ---- what the machine says ----------------------------------------------- */

static bool has_word(const char *list, size_t len, const char *word)
{
    size_t wl = strlen(word);
    for (size_t i = 0; i + wl <= len; i++) {
        if ((i == 0 || list[i - 1] == ' ' || list[i - 1] == '\t') &&
            memcmp(list + i, word, wl) == 0 &&
            (i + wl == len || list[i + wl] == ' ' || list[i + wl] == '\t'))
            return true;
    }
    return false;
}

/* Every CPU's "flags" line counts (not "vmx flags"): a flag is there when
 * all have it. */
void tsc_read_flags(const struct sysroot *sr, struct tsc_flags *f)
{
    memset(f, 0, sizeof *f);
    struct sysroot_buf b = {0};
    if (sysroot_read_file(sr, "/proc/cpuinfo", &b) <= 0) {
        sysroot_buf_free(&b);
        return;
    }
    bool tsc = true, cons = true, nonstop = true, rel = true, known = true, rdtscp = true;
    int lines = 0;
    for (const char *line = b.text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len > 5 && strncmp(line, "flags", 5) == 0 &&
            (line[5] == ' ' || line[5] == '\t' || line[5] == ':')) {
            const char *colon = memchr(line, ':', len);
            if (colon) {
                const char *w = colon + 1;
                size_t wl = len - (size_t)(w - line);
                lines++;
                tsc = tsc && has_word(w, wl, "tsc");
                cons = cons && has_word(w, wl, "constant_tsc");
                nonstop = nonstop && has_word(w, wl, "nonstop_tsc");
                rel = rel && has_word(w, wl, "tsc_reliable");
                known = known && has_word(w, wl, "tsc_known_freq");
                rdtscp = rdtscp && has_word(w, wl, "rdtscp");
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    sysroot_buf_free(&b);
    if (lines == 0)
        return;
    *f = (struct tsc_flags){true, tsc, cons, nonstop, rel, known, rdtscp};
}

/* Only the kernel's records: root may write any text to /dev/kmsg (it
 * arrives with facility user, never 0), and no such record is a verdict. */
static void take_kmsg(void *arg, const struct kmsg_record *rec)
{
    if (rec->facility != 0)
        return;
    tsc_kernel_log_add(arg, rec->text);
}

void tsc_check_static(const struct sysroot *sr, const char *hypervisor, struct tsc_static *st)
{
    memset(st, 0, sizeof *st);
    tsc_read_flags(sr, &st->flags);
    sysroot_read_string(sr, "/sys/devices/system/clocksource/clocksource0/current_clocksource",
                        st->clocksource, sizeof st->clocksource);
    sysroot_read_string(sr, "/sys/devices/system/clocksource/clocksource0/available_clocksource",
                        st->available, sizeof st->available);
    snprintf(st->hypervisor, sizeof st->hypervisor, "%s", hypervisor ? hypervisor : "");
    snprintf(st->sysroot, sizeof st->sysroot, "%s", sr->prefix);
    char *cmdline = NULL;
    struct kernel_cmdline *kc = calloc(1, sizeof *kc);
    if (kc && sysroot_read_value(sr, "/proc/cmdline", &cmdline) >= 0) {
        kernel_cmdline_parse(cmdline, kc);
        snprintf(st->cmdline_tsc, sizeof st->cmdline_tsc, "%s", kc->tsc);
    }
    free(cmdline);
    free(kc);

    struct tsc_kernel_log *log = &st->log;
    tsc_kernel_log_init(log);
    struct kmsg_stats ks;
    log->readable = kmsg_read(sr, take_kmsg, log, &ks, log->why, sizeof log->why) == 0;
    log->first_seq = ks.first_seq;
    log->start_lost = ks.have_first_seq && (ks.first_seq > 0 || ks.lost > 0);
}

/* ---- the plan ---------------------------------------------------------- */

int tsc_plan_pairs(int ncpu, int64_t total_ns, int64_t floor_ns, int *a, int *b, int max,
                   int64_t *pair_ns, uint64_t *possible)
{
    *possible = ncpu > 1 ? (uint64_t)ncpu * (uint64_t)(ncpu - 1) / 2 : 1;
    int n = 0;
    if (ncpu <= 1) {
        if (max > 0 && ncpu == 1) {
            a[0] = b[0] = 0;
            n = 1;
        }
        *pair_ns = total_ns;
        return n;
    }
    /* as many as fit at the floor, but never fewer than the star */
    uint64_t fit = floor_ns > 0 ? (uint64_t)(total_ns / floor_ns) : *possible;
    if (fit < (uint64_t)(ncpu - 1))
        fit = (uint64_t)(ncpu - 1);
    if (fit > *possible)
        fit = *possible;
    if (fit > (uint64_t)max)
        fit = (uint64_t)max;
    int want = (int)fit;
    for (int j = 1; j < ncpu && n < want; j++, n++)
        a[n] = 0, b[n] = j;
    for (int i = 1; i + 1 < ncpu && n < want; i++, n++)
        a[n] = i, b[n] = i + 1;
    for (int i = 1; i < ncpu && n < want; i++)
        for (int j = i + 2; j < ncpu && n < want; j++, n++)
            a[n] = i, b[n] = j;
    *pair_ns = n > 0 ? total_ns / n : total_ns;
    if (*pair_ns < floor_ns)
        *pair_ns = floor_ns;
    return n;
}

int tsc_results_init(struct tsc_results *r, const struct tsc_check_config *cfg)
{
    memset(r, 0, sizeof *r);
    r->arch_tsc = TSC_SUPPORTED;
    r->ncpu = cfg->ncpu;
    r->cpu = calloc(cfg->ncpu > 0 ? (size_t)cfg->ncpu : 1, sizeof *r->cpu);
    /* the star plus what -D affords: bounded by ncpu + warp_ns / floor */
    int64_t extra = cfg->warp_ns / TSC_PAIR_FLOOR_NS;
    int max = 1 + cfg->ncpu + (int)(extra < 1000000 ? extra : 1000000);
    int *a = calloc((size_t)max, sizeof *a), *b = calloc((size_t)max, sizeof *b);
    r->pair = calloc((size_t)max, sizeof *r->pair);
    if (!r->cpu || !a || !b || !r->pair) {
        free(a);
        free(b);
        tsc_results_free(r);
        return -1;
    }
    for (int i = 0; i < cfg->ncpu; i++) {
        r->cpu[i].cpu = cfg->cpus[i];
        tsc_offset_init(&r->cpu[i].offset);
    }
    r->npairs = tsc_plan_pairs(cfg->ncpu, cfg->warp_ns, TSC_PAIR_FLOOR_NS, a, b, max, &r->pair_ns,
                               &r->pairs_possible);
    for (int i = 0; i < r->npairs; i++) {
        struct tsc_pair_result *p = &r->pair[i];
        p->a = cfg->cpus[a[i]];
        p->b = cfg->cpus[b[i]];
        if (cfg->topo && p->a != p->b) {
            const struct cpu_siblings *sa = cpu_topology_find(cfg->topo, p->a);
            const struct cpu_siblings *sb = cpu_topology_find(cfg->topo, p->b);
            if (sa && sb)
                snprintf(p->group, sizeof p->group, "%s",
                         cpu_pair_group_name(cpu_pair_group(sa, sb)));
        }
    }
    free(a);
    free(b);
    return 0;
}

void tsc_results_free(struct tsc_results *r)
{
    free(r->cpu);
    free(r->pair);
    r->cpu = NULL;
    r->pair = NULL;
}

/* ---- the schedule every body follows ------------------------------------ */

struct schedule {
    alignas(64) _Atomic int64_t start_ns; /* set by the first body to arrive */
    int64_t length_ns, spin_ns, period_ns;
};

/* The schedule's start: the first body's arrival. */
static int64_t schedule_start(struct schedule *s)
{
    int64_t expected = 0, now = monotonic_now_ns();
    if (atomic_compare_exchange_strong(&s->start_ns, &expected, now))
        return now;
    return expected;
}

/* Where now falls: false once the schedule is over; else the end of this
 * slice's spinning (<= now in a gap) and the next slice's start. */
static bool slice_at(const struct schedule *s, int64_t start, int64_t now, int64_t *spin_end,
                     int64_t *next)
{
    int64_t end = start + s->length_ns;
    if (now >= end)
        return false;
    int64_t k = (now - start) / s->period_ns;
    int64_t t0 = start + k * s->period_ns;
    *spin_end = t0 + s->spin_ns < end ? t0 + s->spin_ns : end;
    *next = t0 + s->period_ns;
    return *next < end || now < *spin_end;
}

static uint64_t ticks_until(const struct timebase *tb, int64_t now_ns, int64_t until_ns)
{
    return timebase_ticks(tb) + timebase_ticks_of_ns(tb, until_ns - now_ns);
}

/* ---- the warp test ------------------------------------------------------- */

struct warp_slot {
    alignas(64) struct tsc_warp_count count;
    uint64_t handoffs;
};

struct warp_run {
    alignas(64) _Atomic uint64_t last; /* the last TSC value published */
    struct schedule sched;
    const struct timebase *tb;
    struct warp_slot slot[2];
};

/* Reads and publishes until the deadline (in ticks) or a stop. */
static void warp_spin(struct warp_run *w, struct tsc_warp_count *c, uint64_t *handoffs,
                      uint64_t *mine, uint64_t until)
{
    const bool tsc_ticks = w->tb->tsc;
    for (;;) {
        uint64_t t = 0;
        for (int i = 0; i < 64; i++) {
            uint64_t prev = atomic_load_explicit(&w->last, memory_order_acquire);
            /* rdtscp waits for the load: t is read after prev was published */
            t = read_tsc();
            tsc_warp_observe(c, prev, t);
            if (prev != *mine && prev != 0)
                (*handoffs)++;
            if (atomic_compare_exchange_strong_explicit(&w->last, &prev, t, memory_order_acq_rel,
                                                        memory_order_relaxed))
                *mine = t;
        }
        if ((tsc_ticks ? t : timebase_ticks(w->tb)) >= until || stop_requested())
            return;
    }
}

static void warp_body(void *arg, int index)
{
    struct warp_run *w = arg;
    struct tsc_warp_count c = {0};
    uint64_t handoffs = 0, mine = 0;
    int64_t start = schedule_start(&w->sched), spin_end, next;
    for (;;) {
        int64_t now = monotonic_now_ns();
        if (stop_requested() || !slice_at(&w->sched, start, now, &spin_end, &next))
            break;
        if (now < spin_end)
            warp_spin(w, &c, &handoffs, &mine, ticks_until(w->tb, now, spin_end));
        if (next >= start + w->sched.length_ns)
            break;
        sleep_until_ns(next);
    }
    w->slot[index].count = c;
    w->slot[index].handoffs = handoffs;
}

static int run_team(const struct tsc_check_config *cfg, const int *cpus, int n,
                    void (*body)(void *, int), void *arg, struct tsc_results *r, bool *first,
                    char *err, size_t errlen)
{
    struct team_config tc = {.cpus = cpus,
                             .n = n,
                             .fifo = cfg->fifo,
                             .priority = cfg->priority,
                             .body = body,
                             .arg = arg};
    struct team_report rep;
    if (team_run(&tc, &rep, err, errlen) != 0)
        return -1;
    r->realtime = (*first || r->realtime) && rep.realtime;
    *first = false;
    return 0;
}

static int measure_warp(const struct tsc_check_config *cfg, const struct timebase *tb,
                        struct tsc_results *r, bool *first, char *err, size_t errlen)
{
    struct warp_run *w = aligned_alloc(64, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int64_t t0 = monotonic_now_ns();
    r->warp_measured = true;
    for (int i = 0; i < r->npairs; i++) {
        if (stop_requested()) {
            r->interrupted = true;
            break;
        }
        if (cfg->progress)
            cfg->progress(cfg->progress_arg, "warp test", i, r->npairs);
        struct tsc_pair_result *p = &r->pair[i];
        memset(w, 0, sizeof *w);
        w->tb = tb;
        w->sched.length_ns = r->pair_ns;
        w->sched.spin_ns = TSC_SLICE_SPIN_NS;
        w->sched.period_ns = TSC_SLICE_SPIN_NS + TSC_SLICE_SLEEP_NS;
        int cpus[2] = {p->a, p->b};
        int64_t p0 = monotonic_now_ns();
        if (run_team(cfg, cpus, p->a == p->b ? 1 : 2, warp_body, w, r, first, err, errlen) != 0) {
            free(w);
            return -1;
        }
        p->duration_s = (double)(monotonic_now_ns() - p0) / NS_PER_S_D;
        struct tsc_warp_count c = w->slot[0].count;
        tsc_warp_merge(&c, &w->slot[1].count);
        p->reads = c.reads;
        p->warps = c.warps;
        p->max_warp_cycles = c.max_warp_cycles;
        p->handoffs = w->slot[0].handoffs + w->slot[1].handoffs;
        p->measured = true;
        tsc_warp_merge(&r->warp_total, &c);
        if (stop_requested())
            r->interrupted = true;
    }
    r->warp_duration_s = (double)(monotonic_now_ns() - t0) / NS_PER_S_D;
    free(w);
    return 0;
}

/* ---- offsets ------------------------------------------------------------- */

struct offset_run {
    alignas(64) _Atomic uint64_t req; /* written by the reference */
    alignas(64) _Atomic uint64_t ack; /* written by the other CPU, after tk */
    _Atomic uint64_t tk;
    alignas(64) _Atomic bool done; /* the reference has finished */
    struct schedule sched;
    const struct timebase *tb;
    alignas(64) struct tsc_offset_est est; /* the reference's */
    uint64_t rounds, timeouts;
};

/* One slice of rounds on the reference; false when all rounds are done. */
static bool offset_ref_slice(struct offset_run *o, uint64_t until, uint64_t *k)
{
    const uint64_t timeout = timebase_ticks_of_ns(o->tb, TSC_ROUND_TIMEOUT_NS);
    while (o->rounds < TSC_OFFSET_ROUNDS) {
        ++*k;
        uint64_t t0 = read_tsc();
        atomic_store_explicit(&o->req, *k, memory_order_release);
        uint64_t now = timebase_ticks(o->tb);
        uint64_t deadline = now + timeout < until ? now + timeout : until;
        bool answered = false;
        for (unsigned spins = 0;; spins++) {
            if (atomic_load_explicit(&o->ack, memory_order_acquire) == *k) {
                answered = true;
                break;
            }
            if ((spins & 15) == 15 && timebase_ticks(o->tb) >= deadline)
                break;
            cpu_relax();
        }
        uint64_t t1 = read_tsc();
        o->rounds++;
        if (answered)
            tsc_offset_add(&o->est, t0, atomic_load_explicit(&o->tk, memory_order_relaxed), t1);
        else
            o->timeouts++;
        if (timebase_ticks(o->tb) >= until || stop_requested())
            return o->rounds < TSC_OFFSET_ROUNDS;
    }
    return false;
}

/* One slice of answers on the other CPU; false once the reference is done. */
static bool offset_partner_slice(struct offset_run *o, uint64_t until, uint64_t *seen)
{
    for (unsigned spins = 0;; spins++) {
        uint64_t k = atomic_load_explicit(&o->req, memory_order_acquire);
        if (k != *seen) {
            /* rdtscp waits for the load: tk is read after the request was seen */
            atomic_store_explicit(&o->tk, read_tsc(), memory_order_relaxed);
            atomic_store_explicit(&o->ack, k, memory_order_release);
            *seen = k;
            continue;
        }
        if ((spins & 63) == 63) {
            if (atomic_load_explicit(&o->done, memory_order_acquire))
                return false;
            if (timebase_ticks(o->tb) >= until || stop_requested())
                return true;
        }
        cpu_relax();
    }
}

static void offset_body(void *arg, int index)
{
    struct offset_run *o = arg;
    uint64_t k = 0, seen = 0;
    int64_t start = schedule_start(&o->sched), spin_end, next;
    for (;;) {
        int64_t now = monotonic_now_ns();
        if (stop_requested() || !slice_at(&o->sched, start, now, &spin_end, &next))
            break;
        if (now < spin_end) {
            uint64_t until = ticks_until(o->tb, now, spin_end);
            bool more =
                index == 0 ? offset_ref_slice(o, until, &k) : offset_partner_slice(o, until, &seen);
            if (!more)
                break;
        }
        if (index == 1 && atomic_load_explicit(&o->done, memory_order_acquire))
            break;
        if (next >= start + o->sched.length_ns)
            break;
        sleep_until_ns(next);
    }
    if (index == 0)
        atomic_store_explicit(&o->done, true, memory_order_release);
}

static int measure_offsets(const struct tsc_check_config *cfg, const struct timebase *tb,
                           struct tsc_results *r, bool *first, char *err, size_t errlen)
{
    struct offset_run *o = aligned_alloc(64, sizeof *o);
    if (!o) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    r->offsets_measured = true;
    const int64_t spin = 5 * 1000 * 1000LL;
    for (int i = 1; i < r->ncpu; i++) {
        if (stop_requested()) {
            r->interrupted = true;
            break;
        }
        if (cfg->progress)
            cfg->progress(cfg->progress_arg, "offsets", i - 1, r->ncpu - 1);
        memset(o, 0, sizeof *o);
        o->tb = tb;
        tsc_offset_init(&o->est);
        o->sched.spin_ns = spin;
        o->sched.period_ns = spin + TSC_SLICE_SLEEP_NS;
        o->sched.length_ns = 2 * o->sched.period_ns + spin;
        int cpus[2] = {r->cpu[0].cpu, r->cpu[i].cpu};
        if (run_team(cfg, cpus, 2, offset_body, o, r, first, err, errlen) != 0) {
            free(o);
            return -1;
        }
        r->cpu[i].offset = o->est;
        r->cpu[i].rounds = o->rounds;
        r->cpu[i].timeouts = o->timeouts;
    }
    free(o);
    return 0;
}

/* ---- rates --------------------------------------------------------------- */

static int64_t raw_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CLOCK_MONOTONIC_RAW and the TSC as one pair (the tightest of tries);
 * returns its uncertainty in ns. */
static int64_t raw_pair(int tries, int64_t *mono_ns, uint64_t *tsc)
{
    int64_t best = INT64_MAX;
    for (int i = 0; i < tries; i++) {
        int64_t m0 = raw_now_ns();
        uint64_t t = read_tsc();
        int64_t m1 = raw_now_ns();
        if (m1 - m0 < best) {
            best = m1 - m0;
            *mono_ns = m0 + (m1 - m0) / 2;
            *tsc = t;
        }
    }
    return best / 2 + 1;
}

struct rate_run {
    struct tsc_rate *out; /* one per team member */
};

static void rate_body(void *arg, int index)
{
    struct rate_run *rr = arg;
    int64_t m0 = 0, m1 = 0;
    uint64_t t0 = 0, t1 = 0;
    int64_t e0 = raw_pair(50, &m0, &t0);
    int64_t end = monotonic_now_ns() + TSC_RATE_INTERVAL_NS;
    for (int64_t now = monotonic_now_ns(); now < end && !stop_requested(); now = monotonic_now_ns())
        sleep_until_ns(now + 10 * 1000 * 1000LL < end ? now + 10 * 1000 * 1000LL : end);
    int64_t e1 = raw_pair(50, &m1, &t1);
    struct tsc_rate *out = &rr->out[index];
    int64_t dt = m1 - m0;
    if (dt >= 10 * 1000 * 1000LL && t1 > t0) {
        out->valid = true;
        out->hz = (double)(t1 - t0) * NS_PER_S_D / (double)dt;
        out->uncertainty_hz = out->hz * (double)(e0 + e1) / (double)dt;
        out->interval_s = (double)dt / NS_PER_S_D;
    }
}

static int measure_rates(const struct tsc_check_config *cfg, struct tsc_results *r, bool *first,
                         char *err, size_t errlen)
{
    if (stop_requested()) {
        r->interrupted = true;
        return 0;
    }
    if (cfg->progress)
        cfg->progress(cfg->progress_arg, "rates", 0, 1);
    struct rate_run rr = {calloc((size_t)r->ncpu, sizeof *rr.out)};
    if (!rr.out) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = run_team(cfg, cfg->cpus, cfg->ncpu, rate_body, &rr, r, first, err, errlen);
    if (rc == 0) {
        r->rates_measured = true;
        for (int i = 0; i < r->ncpu; i++)
            r->cpu[i].rate = rr.out[i];
        if (stop_requested())
            r->interrupted = true;
    }
    free(rr.out);
    return rc;
}

int tsc_check_measure(const struct tsc_check_config *cfg, const struct timebase *tb,
                      struct tsc_results *r, char *err, size_t errlen)
{
    bool first = true;
    if (!r->arch_tsc)
        return 0; /* nothing to read */
    if (cfg->no_rdtscp) {
        r->no_rdtscp = true; /* read_tsc() would fault */
        return 0;
    }
    if (measure_warp(cfg, tb, r, &first, err, errlen) != 0)
        return -1;
    if (cfg->offsets && r->ncpu > 1 && !r->interrupted &&
        measure_offsets(cfg, tb, r, &first, err, errlen) != 0)
        return -1;
    if (cfg->rates && !r->interrupted && measure_rates(cfg, r, &first, err, errlen) != 0)
        return -1;
    return 0;
}

int tsc_check_quick(const struct sysroot *sr, const char *hypervisor, const int *cpus, int ncpu,
                    struct tsc_verdict *v, char *err, size_t errlen)
{
    struct tsc_static *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    tsc_check_static(sr, hypervisor, st);
    const struct tsc_flags *f = &st->flags;
    struct tsc_check_config cfg = {.cpus = cpus,
                                   .ncpu = ncpu,
                                   .warp_ns = TSC_QUICK_WARP_NS,
                                   .no_rdtscp = f->readable && !f->rdtscp && !st->hypervisor[0],
                                   .fifo = true,
                                   .priority = 10};
    struct tsc_results r;
    if (tsc_results_init(&r, &cfg) != 0) {
        free(st);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    /* a tree describes another machine: its verdict is the tree's alone */
    bool live = !sr->prefix[0];
    if (live) {
        struct timebase tb;
        timebase_init(&tb, false); /* deadlines only: CLOCK_MONOTONIC, no calibration */
        rc = tsc_check_measure(&cfg, &tb, &r, err, errlen);
    }
    if (rc == 0)
        tsc_verdict_decide(st, live ? &r : NULL, v);
    tsc_results_free(&r);
    free(st);
    return rc;
}
