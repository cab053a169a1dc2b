/*
 * The tail analysis at the end of a run (see run_tail.h): the inputs built
 * from the run report, one per measured CPU and one for all CPUs together,
 * analysed on several threads at once (tail_analyse_many), so that the end
 * of a run on many CPUs waits for the slowest share.
 */
#include "cmd/run_tail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/samples_read.h"

size_t run_tail_probabilities(const struct run_params *p, double *out)
{
    size_t n = 0;
    out[n++] = TAIL_DEFAULT_P1;
    out[n++] = TAIL_DEFAULT_P2;
    out[n++] = TAIL_DEFAULT_P3;
    double c = p->confident_probability;
    if (c > 0 && c != out[0] && c != out[1] && c != out[2])
        out[n++] = c;
    return n;
}

/* One window as the maxima see it: its key (end time, or its rank among
 * its CPU's windows when they are counted in samples), maximum, samples. */
struct window_max {
    int64_t key;
    int64_t max_ns;
    uint64_t samples;
};

static int by_key(const void *a, const void *b)
{
    const struct window_max *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

/* The windows of CPU cpu (every CPU when cpu < 0) that hold a sample: the
 * report windows when the run has them, else the telemetry windows. n:
 * how many went to out (room for every window of the report). */
static size_t windows_of(const struct run_report *rep, int cpu, struct window_max *out)
{
    size_t n = 0;
    if (rep->has_intervals) {
        int rank[CPULIST_MAX_CPUS + 1] = {0};
        bool by_rank = rep->report_every_samples > 0;
        for (uint64_t k = 0; k < rep->interval_count; k++) {
            const struct interval_stats *w = &rep->intervals[k];
            if ((cpu >= 0 && w->cpu != cpu) || w->samples == 0)
                continue;
            int r = w->cpu >= 0 && w->cpu < CPULIST_MAX_CPUS ? rank[w->cpu]++ : 0;
            out[n++] = (struct window_max){
                .key = by_rank ? r : w->t_ns, .max_ns = w->latency.max, .samples = w->samples};
        }
    } else if (rep->telemetry) {
        for (uint64_t k = 0; k < rep->telemetry_count; k++) {
            const struct telemetry_window *w = &rep->telemetry_windows[k];
            if ((cpu >= 0 && w->cpu != cpu) || w->samples == 0)
                continue;
            out[n++] =
                (struct window_max){.key = w->t_ns, .max_ns = w->max_ns, .samples = w->samples};
        }
    }
    return n;
}

/* The maxima in time order into max_out, and the mean samples per window.
 * For all CPUs, the windows that share a key are one: the largest of their
 * maxima, the sum of their samples. */
static size_t window_maxima(const struct run_report *rep, int cpu, struct window_max *scratch,
                            int64_t *max_out, double *block_cycles)
{
    size_t n = windows_of(rep, cpu, scratch);
    qsort(scratch, n, sizeof *scratch, by_key); /* the kept order is by close, nearly by time */
    size_t m = 0;
    uint64_t samples = 0;
    for (size_t k = 0; k < n; k++) {
        if (m > 0 && scratch[m - 1].key == scratch[k].key) {
            if (scratch[k].max_ns > scratch[m - 1].max_ns)
                scratch[m - 1].max_ns = scratch[k].max_ns;
            scratch[m - 1].samples += scratch[k].samples;
        } else {
            scratch[m++] = scratch[k];
        }
        samples += scratch[k].samples;
    }
    for (size_t k = 0; k < m; k++)
        max_out[k] = scratch[k].max_ns;
    *block_cycles = m ? (double)samples / (double)m : 0;
    return m;
}

/* With --samples, each CPU's exact sequence from the samples file the run
 * has just committed, so that the fit is on the samples and the extremal
 * index and the split-half check can run. Only when the file is whole (no
 * ring drops: a sequence with holes would fake the clustering) and at most
 * RUN_TAIL_MAX_ROWS rows (read back in about a second); otherwise, or when
 * it cannot be read, the histograms, and a note says why. Returns the
 * path when the sequences were taken, else NULL. */
#define RUN_TAIL_MAX_ROWS (UINT64_C(8) * 1024 * 1024)
static const char *run_tail_sequences(const struct run_params *p, const struct run_report *rep,
                                      struct run_tail *t)
{
    if (!p->samples_path || rep->ncpu <= 0)
        return NULL;
    if (rep->all_ring_drops > 0) {
        fprintf(stderr,
                "jitterlab: --tail: --samples %s lacks %llu samples the rings dropped; the tail is "
                "fitted on the histograms\n",
                p->samples_path, (unsigned long long)rep->all_ring_drops);
        return NULL;
    }
    if (rep->all_samples > RUN_TAIL_MAX_ROWS) {
        fprintf(stderr,
                "jitterlab: --tail: --samples %s holds %llu samples, more than the %llu read "
                "back at the end of a run; the tail is fitted on the histograms (jitterlab tail "
                "--samples reads more)\n",
                p->samples_path, (unsigned long long)rep->all_samples,
                (unsigned long long)RUN_TAIL_MAX_ROWS);
        return NULL;
    }
    int cpus[CPULIST_MAX_CPUS];
    uint64_t expected[CPULIST_MAX_CPUS];
    for (int i = 0; i < rep->ncpu; i++) {
        cpus[i] = rep->cpu[i]->cpu;
        expected[i] = rep->cpu[i]->samples;
    }
    char why[256];
    if (samples_data_init(&t->seq, cpus, expected, (size_t)rep->ncpu, SAMPLES_READ_MAX_ROWS, why,
                          sizeof why) != 0 ||
        samples_read_file(p->samples_path, &t->seq, why, sizeof why) != 0) {
        fprintf(stderr,
                "jitterlab: --tail: --samples %s: %s; the tail is fitted on the histograms\n",
                p->samples_path, why);
        return NULL;
    }
    t->have_seq = true;
    for (size_t e = 0; e < (size_t)rep->ncpu; e++)
        for (size_t k = 0; k < t->seq.ncpus; k++)
            if (t->seq.cpus[k].cpu == rep->cpu[e]->cpu) {
                t->in[e].seq = t->seq.cpus[k].latency_ns;
                t->in[e].nseq = t->seq.cpus[k].n;
            }
    return p->samples_path;
}

int run_tail_analyse(const struct run_params *p, struct run_report *rep,
                     const struct run_tail_confidence *confidence, struct run_tail *t, char *err,
                     size_t errlen)
{
    memset(t, 0, sizeof *t);
    size_t ncpu = (size_t)rep->ncpu;
    size_t entries = ncpu + (ncpu > 1 ? 1 : 0);
    size_t nwin = rep->has_intervals ? rep->interval_count
                  : rep->telemetry   ? rep->telemetry_count
                                     : 0;
    t->n = ncpu;
    t->cpu_ids = calloc(ncpu ? ncpu : 1, sizeof *t->cpu_ids);
    t->in = calloc(entries ? entries : 1, sizeof *t->in);
    t->out = calloc(entries ? entries : 1, sizeof *t->out);
    t->bins = calloc(entries ? entries : 1, sizeof *t->bins);
    t->block_max = calloc(entries ? entries : 1, sizeof *t->block_max);
    t->err = calloc(entries ? entries : 1, sizeof *t->err);
    struct window_max *scratch = malloc((nwin ? nwin : 1) * sizeof *scratch);
    if (!t->cpu_ids || !t->in || !t->out || !t->bins || !t->block_max || !t->err || !scratch)
        goto oom;
    size_t nprob = run_tail_probabilities(p, t->probabilities);
    for (size_t e = 0; e < entries; e++) {
        bool all = e == ncpu;
        const struct latency_hist *h = all ? rep->all_hist : &rep->cpu[e]->hist;
        const struct running_stats *lat = all ? &rep->all_latency : &rep->cpu[e]->latency;
        t->bins[e] = malloc(LATENCY_HIST_BUCKETS * sizeof **t->bins);
        t->block_max[e] = malloc((nwin ? nwin : 1) * sizeof **t->block_max);
        if (!t->bins[e] || !t->block_max[e])
            goto oom;
        struct tail_input *in = &t->in[e];
        in->bins = t->bins[e];
        in->nbins = tail_bins_of_hist(h, t->bins[e]);
        in->overflow = h->overflow;
        in->max_ns = lat->count ? lat->max : -1;
        in->block_max = t->block_max[e];
        in->nblock = window_maxima(rep, all ? -1 : rep->cpu[e]->cpu, scratch, t->block_max[e],
                                   &in->block_cycles);
        if (!in->nblock)
            in->block_max = NULL;
        in->interval_ns = rep->interval_ns;
        in->budget_ns = p->budget_ns >= 0 ? p->budget_ns : -1;
        in->threshold_ns = -1;
        in->probabilities = t->probabilities;
        in->nprobabilities = nprob;
        in->duration_s = rep->duration_s;
        if (!all)
            t->cpu_ids[e] = rep->cpu[e]->cpu;
    }
    free(scratch);
    scratch = NULL;
    const char *exact = run_tail_sequences(p, rep, t);
    tail_analyse_many(t->in, t->out, entries, 0, t->err);
    t->report = (struct run_report_tail){
        .cfg = {.confidence = 0.95,
                .probabilities = t->probabilities,
                .nprobabilities = nprob,
                .budget_ns = p->budget_ns >= 0 ? p->budget_ns : -1,
                .threshold_ns = -1,
                .interval_ns = rep->interval_ns,
                .samples_file = exact},
        .cpus = t->out,
        .cpu_ids = t->cpu_ids,
        .n = ncpu,
        .all = ncpu > 1 ? &t->out[ncpu] : NULL,
        .confidence = confidence,
    };
    rep->tail = &t->report;
    return 0;
oom:
    free(scratch);
    snprintf(err, errlen, "--tail: out of memory for the analysis of %zu CPUs", ncpu);
    run_tail_free(t);
    return -1;
}

void run_tail_free(struct run_tail *t)
{
    size_t entries = t->n + (t->n > 1 ? 1 : 0);
    for (size_t e = 0; t->bins && e < entries; e++)
        free(t->bins[e]);
    for (size_t e = 0; t->block_max && e < entries; e++)
        free(t->block_max[e]);
    free(t->bins);
    free(t->block_max);
    free(t->cpu_ids);
    free(t->in);
    free(t->out);
    free(t->err);
    if (t->have_seq)
        samples_data_free(&t->seq);
    memset(t, 0, sizeof *t);
}
