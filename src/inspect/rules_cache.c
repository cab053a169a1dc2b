/*
 * The cache rules: whether the target CPUs have last-level cache ways of
 * their own (resctrl: Intel CAT, AMD L3 QoS). A best-effort neighbour that
 * streams through the shared L3 evicts the real-time task's working set;
 * a control task of 90 µs then takes several times as long. Partitioning
 * gives the target CPUs ways nobody else allocates into.
 *   resctrl-unmounted      supported, not mounted (nothing can be partitioned)
 *   cache-not-partitioned  the target CPUs share every L3 way with the rest
 *   cache-ways-shared      their group's ways overlap another group's, or the
 *                          ways other agents (GPU, I/O) use (shareable_bits)
 * One function and one table entry per finding id; rules_common.h has the
 * helpers, inspect_rules.c joins the sections in report order.
 */
#include "inspect/rules_common.h"

#include <stdio.h>
#include <string.h>

#define R RESCTRL_ROOT

static const struct resctrl_group *target_group(const struct rule_ctx *c)
{
    return resctrl_group_of(c->s->resctrl, &c->s->targets);
}

/* Supported but unusable here: the reason as an unknown note; true when so. */
static bool not_applicable(struct rule_ctx *c, bool need_mount)
{
    const struct resctrl_info *r = c->s->resctrl;
    if (!r)
        rule_unknown(c, "resctrl not read");
    else if (r->why_unsupported[0])
        rule_unknown(c, "no cache allocation: %s", r->why_unsupported);
    else if (need_mount && !r->mounted)
        rule_unknown(c, "resctrl is not mounted (see resctrl-unmounted)");
    else if (need_mount && !r->l3_info)
        rule_unknown(c, "%s/info/L3 missing: no L3 allocation", R);
    else
        return false;
    return true;
}

static void rule_resctrl_unmounted(struct rule_ctx *c)
{
    if (not_applicable(c, false))
        return;
    const struct resctrl_info *r = c->s->resctrl;
    struct inspect_finding *f = rule_emit(c, r->mounted ? INSPECT_OK : INSPECT_INFO, "");
    rule_evidence(f, "/proc/cpuinfo", "flags:%s%s%s%s%s", r->cat_l3 ? " cat_l3" : "",
                  r->cat_l2 ? " cat_l2" : "", r->cdp_l3 ? " cdp_l3" : "", r->mba ? " mba" : "",
                  r->rdt_a ? " rdt_a" : "");
    rule_evidence(f, "/proc/mounts", "%s", r->mounted ? "resctrl on " R : "no resctrl mount");
    if (r->mounted) {
        rule_effect(f, "resctrl is mounted on %s", R);
        rule_fix(f, "nothing to do");
        return;
    }
    rule_effect(f, "the CPU and the kernel support cache allocation, but resctrl is not "
                   "mounted, so no CPU has cache ways of its own");
    rule_fix_tune(c, f, 0, "mounts it and partitions");
    rule_fix_more(f, "; by hand: mount -t resctrl resctrl %s", R);
}

static void rule_cache_not_partitioned(struct rule_ctx *c)
{
    const struct resctrl_info *r = c->s->resctrl;
    if (r && r->why_unsupported[0]) {
        struct inspect_finding *f = rule_emit(c, INSPECT_INFO, c->targets);
        rule_evidence(f, "/proc/cpuinfo", "no cat_l3 (nor rdt_a with cat_l2) in the flags");
        rule_effect(f,
                    "no cache allocation on this machine (%s): a neighbour streaming "
                    "through the shared last-level cache cannot be fenced off",
                    r->why_unsupported);
        rule_fix(f, "keep cache-heavy work off the CPUs that share the target CPUs' last-level "
                    "cache, or use hardware with cache allocation (Intel CAT, AMD L3 QoS)");
        return;
    }
    if (not_applicable(c, false))
        return;
    char phrase[300];
    rule_cpus_phrase(c->targets, phrase, sizeof phrase);
    const struct resctrl_group *g = r->mounted ? target_group(c) : NULL;
    if (g && g->l3_read) {
        bool smaller = true;
        for (int i = 0; i < g->ndomains; i++)
            smaller = smaller && (g->domain[i].mask & r->cbm_mask) != r->cbm_mask;
        if (smaller) {
            char m[256];
            resctrl_format_l3(g, NULL, m, sizeof m);
            struct inspect_finding *f = rule_emit(c, INSPECT_OK, c->targets);
            rule_evidence(f, R "/*/cpus_list", "group %s: %s", g->name, g->cpus_list);
            rule_effect(f, "cache group %s (%s) holds %s, apart from the default group", g->name, m,
                        phrase);
            rule_fix(f, "nothing to do");
            return;
        }
    }
    struct inspect_finding *f = rule_emit(c, INSPECT_INFO, c->targets);
    if (r->mounted) {
        char m[256];
        resctrl_format_l3(&r->group[0], NULL, m, sizeof m);
        rule_evidence(f, R "/schemata", "%s", m);
        if (g)
            rule_evidence(f, R "/*/cpus_list", "group %s holds them with every way", g->name);
        else
            rule_evidence(f, R "/cpus_list", "%s", r->group[0].cpus_list);
    } else {
        rule_evidence(f, "/proc/mounts", "resctrl not mounted");
    }
    rule_effect(f,
                "%s share every last-level cache way with the other CPUs: a neighbour that "
                "thrashes the cache evicts the real-time working set (a warning wherever a "
                "load runs beside it)",
                phrase);
    rule_fix_tune(c, f, 0, "an exclusive group of ways for %s, the rest for the others", phrase);
}

