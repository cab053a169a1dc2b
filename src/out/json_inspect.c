/*
 * Builds the inspect document and the "system" object. The system object
 * starts with exactly the keys json_system_info writes for run documents
 * (so readers of either see the same names) and adds one key per reader:
 * cmdline_params, kernel_config, cpuidle, cpufreq, smt, sched, memory,
 * irqs, irq_counts, threads, unreadable. A value that could not be read is
 * null. A run result carries the same object with the IRQ and thread lists
 * cut to the ones that matter to the measured CPUs (counts stay whole).
 */
#include "out/json_inspect.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/json_text.h"
#include "out/json_result.h"
#include "sys/pm_qos.h"

static json_t *int_or_null(int64_t v)
{
    return v == VALUE_UNKNOWN ? json_null() : json_integer(v);
}

static json_t *str_or_null(const char *s)
{
    return json_text_or_null(s);
}

static json_t *cpus_array(const struct cpulist *l)
{
    json_t *a = json_array();
    for (int i = 0; i < l->count; i++)
        json_array_append_new(a, json_integer(l->cpu[i]));
    return a;
}

static json_t *cmdline_cpus_json(const struct cmdline_cpus *c)
{
    return c->present ? json_text_new(c->text) : json_null();
}

static json_t *cmdline_json(const struct kernel_cmdline *k)
{
    json_t *o = json_object();
    json_t *iso = json_null();
    if (k->isolcpus.present) {
        json_t *flags = json_array();
        if (k->isolcpus_nohz)
            json_array_append_new(flags, json_string("nohz"));
        if (k->isolcpus_domain)
            json_array_append_new(flags, json_string("domain"));
        if (k->isolcpus_managed_irq)
            json_array_append_new(flags, json_string("managed_irq"));
        iso = json_pack("{s:o,s:o}", "cpus", json_text_new(k->isolcpus.text), "flags", flags);
    }
    json_object_set_new(o, "isolcpus", iso);
    json_object_set_new(o, "nohz_full", cmdline_cpus_json(&k->nohz_full));
    json_object_set_new(o, "rcu_nocbs", cmdline_cpus_json(&k->rcu_nocbs));
    json_object_set_new(o, "irqaffinity", cmdline_cpus_json(&k->irqaffinity));
    json_object_set_new(o, "idle", str_or_null(k->idle));
    json_object_set_new(o, "intel_idle.max_cstate",
                        k->intel_idle_max_cstate < 0 ? json_null()
                                                     : json_integer(k->intel_idle_max_cstate));
    json_object_set_new(o, "processor.max_cstate",
                        k->processor_max_cstate < 0 ? json_null()
                                                    : json_integer(k->processor_max_cstate));
    json_object_set_new(o, "clocksource", str_or_null(k->clocksource));
    json_object_set_new(o, "tsc", str_or_null(k->tsc));
    json_object_set_new(o, "nosoftlockup", json_boolean(k->nosoftlockup));
    json_object_set_new(o, "nmi_watchdog", str_or_null(k->nmi_watchdog));
    json_object_set_new(o, "skew_tick",
                        k->skew_tick < 0 ? json_null() : json_integer(k->skew_tick));
    json_object_set_new(o, "mitigations", str_or_null(k->mitigations));
    json_object_set_new(o, "preempt", str_or_null(k->preempt));
    json_object_set_new(o, "nosmt", json_boolean(k->nosmt));
    return o;
}

static json_t *config_json(const struct kernel_config *c)
{
    if (!c->present)
        return json_null();
    return json_pack("{s:o,s:b,s:b,s:b,s:o}", "preempt", str_or_null(c->preempt), "preempt_dynamic",
                     c->preempt_dynamic, "no_hz_full", c->no_hz_full, "rcu_nocb_cpu",
                     c->rcu_nocb_cpu, "hz", int_or_null(c->hz));
}

