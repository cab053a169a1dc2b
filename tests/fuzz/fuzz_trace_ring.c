/*
 * Fuzz target: the perf ring-buffer decoder (src/trace/trace_decode.c) with
 * the tracepoint formats of tests/fixtures/trace_formats.h. The first 16
 * bytes give the reader's tail and the writer's head, the rest is the data
 * area (padded to a power of two). Whatever the bytes, the decoder reads
 * only inside the buffer (the sanitizers watch), never decodes more than
 * asked, moves the tail forward to at most the head, and every decoded
 * event has a known kind and a terminated name.
 */
#include "fuzz.h"

#include "../fixtures/trace_formats.h"

static struct trace_decoder decoder;
static struct tep_handle *tep;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!tep && !(tep = trace_test_decoder(&decoder)))
        abort();
    if (size < 16)
        return 0;
    uint64_t tail, head;
    memcpy(&tail, data, 8);
    memcpy(&head, data + 8, 8);
    data += 16;
    size -= 16;
    size_t ring_size = 64;
    while (ring_size < size && ring_size < (1u << 20))
        ring_size <<= 1;
    uint8_t *ring = calloc(1, ring_size); /* exact size: the sanitizer sees overreads */
    if (!ring)
        abort();
    memcpy(ring, data, size < ring_size ? size : ring_size);
    /* Keep the head near the tail most of the time, as a live ring has it. */
    head = tail + (head % (2 * ring_size));
    static struct trace_event out[64];
    uint64_t lost = 0, pos = tail;
    for (int pass = 0; pass < 4; pass++) {
        uint64_t before = pos;
        size_t n = trace_decode_ring(&decoder, ring, ring_size, head, &pos, 1, out, 64, &lost);
        if (n > 64 || pos - before > head - before)
            abort();
        for (size_t i = 0; i < n; i++)
            if (out[i].kind >= TRACE_KIND_COUNT || !memchr(out[i].name, 0, sizeof(out[i].name)) ||
                !memchr(out[i].prev_comm, 0, sizeof(out[i].prev_comm)))
                abort();
    }
    free(ring);
    return 0;
}
