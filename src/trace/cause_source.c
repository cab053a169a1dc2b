/*
 * Summary rows by source (see cause_source.h). A row's pids are found by a
 * linear search over at most CAUSE_PIDS_MAX entries: a summary is fed once
 * per spike, not per cycle.
 */
#include "trace/cause_source.h"

#include <stdio.h>
#include <string.h>

bool cause_same_source(unsigned kind, const char *name, int32_t prio, int16_t policy,
                       const struct spike_cause *c)
{
    if (c->kind != kind || strncmp(c->name, name, sizeof c->name) != 0)
        return false;
    if (kind != CAUSE_THREAD)
        return true;
    return c->prio == prio && (c->policy < 0 || policy < 0 || c->policy == policy);
}

void cause_pids_add(struct cause_pids *p, int32_t pid, uint64_t count, int64_t ns)
{
    for (uint32_t i = 0; i < p->n; i++)
        if (p->pid[i].pid == pid) {
            p->pid[i].count += count;
            p->pid[i].ns += ns;
            return;
        }
    if (p->n < CAUSE_PIDS_MAX) {
        p->pid[p->n++] = (struct cause_pid){.pid = pid, .count = count, .ns = ns};
        return;
    }
    p->unlisted_count += count;
    p->unlisted_ns += ns;
}

static bool pid_before(const struct cause_pid *a, const struct cause_pid *b, bool by_ns)
{
    if (by_ns && a->ns != b->ns)
        return a->ns > b->ns;
    if (a->count != b->count)
        return a->count > b->count;
    return !by_ns && a->ns > b->ns;
}

size_t cause_pids_sorted(const struct cause_pids *p, bool by_ns, struct cause_pid *out)
{
    size_t n = p->n < CAUSE_PIDS_MAX ? p->n : CAUSE_PIDS_MAX;
    for (size_t k = 0; k < n; k++) { /* insertion sort: stable, so ties stay first seen */
        struct cause_pid x = p->pid[k];
        size_t i = k;
        for (; i > 0 && pid_before(&x, &out[i - 1], by_ns); i--)
            out[i] = out[i - 1];
        out[i] = x;
    }
    return n;
}

int cause_pids_text(const struct cause_pids *p, bool by_ns, size_t shown, char *buf, size_t len)
{
    struct cause_pid top[CAUSE_PIDS_MAX];
    size_t n = cause_pids_sorted(p, by_ns, top);
    double whole = by_ns ? (double)p->unlisted_ns : (double)p->unlisted_count;
    for (size_t k = 0; k < n; k++)
        whole += by_ns ? (double)top[k].ns : (double)top[k].count;
    if (len)
        buf[0] = '\0';
    if (n + (p->unlisted_count > 0) < 2 || whole <= 0)
        return 0;
    int used = 0;
    double rest = whole;
    for (size_t k = 0; k < n && k < shown; k++) {
        double part = by_ns ? (double)top[k].ns : (double)top[k].count;
        rest -= part;
        int w = snprintf(buf + used, len > (size_t)used ? len - (size_t)used : 0, "%s%d %.0f%%",
                         k ? ", " : "pids ", (int)top[k].pid, 100.0 * part / whole);
        if (w < 0)
            return w;
        used += w;
    }
    if (n > shown || p->unlisted_count > 0)
        used += snprintf(buf + used, len > (size_t)used ? len - (size_t)used : 0, ", others %.0f%%",
                         100.0 * rest / whole);
    return used;
}
