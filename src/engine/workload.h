/*
 * The control task's work, run by the measuring thread after each wake-up
 * (`run --workload KIND[:ARGS]`): a pointer chase over a random cyclic
 * permutation of cache-line nodes (memory-bound, sensitive to cache
 * interference) or a calibrated spin (a known execution time). Everything is
 * allocated and prefaulted in workload_create; workload_run_cycle never
 * allocates, locks or makes a system call.
 */
#ifndef JITTERLAB_ENGINE_WORKLOAD_H
#define JITTERLAB_ENGINE_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "sys/sysroot.h"

enum workload_kind { WORKLOAD_NONE, WORKLOAD_PTRCHASE, WORKLOAD_SPIN };

struct workload_spec {
    enum workload_kind kind;
    uint64_t size_bytes; /* ptrchase buffer */
    uint64_t steps;      /* ptrchase dependent loads per cycle */
    int64_t spin_ns;     /* spin: target execution time */
    uint64_t seed;       /* ptrchase permutation */
    char text[128];      /* the spec as given, normalised (e.g. "ptrchase:2097152:5000") */
};

#define WORKLOAD_NODE_BYTES    64
#define WORKLOAD_DEFAULT_STEPS 5000
#define WORKLOAD_FALLBACK_SIZE (3u << 20) /* when the L2 size is unknown */

/* Parses "none", "ptrchase[:SIZE[:STEPS]]" (SIZE like 16KiB, 3MiB, 64MiB, 4096;
 * empty in "ptrchase::STEPS"), "spin:DURATION" (bare number: us). The default
 * ptrchase size is twice the L2 cache size read from
 * /sys/devices/system/cpu/cpu0/cache/index* (level 2), or
 * WORKLOAD_FALLBACK_SIZE; sizes are rounded down to whole nodes. seed is
 * stored as given. Returns 0 or -1 with *why (a static reason; the caller
 * prints the text next to it); *out is untouched on error. */
int workload_parse(const char *text, const struct sysroot *sr, uint64_t seed,
                   struct workload_spec *out, const char **why);

struct workload;

/* Allocates and prefaults the buffer and builds the permutation (ptrchase),
 * or makes a first spin calibration on the calling thread (~25 ms). NULL with
 * err filled on failure. */
struct workload *workload_create(const struct workload_spec *spec, char *err, size_t errlen);
/* Calibrates the spin loop; call on the measuring thread, on its CPU, before
 * the first cycle (a no-op for other kinds). */
void workload_calibrate(struct workload *w);
/* One cycle's work. */
void workload_run_cycle(struct workload *w);
/* A value that depends on all work done (keeps the compiler honest). */
uint64_t workload_checksum(const struct workload *w);
void workload_destroy(struct workload *w);

/* For tests: the node index following `node` in the permutation. */
uint64_t workload_ptrchase_next(const struct workload *w, uint64_t node);
uint64_t workload_ptrchase_nodes(const struct workload *w);

#endif
