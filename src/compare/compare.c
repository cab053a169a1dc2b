/*
 * The comparison of two arms (see compare.h). Per CPU entry: each side's
 * runs are pooled into one histogram per distribution (the buckets are the
 * same log-linear ones in every document, so pooling sums counts); the
 * per-run figures stay for the between-run test. The metrics and their
 * tests are compare_metrics.c (noise documents: compare_noise.c).
 * compare_all runs the comparison twice: once to collect what every test
 * could reach (Tarone's family), once to decide at alpha / family.
 */
#include "compare/compare.h"
#include "compare/compare_internal.h"

#include "stats/exact_tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_REPS 4000

static const struct {
    const char *key, *unit;
    bool percentile;
} metric_info[COMPARE_METRICS] = {
    [METRIC_SAMPLES] = {"samples", "count", false},
    [METRIC_MISSED] = {"missed", "rate", false},
    [METRIC_DEADLINE_MISSES] = {"deadline_misses", "rate", false},
    [METRIC_MIN] = {"min", "ns", false},
    [METRIC_P50] = {"p50", "ns", true},
    [METRIC_P90] = {"p90", "ns", true},
    [METRIC_P99] = {"p99", "ns", true},
    [METRIC_P999] = {"p999", "ns", true},
    [METRIC_P9999] = {"p9999", "ns", true},
    [METRIC_MAX] = {"max", "ns", false},
    [METRIC_EXEC_P50] = {"exec_p50", "ns", true},
    [METRIC_EXEC_P99] = {"exec_p99", "ns", true},
    [METRIC_EXEC_MAX] = {"exec_max", "ns", false},
    [METRIC_RESPONSE_P50] = {"response_p50", "ns", true},
    [METRIC_RESPONSE_P99] = {"response_p99", "ns", true},
    [METRIC_RESPONSE_MAX] = {"response_max", "ns", false},
    [METRIC_EXCEED_P999] = {"exceed_p999", "rate", false},
    [METRIC_EXCEED_BUDGET] = {"exceed_budget", "rate", false},
    [METRIC_NOISE_SHARE] = {"noise_share", "rate", false},
    [METRIC_GAP_RATE] = {"gaps_per_s", "per_s", false},
};

const char *compare_metric_key(enum compare_metric m)
{
    return metric_info[m].key;
}

const char *compare_metric_unit(enum compare_metric m)
{
    return metric_info[m].unit;
}

bool compare_metric_is_percentile(enum compare_metric m)
{
    return metric_info[m].percentile;
}

const char *verdict_name(enum verdict v)
{
    return v == VERDICT_WORSE          ? "worse"
           : v == VERDICT_BETTER       ? "better"
           : v == VERDICT_SAME         ? "no-difference"
           : v == VERDICT_INSUFFICIENT ? "insufficient-data"
                                       : "n/a";
}

/* ---- one side of one CPU entry ----------------------------------------- */

const struct result_bin *compare_dist_bins(const struct result_cpu *c, enum dist_id id, int *nbins,
                                           uint64_t *overflow, const struct result_latency **st)
{
    if (id == DIST_LATENCY) {
        *nbins = c->nbins;
        *overflow = c->overflow;
        *st = &c->latency;
        return c->bins;
    }
    const struct result_dist *d = id == DIST_EXEC ? &c->exec : &c->response;
    *nbins = d->present ? d->nbins : 0;
    *overflow = d->present ? d->overflow : 0;
    *st = d->present ? &d->stats : NULL;
    return d->present ? d->bins : NULL;
}

/* Sums the runs' buckets of one distribution into one ascending list.
 * Execution and response times count only where every run had a workload
 * or counters: without them they time the loop's own bookkeeping. */
