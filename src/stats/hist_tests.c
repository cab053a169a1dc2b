/*
 * The tests of hist_tests.h. Ranks are computed per bucket: the values of
 * one bucket are tied and share the midrank of the bucket in the combined
 * sample, so the Brunner-Munzel sums run over buckets, not values. Long
 * doubles keep rank sums of billions of values exact enough. Student's t
 * comes from the regularized incomplete beta function (continued fraction
 * by Lentz's method).
 */
#include "stats/hist_tests.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- random numbers ------------------------------------------------------ */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static double uniform(uint64_t *s)
{
    return ((double)(splitmix64(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t *s)
{
    double u = uniform(s), v = uniform(s);
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* Gamma(a, 1) by Marsaglia and Tsang; a < 1 through Gamma(a + 1) U^(1/a). */
static double gamma_draw(double a, uint64_t *s)
{
    if (a < 1)
        return gamma_draw(a + 1, s) * pow(uniform(s), 1 / a);
    double d = a - 1.0 / 3, c = 1 / sqrt(9 * d);
    for (;;) {
        double x = normal(s), v = 1 + c * x;
        if (v <= 0)
            continue;
        v = v * v * v;
        double u = uniform(s);
        if (u < 1 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1 - v + log(v)))
            return d * v;
    }
}

static double beta_draw(double a, double b, uint64_t *s)
{
    double x = gamma_draw(a, s), y = gamma_draw(b, s);
    return x / (x + y);
}

/* ---- quantiles ----------------------------------------------------------- */

/* The value at continuous rank position r in (0, n]: the midpoint of the
 * bucket that holds it, as hdist_percentile reports values, so that a
 * bootstrap interval and the point estimate are on the same grid. */
static double value_at(const struct hdist *d, double r)
{
    double cum = 0;
    for (size_t j = 0; j < d->nbins; j++) {
        double c = (double)d->bins[j].count;
        if (c > 0 && r <= cum + c) {
            double mid = (double)(d->bins[j].lo + (d->bins[j].hi - d->bins[j].lo) / 2);
            return mid > (double)d->max_ns ? (double)d->max_ns : mid;
        }
        cum += c;
    }
    return (double)d->max_ns;
}

int64_t hdist_percentile(const struct hdist *d, double p, int64_t min_ns)
{
    if (d->n == 0)
        return 0;
    double x = p * (double)d->n / 100.0;
    double r = ceil(x - x * 8 * 2.220446049250313e-16);
    uint64_t rank = r < 1 ? 1 : r >= (double)d->n ? d->n : (uint64_t)r;
    if (rank == 1)
        return min_ns;
    if (rank == d->n)
        return d->max_ns;
    uint64_t seen = 0;
    for (size_t j = 0; j < d->nbins; j++) {
        seen += d->bins[j].count;
        if (seen < rank)
            continue;
        int64_t mid = d->bins[j].lo + (d->bins[j].hi - d->bins[j].lo) / 2;
        return mid < min_ns ? min_ns : mid > d->max_ns ? d->max_ns : mid;
    }
    return d->max_ns;
}

double hdist_resolution(const struct hdist *d, double p)
{
    if (d->n == 0)
        return 0;
    double k = ceil(p / 100 * (double)d->n), cum = 0;
    for (size_t j = 0; j < d->nbins; j++) {
        cum += (double)d->bins[j].count;
        if (cum >= k) {
            const struct hbin *b = &d->bins[j];
            return b->hi > b->lo && b->lo > 0 ? (double)(b->hi - b->lo + 1) / (double)b->lo : 0;
        }
    }
    return 0;
}

uint64_t hdist_above(const struct hdist *d, int64_t threshold_ns)
{
    uint64_t n = d->overflow;
    for (size_t j = 0; j < d->nbins; j++)
        if (d->bins[j].lo > threshold_ns)
            n += d->bins[j].count;
    /* the bucket holding the threshold counts as tied with it */
    return n;
}

/* ---- the rank test ------------------------------------------------------- */

/* Student's t and the incomplete beta function. */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    d = fabs(d) < tiny ? tiny : d;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
        d = 1 + aa * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
        d = 1 + aa * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-14)
            break;
    }
    return h;
}

/* I_x(a, b) */
static double incomplete_beta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2))
        return front * beta_cf(a, b, x) / a;
    return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double student_t_cdf(double t, double df)
{
    if (isnan(t) || df <= 0)
        return NAN;
    if (df > 1e7)
        return 0.5 * erfc(-t / sqrt(2));
    double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
    return t > 0 ? 1 - tail : tail;
}

