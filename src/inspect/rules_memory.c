/*
 * The memory rules: transparent huge pages and swap in use.
 * One function and one table entry per finding id; rules_common.h has the
 * helpers, inspect_rules.c joins the sections in report order.
 */
#include "inspect/rules_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void rule_thp_enabled(struct rule_ctx *c)
{
    const char *v = c->s->tunables.thp_enabled;
    if (!v[0]) {
        rule_unknown(c, "/sys/kernel/mm/transparent_hugepage/enabled missing or unreadable");
        return;
    }
    enum inspect_severity sev = strcmp(v, "always") == 0    ? INSPECT_WARNING
                                : strcmp(v, "madvise") == 0 ? INSPECT_INFO
                                                            : INSPECT_OK;
    struct inspect_finding *f = rule_emit(c, sev, "");
    rule_evidence(f, "/sys/kernel/mm/transparent_hugepage/enabled", "%s", v);
    if (sev == INSPECT_WARNING)
        rule_effect(f,
                    "every process gets huge pages: page faults may compact memory and "
                    "khugepaged collapses pages in the background, stalls of up to milliseconds");
    else if (sev == INSPECT_INFO)
        rule_effect(f, "huge pages only where a program asks for them (madvise)");
    else
        rule_effect(f, "transparent huge pages are off");
    rule_fix_tune(c, f, 0, "echo never > /sys/kernel/mm/transparent_hugepage/enabled");
    rule_fix_more(f, "; boot: transparent_hugepage=never");
}

static void rule_swap_in_use(struct rule_ctx *c)
{
    const struct kernel_tunables *t = &c->s->tunables;
    if (t->swap_total_kb == VALUE_UNKNOWN || t->swap_free_kb == VALUE_UNKNOWN) {
        rule_unknown(c, "/proc/meminfo missing or without SwapTotal/SwapFree");
        return;
    }
    int64_t used = t->swap_total_kb - t->swap_free_kb;
    enum inspect_severity sev = used > 0               ? INSPECT_WARNING
                                : t->swap_total_kb > 0 ? INSPECT_INFO
                                                       : INSPECT_OK;
    struct inspect_finding *f = rule_emit(c, sev, "");
    rule_evidence(f, "/proc/meminfo", "SwapTotal %lld kB, SwapFree %lld kB",
                  (long long)t->swap_total_kb, (long long)t->swap_free_kb);
    if (used > 0)
        rule_effect(f,
                    "%lld MiB are swapped out: a thread that touches such a page waits for the "
                    "disk; only memory-locked (mlockall) processes are safe",
                    (long long)(used / 1024));
    else if (t->swap_total_kb > 0)
        rule_effect(f, "swap is configured (%lld MiB) but unused",
                    (long long)(t->swap_total_kb / 1024));
    else
        rule_effect(f, "no swap");
    rule_fix(f, "swapoff -a (and drop swap from /etc/fstab); real-time processes mlockall their "
                "memory (jitterlab run does)");
}

static const struct inspect_rule rules[] = {
    {"thp-enabled", rule_thp_enabled, {"thp"}},
    {"swap-in-use", rule_swap_in_use, {NULL}},
};

const struct rule_section rules_memory = {"memory", rules, sizeof rules / sizeof rules[0]};
