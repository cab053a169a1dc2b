/*
 * cpu: continuous integer and floating-point arithmetic on registers, no
 * memory traffic: it keeps a core busy (and, pulsed, drives its P-state and
 * C-state transitions) without touching the caches its neighbours use.
 */
#include "load/load_kind.h"

static int cpu_parse(const char *args, const struct sysroot *sr, struct load_spec *spec,
                     const char **why)
{
    (void)sr;
    (void)spec;
    if (args) {
        *why = "cpu takes no arguments";
        return -1;
    }
    return 0;
}

static void *cpu_prepare(const struct load_spec *spec)
{
    (void)spec;
    static const char no_state;
    return (void *)&no_state;
}

static void cpu_burn(void *state, int64_t until_ns, const _Atomic bool *stop)
{
    (void)state;
    uint64_t x = 0x9e3779b97f4a7c15u;
    double y = 1.0;
    while (!atomic_load_explicit(stop, memory_order_relaxed) && monotonic_now_ns() < until_ns) {
        for (int i = 0; i < 4096; i++) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            y = y * 1.0000001 + 1e-9;
        }
        __asm__ volatile("" : "+r"(x), "+x"(y));
    }
}

static void cpu_release(void *state)
{
    (void)state;
}

const struct load_kind load_kind_cpu = {
    .name = "cpu",
    .usage = "cpu",
    .help = "continuous arithmetic",
    .parse = cpu_parse,
    .prepare = cpu_prepare,
    .burn = cpu_burn,
    .release = cpu_release,
};
