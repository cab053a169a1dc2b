/*
 * The control task the measuring thread runs after each wake-up. ptrchase
 * walks ONE random cycle through every 64-byte node of a buffer (Sattolo's
 * algorithm), so each step is a dependent load the prefetcher cannot guess
 * and the buffer's whole footprint stays hot only if the cache keeps it;
 * the walk resumes where the previous cycle stopped. spin repeats a
 * dependent multiply-add chain for a count calibrated against
 * CLOCK_MONOTONIC on the measuring CPU. All allocation, prefaulting and
 * clock reads happen before the first cycle; workload_run_cycle only loads,
 * multiplies and stores into state on cache lines of its own.
 */
#include "engine/workload.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/units.h"
#include "sys/cache_info.h"

#define PTRCHASE_MIN_NODES   2
#define PTRCHASE_MAX_BYTES   (UINT64_C(16) << 30)
#define PTRCHASE_MAX_STEPS   100000000L
#define SPIN_MAX_NS          NS_PER_S
#define CALIBRATION_TRIES    100
#define CALIBRATION_CHUNK_NS (200 * NS_PER_US) /* 100 tries: ~20 ms in all */
#define CALIBRATION_WARM_NS  NS_PER_MS

struct ptrchase_node {
    struct ptrchase_node *next;
    uint64_t pad[(WORKLOAD_NODE_BYTES - sizeof(void *)) / sizeof(uint64_t)];
};
_Static_assert(sizeof(struct ptrchase_node) == WORKLOAD_NODE_BYTES, "one node per cache line");

struct workload {
    struct workload_spec spec;
    struct ptrchase_node *nodes;
    uint64_t node_count;
    /* written by the measuring thread (calibration, then every cycle) */
    alignas(64) struct ptrchase_node *position;
    uint64_t spin_iterations;
    uint64_t checksum;
};

/* ---- parsing ------------------------------------------------------------- */

static int fail(const char **why, const char *reason)
{
    if (why)
        *why = reason;
    return -1;
}

/* Twice the L2 size of CPU 0: a buffer the L2 cannot hold but the LLC
 * usually can, so the walk's cost moves with what neighbours do to the LLC. */
static uint64_t default_ptrchase_size(const struct sysroot *sr)
{
    uint64_t l2_bytes = sr ? cache_size_bytes(sr, 2) : 0;
    if (l2_bytes > 0 && l2_bytes <= PTRCHASE_MAX_BYTES / 2)
        return 2 * l2_bytes;
    return WORKLOAD_FALLBACK_SIZE;
}

static int parse_ptrchase(const char *args, const struct sysroot *sr, struct workload_spec *spec,
                          const char **why)
{
    char size_text[64] = "", steps_text[64] = "";
    bool have_steps = false;

    if (args) {
        const char *colon = strchr(args, ':');
        size_t size_len = colon ? (size_t)(colon - args) : strlen(args);
        if (size_len >= sizeof size_text)
            return fail(why, "bad size (write bytes or e.g. 64KiB, 3MiB, 1GiB)");
        memcpy(size_text, args, size_len);
        size_text[size_len] = '\0';
        if (colon) {
            if (strchr(colon + 1, ':'))
                return fail(why, "too many fields (use ptrchase:SIZE:STEPS)");
            if (strlen(colon + 1) >= sizeof steps_text)
                return fail(why, "steps must be an integer from 1 to 100000000");
            strcpy(steps_text, colon + 1);
            have_steps = true;
        }
        /* "ptrchase::STEPS" keeps the default size; a bare "ptrchase:" is a typo */
        if (size_len == 0 && !have_steps)
            return fail(why, "bad size (write bytes or e.g. 64KiB, 3MiB, 1GiB)");
    }

    uint64_t size = 0;
    if (size_text[0] == '\0')
        size = default_ptrchase_size(sr);
    else if (parse_size_bytes(size_text, &size) != 0)
        return fail(why, "bad size (write bytes or e.g. 64KiB, 3MiB, 1GiB)");
    if (size > PTRCHASE_MAX_BYTES)
        return fail(why, "size must be at most 16GiB");
    size -= size % WORKLOAD_NODE_BYTES; /* the buffer holds whole nodes only */
    if (size < PTRCHASE_MIN_NODES * WORKLOAD_NODE_BYTES)
        return fail(why, "size must be at least 128 bytes (2 nodes of 64 bytes)");

    long steps = WORKLOAD_DEFAULT_STEPS;
    const char *ignored;
    if (have_steps && parse_int_range(steps_text, 1, PTRCHASE_MAX_STEPS, &steps, &ignored) != 0)
        return fail(why, "steps must be an integer from 1 to 100000000");

    spec->kind = WORKLOAD_PTRCHASE;
    spec->size_bytes = size;
    spec->steps = (uint64_t)steps;
    snprintf(spec->text, sizeof spec->text, "ptrchase:%" PRIu64 ":%" PRIu64, spec->size_bytes,
             spec->steps);
    return 0;
}

