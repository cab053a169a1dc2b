/*
 * The "tsc" document's figures (see json_tsc.h). Integers are cycles with
 * the unit in the key; what was not measured is null, never a zero that
 * could pass for a measurement.
 */
#include "out/json_tsc.h"

#include <string.h>

#include "common/json_text.h"

static json_t *str_or_null(const char *s)
{
    return json_text_or_null(s);
}

static json_t *real_or_null(bool known, double v)
{
    return known ? json_real(v) : json_null();
}

/* "tsc hpet acpi_pm " -> ["tsc", "hpet", "acpi_pm"]; ","-joined the same. */
static json_t *words(const char *text, const char *sep)
{
    json_t *a = json_array();
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *w = strtok_r(buf, sep, &save); w; w = strtok_r(NULL, sep, &save))
        json_array_append_new(a, json_text_new(w));
    return a;
}

static json_t *json_flags(const struct tsc_flags *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "readable", json_boolean(f->readable));
    json_object_set_new(o, "tsc", json_boolean(f->tsc));
    json_object_set_new(o, "constant_tsc", json_boolean(f->constant_tsc));
    json_object_set_new(o, "nonstop_tsc", json_boolean(f->nonstop_tsc));
    json_object_set_new(o, "tsc_reliable", json_boolean(f->tsc_reliable));
    json_object_set_new(o, "tsc_known_freq", json_boolean(f->tsc_known_freq));
    json_object_set_new(o, "rdtscp", json_boolean(f->rdtscp));
    json_object_set_new(o, "invariant", json_boolean(f->constant_tsc && f->nonstop_tsc));
    return o;
}

static json_t *json_kernel(const struct tsc_static *st)
{
    const struct tsc_kernel_log *log = &st->log;
    json_t *o = json_object();
    json_object_set_new(o, "log_readable", json_boolean(log->readable));
    json_object_set_new(o, "log_why", str_or_null(log->readable ? "" : log->why));
    json_object_set_new(o, "log_start_lost", json_boolean(log->start_lost));
    json_t *notes = json_array();
    for (int i = 0; i < log->nlines; i++)
        json_array_append_new(notes, json_text_new(log->lines[i]));
    json_object_set_new(o, "notes", notes);
    json_object_set_new(o, "notes_dropped", json_integer((json_int_t)log->lines_dropped));
    json_object_set_new(o, "detected_mhz", real_or_null(log->detected_mhz > 0, log->detected_mhz));
    json_object_set_new(o, "refined_mhz", real_or_null(log->refined_mhz > 0, log->refined_mhz));
    json_object_set_new(o, "cmdline_tsc", words(st->cmdline_tsc, ","));
    json_object_set_new(o, "boot_param_unstable", json_boolean(log->boot_param));
    json_object_set_new(o, "watchdog_unstable", json_boolean(log->watchdog));
    json_object_set_new(o, "sync_failed", json_boolean(log->sync_failed));
    json_object_set_new(o, "sync_warp_cycles",
                        log->sync_warp_cycles >= 0 ? json_integer(log->sync_warp_cycles)
                                                   : json_null());
    json_object_set_new(o, "skew", json_boolean(log->skew));
    json_object_set_new(o, "unstable_reason",
                        str_or_null(log->unstable ? log->unstable_reason : ""));
    return o;
}

static json_t *json_warp(const struct tsc_results *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "measured", json_boolean(r->warp_measured));
    json_object_set_new(o, "duration_s", json_real(r->warp_duration_s));
    json_object_set_new(o, "pair_ns", json_integer((json_int_t)r->pair_ns));
    json_object_set_new(o, "pairs_possible", json_integer((json_int_t)r->pairs_possible));
    json_t *pairs = json_array();
    uint64_t handoffs = 0;
    int tested = 0;
    for (int i = 0; i < r->npairs; i++) {
        const struct tsc_pair_result *p = &r->pair[i];
        if (!p->measured)
            continue;
        tested++;
        handoffs += p->handoffs;
        json_t *e = json_object();
        json_object_set_new(e, "a", json_integer(p->a));
        json_object_set_new(e, "b", json_integer(p->b));
        json_object_set_new(e, "group", str_or_null(p->group));
        json_object_set_new(e, "reads", json_integer((json_int_t)p->reads));
        json_object_set_new(e, "handoffs", json_integer((json_int_t)p->handoffs));
        json_object_set_new(e, "warps", json_integer((json_int_t)p->warps));
        json_object_set_new(e, "max_warp_cycles", json_integer((json_int_t)p->max_warp_cycles));
        json_object_set_new(e, "duration_s", json_real(p->duration_s));
        json_array_append_new(pairs, e);
    }
    json_object_set_new(o, "pairs_tested", json_integer(tested));
    json_object_set_new(o, "pairs", pairs);
    json_object_set_new(o, "reads", json_integer((json_int_t)r->warp_total.reads));
    json_object_set_new(o, "handoffs", json_integer((json_int_t)handoffs));
    json_object_set_new(o, "warps", json_integer((json_int_t)r->warp_total.warps));
    json_object_set_new(o, "max_warp_cycles",
                        json_integer((json_int_t)r->warp_total.max_warp_cycles));
    return o;
}

