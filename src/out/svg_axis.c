/*
 * Axis ranges, ticks and labels (svg_axis.h). Pure functions of the data
 * range, so that tests pin every tick and label. Decade exponents are
 * computed as integers and the tick values from them, never by adding
 * steps up, so that 10^3 is exactly 1000 and no label reads "0.30000004".
 * Exponents are kept within ±300 and linear ranges within ±1e300, where
 * doubles hold every tick exactly enough.
 */
#include "out/svg_axis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXP_LIMIT   300
#define LINEAR_MAX  1e300
#define MICRO       "\xc2\xb5" /* U+00B5 MICRO SIGN */
#define SUPER_MINUS "\xe2\x81\xbb"

static const char *const superscript_digit[10] = {
    "\xe2\x81\xb0", "\xc2\xb9",     "\xc2\xb2",     "\xc2\xb3",     "\xe2\x81\xb4",
    "\xe2\x81\xb5", "\xe2\x81\xb6", "\xe2\x81\xb7", "\xe2\x81\xb8", "\xe2\x81\xb9",
};

const char *duration_unit(double max_abs_ns, double *ns_per_unit)
{
    if (max_abs_ns < 1e3) {
        *ns_per_unit = 1;
        return "ns";
    }
    if (max_abs_ns < 1e6) {
        *ns_per_unit = 1e3;
        return MICRO "s";
    }
    if (max_abs_ns < 1e9) {
        *ns_per_unit = 1e6;
        return "ms";
    }
    *ns_per_unit = 1e9;
    return "s";
}

void format_ns(double ns, char *buf, size_t len)
{
    if (!isfinite(ns)) {
        snprintf(buf, len, "?");
        return;
    }
    double a = fabs(ns);
    if (a < 999.5) {
        snprintf(buf, len, "%.0f ns", ns);
        return;
    }
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1e3, MICRO "s"}, {1e6, "ms"}, {1e9, "s"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        double v = a / units[i].scale;
        int decimals = v < 10 ? 3 : v < 100 ? 2 : v < 1000 ? 1 : 0;
        char num[64];
        snprintf(num, sizeof num, "%.*f", decimals, v);
        if (i + 1 < sizeof units / sizeof units[0] && strtod(num, NULL) >= 1000)
            continue; /* rounded up into the next unit */
        snprintf(buf, len, "%s%s %s", ns < 0 ? "-" : "", num, units[i].unit);
        return;
    }
}

/* "10⁻³" style: 10 to the power e with superscript digits. */
static void power_text(int e, char *buf, size_t len)
{
    char digits[16];
    snprintf(digits, sizeof digits, "%d", e < 0 ? -e : e);
    size_t n = (size_t)snprintf(buf, len, "10%s", e < 0 ? SUPER_MINUS : "");
    for (const char *d = digits; *d && n < len; d++)
        n += (size_t)snprintf(buf + n, len - n, "%s", superscript_digit[*d - '0']);
}

/* 10^p as a plain number where that is short (0.01 .. 1000), else 10ᵖ. */
static void decade_number(int p, char *buf, size_t len)
{
    static const char *const plain[] = {"0.01", "0.1", "1", "10", "100", "1000"};
    if (p >= -2 && p <= 3)
        snprintf(buf, len, "%s", plain[p + 2]);
    else
        power_text(p, buf, len);
}

/* The label of the decade 10^e on a log axis. */
static void decade_label(int e, enum axis_format fmt, char *buf, size_t len)
{
    if (fmt == AXIS_FMT_S)
        e += 9;
    if (fmt != AXIS_FMT_NS && fmt != AXIS_FMT_S) {
        decade_number(e, buf, len);
        return;
    }
    static const char *const unit[] = {"ns", MICRO "s", "ms", "s"};
    int u = e < 0 ? 0 : e >= 9 ? 3 : e / 3;
    char num[20]; /* "10⁻³⁰⁰" at most */
    decade_number(e - 3 * u, num, sizeof num);
    snprintf(buf, len, "%s %s", num, unit[u]);
}

/* 10^e for an integer e within ±EXP_LIMIT. */
static double decade(int e)
{
    char text[16];
    snprintf(text, sizeof text, "1e%d", e);
    return strtod(text, NULL); /* correctly rounded, unlike pow() on some libms */
}

static void add_tick(struct axis *a, double value, bool major, const char *label)
{
    if (a->nticks >= AXIS_MAX_TICKS)
        return;
    struct axis_tick *t = &a->tick[a->nticks++];
    t->value = value;
    t->major = major;
    snprintf(t->label, sizeof t->label, "%s", major && label ? label : "");
}

