/*
 * The tail analysis as JSON (json_tail.h, docs/result-schema.md "The tail
 * document"). Every number the analysis could not compute (NAN) or that the
 * data do not bound (INFINITY) is written as null, so that a reader never
 * meets a value JSON cannot hold; a check that did not run has passed null
 * and says why. An entry's "confidence" is the default until
 * json_tail_object sets the one asked.
 */
#include "out/json_tail.h"

#include <math.h>

#include "common/json_text.h"

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *ns_or_null(int64_t ns)
{
    return ns >= 0 ? json_integer((json_int_t)ns) : json_null();
}

static json_t *interval(struct tail_value v)
{
    return json_pack("[o,o]", num(v.lo), num(v.hi));
}

/* {value, ci} or null when the value itself is unknown. */
static json_t *value(struct tail_value v)
{
    if (!isfinite(v.value))
        return json_null();
    return json_pack("{s:o,s:o}", "value", num(v.value), "ci", interval(v));
}

static json_t *levels(const struct tail_estimate *e, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a,
                              json_pack("{s:o,s:o,s:o}", "probability", num(e[i].probability),
                                        "latency_ns", num(e[i].ns.value), "ci", interval(e[i].ns)));
    return a;
}

static json_t *checks(const struct tail_result *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < TAIL_NCHECKS; i++) {
        const struct tail_check *c = &r->checks[i];
        json_t *passed = c->state == TAIL_CHECK_NOT_RUN
                             ? json_null()
                             : json_boolean(c->state == TAIL_CHECK_PASSED);
        json_array_append_new(a, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "name",
                                           json_text_new(c->name), "method",
                                           json_text_new(c->method), "statistic", num(c->statistic),
                                           "p_value", num(c->p_value), "level", num(c->level),
                                           "passed", passed, "why", json_text_new(c->why)));
    }
    return a;
}

static json_t *ladder(const struct tail_result *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < r->nrungs && i < TAIL_MAX_LADDER; i++) {
        const struct tail_rung *g = &r->rungs[i];
        json_array_append_new(
            a, json_pack("{s:I,s:I,s:o,s:o}", "threshold_ns", (json_int_t)g->threshold_ns,
                         "exceedances", (json_int_t)g->exceedances, "shape",
                         g->fitted ? value(g->shape) : json_null(), "gof_p", num(g->gof_p)));
    }
    return a;
}

static json_t *gev(const struct tail_result *r)
{
    if (!r->gev_fitted)
        return json_null();
    return json_pack("{s:I,s:o,s:o,s:o,s:o}", "blocks", (json_int_t)r->gev_blocks, "shape",
                     value(r->gev_shape), "location", value(r->gev_location), "scale",
                     value(r->gev_scale), "level_1e-9", value(r->gev_1e9));
}

static json_t *extremal_index(const struct tail_result *r)
{
    if (!isfinite(r->extremal_index))
        return json_null();
    return json_pack("{s:o,s:b,s:I,s:o}", "value", num(r->extremal_index), "declustered",
                     r->declustered, "clusters", (json_int_t)r->clusters, "run_length",
                     ns_or_null(r->run_length));
}

json_t *json_tail_entry(const struct tail_result *r, int cpu)
{
    json_t *e = json_object();
    json_object_set_new(e, "cpu", cpu >= 0 ? json_integer(cpu) : json_string("all"));
    json_object_set_new(e, "verdict",
                        json_string(r->verdict == TAIL_ESTIMATE ? "estimate" : "cannot-estimate"));
    json_object_set_new(e, "reason", json_text_or_null(r->reason));
    json_object_set_new(e, "advice", json_text_or_null(r->advice));
    json_object_set_new(e, "data", json_string(r->exact_samples ? "samples" : "histogram"));
    json_object_set_new(e, "samples", json_integer((json_int_t)r->samples));
    json_object_set_new(e, "threshold_ns", ns_or_null(r->threshold_ns));
    json_object_set_new(e, "threshold_rule", json_string(r->threshold_given ? "given" : "ladder"));
    json_object_set_new(e, "exceedances", json_integer((json_int_t)r->exceedances));
    json_object_set_new(e, "fitted", json_integer((json_int_t)r->fitted));
    json_object_set_new(e, "exceedance_rate", num(r->exceedance_rate));
    json_object_set_new(e, "shape", value(r->shape));
    json_object_set_new(e, "scale", value(r->scale));
    json_object_set_new(e, "ci_method",
                        json_string(r->ci_method ? r->ci_method : "profile-likelihood"));
    json_object_set_new(e, "confidence", json_real(0.95));
    json_object_set_new(e, "shape_meaning", json_text_or_null(r->shape_meaning));
    json_object_set_new(e, "upper_endpoint_ns", num(r->upper_endpoint_ns));
    json_object_set_new(e, "estimates", levels(r->estimates, r->nestimates));
    if (r->has_budget)
        json_object_set_new(
            e, "budget_exceedance",
            json_pack("{s:I,s:o,s:o,s:o,s:o}", "budget_ns", (json_int_t)r->budget_ns, "per_cycle",
                      num(r->budget_per_cycle.value), "per_hour", num(r->budget_per_hour.value),
                      "per_year", num(r->budget_per_year.value), "ci",
                      interval(r->budget_per_cycle)));
    json_object_set_new(e, "empirical_max_ns", num(r->empirical_max_ns));
    json_object_set_new(e, "more_hours_1e-9", num(r->more_hours_1e9));
    json_object_set_new(e, "gev", gev(r));
    json_object_set_new(e, "extremal_index", extremal_index(r));
    json_object_set_new(e, "checks", checks(r));
    json_object_set_new(e, "ladder", ladder(r));
    json_object_set_new(e, "curve", levels(r->curve, r->ncurve));
    return e;
}

json_t *json_tail_object(const struct tail_config *cfg, const struct tail_result *cpus,
                         const int *cpu_ids, size_t n, const struct tail_result *all)
{
    static const double defaults[] = {TAIL_DEFAULT_P1, TAIL_DEFAULT_P2, TAIL_DEFAULT_P3};
    const double *p = cfg->nprobabilities ? cfg->probabilities : defaults;
    size_t np = cfg->nprobabilities ? cfg->nprobabilities : 3;
    double confidence = cfg->confidence > 0 ? cfg->confidence : 0.95;
    json_t *o = json_object();
    json_object_set_new(o, "confidence", json_real(confidence));
    json_t *probs = json_array();
    for (size_t i = 0; i < np; i++)
        json_array_append_new(probs, num(p[i]));
    json_object_set_new(o, "probabilities", probs);
    json_object_set_new(o, "budget_ns", ns_or_null(cfg->budget_ns));
    json_object_set_new(o, "threshold_ns", ns_or_null(cfg->threshold_ns));
    json_object_set_new(o, "interval_ns", json_integer((json_int_t)cfg->interval_ns));
    json_object_set_new(o, "samples_file", json_text_or_null(cfg->samples_file));
    json_t *entries = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_tail_entry(&cpus[i], cpu_ids[i]);
        json_object_set_new(e, "confidence", json_real(confidence));
        json_array_append_new(entries, e);
    }
    json_object_set_new(o, "cpus", entries);
    json_t *a = all ? json_tail_entry(all, -1) : json_null();
    if (all)
        json_object_set_new(a, "confidence", json_real(confidence));
    json_object_set_new(o, "all", a);
    return o;
}