static json_t *json_offsets(const struct tsc_results *r)
{
    json_t *a = json_array();
    if (!r->offsets_measured)
        return a;
    for (int i = 1; i < r->ncpu; i++) {
        const struct tsc_cpu_result *c = &r->cpu[i];
        const struct tsc_offset_est *e = &c->offset;
        json_t *o = json_object();
        json_object_set_new(o, "cpu", json_integer(c->cpu));
        json_object_set_new(o, "offset_cycles",
                            e->valid ? json_integer((json_int_t)e->offset_cycles) : json_null());
        json_object_set_new(o, "bound_cycles",
                            e->valid ? json_integer((json_int_t)e->bound_cycles) : json_null());
        json_object_set_new(o, "rtt_min_cycles",
                            e->valid ? json_integer((json_int_t)e->rtt_min_cycles) : json_null());
        json_object_set_new(o, "rounds", json_integer((json_int_t)c->rounds));
        json_object_set_new(o, "timeouts", json_integer((json_int_t)c->timeouts));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *json_rates(const struct tsc_results *r)
{
    json_t *a = json_array();
    if (!r->rates_measured)
        return a;
    for (int i = 0; i < r->ncpu; i++) {
        const struct tsc_rate *t = &r->cpu[i].rate;
        json_t *o = json_object();
        json_object_set_new(o, "cpu", json_integer(r->cpu[i].cpu));
        json_object_set_new(o, "tsc_hz", real_or_null(t->valid, t->hz));
        json_object_set_new(o, "uncertainty_hz", real_or_null(t->valid, t->uncertainty_hz));
        json_object_set_new(o, "interval_s", real_or_null(t->valid, t->interval_s));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *json_rate_summary(const struct tsc_results *r, const struct tsc_verdict *v)
{
    const struct tsc_rate_summary *s = &v->rates;
    if (!r->rates_measured || s->n == 0)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "cpus", json_integer(s->n));
    json_object_set_new(o, "median_hz", json_real(s->median_hz));
    json_object_set_new(o, "min_hz", json_real(s->min_hz));
    json_object_set_new(o, "max_hz", json_real(s->max_hz));
    json_object_set_new(o, "spread_ppm", json_real(s->spread_ppm));
    json_object_set_new(o, "allowed_ppm", json_real(s->allowed_ppm));
    json_object_set_new(o, "kernel_mhz", real_or_null(v->kernel_mhz > 0, v->kernel_mhz));
    json_object_set_new(o, "vs_kernel_ppm", real_or_null(v->vs_kernel_known, v->vs_kernel_ppm));
    return o;
}

static json_t *json_verdict(const struct tsc_verdict *v)
{
    json_t *o = json_object();
    json_object_set_new(o, "clock_tsc", json_string(v->safe ? "safe" : "unsafe"));
    json_t *reasons = json_array(), *notes = json_array();
    for (int i = 0; i < v->nreasons; i++)
        json_array_append_new(reasons, json_text_new(v->reasons[i]));
    for (int i = 0; i < v->nnotes; i++)
        json_array_append_new(notes, json_text_new(v->notes[i]));
    json_object_set_new(o, "reasons", reasons);
    json_object_set_new(o, "notes", notes);
    json_object_set_new(o, "offset_tolerance_cycles", json_integer(TSC_OFFSET_TOLERANCE_CYCLES));
    json_object_set_new(o, "rate_tolerance_ppm", json_real(TSC_RATE_TOLERANCE_PPM));
    return o;
}

void json_tsc_figures(json_t *doc, const struct tsc_static *st, const struct tsc_results *r,
                      const struct tsc_verdict *v)
{
    json_object_set_new(doc, "flags", json_flags(&st->flags));
    json_t *cs = json_object();
    json_object_set_new(cs, "current", str_or_null(st->clocksource));
    json_object_set_new(cs, "available", words(st->available, " \t"));
    json_object_set_new(doc, "clocksource", cs);
    json_object_set_new(doc, "kernel", json_kernel(st));
    json_object_set_new(doc, "warp", json_warp(r));
    json_object_set_new(doc, "offsets", json_offsets(r));
    json_object_set_new(doc, "rates", json_rates(r));
    json_object_set_new(doc, "rate_summary", json_rate_summary(r, v));
    json_object_set_new(doc, "verdict", json_verdict(v));
}
