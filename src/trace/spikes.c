/*
 * The spike store (see spikes.h). The kept spikes are a binary min-heap on
 * latency, the smallest at the root, so a spike larger than the root takes its
 * place in O(log keep); among equal latencies the later spike sits nearer the
 * root, so the earlier one stays. Summary groups are found by a linear search
 * over at most SPIKES_GROUPS_MAX entries, and so is the one that makes room
 * for a new source: spikes are rare next to cycles.
 */
#include "trace/spikes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/safe_text.h"
#include "common/units.h"

int spikes_init(struct spike_store *store, size_t keep, int ncpu)
{
    memset(store, 0, sizeof *store);
    store->kept = keep ? calloc(keep, sizeof *store->kept) : NULL;
    store->per_cpu = ncpu > 0 ? calloc((size_t)ncpu, sizeof *store->per_cpu) : NULL;
    store->per_cpu_kind =
        ncpu > 0 ? calloc((size_t)ncpu * CAUSE_KIND_COUNT, sizeof *store->per_cpu_kind) : NULL;
    store->groups = calloc(SPIKES_GROUPS_MAX + 1, sizeof *store->groups);
    if ((keep && !store->kept) || (ncpu > 0 && (!store->per_cpu || !store->per_cpu_kind)) ||
        !store->groups) {
        spikes_free(store);
        return -1;
    }
    store->keep = keep;
    store->ncpu = ncpu > 0 ? ncpu : 0;
    for (size_t g = 0; g <= SPIKES_GROUPS_MAX; g++)
        latency_hist_init(&store->groups[g].hist);
    struct spike_group *other = &store->groups[SPIKES_GROUPS_MAX];
    other->kind = CAUSE_UNEXPLAINED;
    snprintf(other->name, sizeof other->name, "%s", SPIKES_OTHER_NAME);
    return 0;
}

void spikes_free(struct spike_store *store)
{
    free(store->kept);
    free(store->per_cpu);
    free(store->per_cpu_kind);
    free(store->groups);
    memset(store, 0, sizeof *store);
}

/* ---- the heap of kept spikes ---- */

/* a goes nearer the root than b: smaller, or as large and later. */
static bool heap_before(const struct spike *a, const struct spike *b)
{
    if (a->latency_ns != b->latency_ns)
        return a->latency_ns < b->latency_ns;
    return a->planned_ns > b->planned_ns;
}

static void heap_swap(struct spike *a, struct spike *b)
{
    struct spike t = *a;
    *a = *b;
    *b = t;
}

static void heap_down(struct spike *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && heap_before(&h[l], &h[m]))
            m = l;
        if (r < n && heap_before(&h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        heap_swap(&h[i], &h[m]);
        i = m;
    }
}