static int parse_spin(const char *args, struct workload_spec *spec, const char **why)
{
    if (!args || !*args)
        return fail(why, "spin needs a duration (e.g. spin:200us)");
    int64_t ns = 0;
    if (parse_duration_ns(args, NS_PER_US, &ns, why) != 0)
        return -1;
    if (ns <= 0)
        return fail(why, "spin duration must be greater than 0");
    if (ns > SPIN_MAX_NS)
        return fail(why, "spin duration must be at most 1s");
    spec->kind = WORKLOAD_SPIN;
    spec->spin_ns = ns;
    snprintf(spec->text, sizeof spec->text, "spin:%" PRId64 "ns", ns);
    return 0;
}

int workload_parse(const char *text, const struct sysroot *sr, uint64_t seed,
                   struct workload_spec *out, const char **why)
{
    if (!text || !*text)
        return fail(why, "must not be empty (use none, ptrchase, spin)");

    char kind[16] = ""; /* all zero: gcc compares it with "none" a word at a time */
    const char *colon = strchr(text, ':');
    size_t kind_len = colon ? (size_t)(colon - text) : strlen(text);
    const char *args = colon ? colon + 1 : NULL;
    if (kind_len >= sizeof kind)
        return fail(why, "unknown workload kind (use none, ptrchase, spin)");
    memcpy(kind, text, kind_len);
    kind[kind_len] = '\0';

    struct workload_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.seed = seed;
    int rc;
    if (strcmp(kind, "none") == 0) {
        if (colon)
            return fail(why, "none takes no arguments");
        spec.kind = WORKLOAD_NONE;
        snprintf(spec.text, sizeof spec.text, "none");
        rc = 0;
    } else if (strcmp(kind, "ptrchase") == 0) {
        rc = parse_ptrchase(args, sr, &spec, why);
    } else if (strcmp(kind, "spin") == 0) {
        rc = parse_spin(args, &spec, why);
    } else {
        return fail(why, "unknown workload kind (use none, ptrchase, spin)");
    }
    if (rc == 0)
        *out = spec;
    return rc;
}

/* ---- building ------------------------------------------------------------ */

/* Only for the permutation, so that a seed names one layout everywhere. */
static uint64_t xorshift64star(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * UINT64_C(2685821657736338717);
}

/* splitmix64 spreads small seeds (0, 1, 2...) and never yields the
 * xorshift state 0, from which the generator would not move. */
static uint64_t seed_state(uint64_t seed)
{
    uint64_t z = seed + UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    z ^= z >> 31;
    return z ? z : UINT64_C(0x9e3779b97f4a7c15);
}

/*
 * Sattolo's algorithm on the next pointers: starting from the identity, swap
 * each slot i with a slot j < i strictly below it. The result is a uniformly
 * chosen permutation that is one single cycle, so a walk from any node
 * visits every node before it returns. Writing every node first prefaults the
 * whole buffer. (The modulo bias is below 2^-30 for any buffer we allow.)
 */
static void build_permutation(struct ptrchase_node *nodes, uint64_t n, uint64_t seed)
{
    for (uint64_t i = 0; i < n; i++)
        nodes[i].next = &nodes[i];
    uint64_t state = seed_state(seed);
    for (uint64_t i = n - 1; i > 0; i--) {
        uint64_t j = xorshift64star(&state) % i;
        struct ptrchase_node *tmp = nodes[i].next;
        nodes[i].next = nodes[j].next;
        nodes[j].next = tmp;
    }
}

