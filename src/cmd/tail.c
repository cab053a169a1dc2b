/*
 * `jitterlab tail RESULT.json...`: how sure is the worst case. Reads run
 * results (several of one loop merge per CPU: histograms added, report
 * windows concatenated in argument order), optionally the exact samples of
 * one (--samples), builds one input of the tail analysis (stats/tail.h) per
 * CPU and one for the chosen CPUs together, analyses them in parallel,
 * prints the table (out/text_tail.c) and writes --json (kind "tail",
 * out/json_tail.c). Every input is checked before anything is analysed or
 * written; a CPU that cannot be estimated is an answer (exit 0), an input
 * the analysis cannot take is bad input (exit 2).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/tail_cli.h"
#include "common/atomic_file.h"
#include "common/json_text.h"
#include "common/safe_text.h"
#include "common/units.h"
#include "out/json_result.h"
#include "out/json_tail.h"
#include "out/result_read.h"
#include "out/samples_read.h"
#include "out/text_tail.h"

static void tail_usage(FILE *out)
{
    fprintf(out,
            "usage: jitterlab tail RESULT.json [MORE.json ...] [options]\n"
            "\n"
            "How sure is the worst case: fits the tail of each CPU's latencies (peaks over\n"
            "a threshold, a generalized Pareto distribution, with the report windows' maxima\n"
            "as a cross-check), checks the fit (goodness of fit, independence, trend,\n"
            "clustering, split halves) and gives the latency exceeded once in 1e6, 1e9 and\n"
            "1e12 cycles with intervals, and how often the budget is exceeded per cycle,\n"
            "hour and year; or says why it cannot estimate and what to do. Several results\n"
            "of one loop (same interval) merge per CPU.\n"
            "\n"
            "      --budget DUR        P(latency > DUR) (bare: us; default: the result's\n"
            "                          --budget)\n"
            "      --probability P     a per-cycle probability to estimate, 0 < P < 1\n"
            "                          (repeatable, at most %d; default 1e-6, 1e-9, 1e-12)\n"
            "      --threshold DUR     fit the values above DUR (bare: us; default: chosen\n"
            "                          by a ladder of high quantiles)\n"
            "      --samples CSV       fit the exact samples of run --samples (one result\n"
            "                          only): also the clustering and split-half checks\n"
            "      --confidence C      of every interval, 0 < C < 1 (default 0.95)\n"
            "      --json FILE         write the analysis (kind \"tail\")\n"
            "  -a, --cpus LIST         CPUs of the result to analyse (default: all)\n"
            "  -q, --quiet             print nothing but errors\n"
            "  -h, --help              this text\n"
            "\n"
            "Exit codes: 0 analysed (an estimate or a reasoned \"cannot estimate\" per CPU),\n"
            "1 runtime failure, 2 bad usage or input.\n",
            TAIL_MAX_PROBABILITIES);
}

enum { OPT_BUDGET = 256, OPT_PROBABILITY, OPT_THRESHOLD, OPT_SAMPLES, OPT_CONFIDENCE };

static const struct option tail_options[] = {
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"probability", required_argument, NULL, OPT_PROBABILITY},
    {"threshold", required_argument, NULL, OPT_THRESHOLD},
    {"samples", required_argument, NULL, OPT_SAMPLES},
    {"confidence", required_argument, NULL, OPT_CONFIDENCE},
    CLI_OPTION_CPUS,
    CLI_OPTION_QUIET,
    CLI_OPTION_JSON,
    CLI_OPTION_HELP,
    CLI_OPTION_END,
};

/* The terminal form of a path or argument for a message. */
#define SHOWN_LEN SAFE_TEXT_TERM_LEN(4096)
static const char *shown(const char *s, char *buf)
{
    return safe_text_term(buf, SHOWN_LEN, s);
}

/* A number strictly between 0 and 1; 0, or EXIT_USAGE after the message. */
static int parse_fraction(const char *opt, const char *arg, const char *what, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno || end == arg || *end || !(v > 0 && v < 1)) {
        static char buf[SHOWN_LEN];
        char why[96];
        snprintf(why, sizeof why, "must be %s above 0 and below 1", what);
        return usage_error(opt, shown(arg, buf), why);
    }
    *out = v;
    return 0;
}

