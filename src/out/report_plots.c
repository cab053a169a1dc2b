/*
 * The plots of one CPU section, every result overlaid in its colour: the
 * latency histogram and the exceedance (1 - F) curve on log axes, the
 * per-window time series of intervals and telemetry, and the execution and
 * response time histograms; for noise results the gap histogram, its
 * tail and the noise share per window. Histograms are redrawn on bins of 1/20 decade
 * (each document bin's count shared out by overlap), so that results with
 * any bins compare on one grid; time series keep the largest value of each
 * of at most SERIES_POINTS buckets, so that no spike is lost to thinning.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out/report_html_internal.h"
#include "telemetry/telemetry.h"

#define PLOT_W          880
#define PLOT_H          300
#define SMALL_W         435
#define SMALL_H         220
#define BINS_PER_DECADE 20
#define SERIES_POINTS   2000

enum hist_kind { HIST_LATENCY, HIST_EXEC, HIST_RESPONSE };

static const struct report_hist *hist_of(const struct report_cpu *rc, enum hist_kind k)
{
    if (!rc)
        return NULL;
    const struct report_hist *h = k == HIST_LATENCY ? &rc->latency
                                  : k == HIST_EXEC  ? &rc->exec
                                                    : &rc->response;
    return h->present && h->nbins > 0 ? h : NULL;
}

/* The value range [lo, hi) of every result's histogram of kind k at cpu;
 * false when none has a sample in its bins. */
static bool hist_range(const struct report_ctx *c, int cpu, enum hist_kind k, double *lo,
                       double *hi, uint64_t *max_total)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    *max_total = 0;
    for (int r = 0; r < c->in->nrun; r++) {
        const struct report_hist *h = hist_of(report_run_cpu(&c->in->run[r], cpu), k);
        if (!h)
            continue;
        *lo = fmin(*lo, fmax((double)h->bins[0].lo, 1));
        *hi = fmax(*hi, (double)h->bins[h->nbins - 1].hi + 1);
        if (h->total > *max_total)
            *max_total = h->total;
    }
    return *lo < *hi;
}

static double display_edge(const struct axis *x, int k)
{
    return x->lo * pow(10, (double)k / BINS_PER_DECADE);
}

static int display_bins(const struct axis *x)
{
    return (int)lround(log10(x->hi / x->lo)) * BINS_PER_DECADE;
}

/* Shares each document bin's count out to the display bins it overlaps. */
static void rebin(const struct report_hist *h, const struct axis *x, double *count, int n)
{
    for (int k = 0; k < n; k++)
        count[k] = 0;
    for (int i = 0; i < h->nbins; i++) {
        const struct result_bin *b = &h->bins[i];
        double a = fmax((double)b->lo, x->lo), z = (double)b->hi + 1;
        if (z <= a) { /* a bin below the axis (0 ns): into the first */
            count[0] += (double)b->count;
            continue;
        }
        int ka = (int)floor(BINS_PER_DECADE * log10(a / x->lo));
        int kz = (int)floor(BINS_PER_DECADE * log10(z / x->lo));
        ka = ka < 0 ? 0 : ka >= n ? n - 1 : ka;
        kz = kz < ka ? ka : kz >= n ? n - 1 : kz;
        if (ka == kz) {
            count[ka] += (double)b->count;
            continue;
        }
        for (int k = ka; k <= kz; k++) {
            double lo = fmax(a, display_edge(x, k)), hi = fmin(z, display_edge(x, k + 1));
            if (k == kz)
                hi = z;
            if (hi > lo)
                count[k] += (double)b->count * (hi - lo) / (z - a);
        }
    }
}

static const char *const hist_name[] = {"histogram", "exec-histogram", "response-histogram"};
static const char *const hist_title[] = {"Latency histogram", "Execution time histogram",
                                         "Response time histogram"};
static const char *const hist_axis[] = {"latency", "execution time", "response time"};

/* A page of noise results: their gaps stand where the latencies stand. */
static bool noise_page(const struct report_ctx *c)
{
    return c->in->nrun > 0 && c->in->run[0].noise;
}

