/*
 * Bounded lock-free single-producer/single-consumer ring of cycle samples,
 * one per measured CPU. The RT thread is the only producer and never waits:
 * when the ring is full the sample is counted in `drops` (the summary
 * statistics are kept by the RT thread itself, so they stay exact). The
 * collector is the only consumer. Producer and consumer indices live on
 * cache lines of their own so the two threads never write the same line.
 */
#ifndef JITTERLAB_ENGINE_RING_H
#define JITTERLAB_ENGINE_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* One measured cycle as the collector sees it (64 bytes, one cache line). */
struct cycle_sample {
    int64_t t_ns;             /* actual wake time, relative to the run start */
    int64_t latency_ns;       /* wake time - planned wake time */
    int64_t period_ns;        /* wake time - previous wake time; 0 for the first */
    int64_t exec_ns;          /* wake time to end of the cycle's work */
    int64_t llc_misses;       /* during the active part; -1 when not counted */
    uint32_t missed;          /* planned wake-ups skipped just before this one */
    uint32_t seq;             /* sample number on this CPU (low 32 bits) */
    int32_t ipc_milli;        /* instructions per cycle x 1000; -1 when not counted */
    int32_t context_switches; /* during the active part; -1 when not counted */
    uint64_t reserved;
};

struct sample_ring {
    /* producer (RT thread) line: a push touches it and the slot, nothing
     * else. slots and mask are read-only after setup and are here so that
     * the producer needs no other line; the consumer's reads of this line,
     * once a drain pass, cost the producer one coherence miss a pass. */
    alignas(64) _Atomic uint64_t head;
    uint64_t tail_cache;    /* producer's last view of tail */
    _Atomic uint64_t drops; /* written by the producer only; read live by the collector */
    struct cycle_sample *slots;
    uint64_t mask; /* capacity - 1, capacity a power of two */
    /* consumer (collector) line */
    alignas(64) _Atomic uint64_t tail;
};

static inline bool sample_ring_push(struct sample_ring *r, const struct cycle_sample *s)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (head - r->tail_cache > r->mask) {
        r->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (head - r->tail_cache > r->mask) {
            atomic_store_explicit(&r->drops,
                                  atomic_load_explicit(&r->drops, memory_order_relaxed) + 1,
                                  memory_order_relaxed);
            return false;
        }
    }
    r->slots[head & r->mask] = *s;
    atomic_store_explicit(&r->head, head + 1, memory_order_release);
    return true;
}

/* Copies up to max samples out; returns how many. Consumer side only. */
static inline uint64_t sample_ring_pop(struct sample_ring *r, struct cycle_sample *out,
                                       uint64_t max)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    uint64_t n = head - tail;
    if (n > max)
        n = max;
    for (uint64_t i = 0; i < n; i++)
        out[i] = r->slots[(tail + i) & r->mask];
    atomic_store_explicit(&r->tail, tail + n, memory_order_release);
    return n;
}

#endif
