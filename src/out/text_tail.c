/*
 * The tail analysis for people (text_tail.h). One block per CPU entry,
 * "all CPUs" last: the verdict first (an estimate, or "cannot estimate"
 * with the reason and what to do), then what the fit stands on (threshold,
 * exceedances, shape and scale with their intervals and what the shape
 * means), the latencies at the asked probabilities, the budget, and the
 * checks as a table. Latencies are durations in the project's units
 * (beyond a minute in min, h, d, years); a bound the data do not give
 * reads "unbounded", one that could not be computed "n/a". The budget per
 * hour and per year is the expected count of cycles over it with its
 * interval, and the chance of at least one ("about 1" where it rounds to
 * 1). Every string goes out in its terminal form.
 */
#include "out/text_tail.h"

#include <math.h>
#include <string.h>

#include "common/safe_text.h"
#include "common/units.h"

/* A latency in ns as a duration ("152.3 us"; beyond a minute in min, h,
 * d or years: "20.2 h"), "unbounded" or "n/a". */
static const char *dur(double ns, char *buf, size_t len)
{
    if (isinf(ns) && ns > 0)
        snprintf(buf, len, "unbounded");
    else if (!isfinite(ns) || ns < 0 || ns > 9e18)
        snprintf(buf, len, "n/a");
    else
        format_duration_long((int64_t)llround(ns), buf, len);
    return buf;
}

/* The chance that a cycle of an hour (a year) exceeds the budget: "about
 * 1" where three digits would round it to 1, which reads as certain. */
static const char *chance(double p, char *buf, size_t len)
{
    if (isfinite(p) && p > 0.9995 && p <= 1)
        snprintf(buf, len, "about 1");
    else if (isfinite(p))
        snprintf(buf, len, "%.3g", p);
    else
        snprintf(buf, len, "n/a");
    return buf;
}

/* An expected count of cycles over the budget: whole from 100 up to
 * 100000 ("2102"), else three digits ("0.36", "1.84e+07"). */
static const char *count(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, "n/a");
    else if (v >= 100 && v < 1e5)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.3g", v);
    return buf;
}

/* A plain number or probability ("0.0812", "3.1e-09"), "unbounded", "n/a". */
static const char *real(double v, char *buf, size_t len)
{
    if (isinf(v))
        snprintf(buf, len, "%s", v > 0 ? "unbounded" : "-unbounded");
    else if (!isfinite(v))
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, "%.3g", v);
    return buf;
}

/* "[lo, hi]" of a value's interval, each bound as fmt gives it. */
static const char *bounds(struct tail_value v, bool ns, char *buf, size_t len)
{
    char lo[32], hi[32];
    if (ns)
        snprintf(buf, len, "[%s, %s]", dur(v.lo, lo, sizeof lo), dur(v.hi, hi, sizeof hi));
    else
        snprintf(buf, len, "[%s, %s]", real(v.lo, lo, sizeof lo), real(v.hi, hi, sizeof hi));
    return buf;
}

static const char *term(const char *s, char *buf, size_t len)
{
    return safe_text_term(buf, len, s ? s : "");
}

static void label_of(int cpu, char *buf, size_t len)
{
    if (cpu >= 0)
        snprintf(buf, len, "CPU %d", cpu);
    else
        snprintf(buf, len, "all CPUs");
}

static void fit_lines(FILE *out, const struct tail_result *r, double confidence)
{
    char a[32], b[32], iv[80], t[SAFE_TEXT_TERM_LEN(256)];
    fprintf(out, "  threshold %s (%s), %llu exceedances (%s of the samples), %llu fitted\n",
            dur((double)r->threshold_ns, a, sizeof a),
            r->threshold_given ? "given" : "chosen by the ladder",
            (unsigned long long)r->exceedances, real(r->exceedance_rate, b, sizeof b),
            (unsigned long long)r->fitted);
    fprintf(out, "  shape xi   %-12s %.0f%% interval %s%s%s\n", real(r->shape.value, a, sizeof a),
            confidence * 100, bounds(r->shape, false, iv, sizeof iv), r->shape_meaning ? ": " : "",
            term(r->shape_meaning, t, sizeof t));
    fprintf(out, "  scale      %-12s %.0f%% interval %s\n", dur(r->scale.value, a, sizeof a),
            confidence * 100, bounds(r->scale, true, iv, sizeof iv));
    if (isfinite(r->upper_endpoint_ns))
        fprintf(out, "  upper endpoint (xi < 0): %s\n", dur(r->upper_endpoint_ns, a, sizeof a));
}

static void estimate_table(FILE *out, const struct tail_result *r, double confidence)
{
    char a[32], lo[32], hi[32];
    fprintf(out, "  %-22s | %-12s | %.0f%% interval\n", "probability per cycle", "latency",
            confidence * 100);
    for (size_t i = 0; i < r->nestimates; i++) {
        const struct tail_estimate *e = &r->estimates[i];
        fprintf(out, "  %-22.3g | %-12s | %s .. %s\n", e->probability,
                dur(e->ns.value, a, sizeof a), dur(e->ns.lo, lo, sizeof lo),
                dur(e->ns.hi, hi, sizeof hi));
    }
}

