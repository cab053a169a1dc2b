/*
 * The exporter's figures (see metrics.h): counted by the collector, handed
 * to the exporter's thread through one mutex-guarded copy.
 */
#include "export/metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"

void metrics_default_bounds(struct metrics_bounds *b)
{
    static const int64_t us[] = {1,   2,    5,    10,   20,    50,    100,   200,
                                 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000};
    b->n = (int)(sizeof(us) / sizeof(us[0]));
    for (int i = 0; i < b->n; i++)
        b->le_ns[i] = us[i] * NS_PER_US;
}

int metrics_parse_bounds(const char *text, struct metrics_bounds *b, char *why, size_t whylen)
{
    b->n = 0;
    const char *p = text;
    if (!*p) {
        snprintf(why, whylen, "an empty list; give durations such as 10us,50us,1ms");
        return -1;
    }
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[64];
        if (len == 0 || len >= sizeof(item)) {
            snprintf(why, whylen, "%s", len ? "an item is too long" : "an empty item");
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        int64_t ns;
        const char *bad;
        if (parse_duration_bounded_ns(item, NS_PER_US, &ns, &bad) != 0) {
            snprintf(why, whylen, "%s: %s", item, bad);
            return -1;
        }
        if (ns <= 0) {
            snprintf(why, whylen, "%s: a bound must be greater than 0", item);
            return -1;
        }
        if (b->n > 0 && ns <= b->le_ns[b->n - 1]) {
            snprintf(why, whylen, "%s: bounds must rise strictly", item);
            return -1;
        }
        if (b->n == METRICS_MAX_BOUNDS) {
            snprintf(why, whylen, "more than %d bounds", METRICS_MAX_BOUNDS);
            return -1;
        }
        b->le_ns[b->n++] = ns;
        if (!end)
            return 0;
        p = end + 1;
    }
}

static void cpu_reset(struct metrics_cpu *c, int cpu)
{
    memset(c, 0, sizeof(*c));
    c->cpu = cpu;
    c->frequency_hz = NAN;
    c->busy_ratio = NAN;
}

int metrics_init(struct metrics *m, const struct metrics_config *cfg, const int *cpus, int n)
{
    memset(m, 0, sizeof(*m));
    m->cfg = *cfg;
    m->ncpu = n;
    m->acc = calloc((size_t)n, sizeof(*m->acc));
    m->pub = calloc((size_t)n, sizeof(*m->pub));
    m->tail = calloc((size_t)n, sizeof(*m->tail));
    if (!m->acc || !m->pub || !m->tail || pthread_mutex_init(&m->lock, NULL) != 0) {
        metrics_free(m);
        return -1;
    }
    m->lock_ready = true;
    for (int i = 0; i < n; i++) {
        cpu_reset(&m->acc[i], cpus[i]);
        cpu_reset(&m->pub[i], cpus[i]);
    }
    return 0;
}

void metrics_free(struct metrics *m)
{
    if (m->lock_ready)
        pthread_mutex_destroy(&m->lock);
    free(m->acc);
    free(m->pub);
    free(m->tail);
    memset(m, 0, sizeof(*m));
}

