/*
 * `jitterlab compare A.json B.json ...` or `--group A1,A2 --group B1,B2`:
 * reads result documents, compares every arm with the first (the baseline)
 * through src/compare/, prints the table, writes --json (kind "compare"),
 * and with --fail-if-worse PCT exits 3 when a percentile of any arm is
 * significantly worse by more than PCT: a gate for latency regressions.
 * Run results compare with run results, noise results with noise results.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/compare_cli.h"
#include "cmd/options.h"
#include "common/units.h"
#include "compare/compare.h"
#include "out/json_compare.h"
#include "out/json_doctor.h"
#include "out/json_result.h"
#include "out/result_read.h"
#include "out/text_compare.h"

static void compare_usage(FILE *out)
{
    fprintf(out,
            "usage: jitterlab compare BASELINE.json OTHER.json [MORE.json ...] [options]\n"
            "       jitterlab compare --group A1.json,A2.json --group B1.json,B2.json [options]\n"
            "\n"
            "Compares run results with the first (the baseline): per CPU and for all CPUs,\n"
            "samples, missed periods, deadline misses, min/p50/p90/p99/p99.9/p99.99/max,\n"
            "execution and response time, and how often values exceed the baseline's p99.9\n"
            "and the budget, each with the ratio to the baseline, a test and a verdict:\n"
            "better, worse or no-difference. With repeated runs on both sides (--group) the\n"
            "spread between runs decides. Noise results (jitterlab noise --json) compare\n"
            "with noise results: noise share, gaps per second and gap p50/p99/p99.99/max.\n"
            "\n"
            "      --group F1,F2,...   one arm of repeated runs (repeatable; instead of files)\n"
            "      --label L           the next arm's name (repeatable; default: file names)\n"
            "      --budget DUR        count values above DUR (bare: us; default: the\n"
            "                          baseline's --budget)\n"
            "      --alpha A           the chance of any false verdict in the whole comparison\n"
            "                          (every metric, CPU and arm), 0 < A < 0.5 (default 0.05)\n"
            "      --fail-if-worse PCT  exit 3 when a percentile of any arm is worse by\n"
            "                          more than PCT percent, significantly (the output\n"
            "                          says how many percentile comparisons that covered)\n"
            "      --seed N            seed of random permutations (default 1)\n"
            "      --reps N            random permutations where there are too many to\n"
            "                          enumerate (more than 200000), 200..100000 (default 4000)\n"
            "      --json FILE         write the comparison (kind \"compare\")\n"
            "  -q, --quiet             print nothing but errors\n"
            "  -h, --help              this text\n"
            "\n"
            "Exit codes: 0 ok, 1 runtime failure, 2 bad usage or input, 3 worse than\n"
            "--fail-if-worse allows.\n");
}

enum { OPT_GROUP = 256, OPT_LABEL, OPT_BUDGET, OPT_ALPHA, OPT_FAIL, OPT_SEED, OPT_REPS };

static const struct option compare_options[] = {
    {"group", required_argument, NULL, OPT_GROUP},
    {"label", required_argument, NULL, OPT_LABEL},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"alpha", required_argument, NULL, OPT_ALPHA},
    {"fail-if-worse", required_argument, NULL, OPT_FAIL},
    {"seed", required_argument, NULL, OPT_SEED},
    {"reps", required_argument, NULL, OPT_REPS},
    CLI_OPTION_QUIET,
    CLI_OPTION_JSON,
    CLI_OPTION_HELP,
    CLI_OPTION_END,
};

/* A number in (lo, hi); 0, or EXIT_USAGE after the message. */
static int parse_real(const char *opt, const char *arg, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno || end == arg || *end || !(v > lo && v < hi)) {
        char why[96];
        snprintf(why, sizeof why, "must be a number above %g and below %g", lo, hi);
        return usage_error(opt, arg, why);
    }
    *out = v;
    return 0;
}

