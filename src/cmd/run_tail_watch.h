/*
 * The tail analysis while a run goes on: `run --until-confident P:WIDTH`
 * (stop once every measured CPU knows its latency at P within WIDTH) and
 * `run --tail --prometheus` (the estimates refitted each minute and
 * published). The fit takes far longer than a drain pass, so it never
 * runs on the collector: the collector hands a snapshot (each CPU's
 * running latency histogram and its newest window maxima) to a worker
 * thread (SCHED_OTHER, every signal blocked, on the collector's
 * housekeeping CPUs) when the worker is idle, and skips the check
 * otherwise; it never waits. The worker asks the run to end through
 * common/stop.h, as a signal would.
 */
#ifndef JITTERLAB_CMD_RUN_TAIL_WATCH_H
#define JITTERLAB_CMD_RUN_TAIL_WATCH_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cmd/run_cli.h"
#include "engine/collector.h"
#include "export/metrics.h"
#include "out/report.h"
#include "stats/histogram.h"

/* The newest window maxima a check fits on, per CPU. */
#define TAIL_WATCH_WINDOWS 1024
/* How often the estimates are refitted for the exporter alone. */
#define TAIL_WATCH_METRICS_PERIOD_NS (60 * NS_PER_S)

struct tail_watch {
    bool ready; /* the semaphore and the mutex exist */
    int n;
    int64_t interval_ns;
    int64_t budget_ns;
    double probabilities[TAIL_MAX_PROBABILITIES];
    size_t nprobabilities;
    double confident_probability; /* 0: no --until-confident */
    double confident_width;
    struct metrics *metrics; /* NULL: nothing published */
    int64_t period_ns;       /* between two checks */
    int64_t next_check_ns;   /* CLOCK_MONOTONIC; 0: not yet set */
    int64_t start_ns;        /* the run's planned wake-up 0 */
    /* the collector's: each CPU's newest window maxima, a ring */
    int64_t *ring;
    uint64_t *added, *ring_samples;
    /* the snapshot, the collector's while idle, the worker's while busy */
    atomic_int busy;
    struct latency_hist *hist;
    int64_t *maxima; /* per CPU, TAIL_WATCH_WINDOWS, oldest first */
    size_t *nmax;
    double *block_cycles;
    double t_s;
    /* the worker */
    pthread_t thread;
    bool started;
    sem_t wake;
    atomic_bool quit;
    unsigned threads; /* for tail_analyse_many: the housekeeping CPUs */
    /* the outcome, under lock */
    pthread_mutex_t lock;
    uint64_t checks;
    double last_t_s;
    struct run_tail_check_cpu *last;   /* n */
    bool confident;                    /* the stop was asked for */
    struct run_tail_confidence result; /* tail_watch_outcome */
    struct run_tail_check_cpu *copy;   /* the outcome's cpus */
};

/* Whether the run needs a watch: --until-confident, or --tail with
 * --prometheus. */
bool tail_watch_wanted(const struct run_params *p);
/* For the CPUs cpu_ids[0..n) (before the engine starts); metrics: the
 * exporter's figures, or NULL. 0, or -1 with err. */
int tail_watch_open(struct tail_watch *w, const struct run_params *p, const int *cpu_ids, int n,
                    struct metrics *metrics, char *err, size_t errlen);
/* The run started; the worker starts on the calling thread's CPUs. 0, or
 * -1 with err. */
int tail_watch_start(struct tail_watch *w, int64_t start_ns, char *err, size_t errlen);
/* Collector: a closed window of CPU index i. */
void tail_watch_window(struct tail_watch *w, int i, int64_t max_ns, uint64_t samples);
/* Collector, after a drain pass: when a check is due and the worker idle,
 * the snapshot of the running results goes to the worker. */
void tail_watch_drained(struct tail_watch *w, struct collector *c);
/* Ends the worker (a check under way is finished first). */
void tail_watch_stop(struct tail_watch *w);
/* After tail_watch_stop: what ended the run (signalled: a signal asked
 * for the stop; limit: "-D" or "-l") and the last check. */
const struct run_tail_confidence *tail_watch_outcome(struct tail_watch *w, bool signalled,
                                                     const char *limit);
/* The check of one CPU: r's estimate at p against width. */
struct run_tail_check_cpu tail_watch_check_cpu(int cpu, const struct tail_result *r, double p,
                                               double width);
void tail_watch_free(struct tail_watch *w);

#endif
