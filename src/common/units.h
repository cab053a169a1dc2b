/*
 * Parsing of the numbers people type: durations with units (ns, us, ms, s,
 * m, h; a bare number takes the caller's default unit) and bounded integers.
 * On error the functions return -1 and point *why at a short reason that the
 * caller puts after the option name ("--interval 0: must be greater than 0").
 */
#ifndef JITTERLAB_COMMON_UNITS_H
#define JITTERLAB_COMMON_UNITS_H

#include <stdint.h>

#define NS_PER_US INT64_C(1000)
#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S  INT64_C(1000000000)

/* Parses "250us", "1.5ms", "10s", "5m", "2h", "500ns" or a bare number in
 * bare_unit_ns. Rejects negative values, garbage and overflow. Zero is accepted
 * (callers that need > 0 check it themselves). */
int parse_duration_ns(const char *text, int64_t bare_unit_ns, int64_t *out_ns, const char **why);

/* The longest duration any option or load phase takes: 8784h (366 days).
 * Times are int64 ns of CLOCK_MONOTONIC (about 292 years of range); with every
 * duration this short, sums like start + duration or ON + OFF never overflow. */
#define DURATION_MAX_NS (INT64_C(8784) * 3600 * NS_PER_S)

/* parse_duration_ns, and more than DURATION_MAX_NS is refused too ("must be at
 * most 8784h (366 days)"). What options and load specs use. */
int parse_duration_bounded_ns(const char *text, int64_t bare_unit_ns, int64_t *out_ns,
                              const char **why);

/* Parses a base-10 integer in [min, max]. */
int parse_int_range(const char *text, long min, long max, long *out, const char **why);

/* Parses a byte count with an optional binary suffix, case-insensitive:
 * B, K/KiB, M/MiB, G/GiB (powers of 1024, as the kernel writes cache sizes).
 * Returns 0, or -1 for garbage or overflow. */
int parse_size_bytes(const char *text, uint64_t *out);

/* Formats ns as a short human string ("1.5 ms", "250 us", "10 s"): the largest
 * unit of ns, us, ms, s, up to three decimals, trailing zeros dropped. */
void format_duration(int64_t ns, char *buf, unsigned long len);
/* The same as an option takes it, without the space: "1.5ms". */
void format_duration_arg(int64_t ns, char *buf, unsigned long len);
/* format_duration up to a minute; beyond it three significant digits of
 * the largest of min, h, d, years that fits ("72899 s" reads "20.2 h"):
 * for estimates far beyond what a run saw, where seconds say nothing. */
void format_duration_long(int64_t ns, char *buf, unsigned long len);

#endif
