/*
 * The kernel rules: the preemption model against the budget, and the NMI
 * watchdog that interrupts every CPU.
 * One function and one table entry per finding id; rules_common.h has the
 * helpers, inspect_rules.c joins the sections in report order.
 */
#include "inspect/rules_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void rule_not_preempt_rt(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    const char *model = s->base.preempt_model;
    struct inspect_finding *f;
    if (strcmp(model, "PREEMPT_RT") == 0) {
        f = rule_emit(c, INSPECT_OK, "");
        rule_evidence(f, s->base.preempt_source, "PREEMPT_RT");
        rule_effect(f, "a PREEMPT_RT kernel: interrupt handlers and most kernel locks are "
                       "preemptible");
        rule_fix(f, "nothing to do");
        return;
    }
    bool full = strcmp(model, "full") == 0 || strcmp(model, "lazy") == 0;
    int64_t limit_ns = full ? 200 * 1000 : 1000 * 1000;
    f = rule_emit(c, c->budget_ns < limit_ns ? INSPECT_CRITICAL : INSPECT_WARNING, "");
    /* PREEMPT_DYNAMIC with nothing saying which mode it booted in: none,
     * voluntary or full, an order of magnitude apart */
    bool undecided = strcmp(model, "dynamic") == 0;
    if (undecided)
        rule_unbounded(f);
    if (strcmp(s->base.preempt_source, "/proc/config.gz") == 0) {
        char option[32] = "CONFIG_PREEMPT";
        if (!full || strcmp(model, "lazy") == 0) {
            size_t n = strlen(option);
            option[n++] = '_';
            for (const char *m = model; *m && n < sizeof option - 1; m++)
                option[n++] = (char)(*m >= 'a' && *m <= 'z' ? *m - 'a' + 'A' : *m);
            option[n] = '\0';
        }
        rule_evidence(f, "/proc/config.gz", "%s=y%s", option,
                      s->config.preempt_dynamic ? ", CONFIG_PREEMPT_DYNAMIC=y (boot default)" : "");
    } else
        rule_evidence(f, s->base.preempt_source[0] ? s->base.preempt_source : "/proc/version", "%s",
                      model[0] ? model : "no PREEMPT flag (none or voluntary)");
    rule_evidence(f, "/proc/sys/kernel/osrelease", "%s", s->base.kernel);
    if (full)
        rule_effect(f,
                    "preemption model %s without PREEMPT_RT: spinlock sections, softirqs and "
                    "interrupt handlers run non-preemptible, for hundreds of µs under load, "
                    "%s the %s budget",
                    model, c->budget_ns < limit_ns ? "above" : "near", c->budget);
    else if (undecided)
        rule_effect(f,
                    "a PREEMPT_DYNAMIC kernel whose running mode (none, voluntary or full) "
                    "could not be read (root reads /sys/kernel/debug/sched/preempt): without "
                    "PREEMPT_RT the worst case is up to milliseconds under load, %s the %s "
                    "budget, and cannot be bounded from here (measure it)",
                    c->budget_ns < limit_ns ? "above" : "near", c->budget);
    else
        rule_effect(f,
                    "preemption model %s: the kernel switches to a woken real-time thread only "
                    "at preemption points, after up to milliseconds under load, %s the %s budget",
                    model[0] ? model : "none/voluntary", c->budget_ns < limit_ns ? "above" : "near",
                    c->budget);
    rule_fix(f, "install a PREEMPT_RT kernel (Debian: linux-image-rt-amd64; mainline 6.12+: "
                "CONFIG_PREEMPT_RT=y); on a PREEMPT_DYNAMIC kernel boot preempt=full at least");
}

static void rule_nmi_watchdog(struct rule_ctx *c)
{
    int64_t v = c->s->tunables.nmi_watchdog;
    if (v == VALUE_UNKNOWN) {
        rule_unknown(c, "/proc/sys/kernel/nmi_watchdog missing or unreadable");
        return;
    }
    struct inspect_finding *f = rule_emit(c, v ? INSPECT_WARNING : INSPECT_OK, v ? c->targets : "");
    rule_evidence(f, "/proc/sys/kernel/nmi_watchdog", "%lld", (long long)v);
    if (v)
        rule_effect(f, "the hard-lockup detector raises a non-maskable interrupt on every CPU "
                       "every few seconds (a perf counter overflow), a few µs that nothing can "
                       "defer");
    else
        rule_effect(f, "the NMI watchdog is off");
    rule_fix_tune(c, f, 0, "echo 0 > /proc/sys/kernel/nmi_watchdog");
    rule_fix_more(f, "; boot: nmi_watchdog=0 nosoftlockup");
}

static const struct inspect_rule rules[] = {
    {"not-preempt-rt", rule_not_preempt_rt, {NULL}},
    {"nmi-watchdog", rule_nmi_watchdog, {"nmi-watchdog"}},
};

const struct rule_section rules_kernel = {"kernel", rules, sizeof rules / sizeof rules[0]};