static json_t *cpuidle_json(const struct cpuidle_info *ci)
{
    json_t *o = json_object();
    json_object_set_new(o, "driver", str_or_null(ci->driver));
    json_object_set_new(o, "governor", str_or_null(ci->governor));
    json_object_set_new(o, "available_governors", str_or_null(ci->available_governors));
    json_t *cpus = json_array();
    for (int i = 0; i < ci->ncpu; i++) {
        const struct cpuidle_cpu *c = &ci->cpu[i];
        json_t *states = json_array();
        for (int k = 0; k < c->nstates; k++) {
            const struct cpuidle_state_info *st = &c->state[k];
            json_t *s = json_object();
            json_object_set_new(s, "state", json_integer(st->index));
            json_object_set_new(s, "name", json_text_new(st->name));
            json_object_set_new(s, "desc", str_or_null(st->desc));
            json_object_set_new(s, "latency_us", int_or_null(st->latency_us));
            json_object_set_new(s, "residency_us", int_or_null(st->residency_us));
            json_object_set_new(s, "disable", int_or_null(st->disable));
            json_object_set_new(s, "usage", int_or_null(st->usage));
            json_object_set_new(s, "time_us", int_or_null(st->time_us));
            json_object_set_new(s, "above", int_or_null(st->above));
            json_object_set_new(s, "below", int_or_null(st->below));
            json_array_append_new(states, s);
        }
        json_t *resume;
        if (c->resume_latency_us == RESUME_LATENCY_NONE_ALLOWED)
            resume = json_string("n/a");
        else
            resume = int_or_null(c->resume_latency_us);
        json_array_append_new(cpus,
                              json_pack("{s:i,s:o,s:o}", "cpu", c->cpu, "pm_qos_resume_latency_us",
                                        resume, "states", states));
    }
    json_object_set_new(o, "cpus", cpus);
    return o;
}

static json_t *cpufreq_json(const struct cpufreq_info *cf)
{
    json_t *o = json_object();
    json_object_set_new(o, "boost", int_or_null(cf->boost));
    json_object_set_new(o, "intel_pstate_status", str_or_null(cf->intel_pstate_status));
    json_object_set_new(o, "intel_pstate_no_turbo", int_or_null(cf->intel_no_turbo));
    json_object_set_new(o, "amd_pstate_status", str_or_null(cf->amd_pstate_status));
    json_t *policies = json_array();
    for (int i = 0; i < cf->npolicy; i++) {
        const struct cpufreq_policy_info *p = &cf->policy[i];
        json_t *j = json_object();
        json_object_set_new(j, "policy", json_integer(p->id));
        json_object_set_new(j, "affected_cpus", str_or_null(p->affected_cpus));
        json_object_set_new(j, "related_cpus", str_or_null(p->related_cpus));
        json_object_set_new(j, "driver", str_or_null(p->driver));
        json_object_set_new(j, "governor", str_or_null(p->governor));
        json_object_set_new(j, "available_governors", str_or_null(p->available_governors));
        json_object_set_new(j, "available_frequencies_khz", str_or_null(p->available_frequencies));
        json_object_set_new(j, "min_khz", int_or_null(p->min_khz));
        json_object_set_new(j, "max_khz", int_or_null(p->max_khz));
        json_object_set_new(j, "cur_khz", int_or_null(p->cur_khz));
        json_object_set_new(j, "cpuinfo_min_khz", int_or_null(p->cpuinfo_min_khz));
        json_object_set_new(j, "cpuinfo_max_khz", int_or_null(p->cpuinfo_max_khz));
        json_object_set_new(j, "base_khz", int_or_null(p->base_khz));
        json_object_set_new(j, "transition_latency_ns", int_or_null(p->transition_latency_ns));
        json_object_set_new(j, "energy_performance_preference", str_or_null(p->epp));
        json_object_set_new(j, "energy_performance_available_preferences",
                            str_or_null(p->epp_available));
        json_object_set_new(j, "boost", int_or_null(p->boost));
        json_array_append_new(policies, j);
    }
    json_object_set_new(o, "policies", policies);
    return o;
}

static json_t *smt_json(const struct cpu_topology *t)
{
    json_t *siblings = json_object();
    for (int i = 0; i < t->ncpu; i++) {
        char key[16];
        snprintf(key, sizeof key, "%d", t->cpu[i].cpu);
        json_object_set_new(siblings, key, str_or_null(t->cpu[i].thread_siblings));
    }
    return json_pack("{s:o,s:o,s:o}", "control", str_or_null(t->smt_control), "active",
                     int_or_null(t->smt_active), "thread_siblings", siblings);
}

