/*
 * cache-partition: the target CPUs get a resctrl control group of their own
 * (jitterlab-rt, or --cache-group) holding N ways of every L3 domain in
 * exclusive mode, and the default group keeps the rest. N is --cache-ways,
 * or enough for a run's ptrchase working set, or a quarter of the ways. The
 * ways are the highest contiguous run that no other group uses, away from
 * shareable_bits (ways I/O and GPUs fill too) where possible. The plan, in
 * apply order: mount resctrl (then the rest is planned once info/L3 can be
 * read), shrink the default group, mkdir the group, its cpus_list,
 * schemata, mode. Restore runs backwards: the rmdir gives the CPUs back to
 * the default group before its ways are widened again.
 */
#include "tune/tune_resctrl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/cache_info.h"
#include "sys/cpulist.h"
#include "sys/resctrl.h"

#define ACTION "cache-partition"

/* The refusal of the plan: "OPT VALUE: why" when an option caused it. */
static void refuse(struct tune_plan *plan, const char *opt, long value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void refuse(struct tune_plan *plan, const char *opt, long value, const char *fmt, ...)
{
    char why[240];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (opt)
        snprintf(plan->refusal, sizeof plan->refusal, "%s %ld: %s", opt, value, why);
    else
        snprintf(plan->refusal, sizeof plan->refusal, ACTION ": %s", why);
}

static uint64_t run_of(int n, int shift)
{
    return (n >= 64 ? ~0ull : ((1ull << n) - 1)) << shift;
}

static uint64_t mask_at(const struct resctrl_group *g, int id)
{
    for (int i = 0; g && i < g->ndomains; i++)
        if (g->domain[i].id == id)
            return g->domain[i].mask;
    return 0;
}

/* "L3:0=e00;1=e00" with mask[i] for each domain of d (and an MB line). */
static void schemata_text(char *buf, size_t len, const struct resctrl_group *d,
                          const uint64_t *mask, const int *mb)
{
    size_t used = resctrl_format_l3(d, mask, buf, len);
    for (int i = 0; mb && i < d->ndomains && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%d=%d",
                                 i ? ";" : "\nMB:", d->domain[i].id, mb[i]);
}

/* The ways asked for: --cache-ways, the working set's, or a quarter. */
static int wanted_ways(const struct tune_request *rq, const struct resctrl_info *r,
                       struct tune_plan *plan, const char **opt)
{
    *opt = NULL;
    if (rq->cache_ways > 0) {
        *opt = "--cache-ways";
        return rq->cache_ways;
    }
    uint64_t l3 = rq->cache_working_set_size ? cache_size_bytes(rq->sr, 3) : 0;
    if (l3 > 0) {
        uint64_t way = l3 / (uint64_t)r->cbm_bits;
        int n = way ? (int)((rq->cache_working_set_size + way - 1) / way) : r->cbm_bits;
        if (n > r->cbm_bits)
            n = r->cbm_bits;
        tune_plan_note(plan, ACTION ": the working set of %llu KiB needs %d way%s of %llu KiB",
                       (unsigned long long)(rq->cache_working_set_size / 1024), n,
                       n == 1 ? "" : "s", (unsigned long long)(way / 1024));
        return n > r->min_cbm_bits ? n : r->min_cbm_bits;
    }
    int n = (r->cbm_bits + 3) / 4;
    return n > r->min_cbm_bits ? n : r->min_cbm_bits;
}

/* The L3 ids of the target CPUs' caches, or 0 when unreadable (then every
 * domain counts). */
static int target_domains(const struct tune_request *rq, int *ids, int max)
{
    int n = 0;
    for (int i = 0; i < rq->targets.count; i++) {
        char path[96];
        int64_t id;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index3/id",
                 rq->targets.cpu[i]);
        if (sysroot_read_int64(rq->sr, path, &id) != 0)
            return 0;
        bool seen = false;
        for (int k = 0; k < n; k++)
            seen = seen || ids[k] == (int)id;
        if (!seen && n < max)
            ids[n++] = (int)id;
    }
    return n;
}

/* Whether the ways left to the default group are valid on every domain. */
static bool default_keeps_enough(const struct resctrl_info *r, const uint64_t *avail, int nd,
                                 uint64_t m)
{
    for (int i = 0; i < nd; i++) {
        uint64_t rest = avail[i] & ~m & r->cbm_mask;
        if (__builtin_popcountll(rest) < r->min_cbm_bits || !resctrl_mask_contiguous(rest))
            return false;
    }
    return true;
}