static int tail_option(void *params, int c, const char *arg)
{
    struct tail_params *p = params;
    static char buf[SHOWN_LEN];
    switch (c) {
    case OPT_BUDGET:
        return parse_positive_duration("--budget", arg, NS_PER_US, &p->budget_ns);
    case OPT_THRESHOLD:
        return parse_positive_duration("--threshold", arg, NS_PER_US, &p->threshold_ns);
    case OPT_PROBABILITY:
        if (p->nprobabilities == TAIL_MAX_PROBABILITIES) {
            char why[64];
            snprintf(why, sizeof why, "too many probabilities (at most %d)",
                     TAIL_MAX_PROBABILITIES);
            return usage_error("--probability", shown(arg, buf), why);
        }
        return parse_fraction("--probability", arg, "a probability",
                              &p->probabilities[p->nprobabilities++]);
    case OPT_SAMPLES:
        if (!*arg)
            return usage_error("--samples", arg, "must name a file");
        p->samples_path = arg;
        return 0;
    default: /* OPT_CONFIDENCE */
        return parse_fraction("--confidence", arg, "a confidence", &p->confidence);
    }
}

static const struct cli_command tail_cli = {
    "tail", tail_usage, "a:qh", tail_options, tail_option, NULL,
};

int tail_parse_args(int argc, char **argv, struct tail_params *p)
{
    memset(p, 0, sizeof(*p));
    p->budget_ns = -1;
    p->threshold_ns = -1;
    p->confidence = TAIL_DEFAULT_CONFIDENCE;
    int first = argc;
    int rc = cli_parse(&tail_cli, &p->common, p, argc, argv, 1, &first);
    if (rc >= 0)
        return rc;
    static char buf[SHOWN_LEN];
    for (int i = first; i < argc; i++) {
        if (p->nresults == TAIL_MAX_RESULTS) {
            char why[64];
            snprintf(why, sizeof why, "too many results (at most %d)", TAIL_MAX_RESULTS);
            return usage_error("tail", shown(argv[i], buf), why);
        }
        p->results[p->nresults++] = argv[i];
    }
    if (p->nresults == 0) {
        fprintf(stderr, "jitterlab: tail: needs a run result (jitterlab run --json FILE; see "
                        "jitterlab help tail)\n");
        return EXIT_USAGE;
    }
    if (p->samples_path && p->nresults > 1) {
        char why[96];
        snprintf(why, sizeof why, "belongs to one result, and %d are given", p->nresults);
        return usage_error("--samples", shown(p->samples_path, buf), why);
    }
    return -1;
}

/* One CPU entry (or the chosen CPUs together) over every result. */
struct tail_entry {
    int cpu; /* -1: all */
    struct tail_bin *bins;
    size_t nbins;
    uint64_t overflow, samples;
    int64_t min_ns, max_ns; /* -1 before the first sample */
    int64_t *block_max;
    size_t nblock;
    uint64_t block_samples;
};

static void entry_free(struct tail_entry *e)
{
    free(e->bins);
    free(e->block_max);
}

/* Adds a histogram into e's: bins of one layout add, others interleave; a
 * bin that overlaps another of different edges is refused. */