static int add_group(struct compare_params *p, const char *arg)
{
    if (p->narms == COMPARE_MAX_ARMS)
        return usage_error("--group", arg, "too many arms (at most 32)");
    char *copy = strdup(arg);
    if (!copy)
        return usage_error("--group", arg, "out of memory");
    int a = p->narms;
    p->group_text[a] = copy;
    char *save = NULL;
    for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        if (p->nfiles[a] == COMPARE_MAX_RUNS_PER_ARM) {
            char why[64];
            snprintf(why, sizeof why, "too many files in one arm (at most %d)",
                     COMPARE_MAX_RUNS_PER_ARM);
            return usage_error("--group", arg, why);
        }
        p->files[a][p->nfiles[a]++] = f;
    }
    if (p->nfiles[a] == 0)
        return usage_error("--group", arg, "names no file");
    p->narms++;
    p->grouped = true;
    return 0;
}

static int compare_option(void *params, int c, const char *arg)
{
    struct compare_params *p = params;
    long v;
    int rc;
    switch (c) {
    case OPT_GROUP:
        return add_group(p, arg);
    case OPT_LABEL:
        if (p->nlabels == COMPARE_MAX_ARMS)
            return usage_error("--label", arg, "too many labels (at most 32)");
        if (!*arg)
            return usage_error("--label", arg, "must not be empty");
        p->labels[p->nlabels++] = arg;
        return 0;
    case OPT_BUDGET:
        return parse_positive_duration("--budget", arg, NS_PER_US, &p->budget_ns);
    case OPT_ALPHA:
        return parse_real("--alpha", arg, 0, 0.5, &p->alpha);
    case OPT_FAIL: {
        char *end = NULL;
        errno = 0;
        double pct = strtod(arg, &end);
        if (errno || end == arg || *end || !(pct >= 0 && pct < 1e6))
            return usage_error("--fail-if-worse", arg, "must be a percentage of 0 or more");
        p->fail_if_worse_pct = pct;
        return 0;
    }
    case OPT_SEED:
        rc = parse_int_option("--seed", arg, 0, 2147483647L, &v);
        p->seed = (uint64_t)v;
        return rc;
    default: /* OPT_REPS */
        rc = parse_int_option("--reps", arg, 200, 100000, &v);
        p->reps = (int)v;
        return rc;
    }
}

static const struct cli_command compare_cli = {
    "compare", compare_usage, "qh", compare_options, compare_option, NULL,
};

int compare_parse_args(int argc, char **argv, struct compare_params *p)
{
    memset(p, 0, sizeof(*p));
    p->alpha = 0.05;
    p->budget_ns = -1;
    p->fail_if_worse_pct = -1;
    p->seed = 1;
    p->reps = 4000;
    int first = argc;
    int rc = cli_parse(&compare_cli, &p->common, p, argc, argv, 1, &first);
    if (rc >= 0)
        return rc;
    if (first < argc && p->grouped)
        return usage_error("--group", NULL,
                           "and file arguments cannot be mixed: give every arm "
                           "as a --group");
    for (int i = first; i < argc; i++) {
        if (p->narms == COMPARE_MAX_ARMS)
            return usage_error("compare", argv[i], "too many results (at most 32)");
        p->files[p->narms][0] = argv[i];
        p->nfiles[p->narms++] = 1;
    }
    if (p->narms < 2) {
        fprintf(stderr, "jitterlab: compare: needs two results or groups at least (a baseline "
                        "and one to compare; see jitterlab help compare)\n");
        return EXIT_USAGE;
    }
    if (p->nlabels > p->narms) {
        char n[16];
        snprintf(n, sizeof n, "%d", p->nlabels);
        return usage_error("--label", n, "more labels than results");
    }
    for (int a = 0; a < p->nlabels; a++)
        for (int b = 0; b < a; b++)
            if (strcmp(p->labels[a], p->labels[b]) == 0)
                return usage_error("--label", p->labels[a], "given twice");
    return -1;
}

void compare_params_free(struct compare_params *p)
{
    for (int a = 0; a < COMPARE_MAX_ARMS; a++) {
        free(p->group_text[a]);
        for (int f = 0; f < p->nowned[a]; f++)
            free(p->owned[a][f]);
        p->nowned[a] = 0;
    }
    memset(p->group_text, 0, sizeof p->group_text);
}