/* The group's mask: the highest run of n ways no other group holds, away
 * from shareable_bits when it can be. 0 with the plan refused. */
static uint64_t choose_mask(const struct resctrl_info *r, const struct resctrl_group *ours,
                            const uint64_t *avail, int n, struct tune_plan *plan, const char *opt)
{
    const struct resctrl_group *def = &r->group[0];
    int lo = __builtin_ctzll(r->cbm_mask);
    const struct resctrl_group *overlap = NULL;
    uint64_t overlap_mask = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int s = lo + r->cbm_bits - n; s >= lo; s--) {
            uint64_t m = run_of(n, s);
            if (pass == 0 && (m & r->shareable_bits))
                continue;
            const struct resctrl_group *hit = NULL;
            for (int g = 1; g < r->ngroups && !hit; g++) {
                if (&r->group[g] == ours)
                    continue;
                for (int i = 0; i < def->ndomains && !hit; i++)
                    if (mask_at(&r->group[g], def->domain[i].id) & m)
                        hit = &r->group[g];
            }
            if (hit) {
                if (!overlap) {
                    overlap = hit;
                    overlap_mask = m;
                }
                continue;
            }
            if (default_keeps_enough(r, avail, def->ndomains, m))
                return m;
        }
    }
    if (overlap)
        refuse(plan, opt, n,
               "group %s's L3 mask overlaps the ways needed (%llx); cannot give %d exclusive "
               "way%s",
               overlap->name, (unsigned long long)overlap_mask, n, n == 1 ? "" : "s");
    else
        refuse(plan, opt, n,
               "the default group's ways cannot give %d contiguous way%s and keep %d "
               "contiguous (min_cbm_bits)",
               n, n == 1 ? "" : "s", r->min_cbm_bits);
    return 0;
}

/* Checks and limits that refuse the plan; 0 when it may go on. */
static int check_limits(const struct tune_request *rq, const struct resctrl_info *r,
                        const struct resctrl_group *ours, int n, const char *opt,
                        struct tune_plan *plan)
{
    if (rq->mba_pct && !r->mb_info) {
        refuse(plan, "--mba", rq->mba_pct,
               "this machine has no memory bandwidth allocation (no %s/info/MB)", RESCTRL_ROOT);
        return -1;
    }
    for (int i = 0; rq->mba_pct && i < r->group[0].ndomains; i++)
        if (r->group[0].domain[i].mb < 0) {
            refuse(plan, "--mba", rq->mba_pct,
                   "the default group's schemata has no MB value for L3 domain %d",
                   r->group[0].domain[i].id);
            return -1;
        }
    if (n > r->cbm_bits - r->min_cbm_bits) {
        refuse(plan, opt, n,
               "more ways than the default group can give (%d in all, it keeps at least %d, "
               "min_cbm_bits)",
               r->cbm_bits, r->min_cbm_bits);
        return -1;
    }
    if (n < r->min_cbm_bits) {
        refuse(plan, opt, n, "fewer ways than min_cbm_bits (%d)", r->min_cbm_bits);
        return -1;
    }
    if (!ours && r->num_closids > 0 && r->ngroups >= r->num_closids) {
        refuse(plan, NULL, 0, "no free CLOSID: %d groups use all %d", r->ngroups, r->num_closids);
        return -1;
    }
    if (r->group[0].ndomains == 0 || !r->group[0].l3_read) {
        refuse(plan, NULL, 0, "the default group's schemata has no L3 line");
        return -1;
    }
    return 0;
}

/* The MB value the kernel keeps for pct: rounded up to its granularity. */
static int mb_value(const struct resctrl_info *r, int pct)
{
    int v = pct;
    if (r->mb_gran > 1)
        v = (v + r->mb_gran - 1) / r->mb_gran * r->mb_gran;
    if (v < r->mb_min_bandwidth)
        v = r->mb_min_bandwidth;
    return v > 100 ? 100 : v;
}

struct partition {
    const char *name;
    char dir[128];
    uint64_t mask;
    char cpus[1024];
    uint64_t avail[RESCTRL_MAX_DOMAINS], rest[RESCTRL_MAX_DOMAINS], mine[RESCTRL_MAX_DOMAINS];
    uint64_t full[RESCTRL_MAX_DOMAINS];
    int mb[RESCTRL_MAX_DOMAINS], old_mb[RESCTRL_MAX_DOMAINS];
};

