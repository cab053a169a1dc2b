/*
 * Writes the compare document (see json_compare.h). Ratios, intervals and
 * p values are numbers or null; the CPU of the merged entry is the string
 * "all", as in the run document's "all". input_kind says whether run or
 * noise documents were compared. The tail verdict of an entry is its
 * member "tail", marked in_gate: false.
 */
#include "out/json_compare.h"

#include <math.h>

#include "common/json_text.h"
#include "out/json_result.h"

static json_t *real_or_null(bool known, double v)
{
    return known && isfinite(v) ? json_real(v) : json_null();
}

static json_t *metric_json(enum compare_metric k, const struct metric_result *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "metric", json_string(compare_metric_key(k)));
    json_object_set_new(o, "unit", json_string(compare_metric_unit(k)));
    json_object_set_new(o, "baseline", json_real(m->baseline));
    json_object_set_new(o, "value", json_real(m->value));
    json_object_set_new(o, "ratio", real_or_null(m->has_ratio, m->ratio));
    if (m->has_ratio && isinf(m->ratio))
        json_object_set_new(o, "ratio_unbounded", json_true());
    json_object_set_new(o, "ci",
                        m->has_ci && isfinite(m->ci_lo)
                            ? json_pack("[f,o]", m->ci_lo, real_or_null(true, m->ci_hi))
                            : json_null());
    json_object_set_new(o, "p_value", real_or_null(m->has_p, m->p_value));
    json_object_set_new(o, "log10_p", real_or_null(m->has_p, m->log_p / log(10)));
    json_object_set_new(o, "test", json_string(m->test ? m->test : "none"));
    json_object_set_new(o, "verdict", json_string(verdict_name(m->verdict)));
    if (m->verdict == VERDICT_INSUFFICIENT)
        json_object_set_new(o, "why", json_text_new(m->why));
    return o;
}

/* [lo, hi] of an interval, null for a bound it lacks (unbounded or not computed) */
static json_t *ci_json(double lo, double hi)
{
    return json_pack("[o,o]", real_or_null(true, lo), real_or_null(true, hi));
}

static json_t *value_ci_json(double v, double lo, double hi)
{
    return json_pack("{s:f,s:o}", "value", v, "ci", ci_json(lo, hi));
}

/* The tail verdict (compare.h, struct tail_comparison): beside the
 * metrics, not one of them, and no part of the --fail-if-worse gate. */
static json_t *tail_json(const struct tail_comparison *t)
{
    json_t *o = json_object();
    json_object_set_new(o, "threshold_ns",
                        t->threshold_ns >= 0 ? json_integer(t->threshold_ns) : json_null());
    json_object_set_new(o, "exceed_a", json_integer((json_int_t)t->exceed_a));
    json_object_set_new(o, "n_a", json_integer((json_int_t)t->n_a));
    json_object_set_new(o, "exceed_b", json_integer((json_int_t)t->exceed_b));
    json_object_set_new(o, "n_b", json_integer((json_int_t)t->n_b));
    json_object_set_new(o, "test", json_string(t->has_p ? "fisher" : "none"));
    json_object_set_new(o, "p_value", real_or_null(t->has_p, t->p_value));
    json_object_set_new(o, "log10_p", real_or_null(t->has_p, t->log_p / log(10)));
    json_object_set_new(o, "verdict", json_string(verdict_name(t->verdict)));
    json_object_set_new(
        o, "level_1e9",
        t->has_levels ? json_pack("{s:o,s:o,s:o}", "a",
                                  value_ci_json(t->level_a, t->level_a_lo, t->level_a_hi), "b",
                                  value_ci_json(t->level_b, t->level_b_lo, t->level_b_hi), "ratio",
                                  value_ci_json(t->ratio, t->ratio_lo, t->ratio_hi))
                      : json_null());
    json_object_set_new(o, "why", t->why[0] ? json_text_new(t->why) : json_null());
    json_object_set_new(o, "in_gate", json_false());
    return o;
}

