/*
 * The newest records of a stream that may run for months: a ring of `cap`
 * fixed-size records allocated (and touched, so that it is resident) once,
 * before a run starts. Adding overwrites the oldest; at the end the kept
 * records are turned oldest-first in place and the number that did not fit
 * is reported, never silently lost. The report windows, the telemetry
 * windows and stat's intervals all keep their newest this way.
 */
#ifndef JITTERLAB_STATS_KEEP_RING_H
#define JITTERLAB_STATS_KEEP_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct keep_ring {
    unsigned char *slots;
    unsigned char *scratch; /* one record, for turning the ring */
    size_t size;            /* bytes per record */
    uint64_t cap;
    uint64_t head;  /* the slot the next record goes to */
    uint64_t added; /* every record added so far */
};

/* cap records of size bytes (cap 0: records are only counted). 0, or -1
 * when out of memory. */
int keep_ring_init(struct keep_ring *r, size_t size, uint64_t cap);
/* Copies rec in, over the oldest when full. */
void keep_ring_add(struct keep_ring *r, const void *rec);
/* The kept records, oldest first (turns the ring in place; adding may go
 * on); how many are kept and how many were added but not kept. */
const void *keep_ring_oldest_first(struct keep_ring *r, uint64_t *count, uint64_t *dropped);
void keep_ring_free(struct keep_ring *r);

#endif
