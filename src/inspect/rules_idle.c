/*
 * The cpu idle rules: can an enabled idle state of the target CPUs exit slower
 * than the budget allows, and does a PM QoS request keep the governor out of it.
 * One function and one table entry per finding id; rules_common.h has the
 * helpers, inspect_rules.c joins the sections in report order.
 */
#include "inspect/rules_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/pm_qos.h"

/* The latency limit (µs) the idle governor honours on a CPU: the smaller
 * of the global PM QoS request and the CPU's resume latency; -1 = none. */
static int64_t idle_limit_us(const struct inspect_system *s, const struct cpuidle_cpu *c)
{
    int64_t limit = -1;
    int64_t global = s->base.cpu_dma_latency_us;
    if (global >= 0 && global < PM_QOS_NO_REQUEST_US)
        limit = global;
    if (c->resume_latency_us == RESUME_LATENCY_NONE_ALLOWED)
        limit = 0;
    else if (c->resume_latency_us > 0 && (limit < 0 || c->resume_latency_us < limit))
        limit = c->resume_latency_us;
    return limit;
}

static bool state_reachable(const struct cpuidle_state_info *st, int64_t limit_us)
{
    if (st->disable == 1 || st->latency_us == VALUE_UNKNOWN)
        return false;
    return limit_us < 0 || st->latency_us <= limit_us;
}

/* One idle state name over the threshold, merged across the target CPUs. */
struct slow_state {
    char name[32];
    int64_t latency_us;
    int cpu_first, state_index;
    struct cpulist *cpus;
};

#define MAX_SLOW_STATES CPUIDLE_MAX_STATES

static int collect_slow_states(const struct inspect_system *s, int64_t threshold_ns,
                               struct slow_state *slow, int *nslow, int *cpus_with_states)
{
    *nslow = 0;
    *cpus_with_states = 0;
    for (int i = 0; i < s->targets.count; i++) {
        const struct cpuidle_cpu *c = cpuidle_find_cpu(&s->cpuidle, s->targets.cpu[i]);
        if (!c || c->nstates == 0)
            continue;
        (*cpus_with_states)++;
        int64_t limit = idle_limit_us(s, c);
        for (int k = 0; k < c->nstates; k++) {
            const struct cpuidle_state_info *st = &c->state[k];
            if (!state_reachable(st, limit) || st->latency_us * 1000 <= threshold_ns)
                continue;
            int j = 0;
            while (j < *nslow && strcmp(slow[j].name, st->name) != 0)
                j++;
            if (j == *nslow) {
                if (*nslow >= MAX_SLOW_STATES)
                    continue;
                slow[j].cpus = rule_new_list();
                if (!slow[j].cpus)
                    return -1;
                snprintf(slow[j].name, sizeof slow[j].name, "%s", st->name);
                slow[j].latency_us = st->latency_us;
                slow[j].cpu_first = c->cpu;
                slow[j].state_index = st->index;
                (*nslow)++;
            }
            if (st->latency_us > slow[j].latency_us)
                slow[j].latency_us = st->latency_us;
            cpulist_add(slow[j].cpus, c->cpu);
        }
    }
    return 0;
}

static void free_slow_states(struct slow_state *slow, int n)
{
    for (int i = 0; i < n; i++)
        free(slow[i].cpus);
}

static int compare_slow_desc(const void *a, const void *b)
{
    const struct slow_state *x = a, *y = b;
    return (y->latency_us > x->latency_us) - (y->latency_us < x->latency_us);
}

static const char *max_cstate_param(const struct inspect_system *s)
{
    if (strcmp(s->cpuidle.driver, "intel_idle") == 0)
        return "intel_idle.max_cstate=1";
    return "processor.max_cstate=1";
}

