/*
 * report --group: the runs of one setting (an experiment's step) drawn as
 * one result, so that the page shows what compare's verdicts rest on. Per
 * CPU (and "all") the runs' histograms are added bucket by bucket (every
 * run writes the same log-linear buckets, so the sum is exact), the counts
 * summed, min and max spanned, mean and standard deviation pooled, and the
 * percentiles read off the summed histogram the way compare reads its
 * pooled percentiles (stats/hist_tests.h). Its verdicts between groups
 * rest on each
 * run's own p99 and show their geometric mean: that, with the lowest and
 * highest, is kept too, and the page gives both.
 * The first run keeps everything else (header, config, the series over
 * time, the spikes): the page says so.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/report_json.h"
#include "out/report_model.h"
#include "out/report_read_internal.h"
#include "stats/hist_tests.h"

/* The entry of CPU cpu (-1: all) of a run, or NULL. */
static struct result_cpu *entry_of(struct report_run *run, int cpu)
{
    if (cpu < 0)
        return &run->core.all;
    for (int i = 0; i < run->core.ncpus; i++)
        if (run->core.cpus[i].cpu == cpu)
            return &run->core.cpus[i];
    return NULL;
}

/* A distribution of n entries: its bins (ascending), overflow, statistics. */
struct group_dist {
    const struct result_bin *bins;
    int nbins;
    uint64_t overflow;
    const struct result_latency *st;
    uint64_t n; /* values */
};

/* Sums the bins of d[0..n) into a new ascending array (*out, *nout);
 * bins with the same bounds add, overlapping unequal ones are refused. */
static int sum_bins(const struct group_dist *d, int n, struct result_bin **out, int *nout,
                    char *err, size_t errlen)
{
    size_t cap = 0, m = 0;
    for (int r = 0; r < n; r++)
        cap += (size_t)d[r].nbins;
    struct result_bin *b = calloc(cap ? cap : 1, sizeof *b);
    if (!b) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int r = 0; r < n; r++)
        for (int i = 0; i < d[r].nbins; i++) {
            const struct result_bin *x = &d[r].bins[i];
            size_t lo = 0, hi = m;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (b[mid].lo < x->lo)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < m && b[lo].lo == x->lo && b[lo].hi == x->hi) {
                b[lo].count += x->count;
                continue;
            }
            if ((lo < m && b[lo].lo <= x->hi) || (lo > 0 && b[lo - 1].hi >= x->lo)) {
                snprintf(err, errlen,
                         "the runs' histograms have different buckets (%lld-%lld ns against "
                         "%lld-%lld ns): not runs of the same jitterlab",
                         (long long)x->lo, (long long)x->hi, (long long)b[lo < m ? lo : lo - 1].lo,
                         (long long)b[lo < m ? lo : lo - 1].hi);
                free(b);
                return -1;
            }
            memmove(&b[lo + 1], &b[lo], (m - lo) * sizeof *b);
            b[lo] = *x;
            m++;
        }
    *out = b;
    *nout = (int)m;
    return 0;
}

/* The statistics of the runs together: min and max spanned, mean and
 * standard deviation pooled, percentiles from the summed bins. */
static struct result_latency pooled_stats(const struct group_dist *d, int n,
                                          const struct result_bin *bins, int nbins,
                                          uint64_t overflow)
{
    struct result_latency s = {0};
    double sum = 0, total = 0;
    for (int r = 0; r < n; r++) {
        if (!d[r].st->known || d[r].n == 0)
            continue;
        s.min = !s.known || d[r].st->min < s.min ? d[r].st->min : s.min;
        s.max = !s.known || d[r].st->max > s.max ? d[r].st->max : s.max;
        s.known = true;
        sum += (double)d[r].st->mean * (double)d[r].n;
        total += (double)d[r].n;
    }
    if (!s.known)
        return s;
    double mean = sum / total, ss = 0;
    for (int r = 0; r < n; r++) {
        if (!d[r].st->known || d[r].n == 0)
            continue;
        double sd = (double)d[r].st->stddev, dm = (double)d[r].st->mean - mean;
        ss += ((double)d[r].n - 1) * sd * sd + (double)d[r].n * dm * dm;
    }
    s.mean = llround(mean);
    s.stddev = total > 1 ? llround(sqrt(ss / (total - 1))) : 0;
    struct hbin *hb = calloc((size_t)(nbins ? nbins : 1), sizeof *hb);
    if (!hb)
        return (struct result_latency){0};
    uint64_t values = overflow;
    for (int i = 0; i < nbins; i++) {
        hb[i] = (struct hbin){bins[i].lo, bins[i].hi, bins[i].count};
        values += bins[i].count;
    }
    struct hdist h = {hb, (size_t)nbins, overflow, s.max, values};
    s.p50 = hdist_percentile(&h, 50, s.min);
    s.p90 = hdist_percentile(&h, 90, s.min);
    s.p99 = hdist_percentile(&h, 99, s.min);
    s.p999 = hdist_percentile(&h, 99.9, s.min);
    s.p9999 = hdist_percentile(&h, 99.99, s.min);
    free(hb);
    return s;
}

/* The distributions d[0..n) together into a result's statistics and
 * histogram (*bins, replaced: the old array is freed). */
static int pool_into(const struct group_dist *d, int n, struct result_latency *stats,
                     struct result_bin **bins, int *nbins, uint64_t *overflow, char *err,
                     size_t errlen)
{
    struct result_bin *sum;
    int nsum;
    if (sum_bins(d, n, &sum, &nsum, err, errlen) != 0)
        return -1;
    uint64_t of = 0;
    for (int r = 0; r < n; r++)
        of += d[r].overflow;
    *stats = pooled_stats(d, n, sum, nsum, of);
    free(*bins);
    *bins = sum;
    *nbins = nsum;
    *overflow = of;
    return 0;
}

