/*
 * The clock of the cross-CPU measurements (c2c, tsc, rendezvous): the TSC
 * when it is invariant, its rate calibrated against CLOCK_MONOTONIC, else
 * CLOCK_MONOTONIC itself (then one tick is one nanosecond). Ticks are what
 * the spin loops read; every spin loop has a deadline in ticks, so that a
 * partner that never comes (descheduled, starved by a FIFO hog) cannot hang
 * it.
 */
#ifndef JITTERLAB_CROSSCPU_TIMEBASE_H
#define JITTERLAB_CROSSCPU_TIMEBASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/clock.h"
#include "common/tsc.h"

struct timebase {
    bool tsc;           /* ticks are TSC cycles; else CLOCK_MONOTONIC ns */
    double hz;          /* ticks per second */
    double ns_per_tick; /* 1e9 / hz */
    char why[160];      /* why the TSC is not used ("" when it is) */
};

/* Chooses the clock: the TSC when this build has one and tsc_invariant
 * (constant_tsc and nonstop_tsc) holds, calibrated here (100 ms); else
 * CLOCK_MONOTONIC with the reason in why. Never fails: a calibration that
 * fails falls back to CLOCK_MONOTONIC too. */
void timebase_init(struct timebase *tb, bool tsc_invariant);

static inline uint64_t timebase_ticks(const struct timebase *tb)
{
    return tb->tsc ? read_tsc() : (uint64_t)monotonic_now_ns();
}

static inline double timebase_ns(const struct timebase *tb, double ticks)
{
    return ticks * tb->ns_per_tick;
}

static inline uint64_t timebase_ticks_of_ns(const struct timebase *tb, int64_t ns)
{
    return (uint64_t)((double)ns / tb->ns_per_tick);
}

/* "tsc" or "monotonic", for the outputs. */
static inline const char *timebase_name(const struct timebase *tb)
{
    return tb->tsc ? "tsc" : "monotonic";
}

/* Tells the CPU that this is a spin-wait loop (pause), so that the
 * sibling hardware thread keeps its share and the exit is not mispredicted. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

#endif
