/*
 * The rendezvous statistics (see rendezvous_stats.h). Only rendezvous that
 * completed in time on every CPU count, so each CPU's figures of a layout
 * come from the same rendezvous. A batch's figure of a layout is the median
 * over CPUs of each CPU's median in that batch; the batch ratio divides the
 * layout's figure by packed's in the same batch, so that what drifts between
 * batches (the host's load on the VM) cancels out of the ratio.
 */
#include "crosscpu/rendezvous_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double rv_median(double *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* splitmix64: a small generator of good quality, enough for resampling. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void rv_ratio_summarize(double *v, size_t n, int resamples, uint64_t seed, struct rv_ratio *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    out->batches = n;
    out->median = rv_median(v, n); /* sorts v */
    out->batch_min = v[0];
    out->batch_max = v[n - 1];
    if (n < 2 || resamples < 1)
        return; /* one batch says nothing about the spread */
    double *medians = malloc((size_t)resamples * sizeof *medians);
    double *draw = malloc(n * sizeof *draw);
    if (medians && draw) {
        uint64_t state = seed;
        for (int b = 0; b < resamples; b++) {
            for (size_t i = 0; i < n; i++)
                draw[i] = v[next_random(&state) % n];
            medians[b] = rv_median(draw, n);
        }
        qsort(medians, (size_t)resamples, sizeof *medians, cmp_double);
        /* the 2.5 % and 97.5 % points of the resampled medians */
        size_t lo = (size_t)floor(0.025 * resamples);
        size_t hi = (size_t)ceil(0.975 * resamples) - 1;
        out->ci_low = medians[lo];
        out->ci_high = medians[hi];
        out->has_ci = true;
    }
    free(medians);
    free(draw);
}

static const uint64_t *metric_values(const struct rv_cpu_records *c, enum rv_metric m)
{
    return m == RV_LOOP_EXIT ? c->loop_exit : c->total;
}

/* Scratch space of one computation. */
struct work {
    const struct rv_result *res;
    bool *done;      /* [attempted]: completed in time on every CPU */
    uint64_t *vals;  /* [attempted] */
    double *per_cpu; /* [ncpu] */
};

/* The median over CPUs of each CPU's median of metric m over the completed
 * rendezvous of layout li, either all of them (batch < 0) or those of one
 * batch. NAN when there are none. Fills sums[ncpu] when given. */
static double cpu_median(const struct work *w, int li, int batch, int batches, enum rv_metric m,
                         struct sample_summary *sums)
{
    const struct rv_result *res = w->res;
    size_t L = (size_t)res->nlayouts, count = 0;
    /* batch b holds rounds b, b + batches, ...: rendezvous round * L + li */
    size_t first = batch < 0 ? (size_t)li : (size_t)batch * L + (size_t)li;
    size_t step = batch < 0 ? L : (size_t)batches * L;
    for (int i = 0; i < res->ncpu; i++) {
        const uint64_t *src = metric_values(&res->cpu[i], m);
        count = 0;
        for (size_t r = first; r < res->attempted; r += step)
            if (w->done[r])
                w->vals[count++] = src[r];
        struct sample_summary s;
        sample_summary_u64(w->vals, count, &s);
        if (sums)
            sums[i] = s;
        w->per_cpu[i] = (double)s.median;
    }
    return count ? rv_median(w->per_cpu, (size_t)res->ncpu) : NAN;
}

static void count_layout(const struct work *w, int li, struct rv_layout_stats *ls)
{
    const struct rv_result *res = w->res;
    for (size_t r = (size_t)li; r < res->attempted; r += (size_t)res->nlayouts) {
        if (w->done[r]) {
            ls->done++;
        } else {
            ls->timeouts++;
            if (res->cpu[0].status[r] == RV_START_TIMEOUT)
                ls->timeouts_at_start++;
        }
    }
}

int rv_stats_compute(const struct rv_result *res, int batches, struct rv_stats *st)
{
    memset(st, 0, sizeof *st);
    st->ncpu = res->ncpu;
    st->nlayouts = res->nlayouts;
    st->batches = batches < 1 ? 1 : batches;
    size_t n = res->attempted, nb = (size_t)st->batches;
    struct work w = {.res = res};
    w.done = malloc(n ? n : 1);
    w.vals = malloc((n ? n : 1) * sizeof *w.vals);
    w.per_cpu = malloc((size_t)res->ncpu * sizeof *w.per_cpu);
    double *batch_fig = malloc((size_t)res->nlayouts * RV_METRICS * nb * sizeof *batch_fig);
    double *ratios = malloc(nb * sizeof *ratios);
    int rc = -1;
    if (!w.done || !w.vals || !w.per_cpu || !batch_fig || !ratios)
        goto out;
    for (size_t r = 0; r < n; r++)
        w.done[r] = rv_completed(res, r);
    int packed = -1;
    for (int li = 0; li < res->nlayouts; li++) {
        struct rv_layout_stats *ls = &st->layout[li];
        ls->layout = res->layouts[li];
        if (ls->layout == RV_PACKED)
            packed = li;
        count_layout(&w, li, ls);
        ls->has_median = ls->done > 0;
        for (int m = 0; m < RV_METRICS; m++) {
            ls->cpu[m] = calloc((size_t)res->ncpu, sizeof *ls->cpu[m]);
            if (!ls->cpu[m]) {
                rv_stats_free(st);
                goto out;
            }
            double all = cpu_median(&w, li, -1, st->batches, m, ls->cpu[m]);
            ls->median[m] = ls->has_median ? all : 0;
            for (size_t b = 0; b < nb; b++)
                batch_fig[((size_t)li * RV_METRICS + (size_t)m) * nb + b] =
                    cpu_median(&w, li, (int)b, st->batches, m, NULL);
        }
    }
    for (int li = 0; li < res->nlayouts && packed >= 0; li++) {
        struct rv_layout_stats *ls = &st->layout[li];
        if (li == packed)
            continue;
        ls->has_ratio = true;
        for (int m = 0; m < RV_METRICS; m++) {
            const double *mine = &batch_fig[((size_t)li * RV_METRICS + (size_t)m) * nb];
            const double *base = &batch_fig[((size_t)packed * RV_METRICS + (size_t)m) * nb];
            size_t k = 0;
            for (size_t b = 0; b < nb; b++)
                if (!isnan(mine[b]) && !isnan(base[b]) && base[b] > 0)
                    ratios[k++] = mine[b] / base[b];
            rv_ratio_summarize(ratios, k, RV_BOOT_RESAMPLES, RV_BOOT_SEED, &ls->ratio[m]);
        }
    }
    rc = 0;
out:
    free(w.done);
    free(w.vals);
    free(w.per_cpu);
    free(batch_fig);
    free(ratios);
    return rc;
}

void rv_stats_free(struct rv_stats *st)
{
    for (int li = 0; li < RV_LAYOUT_COUNT; li++)
        for (int m = 0; m < RV_METRICS; m++) {
            free(st->layout[li].cpu[m]);
            st->layout[li].cpu[m] = NULL;
        }
}

enum rv_verdict rv_ratio_verdict(const struct rv_ratio *r)
{
    if (r->batches == 0 || !r->has_ci)
        return RV_VERDICT_NONE;
    if (r->ci_high < 1.0)
        return RV_VERDICT_FASTER;
    if (r->ci_low > 1.0)
        return RV_VERDICT_SLOWER;
    return RV_VERDICT_SAME;
}
