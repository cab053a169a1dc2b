/*
 * The tail analysis's data as the fits see it (see tail_internal.h): a
 * histogram's buckets with the overflow appended, the exact values above
 * the lowest threshold (sorted in linear time), the observations above a
 * threshold, and the threshold ladder with each rung's fit and goodness of
 * fit; the empirical level where no fit is needed. The rules are in
 * tail.c's opening comment.
 */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/evt_checks.h"
#include "stats/exact_tests.h"
#include "stats/gpd.h"
#include "stats/histogram.h"
#include "stats/tail_internal.h"

void tail_dataset_free(struct dataset *d)
{
    free(d->bins);
    free(d->exact);
    d->bins = NULL;
    d->exact = NULL;
}

/* Sorts v ascending: least significant digit first, 11 bits a pass over
 * the offsets from the smallest value, only as many passes as the span
 * needs (latencies span well under 2^33 ns: three passes). Linear in n,
 * where a comparison sort of millions of exceedances would cost more than
 * the fit. -1 when out of memory. */
int tail_sort_i64(int64_t *v, size_t n)
{
    if (n < 2)
        return 0;
    int64_t lo = v[0], hi = v[0];
    for (size_t i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    int64_t *tmp = malloc(n * sizeof(*tmp));
    if (!tmp)
        return -1;
    int64_t *src = v, *dst = tmp;
    for (unsigned shift = 0; shift < 64 && (span >> shift) > 0; shift += 11) {
        size_t count[2049] = {0};
        for (size_t i = 0; i < n; i++)
            count[((((uint64_t)src[i] - (uint64_t)lo) >> shift) & 2047) + 1]++;
        for (size_t d = 1; d < 2049; d++)
            count[d] += count[d - 1];
        for (size_t i = 0; i < n; i++)
            dst[count[(((uint64_t)src[i] - (uint64_t)lo) >> shift) & 2047]++] = src[i];
        int64_t *t = src;
        src = dst, dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof(*v));
    free(tmp);
    return 0;
}

/* Values at or above u, from the bins (u a lower edge). */
uint64_t tail_count_from(const struct dataset *d, int64_t u)
{
    uint64_t c = 0;
    for (size_t i = d->nbins; i-- > 0 && d->bins[i].lo >= u;)
        c += d->bins[i].count;
    return c;
}

/* The lower edge of the bucket holding u (the first bucket above when u
 * lies between buckets); u itself above every bucket (no exceedance). */
int64_t tail_snap_threshold(const struct dataset *d, int64_t u)
{
    for (size_t i = 0; i < d->nbins; i++)
        if (d->bins[i].hi >= u)
            return d->bins[i].lo;
    return u;
}

/* The observations above u: exact values grouped, or buckets. */
size_t tail_build_obs(const struct dataset *d, int64_t u, const int64_t *vals, size_t nvals,
                      struct gpd_obs *obs)
{
    size_t k = 0;
    if (vals) {
        for (size_t i = 0; i < nvals;) {
            if (vals[i] < u) {
                i++;
                continue;
            }
            size_t j = i;
            int64_t top = vals[i] + (vals[i] >> EXACT_GROUP_SHIFT);
            while (j < nvals && vals[j] <= top)
                j++;
            obs[k++] = (struct gpd_obs){(double)(vals[i] - u), (double)(vals[j - 1] + 1 - u),
                                        (double)(j - i)};
            i = j;
        }
        return k;
    }
    for (size_t i = 0; i < d->nbins; i++)
        if (d->bins[i].lo >= u && d->bins[i].count > 0)
            obs[k++] = (struct gpd_obs){(double)(d->bins[i].lo - u),
                                        (double)(d->bins[i].hi + 1 - u), (double)d->bins[i].count};
    return k;
}

/* Goodness of fit of the fit to obs: Anderson-Darling on exact values (at
 * the middle of each nanosecond), else the grouped chi-square. p NAN when
 * there are too few groups to test. */
double tail_goodness_of_fit(const struct gpd_obs *obs, size_t nobs, bool exact,
                            const struct gpd_fit *f, double *stat)
{
    double total = 0;
    for (size_t i = 0; i < nobs; i++)
        total += obs[i].w;
    *stat = NAN;
    if (exact) {
        double s = 0, pos = 0;
        for (size_t i = 0; i < nobs; i++) {
            double mid = (obs[i].a + obs[i].b) / 2;
            double z = -expm1(gpd_log_sf(mid, f->xi, f->sigma));
            double lz = log(fmax(z, 1e-300));
            double l1z = gpd_log_sf(mid, f->xi, f->sigma);
            if (!isfinite(l1z))
                l1z = -745;
            double c = obs[i].w;
            double sum_odd = (pos + c) * (pos + c) - pos * pos; /* sum of 2i-1 */
            double sum_rev = c * (2 * total + 1) - c * (2 * pos + c + 1);
            s += sum_odd * lz + sum_rev * l1z;
            pos += c;
        }
        double a2 = -total - s / total;
        *stat = a2;
        int bound;
        return ad_gpd_p(a2, f->xi, &bound);
    }
    /* Expectations over the span from the group's start, so empty buckets
     * between the observed ones count too. */
    double chi = 0, o = 0, start_ls = 0;
    int groups = 0;
    for (size_t i = 0; i < nobs; i++) {
        double lb = gpd_log_sf(obs[i].b, f->xi, f->sigma);
        o += obs[i].w;
        double e = total * (exp(start_ls) - exp(lb));
        double rest = total * exp(lb);
        if (i + 1 < nobs && e >= 5 && rest >= 5) {
            chi += (o - e) * (o - e) / e;
            groups++;
            o = 0;
            start_ls = lb;
        } else if (i + 1 == nobs) {
            e = total * exp(start_ls); /* open-ended */
            if (e > 0)
                chi += (o - e) * (o - e) / e;
            groups++;
        }
    }
    if (groups - 3 < 1)
        return NAN;
    *stat = chi;
    return gsl_cdf_chisq_Q(chi, groups - 3);
}

/* The ladder on d: fills rungs (ascending thresholds); returns the index
 * of the chosen rung, -1 when none is stable and accepted, -2 when the
 * lowest rung has too few exceedances. */
int tail_ladder(const struct dataset *d, double confidence, struct rung_fit *rungs, size_t *nrungs,
                struct gpd_obs *obs)
{
    *nrungs = 0;
    /* above[i]: values in bins[i..]. */
    uint64_t above = 0;
    double k = (double)d->n * LADDER_TOP;
    if (k < MIN_EXCEEDANCES)
        return -2;
    /* From the fewest exceedances (the top bucket) down. */
    int steps = 0;
    while (k / 2 >= MIN_EXCEEDANCES && steps + 1 < TAIL_MAX_LADDER) {
        k /= 2;
        steps++;
    }
    size_t i = d->nbins;
    for (int s = steps; s >= 0; s--, k *= 2) {
        while (i > 0 && (double)above < k)
            above += d->bins[--i].count;
        if ((double)above < k)
            break;
        int64_t u = d->bins[i].lo;
        if (*nrungs > 0 && rungs[*nrungs - 1].u == u)
            continue;
        rungs[(*nrungs)++] = (struct rung_fit){.u = u, .k = above};
    }
    /* Found from the top down: put them in ascending order of u. */
    for (size_t a = 0, b = *nrungs - 1; *nrungs > 0 && a < b; a++, b--) {
        struct rung_fit t = rungs[a];
        rungs[a] = rungs[b];
        rungs[b] = t;
    }
    double z = gsl_cdf_ugaussian_Qinv((1 - confidence) / 2);
    double xi0 = NAN, s0 = NAN;
    for (size_t r = 0; r < *nrungs; r++) {
        size_t nobs = tail_build_obs(d, rungs[r].u, d->exact, d->nexact, obs);
        struct gpd_fit *f = &rungs[r].fit;
        rungs[r].gof_p = rungs[r].gof_stat = NAN;
        if (gpd_fit(obs, nobs, xi0, s0, f) != 0)
            continue;
        xi0 = f->xi, s0 = f->sigma;
        rungs[r].gof_p = tail_goodness_of_fit(obs, nobs, d->exact != NULL, f, &rungs[r].gof_stat);
    }
    for (size_t r = 0; r < *nrungs; r++) {
        const struct gpd_fit *f = &rungs[r].fit;
        if (!f->ok || rungs[r].gof_p < CHECK_LEVEL || f->xi >= XI_AT_MAX)
            continue;
        bool stable = true;
        for (size_t q = r + 1; q < *nrungs && stable; q++) {
            const struct gpd_fit *g = &rungs[q].fit;
            if (!g->ok || !(g->cov[0][0] > 0) || rungs[q].k < LADDER_REF_MIN)
                continue;
            double se = sqrt(g->cov[0][0]);
            if (f->xi < g->xi - z * se || f->xi > g->xi + z * se)
                stable = false;
        }
        if (stable)
            return (int)r;
    }
    return -1;
}

/* The value of rank r (1-based) in the bins: mid, lower edge, upper edge. */
static void value_at_rank(const struct dataset *d, int64_t r, double *mid, double *lo, double *hi)
{
    uint64_t c = 0;
    for (size_t i = 0; i < d->nbins; i++) {
        c += d->bins[i].count;
        if ((int64_t)c >= r) {
            *mid = (double)(d->bins[i].lo + d->bins[i].hi) / 2;
            *lo = (double)d->bins[i].lo;
            *hi = (double)d->bins[i].hi;
            return;
        }
    }
    *mid = *lo = *hi = (double)d->bins[d->nbins - 1].hi;
}

struct tail_value tail_empirical_level(const struct dataset *d, double p, double confidence)
{
    struct tail_value v;
    double q = 1 - p, mid, lo, hi;
    int64_t r = (int64_t)ceil(q * (double)d->n), rl, rh;
    if (r < 1)
        r = 1;
    value_at_rank(d, r, &v.value, &lo, &hi);
    quantile_ci_ranks(d->n, q, 1 - confidence, &rl, &rh);
    if (rl < 1)
        v.lo = 0;
    else
        value_at_rank(d, rl, &mid, &v.lo, &hi);
    if (rh > (int64_t)d->n)
        v.hi = INFINITY;
    else
        value_at_rank(d, rh, &mid, &lo, &v.hi);
    return v;
}

/* The dataset of in: bins with the overflow appended; exact values at or
 * above the lowest threshold the ladder could take (or u_min). */
int tail_dataset_make(const struct tail_input *in, int64_t u_min, struct dataset *d)
{
    memset(d, 0, sizeof(*d));
    d->bins = malloc((in->nbins + 1) * sizeof(*d->bins));
    if (!d->bins)
        return -1;
    for (size_t i = 0; i < in->nbins; i++) {
        if (in->bins[i].count == 0)
            continue;
        d->bins[d->nbins++] = in->bins[i];
        d->n += in->bins[i].count;
    }
    if (in->overflow > 0) {
        if (d->nbins > 0 && in->max_ns <= d->bins[d->nbins - 1].hi)
            d->bins[d->nbins - 1].count += in->overflow;
        else
            d->bins[d->nbins++] = (struct tail_bin){in->max_ns, in->max_ns, in->overflow};
        d->n += in->overflow;
    }
    if (in->seq && in->nseq > 0) {
        size_t k = 0;
        for (size_t i = 0; i < in->nseq; i++)
            k += in->seq[i] >= u_min;
        d->exact = malloc((k ? k : 1) * sizeof(*d->exact));
        if (!d->exact)
            return -1;
        for (size_t i = 0; i < in->nseq; i++)
            if (in->seq[i] >= u_min)
                d->exact[d->nexact++] = in->seq[i];
        if (tail_sort_i64(d->exact, d->nexact) != 0)
            return -1;
    }
    return 0;
}

/* The lowest threshold the ladder could pick: the bucket of the n/10-th
 * value from the top. */
int64_t tail_lowest_rung(const struct dataset *d)
{
    uint64_t above = 0;
    double k = (double)d->n * LADDER_TOP;
    for (size_t i = d->nbins; i-- > 0;) {
        above += d->bins[i].count;
        if ((double)above >= k)
            return d->bins[i].lo;
    }
    return d->bins[0].lo;
}

size_t tail_bins_of_hist(const struct latency_hist *h, struct tail_bin *out)
{
    size_t n = 0;
    for (size_t i = 0; i < LATENCY_HIST_BUCKETS; i++) {
        if (!h->buckets[i])
            continue;
        int64_t lo, hi;
        latency_hist_bucket_bounds(i, &lo, &hi);
        out[n++] = (struct tail_bin){.lo = lo, .hi = hi, .count = h->buckets[i]};
    }
    return n;
}