/* The bucket of a value: the first bound at or above it, else +Inf. */
static int bucket_of(const struct metrics_bounds *b, int64_t v)
{
    int lo = 0, hi = b->n; /* answer in [lo, hi] */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (v <= b->le_ns[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static void hist_add(struct metrics_hist *h, const struct metrics_bounds *b, int64_t v)
{
    h->bucket[bucket_of(b, v)]++;
    h->sum_ns += v;
    h->count++;
}

void metrics_sample(struct metrics *m, int i, int64_t latency_ns, int64_t exec_ns,
                    uint32_t missed_before, bool deadline_miss)
{
    struct metrics_cpu *c = &m->acc[i];
    if (c->latency.count == 0 || latency_ns > c->max_total_ns)
        c->max_total_ns = latency_ns;
    if (!c->max_scrape_set || latency_ns > c->max_scrape_ns) {
        c->max_scrape_ns = latency_ns;
        c->max_scrape_set = true;
    }
    hist_add(&c->latency, &m->cfg.bounds, latency_ns);
    if (m->cfg.response)
        hist_add(&c->response, &m->cfg.bounds, latency_ns + exec_ns);
    c->missed += missed_before;
    if (deadline_miss)
        c->deadline_misses++;
}

static void irq_add(struct metrics_cpu *c, const struct telemetry_irq *irq)
{
    for (int k = 0; k < c->nirq; k++) {
        if (strcmp(c->irq[k].id, irq->id) == 0) {
            c->irq[k].total += irq->count;
            return;
        }
    }
    if (c->nirq == METRICS_IRQS_MAX) {
        c->irq_other += irq->count;
        return;
    }
    snprintf(c->irq[c->nirq].id, sizeof(c->irq[c->nirq].id), "%s", irq->id);
    snprintf(c->irq[c->nirq].name, sizeof(c->irq[c->nirq].name), "%s", irq->name);
    c->irq[c->nirq++].total = irq->count;
}

void metrics_telemetry(struct metrics *m, int i, const struct telemetry_cpu_figures *fig,
                       int64_t duration_ns)
{
    struct metrics_cpu *c = &m->acc[i];
    c->has_telemetry = true;
    c->frequency_hz = isnan(fig->avg_mhz) ? NAN : fig->avg_mhz * 1e6;
    c->busy_ratio = isnan(fig->busy_pct) ? NAN : fig->busy_pct / 100.0;
    c->nidle = fig->nidle < CPUIDLE_MAX_STATES ? fig->nidle : CPUIDLE_MAX_STATES;
    memcpy(c->idle, fig->idle, (size_t)c->nidle * sizeof(c->idle[0]));
    if (fig->irqs >= 0) {
        c->has_irqs = true;
        uint64_t named = 0;
        for (int k = 0; k < fig->nirq && k < TELEMETRY_TOP_IRQS; k++) {
            irq_add(c, &fig->irq[k]);
            named += fig->irq[k].count;
        }
        if ((uint64_t)fig->irqs > named)
            c->irq_other += (uint64_t)fig->irqs - named; /* below the top sources */
    }
    if (!isnan(fig->steal_pct) && duration_ns > 0) {
        c->has_steal = true;
        c->steal_s += fig->steal_pct / 100.0 * (double)duration_ns / 1e9;
    }
}

struct metrics_cpu *metrics_cpu_acc(struct metrics *m, int i)
{
    return &m->acc[i];
}

void metrics_publish(struct metrics *m)
{
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < m->ncpu; i++) {
        struct metrics_cpu *a = &m->acc[i], *p = &m->pub[i];
        bool had = p->max_scrape_set;
        int64_t prev = p->max_scrape_ns;
        *p = *a;
        if (had && (!a->max_scrape_set || prev > a->max_scrape_ns)) {
            p->max_scrape_set = true;
            p->max_scrape_ns = prev; /* not yet scraped: carried */
        }
        a->max_scrape_set = false;
    }
    pthread_mutex_unlock(&m->lock);
}

void metrics_set_tail(struct metrics *m, int i, const struct metrics_tail *t)
{
    pthread_mutex_lock(&m->lock);
    m->tail[i] = *t;
    pthread_mutex_unlock(&m->lock);
}

void metrics_set_start(struct metrics *m, double unix_s)
{
    pthread_mutex_lock(&m->lock);
    m->cfg.info.start_time_s = unix_s;
    pthread_mutex_unlock(&m->lock);
}

void metrics_take(struct metrics *m, struct metrics_config *cfg, struct metrics_cpu *out)
{
    pthread_mutex_lock(&m->lock);
    *cfg = m->cfg;
    memcpy(out, m->pub, (size_t)m->ncpu * sizeof(*out));
    for (int i = 0; i < m->ncpu; i++) {
        m->pub[i].max_scrape_set = false;
        out[i].tail = m->tail[i];
    }
    pthread_mutex_unlock(&m->lock);
}