static int pool(struct side *s, const struct compare_arm *arm, enum dist_id id)
{
    struct pooled *p = &s->dist[id];
    for (int r = 0; id != DIST_LATENCY && r < arm->nruns; r++)
        if (!arm->runs[r].control_task)
            return 0;
    size_t cap = 0;
    p->present = true;
    p->min_ns = INT64_MAX;
    p->d.max_ns = INT64_MIN;
    for (int r = 0; r < s->n; r++) {
        int nb;
        uint64_t of;
        const struct result_latency *st;
        compare_dist_bins(s->run[r], id, &nb, &of, &st);
        if (!st || !st->known) {
            p->present = false;
            return 0;
        }
        cap += (size_t)nb;
        p->min_ns = st->min < p->min_ns ? st->min : p->min_ns;
        p->d.max_ns = st->max > p->d.max_ns ? st->max : p->d.max_ns;
    }
    p->bins = calloc(cap ? cap : 1, sizeof *p->bins);
    if (!p->bins)
        return -1;
    size_t n = 0;
    for (int r = 0; r < s->n; r++) {
        int nb;
        uint64_t of;
        const struct result_latency *st;
        const struct result_bin *b = compare_dist_bins(s->run[r], id, &nb, &of, &st);
        p->d.overflow += of;
        p->d.n += of;
        for (int i = 0; i < nb; i++) {
            /* insertion into the sorted list; runs have the same buckets, so
             * most land on an existing one */
            size_t lo = 0, hi = n;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (p->bins[mid].lo < b[i].lo)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < n && p->bins[lo].lo == b[i].lo && p->bins[lo].hi == b[i].hi) {
                p->bins[lo].count += b[i].count;
            } else {
                memmove(&p->bins[lo + 1], &p->bins[lo], (n - lo) * sizeof *p->bins);
                p->bins[lo] = (struct hbin){b[i].lo, b[i].hi, b[i].count};
                n++;
            }
            p->d.n += b[i].count;
        }
    }
    p->d.bins = p->bins;
    p->d.nbins = n;
    return 0;
}

static void side_free(struct side *s)
{
    for (int k = 0; k < DISTS; k++)
        free(s->dist[k].bins);
    free(s->run);
}

/* The runs' entries for CPU cpu (-1: all). 0, or -1 when a run lacks it. */
static int side_init(struct side *s, const struct compare_arm *arm, int cpu)
{
    memset(s, 0, sizeof *s);
    s->n = arm->nruns;
    s->run = calloc((size_t)arm->nruns, sizeof *s->run);
    if (!s->run)
        return -1;
    s->has_deadline_misses = true;
    for (int r = 0; r < arm->nruns; r++) {
        const struct result_doc *d = &arm->runs[r];
        const struct result_cpu *c = cpu < 0 ? &d->all : NULL;
        for (int i = 0; !c && i < d->ncpus; i++)
            if (d->cpus[i].cpu == cpu)
                c = &d->cpus[i];
        if (!c)
            return -1;
        s->run[r] = c;
        s->samples += c->samples;
        s->missed += c->missed;
        s->deadline_misses += c->deadline_misses;
        s->has_deadline_misses &= c->has_deadline_misses;
        s->noise_ns += c->noise.noise_ns;
        s->measured_ns += c->noise.measured_ns;
    }
    for (int k = 0; k < DISTS; k++)
        if (pool(s, arm, (enum dist_id)k) != 0)
            return -1;
    return 0;
}

/* ---- the arms ----------------------------------------------------------- */

static bool every_run_has(const struct compare_arm *arm, int cpu)
{
    for (int r = 0; r < arm->nruns; r++) {
        bool found = false;
        for (int i = 0; i < arm->runs[r].ncpus && !found; i++)
            found = arm->runs[r].cpus[i].cpu == cpu;
        if (!found)
            return false;
    }
    return true;
}

/* Every run of both arms measured exactly one CPU: its entry is "all". */
static bool one_cpu_each(const struct compare_arm *a, const struct compare_arm *b)
{
    for (int k = 0; k < 2; k++) {
        const struct compare_arm *arm = k ? b : a;
        for (int r = 0; r < arm->nruns; r++)
            if (arm->runs[r].ncpus != 1)
                return false;
    }
    return true;
}

