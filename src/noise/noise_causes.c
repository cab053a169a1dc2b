/*
 * Noise by cause and the largest gaps of one CPU (see noise_causes.h).
 */
#include "noise/noise_causes.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int noise_causes_init(struct noise_causes *c, size_t largest)
{
    memset(c, 0, sizeof *c);
    c->cap = largest;
    if (largest == 0)
        return 0;
    c->largest = calloc(largest, sizeof *c->largest);
    if (!c->largest)
        return -1;
    memset(c->largest, 0, largest * sizeof *c->largest); /* resident */
    return 0;
}

void noise_causes_free(struct noise_causes *c)
{
    free(c->largest);
    memset(c, 0, sizeof *c);
}

/* The row with least time, the one hit longest ago among equals, and none
 * the gap being added has a part in (at most SPIKE_CAUSES_MAX of the
 * NOISE_CAUSE_ROWS), folded into "other"; its place is returned. */
static struct noise_cause_row *make_room(struct noise_causes *c)
{
    struct noise_cause_row *least = NULL;
    for (size_t i = 0; i < NOISE_CAUSE_ROWS; i++) {
        struct noise_cause_row *r = &c->row[i];
        if (r->last_seen != c->attributed &&
            (!least || r->ns < least->ns ||
             (r->ns == least->ns && r->last_seen < least->last_seen)))
            least = r;
    }
    struct noise_cause_row *other = &c->row[NOISE_CAUSE_ROWS];
    other->kind = CAUSE_UNEXPLAINED;
    memcpy(other->name, NOISE_OTHER_CAUSES, sizeof NOISE_OTHER_CAUSES);
    other->policy = -1;
    other->gaps += least->gaps;
    other->ns += least->ns;
    other->folded++;
    return least;
}

/* The row of part p: its source's, or a new one. */
static struct noise_cause_row *row_of(struct noise_causes *c, const struct spike_cause *p)
{
    for (size_t i = 0; i < c->nrows; i++) {
        struct noise_cause_row *r = &c->row[i];
        if (cause_same_source(r->kind, r->name, r->prio, r->policy, p))
            return r;
    }
    struct noise_cause_row *r = c->nrows < NOISE_CAUSE_ROWS ? &c->row[c->nrows++] : make_room(c);
    *r = (struct noise_cause_row){.kind = p->kind, .policy = -1};
    memcpy(r->name, p->name, sizeof r->name);
    r->name[sizeof r->name - 1] = '\0';
    if (p->kind == CAUSE_THREAD)
        r->prio = p->prio;
    return r;
}

static void sift_down(struct spike *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && h[l].latency_ns < h[m].latency_ns)
            m = l;
        if (r < n && h[r].latency_ns < h[m].latency_ns)
            m = r;
        if (m == i)
            return;
        struct spike t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

void noise_largest_add(struct noise_causes *c, const struct spike *s)
{
    if (c->cap == 0)
        return;
    if (c->nlargest < c->cap) {
        size_t i = c->nlargest++;
        c->largest[i] = *s;
        while (i > 0 && c->largest[(i - 1) / 2].latency_ns > c->largest[i].latency_ns) {
            struct spike t = c->largest[i];
            c->largest[i] = c->largest[(i - 1) / 2];
            c->largest[(i - 1) / 2] = t;
            i = (i - 1) / 2;
        }
    } else if (s->latency_ns > c->largest[0].latency_ns) {
        c->largest[0] = *s;
        sift_down(c->largest, c->nlargest, 0);
    }
}

void noise_causes_add(struct noise_causes *c, const struct spike *s)
{
    c->attributed++;
    struct noise_cause_row *row[SPIKE_CAUSES_MAX];
    for (unsigned j = 0; j < s->ncauses && j < SPIKE_CAUSES_MAX; j++) {
        const struct spike_cause *p = &s->causes[j];
        struct noise_cause_row *r = row[j] = row_of(c, p);
        /* the gap counts once in the row, and once for each of its pids */
        bool new_row = true, new_pid = true;
        for (unsigned k = 0; k < j; k++)
            if (row[k] == r) {
                new_row = false;
                new_pid = new_pid && s->causes[k].pid != p->pid;
            }
        r->gaps += new_row;
        r->last_seen = c->attributed;
        r->ns += p->ns;
        c->total_ns += p->ns;
        if (r->kind == CAUSE_THREAD) {
            if (r->policy < 0)
                r->policy = p->policy;
            cause_pids_add(&r->pids, p->pid, new_pid, p->ns);
        }
    }
    noise_largest_add(c, s);
}

static int by_ns_desc(const void *a, const void *b)
{
    const struct noise_cause_row *x = a, *y = b;
    if (x->ns != y->ns)
        return x->ns < y->ns ? 1 : -1;
    return x->kind != y->kind ? (x->kind < y->kind ? -1 : 1) : strcmp(x->name, y->name);
}

size_t noise_causes_sorted(const struct noise_causes *c, struct noise_cause_row *out)
{
    size_t n = c->nrows;
    memcpy(out, c->row, n * sizeof *out);
    for (size_t i = 0; i < n; i++) {
        struct cause_pid top[CAUSE_PIDS_MAX];
        out[i].pid = cause_pids_sorted(&out[i].pids, true, top) ? top[0].pid : 0;
    }
    if (c->row[NOISE_CAUSE_ROWS].ns > 0 || c->row[NOISE_CAUSE_ROWS].gaps > 0)
        out[n++] = c->row[NOISE_CAUSE_ROWS];
    if (n > 1)
        qsort(out, n, sizeof *out, by_ns_desc);
    return n;
}

static int by_latency_desc(const void *a, const void *b)
{
    const struct spike *x = a, *y = b;
    if (x->latency_ns != y->latency_ns)
        return x->latency_ns < y->latency_ns ? 1 : -1;
    return x->wake_ns < y->wake_ns ? -1 : x->wake_ns > y->wake_ns;
}

const struct spike *noise_largest_sorted(struct noise_causes *c, size_t *n)
{
    if (c->nlargest > 1)
        qsort(c->largest, c->nlargest, sizeof *c->largest, by_latency_desc);
    *n = c->nlargest;
    return c->largest;
}