static json_t *cpu_json(const struct cpu_comparison *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "cpu", c->cpu < 0 ? json_string("all") : json_integer(c->cpu));
    json_object_set_new(o, "verdict", json_string(verdict_name(c->verdict)));
    json_object_set_new(o, "tested", json_integer(c->tested));
    json_object_set_new(o, "metric_alpha", json_real(c->alpha));
    if (c->duplicate)
        json_object_set_new(o, "same_as", json_string("all"));
    json_t *metrics = json_array();
    for (int k = 0; k < COMPARE_METRICS; k++)
        if (c->m[k].present)
            json_array_append_new(metrics, metric_json((enum compare_metric)k, &c->m[k]));
    json_object_set_new(o, "metrics", metrics);
    json_object_set_new(o, "rank_test",
                        c->has_rank
                            ? json_pack("{s:f,s:f,s:o,s:o,s:o,s:b}", "p_greater", c->rank.p_greater,
                                        "p_value", c->rank.p_value, "log10_p",
                                        real_or_null(true, c->rank.log_p / log(10)), "statistic",
                                        real_or_null(true, c->rank.statistic), "df",
                                        real_or_null(true, c->rank.df), "descriptive", 1)
                            : json_null());
    if (c->tail.present)
        json_object_set_new(o, "tail", tail_json(&c->tail));
    return o;
}

json_t *json_compare_document(const char *version, int argc, char **argv, const char *started_at,
                              const struct compare_config *cfg, const struct compare_input *in,
                              int narms, const struct arm_comparison *cmp,
                              const struct compare_family *fam)
{
    json_t *doc = json_document_new("compare", version, argc, argv, started_at);
    json_object_set_new(doc, "alpha", json_real(fam->alpha));
    json_object_set_new(doc, "family",
                        json_pack("{s:s,s:i,s:i,s:i,s:i,s:f}", "method", "tarone", "candidates",
                                  fam->candidates, "tests", fam->family, "reachable",
                                  fam->reachable, "percentiles", fam->percentiles, "level",
                                  fam->level));
    json_object_set_new(doc, "reps", json_integer(cfg->reps));
    json_object_set_new(doc, "seed", json_integer((json_int_t)cfg->seed));
    json_object_set_new(doc, "baseline", json_text_new(in[0].label));
    json_object_set_new(doc, "input_kind",
                        json_string(narms > 1 && cmp[0].noise ? "noise" : "run"));
    json_t *inputs = json_array();
    for (int a = 0; a < narms; a++) {
        json_t *files = json_array();
        for (int f = 0; f < in[a].nfiles; f++)
            json_array_append_new(files, json_text_new(in[a].files[f]));
        json_array_append_new(inputs,
                              json_pack("{s:o,s:o,s:i}", "label", json_text_new(in[a].label),
                                        "files", files, "runs", in[a].nfiles));
    }
    json_object_set_new(doc, "inputs", inputs);
    json_t *comparisons = json_array();
    for (int a = 1; a < narms; a++) {
        const struct arm_comparison *c = &cmp[a - 1];
        json_t *cpus = json_array();
        for (int i = 0; i < c->ncpus; i++)
            json_array_append_new(cpus, cpu_json(&c->cpu[i]));
        json_t *o = json_object();
        json_object_set_new(o, "label", json_text_new(in[a].label));
        json_object_set_new(o, "verdict", json_string(verdict_name(c->verdict)));
        json_object_set_new(o, "between_runs", json_boolean(c->between_runs));
        json_object_set_new(o, "budget_ns",
                            c->budget_ns >= 0 ? json_integer(c->budget_ns) : json_null());
        json_object_set_new(o, "cpus", cpus);
        json_array_append_new(comparisons, o);
    }
    json_object_set_new(doc, "comparisons", comparisons);
    return doc;
}