static int floor_div(int a, int b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

int axis_log(struct axis *a, double lo, double hi, enum axis_format fmt)
{
    memset(a, 0, sizeof *a);
    a->scale = AXIS_LOG;
    a->format = fmt;
    int rc = 0;
    if (!(lo > 0) || !isfinite(lo) || !isfinite(hi) || lo > hi) {
        lo = 1;
        hi = 10;
        rc = -1;
    }
    int e0 = (int)floor(log10(lo));
    int e1 = (int)ceil(log10(hi));
    if (e0 < EXP_LIMIT && decade(e0 + 1) <= lo)
        e0++; /* log10 rounded below an exact power */
    if (e1 > -EXP_LIMIT && decade(e1 - 1) >= hi)
        e1--;
    if (e1 <= e0) { /* a single power of ten: the decades around it */
        e0 = e1 - 1;
        e1 = e1 + 1;
    }
    if (e0 < -EXP_LIMIT)
        e0 = -EXP_LIMIT;
    if (e1 > EXP_LIMIT)
        e1 = EXP_LIMIT;
    a->lo = decade(e0);
    a->hi = decade(e1);
    int decades = e1 - e0;
    int every = decades <= AXIS_LOG_LABELLED_DECADES ? 1 : (decades + 9) / 10;
    /* 2..9 between decades only while every decade is labelled; decade
     * ticks without a label only while they fit */
    bool minors = every == 1;
    bool unlabelled_decades = decades + 1 <= AXIS_MAX_TICKS;
    for (int e = e0; e <= e1; e++) {
        bool major = floor_div(e, every) * every == e;
        if (major || unlabelled_decades) {
            char label[AXIS_LABEL_MAX];
            decade_label(e, fmt, label, sizeof label);
            add_tick(a, decade(e), major, label);
        }
        if (minors && e < e1)
            for (int m = 2; m <= 9; m++)
                add_tick(a, m * decade(e), false, NULL);
    }
    return rc;
}

/* The smallest 1, 2 or 5 times a power of ten that is >= raw (> 0). */
static double nice_step(double raw)
{
    int e = (int)floor(log10(raw));
    if (e < -EXP_LIMIT)
        e = -EXP_LIMIT;
    for (;;) {
        static const int mult[] = {1, 2, 5};
        for (size_t i = 0; i < 3; i++) {
            double s = mult[i] * decade(e);
            if (s >= raw * (1 - 1e-12))
                return s;
        }
        e++;
    }
}

/* Decimals that show every multiple of step exactly (step = m·10^e). */
static int step_decimals(double step)
{
    int e = (int)floor(log10(step) + 1e-9);
    return e >= 0 ? 0 : -e > 15 ? 15 : -e;
}

/* A linear tick label: value/scale with the step's decimals; values from
 * suffix_from on with a k, M, G, ... suffix, tiny ones in exponent form. */
static void linear_label(double value, double step, double scale, double max_abs,
                         double suffix_from, char *buf, size_t len)
{
    double v = value / scale, s = step / scale, m = max_abs / scale;
    if (fabs(v) < s * 1e-9)
        v = 0; /* no "-0" */
    static const char suffix[] = "kMGTPE";
    if (v == 0) {
        snprintf(buf, len, "0");
    } else if (m >= suffix_from && m < 1e21) {
        int k = 0;
        while (k < 6 && m >= 1e4) {
            v /= 1e3;
            s /= 1e3;
            m /= 1e3;
            k++;
        }
        snprintf(buf, len, "%.*f%c", step_decimals(s), v, suffix[k - 1]);
    } else if (m >= 1e21 || (m < 1e-4 && m > 0)) {
        snprintf(buf, len, v == 0 ? "0" : "%.3g", v);
    } else {
        snprintf(buf, len, "%.*f", step_decimals(s), v);
    }
}

int axis_linear(struct axis *a, double lo, double hi, enum axis_format fmt)
{
    memset(a, 0, sizeof *a);
    a->scale = AXIS_LINEAR;
    a->format = fmt;
    int rc = 0;
    if (!isfinite(lo) || !isfinite(hi) || lo > hi || fabs(lo) > LINEAR_MAX ||
        fabs(hi) > LINEAR_MAX) {
        lo = 0;
        hi = 1;
        rc = -1;
    }
    double mid = lo / 2 + hi / 2;
    if (hi - lo <= fabs(mid) * 1e-12) { /* a single value */
        if (mid == 0) {
            lo = 0;
            hi = 1;
        } else {
            lo = mid - fabs(mid) * 0.05;
            hi = mid + fabs(mid) * 0.05;
        }
    }
    double step = nice_step((hi - lo) / AXIS_LINEAR_MAX_STEPS);
    double k0 = floor(lo / step), k1 = ceil(hi / step);
    if (k1 <= k0)
        k1 = k0 + 1;
    a->step = step;
    a->lo = k0 * step;
    a->hi = k1 * step;
    double scale = 1, suffix_from = 1e4;
    double max_abs = fmax(fabs(a->lo), fabs(a->hi));
    if (fmt == AXIS_FMT_NS || fmt == AXIS_FMT_S) {
        double to_ns = fmt == AXIS_FMT_S ? 1e9 : 1;
        double ns_per_unit;
        snprintf(a->unit, sizeof a->unit, "%s", duration_unit(max_abs * to_ns, &ns_per_unit));
        scale = ns_per_unit / to_ns;
        suffix_from = 1e6; /* a long run's seconds stay whole numbers */
    }
    for (double k = k0; k <= k1 && a->nticks < AXIS_MAX_TICKS; k++) {
        char label[AXIS_LABEL_MAX];
        linear_label(k * step, step, scale, max_abs, suffix_from, label, sizeof label);
        add_tick(a, k * step, true, label);
    }
    return rc;
}

double axis_fraction(const struct axis *a, double v)
{
    if (a->scale == AXIS_LOG) {
        if (!(v > 0))
            return -INFINITY;
        return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
    }
    return (v - a->lo) / (a->hi - a->lo);
}
