/*
 * The tail verdict of a CPU entry (struct tail_comparison in compare.h):
 * how often each arm's latency lies at or above a threshold both are
 * judged at, by Fisher's exact test, with the ratio of the arms' 1e-9
 * levels from the tail fit (stats/tail.h) beside it. The threshold comes
 * from the baseline alone (the edge after its p99.9's bucket): a fixed
 * point, not one tuned on the data it judges. The test runs with the
 * metrics, entry by entry; the fits run afterwards on every entry of the
 * comparison at once, on threads (tail_analyse_many), so that 256 CPUs
 * wait for the slowest share of fits, not for their sum. Neither the
 * family nor --fail-if-worse counts any of it. Pure code.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare_internal.h"
#include "stats/exact_tests.h"

/* One more reason (text, then more, which may be NULL), after the others;
 * cut at the end of why. */
static void add_why2(struct tail_comparison *t, const char *text, const char *more)
{
    size_t len = strlen(t->why), room = sizeof t->why - len - 1;
    const char *part[3] = {len ? "; " : "", text, more ? more : ""};
    for (int k = 0; k < 3; k++)
        for (const char *c = part[k]; *c && room; room--)
            t->why[len++] = *c++;
    t->why[len] = '\0';
}

static void add_why(struct tail_comparison *t, const char *text)
{
    add_why2(t, text, NULL);
}

/* The pooled buckets of one side as the tail analysis takes them. */
static int keep_side(const struct pooled *p, struct tail_pending *keep, int s)
{
    keep->bins[s] = NULL;
    keep->nbins[s] = 0;
    keep->overflow[s] = 0;
    keep->max_ns[s] = -1;
    if (!p->present)
        return 0;
    keep->bins[s] = malloc((p->d.nbins ? p->d.nbins : 1) * sizeof *keep->bins[s]);
    if (!keep->bins[s])
        return -1;
    for (size_t i = 0; i < p->d.nbins; i++)
        keep->bins[s][i] = (struct tail_bin){p->d.bins[i].lo, p->d.bins[i].hi, p->d.bins[i].count};
    keep->nbins[s] = p->d.nbins;
    keep->overflow[s] = p->d.overflow;
    keep->max_ns[s] = p->d.max_ns;
    return 0;
}

/* The lower edge of the bucket after the one holding the p99.9 of d (the
 * nearest rank, as run reports it); -1 when that rank lies beyond the
 * histogram's range. The buckets are one grid in every document, so no
 * bucket of either side straddles the edge. */
static int64_t shared_threshold(const struct hdist *d)
{
    double x = 0.999 * (double)d->n;
    uint64_t rank = (uint64_t)ceil(x - x * 8 * 2.220446049250313e-16), seen = 0;
    if (rank < 1)
        rank = 1;
    for (size_t i = 0; i < d->nbins; i++) {
        seen += d->bins[i].count;
        if (seen >= rank)
            return d->bins[i].hi + 1;
    }
    return -1;
}

void compare_tail_test(const struct ctx *x, struct tail_comparison *t, struct tail_pending *keep)
{
    const struct pooled *pa = &x->a->dist[DIST_LATENCY], *pb = &x->b->dist[DIST_LATENCY];
    memset(t, 0, sizeof *t);
    t->present = true;
    t->threshold_ns = -1;
    t->verdict = VERDICT_INSUFFICIENT;
    t->level_a = t->level_b = t->ratio = NAN;
    if (keep_side(pa, keep, 0) != 0 || keep_side(pb, keep, 1) != 0) {
        add_why(t, "out of memory");
        return;
    }
    if (!pa->present || !pb->present || pa->d.n == 0 || pb->d.n == 0) {
        add_why(t, "a side has no latency histogram with samples");
        return;
    }
    t->n_a = pa->d.n;
    t->n_b = pb->d.n;
    t->threshold_ns = shared_threshold(&pa->d);
    if (t->threshold_ns < 0) {
        add_why(t, "the baseline's p99.9 lies beyond the histogram's range");
        return;
    }
    /* at or above the edge: above the last value of the bucket before it */
    t->exceed_a =
        tail_count_above(keep->bins[0], keep->nbins[0], keep->overflow[0], t->threshold_ns - 1);
    t->exceed_b =
        tail_count_above(keep->bins[1], keep->nbins[1], keep->overflow[1], t->threshold_ns - 1);
    struct exact_p p = fisher_test(t->exceed_a, t->n_a, t->exceed_b, t->n_b);
    t->has_p = true;
    t->log_p = fmin(0, p.log_p);
    t->p_value = exp(t->log_p);
    t->min_log_p = fmin(t->log_p, p.min_log_p);
    double rate_a = (double)t->exceed_a / (double)t->n_a,
           rate_b = (double)t->exceed_b / (double)t->n_b;
    if (t->min_log_p > log(x->alpha)) {
        if (t->exceed_a * t->n_b == t->exceed_b * t->n_a) {
            t->verdict = VERDICT_SAME; /* nothing happened on either side */
        } else {
            char why[128];
            snprintf(why, sizeof why,
                     "too few exceedances: the smallest p is %.3g, above the level %.3g",
                     exp(t->min_log_p), x->alpha);
            add_why(t, why);
        }
        return;
    }
    if (t->log_p >= log(x->alpha))
        t->verdict = VERDICT_SAME;
    else
        t->verdict = rate_b > rate_a ? VERDICT_WORSE : VERDICT_BETTER;
}