static double two_sided(double t, double df)
{
    double p = 2 * (1 - student_t_cdf(fabs(t), df));
    return p < 0 ? 0 : p > 1 ? 1 : p;
}

/* The buckets of both sides in order, aligned where they are the same
 * bucket: a[i] and b[i] count the values of A and B in the i-th. */
struct merged {
    size_t n;
    uint64_t *a, *b;
};

static int merge_buckets(const struct hdist *x, const struct hdist *y, struct merged *m)
{
    size_t cap = x->nbins + y->nbins + 1;
    m->a = calloc(cap, sizeof *m->a);
    m->b = calloc(cap, sizeof *m->b);
    m->n = 0;
    if (!m->a || !m->b)
        return -1;
    size_t i = 0, j = 0;
    while (i < x->nbins || j < y->nbins) {
        bool take_x = j >= y->nbins || (i < x->nbins && x->bins[i].lo <= y->bins[j].lo);
        bool take_y = i >= x->nbins || (j < y->nbins && y->bins[j].lo <= x->bins[i].lo);
        if (take_x && take_y && x->bins[i].hi != y->bins[j].hi)
            take_y = false; /* same start, other bucket: x's first */
        if (take_x)
            m->a[m->n] = x->bins[i++].count;
        if (take_y)
            m->b[m->n] = y->bins[j++].count;
        m->n++;
    }
    m->a[m->n] = x->overflow; /* one tied bucket above all */
    m->b[m->n] = y->overflow;
    m->n++;
    return 0;
}

int rank_test(const struct hdist *a, const struct hdist *b, struct rank_result *out)
{
    memset(out, 0, sizeof *out);
    if (a->n == 0 || b->n == 0)
        return -1;
    struct merged m;
    if (merge_buckets(a, b, &m) != 0) {
        free(m.a);
        free(m.b);
        return -1;
    }
    long double na = (long double)a->n, nb = (long double)b->n;
    /* pass 1: mean combined ranks */
    long double cum = 0, sum_ra = 0, sum_rb = 0;
    for (size_t i = 0; i < m.n; i++) {
        long double t = (long double)m.a[i] + (long double)m.b[i];
        long double mid = cum + (t + 1) / 2;
        sum_ra += (long double)m.a[i] * mid;
        sum_rb += (long double)m.b[i] * mid;
        cum += t;
    }
    long double ra = sum_ra / na, rb = sum_rb / nb;
    /* pass 2: the placements' variances */
    long double ca = 0, cb = 0, ssa = 0, ssb = 0;
    cum = 0;
    for (size_t i = 0; i < m.n; i++) {
        long double ta = (long double)m.a[i], tb = (long double)m.b[i], t = ta + tb;
        long double mid = cum + (t + 1) / 2;
        if (ta > 0) {
            long double own = ca + (ta + 1) / 2; /* the rank within A */
            long double dev = mid - own - ra + (na + 1) / 2;
            ssa += ta * dev * dev;
        }
        if (tb > 0) {
            long double own = cb + (tb + 1) / 2;
            long double dev = mid - own - rb + (nb + 1) / 2;
            ssb += tb * dev * dev;
        }
        ca += ta;
        cb += tb;
        cum += t;
    }
    free(m.a);
    free(m.b);
    out->p_greater = (double)((rb - (nb + 1) / 2) / na);
    long double sa = na > 1 ? ssa / (na - 1) : 0, sb = nb > 1 ? ssb / (nb - 1) : 0;
    long double v = na * sa + nb * sb;
    if (v <= 0) {
        /* no placement varies: complete separation, or all tied */
        out->statistic = rb > ra ? INFINITY : rb < ra ? -INFINITY : 0;
        out->df = na + nb - 2;
        out->p_value = rb == ra ? 1 : 0;
        return 0;
    }
    out->statistic = (double)(na * nb * (rb - ra) / ((na + nb) * sqrtl(v)));
    long double den = (na > 1 ? (na * sa) * (na * sa) / (na - 1) : 0) +
                      (nb > 1 ? (nb * sb) * (nb * sb) / (nb - 1) : 0);
    out->df = den > 0 ? (double)(v * v / den) : (double)(na + nb - 2);
    out->p_value = two_sided(out->statistic, out->df);
    return 0;
}