static void rule_cstate_exit_latency(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    struct slow_state slow[MAX_SLOW_STATES];
    int nslow = 0, with_states = 0;
    /* critical above the budget, a warning above half of it */
    int64_t threshold = c->budget_ns / 2;
    if (collect_slow_states(s, threshold, slow, &nslow, &with_states) != 0) {
        free_slow_states(slow, nslow);
        rule_unknown(c, "out of memory");
        return;
    }
    if (with_states == 0) {
        const char *drv = s->cpuidle.driver;
        if (!drv[0]) {
            rule_unknown(c, "no cpuidle states or driver readable under "
                            "/sys/devices/system/cpu (cpuidle/current_driver missing)");
            return;
        }
        struct inspect_finding *f = rule_emit(c, INSPECT_INFO, c->targets);
        rule_evidence(f, "/sys/devices/system/cpu/cpuidle/current_driver", "%s", drv);
        rule_effect(
            f,
            "no idle states listed for the target CPUs (driver %s): the CPU idles with the "
            "architecture default (HLT on x86), whose exit latency the kernel does not report",
            drv);
        rule_fix(f,
                 "nothing to tune in sysfs; idle=poll on the kernel command line trades power for "
                 "the lowest wake-up latency");
        return;
    }
    qsort(slow, (size_t)nslow, sizeof slow[0], compare_slow_desc);
    if (nslow == 0) {
        /* report the deepest reachable state of the first target with states */
        struct inspect_finding *f = rule_emit(c, INSPECT_OK, c->targets);
        rule_fix(f, "nothing to do");
        for (int i = 0; i < s->targets.count && f; i++) {
            const struct cpuidle_cpu *cc = cpuidle_find_cpu(&s->cpuidle, s->targets.cpu[i]);
            if (!cc || cc->nstates == 0)
                continue;
            int64_t limit = idle_limit_us(s, cc);
            const struct cpuidle_state_info *deepest = NULL;
            for (int k = 0; k < cc->nstates; k++)
                if (state_reachable(&cc->state[k], limit))
                    deepest = &cc->state[k];
            if (deepest) {
                char path[128];
                snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/latency",
                         cc->cpu, deepest->index);
                rule_evidence(f, path, "%lld (%s)", (long long)deepest->latency_us, deepest->name);
                rule_effect(f,
                            "the deepest idle state in use, %s, exits in %lld µs, within the %s "
                            "budget",
                            deepest->name, (long long)deepest->latency_us, c->budget);
            } else {
                rule_effect(f, "every idle state but polling is disabled or held off by PM QoS");
            }
            break;
        }
        return;
    }
    bool over = slow[0].latency_us * 1000 > c->budget_ns;
    struct cpulist *all = rule_new_list();
    if (!all) {
        free_slow_states(slow, nslow);
        return;
    }
    char names[256] = "";
    size_t used = 0;
    for (int i = 0; i < nslow; i++) {
        for (int k = 0; k < slow[i].cpus->count; k++)
            cpulist_add(all, slow[i].cpus->cpu[k]);
        int n = snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", slow[i].name);
        if (n > 0 && (size_t)n < sizeof names - used)
            used += (size_t)n;
    }
    char cpus[256], phrase[280];
    rule_cpus_texts(all, cpus, sizeof cpus, phrase, sizeof phrase);
    struct inspect_finding *f = rule_emit(c, over ? INSPECT_CRITICAL : INSPECT_WARNING, cpus);
    for (int i = 0; i < nslow; i++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/latency",
                 slow[i].cpu_first, slow[i].state_index);
        rule_evidence(f, path, "%lld (%s, enabled)", (long long)slow[i].latency_us, slow[i].name);
    }
    if (s->base.cpu_dma_latency_us >= 0)
        rule_evidence(f, "/dev/cpu_dma_latency", "%lld", (long long)s->base.cpu_dma_latency_us);
    if (over)
        rule_effect(f,
                    "%s exit latency %lld µs exceeds the %s budget on %s (reachable states over "
                    "half the budget: %s); a wake-up from it alone can miss the deadline",
                    slow[0].name, (long long)slow[0].latency_us, c->budget, phrase, names);
    else
        rule_effect(f, "%s exit latency %lld µs takes more than half of the %s budget on %s",
                    slow[0].name, (long long)slow[0].latency_us, c->budget, phrase);
    rule_fix_tune(c, f, 0,
                  "echo 1 > /sys/devices/system/cpu/cpuN/cpuidle/stateK/disable for %s on %s",
                  names, phrase);
    rule_fix_tune(c, f, 1,
                  "echo %lld > /sys/devices/system/cpu/cpuN/power/pm_qos_resume_latency_us",
                  (long long)(c->budget_ns / 2000 > 0 ? c->budget_ns / 2000 : 1));
    rule_fix_tune_plain(c, f, 2);
    rule_fix_more(f,
                  "; boot: %s; firmware: limit package C-states (C-state limit C1, or the "
                  "vendor's real-time mode)",
                  max_cstate_param(s));
    free(all);
    free_slow_states(slow, nslow);
}

static void rule_pm_qos_unset(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    int64_t v = s->base.cpu_dma_latency_us;
    if (v < 0) {
        rule_unknown(c, "/dev/cpu_dma_latency unreadable (needs root) or absent");
        return;
    }
    struct slow_state slow[MAX_SLOW_STATES];
    int nslow = 0, with_states = 0;
    collect_slow_states(s, c->budget_ns, slow, &nslow, &with_states);
    free_slow_states(slow, nslow);
    struct inspect_finding *f;
    if (v == PM_QOS_NO_REQUEST_US) {
        f = rule_emit(c, nslow > 0 ? INSPECT_WARNING : INSPECT_OK, nslow > 0 ? c->targets : "");
        rule_evidence(f, "/dev/cpu_dma_latency", "%lld (no request)", (long long)v);
        if (nslow > 0)
            rule_effect(f,
                        "no CPU latency request is in force, so nothing keeps the idle governor "
                        "out of states that exit slower than the %s budget",
                        c->budget);
        else
            rule_effect(f,
                        "no CPU latency request is in force; none is needed: no enabled idle "
                        "state exits slower than the %s budget",
                        c->budget);
    } else {
        bool loose = v * 1000 > c->budget_ns;
        f = rule_emit(c, loose ? INSPECT_INFO : INSPECT_OK, "");
        rule_evidence(f, "/dev/cpu_dma_latency", "%lld", (long long)v);
        rule_effect(f,
                    "a CPU latency request of %lld µs is in force (%s the %s budget); it lasts "
                    "only while its holder keeps the file open",
                    (long long)v, loose ? "looser than" : "within", c->budget);
    }
    rule_fix_tune(c, f, 0, "holds /dev/cpu_dma_latency at %lld µs",
                  (long long)(c->budget_ns / 2000));
    rule_fix_more(f, ", or jitterlab run --pm-qos %lld for the length of a measurement",
                  (long long)(c->budget_ns / 2000));
}

static const struct inspect_rule rules[] = {
    {"cstate-exit-latency", rule_cstate_exit_latency, {"idle-states", "resume-latency", "pm-qos"}},
    {"pm-qos-unset", rule_pm_qos_unset, {"pm-qos"}},
};

const struct rule_section rules_idle = {"cpu idle", rules, sizeof rules / sizeof rules[0]};