/* The IRQ lines, all of them (inspect) or those a run lists. */
static json_t *irqs_json(const struct irq_table *t, bool all)
{
    json_t *a = json_array();
    for (int i = 0; i < t->nirq; i++) {
        const struct irq_line *irq = &t->irq[i];
        if (!all && !inspect_irq_listed_in_run(irq))
            continue;
        json_t *counts = json_object();
        for (int k = 0; k < t->ntarget; k++) {
            char key[16];
            uint64_t v = irq_count(t, i, k);
            snprintf(key, sizeof key, "%d", t->target_cpu[k]);
            json_object_set_new(counts, key,
                                v == IRQ_COUNT_UNKNOWN ? json_null() : json_integer((json_int_t)v));
        }
        json_t *o = json_object();
        json_object_set_new(o, "irq", json_text_new(irq->id));
        json_object_set_new(o, "desc", str_or_null(irq->desc));
        json_object_set_new(o, "smp_affinity_list",
                            irq->numeric ? str_or_null(irq->smp_affinity_list) : json_null());
        json_object_set_new(o, "effective_affinity_list",
                            irq->numeric ? str_or_null(irq->effective_affinity_list) : json_null());
        json_object_set_new(o, "affine_to_target", json_boolean(irq->affine_to_target));
        json_object_set_new(o, "target_counts", counts);
        json_array_append_new(a, o);
    }
    return a;
}

static const char *policy_name(int policy)
{
    static const char *const names[] = {"other", "fifo", "rr", "batch", "iso", "idle", "deadline"};
    return policy >= 0 && policy < 7 ? names[policy] : "unknown";
}

/* Counts always; the list holds every thread touching the targets (inspect)
 * or those a run lists (real-time or confined), as "listed" says. */
static json_t *threads_json(const struct inspect_system *s, bool all)
{
    const struct task_table *t = &s->tasks;
    json_t *list = json_array();
    int rt = 0;
    for (int i = 0; i < t->nkept; i++) {
        const struct task_info *k = &t->task[i];
        rt += inspect_task_is_rt(k);
        if (!all && !inspect_task_listed_in_run(s, k))
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "pid", json_integer(k->pid));
        json_object_set_new(o, "tid", json_integer(k->tid));
        json_object_set_new(o, "comm", json_text_new(k->comm));
        json_object_set_new(o, "kernel_thread", json_boolean(k->kernel_thread));
        json_object_set_new(o, "per_cpu", json_boolean(k->per_cpu));
        json_object_set_new(o, "cpus_allowed", json_text_new(k->cpus_allowed));
        json_object_set_new(o, "processor", json_integer(k->processor));
        json_object_set_new(o, "running_on_target", json_boolean(k->running_on_target));
        json_object_set_new(o, "policy", json_string(policy_name(k->policy)));
        json_object_set_new(o, "rt_priority", json_integer(k->rt_priority));
        char state[2] = {k->state, '\0'};
        json_object_set_new(o, "state", json_text_new(state));
        json_array_append_new(list, o);
    }
    return json_pack("{s:i,s:b,s:i,s:i,s:s,s:o}", "scanned", t->scanned, "truncated", t->truncated,
                     "touching_targets_count", t->nkept, "rt", rt, "listed",
                     all ? "all" : "rt-or-confined", "touching_targets", list);
}

static json_t *irq_counts_json(const struct irq_table *t)
{
    int touching = 0;
    for (int i = 0; i < t->nirq; i++)
        touching += inspect_irq_listed_in_run(&t->irq[i]);
    return json_pack("{s:i,s:i}", "total", t->nirq, "touching_targets", touching);
}

