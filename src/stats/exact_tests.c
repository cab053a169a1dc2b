/*
 * The tests of exact_tests.h. A discrete two-sided p value is the sum of
 * the probabilities of every outcome no more likely than the one observed,
 * summed in log space over the part of the support where terms matter (40
 * standard deviations and more about the mean: what lies beyond is below
 * e^-800 of the total). Where the distribution is wide (variance above
 * 2000) the normal approximation with continuity correction takes over: its
 * error is then far below any level compare decides at. The permutation
 * test walks the splits recursively with the running sum, so each split
 * costs O(1).
 */
#include "stats/exact_tests.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define WIDE_VARIANCE  2000.0
#define PERM_EXACT_MAX 200000.0

static double log_add(double a, double b)
{
    if (a == -INFINITY)
        return b;
    if (b == -INFINITY)
        return a;
    double hi = a > b ? a : b, lo = a > b ? b : a;
    return hi + log1p(exp(lo - hi));
}

static double log_choose(double n, double k)
{
    return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
}

double normal_log_sf(double z)
{
    if (z < 0)
        return log1p(-0.5 * erfc(-z / sqrt(2)));
    if (z < 30)
        return log(0.5 * erfc(z / sqrt(2)));
    /* the asymptotic series of the Mills ratio */
    double z2 = z * z;
    return -z2 / 2 - log(z) - 0.5 * log(2 * M_PI) + log1p(-1 / z2 + 3 / (z2 * z2));
}

