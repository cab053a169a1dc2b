/*
 * What the tail analysis costs at the end of a run on a big machine: 256
 * synthetic per-CPU histograms (the product's latency_hist buckets, 1e6 to
 * 1e8 samples each: a log-normal bulk of a few us plus a generalized Pareto
 * tail from 5 us holding one sample in a thousand, shapes -0.1 .. 0.2) and
 * 60 window maxima each, analysed through tail_analyse_many with this
 * machine's threads, then one by one on one thread for the cost of one
 * analysis.
 *
 *   tail-bench [-n CPUS] [-t THREADS] [-x SAMPLES]
 *
 * (default 256 CPUs, the online CPUs). -x also times the exact path of the
 * offline command: one CPU's SAMPLES values drawn from the same mixture, in
 * time order, as the samples file gives them (exact_ms).
 *
 * One line of key=value figures: the wall time of the whole set, the mean
 * and largest single analysis, how many estimated, and the projection for a
 * machine with 16 threads (the mean times CPUs / 16). Exit 0, or 2 for bad
 * arguments.
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stats/histogram.h"
#include "stats/tail.h"

#define BULK_MEDIAN_NS 3000.0
#define BULK_LOG_SD    0.25
#define TAIL_FROM_NS   5000.0
#define TAIL_SHARE     1e-3
#define TAIL_SCALE_NS  2000.0
#define WINDOWS        60

struct cpu_data {
    struct tail_bin *bins;
    size_t nbins;
    int64_t max_ns;
    int64_t block_max[WINDOWS];
    struct tail_input in;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* P(X > x) of the mixture. */
static double mixture_sf(double x, double xi)
{
    double bulk = x <= 0 ? 1 : gsl_cdf_lognormal_Q(x, log(BULK_MEDIAN_NS), BULK_LOG_SD);
    double t = x <= TAIL_FROM_NS ? 1 : 0;
    if (x > TAIL_FROM_NS) {
        double y = xi * (x - TAIL_FROM_NS) / TAIL_SCALE_NS;
        t = fabs(xi) < 1e-12 ? exp(-(x - TAIL_FROM_NS) / TAIL_SCALE_NS)
            : y <= -1        ? 0
                             : exp(-log1p(y) / xi);
    }
    return (1 - TAIL_SHARE) * bulk + TAIL_SHARE * t;
}

/* Bucket counts Poisson around n times each bucket's probability; window
 * maxima drawn from the tail for windows of n / WINDOWS cycles. */
static int make_cpu(gsl_rng *rng, size_t cpu, size_t ncpu, struct latency_hist *h,
                    struct cpu_data *c)
{
    static const double xis[] = {-0.1, 0, 0.1, 0.2};
    double xi = xis[cpu % 4];
    double n = pow(10, 6 + 2.0 * (double)cpu / (double)(ncpu > 1 ? ncpu - 1 : 1));
    latency_hist_init(h);
    double sf_lo = 1;
    for (size_t i = 0; i < LATENCY_HIST_BUCKETS; i++) {
        int64_t lo, hi;
        latency_hist_bucket_bounds(i, &lo, &hi);
        double sf_hi = mixture_sf((double)hi + 0.5, xi);
        double mean = n * (sf_lo - sf_hi);
        sf_lo = sf_hi;
        if (mean <= 0)
            continue;
        unsigned k = gsl_ran_poisson(rng, mean);
        h->buckets[i] += k;
        h->count += k;
        if (k) {
            h->max_ns = hi;
            if (h->min_ns > lo)
                h->min_ns = lo;
        }
        if (sf_hi * n < 1e-3)
            break;
    }
    c->bins = malloc(LATENCY_HIST_BUCKETS * sizeof(*c->bins));
    if (!c->bins)
        return -1;
    c->nbins = tail_bins_of_hist(h, c->bins);
    double m = n / WINDOWS * TAIL_SHARE;
    for (int w = 0; w < WINDOWS; w++) {
        double s = -log(gsl_rng_uniform_pos(rng)) / m; /* tail survival of the max */
        double x =
            fabs(xi) < 1e-12 ? -TAIL_SCALE_NS * log(s) : TAIL_SCALE_NS * expm1(-xi * log(s)) / xi;
        c->block_max[w] = (int64_t)(TAIL_FROM_NS + x);
    }
    c->max_ns = h->max_ns;
    c->in = (struct tail_input){.bins = c->bins,
                                .nbins = c->nbins,
                                .max_ns = c->max_ns,
                                .block_max = c->block_max,
                                .nblock = WINDOWS,
                                .block_cycles = n / WINDOWS,
                                .interval_ns = 100000,
                                .budget_ns = 50000,
                                .threshold_ns = -1};
    return 0;
}

/* The exact path: n values drawn one by one, through the histogram and as
 * the sequence; the time of one tail_analyse. */
