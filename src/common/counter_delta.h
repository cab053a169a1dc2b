/*
 * How a kernel counter moved between two reads. Counters only grow, but
 * a fall happens for two reasons that need opposite answers: a counter
 * narrower than the value that holds it wrapped (the per-CPU counts of
 * /proc/interrupts and /proc/softirqs are `unsigned int`, 32 bits, on most
 * kernels; the SMI count MSR is 32 bits), or it restarted (an interrupt
 * line freed and requested again, a driver reloaded, a 64-bit counter that
 * cannot wrap in centuries). The rule is written once here so that every
 * reader of a counter tells the two apart the same way.
 */
#ifndef JITTERLAB_COMMON_COUNTER_DELTA_H
#define JITTERLAB_COMMON_COUNTER_DELTA_H

#include <stdint.h>

enum counter_step {
    COUNTER_ADVANCED, /* now >= before */
    COUNTER_WRAPPED,  /* passed the top of its width_bits and went on from 0 */
    COUNTER_RESET,    /* restarted: what it shows now is all it counted since */
};

/*
 * How a counter width_bits wide (1 .. 64) went from before to now, and
 * the count between the two reads in *delta: now - before when it
 * advanced, the difference modulo 2^width_bits when it wrapped, now when
 * it was reset (the caller decides whether that counts or is unknown).
 *
 * A fall is a wrap only when a wrap can explain it and nothing else
 * explains it better: both values fit in width_bits (a value above the
 * width shows the kernel keeps a wider counter, which does not wrap), and
 * the count the wrap implies is less than half the range (2^(width_bits-1)
 * events between two reads, over 2 billion for 32 bits, far more than any
 * interrupt line or SMI count takes between two snapshots). A larger
 * implied count is read as a restart. A wider counter that falls was
 * reset.
 */
enum counter_step counter_delta(uint64_t before, uint64_t now, unsigned width_bits,
                                uint64_t *delta);

#endif