static void heap_up(struct spike *h, size_t i)
{
    while (i > 0 && heap_before(&h[i], &h[(i - 1) / 2])) {
        heap_swap(&h[i], &h[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
}

static void keep_spike(struct spike_store *store, const struct spike *spike)
{
    if (store->keep == 0)
        return;
    if (store->sorted) { /* in time order since spikes_sorted_by_time: a heap again */
        for (size_t i = store->kept_count / 2; i-- > 0;)
            heap_down(store->kept, store->kept_count, i);
        store->sorted = false;
    }
    if (store->kept_count < store->keep) {
        store->kept[store->kept_count] = *spike;
        heap_up(store->kept, store->kept_count++);
    } else if (heap_before(&store->kept[0], spike)) {
        store->kept[0] = *spike;
        heap_down(store->kept, store->kept_count, 0);
    }
}

/* ---- the summary by dominant cause ---- */

/* The group with fewest spikes, the one hit longest ago among equals,
 * folded into "other"; its place is returned, empty. */
static struct spike_group *make_room(struct spike_store *store)
{
    struct spike_group *least = &store->groups[0];
    for (size_t g = 1; g < SPIKES_GROUPS_MAX; g++) {
        struct spike_group *group = &store->groups[g];
        if (group->count < least->count ||
            (group->count == least->count && group->last_seen < least->last_seen))
            least = group;
    }
    struct spike_group *other = &store->groups[SPIKES_GROUPS_MAX];
    if (other->count == 0 || least->max_ns > other->max_ns)
        other->max_ns = least->max_ns;
    other->count += least->count;
    other->total_ns += least->total_ns;
    if (least->latency_max_ns > other->latency_max_ns)
        other->latency_max_ns = least->latency_max_ns;
    other->latency_total_ns += least->latency_total_ns;
    other->folded++;
    latency_hist_merge(&other->hist, &least->hist);
    memset(least, 0, sizeof *least);
    latency_hist_init(&least->hist);
    return least;
}

static struct spike_group *group_of(struct spike_store *store, const struct spike_cause *c)
{
    for (size_t g = 0; g < store->named_groups; g++) {
        struct spike_group *group = &store->groups[g];
        if (cause_same_source(group->kind, group->name, group->prio, group->policy, c))
            return group;
    }
    struct spike_group *group = store->named_groups == SPIKES_GROUPS_MAX
                                    ? make_room(store)
                                    : &store->groups[store->named_groups++];
    group->kind = c->kind;
    memcpy(group->name, c->name, sizeof group->name);
    group->name[sizeof group->name - 1] = '\0';
    group->prio = c->kind == CAUSE_THREAD ? c->prio : 0;
    group->policy = c->kind == CAUSE_THREAD ? c->policy : -1;
    return group;
}

static void summarize_spike(struct spike_store *store, const struct spike *spike)
{
    struct spike_cause none = {.kind = CAUSE_UNEXPLAINED,
                               .ns = spike->latency_ns > 0 ? spike->latency_ns : 0};
    const struct spike_cause *dom =
        spike->ncauses > 0 && spike->dominant < spike->ncauses && spike->ncauses <= SPIKE_CAUSES_MAX
            ? &spike->causes[spike->dominant]
            : &none;
    struct spike_group *group = group_of(store, dom);
    if (group->kind == CAUSE_THREAD) {
        if (group->policy < 0)
            group->policy = dom->policy; /* a task gone by now keeps what was seen */
        cause_pids_add(&group->pids, dom->pid, 1, dom->ns);
    }
    if (group->count == 0 || dom->ns > group->max_ns)
        group->max_ns = dom->ns;
    group->count++;
    group->last_seen = store->total;
    group->total_ns += dom->ns;
    int64_t latency = spike->latency_ns > 0 ? spike->latency_ns : 0;
    group->latency_total_ns += latency;
    if (latency > group->latency_max_ns)
        group->latency_max_ns = latency;
    latency_hist_add(&group->hist, dom->ns);
    if (spike->cpu >= 0 && spike->cpu < store->ncpu && dom->kind < CAUSE_KIND_COUNT)
        store->per_cpu_kind[(size_t)spike->cpu * CAUSE_KIND_COUNT + dom->kind]++;
}

uint64_t spikes_cpu_cause(const struct spike_store *store, int cpu, unsigned kind)
{
    if (cpu < 0 || cpu >= store->ncpu || kind >= CAUSE_KIND_COUNT || !store->per_cpu_kind)
        return 0;
    return store->per_cpu_kind[(size_t)cpu * CAUSE_KIND_COUNT + kind];
}

void spikes_add(struct spike_store *store, const struct spike *spike)
{
    store->total++;
    if (spike->cpu >= 0 && spike->cpu < store->ncpu)
        store->per_cpu[spike->cpu]++;
    summarize_spike(store, spike);
    keep_spike(store, spike);
}

static int by_time(const void *pa, const void *pb)
{
    const struct spike *a = pa, *b = pb;
    if (a->planned_ns != b->planned_ns)
        return a->planned_ns < b->planned_ns ? -1 : 1;
    return (a->cpu > b->cpu) - (a->cpu < b->cpu);
}

const struct spike *spikes_sorted_by_time(struct spike_store *store, size_t *count)
{
    if (!store->sorted && store->kept_count > 1)
        qsort(store->kept, store->kept_count, sizeof *store->kept, by_time);
    store->sorted = true;
    *count = store->kept_count;
    return store->kept;
}

static bool row_before(const struct spike_summary_row *a, const struct spike_summary_row *b)
{
    if (a->count != b->count)
        return a->count > b->count;
    return a->total_ns > b->total_ns;
}

size_t spikes_summary(const struct spike_store *store, struct spike_summary_row *rows, size_t max)
{
    struct spike_summary_row all[SPIKES_GROUPS_MAX + 1];
    size_t n = 0;
    for (size_t g = 0; store->groups && g <= SPIKES_GROUPS_MAX; g++) {
        const struct spike_group *group = &store->groups[g];
        if ((g < SPIKES_GROUPS_MAX && g >= store->named_groups) || group->count == 0)
            continue;
        struct cause_pid top[CAUSE_PIDS_MAX];
        size_t npid = cause_pids_sorted(&group->pids, false, top);
        struct spike_summary_row row = {
            .kind = group->kind,
            .name = group->name,
            .pid = npid ? top[0].pid : 0,
            .prio = group->prio,
            .policy = group->policy,
            .count = group->count,
            .share = store->total ? (double)group->count / (double)store->total : 0.0,
            .total_ns = group->total_ns,
            .max_ns = group->max_ns,
            .median_ns = latency_hist_percentile(&group->hist, 50.0),
            .latency_total_ns = group->latency_total_ns,
            .latency_max_ns = group->latency_max_ns,
            .pids = group->kind == CAUSE_THREAD ? &group->pids : NULL,
            .folded = group->folded,
        };
        /* insertion sort: stable, so equal rows stay in the order first seen */
        size_t i = n++;
        for (; i > 0 && row_before(&row, &all[i - 1]); i--)
            all[i] = all[i - 1];
        all[i] = row;
    }
    if (n > max)
        n = max;
    if (n)
        memcpy(rows, all, n * sizeof *rows);
    return n;
}

int spike_summary_text(const struct spike_summary_row *row, uint64_t total_spikes,
                       const char *policy, char *buf, size_t len)
{
    if (!policy)
        policy = cause_policy_name(row->prio);
    char median[32], who[384], sched[48], pids[160] = "";
    char name[SAFE_TEXT_TERM_LEN(sizeof row->name)];
    safe_text_term(name, sizeof name, row->name);
    format_duration(row->median_ns, median, sizeof median);
    const char *kind = cause_kind_name(row->kind);
    if (row->kind == CAUSE_THREAD && cause_user_priority(row->prio) > 0)
        snprintf(sched, sizeof sched, "%s %d", policy, cause_user_priority(row->prio));
    else
        snprintf(sched, sizeof sched, "%s", policy);
    if (row->kind == CAUSE_THREAD && row->pids)
        cause_pids_text(row->pids, false, 3, pids, sizeof pids);
    if (row->kind == CAUSE_THREAD && pids[0])
        snprintf(who, sizeof who, "thread %s %s (%s)", name, sched, pids);
    else if (row->kind == CAUSE_THREAD)
        snprintf(who, sizeof who, "thread %s/%d %s", name, (int)row->pid, sched);
    else if (row->folded > 0 && strcmp(row->name, SPIKES_OTHER_NAME) == 0)
        snprintf(who, sizeof who, "%s (%llu smaller cause%s folded)", row->name,
                 (unsigned long long)row->folded, row->folded == 1 ? "" : "s");
    else if (!row->name[0])
        snprintf(who, sizeof who, "%s", kind);
    else if (row->kind == CAUSE_UNEXPLAINED)
        snprintf(who, sizeof who, "%s (%s)", kind, name);
    else
        snprintf(who, sizeof who, "%s %s", kind, name);
    double pct = total_spikes ? 100.0 * (double)row->count / (double)total_spikes : 0.0;
    return snprintf(buf, len, "%.0f%% of %llu spike%s: %s, median %s", pct,
                    (unsigned long long)total_spikes, total_spikes == 1 ? "" : "s", who, median);
}
