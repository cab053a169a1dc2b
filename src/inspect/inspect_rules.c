/*
 * The rules of `jitterlab inspect`, stress-ng style: one function and one
 * table entry per finding id, one file per area (rules_idle.c,
 * rules_frequency.c, ...), joined here in report order. A rule looks at
 * struct inspect_system and the budget, and emits one finding (ok findings
 * too, so that a report shows what was checked) or an "unknown" note when
 * the data it needs is missing. Severity is relative to the budget where the
 * data gives a number (exit latencies, PLL relock stalls, preemption model);
 * everything else that RT tuning guides change is a warning, the harmless
 * rest info. Fixes offer the tune actions named in the rule's table entry, a
 * sysfs write, a boot parameter or a firmware setting. docs/inspect.md
 * describes every id. The verdict: not-ready with a critical finding;
 * unverified when a finding is unbounded (its effect cannot be bounded from
 * inside) and no measurement within the budget answers it; else ready.
 */
#include "inspect/inspect_rules.h"

#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "inspect/rules_common.h"

static const struct rule_section *const sections[] = {
    &rules_measurement, &rules_idle,         &rules_frequency, &rules_kernel,
    &rules_isolation,   &rules_interference, &rules_cache,     &rules_scheduler,
    &rules_memory,      &rules_clock,        &rules_platform,
};

#define SECTION_COUNT (sizeof sections / sizeof sections[0])

/* Rule i counted across the sections in order, with its area; NULL past the end. */
static const struct inspect_rule *rule_at(size_t i, const char **area)
{
    for (size_t s = 0; s < SECTION_COUNT; s++) {
        if (i < sections[s]->count) {
            if (area)
                *area = sections[s]->area;
            return &sections[s]->rule[i];
        }
        i -= sections[s]->count;
    }
    return NULL;
}

size_t inspect_rule_count(void)
{
    size_t n = 0;
    for (size_t s = 0; s < SECTION_COUNT; s++)
        n += sections[s]->count;
    return n;
}

const char *inspect_rule_id(size_t i)
{
    const struct inspect_rule *r = rule_at(i, NULL);
    return r ? r->id : NULL;
}

const char *inspect_rule_tune_action(size_t i, int k)
{
    const struct inspect_rule *r = rule_at(i, NULL);
    if (!r || k < 0 || k >= INSPECT_MAX_TUNE_ACTIONS)
        return NULL;
    return r->tune_action[k];
}

static void us_text(int64_t ns, char *buf, size_t len)
{
    snprintf(buf, len, "%.10g µs", (double)ns / 1000.0);
}

const char *inspect_severity_name(enum inspect_severity sev)
{
    switch (sev) {
    case INSPECT_CRITICAL:
        return "critical";
    case INSPECT_WARNING:
        return "warning";
    case INSPECT_INFO:
        return "info";
    case INSPECT_OK:
        break;
    }
    return "ok";
}

const struct inspect_finding *inspect_finding_by_id(const struct inspect_findings *f,
                                                    const char *id)
{
    for (int i = 0; i < f->count; i++)
        if (strcmp(f->finding[i].id, id) == 0)
            return &f->finding[i];
    return NULL;
}

/* Worst first; equal severities keep table order (insertion sort: stable). */
static void sort_findings(struct inspect_findings *out)
{
    for (int i = 1; i < out->count; i++) {
        struct inspect_finding tmp = out->finding[i];
        int j = i;
        while (j > 0 && out->finding[j - 1].severity < tmp.severity) {
            out->finding[j] = out->finding[j - 1];
            j--;
        }
        out->finding[j] = tmp;
    }
}

const char *inspect_verdict_name(enum inspect_verdict v)
{
    return v == INSPECT_NOT_READY ? "not-ready" : v == INSPECT_UNVERIFIED ? "unverified" : "ready";
}