struct workload *workload_create(const struct workload_spec *spec, char *err, size_t errlen)
{
    struct workload *w = aligned_alloc(alignof(struct workload), sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    memset(w, 0, sizeof *w);
    w->spec = *spec;

    switch (spec->kind) {
    case WORKLOAD_PTRCHASE: {
        uint64_t n = spec->size_bytes / WORKLOAD_NODE_BYTES;
        if (n < PTRCHASE_MIN_NODES || spec->size_bytes > PTRCHASE_MAX_BYTES) {
            snprintf(err, errlen, "ptrchase: size %" PRIu64 " is out of range", spec->size_bytes);
            free(w);
            return NULL;
        }
        w->nodes = aligned_alloc(WORKLOAD_NODE_BYTES, (size_t)(n * WORKLOAD_NODE_BYTES));
        if (!w->nodes) {
            snprintf(err, errlen, "ptrchase: cannot allocate %" PRIu64 " bytes", n * 64);
            free(w);
            return NULL;
        }
        w->node_count = n;
        build_permutation(w->nodes, n, spec->seed);
        w->position = &w->nodes[0];
        break;
    }
    case WORKLOAD_SPIN:
        /* A first estimate, so that a caller who forgets workload_calibrate
         * still spins for roughly the right time instead of not at all. */
        workload_calibrate(w);
        break;
    case WORKLOAD_NONE:
        break;
    }
    return w;
}

/* ---- spinning ------------------------------------------------------------ */

/* One function for calibration and cycles alike, so both run the same code.
 * Each multiply-add needs the previous result, and the empty asm makes x
 * opaque, so the compiler can neither fold nor vectorise the chain. */
static __attribute__((noinline)) uint64_t spin_chain(uint64_t iterations, uint64_t x)
{
    for (uint64_t i = 0; i < iterations; i++) {
        x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* Iterations per ns over one run of `iterations`; *x carries the chain. */
static double spin_rate(uint64_t iterations, uint64_t *x, int64_t *elapsed_ns)
{
    int64_t t0 = now_ns();
    *x = spin_chain(iterations, *x);
    int64_t t1 = now_ns();
    *elapsed_ns = t1 - t0 > 0 ? t1 - t0 : 1;
    return (double)iterations / (double)*elapsed_ns;
}

/*
 * Grows the run until it lasts a millisecond (which also lets the core leave
 * any low-power state), then times CALIBRATION_TRIES runs of ~200 us (20 ms in
 * all) and keeps the fastest: preemption, interrupts and a hypervisor's steal
 * only ever make a run slower, so the fastest is the least disturbed. The runs
 * are shorter than a scheduler tick so that many of them see no interrupt at
 * all; with 4 ms runs every one contained ticks and the spin came out ~10%
 * short on a VM.
 */
void workload_calibrate(struct workload *w)
{
    if (!w || w->spec.kind != WORKLOAD_SPIN)
        return;
    uint64_t x = w->checksum | 1;
    uint64_t iterations = 1024;
    int64_t elapsed = 0;
    double rate = spin_rate(iterations, &x, &elapsed);
    while (elapsed < CALIBRATION_WARM_NS && iterations < (UINT64_C(1) << 40)) {
        iterations *= 2;
        rate = spin_rate(iterations, &x, &elapsed);
    }
    uint64_t chunk = (uint64_t)(rate * (double)CALIBRATION_CHUNK_NS);
    if (chunk < iterations)
        chunk = iterations;
    double best = 0.0;
    for (int i = 0; i < CALIBRATION_TRIES; i++) {
        double r = spin_rate(chunk, &x, &elapsed);
        if (r > best)
            best = r;
    }
    double want = best * (double)w->spec.spin_ns;
    w->spin_iterations = want < 1.0 ? 1 : (uint64_t)llround(want);
    w->checksum ^= x;
}

/* ---- the cycle ----------------------------------------------------------- */

void workload_run_cycle(struct workload *w)
{
    switch (w->spec.kind) {
    case WORKLOAD_PTRCHASE: {
        struct ptrchase_node *p = w->position;
        for (uint64_t s = w->spec.steps; s > 0; s--)
            p = p->next;
        w->position = p;
        w->checksum += (uint64_t)(p - w->nodes);
        break;
    }
    case WORKLOAD_SPIN:
        w->checksum = spin_chain(w->spin_iterations, w->checksum);
        break;
    case WORKLOAD_NONE:
        break;
    }
}

uint64_t workload_checksum(const struct workload *w)
{
    return w->checksum;
}

void workload_destroy(struct workload *w)
{
    if (!w)
        return;
    free(w->nodes);
    free(w);
}

uint64_t workload_ptrchase_next(const struct workload *w, uint64_t node)
{
    if (w->spec.kind != WORKLOAD_PTRCHASE || node >= w->node_count)
        return UINT64_MAX;
    return (uint64_t)(w->nodes[node].next - w->nodes);
}

uint64_t workload_ptrchase_nodes(const struct workload *w)
{
    return w->node_count;
}
