/*
 * The cpu frequency rules: a governor that moves the clock (and the PLL relock
 * stall of pre-Nehalem P-state drivers), turbo/boost, and the HWP energy preference.
 * One function and one table entry per finding id; rules_common.h has the
 * helpers, inspect_rules.c joins the sections in report order.
 */
#include "inspect/rules_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool governor_fixed(const struct cpufreq_policy_info *p)
{
    if (strcmp(p->governor, "performance") == 0)
        return true;
    return p->min_khz != VALUE_UNKNOWN && p->min_khz == p->max_khz;
}

/* Pre-Nehalem P-state drivers: every frequency change relocks the PLL. */
static bool legacy_pstates(const struct inspect_system *s, const struct cpufreq_policy_info *p)
{
    static const char *const drivers[] = {"acpi-cpufreq", "speedstep-centrino", "p4-clockmod",
                                          "powernow-k8", "speedstep-ich"};
    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
        if (strcmp(p->driver, drivers[i]) == 0)
            return s->base.tsc_present && !s->base.tsc_nonstop;
    return false;
}

#define PLL_RELOCK_STALL_US 110 /* Core 2 Q6600 (docs/inspect.md) */

static void rule_cpufreq_governor(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    if (s->cpufreq.npolicy == 0) {
        struct inspect_finding *f = rule_emit(c, INSPECT_INFO, "");
        rule_evidence(f, "/sys/devices/system/cpu/cpufreq", "absent");
        rule_effect(f,
                    "no cpufreq driver: the frequency is fixed or under %s control, invisible "
                    "to the kernel",
                    s->base.hypervisor[0] ? "hypervisor" : "firmware");
        rule_fix(f, "firmware: disable SpeedStep/EIST, Cool'n'Quiet and turbo for a fixed clock");
        return;
    }
    struct cpulist *moving = rule_new_list();
    if (!moving)
        return;
    bool legacy = false;
    const struct cpufreq_policy_info *first = NULL;
    for (int i = 0; i < s->targets.count; i++) {
        const struct cpufreq_policy_info *p = cpufreq_policy_of(&s->cpufreq, s->targets.cpu[i]);
        if (!p || !p->governor[0] || governor_fixed(p))
            continue;
        cpulist_add(moving, s->targets.cpu[i]);
        legacy = legacy || legacy_pstates(s, p);
        if (!first)
            first = p;
    }
    if (!first) {
        const struct cpufreq_policy_info *p = cpufreq_policy_of(&s->cpufreq, s->targets.cpu[0]);
        struct inspect_finding *f = rule_emit(c, INSPECT_OK, c->targets);
        if (p) {
            char path[96];
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpufreq/policy%d/scaling_governor",
                     p->id);
            rule_evidence(f, path, "%s", p->governor[0] ? p->governor : "unknown");
        }
        rule_effect(f, "the target CPUs run at a fixed frequency request (governor performance or "
                       "min = max)");
        rule_fix(f, "nothing to do");
        free(moving);
        return;
    }
    char cpus[256], phrase[280], path[96];
    rule_cpus_texts(moving, cpus, sizeof cpus, phrase, sizeof phrase);
    bool critical = legacy && c->budget_ns < PLL_RELOCK_STALL_US * 1000;
    struct inspect_finding *f = rule_emit(c, critical ? INSPECT_CRITICAL : INSPECT_WARNING, cpus);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpufreq/policy%d/scaling_governor",
             first->id);
    rule_evidence(f, path, "%s", first->governor);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpufreq/policy%d/scaling_driver",
             first->id);
    rule_evidence(f, path, "%s", first->driver[0] ? first->driver : "unknown");
    if (first->min_khz != VALUE_UNKNOWN && first->max_khz != VALUE_UNKNOWN) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpufreq/policy%d/scaling_min_freq",
                 first->id);
        rule_evidence(f, path, "%lld", (long long)first->min_khz);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpufreq/policy%d/scaling_max_freq",
                 first->id);
        rule_evidence(f, path, "%lld", (long long)first->max_khz);
    }
    if (first->available_frequencies[0]) {
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpufreq/policy%d/scaling_available_frequencies",
                 first->id);
        rule_evidence(f, path, "%s", first->available_frequencies);
    }
    long long lo = first->min_khz != VALUE_UNKNOWN ? first->min_khz / 1000 : 0;
    long long hi = first->max_khz != VALUE_UNKNOWN ? first->max_khz / 1000 : 0;
    if (legacy)
        rule_effect(f,
                    "governor %s moves %s between %lld and %lld MHz; on CPUs of this generation "
                    "(%s, no nonstop_tsc) every P-state change stalls the core while the PLL "
                    "relocks, up to ~%d µs, %s the %s budget",
                    first->governor, phrase, lo, hi, first->driver, PLL_RELOCK_STALL_US,
                    critical ? "above" : "within", c->budget);
    else
        rule_effect(f,
                    "governor %s lets the clock of %s follow the load (%lld-%lld MHz): execution "
                    "time varies and a thread that wakes from idle starts at a low frequency",
                    first->governor, phrase, lo, hi);
    rule_fix_tune(c, f, 0,
                  "echo performance > /sys/devices/system/cpu/cpufreq/policyN/scaling_governor "
                  "for %s",
                  phrase);
    rule_fix_more(f, "; firmware: disable SpeedStep/EIST (or Cool'n'Quiet) for a fixed clock");
    free(moving);
}