/* A doctor.json given as an arm (alone) stands for its final state's runs. */
static int expand_doctor_arms(struct compare_params *p)
{
    for (int a = 0; a < p->narms; a++) {
        if (p->nfiles[a] != 1)
            continue;
        char err[300];
        json_t *doc = result_load_file(p->files[a][0], err, sizeof err);
        const char *kind = json_string_value(json_object_get(doc, "kind"));
        if (!kind || strcmp(kind, "doctor") != 0) {
            json_decref(doc);
            continue;
        }
        int n = json_doctor_final_runs(doc, p->owned[a], COMPARE_MAX_RUNS_PER_ARM, err, sizeof err);
        json_decref(doc);
        if (n < 0) {
            fprintf(stderr, "jitterlab: compare %s: %s\n", p->files[a][0], err);
            return -1;
        }
        p->nowned[a] = n;
        p->doctor_doc[a] = p->files[a][0];
        for (int f = 0; f < n; f++)
            p->files[a][f] = p->owned[a][f];
        p->nfiles[a] = n;
    }
    return 0;
}

/* "results/idle-2.json" -> "idle-2"; for a group the first file's name
 * without a trailing "-N" (experiment runs are STEP-REPEAT.json). */
static void default_label(const char *path, bool group, char *buf, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(buf, len, "%s", base);
    size_t n = strlen(buf);
    if (n > 5 && strcmp(buf + n - 5, ".json") == 0)
        buf[n -= 5] = '\0';
    if (group) {
        size_t k = n;
        while (k > 0 && buf[k - 1] >= '0' && buf[k - 1] <= '9')
            k--;
        if (k > 1 && k < n && buf[k - 1] == '-')
            buf[k - 1] = '\0';
    }
}

static int compare_main(int argc, char **argv, char **typed);

int cmd_compare(int argc, char **argv)
{
    /* the command line as typed, for the document: getopt reorders argv
     * (compare takes its files among the options) */
    char **typed = cli_argv_copy(argc, argv);
    int rc = compare_main(argc, argv, typed ? typed : argv);
    free(typed);
    return rc;
}

