/*
 * The tests of hist_tests.h. Ranks are computed per bucket: the values of
 * one bucket are tied and share the midrank of the bucket in the combined
 * sample, so the Brunner-Munzel sums run over buckets, not values. Long
 * doubles keep rank sums of billions of values exact enough. Student's t
 * comes from the regularized incomplete beta function (continued fraction
 * by Lentz's method), its tails in log space. A quantile's interval reads
 * the order statistics' ranks off exact_tests.h and takes the outer edges
 * of the buckets that hold them, so the bucket width is inside it.
 */
#include "stats/hist_tests.h"

#include "stats/exact_tests.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- quantiles ----------------------------------------------------------- */

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

/* The edges of the bucket holding rank r (1-based) of d: values of that
 * rank lie in [*lo, *hi]. Ranks 1 and n are the exact minimum and maximum;
 * an overflow rank lies above the last bucket, up to the maximum. */
static void rank_edges(const struct hdist *d, uint64_t r, int64_t min_ns, int64_t *lo, int64_t *hi)
{
    if (r <= 1) {
        *lo = *hi = min_ns;
        return;
    }
    if (r >= d->n) {
        *lo = *hi = d->max_ns;
        return;
    }
    uint64_t seen = 0;
    int64_t top = min_ns;
    for (size_t j = 0; j < d->nbins; j++) {
        seen += d->bins[j].count;
        top = d->bins[j].hi;
        if (seen >= r) {
            *lo = d->bins[j].lo < min_ns ? min_ns : d->bins[j].lo;
            *hi = d->bins[j].hi > d->max_ns ? d->max_ns : d->bins[j].hi;
            return;
        }
    }
    *lo = top + 1 < d->max_ns ? top + 1 : d->max_ns;
    *hi = d->max_ns;
}

int hdist_quantile_ci(const struct hdist *d, double p, double gamma, int64_t min_ns, double *lo_ns,
                      double *hi_ns)
{
    if (d->n == 0)
        return -1;
    int64_t rl, ru, e_lo, e_hi;
    quantile_ci_ranks(d->n, p / 100, gamma, &rl, &ru);
    int bounded = 0;
    if (rl >= 1) {
        rank_edges(d, (uint64_t)rl, min_ns, &e_lo, &e_hi);
        *lo_ns = (double)e_lo;
        bounded |= 1;
    } else {
        *lo_ns = 0;
    }
    if (ru <= (int64_t)d->n) {
        rank_edges(d, (uint64_t)ru, min_ns, &e_lo, &e_hi);
        *hi_ns = (double)e_hi;
        bounded |= 2;
    } else {
        *hi_ns = INFINITY;
    }
    return bounded == 3 ? 0 : 1;
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
    for (int m = 1; m <= 5000; m++) {
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

/* ln I_x(a, b): in log space, so that a far tail is a number, not 0. */
static double log_incomplete_beta(double a, double b, double x)
{
    if (x <= 0)
        return -INFINITY;
    if (x >= 1)
        return 0;
    double log_front = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1) / (a + b + 2))
        return log_front + log(beta_cf(a, b, x)) - log(a);
    return log1p(-exp(log_front) * beta_cf(b, a, 1 - x) / b);
}

double student_t_log_sf(double t, double df)
{
    if (isnan(t) || df <= 0)
        return NAN;
    if (df > 1e5) /* the t tail within a few percent of the normal's */
        return normal_log_sf(t);
    if (t < 0)
        return log1p(-exp(student_t_log_sf(-t, df)));
    return log(0.5) + log_incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double student_t_cdf(double t, double df)
{
    if (isnan(t) || df <= 0)
        return NAN;
    return exp(student_t_log_sf(-t, df));
}

/* ln of the two-sided p of t: the tail computed directly, never 1 - cdf,
 * which loses every p below 1e-16. */
static double two_sided_log(double t, double df)
{
    return fmin(0, log(2) + student_t_log_sf(fabs(t), df));
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
        out->log_p = rb == ra ? 0 : -INFINITY;
        return 0;
    }
    out->statistic = (double)(na * nb * (rb - ra) / ((na + nb) * sqrtl(v)));
    long double den = (na > 1 ? (na * sa) * (na * sa) / (na - 1) : 0) +
                      (nb > 1 ? (nb * sb) * (nb * sb) / (nb - 1) : 0);
    out->df = den > 0 ? (double)(v * v / den) : (double)(na + nb - 2);
    out->log_p = two_sided_log(out->statistic, out->df);
    out->p_value = exp(out->log_p);
    return 0;
}

/* ---- counts -------------------------------------------------------------- */

double beats_max_log_p(uint64_t k, uint64_t n_a, uint64_t n_b)
{
    if (k == 0)
        return 0;
    if (k > n_b)
        return -INFINITY;
    /* C(n_b, k) / C(n_a + n_b, k) */
    double nb = (double)n_b, n = (double)n_a + (double)n_b, kk = (double)k;
    return lgamma(nb + 1) - lgamma(nb - kk + 1) - lgamma(n + 1) + lgamma(n - kk + 1);
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
    out->se = sqrt(se2);
    if (se2 <= 0) {
        /* no spread on either side: no evidence either way */
        out->t = 0;
        out->df = (double)(n_a + n_b - 2);
        out->p_value = 1;
        out->log_p = 0;
        return 0;
    }
    out->t = diff / out->se;
    out->df = se2 * se2 / (sa * sa / (double)(n_a - 1) + sb * sb / (double)(n_b - 1));
    out->log_p = two_sided_log(out->t, out->df);
    out->p_value = exp(out->log_p);
    return 0;
}