static void plot_histogram(struct report_ctx *c, int cpu, enum hist_kind k)
{
    double lo, hi;
    uint64_t max_total;
    if (!hist_range(c, cpu, k, &lo, &hi, &max_total))
        return;
    struct svg_plot p;
    svg_plot_init(&p, PLOT_W, PLOT_H);
    axis_log(&p.x, lo, hi, AXIS_FMT_NS);
    int n = display_bins(&p.x);
    double *count = calloc((size_t)n * (size_t)c->in->nrun, sizeof *count);
    if (!count) {
        c->failed = true;
        return;
    }
    double max_count = 0;
    uint64_t overflow = 0;
    for (int r = 0; r < c->in->nrun; r++) {
        const struct report_hist *h = hist_of(report_run_cpu(&c->in->run[r], cpu), k);
        if (!h)
            continue;
        rebin(h, &p.x, count + (size_t)r * (size_t)n, n);
        for (int j = 0; j < n; j++)
            max_count = fmax(max_count, count[(size_t)r * (size_t)n + j]);
        overflow += h->overflow;
        svg_plot_legend(&p, c->in->run[r].label, report_colour(r), NULL);
    }
    axis_log(&p.y, 0.5, fmax(max_count, 1), AXIS_FMT_POWER);
    char title[96], cpu_name[32];
    report_cpu_name(cpu, cpu_name, sizeof cpu_name);
    bool gaps = noise_page(c) && k == HIST_LATENCY;
    snprintf(title, sizeof title, "%s, %s", gaps ? "Gap histogram" : hist_title[k], cpu_name);
    p.title = title;
    p.x_title = gaps ? "gap length" : hist_axis[k];
    p.y_title = gaps ? "gaps per 1/20 decade" : "samples per 1/20 decade";
    char *text;
    size_t len;
    FILE *m = report_plot_open(c, &p, &text, &len);
    for (int r = 0; m && r < c->in->nrun; r++) {
        const double *cnt = count + (size_t)r * (size_t)n;
        int k0 = 0, k1 = n - 1;
        while (k0 < n && cnt[k0] <= 0)
            k0++;
        while (k1 >= 0 && cnt[k1] <= 0)
            k1--;
        if (k0 > k1)
            continue;
        struct svg_path l;
        svg_path_begin(&l, m, &p, report_colour(r), NULL, 1.6);
        bool up = true; /* empty bins are gaps, not a line along the bottom */
        for (int j = k0; j <= k1; j++) {
            if (cnt[j] <= 0) {
                if (!up)
                    svg_path_point(&l, display_edge(&p.x, j), 0);
                svg_path_point(&l, NAN, NAN);
                up = true;
                continue;
            }
            if (up)
                svg_path_point(&l, display_edge(&p.x, j), 0);
            up = false;
            svg_path_point(&l, display_edge(&p.x, j), cnt[j]);
            svg_path_point(&l, display_edge(&p.x, j + 1), cnt[j]);
        }
        svg_path_point(&l, display_edge(&p.x, k1 + 1), 0);
        svg_path_end(&l);
    }
    free(count);
    char caption[256];
    snprintf(caption, sizeof caption,
             "Counts on a log axis, so that single samples in the tail stay visible; the "
             "rightmost step of each line is its maximum.%s",
             overflow ? " Values above 60 s (overflow) are not drawn." : "");
    report_plot_close(c, m, &text, &len, cpu, hist_name[k], caption);
}

