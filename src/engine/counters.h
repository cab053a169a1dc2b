/*
 * Per-thread event counters through perf_event_open: a hardware group (CPU
 * cycles, instructions, last-level-cache misses) and a software group
 * (context switches, CPU migrations, page faults), each read with a single
 * group read() so the measuring thread stays within the real-time rules.
 * Where the PMU is missing (most VMs) the hardware group is reported
 * unavailable with the reason, and the software group still works.
 */
#ifndef JITTERLAB_ENGINE_COUNTERS_H
#define JITTERLAB_ENGINE_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum counter_id {
    COUNTER_CYCLES,
    COUNTER_INSTRUCTIONS,
    COUNTER_LLC_MISSES,
    COUNTER_CONTEXT_SWITCHES,
    COUNTER_CPU_MIGRATIONS,
    COUNTER_PAGE_FAULTS,
    COUNTER_COUNT
};

#define COUNTERS_HARDWARE_MASK                                                                     \
    ((1u << COUNTER_CYCLES) | (1u << COUNTER_INSTRUCTIONS) | (1u << COUNTER_LLC_MISSES))
#define COUNTERS_SOFTWARE_MASK                                                                     \
    ((1u << COUNTER_CONTEXT_SWITCHES) | (1u << COUNTER_CPU_MIGRATIONS) |                           \
     (1u << COUNTER_PAGE_FAULTS))
#define COUNTERS_ALL_MASK (COUNTERS_HARDWARE_MASK | COUNTERS_SOFTWARE_MASK)

/* The names people type (--counters LIST): "cycles", "instructions",
 * "llc-misses", "context-switches", "cpu-migrations", "page-faults"; "all". */
const char *counter_name(enum counter_id id);
/* Parses a comma-separated list into a bit mask (1u << id). 0 or -1 + *why. */
int counters_parse(const char *text, uint32_t *mask, const char **why);

struct counter_set {
    uint32_t mask;      /* requested */
    uint32_t open_mask; /* actually counting */
    int hw_fd[3];       /* group leader first; -1 when closed */
    int sw_fd[3];
    int hw_count, sw_count;
    enum counter_id hw_ids[3], sw_ids[3];
    bool hw_available;
    char hw_reason[160]; /* why the hardware group is unavailable */
};

/* Opens the requested counters for the calling thread (pid 0, any CPU).
 * Never fails outright: what cannot be opened is left out, with the reason
 * in hw_reason for the hardware group. Returns 0, or -1 with err filled when
 * even the software counters cannot be opened (perf_event_paranoid). */
int counters_open(struct counter_set *cs, uint32_t mask, char *err, size_t errlen);
/* Reads every open counter into values[COUNTER_COUNT] (unopened ones stay
 * untouched). One read() per group. Returns 0 or -1. */
int counters_read(const struct counter_set *cs, uint64_t values[COUNTER_COUNT]);
void counters_close(struct counter_set *cs);

#endif
