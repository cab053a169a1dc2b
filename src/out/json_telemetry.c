/*
 * Telemetry figures and sources as JSON (see json_telemetry.h). Doubles
 * are rounded to what the source can resolve (0.01 % and 0.1 MHz), so a
 * document does not suggest a precision no counter had.
 */
#include "out/json_telemetry.h"

#include <math.h>

#include "common/json_text.h"

static json_t *real_or_null(double v, double resolution)
{
    return isfinite(v) ? json_real(round(v / resolution) * resolution) : json_null();
}

static json_t *count_or_null(int64_t v)
{
    return v >= 0 ? json_integer((json_int_t)v) : json_null();
}

void json_telemetry_figures(json_t *o, const struct telemetry_cpu_figures *f,
                            const struct telemetry *t)
{
    json_object_set_new(o, "avg_mhz", real_or_null(f->avg_mhz, 0.1));
    json_object_set_new(o, "busy_pct", real_or_null(f->busy_pct, 0.01));
    json_object_set_new(o, "bzy_mhz", real_or_null(f->bzy_mhz, 0.1));
    json_object_set_new(o, "tsc_mhz", real_or_null(f->tsc_mhz, 0.1));
    json_object_set_new(o, "irqs", count_or_null(f->irqs));
    json_object_set_new(o, "softirqs", count_or_null(f->softirqs));
    json_object_set_new(o, "ctxt", count_or_null(f->ctxt));
    json_object_set_new(o, "steal_pct", real_or_null(f->steal_pct, 0.01));
    json_object_set_new(o, "irq_pct", real_or_null(f->irq_pct, 0.01));
    json_object_set_new(o, "softirq_pct", real_or_null(f->softirq_pct, 0.01));
    json_object_set_new(o, "smi", count_or_null(f->smi));
    json_object_set_new(o, "core_temp_c", real_or_null(f->core_temp_c, 0.1));
    json_object_set_new(o, "pkg_temp_c", real_or_null(f->pkg_temp_c, 0.1));
    json_object_set_new(o, "pkg_watts", real_or_null(f->pkg_watts, 0.01));
    if (f->irqs >= 0) {
        json_t *top = json_array();
        for (int k = 0; k < f->nirq; k++)
            json_array_append_new(top, json_pack("{s:o,s:o,s:I}", "id", json_text_new(f->irq[k].id),
                                                 "name", json_text_new(f->irq[k].name), "count",
                                                 (json_int_t)f->irq[k].count));
        json_object_set_new(o, "irq_by_source", top);
    } else {
        json_object_set_new(o, "irq_by_source", json_null());
    }
    if (f->softirqs >= 0) {
        json_t *by = json_object();
        for (int k = 0; k < telemetry_softirq_count(t); k++)
            json_object_set_new(by, telemetry_softirq_name(t, k),
                                json_integer((json_int_t)f->softirq[k]));
        json_object_set_new(o, "softirq_by_vector", by);
    } else {
        json_object_set_new(o, "softirq_by_vector", json_null());
    }
    if (telemetry_source(t, TELEMETRY_IDLE)->name) {
        json_t *idle = json_array();
        for (int k = 0; k < f->nidle; k++)
            json_array_append_new(idle, json_pack("{s:o,s:o,s:I}", "state",
                                                  json_text_new(f->idle[k].name), "residency_pct",
                                                  real_or_null(f->idle[k].residency_pct, 0.01),
                                                  "entries", (json_int_t)f->idle[k].entries));
        json_object_set_new(o, "idle", idle);
    } else {
        json_object_set_new(o, "idle", json_null());
    }
}

json_t *json_telemetry_sources(const struct telemetry *t)
{
    json_t *o = json_object();
    for (int f = 0; f < TELEMETRY_FIGURES; f++) {
        const struct telemetry_source *s = telemetry_source(t, (enum telemetry_figure)f);
        json_t *e = json_object();
        json_object_set_new(e, "source", s->name ? json_text_new(s->name) : json_null());
        if (!s->name)
            json_object_set_new(e, "why", json_text_new(s->why));
        json_object_set_new(o, telemetry_figure_key[f], e);
    }
    return o;
}

json_t *json_telemetry_source_names(const struct telemetry *t)
{
    json_t *o = json_object();
    for (int f = 0; f < TELEMETRY_FIGURES; f++) {
        const struct telemetry_source *s = telemetry_source(t, (enum telemetry_figure)f);
        if (s->name)
            json_object_set_new(o, telemetry_figure_key[f], json_text_new(s->name));
    }
    return o;
}