void compare_tail_pending_free(struct tail_pending *keep, int n)
{
    for (int e = 0; keep && e < n; e++) {
        free(keep[e].bins[0]);
        free(keep[e].bins[1]);
    }
    free(keep);
}

static int64_t arm_interval_ns(const struct compare_arm *arm)
{
    for (int r = 0; r < arm->nruns; r++)
        if (arm->runs[r].interval_ns > 0)
            return arm->runs[r].interval_ns;
    return 1000000; /* unknown: only the per-hour figures, unused here, depend on it */
}

static double arm_duration_s(const struct compare_arm *arm)
{
    double s = 0;
    for (int r = 0; r < arm->nruns; r++)
        s += arm->runs[r].duration_s;
    return s;
}

/* The 1e-9 level of one fit with its interval; false with the reason. */
static bool level_of(const struct tail_input *in, const struct tail_result *r, const char *err,
                     struct tail_value *v, char *why, size_t len)
{
    if (err[0]) {
        snprintf(why, len, "%s", err);
        return false;
    }
    if (r->verdict != TAIL_ESTIMATE) {
        snprintf(why, len, "cannot estimate: %s", r->reason);
        return false;
    }
    *v = (struct tail_value){NAN, NAN, NAN};
    for (size_t i = 0; i < r->nestimates; i++)
        if (r->estimates[i].probability == COMPARE_TAIL_P)
            *v = r->estimates[i].ns;
    if (isnan(v->value))
        *v = tail_level(in, r, COMPARE_TAIL_P);
    if (!(v->value > 0) || !isfinite(v->value)) {
        snprintf(why, len, "no 1e-9 level from its fit");
        return false;
    }
    return true;
}

static void set_ratio(struct tail_comparison *t, struct tail_value a, struct tail_value b)
{
    t->has_levels = true;
    t->level_a = a.value, t->level_a_lo = a.lo, t->level_a_hi = a.hi;
    t->level_b = b.value, t->level_b_lo = b.lo, t->level_b_hi = b.hi;
    t->ratio = b.value / a.value;
    /* conservative: the lowest B against the highest A, and the other way */
    t->ratio_lo = isnan(b.lo) || isnan(a.hi) ? NAN : isinf(a.hi) ? 0 : b.lo / a.hi;
    t->ratio_hi = isnan(b.hi) || isnan(a.lo)   ? NAN
                  : isinf(b.hi) || !(a.lo > 0) ? INFINITY
                                               : b.hi / a.lo;
}

void tail_fit_cache_free(struct tail_fit_cache *c)
{
    free(c->cpu);
    free(c->res);
    free(c->err);
    memset(c, 0, sizeof *c);
}

/* The cached fit of the baseline's entry cpu at level, or -1. */
static int cache_find(const struct tail_fit_cache *c, int cpu, double level)
{
    for (int i = 0; c && c->level == level && i < c->n; i++)
        if (c->cpu[i] == cpu)
            return i;
    return -1;
}

/* Keeps the baseline's fit of entry cpu; a cache that is full or out of
 * memory only forgets (the fit is redone next time). */
