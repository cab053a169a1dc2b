/*
 * Deterministic random numbers for unit tests (xorshift64*): fixed seeds give
 * the same data on every machine, so a failing case can be replayed.
 */
#ifndef JITTERLAB_TEST_RNG_H
#define JITTERLAB_TEST_RNG_H

#include <stdint.h>

static inline uint64_t rng_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * UINT64_C(2685821657736338717);
}

/* Uniform in (0, 1): never 0, so log() is safe. */
static inline double rng_unit(uint64_t *state)
{
    return ((double)(rng_next(state) >> 11) + 0.5) / 9007199254740992.0;
}

#endif
