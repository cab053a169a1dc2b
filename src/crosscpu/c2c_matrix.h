/*
 * The figures of `jitterlab c2c`, pure: what one round of round trips
 * gives (min and median in ticks), which round of a pair is kept (the one
 * with the lowest median, as the known core-to-core tools do) and its
 * one-way latency in ns (round trip / 2), the matrix of every ordered pair
 * of the measured CPUs with the topology group of each pair, the summary
 * per group and the colour band of a value. No clock, no thread: the unit
 * tests call all of it on synthetic data.
 */
#ifndef JITTERLAB_CROSSCPU_C2C_MATRIX_H
#define JITTERLAB_CROSSCPU_C2C_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/cpu_topology.h"

/* One round of a pair: done when all its round trips were timed (no
 * timeout, no stop request); min and median of the round trips in ticks. */
struct c2c_round {
    bool done;
    uint64_t min_ticks, median_ticks;
};

/* One ordered pair: from initiates, to answers. Latencies are one-way ns
 * of the best round, NAN when no round was done. */
struct c2c_pair {
    int from, to;
    enum cpu_pair_group group;
    bool attempted; /* the pair's measurement ran (false: interrupted before) */
    int rounds_done;
    int timeouts; /* rounds lost to a wait past its deadline */
    double min_ns, median_ns;
};

/* Every ordered pair of cpus[0..ncpu), row = from, column = to; the
 * diagonal is there (index i * ncpu + i) but never measured. */
struct c2c_matrix {
    int ncpu;
    int *cpus;
    struct c2c_pair *pair;
};

/* 0, or -1 (memory). Every pair unmeasured, group UNKNOWN (SAME on the
 * diagonal). */
int c2c_matrix_init(struct c2c_matrix *m, const int *cpus, int ncpu);
void c2c_matrix_free(struct c2c_matrix *m);
static inline struct c2c_pair *c2c_matrix_at(const struct c2c_matrix *m, int from_i, int to_i)
{
    return &m->pair[(size_t)from_i * (size_t)m->ncpu + (size_t)to_i];
}
/* Each pair's group from the topology (UNKNOWN for a CPU it lacks). */
void c2c_matrix_set_groups(struct c2c_matrix *m, const struct cpu_topology *topo);

/* The index of the done round with the lowest median (the lower min on a
 * tie, then the earlier), -1 when none is done. */
int c2c_best_round(const struct c2c_round *r, int n);
/* Fills rounds_done and the pair's one-way min and median from its best
 * round (ticks * ns_per_tick / 2, rounded to 0.1 ns); NAN when no round is
 * done. */
void c2c_pair_finish(struct c2c_pair *p, const struct c2c_round *r, int n, double ns_per_tick);

/* One group of pairs: pairs in it, measured (with a median), and over the
 * measured the min, median (nearest rank) and max of their medians and the
 * lowest of their mins; NAN when none is measured. */
struct c2c_group_stats {
    enum cpu_pair_group group;
    int pairs, measured;
    int64_t timeouts;
    double min_ns, median_ns, max_ns, best_min_ns;
};
/* The groups present among the off-diagonal pairs, closest first: how
 * many (at most CPU_PAIR_GROUPS), or -1 (memory). */
int c2c_group_stats(const struct c2c_matrix *m, struct c2c_group_stats out[CPU_PAIR_GROUPS]);

/* The colour bands of the text matrix: nbands bands of equal width on a
 * log scale from lo to hi (the lowest and highest median). */
struct c2c_bands {
    double lo, hi;
    int nbands;
};
/* lo and hi over the measured off-diagonal medians (NAN when none). */
void c2c_bands_init(struct c2c_bands *b, const struct c2c_matrix *m, int nbands);
/* 0 (fastest) .. nbands - 1; 0 when the values span less than 10 %
 * (nothing to tell apart), -1 for NAN. */
int c2c_band_of(const struct c2c_bands *b, double v);
/* The lower bound of band k (k in 1..nbands-1), for the legend. */
double c2c_band_floor(const struct c2c_bands *b, int k);

#endif
