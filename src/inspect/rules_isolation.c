/*
 * The isolation rules: are the target CPUs out of load balancing, free of the
 * tick and of RCU callbacks, and alone on their cores.
 * One function and one table entry per finding id; rules_common.h has the
 * helpers, inspect_rules.c joins the sections in report order.
 */
#include "inspect/rules_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void rule_no_isolation(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    struct cpulist *missing = rule_new_list();
    if (!missing)
        return;
    cpulist_subtract(&s->targets, &s->base.isolated_list, missing);
    if (missing->count == 0) {
        struct inspect_finding *f = rule_emit(c, INSPECT_OK, c->targets);
        rule_evidence(f, "/sys/devices/system/cpu/isolated", "%s", s->base.isolated);
        rule_effect(f, "the target CPUs are isolated from the scheduler's load balancing");
        rule_fix(f, "nothing to do");
        free(missing);
        return;
    }
    char cpus[256], phrase[280];
    rule_cpus_texts(missing, cpus, sizeof cpus, phrase, sizeof phrase);
    struct inspect_finding *f = rule_emit(c, INSPECT_WARNING, cpus);
    rule_evidence(f, "/sys/devices/system/cpu/isolated", "%s",
                  s->base.isolated[0] ? s->base.isolated : "(none)");
    if (s->cmdline.isolcpus.present)
        rule_evidence(f, "/proc/cmdline", "isolcpus=%s", s->cmdline.isolcpus.text);
    rule_effect(f,
                "%s %s not isolated: the scheduler balances any task onto %s, and unbound "
                "kernel threads and workqueues run there",
                phrase, missing->count == 1 ? "is" : "are", missing->count == 1 ? "it" : "them");
    /* nohz_full= only where the kernel takes it, as tune proposes it: the
     * nohz-full-missing finding says what this kernel lacks */
    char nohz[300] = "";
    if (!s->config.present || s->config.no_hz_full)
        snprintf(nohz, sizeof nohz, " nohz_full=%s", cpus);
    rule_fix(f,
             "boot: isolcpus=domain,managed_irq,%s%s rcu_nocbs=%s (or a cpuset "
             "partition of type isolated at runtime)",
             cpus, nohz, cpus);
    free(missing);
}

static void rule_nohz_full_missing(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    struct cpulist *nohz = rule_new_list(), *missing = rule_new_list();
    if (!nohz || !missing) {
        free(nohz);
        free(missing);
        return;
    }
    const char *why = NULL;
    if (cpulist_parse(s->base.nohz_full, nohz, &why) != 0)
        nohz->count = 0;
    if (nohz->count == 0 && s->cmdline.nohz_full.valid)
        *nohz = s->cmdline.nohz_full.cpus;
    cpulist_subtract(&s->targets, nohz, missing);
    struct inspect_finding *f;
    if (missing->count == 0) {
        f = rule_emit(c, INSPECT_OK, c->targets);
        rule_evidence(f, "/sys/devices/system/cpu/nohz_full", "%s", s->base.nohz_full);
        rule_effect(f, "the scheduler tick stops on the target CPUs while one task runs there");
        rule_fix(f, "nothing to do");
    } else {
        char cpus[256], phrase[280];
        rule_cpus_texts(missing, cpus, sizeof cpus, phrase, sizeof phrase);
        f = rule_emit(c, INSPECT_WARNING, cpus);
        rule_evidence(f, "/sys/devices/system/cpu/nohz_full", "%s",
                      s->base.nohz_full[0] ? s->base.nohz_full : "(none or absent)");
        if (s->config.present)
            rule_evidence(f, "/proc/config.gz", "CONFIG_NO_HZ_FULL %s, CONFIG_HZ=%lld",
                          s->config.no_hz_full ? "y" : "not set",
                          (long long)(s->config.hz != VALUE_UNKNOWN ? s->config.hz : 0));
        if (s->config.hz != VALUE_UNKNOWN && s->config.hz > 0)
            rule_effect(f,
                        "the scheduler tick interrupts %s every %.3g ms (CONFIG_HZ=%lld), a few "
                        "µs each time, also while the real-time thread runs",
                        phrase, 1000.0 / (double)s->config.hz, (long long)s->config.hz);
        else
            rule_effect(f,
                        "the scheduler tick interrupts %s every 1-10 ms, a few µs each time, "
                        "also while the real-time thread runs",
                        phrase);
        rule_fix(f, "boot: nohz_full=%s%s", cpus,
                 s->config.present && !s->config.no_hz_full
                     ? " (this kernel lacks CONFIG_NO_HZ_FULL: use one built with it)"
                     : "");
    }
    free(nohz);
    free(missing);
}

