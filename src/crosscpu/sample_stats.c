/*
 * Exact order statistics of small batches.
 */
#include "crosscpu/sample_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least q * n values at or below. */
static size_t rank_of(size_t n, double q)
{
    if (q <= 0)
        return 0;
    double r = ceil(q * (double)n);
    size_t k = r < 1 ? 0 : (size_t)r - 1;
    return k >= n ? n - 1 : k;
}

uint64_t sorted_quantile_u64(const uint64_t *v, size_t n, double q)
{
    return n ? v[rank_of(n, q)] : 0;
}

double quantile_double(double *v, size_t n, double q)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return v[rank_of(n, q)];
}

void sample_summary_u64(uint64_t *v, size_t n, struct sample_summary *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    qsort(v, n, sizeof *v, cmp_u64);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double)v[i];
    out->n = n;
    out->min = v[0];
    out->max = v[n - 1];
    out->median = sorted_quantile_u64(v, n, 0.5);
    out->p99 = sorted_quantile_u64(v, n, 0.99);
    out->mean = sum / (double)n;
}