static void plot_exceedance(struct report_ctx *c, int cpu)
{
    double lo, hi;
    uint64_t max_total;
    if (!hist_range(c, cpu, HIST_LATENCY, &lo, &hi, &max_total))
        return;
    struct svg_plot p;
    svg_plot_init(&p, PLOT_W, PLOT_H);
    axis_log(&p.x, lo, hi, AXIS_FMT_NS);
    axis_log(&p.y, 1.0 / (double)max_total, 1, AXIS_FMT_POWER);
    char title[96], cpu_name[32];
    report_cpu_name(cpu, cpu_name, sizeof cpu_name);
    snprintf(title, sizeof title, "Exceedance 1 \xe2\x88\x92 F(x), %s", cpu_name);
    p.title = title;
    p.x_title = noise_page(c) ? "gap length x" : "latency x";
    p.y_title = noise_page(c) ? "share of gaps above x" : "share of samples above x";
    for (int r = 0; r < c->in->nrun; r++)
        if (hist_of(report_run_cpu(&c->in->run[r], cpu), HIST_LATENCY))
            svg_plot_legend(&p, c->in->run[r].label, report_colour(r), NULL);
    char *text;
    size_t len;
    FILE *m = report_plot_open(c, &p, &text, &len);
    for (int r = 0; m && r < c->in->nrun; r++) {
        const struct report_hist *h = hist_of(report_run_cpu(&c->in->run[r], cpu), HIST_LATENCY);
        if (!h || h->total == 0)
            continue;
        double n = (double)h->total;
        uint64_t cum = 0;
        struct svg_path l;
        svg_path_begin(&l, m, &p, report_colour(r), NULL, 1.6);
        for (int i = 0; i < h->nbins; i++) {
            const struct result_bin *b = &h->bins[i];
            svg_path_point(&l, fmax((double)b->lo, 1), (double)(h->total - cum) / n);
            cum += b->count;
            svg_path_point(&l, (double)b->hi + 1, (double)(h->total - cum) / n);
        }
        svg_path_end(&l);
    }
    report_plot_close(
        c, m, &text, &len, cpu, "cdf",
        noise_page(c) ? "The tail: how often a gap longer than x occurred. A line that ends "
                        "further right or higher has the worse tail. Each line ends at its "
                        "longest gap, where it drops to the bottom."
                      : "The tail: how often a latency above x occurred. A line that ends further "
                        "right or higher has the worse tail; 10\xe2\x81\xbb\xc2\xb3 is one sample "
                        "in a thousand. Each line ends at its maximum, where it drops to the "
                        "bottom.");
}

/* A line through (t, v) with at most SERIES_POINTS points: each bucket of
 * consecutive windows is drawn as its largest value. */
static void series_line(FILE *m, const struct svg_plot *p, const char *colour, const char *dash,
                        const double *t, const double *v, size_t n)
{
    size_t bucket = (n + SERIES_POINTS - 1) / SERIES_POINTS;
    if (bucket == 0)
        return;
    struct svg_path l;
    svg_path_begin(&l, m, p, colour, dash, 1.3);
    for (size_t i = 0; i < n; i += bucket) {
        size_t best = n;
        for (size_t j = i; j < i + bucket && j < n; j++)
            if (!isnan(v[j]) && (best == n || v[j] > v[best]))
                best = j;
        if (best == n)
            svg_path_point(&l, NAN, NAN);
        else
            svg_path_point(&l, t[best], v[best]);
    }
    svg_path_end(&l);
}

/* A series of one result at one CPU: intervals (iv >= 0: 0 max, 1 mean),
 * a telemetry figure, or a noise result's windows (FIG_NOISE_*). */
enum { FIG_NOISE_SHARE = -1, FIG_NOISE_MAX = -2 };
struct series {
    size_t n;
    const double *t, *v;
};

static struct series series_of(const struct report_cpu *rc, bool intervals, int fig)
{
    struct series s = {0, NULL, NULL};
    if (!rc)
        return s;
    if (fig == FIG_NOISE_SHARE)
        return (struct series){rc->n_nw, rc->nw_t_s, rc->nw_share_pct};
    if (fig == FIG_NOISE_MAX)
        return (struct series){rc->n_nw, rc->nw_t_s, rc->nw_max_ns};
    if (intervals)
        return (struct series){rc->n_iv, rc->iv_t_s, fig == 0 ? rc->iv_max_ns : rc->iv_mean_ns};
    return (struct series){rc->n_tm, rc->tm_t_s, rc->tm[fig]};
}

struct range {
    double t_max, lo, hi, lo_positive;
};

static void range_add(struct range *g, struct series s)
{
    for (size_t i = 0; i < s.n; i++) {
        g->t_max = fmax(g->t_max, s.t[i]);
        if (isnan(s.v[i]))
            continue;
        g->lo = fmin(g->lo, s.v[i]);
        g->hi = fmax(g->hi, s.v[i]);
        if (s.v[i] > 0)
            g->lo_positive = fmin(g->lo_positive, s.v[i]);
    }
}

struct series_plot {
    const char *name, *title, *y_title, *caption;
    bool intervals;
    int nfig;
    int fig[3];
    const char *label[3], *dash[3];
    bool log_y, from_zero;
    enum axis_format fmt;
};

/* The frequency plot says what its figure is, by the results' source:
 * turbostat's Avg_MHz only from APERF. */
