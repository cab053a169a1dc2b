/*
 * What the exporter serves, kept by the collector: per measured CPU the
 * latency (and response time) histograms on fixed bucket bounds, counted
 * exactly from every sample the rings deliver, the counters, the largest
 * latency since the previous scrape and since the start, the newest
 * telemetry figures and the spikes by cause. The collector counts into its
 * own copy without any lock and publishes it after every drain pass (a
 * short copy under a mutex that only the collector and the exporter's
 * thread take: the measuring threads never see it); a scrape takes the
 * published copy and clears the since-the-last-scrape maxima, so no spike
 * between two scrapes is lost. Everything is allocated by metrics_init.
 */
#ifndef JITTERLAB_EXPORT_METRICS_H
#define JITTERLAB_EXPORT_METRICS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/cpuidle.h"
#include "telemetry/telemetry.h"
#include "trace/attribute.h"

#define METRICS_MAX_BOUNDS 64
#define METRICS_IRQS_MAX   32 /* interrupt sources named per CPU; the rest are "other" */

/* Upper bounds (ns, ascending) of the histogram buckets; +Inf follows. */
struct metrics_bounds {
    int n;
    int64_t le_ns[METRICS_MAX_BOUNDS];
};

/* The default bounds: 1-2-5 per decade from 1 us to 100 ms. */
void metrics_default_bounds(struct metrics_bounds *b);
/* "10us,50us,1ms": durations (bare number: us), strictly ascending, at
 * most METRICS_MAX_BOUNDS. 0, or -1 with why. */
int metrics_parse_bounds(const char *text, struct metrics_bounds *b, char *why, size_t whylen);

struct metrics_hist {
    uint64_t bucket[METRICS_MAX_BOUNDS + 1]; /* per bound, not cumulative; the last: +Inf */
    int64_t sum_ns;
    uint64_t count;
};

struct metrics_irq {
    char id[16];                   /* the /proc/interrupts row: "36", "LOC" */
    char name[TELEMETRY_IRQ_NAME]; /* its device name or description, raw bytes */
    uint64_t total;
};

/* The newest fit of the tail (`run --tail --prometheus`), set by the
 * thread that fits it (metrics_set_tail), not by the collector. */
#define METRICS_TAIL_MAX_P 8
struct metrics_tail {
    bool fitted; /* a fit ran: the figures below exist */
    bool pass;   /* its verdict is an estimate (every check passed) */
    int nprob;
    double probability[METRICS_TAIL_MAX_P]; /* per cycle */
    double estimate_s[METRICS_TAIL_MAX_P];  /* the latency at each; NAN: none */
    double budget_p;                        /* P(latency > budget) per cycle; NAN: none */
};

struct metrics_cpu {
    int cpu;
    struct metrics_hist latency;
    struct metrics_hist response;
    bool max_scrape_set; /* a sample since the previous scrape */
    int64_t max_scrape_ns;
    int64_t max_total_ns; /* valid when latency.count > 0 */
    uint64_t missed;
    uint64_t deadline_misses;
    uint64_t ring_drops;
    /* the newest telemetry window (has_telemetry) */
    bool has_telemetry;
    double frequency_hz; /* NAN when unknown */
    double busy_ratio;   /* NAN when unknown */
    int nidle;
    struct telemetry_idle idle[CPUIDLE_MAX_STATES];
    bool has_irqs;
    int nirq;
    struct metrics_irq irq[METRICS_IRQS_MAX];
    uint64_t irq_other;
    bool has_steal;
    double steal_s;
    /* spikes by dominant cause (has_spikes) */
    bool has_spikes;
    uint64_t spikes[CAUSE_KIND_COUNT];
    /* in what metrics_take hands out: the newest tail fit */
    struct metrics_tail tail;
};

/* What describes the run (jitterlab_info and the start time). */
struct metrics_info {
    char version[32];
    char kernel[256];
    char preempt[32];
    char cpu_model[256];
    char clocksource[64];
    char hypervisor[64];
    double interval_s;
    double start_time_s; /* Unix time */
};

struct metrics_config {
    struct metrics_bounds bounds;
    bool response; /* a workload runs: the response-time histogram */
    bool deadline; /* the run has a deadline: deadline misses are counted */
    struct metrics_info info;
};

struct metrics {
    struct metrics_config cfg;
    int ncpu;
    struct metrics_cpu *acc;   /* the collector's copy */
    struct metrics_cpu *pub;   /* the published copy, under lock */
    struct metrics_tail *tail; /* per CPU, under lock */
    pthread_mutex_t lock;
    bool lock_ready;
};

/* For the CPUs cpus[0..n). 0, or -1 when out of memory. */
int metrics_init(struct metrics *m, const struct metrics_config *cfg, const int *cpus, int n);
void metrics_free(struct metrics *m);

/* Collector side, without a lock. */
void metrics_sample(struct metrics *m, int i, int64_t latency_ns, int64_t exec_ns,
                    uint32_t missed_before, bool deadline_miss);
/* A closed telemetry window of CPU index i. */
void metrics_telemetry(struct metrics *m, int i, const struct telemetry_cpu_figures *fig,
                       int64_t duration_ns);
/* The collector's copy of CPU index i, for what it sets directly (ring
 * drops, spikes). */
struct metrics_cpu *metrics_cpu_acc(struct metrics *m, int i);
/* Publishes the collector's copy. */
void metrics_publish(struct metrics *m);

/* The newest tail fit of CPU index i (any thread). */
void metrics_set_tail(struct metrics *m, int i, const struct metrics_tail *t);

/* The run's planned wake-up 0, in Unix time (any thread). */
void metrics_set_start(struct metrics *m, double unix_s);

/* Exporter side: copies the configuration and the published figures into
 * out[0..ncpu) and starts the next since-the-last-scrape maximum. */
void metrics_take(struct metrics *m, struct metrics_config *cfg, struct metrics_cpu *out);

#endif
