/*
 * What `run --tail` adds to the end of a run on many CPUs, without those
 * CPUs: a run report of N synthetic CPUs (each a histogram of S samples
 * drawn from a latency with an exponential tail, and W telemetry windows
 * with their maxima), analysed through the run's own path
 * (cmd/run_tail.c: the inputs, then tail_analyse_many), timed. Prints
 * one line: cpus, samples per CPU, windows, seconds, estimates.
 * bench/tail-run.sh runs it beside the real runs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/run_tail.h"
#include "common/clock.h"

static uint64_t rng = 88172645463325252ULL;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
    int ncpu = argc > 1 ? atoi(argv[1]) : 256;
    long samples = argc > 2 ? atol(argv[2]) : 100000;
    int nwin = argc > 3 ? atoi(argv[3]) : 60;
    if (ncpu < 1 || ncpu > 4096 || samples < 1 || nwin < 1) {
        fprintf(stderr, "usage: tail-run-bench [CPUS [SAMPLES [WINDOWS]]]\n");
        return 2;
    }
    struct cpu_result *cpus = calloc((size_t)ncpu, sizeof *cpus);
    const struct cpu_result **ptr = calloc((size_t)ncpu, sizeof *ptr);
    struct telemetry_window *win = calloc((size_t)ncpu * (size_t)nwin, sizeof *win);
    struct latency_hist *all = malloc(sizeof *all);
    static struct cpulist list;
    if (!cpus || !ptr || !win || !all)
        return 1;
    for (int i = 0; i < ncpu; i++) {
        cpu_result_init(&cpus[i], i);
        ptr[i] = &cpus[i];
        list.cpu[list.count++] = i;
        for (long k = 0; k < samples; k++) {
            int64_t v = 2000 + (int64_t)(-3000.0 * log(uniform()));
            latency_hist_add(&cpus[i].hist, v);
            running_stats_add(&cpus[i].latency, (double)v);
            int w = (int)(k * nwin / samples);
            struct telemetry_window *tw = &win[(size_t)w * (size_t)ncpu + (size_t)i];
            tw->cpu = i;
            tw->t_ns = (int64_t)(w + 1) * 1000000000;
            tw->samples++;
            if (v > tw->max_ns)
                tw->max_ns = v;
        }
    }
    latency_hist_init(all);
    struct run_report rep;
    memset(&rep, 0, sizeof rep);
    rep.ncpu = ncpu;
    rep.cpu = ptr;
    rep.cpus = &list;
    rep.interval_ns = 1000000;
    rep.duration_s = nwin;
    rep.budget_ns = -1;
    rep.all_hist = all;
    rep.all_exec_hist = malloc(sizeof *all);
    rep.all_response_hist = malloc(sizeof *all);
    rep.telemetry = (const struct telemetry *)1; /* only its presence is read */
    rep.telemetry_windows = win;
    rep.telemetry_count = (uint64_t)ncpu * (uint64_t)nwin;
    for (int i = 0; i < ncpu; i++) {
        latency_hist_merge(all, &cpus[i].hist);
        running_stats_merge(&rep.all_latency, &cpus[i].latency);
    }
    struct run_params p;
    memset(&p, 0, sizeof p);
    p.budget_ns = -1;
    static struct run_tail t;
    char err[256];
    int64_t t0 = monotonic_now_ns();
    if (run_tail_analyse(&p, &rep, NULL, &t, err, sizeof err) != 0) {
        fprintf(stderr, "tail-run-bench: %s\n", err);
        return 1;
    }
    double s = (double)(monotonic_now_ns() - t0) / 1e9;
    int estimates = 0;
    for (int i = 0; i < ncpu; i++)
        estimates += t.out[i].verdict == TAIL_ESTIMATE;
    printf("cpus %d samples_per_cpu %ld windows %d seconds %.3f estimates %d\n", ncpu, samples,
           nwin, s, estimates);
    run_tail_free(&t);
    return 0;
}