static bool already_done(const struct resctrl_info *r, const struct resctrl_group *ours,
                         const struct partition *p, bool mb)
{
    const struct resctrl_group *def = &r->group[0];
    struct cpulist now;
    char now_text[1024];
    if (!ours || (!r->l2_info && strcmp(ours->mode, "exclusive") != 0) ||
        cpulist_parse(ours->cpus_list, &now, &(const char *){NULL}) != 0 ||
        cpulist_format(&now, now_text, sizeof now_text) != 0 || strcmp(now_text, p->cpus) != 0)
        return false;
    for (int i = 0; i < def->ndomains; i++)
        if (mask_at(ours, def->domain[i].id) != p->mask || def->domain[i].mask != p->rest[i] ||
            (mb && def->domain[i].mb != p->mb[i]))
            return false;
    return true;
}

static void add_changes(struct tune_plan *plan, const struct resctrl_info *r,
                        const struct resctrl_group *ours, const struct partition *p, bool mb)
{
    const struct resctrl_group *def = &r->group[0];
    char path[192], what[200], old[2048], new_value[2048];
    uint64_t def_old[RESCTRL_MAX_DOMAINS];
    bool def_changes = false, group_changes = false;
    for (int i = 0; i < def->ndomains; i++) {
        def_old[i] = def->domain[i].mask;
        def_changes = def_changes || def_old[i] != p->rest[i] || (mb && p->old_mb[i] != p->mb[i]);
        group_changes = group_changes || !ours || mask_at(ours, def->domain[i].id) != p->mask;
    }
    /* an exclusive group of ours that only shrinks gives its ways up first */
    bool group_first = false;
    for (int i = 0; ours && i < def->ndomains; i++)
        group_first = group_first || (strcmp(ours->mode, "exclusive") == 0 &&
                                      (p->mine[i] & ~p->mask) && !(p->mask & ~p->mine[i]));
    for (int step = 0; step < 2; step++) {
        if ((step == 0) != group_first && def_changes) {
            schemata_text(old, sizeof old, def, def_old, mb ? p->old_mb : NULL);
            schemata_text(new_value, sizeof new_value, def, p->rest, mb ? p->mb : NULL);
            snprintf(what, sizeof what, "default resctrl group: the L3 ways %s",
                     mb ? "and memory bandwidth left to the other CPUs" : "left to the other CPUs");
            tune_plan_add(plan, ACTION, RESCTRL_ROOT "/schemata", old, new_value, what);
        }
        if ((step == 0) != group_first)
            continue;
        if (!ours) {
            snprintf(what, sizeof what, "resctrl group %s for the target CPUs", p->name);
            tune_plan_add_op(plan, TUNE_OP_MKDIR, ACTION, p->dir, what);
        }
        struct cpulist now;
        char now_text[1024] = "";
        if (ours && cpulist_parse(ours->cpus_list, &now, &(const char *){NULL}) == 0)
            cpulist_format(&now, now_text, sizeof now_text);
        if (strcmp(now_text, p->cpus) != 0) {
            snprintf(path, sizeof path, "%s/cpus_list", p->dir);
            snprintf(what, sizeof what, "group %s: the target CPUs", p->name);
            tune_plan_add(plan, ACTION, path, ours ? ours->cpus_list : "", p->cpus, what);
        }
        if (group_changes) {
            uint64_t want[RESCTRL_MAX_DOMAINS];
            for (int i = 0; i < def->ndomains; i++)
                want[i] = p->mask;
            snprintf(path, sizeof path, "%s/schemata", p->dir);
            schemata_text(old, sizeof old, def, ours ? p->mine : p->full, NULL);
            schemata_text(new_value, sizeof new_value, def, want, NULL);
            snprintf(what, sizeof what, "group %s: %d L3 way%s of its own on every domain", p->name,
                     __builtin_popcountll(p->mask), __builtin_popcountll(p->mask) == 1 ? "" : "s");
            tune_plan_add(plan, ACTION, path, old, new_value, what);
        }
        /* The kernel checks exclusive mode against every resource: with L2
         * allocation too, a new group's full L2 mask overlaps the default
         * group's and the write is refused. The L3 masks are disjoint either
         * way; the mode is only the kernel's guard against later overlaps. */
        if (!r->l2_info && (!ours || strcmp(ours->mode, "exclusive") != 0)) {
            snprintf(path, sizeof path, "%s/mode", p->dir);
            snprintf(what, sizeof what, "group %s: no other group may use its ways", p->name);
            tune_plan_add(plan, ACTION, path, ours && ours->mode[0] ? ours->mode : "shareable",
                          "exclusive", what);
        }
    }
}