static const char *freq_caption(const struct report_ctx *c, char *buf, size_t len)
{
    const char *first = NULL;
    bool differ = false;
    for (int r = 0; r < c->in->nrun; r++) {
        const char *s = c->in->run[r].freq_source;
        if (!c->in->run[r].has_telemetry || !s[0])
            continue;
        differ |= first && strcmp(first, s) != 0;
        first = first ? first : s;
    }
    snprintf(buf, len, "%s%s.", telemetry_freq_meaning(first),
             differ ? " (the results' sources differ: see each one's telemetry_sources.avg_mhz)"
                    : "");
    return buf;
}

static void plot_series(struct report_ctx *c, int cpu, const struct series_plot *sp)
{
    char caption[320];
    struct range g = {0, INFINITY, -INFINITY, INFINITY};
    for (int r = 0; r < c->in->nrun; r++)
        for (int k = 0; k < sp->nfig; k++)
            range_add(&g,
                      series_of(report_run_cpu(&c->in->run[r], cpu), sp->intervals, sp->fig[k]));
    if (!(g.lo <= g.hi))
        return; /* no value in any result */
    struct svg_plot p;
    bool small = !sp->log_y;
    svg_plot_init(&p, small ? SMALL_W : PLOT_W, small ? SMALL_H : PLOT_H);
    axis_linear(&p.x, 0, fmax(g.t_max, 1e-3), AXIS_FMT_S);
    if (sp->log_y)
        axis_log(&p.y, g.lo_positive, fmax(g.hi, g.lo_positive), sp->fmt);
    else
        axis_linear(&p.y, sp->from_zero ? fmin(0, g.lo) : g.lo, g.hi, sp->fmt);
    char title[128], cpu_name[32];
    report_cpu_name(cpu, cpu_name, sizeof cpu_name);
    snprintf(title, sizeof title, "%s, %s", sp->title, cpu_name);
    p.title = title;
    p.x_title = "time";
    p.y_title = sp->y_title;
    for (int r = 0; r < c->in->nrun; r++)
        if (report_run_cpu(&c->in->run[r], cpu))
            svg_plot_legend(&p, c->in->run[r].label, report_colour(r), NULL);
    for (int k = 0; sp->nfig > 1 && k < sp->nfig; k++)
        svg_plot_legend(&p, sp->label[k], "#777", sp->dash[k]);
    char *text;
    size_t len;
    FILE *m = report_plot_open(c, &p, &text, &len);
    for (int r = 0; m && r < c->in->nrun; r++)
        for (int k = 0; k < sp->nfig; k++) {
            struct series s =
                series_of(report_run_cpu(&c->in->run[r], cpu), sp->intervals, sp->fig[k]);
            series_line(m, &p, report_colour(r), sp->dash[k], s.t, s.v, s.n);
        }
    report_plot_close(c, m, &text, &len, cpu, sp->name,
                      !sp->intervals && sp->fig[0] == TM_AVG_MHZ
                          ? freq_caption(c, caption, sizeof caption)
                          : sp->caption);
}

static const struct series_plot series_plots[] = {
    {.name = "timeseries",
     .title = "Latency per report window",
     .y_title = "latency",
     .caption = "From intervals[] (--report-every): each window's largest and mean latency. "
                "Long runs are thinned to 2000 points per line, each the largest of its windows.",
     .intervals = true,
     .nfig = 2,
     .fig = {0, 1},
     .label = {"max", "mean"},
     .dash = {NULL, "6 3"},
     .log_y = true,
     .fmt = AXIS_FMT_NS},
    {.name = "telemetry-latency",
     .title = "Latency per telemetry window",
     .y_title = "latency",
     .caption = "From telemetry[]: each window's largest, 99th percentile and mean latency, to "
                "line up with the CPU's figures below.",
     .nfig = 3,
     .fig = {TM_MAX_NS, TM_P99_NS, TM_MEAN_NS},
     .label = {"max", "p99", "mean"},
     .dash = {NULL, "6 3", "2 3"},
     .log_y = true,
     .fmt = AXIS_FMT_NS},
    {.name = "avg-mhz",
     .title = "Average frequency",
     .y_title = "MHz",
     .caption = NULL, /* by the source: freq_caption */
     .nfig = 1,
     .fig = {TM_AVG_MHZ},
     .fmt = AXIS_FMT_NUMBER},
    {.name = "busy",
     .title = "Busy",
     .y_title = "%",
     .caption = "Busy%: the share of the window in C0 (MPERF/TSC), else the run time the scheduler "
                "counted (schedstat: all tasks; thread-schedstat: the measured thread only); "
                "telemetry_sources.busy_pct names which.",
     .nfig = 1,
     .fig = {TM_BUSY_PCT},
     .from_zero = true,
     .fmt = AXIS_FMT_NUMBER},
    {.name = "irq-rate",
     .title = "Interrupts",
     .y_title = "per second",
     .caption = "Interrupts served by the CPU per second of each window (none for a window much "
                "shorter than the others, such as the last one of a run).",
     .nfig = 1,
     .fig = {TM_IRQ_RATE},
     .from_zero = true,
     .fmt = AXIS_FMT_NUMBER},
    {.name = "steal",
     .title = "Steal",
     .y_title = "%",
     .caption = "Steal%: time the hypervisor ran something else on this virtual CPU.",
     .nfig = 1,
     .fig = {TM_STEAL_PCT},
     .from_zero = true,
     .fmt = AXIS_FMT_NUMBER},
};