static void rule_cpufreq_boost(struct rule_ctx *c)
{
    const struct cpufreq_info *cf = &c->s->cpufreq;
    const char *path = NULL;
    int on = -1;
    if (cf->intel_no_turbo != VALUE_UNKNOWN) {
        path = "/sys/devices/system/cpu/intel_pstate/no_turbo";
        on = cf->intel_no_turbo == 0;
    } else if (cf->boost != VALUE_UNKNOWN) {
        path = "/sys/devices/system/cpu/cpufreq/boost";
        on = cf->boost != 0;
    } else {
        for (int i = 0; i < cf->npolicy && on < 0; i++) {
            if (cf->policy[i].boost != VALUE_UNKNOWN) {
                on = cf->policy[i].boost != 0;
                path = "/sys/devices/system/cpu/cpufreq/policyN/boost";
            }
        }
    }
    if (on < 0) {
        if (cf->npolicy > 0)
            rule_unknown(c, "no boost switch exposed (cpufreq/boost, intel_pstate/no_turbo)");
        return;
    }
    struct inspect_finding *f =
        rule_emit(c, on ? INSPECT_WARNING : INSPECT_OK, on ? c->targets : "");
    rule_evidence(f, path, "%s", strstr(path, "no_turbo") ? (on ? "0" : "1") : (on ? "1" : "0"));
    const struct cpufreq_policy_info *p = cpufreq_policy_of(cf, c->s->targets.cpu[0]);
    if (on && p && p->base_khz != VALUE_UNKNOWN && p->cpuinfo_max_khz != VALUE_UNKNOWN)
        rule_effect(f,
                    "turbo/boost is on: the clock rises from the %lld MHz base up to %lld MHz "
                    "depending on how many cores are busy and how warm the package is, so "
                    "execution time depends on the neighbours",
                    (long long)(p->base_khz / 1000), (long long)(p->cpuinfo_max_khz / 1000));
    else if (on)
        rule_effect(f, "turbo/boost is on: the clock depends on how many cores are busy and on "
                       "temperature, so execution time depends on the neighbours");
    else
        rule_effect(f, "turbo/boost is off: the clock does not depend on the neighbours' load");
    rule_fix_tune(c, f, 0,
                  "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo, or echo 0 > "
                  "/sys/devices/system/cpu/cpufreq/boost");
    rule_fix_more(f, "; firmware: disable Turbo Boost / Core Performance Boost");
}

static void rule_epp_not_performance(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    struct cpulist *slow = rule_new_list();
    if (!slow)
        return;
    const struct cpufreq_policy_info *first = NULL, *any = NULL;
    for (int i = 0; i < s->targets.count; i++) {
        const struct cpufreq_policy_info *p = cpufreq_policy_of(&s->cpufreq, s->targets.cpu[i]);
        if (!p || !p->epp[0])
            continue;
        any = p;
        if (strcmp(p->epp, "performance") == 0)
            continue;
        cpulist_add(slow, s->targets.cpu[i]);
        if (!first)
            first = p;
    }
    if (!any) {
        free(slow); /* no EPP (no HWP, or a passive driver): nothing to check */
        return;
    }
    char path[128];
    const struct cpufreq_policy_info *p = first ? first : any;
    snprintf(path, sizeof path,
             "/sys/devices/system/cpu/cpufreq/policy%d/energy_performance_preference", p->id);
    if (!first) {
        struct inspect_finding *f = rule_emit(c, INSPECT_OK, c->targets);
        rule_evidence(f, path, "%s", p->epp);
        rule_effect(f, "the hardware P-state control is asked for performance");
        rule_fix(f, "nothing to do");
        free(slow);
        return;
    }
    char cpus[256], phrase[280];
    rule_cpus_texts(slow, cpus, sizeof cpus, phrase, sizeof phrase);
    struct inspect_finding *f = rule_emit(c, INSPECT_WARNING, cpus);
    rule_evidence(f, path, "%s", p->epp);
    rule_effect(f,
                "energy-performance preference %s on %s: the hardware (HWP) raises the clock "
                "slowly after idle and lowers it early, so a periodic thread often runs at a "
                "low frequency",
                p->epp, phrase);
    rule_fix_tune(c, f, 0,
                  "echo performance > "
                  "/sys/devices/system/cpu/cpufreq/policyN/energy_performance_preference");
    free(slow);
}

static const struct inspect_rule rules[] = {
    {"cpufreq-governor", rule_cpufreq_governor, {"cpufreq"}},
    {"cpufreq-boost", rule_cpufreq_boost, {"cpufreq"}},
    {"epp-not-performance", rule_epp_not_performance, {"cpufreq"}},
};

const struct rule_section rules_frequency = {"cpu frequency", rules,
                                             sizeof rules / sizeof rules[0]};
