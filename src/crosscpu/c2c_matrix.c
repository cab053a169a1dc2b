/*
 * The c2c figures (see c2c_matrix.h): the best round of a pair, the matrix
 * and its groups, the summary per group and the colour bands. The best
 * round's min and median are kept together, so that both figures of a pair
 * come from the same stretch of time.
 */
#include "crosscpu/c2c_matrix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crosscpu/sample_stats.h"

int c2c_matrix_init(struct c2c_matrix *m, const int *cpus, int ncpu)
{
    memset(m, 0, sizeof *m);
    size_t cells = (size_t)ncpu * (size_t)ncpu;
    m->cpus = calloc(ncpu > 0 ? (size_t)ncpu : 1, sizeof *m->cpus);
    m->pair = calloc(cells ? cells : 1, sizeof *m->pair);
    if (!m->cpus || !m->pair) {
        c2c_matrix_free(m);
        return -1;
    }
    m->ncpu = ncpu;
    memcpy(m->cpus, cpus, (size_t)ncpu * sizeof *cpus);
    for (int i = 0; i < ncpu; i++)
        for (int k = 0; k < ncpu; k++) {
            struct c2c_pair *p = c2c_matrix_at(m, i, k);
            p->from = cpus[i];
            p->to = cpus[k];
            p->group = i == k ? CPU_PAIR_SAME : CPU_PAIR_UNKNOWN;
            p->min_ns = p->median_ns = NAN;
        }
    return 0;
}

void c2c_matrix_free(struct c2c_matrix *m)
{
    free(m->cpus);
    free(m->pair);
    memset(m, 0, sizeof *m);
}

void c2c_matrix_set_groups(struct c2c_matrix *m, const struct cpu_topology *topo)
{
    for (int i = 0; i < m->ncpu; i++)
        for (int k = 0; k < m->ncpu; k++) {
            struct c2c_pair *p = c2c_matrix_at(m, i, k);
            const struct cpu_siblings *a = cpu_topology_find(topo, p->from);
            const struct cpu_siblings *b = cpu_topology_find(topo, p->to);
            if (i == k)
                p->group = CPU_PAIR_SAME;
            else
                p->group = a && b ? cpu_pair_group(a, b) : CPU_PAIR_UNKNOWN;
        }
}

int c2c_best_round(const struct c2c_round *r, int n)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (!r[i].done)
            continue;
        if (best < 0 || r[i].median_ticks < r[best].median_ticks ||
            (r[i].median_ticks == r[best].median_ticks && r[i].min_ticks < r[best].min_ticks))
            best = i;
    }
    return best;
}

void c2c_pair_finish(struct c2c_pair *p, const struct c2c_round *r, int n, double ns_per_tick)
{
    p->rounds_done = 0;
    for (int i = 0; i < n; i++)
        p->rounds_done += r[i].done;
    int b = c2c_best_round(r, n);
    if (b < 0) {
        p->min_ns = p->median_ns = NAN;
        return;
    }
    /* Rounded once here, so that every output shows the same figure. */
    p->min_ns = round((double)r[b].min_ticks * ns_per_tick * 5) / 10;
    p->median_ns = round((double)r[b].median_ticks * ns_per_tick * 5) / 10;
}

int c2c_group_stats(const struct c2c_matrix *m, struct c2c_group_stats out[CPU_PAIR_GROUPS])
{
    size_t cells = (size_t)m->ncpu * (size_t)m->ncpu;
    double *medians = malloc((cells ? cells : 1) * sizeof *medians);
    if (!medians)
        return -1;
    int ngroups = 0;
    for (int g = 0; g < CPU_PAIR_GROUPS; g++) {
        struct c2c_group_stats s = {
            .group = (enum cpu_pair_group)g,
            .min_ns = NAN,
            .median_ns = NAN,
            .max_ns = NAN,
            .best_min_ns = NAN,
        };
        size_t nmed = 0;
        for (size_t c = 0; c < cells; c++) {
            const struct c2c_pair *p = &m->pair[c];
            if (p->from == p->to || (int)p->group != g)
                continue;
            s.pairs++;
            s.timeouts += p->timeouts;
            if (isfinite(p->median_ns)) {
                medians[nmed++] = p->median_ns;
                if (!(p->median_ns >= s.min_ns)) /* also when min_ns is NAN */
                    s.min_ns = p->median_ns;
                if (!(p->median_ns <= s.max_ns))
                    s.max_ns = p->median_ns;
            }
            if (isfinite(p->min_ns) && !(p->min_ns >= s.best_min_ns))
                s.best_min_ns = p->min_ns;
        }
        if (s.pairs == 0)
            continue;
        s.measured = (int)nmed;
        if (nmed > 0)
            s.median_ns = quantile_double(medians, nmed, 0.5);
        out[ngroups++] = s;
    }
    free(medians);
    return ngroups;
}

void c2c_bands_init(struct c2c_bands *b, const struct c2c_matrix *m, int nbands)
{
    b->lo = b->hi = NAN;
    b->nbands = nbands > 0 ? nbands : 1;
    size_t cells = (size_t)m->ncpu * (size_t)m->ncpu;
    for (size_t c = 0; c < cells; c++) {
        double v = m->pair[c].median_ns;
        if (m->pair[c].from == m->pair[c].to || !isfinite(v))
            continue;
        if (!(v >= b->lo))
            b->lo = v;
        if (!(v <= b->hi))
            b->hi = v;
    }
}

/* Bands tell values apart only when they span at least this ratio. */
#define BANDS_MIN_SPAN 1.1

int c2c_band_of(const struct c2c_bands *b, double v)
{
    if (!isfinite(v))
        return -1;
    if (!(b->lo > 0) || !(b->hi >= b->lo * BANDS_MIN_SPAN))
        return 0;
    if (v <= b->lo)
        return 0;
    double x = log(v / b->lo) / log(b->hi / b->lo);
    int k = (int)(x * b->nbands);
    return k < 0 ? 0 : k >= b->nbands ? b->nbands - 1 : k;
}

double c2c_band_floor(const struct c2c_bands *b, int k)
{
    return b->lo * pow(b->hi / b->lo, (double)k / b->nbands);
}
