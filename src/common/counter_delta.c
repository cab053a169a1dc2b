/*
 * The step of a kernel counter between two reads (see counter_delta.h):
 * serial-number arithmetic on the counter's own width, so that a 32-bit
 * count that passed 2^32 - 1 is counted in full and a restarted one is not
 * taken for four billion events.
 */
#include "common/counter_delta.h"

enum counter_step counter_delta(uint64_t before, uint64_t now, unsigned width_bits, uint64_t *delta)
{
    if (now >= before) {
        *delta = now - before;
        return COUNTER_ADVANCED;
    }
    if (width_bits >= 1 && width_bits < 64) {
        uint64_t mask = (UINT64_C(1) << width_bits) - 1;
        uint64_t wrapped = (now - before) & mask;
        if (before <= mask && now <= mask && wrapped < (UINT64_C(1) << (width_bits - 1))) {
            *delta = wrapped;
            return COUNTER_WRAPPED;
        }
    }
    *delta = now;
    return COUNTER_RESET;
}