/* all: inspect's full detail; else the run's shape (see run_system_json). */
static json_t *resctrl_json(const struct resctrl_info *r)
{
    if (!r)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "supported", json_boolean(!r->why_unsupported[0]));
    json_object_set_new(o, "why_unsupported", str_or_null(r->why_unsupported));
    json_object_set_new(o, "flags",
                        json_pack("{s:b,s:b,s:b,s:b,s:b}", "cat_l3", r->cat_l3, "cat_l2", r->cat_l2,
                                  "cdp_l3", r->cdp_l3, "mba", r->mba, "rdt_a", r->rdt_a));
    json_object_set_new(o, "mounted", json_boolean(r->mounted));
    json_t *l3 = json_null();
    if (r->l3_info) {
        char mask[24], share[24];
        snprintf(mask, sizeof mask, "%llx", (unsigned long long)r->cbm_mask);
        snprintf(share, sizeof share, "%llx", (unsigned long long)r->shareable_bits);
        l3 = json_pack("{s:o,s:i,s:i,s:i,s:o}", "cbm_mask", json_text_new(mask), "ways",
                       r->cbm_bits, "min_cbm_bits", r->min_cbm_bits, "num_closids", r->num_closids,
                       "shareable_bits", json_text_new(share));
    }
    json_object_set_new(o, "l3", l3);
    json_t *groups = json_array();
    for (int i = 0; i < r->ngroups; i++) {
        const struct resctrl_group *g = &r->group[i];
        json_t *masks = json_object();
        for (int d = 0; d < g->ndomains; d++) {
            char id[16], mask[24];
            snprintf(id, sizeof id, "%d", g->domain[d].id);
            snprintf(mask, sizeof mask, "%llx", (unsigned long long)g->domain[d].mask);
            json_object_set_new(masks, id, json_text_new(mask));
        }
        json_array_append_new(groups, json_pack("{s:o,s:o,s:o,s:o}", "name",
                                                json_text_new(g->name[0] ? g->name : "(default)"),
                                                "cpus", json_text_new(g->cpus_list), "mode",
                                                str_or_null(g->mode), "l3_masks", masks));
    }
    json_object_set_new(o, "groups", groups);
    return o;
}

static json_t *system_json(const struct inspect_system *s, bool all)
{
    json_t *o = json_system_info(&s->base);
    json_object_set_new(o, "tsc", json_boolean(s->base.tsc_present));
    json_object_set_new(o, "preempt",
                        json_pack("{s:o,s:o}", "model", str_or_null(s->base.preempt_model),
                                  "source", str_or_null(s->base.preempt_source)));
    json_object_set_new(o, "target_cpus", cpus_array(&s->targets));
    json_object_set_new(o, "cmdline_params", cmdline_json(&s->cmdline));
    json_object_set_new(o, "kernel_config", config_json(&s->config));
    json_object_set_new(o, "cpuidle", cpuidle_json(&s->cpuidle));
    json_object_set_new(o, "cpufreq", cpufreq_json(&s->cpufreq));
    json_object_set_new(o, "smt", smt_json(&s->topology));
    const struct kernel_tunables *t = &s->tunables;
    json_object_set_new(
        o, "sched",
        json_pack("{s:o,s:o,s:o,s:o,s:o}", "rt_runtime_us", int_or_null(t->sched_rt_runtime_us),
                  "rt_period_us", int_or_null(t->sched_rt_period_us), "timer_migration",
                  int_or_null(t->timer_migration), "nmi_watchdog", int_or_null(t->nmi_watchdog),
                  "watchdog", int_or_null(t->watchdog)));
    json_t *swap_used = t->swap_total_kb == VALUE_UNKNOWN || t->swap_free_kb == VALUE_UNKNOWN
                            ? json_null()
                            : json_integer(t->swap_total_kb - t->swap_free_kb);
    json_object_set_new(
        o, "memory",
        json_pack("{s:o,s:o,s:o,s:o,s:o}", "thp_enabled", str_or_null(t->thp_enabled), "thp_defrag",
                  str_or_null(t->thp_defrag), "swap_total_kb", int_or_null(t->swap_total_kb),
                  "swap_free_kb", int_or_null(t->swap_free_kb), "swap_used_kb", swap_used));
    json_object_set_new(o, "irqs", irqs_json(&s->irqs, all));
    json_object_set_new(o, "irq_counts", irq_counts_json(&s->irqs));
    json_object_set_new(o, "threads", threads_json(s, all));
    json_object_set_new(o, "resctrl", resctrl_json(s->resctrl));
    json_t *unreadable = json_array();
    for (int i = 0; i < s->notes.count; i++)
        json_array_append_new(unreadable,
                              json_pack("{s:o,s:o}", "path", json_text_new(s->notes.note[i].path),
                                        "reason", json_text_new(s->notes.note[i].reason)));
    json_object_set_new(o, "unreadable", unreadable);
    return o;
}