double normal_isf(double p)
{
    if (p >= 1)
        return -INFINITY;
    if (p <= 0)
        return INFINITY;
    if (p > 0.5)
        return -normal_isf(1 - p);
    double target = log(p), lo = 0, hi = 40;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (normal_log_sf(mid) > target)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* ---- discrete two-sided tests -------------------------------------------- */

struct discrete {
    double (*lpmf)(const struct discrete *d, double x);
    double n1, n2, n3; /* the distribution's parameters */
    double lo, hi;     /* support */
    double mean, sd;
};

/* ln of the sum of the outcomes in [from, to] no likelier than ln ref. */
static double sum_no_likelier(const struct discrete *d, double from, double to, double ref)
{
    ref += 1e-7 * fmax(1, fabs(ref)); /* ties within rounding count as ties */
    double acc = -INFINITY;
    for (double x = from; x <= to; x++) {
        double l = d->lpmf(d, x);
        if (l <= ref)
            acc = log_add(acc, l);
    }
    return fmin(0, acc);
}

static struct exact_p discrete_two_sided(const struct discrete *d, double obs)
{
    struct exact_p r = {0, 0};
    if (d->hi <= d->lo)
        return r; /* one outcome: p = 1 */
    if (d->sd * d->sd > WIDE_VARIANCE) {
        double z = (fabs(obs - d->mean) - 0.5) / d->sd;
        r.log_p = z <= 0 ? 0 : fmin(0, log(2) + normal_log_sf(z));
        double far = fmax(d->mean - d->lo, d->hi - d->mean);
        r.min_log_p = fmin(0, log(2) + normal_log_sf((far - 0.5) / d->sd));
        return r;
    }
    double reach = 40 * d->sd + 50, dist = fabs(obs - d->mean) + 1;
    reach = reach > dist ? reach : dist;
    double from = fmax(d->lo, floor(d->mean - reach)), to = fmin(d->hi, ceil(d->mean + reach));
    r.log_p = sum_no_likelier(d, from, to, d->lpmf(d, obs));
    /* the smallest p: that of the less likely end of the support, whose own
     * probability bounds it from below where the end lies beyond the window */
    double lo_end = d->lpmf(d, d->lo), hi_end = d->lpmf(d, d->hi);
    double end = fmin(lo_end, hi_end);
    bool inside =
        (lo_end <= hi_end ? d->lo : d->hi) >= from && (lo_end <= hi_end ? d->lo : d->hi) <= to;
    r.min_log_p = fmin(r.log_p, inside ? sum_no_likelier(d, from, to, end) : end);
    return r;
}

/* Hypergeometric: x of n2 draws are successes, K = n1 successes among N = n3. */
static double hyper_lpmf(const struct discrete *d, double x)
{
    double K = d->n1, n = d->n2, N = d->n3;
    return log_choose(K, x) + log_choose(N - K, n - x) - log_choose(N, n);
}

struct exact_p fisher_test(uint64_t k_a, uint64_t n_a, uint64_t k_b, uint64_t n_b)
{
    double N = (double)n_a + (double)n_b, K = (double)k_a + (double)k_b, n = (double)n_b;
    struct exact_p none = {0, 0};
    if (N <= 0 || K <= 0 || K >= N || n_a == 0 || n_b == 0)
        return none;
    struct discrete d = {hyper_lpmf, K, n, N, fmax(0, K - (double)n_a), fmin(K, n), 0, 0};
    d.mean = n * K / N;
    d.sd = sqrt(n * K * (N - K) * (N - n) / (N * N * (N - 1)));
    return discrete_two_sided(&d, (double)k_b);
}

/* Binomial: x successes of n1 trials, each with probability n2. */
static double binom_lpmf(const struct discrete *d, double x)
{
    double n = d->n1, r = d->n2;
    return log_choose(n, x) + x * log(r) + (n - x) * log1p(-r);
}

struct exact_p poisson_rate_test(uint64_t k_a, double t_a, uint64_t k_b, double t_b)
{
    double K = (double)k_a + (double)k_b;
    struct exact_p none = {0, 0};
    if (K <= 0 || !(t_a > 0) || !(t_b > 0))
        return none;
    double r = t_b / (t_a + t_b);
    struct discrete d = {binom_lpmf, K, r, 0, 0, K, K * r, sqrt(K * r * (1 - r))};
    return discrete_two_sided(&d, (double)k_b);
}

/* ---- quantile intervals ---------------------------------------------------- */

void quantile_ci_ranks(uint64_t n, double q, double gamma, int64_t *lo, int64_t *hi)
{
    double N = (double)n, g = gamma / 2, mean = N * q, sd = sqrt(N * q * (1 - q));
    if (n == 0) {
        *lo = 0;
        *hi = 1;
        return;
    }
    if (sd * sd > WIDE_VARIANCE) {
        double z = normal_isf(g);
        *lo = (int64_t)floor(mean - 0.5 - z * sd) + 1;
        *hi = (int64_t)ceil(mean - 0.5 + z * sd) + 1;
        return;
    }
    struct discrete d = {binom_lpmf, N, q, 0, 0, N, mean, sd};
    double reach = 40 * sd + 50;
    double from = fmax(0, floor(mean - reach)), to = fmin(N, ceil(mean + reach));
    double lg = log(g);
    /* lower: the largest c with P(B <= c) <= g; the rank is c + 1 */
    double c = from - 1, acc = -INFINITY;
    for (double x = from; x <= to; x++) {
        acc = log_add(acc, binom_lpmf(&d, x));
        if (acc > lg)
            break;
        c = x;
    }
    *lo = (int64_t)c + 1;
    /* upper: the smallest x with P(B >= x) <= g is the rank */
    double u = to + 1;
    acc = -INFINITY;
    for (double x = to; x >= from; x--) {
        acc = log_add(acc, binom_lpmf(&d, x));
        if (acc > lg)
            break;
        u = x;
    }
    *hi = (int64_t)u;
}

/* ---- the permutation test -------------------------------------------------- */

struct perm_walk {
    const double *v;
    size_t n, k; /* choose k of n for side a */
    double total, obs, tol, na, nb;
    double count, max_abs, at_max, splits;
};

static void perm_leaf(struct perm_walk *w, double sum_a)
{
    double d = fabs((w->total - sum_a) / w->nb - sum_a / w->na);
    w->splits++;
    w->count += d >= w->obs - w->tol;
    if (d > w->max_abs + w->tol) {
        w->max_abs = d;
        w->at_max = 1;
    } else if (d >= w->max_abs - w->tol) {
        w->at_max++;
    }
}

static void perm_walk(struct perm_walk *w, size_t i, size_t left, double sum_a)
{
    if (left == 0) {
        perm_leaf(w, sum_a);
        return;
    }
    if (w->n - i < left)
        return;
    perm_walk(w, i + 1, left - 1, sum_a + w->v[i]);
    perm_walk(w, i + 1, left, sum_a);
}

static uint64_t perm_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int perm_test(const double *a, size_t n_a, const double *b, size_t n_b, int reps, uint64_t seed,
              struct perm_result *out)
{
    memset(out, 0, sizeof *out);
    size_t n = n_a + n_b;
    if (n_a == 0 || n_b == 0 || n > 64)
        return -1;
    double v[64], sum_a = 0, sum_b = 0, scale = 0;
    for (size_t i = 0; i < n_a; i++) {
        v[i] = a[i];
        sum_a += a[i];
    }
    for (size_t i = 0; i < n_b; i++) {
        v[n_a + i] = b[i];
        sum_b += b[i];
    }
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            return -1;
        scale = fmax(scale, fabs(v[i]));
    }
    struct perm_walk w = {
        v, n, n_a, sum_a + sum_b, 0, 1e-9 * (1 + scale), (double)n_a, (double)n_b, 0, -1, 0, 0};
    out->mean_a = sum_a / (double)n_a;
    out->mean_b = sum_b / (double)n_b;
    w.obs = fabs(out->mean_b - out->mean_a);
    if (log_choose((double)n, (double)n_a) <= log(PERM_EXACT_MAX)) {
        perm_walk(&w, 0, n_a, 0);
        out->exact = 1;
        out->log_p = fmin(0, log(w.count / w.splits));
        out->min_log_p = log(w.at_max / w.splits);
        return 0;
    }
    if (reps < 1)
        return -1;
    uint64_t s = seed ^ 0x5bd1e995u;
    double perm[64];
    for (int r = 0; r < reps; r++) {
        memcpy(perm, v, n * sizeof *perm);
        double sa = 0;
        for (size_t i = 0; i < n_a; i++) { /* a partial Fisher-Yates draw of side a */
            size_t j = i + (size_t)(perm_rand(&s) % (uint64_t)(n - i));
            double t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
            sa += perm[i];
        }
        perm_leaf(&w, sa);
    }
    out->log_p = fmin(0, log((w.count + 1) / ((double)reps + 1)));
    out->min_log_p = log(1 / ((double)reps + 1));
    return 0;
}

/* ---- Tarone's family ------------------------------------------------------- */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int tarone_family(const double *min_log_p, size_t n, double alpha)
{
    if (n == 0)
        return 1;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return (int)n; /* Bonferroni over all of them: never too lenient */
    memcpy(s, min_log_p, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    int k = 1;
    for (; (size_t)k < n; k++) {
        double t = log(alpha / k);
        size_t lo = 0, hi = n; /* how many are <= t */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (s[mid] <= t)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo <= (size_t)k)
            break;
    }
    free(s);
    return k;
}