/* ---- the bootstrap of a quantile ratio ---------------------------------- */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int quantile_ratio_ci(const struct hdist *a, const struct hdist *b, double p, double alpha,
                      int reps, uint64_t seed, struct ratio_ci *out)
{
    memset(out, 0, sizeof *out);
    if (a->n == 0 || b->n == 0 || reps < 10)
        return -1;
    double ka = ceil(p / 100 * (double)a->n), kb = ceil(p / 100 * (double)b->n);
    ka = ka < 1 ? 1 : ka;
    kb = kb < 1 ? 1 : kb;
    double *r = malloc((size_t)reps * sizeof *r);
    if (!r)
        return -1;
    uint64_t s = seed;
    int below = 0, above = 0, n = 0;
    for (int i = 0; i < reps; i++) {
        double ua = beta_draw(ka, (double)a->n + 1 - ka, &s);
        double ub = beta_draw(kb, (double)b->n + 1 - kb, &s);
        double qa = value_at(a, ua * (double)a->n), qb = value_at(b, ub * (double)b->n);
        if (qa <= 0)
            continue;
        r[n] = qb / qa;
        below += r[n] < 1;
        above += r[n] > 1;
        n++;
    }
    if (n < reps / 2) {
        free(r);
        return -1;
    }
    qsort(r, (size_t)n, sizeof *r, cmp_double);
    size_t lo = (size_t)floor(alpha / 2 * (n - 1)), hi = (size_t)ceil((1 - alpha / 2) * (n - 1));
    out->lo = r[lo];
    out->hi = r[hi < (size_t)n ? hi : (size_t)n - 1];
    int other = below < above ? below : above;
    out->p_value = 2.0 * (other + 1) / (n + 1);
    if (out->p_value > 1)
        out->p_value = 1;
    free(r);
    return 0;
}

/* ---- counts -------------------------------------------------------------- */

static double log_binom_pmf(uint64_t k, uint64_t n, double p)
{
    if (p <= 0)
        return k == 0 ? 0 : -INFINITY;
    if (p >= 1)
        return k == n ? 0 : -INFINITY;
    return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) +
           (double)k * log(p) + (double)(n - k) * log1p(-p);
}

double rate_test(uint64_t k_a, uint64_t n_a, uint64_t k_b, uint64_t n_b)
{
    uint64_t k = k_a + k_b;
    if (k == 0 || n_a + n_b == 0)
        return 1;
    double p = (double)n_b / ((double)n_a + (double)n_b);
    if (k > 200000) {
        /* normal approximation with continuity correction */
        double mean = (double)k * p, sd = sqrt((double)k * p * (1 - p));
        double z = (fabs((double)k_b - mean) - 0.5) / sd;
        return z <= 0 ? 1 : erfc(z / sqrt(2));
    }
    double ref = log_binom_pmf(k_b, k, p) + 1e-9;
    double sum = 0;
    for (uint64_t i = 0; i <= k; i++) {
        double l = log_binom_pmf(i, k, p);
        if (l <= ref)
            sum += exp(l);
    }
    return sum > 1 ? 1 : sum;
}

double beats_max_p(uint64_t k, uint64_t n_a, uint64_t n_b)
{
    if (k == 0)
        return 1;
    if (k > n_b)
        return 0;
    double l = 0;
    for (uint64_t i = 0; i < k; i++)
        l += log((double)(n_b - i)) - log((double)(n_a + n_b - i));
    return exp(l);
}

/* ---- Welch --------------------------------------------------------------- */

static void mean_var(const double *x, size_t n, double *mean, double *var)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m += x[i];
    m /= (double)n;
    double v = 0;
    for (size_t i = 0; i < n; i++)
        v += (x[i] - m) * (x[i] - m);
    *mean = m;
    *var = n > 1 ? v / (double)(n - 1) : 0;
}

int welch_test(const double *a, size_t n_a, const double *b, size_t n_b, struct welch_result *out)
{
    memset(out, 0, sizeof *out);
    if (n_a < 2 || n_b < 2)
        return -1;
    double va, vb;
    mean_var(a, n_a, &out->mean_a, &va);
    mean_var(b, n_b, &out->mean_b, &vb);
    double sa = va / (double)n_a, sb = vb / (double)n_b, se2 = sa + sb;
    double diff = out->mean_b - out->mean_a;
    if (se2 <= 0) {
        out->t = diff > 0 ? INFINITY : diff < 0 ? -INFINITY : 0;
        out->df = (double)(n_a + n_b - 2);
        out->p_value = diff == 0 ? 1 : 0;
        return 0;
    }
    out->t = diff / sqrt(se2);
    out->df = se2 * se2 / (sa * sa / (double)(n_a - 1) + sb * sb / (double)(n_b - 1));
    out->p_value = two_sided(out->t, out->df);
    return 0;
}