json_t *inspect_system_json(const struct inspect_system *s)
{
    return system_json(s, true);
}

json_t *run_system_json(const struct inspect_system *s)
{
    return system_json(s, false);
}

static json_t *finding_json(const struct inspect_finding *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_text_new(f->id));
    json_object_set_new(o, "area", json_text_new(f->area));
    json_object_set_new(o, "severity", json_string(inspect_severity_name(f->severity)));
    struct cpulist *cpus = calloc(1, sizeof *cpus);
    const char *why = NULL;
    if (cpus && cpulist_parse(f->cpus, cpus, &why) == 0)
        json_object_set_new(o, "cpus", cpus_array(cpus));
    else
        json_object_set_new(o, "cpus", json_array());
    free(cpus);
    json_t *ev = json_array();
    for (int i = 0; i < f->nevidence; i++)
        json_array_append_new(ev, json_pack("{s:o,s:o}", "path", json_text_new(f->evidence[i].path),
                                            "value", json_text_new(f->evidence[i].value)));
    json_object_set_new(o, "evidence", ev);
    json_object_set_new(o, "effect", json_text_new(f->effect));
    json_object_set_new(o, "fix", json_text_new(f->fix));
    json_object_set_new(o, "unbounded", json_boolean(f->unbounded));
    return o;
}

static json_t *measurement_json(const struct inspect_findings *f)
{
    const struct inspect_measurement *m = &f->measurement;
    if (!f->has_measurement)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "command", json_text_new(m->command));
    json_object_set_new(o, "done", json_boolean(m->done));
    json_object_set_new(o, "why", m->done ? json_null() : json_text_new(m->why));
    if (m->done) {
        json_object_set_new(o, "duration_s", json_real(m->duration_s));
        json_object_set_new(o, "interrupted", json_boolean(m->interrupted));
        json_object_set_new(o, "realtime", json_boolean(m->realtime));
        json_object_set_new(o, "interval_ns", json_integer(m->interval_ns));
        json_object_set_new(o, "samples", json_integer((json_int_t)m->samples));
        json_object_set_new(o, "missed", json_integer((json_int_t)m->missed));
        bool any = m->samples > 0;
        json_object_set_new(o, "max_ns", any ? json_integer(m->max_ns) : json_null());
        json_object_set_new(o, "p99_ns", any ? json_integer(m->p99_ns) : json_null());
        json_object_set_new(o, "max_cpu", any ? json_integer(m->max_cpu) : json_null());
    }
    return o;
}

json_t *json_inspect_document(const struct inspect_system *s, const struct inspect_findings *f,
                              const char *version)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "tool", json_string("jitterlab"));
    json_object_set_new(doc, "schema", json_integer(1));
    json_object_set_new(doc, "kind", json_string("inspect"));
    json_object_set_new(doc, "version", json_string(version));
    json_object_set_new(doc, "budget_ns", json_integer(f->budget_ns));
    json_object_set_new(doc, "cpus", cpus_array(&s->targets));
    json_object_set_new(doc, "verdict", json_string(inspect_verdict_name(f->verdict)));
    json_object_set_new(doc, "verdict_reason", json_text_new(f->verdict_reason));
    json_t *findings = json_array();
    for (int i = 0; i < f->count; i++)
        json_array_append_new(findings, finding_json(&f->finding[i]));
    json_object_set_new(doc, "findings", findings);
    json_t *unknown = json_array();
    for (int i = 0; i < f->nunknown; i++)
        json_array_append_new(unknown, json_pack("{s:s,s:o}", "id", f->unknown[i].id, "why",
                                                 json_text_new(f->unknown[i].why)));
    json_object_set_new(doc, "unknown", unknown);
    json_object_set_new(doc, "measurement", measurement_json(f));
    json_object_set_new(doc, "system", inspect_system_json(s));
    return doc;
}
