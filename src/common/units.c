/*
 * Numbers people type on the command line: durations with units and bounded
 * integers, plus the reverse (a duration printed for people).
 *
 * Durations are parsed with integer arithmetic only: the integer part and the
 * fraction digits are taken apart and scaled separately, so "1.1ms" is exactly
 * 1100000 ns (a double would give 1099999.99...). Fractions finer than 1 ns are
 * truncated. Error reasons are static strings because the API hands back a
 * const char * and the module keeps no state; the caller already prints the
 * offending text next to the reason ("--interval 10xs: unknown unit ...").
 */
#include "common/units.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct duration_unit {
    const char *name;
    int64_t ns;
};

static const struct duration_unit duration_units[] = {
    {"ns", INT64_C(1)},       {"us", NS_PER_US}, {"\xc2\xb5s", NS_PER_US}, /* U+00B5 MICRO SIGN */
    {"\xce\xbcs", NS_PER_US}, /* U+03BC GREEK SMALL LETTER MU */
    {"ms", NS_PER_MS},        {"s", NS_PER_S},   {"m", 60 * NS_PER_S},     {"h", 3600 * NS_PER_S},
};

static bool has_space(const char *text)
{
    for (const char *p = text; *p; p++) {
        if (isspace((unsigned char)*p))
            return true;
    }
    return false;
}

static int fail(const char **why, const char *reason)
{
    if (why)
        *why = reason;
    return -1;
}

/* floor(0.d1d2d3... * unit_ns), exactly: Horner's scheme from the last digit.
 * floor((d * u + x) / 10) == floor((d * u + floor(x)) / 10) for integer d * u,
 * so truncating at every step loses nothing, and acc stays below unit_ns. */
static uint64_t scale_fraction(const char *digits, size_t n, uint64_t unit_ns)
{
    uint64_t acc = 0;
    for (size_t i = n; i > 0; i--)
        acc = ((uint64_t)(digits[i - 1] - '0') * unit_ns + acc) / 10;
    return acc;
}

int parse_duration_ns(const char *text, int64_t bare_unit_ns, int64_t *out_ns, const char **why)
{
    if (bare_unit_ns <= 0 || bare_unit_ns > INT64_MAX / 10)
        return fail(why, "invalid default unit");
    if (!text || !*text)
        return fail(why, "must not be empty");
    if (has_space(text))
        return fail(why, "must not contain spaces (write e.g. 250us)");
    if (*text == '-')
        return fail(why, "must not be negative");

    const char *p = text;
    uint64_t whole = 0;
    bool whole_too_large = false;
    const char *int_start = p;
    while (isdigit((unsigned char)*p)) {
        unsigned digit = (unsigned)(*p - '0');
        if (whole > ((uint64_t)INT64_MAX - digit) / 10)
            whole_too_large = true;
        else
            whole = whole * 10 + digit;
        p++;
    }
    if (p == int_start)
        return fail(why, "not a duration (write e.g. 250us, 1.5ms, 10s)");

    const char *frac = NULL;
    size_t frac_len = 0;
    if (*p == '.') {
        frac = ++p;
        while (isdigit((unsigned char)*p))
            p++;
        frac_len = (size_t)(p - frac);
        if (frac_len == 0)
            return fail(why, "malformed number (digits expected after '.')");
    }

    int64_t unit_ns = 0;
    if (*p == '\0') {
        unit_ns = bare_unit_ns;
    } else {
        for (size_t i = 0; i < sizeof duration_units / sizeof duration_units[0]; i++) {
            if (strcmp(p, duration_units[i].name) == 0) {
                unit_ns = duration_units[i].ns;
                break;
            }
        }
        if (unit_ns == 0)
            return fail(why, "unknown unit (use ns, us, ms, s, m, h)");
    }
    if (whole_too_large)
        return fail(why, "too large");

    uint64_t fraction_ns = frac ? scale_fraction(frac, frac_len, (uint64_t)unit_ns) : 0;
    if (whole > ((uint64_t)INT64_MAX - fraction_ns) / (uint64_t)unit_ns)
        return fail(why, "too large");
    *out_ns = (int64_t)(whole * (uint64_t)unit_ns + fraction_ns);
    return 0;
}

int parse_duration_bounded_ns(const char *text, int64_t bare_unit_ns, int64_t *out_ns,
                              const char **why)
{
    int64_t ns;
    if (parse_duration_ns(text, bare_unit_ns, &ns, why) != 0)
        return -1;
    if (ns > DURATION_MAX_NS)
        return fail(why, "must be at most 8784h (366 days)");
    *out_ns = ns;
    return 0;
}

