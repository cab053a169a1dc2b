/*
 * The c2c document's figures (see json_c2c.h). Unknown topology values and
 * unmeasured latencies are null, never 0.
 */
#include "out/json_c2c.h"

#include <math.h>

#include "common/json_text.h"
#include "out/json_result.h"
#include "sys/read_notes.h"

static json_t *ns_or_null(double ns)
{
    return isfinite(ns) ? json_real(round(ns * 10) / 10) : json_null();
}

static json_t *int_or_null(int64_t v)
{
    return v == VALUE_UNKNOWN ? json_null() : json_integer((json_int_t)v);
}

static json_t *cpu_array(const struct c2c_matrix *m)
{
    json_t *a = json_array();
    for (int i = 0; i < m->ncpu; i++)
        json_array_append_new(a, json_integer(m->cpus[i]));
    return a;
}

static json_t *config(const struct c2c_result *r)
{
    const struct c2c_config *cfg = r->cfg;
    json_t *c = json_object();
    json_object_set_new(c, "cpus", cpu_array(r->m));
    json_object_set_new(c, "mode", json_string(c2c_mode_name(cfg->mode)));
    json_object_set_new(c, "round_trips", json_integer(cfg->round_trips));
    json_object_set_new(c, "rounds", json_integer(cfg->rounds));
    json_object_set_new(c, "policy", json_string(cfg->fifo ? "fifo" : "other"));
    json_object_set_new(c, "priority", json_integer(cfg->fifo ? cfg->priority : 0));
    json_object_set_new(c, "timeout_ns", json_integer((json_int_t)cfg->timeout_ns));
    return c;
}

static json_t *topology(const struct c2c_result *r)
{
    json_t *a = json_array();
    for (int i = 0; i < r->m->ncpu; i++) {
        int cpu = r->m->cpus[i];
        const struct cpu_siblings *s = r->topo ? cpu_topology_find(r->topo, cpu) : NULL;
        json_t *e = json_object();
        json_object_set_new(e, "cpu", json_integer(cpu));
        json_object_set_new(e, "core_id", s ? int_or_null(s->core_id) : json_null());
        json_object_set_new(e, "package_id", s ? int_or_null(s->package_id) : json_null());
        json_object_set_new(e, "llc_id", s ? int_or_null(s->llc_id) : json_null());
        json_object_set_new(e, "llc_level", s ? int_or_null(s->llc_level) : json_null());
        json_object_set_new(e, "thread_siblings",
                            s && s->thread_siblings[0] ? json_text_new(s->thread_siblings)
                                                       : json_null());
        json_array_append_new(a, e);
    }
    return a;
}

static json_t *pairs(const struct c2c_matrix *m)
{
    json_t *a = json_array();
    for (int i = 0; i < m->ncpu; i++)
        for (int k = 0; k < m->ncpu; k++) {
            if (i == k)
                continue;
            const struct c2c_pair *p = c2c_matrix_at(m, i, k);
            json_t *e = json_object();
            json_object_set_new(e, "from", json_integer(p->from));
            json_object_set_new(e, "to", json_integer(p->to));
            json_object_set_new(e, "group", json_string(cpu_pair_group_name(p->group)));
            json_object_set_new(e, "min_ns", ns_or_null(p->min_ns));
            json_object_set_new(e, "median_ns", ns_or_null(p->median_ns));
            json_object_set_new(e, "rounds_done", json_integer(p->rounds_done));
            json_object_set_new(e, "timeouts", json_integer(p->timeouts));
            json_array_append_new(a, e);
        }
    return a;
}

static json_t *matrix(const struct c2c_matrix *m)
{
    json_t *med = json_array(), *min = json_array();
    for (int i = 0; i < m->ncpu; i++) {
        json_t *rmed = json_array(), *rmin = json_array();
        for (int k = 0; k < m->ncpu; k++) {
            const struct c2c_pair *p = c2c_matrix_at(m, i, k);
            json_array_append_new(rmed, i == k ? json_null() : ns_or_null(p->median_ns));
            json_array_append_new(rmin, i == k ? json_null() : ns_or_null(p->min_ns));
        }
        json_array_append_new(med, rmed);
        json_array_append_new(min, rmin);
    }
    json_t *o = json_object();
    json_object_set_new(o, "cpus", cpu_array(m));
    json_object_set_new(o, "median_ns", med);
    json_object_set_new(o, "min_ns", min);
    return o;
}

static json_t *groups(const struct c2c_result *r)
{
    json_t *a = json_array();
    for (int i = 0; i < r->ngroups; i++) {
        const struct c2c_group_stats *g = &r->group[i];
        json_t *e = json_object();
        json_object_set_new(e, "group", json_string(cpu_pair_group_name(g->group)));
        json_object_set_new(e, "pairs", json_integer(g->pairs));
        json_object_set_new(e, "measured", json_integer(g->measured));
        json_object_set_new(e, "min_ns", ns_or_null(g->min_ns));
        json_object_set_new(e, "median_ns", ns_or_null(g->median_ns));
        json_object_set_new(e, "max_ns", ns_or_null(g->max_ns));
        json_object_set_new(e, "best_min_ns", ns_or_null(g->best_min_ns));
        json_object_set_new(e, "timeouts", json_integer((json_int_t)g->timeouts));
        json_array_append_new(a, e);
    }
    return a;
}

void json_c2c_fill(json_t *doc, const struct c2c_result *r)
{
    const struct timebase *tb = r->cfg->tb;
    json_object_set_new(doc, "config", config(r));
    json_timebase_fields(doc, tb);
    json_object_set_new(doc, "realtime", json_boolean(r->rep.realtime));
    json_object_set_new(doc, "interrupted", json_boolean(r->rep.interrupted));
    json_object_set_new(doc, "duration_s", json_real(round(r->duration_s * 1000) / 1000));
    json_object_set_new(doc, "pairs_done", json_integer((json_int_t)r->rep.pairs_done));
    json_object_set_new(doc, "timeouts", json_integer((json_int_t)r->rep.timeouts));
    json_object_set_new(doc, "pairs_unstarted", json_integer((json_int_t)r->rep.pairs_unstarted));
    json_object_set_new(doc, "start_error",
                        r->rep.pairs_unstarted ? json_text_new(r->rep.start_error) : json_null());
    json_object_set_new(doc, "topology", topology(r));
    json_object_set_new(doc, "pairs", pairs(r->m));
    json_object_set_new(doc, "matrix", matrix(r->m));
    json_object_set_new(doc, "groups", groups(r));
}