static int add_bins(struct tail_entry *e, const struct tail_bin *b, size_t n, char *err,
                    size_t errlen)
{
    struct tail_bin *m = calloc(e->nbins + n + 1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t i = 0, k = 0, out = 0;
    while (i < e->nbins || k < n) {
        const struct tail_bin *x = i < e->nbins ? &e->bins[i] : NULL, *y = k < n ? &b[k] : NULL;
        if (x && y && x->lo == y->lo && x->hi == y->hi) {
            m[out] = *x;
            m[out++].count += y->count;
            i++, k++;
        } else if (x && (!y || x->hi < y->lo)) {
            m[out++] = *x, i++;
        } else if (y && (!x || y->hi < x->lo)) {
            m[out++] = *y, k++;
        } else { /* both are set: one alone is taken above */
            snprintf(err, errlen,
                     "histogram buckets [%lld, %lld] and [%lld, %lld] overlap: not of one layout",
                     // cppcheck-suppress nullPointerRedundantCheck
                     (long long)x->lo, (long long)x->hi, (long long)y->lo, (long long)y->hi);
            free(m);
            return -1;
        }
    }
    free(e->bins);
    e->bins = m;
    e->nbins = out;
    return 0;
}

static int add_blocks(struct tail_entry *e, const struct result_window *w, size_t n)
{
    if (n == 0)
        return 0;
    int64_t *a = realloc(e->block_max, (e->nblock + n) * sizeof *a);
    if (!a)
        return -1;
    e->block_max = a;
    for (size_t i = 0; i < n; i++) {
        a[e->nblock++] = w[i].max_ns;
        e->block_samples += w[i].samples;
    }
    return 0;
}

/* A CPU entry of one result into e. */
static int add_cpu(struct tail_entry *e, const struct result_cpu *c, char *err, size_t errlen)
{
    struct tail_bin *b = c->nbins ? calloc((size_t)c->nbins, sizeof *b) : NULL;
    if (c->nbins && !b) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < c->nbins; i++)
        b[i] = (struct tail_bin){c->bins[i].lo, c->bins[i].hi, c->bins[i].count};
    int rc = add_bins(e, b, (size_t)c->nbins, err, errlen);
    free(b);
    if (rc != 0)
        return -1;
    e->overflow += c->overflow;
    e->samples += c->samples;
    if (c->latency.known) {
        e->min_ns = e->min_ns < 0 || c->latency.min < e->min_ns ? c->latency.min : e->min_ns;
        e->max_ns = c->latency.max > e->max_ns ? c->latency.max : e->max_ns;
    }
    if (add_blocks(e, c->windows, c->nwindows) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

static int by_time(const void *a, const void *b)
{
    double x = ((const struct result_window *)a)->t_s, y = ((const struct result_window *)b)->t_s;
    return (x > y) - (x < y);
}

/* The windows of one result's chosen CPUs together: per window time the
 * largest maximum. */
static int add_all_blocks(struct tail_entry *e, const struct result_doc *d, const int *sel,
                          size_t nsel)
{
    size_t n = 0;
    for (int i = 0; i < d->ncpus; i++)
        for (size_t k = 0; k < nsel; k++)
            n += d->cpus[i].cpu == sel[k] ? d->cpus[i].nwindows : 0;
    if (n == 0)
        return 0;
    struct result_window *w = calloc(n, sizeof *w);
    if (!w)
        return -1;
    size_t m = 0;
    for (int i = 0; i < d->ncpus; i++)
        for (size_t k = 0; k < nsel; k++)
            if (d->cpus[i].cpu == sel[k] && d->cpus[i].nwindows > 0) { /* else no array */
                memcpy(w + m, d->cpus[i].windows, d->cpus[i].nwindows * sizeof *w);
                m += d->cpus[i].nwindows;
            }
    qsort(w, n, sizeof *w, by_time);
    m = 0;
    for (size_t k = 0; k < n; k++) {
        if (m > 0 && w[m - 1].t_s == w[k].t_s) {
            w[m - 1].max_ns = w[k].max_ns > w[m - 1].max_ns ? w[k].max_ns : w[m - 1].max_ns;
            w[m - 1].samples += w[k].samples;
        } else {
            w[m++] = w[k];
        }
    }
    int rc = add_blocks(e, w, m);
    free(w);
    return rc;
}

/* What the analysis cannot take, in words (exit 2), or "" when usable. */
static void unusable(const struct tail_entry *e, char *why, size_t len)
{
    why[0] = '\0';
    if (e->samples == 0)
        snprintf(why, len, "no samples");
    else if (e->nbins == 0 && e->max_ns < 0)
        snprintf(why, len, "no histogram: every sample beyond its range, the maximum unknown");
    else if (e->min_ns >= 0 && e->min_ns == e->max_ns)
        snprintf(why, len, "all %llu samples are equal (%lld ns): there is no tail to fit",
                 (unsigned long long)e->samples, (long long)e->max_ns);
    else if (e->nblock < 2)
        snprintf(why, len,
                 "%zu report window%s with samples, fewer than 2: run longer or with "
                 "--report-every",
                 e->nblock, e->nblock == 1 ? "" : "s");
}

static int cmp_int(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static int tail_main(int argc, char **argv, char **typed);

int cmd_tail(int argc, char **argv)
{
    /* the command line as typed, for the document: getopt reorders argv */
    char **typed = cli_argv_copy(argc, argv);
    int rc = tail_main(argc, argv, typed ? typed : argv);
    free(typed);
    return rc;
}

/* "tail r.json" for messages about the one result, "tail" for several. */
static const char *source_of(const struct tail_params *p, char *buf, size_t len)
{
    static char sb[SHOWN_LEN];
    if (p->nresults == 1)
        snprintf(buf, len, "tail %s", shown(p->results[0], sb));
    else
        snprintf(buf, len, "tail");
    return buf;
}

static int check_json_path(const char *path)
{
    static char why[4200], buf[SHOWN_LEN];
    if (path && atomic_file_check(path, why, sizeof why) != 0)
        return usage_error("--json", shown(path, buf), why);
    return 0;
}

/* The documents read and checked: kind "run", one interval. */
static int read_results(const struct tail_params *p, struct result_doc *docs, int *nread)
{
    static char buf[SHOWN_LEN], buf2[SHOWN_LEN];
    for (int i = 0; i < p->nresults; i++) {
        char err[256];
        if (result_read_file(p->results[i], &docs[i], err, sizeof err) != 0) {
            fprintf(stderr, "jitterlab: tail %s: %s\n", shown(p->results[i], buf), err);
            return EXIT_USAGE;
        }
        *nread = i + 1;
        if (strcmp(docs[i].kind, "run") != 0) {
            fprintf(stderr, "jitterlab: tail %s: a %s document, not a run result\n",
                    shown(p->results[i], buf), docs[i].kind);
            return EXIT_USAGE;
        }
        if (docs[i].windows_error[0]) {
            fprintf(stderr, "jitterlab: tail %s: %s\n", shown(p->results[i], buf),
                    docs[i].windows_error);
            return EXIT_USAGE;
        }
        if (docs[i].interval_ns <= 0) {
            fprintf(stderr,
                    "jitterlab: tail %s: no config.interval_ns: the cycle's period is "
                    "unknown\n",
                    shown(p->results[i], buf));
            return EXIT_USAGE;
        }
        if (docs[i].interval_ns != docs[0].interval_ns) {
            char a[32], b[32];
            format_duration(docs[i].interval_ns, a, sizeof a);
            format_duration(docs[0].interval_ns, b, sizeof b);
            fprintf(stderr,
                    "jitterlab: tail %s: interval %s, and %s has %s: merge results of one "
                    "loop only\n",
                    shown(p->results[i], buf), a, shown(p->results[0], buf2), b);
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* The CPUs to analyse: every CPU of the results, or --cpus (each one of
 * them), ascending. */
static int choose_cpus(const struct tail_params *p, const struct result_doc *docs, int *sel,
                       size_t *nsel)
{
    static int in[CPULIST_MAX_CPUS];
    memset(in, 0, sizeof in);
    for (int r = 0; r < p->nresults; r++)
        for (int i = 0; i < docs[r].ncpus; i++)
            in[docs[r].cpus[i].cpu] = 1;
    *nsel = 0;
    if (p->common.cpus.count == 0) {
        for (int c = 0; c < CPULIST_MAX_CPUS; c++)
            if (in[c])
                sel[(*nsel)++] = c;
        return 0;
    }
    for (int k = 0; k < p->common.cpus.count; k++) {
        int c = p->common.cpus.cpu[k];
        if (!in[c]) {
            char why[64];
            snprintf(why, sizeof why, "CPU %d is not in the result%s", c,
                     p->nresults > 1 ? "s" : "");
            return usage_error("--cpus", p->common.cpus_text, why);
        }
        sel[(*nsel)++] = c;
    }
    qsort(sel, *nsel, sizeof *sel, cmp_int);
    return 0;
}

/* The exact samples of the one result, per chosen CPU into seq/nseq. */
static int read_samples(const struct tail_params *p, const struct result_doc *d,
                        struct samples_data *sd)
{
    static char buf[SHOWN_LEN];
    static int ids[CPULIST_MAX_CPUS];
    static uint64_t expected[CPULIST_MAX_CPUS];
    for (int i = 0; i < d->ncpus; i++) {
        ids[i] = d->cpus[i].cpu;
        expected[i] = d->cpus[i].samples - d->cpus[i].ring_drops;
    }
    char err[256];
    if (samples_data_init(sd, ids, expected, (size_t)d->ncpus, SAMPLES_READ_MAX_ROWS, err,
                          sizeof err) != 0 ||
        samples_read_file(p->samples_path, sd, err, sizeof err) != 0) {
        fprintf(stderr, "jitterlab: --samples %s: %s\n", shown(p->samples_path, buf), err);
        return EXIT_USAGE;
    }
    return 0;
}

static json_t *document(const struct tail_params *p, int argc, char **typed,
                        const struct tail_config *cfg, const struct tail_result *res,
                        const int *sel, size_t nsel, const struct tail_result *all)
{
    char started_at[40];
    rfc3339_now(started_at, sizeof started_at);
    json_t *doc = json_document_new("tail", JITTERLAB_VERSION, argc, typed, started_at);
    json_t *inputs = json_array();
    for (int i = 0; i < p->nresults; i++)
        json_array_append_new(inputs, json_text_new(p->results[i]));
    json_object_set_new(doc, "inputs", inputs);
    json_t *body = json_tail_object(cfg, res, sel, nsel, all);
    json_object_update(doc, body);
    json_decref(body);
    return doc;
}

static int tail_main(int argc, char **argv, char **typed)
{
    static struct tail_params p;
    int rc = tail_parse_args(argc, argv, &p);
    if (rc >= 0)
        return rc;
    if ((rc = check_json_path(p.common.json_path)) != 0 ||
        (rc = check_inputs_total("tail", NULL, p.results, p.nresults)) != 0)
        return rc;
    static struct result_doc docs[TAIL_MAX_RESULTS];
    static int sel[CPULIST_MAX_CPUS];
    struct tail_entry *e = NULL;
    struct tail_input *in = NULL;
    struct tail_result *res = NULL;
    char(*errs)[TAIL_ERR_LEN] = NULL;
    struct samples_data sd = {0};
    int nread = 0;
    size_t nsel = 0, n = 0;
    char src[SHOWN_LEN + 8], err[256];
    if ((rc = read_results(&p, docs, &nread)) != 0 || (rc = choose_cpus(&p, docs, sel, &nsel)) != 0)
        goto done;
    rc = EXIT_RUNTIME;
    n = nsel + (nsel > 1);
    e = calloc(n, sizeof *e);
    in = calloc(n, sizeof *in);
    res = calloc(n, sizeof *res);
    errs = calloc(n, sizeof *errs);
    if (!e || !in || !res || !errs) {
        fprintf(stderr, "jitterlab: tail: out of memory\n");
        goto done;
    }
    rc = EXIT_USAGE;
    double duration_s = 0;
    for (size_t k = 0; k < n; k++)
        e[k] = (struct tail_entry){.cpu = k < nsel ? sel[k] : -1, .min_ns = -1, .max_ns = -1};
    for (int r = 0; r < p.nresults; r++) {
        duration_s += docs[r].duration_s;
        for (int i = 0; i < docs[r].ncpus; i++)
            for (size_t k = 0; k < nsel; k++)
                if (docs[r].cpus[i].cpu == sel[k] &&
                    (add_cpu(&e[k], &docs[r].cpus[i], err, sizeof err) != 0 ||
                     (n > nsel && add_cpu(&e[nsel], &docs[r].cpus[i], err, sizeof err) != 0))) {
                    fprintf(stderr, "jitterlab: tail %s: CPU %d: %s\n", shown(p.results[r], src),
                            sel[k], err);
                    goto done;
                }
        if (n > nsel) { /* the windows of all: per result, by time */
            free(e[nsel].block_max);
            e[nsel].block_max = NULL;
            e[nsel].nblock = 0;
            e[nsel].block_samples = 0;
        }
    }
    for (int r = 0; n > nsel && r < p.nresults; r++)
        if (add_all_blocks(&e[nsel], &docs[r], sel, nsel) != 0) {
            fprintf(stderr, "jitterlab: tail: out of memory\n");
            rc = EXIT_RUNTIME;
            goto done;
        }
    for (size_t k = 0; k < n; k++) {
        char why[160];
        unusable(&e[k], why, sizeof why);
        if (why[0]) {
            if (e[k].cpu >= 0)
                fprintf(stderr, "jitterlab: %s: CPU %d: %s\n", source_of(&p, src, sizeof src),
                        e[k].cpu, why);
            else
                fprintf(stderr, "jitterlab: %s: all CPUs: %s\n", source_of(&p, src, sizeof src),
                        why);
            goto done;
        }
    }
    if (p.samples_path && (rc = read_samples(&p, &docs[0], &sd)) != 0)
        goto done;
    int64_t budget_ns = p.budget_ns >= 0 ? p.budget_ns : docs[0].budget_ns;
    for (size_t k = 0; k < n; k++) {
        const struct samples_cpu *s = NULL;
        for (size_t j = 0; j < sd.ncpus && e[k].cpu >= 0; j++)
            if (sd.cpus[j].cpu == e[k].cpu)
                s = &sd.cpus[j];
        in[k] = (struct tail_input){
            .bins = e[k].bins,
            .nbins = e[k].nbins,
            .overflow = e[k].overflow,
            .max_ns = e[k].max_ns,
            .seq = s ? s->latency_ns : NULL,
            .nseq = s ? s->n : 0,
            .block_max = e[k].block_max,
            .nblock = e[k].nblock,
            .block_cycles = e[k].nblock ? (double)e[k].block_samples / (double)e[k].nblock : 0,
            .interval_ns = docs[0].interval_ns,
            .budget_ns = budget_ns,
            .threshold_ns = p.threshold_ns,
            .probabilities = p.probabilities,
            .nprobabilities = p.nprobabilities,
            .confidence = p.confidence,
            .duration_s = duration_s,
        };
    }
    if (tail_analyse_many(in, res, n, 0, errs) > 0) {
        for (size_t k = 0; k < n; k++)
            if (errs[k][0]) {
                fprintf(stderr, "jitterlab: %s: %s%d: %s\n", source_of(&p, src, sizeof src),
                        e[k].cpu >= 0 ? "CPU " : "all CPUs", e[k].cpu, errs[k]);
                break;
            }
        goto done;
    }
    struct tail_config cfg = {
        .confidence = p.confidence,
        .probabilities = p.probabilities,
        .nprobabilities = p.nprobabilities,
        .budget_ns = budget_ns,
        .threshold_ns = p.threshold_ns,
        .interval_ns = docs[0].interval_ns,
        .samples_file = p.samples_path,
    };
    const struct tail_result *all = n > nsel ? &res[nsel] : NULL;
    if (!p.common.quiet)
        text_tail(stdout, &cfg, res, sel, nsel, all);
    rc = EXIT_OK;
    if (p.common.json_path) {
        json_t *doc = document(&p, argc, typed, &cfg, res, sel, nsel, all);
        if (!doc || json_write_file(doc, p.common.json_path) != 0) {
            fprintf(stderr, "jitterlab: --json %s: %s\n", shown(p.common.json_path, src),
                    strerror(errno));
            rc = EXIT_RUNTIME;
        }
        json_decref(doc);
    }
done:
    for (size_t k = 0; e && k < n; k++)
        entry_free(&e[k]);
    free(e);
    free(in);
    free(res);
    free(errs);
    samples_data_free(&sd);
    for (int r = 0; r < nread; r++)
        result_doc_free(&docs[r]);
    return rc;
}