static void cache_keep(struct tail_fit_cache *c, int cpu, double level,
                       const struct tail_result *res, const char *err)
{
    if (!c)
        return;
    if (c->level != level)
        c->n = 0, c->level = level;
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 64;
        int *ids = realloc(c->cpu, (size_t)cap * sizeof *ids);
        if (ids)
            c->cpu = ids;
        struct tail_result *r = realloc(c->res, (size_t)cap * sizeof *r);
        if (r)
            c->res = r;
        char(*e)[TAIL_ERR_LEN] = realloc(c->err, (size_t)cap * sizeof *e);
        if (e)
            c->err = e;
        if (!ids || !r || !e)
            return;
        c->cap = cap;
    }
    c->cpu[c->n] = cpu;
    c->res[c->n] = *res;
    snprintf(c->err[c->n], TAIL_ERR_LEN, "%s", err);
    c->n++;
}

int compare_tail_levels(const struct compare_arm *base, const struct compare_arm *other,
                        double level, struct tail_pending *keep, struct cpu_comparison *cpu, int n,
                        struct tail_fit_cache *cache)
{
    size_t k = 2 * (size_t)n, m = 0;
    struct tail_input *in = calloc(k ? k : 1, sizeof *in);
    struct tail_result *out = calloc(k ? k : 1, sizeof *out);
    char(*err)[TAIL_ERR_LEN] = calloc(k ? k : 1, sizeof *err);
    /* the inputs to fit now, compacted, and where their results go */
    struct tail_input *fit_in = calloc(k ? k : 1, sizeof *fit_in);
    struct tail_result *fit_out = calloc(k ? k : 1, sizeof *fit_out);
    char(*fit_err)[TAIL_ERR_LEN] = calloc(k ? k : 1, sizeof *fit_err);
    size_t *to = calloc(k ? k : 1, sizeof *to);
    int rc = -1;
    if (!in || !out || !err || !fit_in || !fit_out || !fit_err || !to)
        goto done;
    static const double probability[1] = {COMPARE_TAIL_P};
    for (int e = 0; e < n; e++)
        for (int s = 0; s < 2; s++) {
            const struct compare_arm *arm = s ? other : base;
            size_t i = 2 * (size_t)e + (size_t)s;
            in[i] = (struct tail_input){
                .bins = keep[e].bins[s],
                .nbins = keep[e].nbins[s],
                .overflow = keep[e].overflow[s],
                .max_ns = keep[e].max_ns[s],
                .interval_ns = arm_interval_ns(arm),
                .budget_ns = -1,
                .threshold_ns = -1,
                .probabilities = probability,
                .nprobabilities = 1,
                /* each level at 1 - level / 2: the ratio's interval holds
                 * with at least 1 - level */
                .confidence = 1 - level / 2,
                .duration_s = arm_duration_s(arm),
            };
            int c = s == 0 ? cache_find(cache, cpu[e].cpu, level) : -1;
            if (c >= 0) {
                out[i] = cache->res[c];
                snprintf(err[i], TAIL_ERR_LEN, "%s", cache->err[c]);
            } else if (keep[e].nbins[s] > 0) {
                fit_in[m] = in[i];
                to[m++] = i;
            }
        }
    tail_analyse_many(fit_in, fit_out, m, 0, fit_err);
    for (size_t j = 0; j < m; j++) {
        out[to[j]] = fit_out[j];
        snprintf(err[to[j]], TAIL_ERR_LEN, "%s", fit_err[j]);
        if (to[j] % 2 == 0)
            cache_keep(cache, cpu[to[j] / 2].cpu, level, &fit_out[j], fit_err[j]);
    }
    for (int e = 0; e < n; e++) {
        struct tail_comparison *t = &cpu[e].tail;
        struct tail_value v[2];
        char why[2][300];
        bool ok[2];
        for (int s = 0; s < 2; s++)
            ok[s] = keep[e].nbins[s] > 0 && level_of(&in[2 * e + s], &out[2 * e + s],
                                                     err[2 * e + s], &v[s], why[s], sizeof why[s]);
        if (ok[0] && ok[1]) {
            set_ratio(t, v[0], v[1]);
            continue;
        }
        for (int s = 0; s < 2; s++)
            if (!ok[s])
                add_why2(t, s ? "1e-9 level of the other arm: " : "1e-9 level of the baseline: ",
                         keep[e].nbins[s] ? why[s] : "no histogram");
    }
    rc = 0;
done:
    free(in);
    free(out);
    free(err);
    free(fit_in);
    free(fit_out);
    free(fit_err);
    free(to);
    return rc;
}
