/*
 * cache: random read-modify-write of cache lines over a buffer about the size
 * of the last-level cache, so that the prefetcher cannot help and whatever a
 * real-time neighbour keeps in the shared cache is evicted again and again.
 */
#include <stdlib.h>
#include <string.h>

#include "load/load_kind.h"
#include "common/units.h"
#include "sys/cache_info.h"

#define CACHE_FALLBACK_BYTES (32u << 20) /* when sysfs has no cache information */
#define LINE_BYTES           64

struct cache_state {
    uint64_t *buf;
    uint64_t lines_mask; /* lines - 1, lines a power of two */
    uint64_t rng;
};

static int cache_parse(const char *args, const struct sysroot *sr, struct load_spec *spec,
                       const char **why)
{
    if (args) {
        if (parse_size_bytes(args, &spec->size_bytes) != 0 || spec->size_bytes < 4096 ||
            spec->size_bytes > (UINT64_C(16) << 30)) {
            *why = "cache size must be 4KiB..16GiB (e.g. cache:32MiB)";
            return -1;
        }
        return 0;
    }
    uint64_t llc = cache_size_bytes(sr, 0);
    spec->size_bytes = llc ? llc : CACHE_FALLBACK_BYTES;
    return 0;
}

static void *cache_prepare(const struct load_spec *spec)
{
    struct cache_state *st = calloc(1, sizeof(*st));
    if (!st)
        return NULL;
    uint64_t lines = 1;
    while (lines * 2 * LINE_BYTES <= spec->size_bytes)
        lines *= 2;
    st->buf = aligned_alloc(LINE_BYTES, lines * LINE_BYTES);
    if (!st->buf) {
        free(st);
        return NULL;
    }
    memset(st->buf, 1, lines * LINE_BYTES);
    st->lines_mask = lines - 1;
    st->rng = 0x2545f4914f6cdd1du;
    return st;
}

static void cache_burn(void *state, int64_t until_ns, const _Atomic bool *stop)
{
    struct cache_state *st = state;
    uint64_t x = st->rng;
    while (!atomic_load_explicit(stop, memory_order_relaxed) && monotonic_now_ns() < until_ns) {
        for (int i = 0; i < 4096; i++) {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            uint64_t *line = st->buf + (x & st->lines_mask) * (LINE_BYTES / sizeof(uint64_t));
            *line += x;
        }
    }
    st->rng = x;
}

static void cache_release(void *state)
{
    struct cache_state *st = state;
    free(st->buf);
    free(st);
}

const struct load_kind load_kind_cache = {
    .name = "cache",
    .usage = "cache[:SIZE]",
    .help = "random read-modify-write over about the last-level\ncache size (sysfs; 32MiB when "
            "unknown)",
    .parse = cache_parse,
    .prepare = cache_prepare,
    .burn = cache_burn,
    .release = cache_release,
};