/* Where a result's steal is unknown (a hypervisor that reports none), the
 * page says so and why, instead of a plot that would read as 0. */
static void steal_notes(struct report_ctx *c, int cpu)
{
    for (int r = 0; r < c->in->nrun; r++) {
        const struct report_run *run = &c->in->run[r];
        if (!run->has_telemetry || !run->steal_why[0] || !report_run_cpu(run, cpu))
            continue;
        fputs("<p class=\"note\">Steal, ", c->f);
        markup_escape(c->f, run->label, 0);
        fputs(": not drawn, unknown: ", c->f);
        markup_escape(c->f, run->steal_why, 0);
        fputs(".</p>\n", c->f);
    }
}

static const char *const idle_dash[REPORT_IDLE_STATES] = {NULL,  "6 3",  "2 3", "8 3 2 3",
                                                          "1 2", "10 4", "4 4", "3 6"};

/* Idle residency: a line per result and idle state (dashes tell the
 * states apart, colours the results). */
static void plot_idle(struct report_ctx *c, int cpu)
{
    struct range g = {0, INFINITY, -INFINITY, INFINITY};
    int nstates = 0;
    for (int r = 0; r < c->in->nrun; r++) {
        const struct report_run *run = &c->in->run[r];
        for (int k = 0; k < run->nidle; k++)
            range_add(&g, series_of(report_run_cpu(run, cpu), false, TM_IDLE0 + k));
        nstates = run->nidle > nstates ? run->nidle : nstates;
    }
    if (!(g.lo <= g.hi))
        return;
    struct svg_plot p;
    svg_plot_init(&p, SMALL_W, SMALL_H);
    axis_linear(&p.x, 0, fmax(g.t_max, 1e-3), AXIS_FMT_S);
    axis_linear(&p.y, 0, g.hi, AXIS_FMT_NUMBER);
    char title[96], cpu_name[32];
    report_cpu_name(cpu, cpu_name, sizeof cpu_name);
    snprintf(title, sizeof title, "Idle-state residency, %s", cpu_name);
    p.title = title;
    p.x_title = "time";
    p.y_title = "%";
    for (int r = 0; r < c->in->nrun; r++)
        if (report_run_cpu(&c->in->run[r], cpu))
            svg_plot_legend(&p, c->in->run[r].label, report_colour(r), NULL);
    /* the state names of the first result that has each slot */
    for (int k = 0; k < nstates; k++)
        for (int r = 0; r < c->in->nrun; r++)
            if (k < c->in->run[r].nidle) {
                svg_plot_legend(&p, c->in->run[r].idle_name[k], "#777", idle_dash[k]);
                break;
            }
    char *text;
    size_t len;
    FILE *m = report_plot_open(c, &p, &text, &len);
    for (int r = 0; m && r < c->in->nrun; r++)
        for (int k = 0; k < c->in->run[r].nidle; k++) {
            struct series s = series_of(report_run_cpu(&c->in->run[r], cpu), false, TM_IDLE0 + k);
            series_line(m, &p, report_colour(r), idle_dash[k], s.t, s.v, s.n);
        }
    report_plot_close(c, m, &text, &len, cpu, "idle",
                      "Share of each window spent in each cpuidle state. Deep states save "
                      "power and cost wake-up time.");
}

