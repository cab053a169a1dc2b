/*
 * The clock rules: a clocksource read in the vDSO, and an invariant TSC.
 * One function and one table entry per finding id; rules_common.h has the
 * helpers, inspect_rules.c joins the sections in report order.
 */
#include "inspect/rules_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void rule_clocksource_not_tsc(struct rule_ctx *c)
{
    const struct system_info *b = &c->s->base;
    if (!b->clocksource[0]) {
        rule_unknown(c, "current_clocksource missing or unreadable");
        return;
    }
    static const char *const slow[] = {"hpet", "acpi_pm", "jiffies", "refined-jiffies", "pit"};
    bool is_slow = false;
    for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++)
        is_slow = is_slow || strcmp(b->clocksource, slow[i]) == 0;
    bool tsc = strcmp(b->clocksource, "tsc") == 0;
    enum inspect_severity sev = tsc || !b->tsc_present ? INSPECT_OK
                                : is_slow              ? INSPECT_WARNING
                                                       : INSPECT_INFO;
    if (!is_slow && !tsc && !b->tsc_present)
        sev = INSPECT_OK; /* not x86: the architecture's counter */
    struct inspect_finding *f = rule_emit(c, sev, "");
    rule_evidence(f, "/sys/devices/system/clocksource/clocksource0/current_clocksource", "%s",
                  b->clocksource);
    rule_evidence(f, "/sys/devices/system/clocksource/clocksource0/available_clocksource", "%s",
                  b->clocksource_available);
    if (sev == INSPECT_WARNING)
        rule_effect(f,
                    "clocksource %s: every clock read is a system call and a slow device "
                    "access (~0.5-1.5 µs for HPET) instead of a ~20 ns TSC read in the vDSO",
                    b->clocksource);
    else if (sev == INSPECT_INFO)
        rule_effect(f,
                    "clocksource %s (paravirtual, read in the vDSO): fine in a VM, but "
                    "timestamps depend on the host",
                    b->clocksource);
    else
        rule_effect(f, "clocksource %s: clock reads stay in the vDSO", b->clocksource);
    if (strstr(b->clocksource_available, "tsc") && !tsc)
        rule_fix(f, "echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource "
                    "(only with an invariant, synchronised TSC: see tsc-not-invariant); boot: "
                    "clocksource=tsc");
    else
        rule_fix(f, "%s",
                 tsc ? "nothing to do"
                     : "the kernel did not offer tsc; it marks the TSC unstable when it "
                       "is not invariant or not synchronised (see tsc-not-invariant)");
}

static void rule_tsc_not_invariant(struct rule_ctx *c)
{
    const struct system_info *b = &c->s->base;
    if (!b->tsc_present) {
        rule_unknown(c, "no tsc flag in /proc/cpuinfo (not x86, or cpuinfo unreadable)");
        return;
    }
    struct inspect_finding *f = rule_emit(c, b->tsc_invariant ? INSPECT_OK : INSPECT_WARNING, "");
    rule_evidence(f, "/proc/cpuinfo", "constant_tsc %s, nonstop_tsc %s",
                  b->tsc_constant ? "yes" : "no", b->tsc_nonstop ? "yes" : "no");
    if (b->tsc_invariant)
        rule_effect(f, "the TSC ticks at a constant rate through P- and C-states");
    else
        rule_effect(f,
                    "the TSC %s: the kernel may fall back to a slow clocksource and "
                    "jitterlab run --clock tsc is refused",
                    !b->tsc_constant ? "changes rate with the CPU frequency"
                                     : "stops in deep C-states");
    rule_fix(f, "%s",
             b->tsc_invariant ? "nothing to do"
                              : "a CPU with an invariant TSC; else keep C-states shallow "
                                "(idle-states) and the frequency fixed (cpufreq)");
}

static const struct inspect_rule rules[] = {
    {"clocksource-not-tsc", rule_clocksource_not_tsc, {NULL}},
    {"tsc-not-invariant", rule_tsc_not_invariant, {NULL}},
};

const struct rule_section rules_clock = {"clock", rules, sizeof rules / sizeof rules[0]};