static void rule_cache_ways_shared(struct rule_ctx *c)
{
    if (not_applicable(c, true))
        return;
    const struct resctrl_info *r = c->s->resctrl;
    const struct resctrl_group *g = target_group(c);
    if (!g) {
        struct inspect_finding *f = rule_emit(c, INSPECT_OK, c->targets);
        rule_evidence(f, R "/cpus_list", "%s", r->group[0].cpus_list);
        rule_effect(f, "no cache group holds the target CPUs (see cache-not-partitioned)");
        rule_fix(f, "nothing to do here");
        return;
    }
    /* overlap with every other group on the same domain, and with shareable_bits */
    char with[300] = "";
    size_t o = 0;
    uint64_t shared_hw = 0;
    for (int d = 0; d < g->ndomains; d++) {
        shared_hw |= g->domain[d].mask & r->shareable_bits;
        for (int i = 0; i < r->ngroups; i++) {
            const struct resctrl_group *h = &r->group[i];
            if (h == g)
                continue;
            for (int e = 0; e < h->ndomains; e++)
                if (h->domain[e].id == g->domain[d].id && (h->domain[e].mask & g->domain[d].mask) &&
                    !strstr(with, h->name[0] ? h->name : "(default)") && o < sizeof with)
                    o += (size_t)snprintf(with + o, sizeof with - o, "%s%s", o ? ", " : "",
                                          h->name[0] ? h->name : "(default)");
        }
    }
    char m[256];
    resctrl_format_l3(g, NULL, m, sizeof m);
    bool shared = with[0] || shared_hw;
    struct inspect_finding *f = rule_emit(c, shared ? INSPECT_WARNING : INSPECT_OK, c->targets);
    char path[160];
    snprintf(path, sizeof path, R "/%s/schemata", g->name);
    rule_evidence(f, path, "%s", m);
    snprintf(path, sizeof path, R "/%s/mode", g->name);
    rule_evidence(f, path, "%s", g->mode[0] ? g->mode : "?");
    if (shared_hw)
        rule_evidence(f, R "/info/L3/shareable_bits", "%llx",
                      (unsigned long long)r->shareable_bits);
    if (!shared) {
        rule_effect(f, "group %s has ways no other group allocates into", g->name);
        rule_fix(f, "nothing to do");
        return;
    }
    rule_effect(f,
                "group %s holds the target CPUs, but its ways overlap %s%s%s: those "
                "neighbours still evict its lines",
                g->name, with[0] ? with : "", with[0] && shared_hw ? " and " : "",
                shared_hw ? "the ways other agents use (shareable_bits)" : "");
    rule_fix_tune(c, f, 0, "rewrites the masks exclusive and contiguous");
}

static const struct inspect_rule rules[] = {
    {"resctrl-unmounted", rule_resctrl_unmounted, {"cache-partition"}},
    {"cache-not-partitioned", rule_cache_not_partitioned, {"cache-partition"}},
    {"cache-ways-shared", rule_cache_ways_shared, {"cache-partition"}},
};

const struct rule_section rules_cache = {"cache", rules, sizeof rules / sizeof rules[0]};
