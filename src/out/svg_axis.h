/*
 * The axes of the report's plots, computed without drawing anything: the
 * drawn range, the ticks and the text of their labels, from the range of
 * the data. Log axes span whole decades with a labelled tick per decade
 * and unlabelled 2..9 ticks between (fewer labels on huge ranges); linear
 * axes step by 1, 2 or 5 times a power of ten. Durations are labelled in
 * ns, µs, ms or s: on a log axis each label in its own unit ("10 µs",
 * "1 ms"), on a linear axis one unit for the axis, chosen by its range.
 */
#ifndef JITTERLAB_OUT_SVG_AXIS_H
#define JITTERLAB_OUT_SVG_AXIS_H

#include <stdbool.h>
#include <stddef.h>

#define AXIS_MAX_TICKS 160
#define AXIS_LABEL_MAX 32
/* Linear axes have at most this many steps between the data's ends. */
#define AXIS_LINEAR_MAX_STEPS 8
/* Log axes label every decade up to this many decades. */
#define AXIS_LOG_LABELLED_DECADES 12

enum axis_scale { AXIS_LINEAR, AXIS_LOG };

enum axis_format {
    AXIS_FMT_NUMBER, /* plain numbers; 10000 and more as 10k, 2.5M, ... */
    AXIS_FMT_NS,     /* durations given in ns */
    AXIS_FMT_S,      /* durations given in s */
    AXIS_FMT_POWER,  /* log axes: 1, 10, 100, 1000, 10⁴, ...; 0.1, 0.01, 10⁻³, ... */
};

struct axis_tick {
    double value;
    bool major;                 /* labelled */
    char label[AXIS_LABEL_MAX]; /* "" for a minor tick */
};

struct axis {
    enum axis_scale scale;
    enum axis_format format;
    double lo, hi; /* the drawn range, lo < hi (log: powers of ten) */
    double step;   /* linear: between two ticks */
    char unit[8];  /* linear durations: the unit of every label ("µs"); else "" */
    int nticks;
    struct axis_tick tick[AXIS_MAX_TICKS]; /* ascending */
};

/* A linear axis over [lo, hi], widened to whole steps; a single value gets
 * a range around it ([0, 1] for 0). Returns 0, or -1 for a range that is
 * not one (NaN, infinite, lo > hi: no data) after setting the axis to
 * [0, 1] so that an empty plot can still be drawn. */
int axis_linear(struct axis *a, double lo, double hi, enum axis_format fmt);
/* A log axis over the decades that hold [lo, hi]; a single power of ten
 * gets the decades on either side. Returns 0, or -1 (axis [1, 10]) unless
 * 0 < lo <= hi and both are finite. */
int axis_log(struct axis *a, double lo, double hi, enum axis_format fmt);
/* Where v falls: 0 at lo, 1 at hi (beyond them outside [0, 1]; -inf for
 * v <= 0 on a log axis). */
double axis_fraction(const struct axis *a, double v);

/* A duration for tables: "850 ns", "92.93 µs", "1.798 ms", "2.000 s"
 * (four significant digits from 1 µs on). */
void format_ns(double ns, char *buf, size_t len);
/* The unit for durations up to max_abs_ns: "ns", "µs", "ms" or "s", and
 * how many ns it holds. */
const char *duration_unit(double max_abs_ns, double *ns_per_unit);

#endif
