/*
 * Window-level attribution (see window_explain.h). Every window becomes a
 * short list of metrics (kind, name, value); per CPU the metrics of all its
 * windows are put side by side, each gets the level of a quiet window (its
 * lower quartile over the windows, the upper one for the frequency), and a
 * spike window keeps the metrics clearly above it. The thresholds are
 * deliberately coarse: a window of a second holds a thousand cycles, and
 * only a difference that stands out of the ordinary second-to-second
 * variation is worth naming.
 */
#include "trace/window_explain.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"

#define METRICS_MAX 48 /* per CPU: distinct (kind, name) */

enum metric_type { METRIC_COUNT, METRIC_STEAL, METRIC_SMI, METRIC_FREQUENCY, METRIC_IDLE };

struct metric_key {
    const char *kind;
    char name[48];
    enum metric_type type;
};

/* The kind and name of an interrupt line, in the words of the
 * tracepoint method: the local timer, IPIs by their vector, device IRQs. */
static void irq_key(const struct telemetry_irq *irq, struct metric_key *k)
{
    static const struct {
        const char *id, *kind, *name;
    } arch[] = {{"LOC", "timer", "local_timer"},
                {"RES", "ipi", "reschedule"},
                {"CAL", "ipi", "call_function"},
                {"TLB", "ipi", "tlb_shootdown"},
                {"IWI", "ipi", "irq_work"}};
    k->type = METRIC_COUNT;
    for (size_t i = 0; i < sizeof arch / sizeof arch[0]; i++)
        if (strcmp(irq->id, arch[i].id) == 0) {
            k->kind = arch[i].kind;
            text_copy(k->name, sizeof k->name, arch[i].name);
            return;
        }
    k->kind = "irq";
    text_copy(k->name, sizeof k->name, telemetry_irq_label(irq));
}

struct cpu_metrics {
    int nkeys;
    struct metric_key key[METRICS_MAX];
    double *value; /* nwindows x METRICS_MAX */
};

static int key_index(struct cpu_metrics *m, const struct metric_key *k)
{
    for (int i = 0; i < m->nkeys; i++)
        if (m->key[i].kind == k->kind && strcmp(m->key[i].name, k->name) == 0)
            return i;
    if (m->nkeys == METRICS_MAX)
        return -1;
    m->key[m->nkeys] = *k;
    return m->nkeys++;
}

static void put(struct cpu_metrics *m, size_t row, const char *kind, const char *name,
                enum metric_type type, double v)
{
    if (!isfinite(v) || v < 0)
        return;
    struct metric_key k = {.kind = kind, .type = type};
    text_copy(k.name, sizeof k.name, name);
    int i = key_index(m, &k);
    if (i >= 0)
        m->value[row * METRICS_MAX + (size_t)i] = v;
}

struct softirq_names {
    const char *const *name;
    int n;
};

static void window_metrics(const struct telemetry_window *w, const struct softirq_names *sq,
                           struct cpu_metrics *m, size_t row)
{
    const struct telemetry_cpu_figures *f = &w->fig;
    /* counts as rates, so that a short last window compares with the rest */
    double per_s = w->duration_ns > 0 ? 1e9 / (double)w->duration_ns : 1;
    for (int k = 0; k < f->nirq; k++) {
        struct metric_key key;
        irq_key(&f->irq[k], &key);
        put(m, row, key.kind, key.name, METRIC_COUNT, (double)f->irq[k].count * per_s);
    }
    if (f->softirqs >= 0)
        for (int k = 0; k < sq->n && k < TELEMETRY_SOFTIRQ_MAX; k++)
            if (f->softirq[k] > 0)
                put(m, row, "softirq", sq->name[k], METRIC_COUNT, (double)f->softirq[k] * per_s);
    if (f->ctxt >= 0)
        put(m, row, "thread", "context switches", METRIC_COUNT, (double)f->ctxt * per_s);
    put(m, row, "steal", "steal", METRIC_STEAL, f->steal_pct);
    if (f->smi >= 0)
        put(m, row, "smi", "SMI", METRIC_SMI, (double)f->smi * per_s);
    put(m, row, "frequency", "avg_mhz", METRIC_FREQUENCY, f->avg_mhz);
    for (int k = 0; k < f->nidle; k++)
        if (strcmp(f->idle[k].name, "POLL") != 0)
            put(m, row, "idle", f->idle[k].name, METRIC_IDLE, f->idle[k].residency_pct);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* What a quiet window looks like among the c values of one figure: the
 * lower quartile (linear between the nearest ranks), or the upper one for
 * the frequency, where less is worse. A quartile, not the median, so that a
 * source busy in up to three windows of four still stands out, while one
 * window that happened to be calmer than the rest does not set the level. */
static double quiet_level(double *v, size_t c, enum metric_type type)
{
    if (c == 0)
        return 0;
    qsort(v, c, sizeof(double), cmp_double);
    double h = (double)(c - 1) * (type == METRIC_FREQUENCY ? 0.75 : 0.25);
    size_t lo = (size_t)h;
    return lo + 1 < c ? v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]) : v[lo];
}

