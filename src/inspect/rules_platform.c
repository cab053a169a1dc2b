/*
 * The platform rule: a hypervisor under the vCPUs.
 * One function and one table entry per finding id; rules_common.h has the
 * helpers, inspect_rules.c joins the sections in report order.
 */
#include "inspect/rules_common.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"

static void rule_hypervisor(struct rule_ctx *c)
{
    const struct system_info *b = &c->s->base;
    struct inspect_finding *f = rule_emit(c, b->hypervisor[0] ? INSPECT_WARNING : INSPECT_OK, "");
    rule_evidence(f, "/proc/cpuinfo", "hypervisor flag %s", b->hypervisor[0] ? "set" : "not set");
    if (b->hypervisor[0]) {
        char budget_arg[32];
        format_duration_arg(c->budget_ns, budget_arg, sizeof budget_arg);
        rule_unbounded(f);
        if (strcmp(b->hypervisor_source, "/dev/kmsg") == 0)
            rule_evidence(f, "/dev/kmsg", "Hypervisor detected: %s", b->hypervisor);
        else if (b->hypervisor_source[0] && strcmp(b->hypervisor_source, "/proc/cpuinfo") != 0)
            rule_evidence(f, b->hypervisor_source, "%s", b->hypervisor);
        bool named = strcmp(b->hypervisor, "unknown") != 0;
        rule_effect(f,
                    "a hypervisor (%s) schedules these vCPUs: host activity, VM exits and vCPU "
                    "preemption add latency that the guest can neither see nor control, nor "
                    "bound (measure it: jitterlab inspect -a %s --budget %s --measure 60s)",
                    named ? b->hypervisor
                          : "not named: no /sys/hypervisor/type, no kernel line, no DMI vendor",
                    c->targets, budget_arg);
        rule_fix(f, "run on bare metal, or pin the vCPUs to isolated host CPUs on a real-time host "
                    "(KVM: vcpupin, SCHED_FIFO vCPU threads, isolcpus on the host)");
    } else {
        rule_effect(f, "bare metal");
        rule_fix(f, "nothing to do");
    }
}

static const struct inspect_rule rules[] = {
    {"hypervisor", rule_hypervisor, {NULL}},
};

const struct rule_section rules_platform = {"platform", rules, sizeof rules / sizeof rules[0]};
