/*
 * The scheduler rules: RT throttling and timer migration.
 * One function and one table entry per finding id; rules_common.h has the
 * helpers, inspect_rules.c joins the sections in report order.
 */
#include "inspect/rules_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void rule_rt_throttling(struct rule_ctx *c)
{
    const struct kernel_tunables *t = &c->s->tunables;
    if (t->sched_rt_runtime_us == VALUE_UNKNOWN) {
        rule_unknown(c, "/proc/sys/kernel/sched_rt_runtime_us missing or unreadable");
        return;
    }
    bool on = t->sched_rt_runtime_us >= 0;
    struct inspect_finding *f = rule_emit(c, on ? INSPECT_WARNING : INSPECT_OK, "");
    rule_evidence(f, "/proc/sys/kernel/sched_rt_runtime_us", "%lld",
                  (long long)t->sched_rt_runtime_us);
    if (t->sched_rt_period_us != VALUE_UNKNOWN)
        rule_evidence(f, "/proc/sys/kernel/sched_rt_period_us", "%lld",
                      (long long)t->sched_rt_period_us);
    if (on && t->sched_rt_period_us > 0)
        rule_effect(f,
                    "real-time threads get at most %lld µs of every %lld µs; a busy-polling or "
                    "runaway RT thread is stopped for the remaining %lld µs",
                    (long long)t->sched_rt_runtime_us, (long long)t->sched_rt_period_us,
                    (long long)(t->sched_rt_period_us - t->sched_rt_runtime_us));
    else if (on)
        rule_effect(f, "real-time threads are throttled once they use up their runtime");
    else
        rule_effect(f, "real-time throttling is off");
    rule_fix_tune(c, f, 0, "echo -1 > /proc/sys/kernel/sched_rt_runtime_us");
}

static void rule_timer_migration(struct rule_ctx *c)
{
    int64_t v = c->s->tunables.timer_migration;
    if (v == VALUE_UNKNOWN) {
        rule_unknown(c, "/proc/sys/kernel/timer_migration missing or unreadable");
        return;
    }
    struct inspect_finding *f = rule_emit(c, v ? INSPECT_INFO : INSPECT_OK, "");
    rule_evidence(f, "/proc/sys/kernel/timer_migration", "%lld", (long long)v);
    rule_effect(f, v ? "timers armed on one CPU may expire on another, so timer work can land on "
                       "the real-time CPUs"
                     : "timers stay on the CPU that armed them");
    rule_fix_tune(c, f, 0, "echo 0 > /proc/sys/kernel/timer_migration");
}

static const struct inspect_rule rules[] = {
    {"rt-throttling", rule_rt_throttling, {"rt-throttling"}},
    {"timer-migration", rule_timer_migration, {"timer-migration"}},
};

const struct rule_section rules_scheduler = {"scheduler", rules, sizeof rules / sizeof rules[0]};