/* How much the value stands out of the baseline, on one scale for all
 * kinds (about 3 is "clearly"); <= 0 when not clearly. Counts: a z-score
 * excess / sqrt(baseline + 1), as for Poisson counts; steal: 2 per
 * percentage point; SMIs: 10 each (every one stops the CPU); frequency: 1
 * per percent of drop; idle: 0.2 per percentage point of residency. */
static double score(enum metric_type type, double value, double baseline, double *excess)
{
    switch (type) {
    case METRIC_COUNT:
        *excess = value - baseline;
        return *excess > 2 && *excess > 0.2 * baseline ? *excess / sqrt(baseline + 1) : 0;
    case METRIC_STEAL:
        *excess = value - baseline;
        return *excess >= 0.5 ? *excess / 0.5 : 0;
    case METRIC_SMI:
        *excess = value - baseline;
        return *excess >= 1 ? 10 * *excess : 0;
    case METRIC_FREQUENCY:
        *excess = baseline - value;
        return baseline > 0 && *excess >= 0.05 * baseline ? 100 * *excess / baseline : 0;
    default: /* METRIC_IDLE */
        *excess = value - baseline;
        return *excess >= 5 ? *excess / 5 : 0;
    }
}

static void explain_cpu(const struct telemetry_window *w, const size_t *idx, size_t n,
                        const struct softirq_names *sq, struct cpu_metrics *m,
                        struct window_explanation *out)
{
    memset(m->value, 0, n * METRICS_MAX * sizeof(double));
    m->nkeys = 0;
    for (size_t r = 0; r < n; r++)
        window_metrics(&w[idx[r]], sq, m, r);
    double baseline[METRICS_MAX];
    double *column = malloc(n * sizeof(double));
    if (!column)
        return;
    /* The baseline is what a quiet window of this CPU looks like, taken from
     * the figures alone: whether a window had samples or spikes says
     * nothing of them (in noise every window with a gap has a spike, and one
     * without a gap has no sample). Windows much shorter than the longest
     * (the last one) stay out, unless that leaves none. */
    int64_t longest = 0;
    for (size_t r = 0; r < n; r++)
        if (w[idx[r]].duration_ns > longest)
            longest = w[idx[r]].duration_ns;
    for (int k = 0; k < m->nkeys; k++) {
        size_t c = 0;
        for (size_t r = 0; r < n; r++)
            if (w[idx[r]].duration_ns * 10 >= longest)
                column[c++] = m->value[r * METRICS_MAX + (size_t)k];
        for (size_t r = 0; c == 0 && r < n; r++)
            column[c++] = m->value[r * METRICS_MAX + (size_t)k];
        baseline[k] = quiet_level(column, c, m->key[k].type);
    }
    free(column);
    for (size_t r = 0; r < n; r++) {
        const struct telemetry_window *win = &w[idx[r]];
        if (win->spikes == 0)
            continue;
        struct window_spike *s = &out->spike[out->nspike++];
        memset(s, 0, sizeof *s);
        s->t_ns = win->t_ns;
        s->cpu = win->cpu;
        s->spikes = win->spikes;
        s->max_ns = win->max_ns;
        double best[WINDOW_CAUSES_MAX];
        for (int k = 0; k < m->nkeys; k++) {
            double excess, v = m->value[r * METRICS_MAX + (size_t)k];
            double sc = score(m->key[k].type, v, baseline[k], &excess);
            if (sc <= 0)
                continue;
            int at = s->ncauses;
            while (at > 0 && best[at - 1] < sc)
                at--;
            if (at >= WINDOW_CAUSES_MAX)
                continue;
            int last = s->ncauses < WINDOW_CAUSES_MAX ? s->ncauses : WINDOW_CAUSES_MAX - 1;
            memmove(&s->cause[at + 1], &s->cause[at], (size_t)(last - at) * sizeof s->cause[0]);
            memmove(&best[at + 1], &best[at], (size_t)(last - at) * sizeof best[0]);
            s->cause[at] = (struct window_cause){
                .kind = m->key[k].kind, .value = v, .baseline = baseline[k], .excess = excess};
            text_copy(s->cause[at].name, sizeof s->cause[at].name, m->key[k].name);
            best[at] = sc;
            if (s->ncauses < WINDOW_CAUSES_MAX)
                s->ncauses++;
        }
    }
}