static void plan_partition(const struct tune_request *rq, const struct resctrl_info *r,
                           struct tune_plan *plan, struct partition *p)
{
    const struct resctrl_group *def = &r->group[0];
    const struct resctrl_group *ours = resctrl_group_find(r, p->name);
    const char *opt;
    int n = wanted_ways(rq, r, plan, &opt);
    if (check_limits(rq, r, ours, n, opt, plan) != 0)
        return;
    int ids[RESCTRL_MAX_DOMAINS];
    int nt = target_domains(rq, ids, RESCTRL_MAX_DOMAINS);
    for (int i = 0; i < def->ndomains; i++) {
        p->mine[i] = mask_at(ours, def->domain[i].id);
        p->avail[i] = (def->domain[i].mask | p->mine[i]) & r->cbm_mask;
        p->full[i] = r->cbm_mask;
        p->old_mb[i] = def->domain[i].mb;
        p->mb[i] = rq->mba_pct ? mb_value(r, rq->mba_pct) : def->domain[i].mb;
    }
    /* one mask for every target domain: their default groups must agree */
    uint64_t common = 0;
    bool first = true;
    for (int i = 0; i < def->ndomains; i++) {
        bool target = nt == 0;
        for (int k = 0; k < nt; k++)
            target = target || ids[k] == def->domain[i].id;
        if (!target)
            continue;
        if (!first && p->avail[i] != common) {
            refuse(plan, NULL, 0,
                   "the L3 domains of the target CPUs hold different default masks (%llx, "
                   "%llx): cannot partition them consistently",
                   (unsigned long long)common, (unsigned long long)p->avail[i]);
            return;
        }
        common = p->avail[i];
        first = false;
    }
    p->mask = choose_mask(r, ours, p->avail, n, plan, opt);
    if (!p->mask)
        return;
    for (int i = 0; i < def->ndomains; i++)
        p->rest[i] = p->avail[i] & ~p->mask & r->cbm_mask;
    if (already_done(r, ours, p, rq->mba_pct != 0)) {
        tune_plan_note(plan, ACTION ": group %s already holds CPUs %s with L3 ways %llx", p->name,
                       p->cpus, (unsigned long long)p->mask);
        return;
    }
    add_changes(plan, r, ours, p, rq->mba_pct != 0);
}

void plan_cache_partition(const struct tune_request *rq, struct tune_plan *plan)
{
    struct resctrl_info *r = malloc(sizeof *r);
    struct read_notes *notes = calloc(1, sizeof *notes);
    struct partition *p = calloc(1, sizeof *p);
    if (!r || !notes || !p) {
        plan->out_of_memory = true;
        free(r);
        free(notes);
        free(p);
        return;
    }
    resctrl_read(rq->sr, r, notes);
    p->name = rq->cache_group ? rq->cache_group : TUNE_CACHE_GROUP;
    snprintf(p->dir, sizeof p->dir, "%s/%s", RESCTRL_ROOT, p->name);
    cpulist_format(&rq->targets, p->cpus, sizeof p->cpus);
    if (r->why_unsupported[0])
        tune_plan_note(plan, ACTION ": not supported here: %s; nothing to do", r->why_unsupported);
    else if (!tune_group_name_ok(p->name))
        refuse(plan, NULL, 0, "'%s' is not a plain group name", p->name);
    else if (!r->mounted) {
        tune_plan_add_op(plan, TUNE_OP_MOUNT, ACTION, RESCTRL_ROOT, "mount resctrl");
        tune_plan_note(plan, ACTION ": resctrl is not mounted; the group and its ways are "
                                    "planned once it is (info/L3 holds the limits)");
    } else if (!r->l3_info)
        tune_plan_note(plan,
                       ACTION ": no L3 cache allocation in %s/info (none, or CDP on); "
                              "nothing to do",
                       RESCTRL_ROOT);
    else
        plan_partition(rq, r, plan, p);
    free(r);
    free(notes);
    free(p);
}