static double exact_path_ms(gsl_rng *rng, size_t n, struct latency_hist *h, int *estimated)
{
    int64_t *seq = malloc(n * sizeof(*seq));
    struct tail_bin *bins = malloc(LATENCY_HIST_BUCKETS * sizeof(*bins));
    struct tail_result *r = malloc(sizeof(*r));
    if (!seq || !bins || !r)
        return NAN;
    latency_hist_init(h);
    for (size_t i = 0; i < n; i++) {
        double x;
        if (gsl_rng_uniform(rng) < TAIL_SHARE)
            x = TAIL_FROM_NS + TAIL_SCALE_NS * expm1(-0.1 * log(gsl_rng_uniform_pos(rng))) / 0.1;
        else
            x = gsl_ran_lognormal(rng, log(BULK_MEDIAN_NS), BULK_LOG_SD);
        seq[i] = (int64_t)x;
        latency_hist_add(h, seq[i]);
    }
    size_t nb = tail_bins_of_hist(h, bins);
    struct tail_input in = {.bins = bins,
                            .nbins = nb,
                            .overflow = h->overflow,
                            .max_ns = h->max_ns,
                            .seq = seq,
                            .nseq = n,
                            .interval_ns = 100000,
                            .budget_ns = 50000,
                            .threshold_ns = -1};
    char err[TAIL_ERR_LEN];
    double t = now_s();
    tail_analyse(&in, r, err, sizeof(err));
    t = now_s() - t;
    *estimated = r->verdict == TAIL_ESTIMATE;
    free(seq);
    free(bins);
    free(r);
    return t * 1e3;
}

int main(int argc, char **argv)
{
    size_t ncpu = 256;
    unsigned threads = 0;
    size_t exact_n = 0;
    int opt;
    while ((opt = getopt(argc, argv, "n:t:x:")) != -1) {
        if (opt == 'x' && atof(optarg) > 0)
            exact_n = (size_t)atof(optarg);
        else if (opt == 'n' && atoi(optarg) > 0)
            ncpu = (size_t)atoi(optarg);
        else if (opt == 't' && atoi(optarg) >= 0)
            threads = (unsigned)atoi(optarg);
        else {
            fprintf(stderr, "usage: tail-bench [-n CPUS] [-t THREADS] [-x SAMPLES]\n");
            return 2;
        }
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads == 0)
        threads = online > 0 ? (unsigned)online : 1;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    struct latency_hist *h = malloc(sizeof(*h));
    struct cpu_data *c = calloc(ncpu, sizeof(*c));
    struct tail_input *in = calloc(ncpu, sizeof(*in));
    struct tail_result *out = calloc(ncpu, sizeof(*out));
    char(*err)[TAIL_ERR_LEN] = calloc(ncpu, sizeof(*err));
    if (!rng || !h || !c || !in || !out || !err)
        return 1;
    gsl_rng_set(rng, 42);
    for (size_t i = 0; i < ncpu; i++) {
        if (make_cpu(rng, i, ncpu, h, &c[i]) != 0)
            return 1;
        in[i] = c[i].in;
    }
    double t0 = now_s();
    size_t bad = tail_analyse_many(in, out, ncpu, threads, err);
    double all_s = now_s() - t0;
    size_t est = 0;
    for (size_t i = 0; i < ncpu; i++)
        est += out[i].verdict == TAIL_ESTIMATE;
    double sum_s = 0, max_s = 0;
    size_t max_i = 0;
    for (size_t i = 0; i < ncpu; i++) {
        char e[TAIL_ERR_LEN];
        double t = now_s();
        tail_analyse(&in[i], &out[i], e, sizeof(e));
        t = now_s() - t;
        sum_s += t;
        if (t > max_s)
            max_s = t, max_i = i;
    }
    double mean_s = sum_s / (double)ncpu;
    printf("cpus=%zu threads=%u all_ms=%.1f per_analysis_ms=%.2f max_analysis_ms=%.2f "
           "max_at_bins=%zu estimates=%zu unusable=%zu projected_16_threads_ms=%.1f\n",
           ncpu, threads, all_s * 1e3, mean_s * 1e3, max_s * 1e3, c[max_i].nbins, est, bad,
           mean_s * (double)ncpu / 16 * 1e3);
    if (exact_n > 0) {
        int estimated = 0;
        double ms = exact_path_ms(rng, exact_n, h, &estimated);
        printf("exact_samples=%zu exact_ms=%.1f exact_estimate=%d\n", exact_n, ms, estimated);
    }
    for (size_t i = 0; i < ncpu; i++)
        free(c[i].bins);
    free(c);
    free(in);
    free(out);
    free(err);
    free(h);
    gsl_rng_free(rng);
    return 0;
}