static int cmp_spike_time(const void *a, const void *b)
{
    const struct window_spike *x = a, *y = b;
    if (x->t_ns != y->t_ns)
        return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
    return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static void summarize(struct window_explanation *e)
{
    size_t nrows = 0;
    for (size_t i = 0; i < e->nspike; i++) {
        const struct window_spike *s = &e->spike[i];
        const char *kind = s->ncauses ? s->cause[0].kind : "unexplained";
        const char *name = s->ncauses ? s->cause[0].name : "nothing above the CPU's usual";
        size_t r = 0;
        while (r < nrows &&
               !(strcmp(e->row[r].kind, kind) == 0 && strcmp(e->row[r].name, name) == 0))
            r++;
        if (r == nrows) {
            if (nrows == WINDOW_SUMMARY_MAX) {
                r = WINDOW_SUMMARY_MAX; /* "other" */
                if (!e->row[r].kind) {
                    e->row[r].kind = "unexplained";
                    text_copy(e->row[r].name, sizeof e->row[r].name, "other");
                }
            } else {
                e->row[r].kind = kind;
                text_copy(e->row[r].name, sizeof e->row[r].name, name);
                nrows++;
            }
        }
        e->row[r].windows++;
        e->row[r].spikes += s->spikes;
        if (s->max_ns > e->row[r].max_ns)
            e->row[r].max_ns = s->max_ns;
    }
    e->nrows = nrows + (e->row[WINDOW_SUMMARY_MAX].windows > 0); /* "other" is the last */
    for (size_t r = 0; r < e->nrows; r++)
        e->row[r].share = e->nspike ? (double)e->row[r].windows / (double)e->nspike : 0;
    /* most windows first */
    for (size_t a = 1; a < e->nrows; a++)
        for (size_t b = a; b > 0 && e->row[b].windows > e->row[b - 1].windows; b--) {
            struct window_summary_row t = e->row[b];
            e->row[b] = e->row[b - 1];
            e->row[b - 1] = t;
        }
}

int window_explain(const struct telemetry_window *w, size_t n, const char *const *softirq_names,
                   int nsoftirq, struct window_explanation *out)
{
    struct softirq_names sq = {softirq_names, nsoftirq};
    memset(out, 0, sizeof *out);
    size_t with_spikes = 0;
    for (size_t i = 0; i < n; i++)
        with_spikes += w[i].spikes > 0;
    if (with_spikes == 0)
        return 0;
    out->spike = calloc(with_spikes, sizeof *out->spike);
    size_t *idx = malloc(n * sizeof *idx);
    bool *done = calloc(n, sizeof *done);
    struct cpu_metrics m = {.value = malloc(n * METRICS_MAX * sizeof(double))};
    int rc = out->spike && idx && done && m.value ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (done[i])
            continue;
        size_t cnt = 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && w[j].cpu == w[i].cpu) {
                idx[cnt++] = j;
                done[j] = true;
            }
        explain_cpu(w, idx, cnt, &sq, &m, out);
    }
    free(idx);
    free(done);
    free(m.value);
    if (rc != 0) {
        window_explanation_free(out);
        return -1;
    }
    qsort(out->spike, out->nspike, sizeof *out->spike, cmp_spike_time);
    summarize(out);
    return 0;
}

void window_explanation_free(struct window_explanation *e)
{
    free(e->spike);
    memset(e, 0, sizeof *e);
}