/* The budget per cycle, then per hour and per year: the expected count of
 * cycles over it with its interval (from the per-cycle bounds), and the
 * chance of at least one. */
static void budget_line(FILE *out, const struct tail_result *r, int64_t interval_ns)
{
    if (!r->has_budget)
        return;
    char b[32], c[32], iv[80];
    const struct tail_value *p = &r->budget_per_cycle;
    fprintf(out, "  budget %s: exceeded with probability %s per cycle %s\n",
            dur((double)r->budget_ns, b, sizeof b), real(p->value, c, sizeof c),
            bounds(*p, false, iv, sizeof iv));
    if (interval_ns <= 0)
        return;
    static const char *const per[2] = {"hour", "year"};
    const struct tail_value *atleast[2] = {&r->budget_per_hour, &r->budget_per_year};
    double cycles = 3600e9 / (double)interval_ns;
    for (int k = 0; k < 2; k++, cycles *= 8766) {
        char e[32], lo[32], hi[32], a[32];
        fprintf(out, "    per %s: %s expected [%s, %s], at least one with probability %s\n", per[k],
                count(p->value * cycles, e, sizeof e), count(p->lo * cycles, lo, sizeof lo),
                count(p->hi * cycles, hi, sizeof hi), chance(atleast[k]->value, a, sizeof a));
    }
}

static void more_lines(FILE *out, const struct tail_result *r)
{
    char a[32], b[32], iv[80];
    fprintf(out, "  largest seen %s", dur(r->empirical_max_ns, a, sizeof a));
    if (isfinite(r->more_hours_1e9))
        fprintf(out, "; %s more hours at this interval until the run has seen 1e9 cycles",
                real(r->more_hours_1e9, b, sizeof b));
    fprintf(out, "\n");
    if (r->gev_fitted)
        fprintf(out, "  block maxima: GEV on %zu windows, shape %s, 1e-9 level %s %s\n",
                r->gev_blocks, real(r->gev_shape.value, a, sizeof a),
                dur(r->gev_1e9.value, b, sizeof b), bounds(r->gev_1e9, true, iv, sizeof iv));
    if (isfinite(r->extremal_index))
        fprintf(out, "  extremal index %.3g%s\n", r->extremal_index,
                r->declustered ? " (declustered by runs)" : "");
}

static const char *verdict_word(enum tail_check_state s)
{
    return s == TAIL_CHECK_PASSED ? "passed" : s == TAIL_CHECK_FAILED ? "FAILED" : "not run";
}

static void check_table(FILE *out, const struct tail_result *r)
{
    char st[32], p[32], name[SAFE_TEXT_TERM_LEN(24)], method[SAFE_TEXT_TERM_LEN(24)],
        why[SAFE_TEXT_TERM_LEN(160)];
    fprintf(out, "  %-16s | %-20s | %-9s | %-9s | %-7s | %s\n", "check", "method", "statistic", "p",
            "verdict", "why");
    for (size_t i = 0; i < TAIL_NCHECKS; i++) {
        const struct tail_check *c = &r->checks[i];
        if (!c->name)
            continue;
        fprintf(out, "  %-16s | %-20s | %-9s | %-9s | %-7s | %s\n",
                term(c->name, name, sizeof name), term(c->method, method, sizeof method),
                real(c->statistic, st, sizeof st), real(c->p_value, p, sizeof p),
                verdict_word(c->state), term(c->why, why, sizeof why));
    }
}

static void entry(FILE *out, const struct tail_result *r, int cpu, double confidence,
                  int64_t interval_ns)
{
    char label[32], t[SAFE_TEXT_TERM_LEN(256)];
    label_of(cpu, label, sizeof label);
    fprintf(out, "%s: %llu samples, fitted on the %s\n", label, (unsigned long long)r->samples,
            r->exact_samples ? "exact samples" : "histogram's buckets");
    if (r->verdict != TAIL_ESTIMATE) {
        fprintf(out, "  cannot estimate: %s\n", term(r->reason, t, sizeof t));
        if (r->advice[0])
            fprintf(out, "  what to do: %s\n", term(r->advice, t, sizeof t));
    } else {
        fprintf(out, "  estimate\n");
        fit_lines(out, r, confidence);
        estimate_table(out, r, confidence);
        budget_line(out, r, interval_ns);
    }
    more_lines(out, r);
    check_table(out, r);
}

void text_tail(FILE *out, const struct tail_config *cfg, const struct tail_result *cpus,
               const int *cpu_ids, size_t n, const struct tail_result *all)
{
    double confidence = cfg->confidence > 0 ? cfg->confidence : 0.95;
    char iv[32], t[SAFE_TEXT_TERM_LEN(256)];
    fprintf(out, "tail of the latency at a %s interval, %.0f%% intervals, fitted on %s\n",
            dur((double)cfg->interval_ns, iv, sizeof iv), confidence * 100,
            cfg->samples_file ? term(cfg->samples_file, t, sizeof t) : "the histograms");
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "\n");
        entry(out, &cpus[i], cpu_ids[i], confidence, cfg->interval_ns);
    }
    if (all) {
        fprintf(out, "\n");
        entry(out, all, -1, confidence, cfg->interval_ns);
    }
}