/* The first clause of a finding's effect, which names the cause with its number. */
static void effect_cause(const struct inspect_finding *f, char *cause, size_t len)
{
    snprintf(cause, len, "%s", f->effect);
    cause[strcspn(cause, ";(")] = '\0';
    size_t n = strlen(cause);
    while (n > 0 && (cause[n - 1] == ' ' || cause[n - 1] == ','))
        cause[--n] = '\0';
}

static void write_verdict(struct inspect_findings *out, const char *budget, const char *targets,
                          int64_t budget_ns)
{
    int critical = 0, warnings = 0;
    const struct inspect_finding *unbounded = NULL;
    for (int i = 0; i < out->count; i++) {
        critical += out->finding[i].severity == INSPECT_CRITICAL;
        warnings += out->finding[i].severity == INSPECT_WARNING;
        if (out->finding[i].unbounded && !unbounded)
            unbounded = &out->finding[i];
    }
    /* a measurement within the budget is the answer settings cannot give */
    const struct inspect_finding *measured = inspect_finding_by_id(out, "measured-latency");
    bool measured_ok = measured && measured->severity != INSPECT_CRITICAL;
    const struct inspect_finding *worst = out->count ? &out->finding[0] : NULL;
    char cause[512], tail[240] = "";
    if (measured_ok)
        snprintf(tail, sizeof tail, "; measured within it (%.200s)",
                 measured->nevidence > 1 ? measured->evidence[1].value : "");
    if (critical > 0) {
        out->verdict = INSPECT_NOT_READY;
        effect_cause(worst, cause, sizeof cause);
        snprintf(out->verdict_reason, sizeof out->verdict_reason,
                 "not ready for a %s budget: %s [%s]%s", budget, cause, worst->id,
                 critical > 1 ? ", among other critical findings" : "");
    } else if (unbounded && !measured_ok) {
        out->verdict = INSPECT_UNVERIFIED;
        effect_cause(unbounded, cause, sizeof cause);
        char budget_arg[32];
        format_duration_arg(budget_ns, budget_arg, sizeof budget_arg);
        snprintf(out->verdict_reason, sizeof out->verdict_reason,
                 "unverified for a %s budget: nothing critical, but %.300s [%s], whose effect "
                 "cannot be bounded from inside; measure: jitterlab inspect -a %.100s --budget "
                 "%s --measure 60s",
                 budget, cause, unbounded->id, targets, budget_arg);
    } else if (warnings > 0) {
        out->verdict = INSPECT_READY;
        snprintf(out->verdict_reason, sizeof out->verdict_reason,
                 "ready for a %s budget: nothing critical; the worst of %d warning%s is %s%s",
                 budget, warnings, warnings == 1 ? "" : "s", worst->id, tail);
    } else {
        out->verdict = INSPECT_READY;
        snprintf(out->verdict_reason, sizeof out->verdict_reason,
                 "ready for a %s budget: nothing critical, no warnings%s", budget, tail);
    }
    out->ready = out->verdict == INSPECT_READY;
}

void inspect_rules_run(const struct inspect_system *s, int64_t budget_ns,
                       struct inspect_findings *out)
{
    inspect_rules_run_measured(s, budget_ns, NULL, out);
}

void inspect_rules_run_measured(const struct inspect_system *s, int64_t budget_ns,
                                const struct inspect_measurement *measured,
                                struct inspect_findings *out)
{
    memset(out, 0, sizeof *out);
    out->budget_ns = budget_ns;
    if (measured) {
        out->has_measurement = true;
        out->measurement = *measured;
    }
    struct rule_ctx c = {.s = s, .budget_ns = budget_ns, .measured = measured, .out = out};
    us_text(budget_ns, c.budget, sizeof c.budget);
    rule_format_cpus(&s->targets, c.targets, sizeof c.targets);
    for (size_t i = 0; i < inspect_rule_count(); i++) {
        c.rule = rule_at(i, &c.area);
        c.id = c.rule->id;
        c.rule->check(&c);
    }
    sort_findings(out);
    write_verdict(out, c.budget, c.targets, c.budget_ns);
}