static int merge_latency(struct result_cpu *into, struct result_cpu **all, int n, char *err,
                         size_t errlen)
{
    struct group_dist d[REPORT_GROUP_MAX] = {0};
    for (int r = 0; r < n; r++)
        d[r] = (struct group_dist){all[r]->bins, all[r]->nbins, all[r]->overflow, &all[r]->latency,
                                   all[r]->samples};
    return pool_into(d, n, &into->latency, &into->bins, &into->nbins, &into->overflow, err, errlen);
}

/* exec_ns or response_ns: pooled when every run has it, else absent. */
static int merge_dist(struct result_dist *into, struct result_dist **all, uint64_t *n_of, int n,
                      char *err, size_t errlen)
{
    struct group_dist d[REPORT_GROUP_MAX] = {0};
    for (int r = 0; r < n; r++) {
        if (!all[r]->present) {
            into->present = false;
            return 0;
        }
        d[r] = (struct group_dist){all[r]->bins, all[r]->nbins, all[r]->overflow, &all[r]->stats,
                                   n_of[r]};
    }
    return pool_into(d, n, &into->stats, &into->bins, &into->nbins, &into->overflow, err, errlen);
}

static struct report_hist hist_of(const struct result_bin *bins, int nbins, uint64_t overflow,
                                  bool present)
{
    struct report_hist h = {present, nbins, bins, overflow, overflow};
    for (int i = 0; i < nbins; i++)
        h.total += bins[i].count;
    return h;
}

/* One CPU entry (cpu -1: all) of the group; c is the first run's. */
static int merge_cpu(struct report_run *first, struct report_run *more, int nmore,
                     struct report_cpu *c, char *err, size_t errlen)
{
    struct result_cpu *e[REPORT_GROUP_MAX];
    struct result_dist *ex[REPORT_GROUP_MAX], *rs[REPORT_GROUP_MAX];
    uint64_t n_of[REPORT_GROUP_MAX];
    int n = 1 + nmore;
    e[0] = entry_of(first, c->cpu);
    for (int r = 1; r < n; r++)
        if (!(e[r] = entry_of(&more[r - 1], c->cpu))) {
            snprintf(err, errlen,
                     "%s has no CPU %d, which %s measured: the runs of a group "
                     "measure the same CPUs",
                     more[r - 1].path, c->cpu, first->path);
            return -1;
        }
    struct result_cpu merged = *e[0];
    c->run_p99_geomean = -1;
    c->runs = n;
    c->run_p99_min = c->run_p99_max = -1;
    double log_sum = 0;
    int logs = 0;
    for (int r = 0; r < n; r++) {
        if (r > 0) {
            merged.samples += e[r]->samples;
            merged.missed += e[r]->missed;
            merged.samples_lacking += e[r]->samples_lacking;
            merged.deadline_misses += e[r]->deadline_misses;
            merged.has_deadline_misses &= e[r]->has_deadline_misses;
        }
        if (e[r]->latency.known && e[r]->samples > 0) {
            int64_t p = e[r]->latency.p99;
            c->run_p99_min = c->run_p99_min < 0 || p < c->run_p99_min ? p : c->run_p99_min;
            c->run_p99_max = p > c->run_p99_max ? p : c->run_p99_max;
            log_sum += log(fmax((double)p, 1));
            logs++;
        }
        ex[r] = &e[r]->exec;
        rs[r] = &e[r]->response;
        n_of[r] = e[r]->samples;
    }
    if (logs)
        c->run_p99_geomean = exp(log_sum / logs);
    if (merge_latency(&merged, e, n, err, errlen) != 0 ||
        merge_dist(&merged.exec, ex, n_of, n, err, errlen) != 0 ||
        merge_dist(&merged.response, rs, n_of, n, err, errlen) != 0)
        return -1;
    *e[0] = merged;
    c->core = e[0];
    c->latency = hist_of(merged.bins, merged.nbins, merged.overflow, true);
    c->exec =
        hist_of(merged.exec.bins, merged.exec.nbins, merged.exec.overflow, merged.exec.present);
    c->response = hist_of(merged.response.bins, merged.response.nbins, merged.response.overflow,
                          merged.response.present);
    c->deadline_misses = merged.has_deadline_misses ? (int64_t)merged.deadline_misses : JR_ABSENT;
    return 0;
}

int report_run_merge(struct report_run *first, struct report_run *more, int nmore, char *err,
                     size_t errlen)
{
    if (nmore + 1 > REPORT_GROUP_MAX) {
        snprintf(err, errlen, "%d runs, at most %d in a group", nmore + 1, REPORT_GROUP_MAX);
        return -1;
    }
    for (int r = 0; r < nmore; r++)
        if (more[r].noise != first->noise) {
            snprintf(err, errlen, "%s and %s are not both run results", first->path, more[r].path);
            return -1;
        }
    /* the first run's tail fit is not the group's: not drawn */
    if (first->tail) {
        report_tail_free(first->tail);
        free(first->tail);
        first->tail = NULL;
    }
    /* a result's "exec_ns" replaced here is freed with first's document */
    for (int i = 0; i < first->ncpu; i++)
        if (merge_cpu(first, more, nmore, &first->cpu[i], err, errlen) != 0)
            return -1;
    if (merge_cpu(first, more, nmore, &first->all, err, errlen) != 0)
        return -1;
    first->runs = 1 + nmore;
    return 0;
}