/* compare_arms with the baseline's tail fits kept in cache (NULL: none). */
static int compare_arms_cached(const struct compare_arm *base, const struct compare_arm *other,
                               const struct compare_config *cfg_in, struct tail_fit_cache *cache,
                               struct arm_comparison *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct compare_config cfg = *cfg_in;
    if (cfg.reps <= 0)
        cfg.reps = DEFAULT_REPS;
    if (!(cfg.alpha > 0 && cfg.alpha < 1))
        cfg.alpha = 0.05;
    if (!(cfg.level > 0 && cfg.level <= cfg.alpha))
        cfg.level = cfg.alpha;
    if (base->nruns < 1 || other->nruns < 1) {
        snprintf(err, errlen, "an arm without runs");
        return -1;
    }
    const struct result_doc *first = &base->runs[0];
    for (int k = 0; k < 2; k++) {
        const struct compare_arm *arm = k ? other : base;
        for (int r = 0; r < arm->nruns; r++)
            if (strcmp(arm->runs[r].kind, first->kind) != 0) {
                snprintf(err, errlen,
                         "a %s result and a %s result: compare runs with runs and "
                         "noise with noise",
                         first->kind, arm->runs[r].kind);
                return -1;
            }
    }
    out->noise = strcmp(first->kind, "noise") == 0;
    out->cpu = calloc((size_t)first->ncpus + 1, sizeof *out->cpu);
    if (!out->cpu) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int *ids = calloc((size_t)first->ncpus + 1, sizeof *ids);
    if (!ids) {
        arm_comparison_free(out);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int n = 0;
    for (int i = 0; i < first->ncpus; i++) {
        int cpu = first->cpus[i].cpu;
        if (every_run_has(base, cpu) && every_run_has(other, cpu))
            ids[n++] = cpu;
    }
    /* ascending */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && ids[j] < ids[j - 1]; j--) {
            int t = ids[j];
            ids[j] = ids[j - 1];
            ids[j - 1] = t;
        }
    out->budget_ns = cfg.budget_ns >= 0 ? cfg.budget_ns : first->budget_ns;
    out->between_runs = base->nruns >= 2 && other->nruns >= 2;
    /* one CPU in every run: its entry is the "all" entry, tested once */
    bool dup = n == 1 && one_cpu_each(base, other);
    struct tail_pending *keep = NULL;
    if (cfg.tail && !out->noise && !(keep = calloc((size_t)first->ncpus + 1, sizeof *keep))) {
        snprintf(err, errlen, "out of memory");
        arm_comparison_free(out);
        free(ids);
        return -1;
    }
    for (int e = dup ? 1 : 0; e <= n; e++) {
        int cpu = e < n ? ids[e] : -1;
        struct side a, b;
        int ra = side_init(&a, base, cpu), rb = side_init(&b, other, cpu);
        if (ra != 0 || rb != 0) {
            side_free(&a);
            side_free(&b);
            if (cpu >= 0)
                continue; /* cannot happen: every run has it */
            snprintf(err, errlen, "out of memory");
            compare_tail_pending_free(keep, out->ncpus);
            arm_comparison_free(out);
            free(ids);
            return -1;
        }
        struct ctx x = {&cfg,           &a,        &b,        base, other, cpu, out->between_runs,
                        out->budget_ns, cfg.level, out->noise};
        if (dup) {
            out->ncpus = 1; /* the CPU's entry, filled from "all" below */
            out->cpu[0].cpu = ids[0];
            out->cpu[0].duplicate = true;
        }
        struct cpu_comparison *c = &out->cpu[out->ncpus++];
        c->cpu = cpu;
        compare_cpu(&x, c);
        if (keep)
            compare_tail_test(&x, &c->tail, &keep[c - out->cpu]);
        side_free(&a);
        side_free(&b);
    }
    if (keep) {
        /* the fits of every entry at once, after the metrics */
        int e0 = dup ? 1 : 0;
        int rc = compare_tail_levels(base, other, cfg.level, keep + e0, out->cpu + e0,
                                     out->ncpus - e0, cache);
        compare_tail_pending_free(keep, out->ncpus);
        if (rc != 0) {
            snprintf(err, errlen, "out of memory");
            arm_comparison_free(out);
            free(ids);
            return -1;
        }
    }
    if (dup) {
        out->cpu[0] = out->cpu[1];
        out->cpu[0].cpu = ids[0];
        out->cpu[0].duplicate = true;
    }
    free(ids);
    out->verdict = out->cpu[out->ncpus - 1].verdict;
    if (n == 0 && err)
        snprintf(err, errlen, "no CPU measured in every run of both arms; only \"all\" compared");
    return 0;
}

