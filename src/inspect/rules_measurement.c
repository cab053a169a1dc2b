/*
 * The measurement rule: what a short `jitterlab run` on the target CPUs saw
 * (inspect --measure), against the budget. The other rules read settings
 * and can only bound what they know; this one is the machine's answer,
 * including what no setting shows (a hypervisor, SMIs, firmware). No
 * finding when no measurement was asked for; unknown when it failed.
 * One function and one table entry per finding id; rules_common.h has the
 * helpers, inspect_rules.c joins the sections in report order. Its evidence
 * paths name where the values come from: "command" (the run),
 * "measured", "policy".
 */
#include "inspect/rules_common.h"

#include <stdio.h>

#include "common/units.h"

static void rule_measured_latency(struct rule_ctx *c)
{
    const struct inspect_measurement *m = c->measured;
    if (!m)
        return;
    if (!m->done) {
        rule_unknown(c, "the measurement did not run: %s", m->why);
        return;
    }
    /* A missed period means a wake-up later than the interval: with a budget
     * below the interval the max is over it too; with a larger budget the
     * user allows such latencies, and the misses are a warning. */
    bool over = m->samples == 0 || m->max_ns > c->budget_ns;
    char max[32], p99[32], interval[32], cpu[16] = "", budget_arg[32], interval_arg[32];
    format_duration_arg(c->budget_ns, budget_arg, sizeof budget_arg);
    format_duration_arg(m->interval_ns, interval_arg, sizeof interval_arg);
    format_duration(m->max_ns, max, sizeof max);
    format_duration(m->p99_ns, p99, sizeof p99);
    format_duration(m->interval_ns, interval, sizeof interval);
    if (m->samples > 0 && m->max_cpu >= 0)
        snprintf(cpu, sizeof cpu, "%d", m->max_cpu);
    struct inspect_finding *f = rule_emit(c,
                                          over        ? INSPECT_CRITICAL
                                          : m->missed ? INSPECT_WARNING
                                                      : INSPECT_OK,
                                          cpu);
    rule_evidence(f, "command", "%s", m->command);
    if (m->samples > 0)
        rule_evidence(f, "measured",
                      "max %s on CPU %d, p99 %s; %llu samples, %llu missed "
                      "periods in %.1f s%s",
                      max, m->max_cpu, p99, (unsigned long long)m->samples,
                      (unsigned long long)m->missed, m->duration_s,
                      m->interrupted ? " (interrupted)" : "");
    else
        rule_evidence(f, "measured", "no sample in %.1f s%s", m->duration_s,
                      m->interrupted ? " (interrupted)" : "");
    rule_evidence(f, "policy", "%s",
                  m->realtime ? "real-time policy (SCHED_FIFO)"
                              : "SCHED_OTHER: not a real-time measurement");
    if (m->samples == 0)
        rule_effect(f, "the measurement took no sample, so it says nothing about the %s budget",
                    c->budget);
    else if (m->max_ns > c->budget_ns)
        rule_effect(f, "measured: a wake-up %s late, above the %s budget%s", max, c->budget,
                    m->missed ? ", and whole periods missed" : "");
    else if (m->missed > 0)
        rule_effect(f,
                    "measured: %llu periods of %s missed (wake-ups later than the interval), "
                    "though the worst (%s) is within the %s budget; a loop of that period "
                    "overruns (give -i the loop's period)",
                    (unsigned long long)m->missed, interval, max, c->budget);
    else
        rule_effect(f,
                    "measured: the worst wake-up in %.1f s was %s, within the %s budget%s; rare "
                    "events need longer runs under the real load to show",
                    m->duration_s, max, c->budget,
                    m->realtime ? "" : " (at SCHED_OTHER: not a real-time measurement)");
    /* The next run keeps what this one measured: the CPUs, the interval (a
     * missed period is one of this interval) and the budget. */
    if (over)
        rule_fix(f,
                 "name the cause of each late wake-up: jitterlab run -a %s -i %s --budget %s "
                 "--explain (root), then the other findings of this report",
                 c->targets, interval_arg, budget_arg);
    else
        rule_fix(f,
                 "nothing to do; for confidence measure longer, with the real load: "
                 "jitterlab run -a %s -i %s -D 1h --budget %s --load ...",
                 c->targets, interval_arg, budget_arg);
}

static const struct inspect_rule rules[] = {
    {"measured-latency", rule_measured_latency, {NULL}},
};

const struct rule_section rules_measurement = {"measurement", rules,
                                               sizeof rules / sizeof rules[0]};