static void rule_rcu_nocbs_missing(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    if (s->cmdline.rcu_nocbs.all) {
        struct inspect_finding *f = rule_emit(c, INSPECT_OK, c->targets);
        rule_evidence(f, "/proc/cmdline", "rcu_nocbs=%s", s->cmdline.rcu_nocbs.text);
        rule_effect(f, "RCU callbacks of every CPU run in rcuo kthreads");
        rule_fix(f, "nothing to do");
        return;
    }
    struct cpulist *covered = rule_new_list(), *missing = rule_new_list();
    if (!covered || !missing) {
        free(covered);
        free(missing);
        return;
    }
    *covered = s->cmdline.rcu_nocbs.cpus;
    /* nohz_full implies rcu_nocbs for the same CPUs */
    const struct cpulist *nohz = &s->cmdline.nohz_full.cpus;
    for (int i = 0; i < nohz->count; i++)
        cpulist_add(covered, nohz->cpu[i]);
    cpulist_subtract(&s->targets, covered, missing);
    struct inspect_finding *f;
    if (missing->count == 0) {
        f = rule_emit(c, INSPECT_OK, c->targets);
        rule_evidence(f, "/proc/cmdline", "rcu_nocbs=%s nohz_full=%s",
                      s->cmdline.rcu_nocbs.present ? s->cmdline.rcu_nocbs.text : "(absent)",
                      s->cmdline.nohz_full.present ? s->cmdline.nohz_full.text : "(absent)");
        rule_effect(f, "RCU callbacks of the target CPUs are offloaded to rcuo kthreads");
        rule_fix(f, "nothing to do");
    } else {
        char cpus[256], phrase[280];
        rule_cpus_texts(missing, cpus, sizeof cpus, phrase, sizeof phrase);
        f = rule_emit(c, INSPECT_WARNING, cpus);
        rule_evidence(f, "/proc/cmdline", "rcu_nocbs=%s",
                      s->cmdline.rcu_nocbs.present ? s->cmdline.rcu_nocbs.text : "(absent)");
        rule_effect(f,
                    "RCU callbacks run on %s in softirq context after each grace period, in "
                    "bursts that can take tens of µs",
                    phrase);
        rule_fix(f, "boot: rcu_nocbs=%s (implied by nohz_full=%s)", cpus, cpus);
    }
    free(covered);
    free(missing);
}

static void rule_smt_sibling_shared(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    const struct cpu_topology *t = &s->topology;
    if (strcmp(t->smt_control, "off") == 0 || strcmp(t->smt_control, "forceoff") == 0 ||
        strcmp(t->smt_control, "notsupported") == 0 || t->smt_active == 0) {
        struct inspect_finding *f = rule_emit(c, INSPECT_OK, "");
        if (t->smt_control[0])
            rule_evidence(f, "/sys/devices/system/cpu/smt/control", "%s", t->smt_control);
        if (t->smt_active != VALUE_UNKNOWN)
            rule_evidence(f, "/sys/devices/system/cpu/smt/active", "%lld",
                          (long long)t->smt_active);
        rule_effect(f, "no CPU shares its core with another hardware thread");
        rule_fix(f, "nothing to do");
        return;
    }
    struct cpulist *shared = rule_new_list(), *sib = rule_new_list(), *outside = rule_new_list();
    if (!shared || !sib || !outside) {
        free(shared);
        free(sib);
        free(outside);
        return;
    }
    int known = 0;
    bool any_outside = false;
    int example_cpu = -1;
    const char *example_list = "";
    for (int i = 0; i < s->targets.count; i++) {
        int cpu = s->targets.cpu[i];
        for (int k = 0; k < t->ncpu; k++) {
            if (t->cpu[k].cpu != cpu || !t->cpu[k].thread_siblings[0])
                continue;
            known++;
            const char *why = NULL;
            if (cpulist_parse(t->cpu[k].thread_siblings, sib, &why) != 0 || sib->count < 2)
                continue;
            cpulist_add(shared, cpu);
            cpulist_subtract(sib, &s->targets, outside);
            if (outside->count > 0)
                any_outside = true;
            if (example_cpu < 0 || outside->count > 0) {
                example_cpu = cpu;
                example_list = t->cpu[k].thread_siblings;
            }
        }
    }
    if (known == 0) {
        rule_unknown(c, "no thread_siblings_list readable for the target CPUs");
    } else if (shared->count == 0) {
        struct inspect_finding *f = rule_emit(c, INSPECT_OK, c->targets);
        rule_effect(f, "each target CPU has its core to itself");
        rule_fix(f, "nothing to do");
    } else {
        char cpus[256], phrase[280], path[96];
        rule_cpus_texts(shared, cpus, sizeof cpus, phrase, sizeof phrase);
        struct inspect_finding *f =
            rule_emit(c, any_outside ? INSPECT_WARNING : INSPECT_INFO, cpus);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
                 example_cpu);
        rule_evidence(f, path, "%s", example_list);
        if (t->smt_control[0])
            rule_evidence(f, "/sys/devices/system/cpu/smt/control", "%s", t->smt_control);
        rule_effect(f,
                    "%s share%s a core with another hardware thread (CPU %d: %s)%s: whatever "
                    "runs on the sibling competes for execution units and the L1/L2 caches",
                    phrase, shared->count == 1 ? "s" : "", example_cpu, example_list,
                    any_outside ? ", and some siblings are not target CPUs" : "");
        rule_fix(f, "take the siblings offline (echo 0 > /sys/devices/system/cpu/cpuN/online), or "
                    "boot: nosmt; firmware: disable Hyper-Threading / SMT");
    }
    free(shared);
    free(sib);
    free(outside);
}

static const struct inspect_rule rules[] = {
    {"no-isolation", rule_no_isolation, {NULL}},
    {"nohz-full-missing", rule_nohz_full_missing, {NULL}},
    {"rcu-nocbs-missing", rule_rcu_nocbs_missing, {NULL}},
    {"smt-sibling-shared", rule_smt_sibling_shared, {NULL}},
};

const struct rule_section rules_isolation = {"isolation", rules, sizeof rules / sizeof rules[0]};