static int compare_main(int argc, char **argv, char **typed)
{
    static struct compare_params p;
    int rc = compare_parse_args(argc, argv, &p);
    if (rc >= 0) {
        compare_params_free(&p);
        return rc;
    }
    if ((rc = check_output_path("--json", p.common.json_path)) != 0) {
        compare_params_free(&p);
        return rc;
    }
    static struct result_doc docs[COMPARE_MAX_ARMS][COMPARE_MAX_RUNS_PER_ARM];
    static char label_buf[COMPARE_MAX_ARMS][128];
    struct compare_input in[COMPARE_MAX_ARMS];
    struct compare_arm arms[COMPARE_MAX_ARMS];
    struct arm_comparison cmp[COMPARE_MAX_ARMS];
    int read = 0, ncmp = 0;
    static const char *paths[COMPARE_MAX_ARMS * COMPARE_MAX_RUNS_PER_ARM];
    int npaths = 0;
    rc = EXIT_USAGE;
    if (expand_doctor_arms(&p) != 0)
        goto done;
    for (int a = 0; a < p.narms; a++)
        for (int f = 0; f < p.nfiles[a]; f++)
            paths[npaths++] = p.files[a][f];
    rc = EXIT_USAGE;
    if (check_inputs_total("compare", NULL, paths, npaths) != 0)
        goto done;
    for (int a = 0; a < p.narms; a++) {
        for (int f = 0; f < p.nfiles[a]; f++) {
            char err[256];
            struct result_doc *d = &docs[a][f];
            if (result_read_file(p.files[a][f], d, err, sizeof err) != 0) {
                fprintf(stderr, "jitterlab: compare %s: %s\n", p.files[a][f], err);
                goto done;
            }
            read = a * COMPARE_MAX_RUNS_PER_ARM + f + 1;
            if (strcmp(d->kind, "run") != 0 && strcmp(d->kind, "noise") != 0) {
                fprintf(stderr, "jitterlab: compare %s: a %s document, not a run result\n",
                        p.files[a][f], d->kind);
                goto done;
            }
            if (strcmp(d->kind, docs[0][0].kind) != 0) {
                fprintf(stderr,
                        "jitterlab: compare %s: a %s result, and the baseline %s is a %s "
                        "result: compare runs with runs and noise with noise\n",
                        p.files[a][f], d->kind, p.files[0][0], docs[0][0].kind);
                goto done;
            }
        }
        if (a < p.nlabels)
            snprintf(label_buf[a], sizeof label_buf[a], "%s", p.labels[a]);
        else
            default_label(p.doctor_doc[a] ? p.doctor_doc[a] : p.files[a][0],
                          p.grouped && !p.doctor_doc[a], label_buf[a], sizeof label_buf[a]);
        in[a] = (struct compare_input){label_buf[a], p.nfiles[a], p.files[a]};
        arms[a] = (struct compare_arm){label_buf[a], p.nfiles[a], docs[a]};
    }
    for (int a = 0; a < p.narms; a++)
        for (int b = 0; b < a; b++)
            if (strcmp(in[a].label, in[b].label) == 0) {
                fprintf(stderr, "jitterlab: compare: two results named %s: give each a --label\n",
                        in[a].label);
                goto done;
            }
    /* Different wake paths are a fair question (timer against futex), but
     * never one to ask by accident: said once per result that differs. */
    for (int a = 0; a < p.narms; a++)
        for (int f = 0; f < p.nfiles[a]; f++)
            if (strcmp(docs[a][f].wake, docs[0][0].wake) != 0)
                fprintf(stderr,
                        "jitterlab: compare: note: %s measured --wake %s, the baseline %s "
                        "--wake %s: the arms measure different wake paths\n",
                        p.files[a][f], docs[a][f].wake, p.files[0][0], docs[0][0].wake);
    struct compare_config cfg = {
        .alpha = p.alpha, .budget_ns = p.budget_ns, .reps = p.reps, .seed = p.seed, .tail = true};
    rc = EXIT_RUNTIME;
    struct compare_family fam;
    char err[256] = "";
    if (compare_all(arms, p.narms, &cfg, cmp, &fam, err, sizeof err) != 0) {
        fprintf(stderr, "jitterlab: compare: %s\n", err);
        goto done;
    }
    ncmp = p.narms - 1;
    int gate_worse =
        p.fail_if_worse_pct >= 0 ? compare_gate_worse(cmp, ncmp, p.fail_if_worse_pct) : 0;
    if (!p.common.quiet) {
        text_compare(stdout, in, p.narms, cmp, &fam, isatty(STDOUT_FILENO));
        if (p.fail_if_worse_pct >= 0)
            printf("\n--fail-if-worse %g%%: %d of the %d percentile comparisons that can reach "
                   "a verdict worse by more than that\n",
                   p.fail_if_worse_pct, gate_worse, fam.percentiles);
    }
    rc = EXIT_OK;
    if (p.common.json_path) {
        char started_at[40];
        rfc3339_now(started_at, sizeof started_at);
        json_t *doc = json_compare_document(JITTERLAB_VERSION, argc, typed, started_at, &cfg, in,
                                            p.narms, cmp, &fam);
        if (doc && p.fail_if_worse_pct >= 0)
            json_object_set_new(doc, "gate",
                                json_pack("{s:f,s:i,s:i}", "fail_if_worse_pct", p.fail_if_worse_pct,
                                          "percentiles", fam.percentiles, "worse", gate_worse));
        if (!doc || json_write_file(doc, p.common.json_path) != 0) {
            fprintf(stderr, "jitterlab: --json %s: %s\n", p.common.json_path, strerror(errno));
            rc = EXIT_RUNTIME;
        }
        json_decref(doc);
    }
    if (rc == EXIT_OK && gate_worse > 0) {
        fprintf(stderr,
                "jitterlab: compare: %d of %d percentile comparisons worse by more than "
                "--fail-if-worse %g%% (each at p < %.3g)\n",
                gate_worse, fam.percentiles, p.fail_if_worse_pct, fam.level);
        rc = EXIT_BUDGET;
    }
done:
    for (int a = 0; a < ncmp; a++)
        arm_comparison_free(&cmp[a]);
    for (int a = 0; a < p.narms; a++)
        for (int f = 0; f < p.nfiles[a]; f++)
            if (a * COMPARE_MAX_RUNS_PER_ARM + f < read)
                result_doc_free(&docs[a][f]);
    compare_params_free(&p);
    return rc;
}
