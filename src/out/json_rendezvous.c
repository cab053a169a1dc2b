/*
 * The rendezvous document (see json_rendezvous.h and docs/result-schema.md).
 * Figures are integers in clock ticks under _cycles keys (TSC cycles, or ns
 * when "clock" is "monotonic"); a statistic of an empty set is null, never 0;
 * ratios are plain numbers.
 */
#include "out/json_rendezvous.h"

#include <math.h>

#include "out/json_result.h"

static json_t *summary_json(const struct sample_summary *s)
{
    if (s->n == 0)
        return json_null();
    return json_pack("{s:I,s:I,s:I,s:I}", "min", (json_int_t)s->min, "median",
                     (json_int_t)s->median, "p99", (json_int_t)s->p99, "max", (json_int_t)s->max);
}

static json_t *real_or_null(bool present, double v)
{
    return present && isfinite(v) ? json_real(v) : json_null();
}

static json_t *ratio_json(const struct rv_ratio *r)
{
    bool any = r->batches > 0;
    json_t *o = json_object();
    json_object_set_new(o, "median", real_or_null(any, r->median));
    json_object_set_new(o, "ci_low", real_or_null(r->has_ci, r->ci_low));
    json_object_set_new(o, "ci_high", real_or_null(r->has_ci, r->ci_high));
    json_object_set_new(o, "batch_min", real_or_null(any, r->batch_min));
    json_object_set_new(o, "batch_max", real_or_null(any, r->batch_max));
    json_object_set_new(o, "batches", json_integer((json_int_t)r->batches));
    static const char *const verdicts[] = {
        [RV_VERDICT_NONE] = "none",
        [RV_VERDICT_FASTER] = "faster",
        [RV_VERDICT_SLOWER] = "slower",
        [RV_VERDICT_SAME] = "no-difference",
    };
    json_object_set_new(o, "conclusion", json_string(verdicts[rv_ratio_verdict(r)]));
    return o;
}

static json_t *median_json(const struct rv_layout_stats *ls, enum rv_metric m)
{
    return ls->has_median ? json_integer((json_int_t)llround(ls->median[m])) : json_null();
}

static json_t *layout_json(const struct rendezvous_report *rep, const struct rv_layout_stats *ls)
{
    json_t *o = json_object();
    json_object_set_new(o, "layout", json_string(rv_layout_name(ls->layout)));
    json_object_set_new(o, "timeouts", json_integer((json_int_t)ls->timeouts));
    json_object_set_new(o, "timeouts_at_start", json_integer((json_int_t)ls->timeouts_at_start));
    json_object_set_new(o, "rendezvous_done", json_integer((json_int_t)ls->done));
    json_t *cpus = json_array();
    for (int i = 0; i < rep->ncpu; i++) {
        json_t *c = json_object();
        json_object_set_new(c, "cpu", json_integer(rep->cpus[i]));
        json_object_set_new(c, "loop_exit_cycles", summary_json(&ls->cpu[RV_LOOP_EXIT][i]));
        json_object_set_new(c, "total_cycles", summary_json(&ls->cpu[RV_TOTAL][i]));
        json_array_append_new(cpus, c);
    }
    json_object_set_new(o, "cpus", cpus);
    json_object_set_new(o, "loop_exit_median_cycles", median_json(ls, RV_LOOP_EXIT));
    json_object_set_new(o, "total_median_cycles", median_json(ls, RV_TOTAL));
    json_object_set_new(o, "ratio_to_packed",
                        ls->has_ratio ? json_pack("{s:o,s:o}", "loop_exit",
                                                  ratio_json(&ls->ratio[RV_LOOP_EXIT]), "total",
                                                  ratio_json(&ls->ratio[RV_TOTAL]))
                                      : json_null());
    return o;
}

json_t *json_rendezvous_document(const struct rendezvous_report *rep)
{
    json_t *doc =
        json_document_new("rendezvous", rep->version, rep->argc, rep->argv, rep->started_at);
    json_object_set_new(doc, "duration_s", json_real(rep->duration_s));
    json_object_set_new(doc, "interrupted", json_boolean(rep->interrupted));
    json_object_set_new(doc, "system", json_system_info(rep->si));
    json_t *cpus = json_array(), *layouts = json_array();
    for (int i = 0; i < rep->ncpu; i++)
        json_array_append_new(cpus, json_integer(rep->cpus[i]));
    for (int i = 0; i < rep->nlayouts; i++)
        json_array_append_new(layouts, json_string(rv_layout_name(rep->layouts[i])));
    json_t *config = json_object();
    json_object_set_new(config, "cpus", cpus);
    json_object_set_new(config, "rendezvous", json_integer(rep->rendezvous));
    json_object_set_new(config, "iterations", json_integer(rep->iterations));
    json_object_set_new(config, "layouts", layouts);
    json_object_set_new(config, "batches", json_integer(rep->batches));
    json_object_set_new(config, "policy", json_string(rep->policy));
    json_object_set_new(config, "priority", json_integer(rep->priority)); /* 0: other */
    json_object_set_new(config, "master_cpu", json_integer(rep->cpus[0]));
    json_object_set_new(config, "deadline_ns", json_integer((json_int_t)rep->deadline_ns));
    json_object_set_new(doc, "config", config);
    json_timebase_fields(doc, rep->tb);
    json_object_set_new(doc, "realtime", json_boolean(rep->realtime));
    json_object_set_new(doc, "ratio_ci",
                        json_pack("{s:s,s:f,s:i,s:I}", "method", "bootstrap-percentile", "level",
                                  0.95, "resamples", RV_BOOT_RESAMPLES, "seed",
                                  (json_int_t)RV_BOOT_SEED));
    json_t *arr = json_array();
    for (int li = 0; li < rep->stats->nlayouts; li++)
        json_array_append_new(arr, layout_json(rep, &rep->stats->layout[li]));
    json_object_set_new(doc, "layouts", arr);
    return doc;
}