int parse_int_range(const char *text, long min, long max, long *out, const char **why)
{
    if (!text || !*text)
        return fail(why, "must not be empty");
    /* strtol would skip leading blanks and accept a sign-only prefix; insist
     * on [+-]digits and nothing else. */
    const char *p = text;
    if (*p == '+' || *p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return fail(why, "not a number");

    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (*end != '\0')
        return fail(why, "not a number");
    if (errno == ERANGE || value < min || value > max)
        return fail(why, "out of range");
    *out = value;
    return 0;
}

/*
 * The rule: the largest of ns, us, ms, s that the magnitude reaches (seconds
 * is the largest; 2 h prints as "7200 s"), at most three decimals, rounded half
 * up, trailing zeros dropped: 500 -> "500 ns", 250000 -> "250 us", 1500000 ->
 * "1.5 ms", 999999999 -> "1 s" (rounding may carry into the next unit).
 * Negative values (period errors) get a leading '-'.
 */
void format_duration(int64_t ns, char *buf, unsigned long len)
{
    static const struct duration_unit print_units[] = {
        {"ns", INT64_C(1)},
        {"us", NS_PER_US},
        {"ms", NS_PER_MS},
        {"s", NS_PER_S},
    };
    const size_t n_units = sizeof print_units / sizeof print_units[0];

    if (!buf || len == 0)
        return;
    const char *sign = ns < 0 ? "-" : "";
    uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

    if (mag < (uint64_t)NS_PER_US) {
        snprintf(buf, len, "%s%" PRIu64 " ns", sign, mag);
        return;
    }

    size_t u = 1;
    while (u + 1 < n_units && mag >= (uint64_t)print_units[u + 1].ns)
        u++;
    /* value in thousandths of the unit, rounded; carry into the next unit */
    uint64_t milli_step = (uint64_t)print_units[u].ns / 1000;
    uint64_t thousandths = mag / milli_step + (mag % milli_step >= (milli_step + 1) / 2);
    if (u + 1 < n_units && thousandths >= 1000 * 1000) {
        u++;
        milli_step = (uint64_t)print_units[u].ns / 1000;
        thousandths = mag / milli_step + (mag % milli_step >= (milli_step + 1) / 2);
    }

    uint64_t whole = thousandths / 1000;
    unsigned frac = (unsigned)(thousandths % 1000);
    if (frac == 0) {
        snprintf(buf, len, "%s%" PRIu64 " %s", sign, whole, print_units[u].name);
        return;
    }
    int digits = 3;
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    snprintf(buf, len, "%s%" PRIu64 ".%0*u %s", sign, whole, digits, frac, print_units[u].name);
}

struct size_suffix {
    const char *name;
    unsigned shift;
};

static const struct size_suffix size_suffixes[] = {
    {"", 0}, {"B", 0}, {"K", 10}, {"KiB", 10}, {"M", 20}, {"MiB", 20}, {"G", 30}, {"GiB", 30},
};

int parse_size_bytes(const char *text, uint64_t *out)
{
    const char *p = text;
    uint64_t value = 0;
    if (!isdigit((unsigned char)*p))
        return -1;
    while (isdigit((unsigned char)*p)) {
        unsigned digit = (unsigned)(*p - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return -1;
        value = value * 10 + digit;
        p++;
    }
    for (size_t i = 0; i < sizeof size_suffixes / sizeof size_suffixes[0]; i++) {
        if (strcasecmp(p, size_suffixes[i].name) == 0) {
            unsigned shift = size_suffixes[i].shift;
            if (value > (UINT64_MAX >> shift))
                return -1;
            *out = value << shift;
            return 0;
        }
    }
    return -1;
}

void format_duration_arg(int64_t ns, char *buf, unsigned long len)
{
    format_duration(ns, buf, len);
    if (!buf || len == 0)
        return;
    char *space = strchr(buf, ' ');
    if (space)
        memmove(space, space + 1, strlen(space + 1) + 1);
}

void format_duration_long(int64_t ns, char *buf, unsigned long len)
{
    static const struct {
        const char *name;
        double s;
    } units[] = {{"min", 60}, {"h", 3600}, {"d", 86400}, {"years", 365.25 * 86400}};
    if (!buf || len == 0)
        return;
    double s = fabs((double)ns) / (double)NS_PER_S;
    /* below a minute, or a value that rounds up to 60 s */
    if (s < 59.9995) {
        format_duration(ns, buf, len);
        return;
    }
    size_t u = 0;
    /* the unit in which the value reads at least 1 after rounding */
    while (u + 1 < sizeof units / sizeof units[0] && s / units[u + 1].s >= 0.9995)
        u++;
    snprintf(buf, len, "%s%.3g %s", ns < 0 ? "-" : "", s / units[u].s, units[u].name);
}
