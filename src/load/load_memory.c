/*
 * memory: streaming copy between two halves of a buffer far larger than the
 * last-level cache (default four times its size, at least 64 MiB), so every
 * copy goes to DRAM and loads the memory controller the RT cores share.
 */
#include <stdlib.h>
#include <string.h>

#include "load/load_kind.h"
#include "common/units.h"
#include "sys/cache_info.h"

#define MEMORY_MIN_DEFAULT (UINT64_C(64) << 20)
#define CHUNK_BYTES        (UINT64_C(1) << 20)

struct memory_state {
    char *buf;
    uint64_t half; /* bytes per half, a multiple of CHUNK_BYTES */
    uint64_t offset;
};

static int memory_parse(const char *args, const struct sysroot *sr, struct load_spec *spec,
                        const char **why)
{
    if (args) {
        if (parse_size_bytes(args, &spec->size_bytes) != 0 || spec->size_bytes < 2 * CHUNK_BYTES ||
            spec->size_bytes > (UINT64_C(64) << 30)) {
            *why = "memory size must be 2MiB..64GiB (e.g. memory:256MiB)";
            return -1;
        }
        return 0;
    }
    uint64_t want = 4 * cache_size_bytes(sr, 0);
    spec->size_bytes = want > MEMORY_MIN_DEFAULT ? want : MEMORY_MIN_DEFAULT;
    return 0;
}

static void *memory_prepare(const struct load_spec *spec)
{
    struct memory_state *st = calloc(1, sizeof(*st));
    if (!st)
        return NULL;
    st->half = spec->size_bytes / 2 / CHUNK_BYTES * CHUNK_BYTES;
    st->buf = malloc(2 * st->half);
    if (!st->buf) {
        free(st);
        return NULL;
    }
    memset(st->buf, 1, 2 * st->half);
    return st;
}

static void memory_burn(void *state, int64_t until_ns, const _Atomic bool *stop)
{
    struct memory_state *st = state;
    while (!atomic_load_explicit(stop, memory_order_relaxed) && monotonic_now_ns() < until_ns) {
        memcpy(st->buf + st->half + st->offset, st->buf + st->offset, CHUNK_BYTES);
        st->offset = (st->offset + CHUNK_BYTES) % st->half;
    }
}

static void memory_release(void *state)
{
    struct memory_state *st = state;
    free(st->buf);
    free(st);
}

const struct load_kind load_kind_memory = {
    .name = "memory",
    .usage = "memory[:SIZE]",
    .help = "streaming copy over 4 x the last-level cache (>= 64MiB)",
    .parse = memory_parse,
    .prepare = memory_prepare,
    .burn = memory_burn,
    .release = memory_release,
};