int compare_arms(const struct compare_arm *base, const struct compare_arm *other,
                 const struct compare_config *cfg, struct arm_comparison *out, char *err,
                 size_t errlen)
{
    return compare_arms_cached(base, other, cfg, NULL, out, err, errlen);
}

void arm_comparison_free(struct arm_comparison *c)
{
    free(c->cpu);
    memset(c, 0, sizeof *c);
}

int compare_gate_worse(const struct arm_comparison *cmp, int n, double pct)
{
    int worse = 0;
    for (int a = 0; a < n; a++)
        for (int i = 0; i < cmp[a].ncpus; i++)
            for (int k = 0; k < COMPARE_METRICS; k++) {
                const struct metric_result *m = &cmp[a].cpu[i].m[k];
                worse += !cmp[a].cpu[i].duplicate && m->present &&
                         compare_metric_is_percentile((enum compare_metric)k) &&
                         m->verdict == VERDICT_WORSE && m->has_ratio && m->ratio > 1 + pct / 100;
            }
    return worse;
}

/* The tests of a comparison that count in its family: every tested
 * metric of every entry that is not a copy. */
static size_t collect_min_p(const struct arm_comparison *cmp, int n, double *out)
{
    size_t k = 0;
    for (int a = 0; a < n; a++)
        for (int i = 0; i < cmp[a].ncpus; i++) {
            const struct cpu_comparison *c = &cmp[a].cpu[i];
            if (c->duplicate)
                continue;
            for (int m = 0; m < COMPARE_METRICS; m++) {
                const struct metric_result *r = &c->m[m];
                if (!r->present || !r->has_p)
                    continue;
                if (out)
                    out[k] = r->min_log_p;
                k++;
            }
        }
    return k;
}

int compare_all(const struct compare_arm *arms, int narms, const struct compare_config *cfg,
                struct arm_comparison *out, struct compare_family *fam, char *err, size_t errlen)
{
    memset(fam, 0, sizeof *fam);
    struct compare_config c = *cfg;
    if (!(c.alpha > 0 && c.alpha < 1))
        c.alpha = 0.05;
    c.level = c.alpha;
    c.tail = false; /* the tail is no part of the family: decided in the second pass only */
    int done = 0;
    /* first pass: what each test could reach */
    for (int a = 1; a < narms; a++, done++)
        if (compare_arms(&arms[0], &arms[a], &c, &out[a - 1], err, errlen) != 0)
            goto fail;
    size_t n = collect_min_p(out, narms - 1, NULL);
    double *min_p = malloc((n ? n : 1) * sizeof *min_p);
    if (!min_p) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    collect_min_p(out, narms - 1, min_p);
    fam->candidates = (int)n;
    fam->family = tarone_family(min_p, n, c.alpha);
    free(min_p);
    fam->alpha = c.alpha;
    fam->level = c.alpha / fam->family;
    for (int a = 0; a < done; a++)
        arm_comparison_free(&out[a]);
    done = 0;
    /* second pass: every verdict at alpha / family */
    c.level = fam->level;
    c.tail = cfg->tail;
    /* the baseline's tail fits once, whatever the number of arms */
    struct tail_fit_cache cache = {0};
    for (int a = 1; a < narms; a++, done++)
        if (compare_arms_cached(&arms[0], &arms[a], &c, &cache, &out[a - 1], err, errlen) != 0) {
            tail_fit_cache_free(&cache);
            goto fail;
        }
    tail_fit_cache_free(&cache);
    fam->percentiles = fam->reachable = 0;
    for (int a = 0; a < narms - 1; a++)
        for (int i = 0; i < out[a].ncpus; i++)
            fam->reachable += out[a].cpu[i].duplicate ? 0 : out[a].cpu[i].tested;
    for (int a = 0; a < narms - 1; a++)
        for (int i = 0; i < out[a].ncpus; i++)
            for (int m = 0; m < COMPARE_METRICS; m++)
                fam->percentiles += !out[a].cpu[i].duplicate && out[a].cpu[i].m[m].present &&
                                    out[a].cpu[i].m[m].has_p &&
                                    out[a].cpu[i].m[m].verdict != VERDICT_INSUFFICIENT &&
                                    compare_metric_is_percentile((enum compare_metric)m);
    return 0;
fail:
    for (int a = 0; a < done; a++)
        arm_comparison_free(&out[a]);
    return -1;
}