static bool any_series(const struct report_ctx *c, int cpu, bool intervals)
{
    for (int r = 0; r < c->in->nrun; r++) {
        const struct report_cpu *rc = report_run_cpu(&c->in->run[r], cpu);
        if (rc && (intervals ? rc->n_iv : rc->n_tm))
            return true;
    }
    return false;
}

static const struct series_plot noise_plots[] = {
    {.name = "noise-share",
     .title = "Noise share per report window",
     .y_title = "noise %",
     .caption = "From windows[]: the share of each window's measured time lost to gaps "
                "(--report-every of jitterlab noise).",
     .nfig = 1,
     .fig = {FIG_NOISE_SHARE},
     .from_zero = true,
     .fmt = AXIS_FMT_NUMBER},
    {.name = "noise-max",
     .title = "Longest gap per report window",
     .y_title = "gap",
     .caption = "From windows[]: the longest gap that ended in each window.",
     .nfig = 1,
     .fig = {FIG_NOISE_MAX},
     .log_y = true,
     .fmt = AXIS_FMT_NS},
};

void report_plots_noise(struct report_ctx *c, int cpu)
{
    double lo, hi;
    uint64_t total;
    fputs("<h3>Gap distribution</h3>\n", c->f);
    if (hist_range(c, cpu, HIST_LATENCY, &lo, &hi, &total)) {
        plot_histogram(c, cpu, HIST_LATENCY);
        plot_exceedance(c, cpu);
    } else {
        fputs("<p class=\"note\">No gaps above the threshold: nothing to draw.</p>\n", c->f);
    }
    if (cpu < 0)
        return;
    fputs("<h3>Over time</h3>\n", c->f);
    bool any = false;
    for (int r = 0; r < c->in->nrun; r++) {
        const struct report_cpu *rc = report_run_cpu(&c->in->run[r], cpu);
        any = any || (rc && rc->n_nw);
    }
    if (!any) {
        fputs("<p class=\"note\">No report windows in the results.</p>\n", c->f);
        return;
    }
    for (size_t i = 0; i < sizeof noise_plots / sizeof noise_plots[0]; i++)
        plot_series(c, cpu, &noise_plots[i]);
}

void report_plots_cpu(struct report_ctx *c, int cpu)
{
    FILE *f = c->f;
    double lo, hi;
    uint64_t total;
    fputs("<h3>Distribution</h3>\n", f);
    if (hist_range(c, cpu, HIST_LATENCY, &lo, &hi, &total)) {
        plot_histogram(c, cpu, HIST_LATENCY);
        plot_exceedance(c, cpu);
    } else {
        fputs("<p class=\"note\">No samples: nothing to draw.</p>\n", f);
    }
    if (cpu >= 0) {
        fputs("<h3>Over time</h3>\n", f);
        bool iv = any_series(c, cpu, true), tm = any_series(c, cpu, false);
        if (iv)
            plot_series(c, cpu, &series_plots[0]);
        if (tm) {
            for (size_t i = 1; i < sizeof series_plots / sizeof series_plots[0]; i++) {
                if (i == 2)
                    fputs("<div class=\"small\">\n", f);
                plot_series(c, cpu, &series_plots[i]);
            }
            plot_idle(c, cpu);
            fputs("</div>\n", f);
            steal_notes(c, cpu);
        }
        if (!iv && !tm)
            fputs("<p class=\"note\">No time series: the results have neither intervals "
                  "(<code>run --report-every</code>) nor telemetry windows.</p>\n",
                  f);
    }
    bool exec = hist_range(c, cpu, HIST_EXEC, &lo, &hi, &total);
    bool resp = hist_range(c, cpu, HIST_RESPONSE, &lo, &hi, &total);
    if (exec || resp) {
        fputs("<h3>Execution and response time</h3>\n", f);
        bool bookkeeping = false;
        for (int r = 0; r < c->in->nrun; r++)
            bookkeeping = bookkeeping || !c->in->run[r].workload;
        if (bookkeeping)
            fputs("<p class=\"note\">A result without <code>--workload</code> measures only the "
                  "loop's own bookkeeping as its execution time.</p>\n",
                  f);
        report_exec_table(c, cpu);
        plot_histogram(c, cpu, HIST_EXEC);
        plot_histogram(c, cpu, HIST_RESPONSE);
    }
}
