/*
 * The keep ring (see keep_ring.h). Turning it oldest-first is three
 * reversals of records (the first `head`, the rest, then all), so it needs
 * one record of scratch and no second ring.
 */
#include "stats/keep_ring.h"

#include <stdlib.h>
#include <string.h>

int keep_ring_init(struct keep_ring *r, size_t size, uint64_t cap)
{
    memset(r, 0, sizeof(*r));
    r->size = size;
    r->cap = cap;
    if (cap == 0)
        return 0;
    r->slots = calloc(cap, size);
    r->scratch = malloc(size);
    if (!r->slots || !r->scratch) {
        keep_ring_free(r);
        return -1;
    }
    memset(r->slots, 0, cap * size); /* resident before the run */
    return 0;
}

void keep_ring_add(struct keep_ring *r, const void *rec)
{
    r->added++;
    if (r->cap == 0)
        return;
    memcpy(r->slots + (size_t)r->head * r->size, rec, r->size);
    r->head = (r->head + 1) % r->cap;
}

static void reverse(struct keep_ring *r, uint64_t from, uint64_t n)
{
    for (uint64_t i = 0; i < n / 2; i++) {
        unsigned char *a = r->slots + (size_t)(from + i) * r->size;
        unsigned char *b = r->slots + (size_t)(from + n - 1 - i) * r->size;
        memcpy(r->scratch, a, r->size);
        memcpy(a, b, r->size);
        memcpy(b, r->scratch, r->size);
    }
}

const void *keep_ring_oldest_first(struct keep_ring *r, uint64_t *count, uint64_t *dropped)
{
    uint64_t n = r->added < r->cap ? r->added : r->cap;
    *count = n;
    *dropped = r->added - n;
    if (r->added > r->cap && r->head > 0) {
        /* full: the oldest is at head; after the turn it is at 0, which is
         * also where the next record goes */
        reverse(r, 0, r->head);
        reverse(r, r->head, r->cap - r->head);
        reverse(r, 0, r->cap);
        r->head = 0;
    }
    return r->slots;
}

void keep_ring_free(struct keep_ring *r)
{
    free(r->slots);
    free(r->scratch);
    memset(r, 0, sizeof(*r));
}
