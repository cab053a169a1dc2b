/*
 * `jitterlab report RESULT.json... [-o report.html]`: one self-contained
 * HTML page of run results (out/report_html.h), with the verdicts of a
 * compare document and the findings of an inspect document when given,
 * or of noise results (jitterlab noise --json; not mixed with runs), with
 * the tail analysis of results and of tail documents given among them,
 * and every plot as an SVG file of its own with --svg DIR. Every document
 * is read and checked before anything is written (a bad one: exit 2, no
 * file); the page is written atomically, then the SVG files.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/report_cli.h"
#include "common/atomic_file.h"
#include "out/report_doctor.h"
#include "out/report_html.h"
#include "out/result_read.h"

static void report_usage(FILE *out)
{
    fprintf(out,
            "usage: jitterlab report RESULT.json... [options]\n"
            "       jitterlab report --c2c C2C.json [RESULT.json...] [options]\n"
            "\n"
            "Draws run results (jitterlab run --json) as one self-contained HTML page, readable\n"
            "offline: per CPU and for all CPUs the latency histogram and its tail (1 - F) on\n"
            "log axes with every result overlaid, the percentiles, the latency and telemetry\n"
            "per window over time, execution and response times; the spikes --explain found\n"
            "and their causes; the system and config of each result side by side, differences\n"
            "highlighted. Noise results (jitterlab noise --json) get their own page: noise\n"
            "share, gaps and floor per CPU, the gap histogram, the noise share per window\n"
            "and the causes; they do not mix with run results in one report.\n"
            "A result with a tail analysis (run --tail) gets, per CPU, the exceedance plot\n"
            "of its fit and its checks; a tail document (jitterlab tail --json) among the\n"
            "files gets a section of its own (with the histograms of the one result it\n"
            "names when that result is given too).\n"
            "It computes no statistics: jitterlab compare gives the verdicts.\n"
            "\n"
            "  -o, --output FILE       the page (default %s)\n"
            "      --label L           the name of the next result, once per result in order\n"
            "                          (default: the file names without .json)\n"
            "      --compare FILE      show the verdicts of a jitterlab compare --json document\n"
            "      --inspect FILE      show the findings of a jitterlab inspect --json document\n"
            "      --group FILES       one result made of several runs of one setting (comma-\n"
            "                          separated, at most %d; given once per result instead\n"
            "                          of RESULT.json): their histograms added, percentiles\n"
            "                          of the sum (as compare pools them), each run's p99 as\n"
            "                          a spread; the series over time are the first run's\n"
            "      --c2c FILE          draw a jitterlab c2c --json matrix as a heat map, with\n"
            "                          its groups and topology (up to %d; then run results\n"
            "                          are optional)\n"
            "      --svg DIR           also write each plot as DIR/cpuN-NAME.svg (DIR is\n"
            "                          created if missing)\n"
            "      --title TEXT        the page's title (default \"jitterlab report\")\n"
            "  -a, --cpus LIST         sections only for these CPUs (default: every CPU)\n"
            "  -q, --quiet             print nothing but errors\n"
            "  -h, --help              this text\n"
            "\n"
            "At most %d results, each document at most %u MiB and all of them together\n"
            "at most %u MiB. Exit status 2 when an option or a document is wrong\n"
            "(nothing is written then).\n",
            REPORT_DEFAULT_OUTPUT, REPORT_GROUP_MAX, REPORT_MAX_C2C, REPORT_MAX_RESULTS,
            RESULT_READ_MAX_BYTES >> 20, RESULT_READ_TOTAL_MAX_BYTES >> 20);
}

enum { OPT_LABEL = 256, OPT_COMPARE, OPT_INSPECT, OPT_SVG, OPT_TITLE, OPT_C2C, OPT_GROUP };

static const struct option report_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"label", required_argument, NULL, OPT_LABEL},
    {"compare", required_argument, NULL, OPT_COMPARE},
    {"inspect", required_argument, NULL, OPT_INSPECT},
    {"c2c", required_argument, NULL, OPT_C2C},
    {"group", required_argument, NULL, OPT_GROUP},
    {"svg", required_argument, NULL, OPT_SVG},
    {"title", required_argument, NULL, OPT_TITLE},
    CLI_OPTION_CPUS,
    CLI_OPTION_QUIET,
    CLI_OPTION_HELP,
    CLI_OPTION_END,
};

/* --group A.json,B.json,...: one result made of these runs. */
static int add_group(struct report_params *p, const char *arg)
{
    char why[96];
    if (p->nfiles == REPORT_MAX_RESULTS) {
        snprintf(why, sizeof why, "more than the %d results a report holds", REPORT_MAX_RESULTS);
        return usage_error("--group", arg, why);
    }
    char *text = p->group_text[p->nfiles];
    if (strlen(arg) >= REPORT_GROUP_TEXT)
        return usage_error("--group", NULL, "longer than 8191 bytes");
    snprintf(text, REPORT_GROUP_TEXT, "%s", arg);
    int n = 0;
    for (char *save = NULL, *f = strtok_r(text, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        if (n == REPORT_GROUP_MAX) {
            snprintf(why, sizeof why, "more than %d runs", REPORT_GROUP_MAX);
            return usage_error("--group", arg, why);
        }
        p->group_file[p->nfiles][n++] = f;
    }
    if (n == 0)
        return usage_error("--group", arg, "names no file");
    p->group_n[p->nfiles] = n;
    p->files[p->nfiles] = p->group_file[p->nfiles][0];
    p->nfiles++;
    p->grouped = true;
    return 0;
}

static int report_option(void *params, int c, const char *arg)
{
    struct report_params *p = params;
    switch (c) {
    case 'o':
        p->output = arg;
        return 0;
    case OPT_LABEL:
        if (!arg[0])
            return usage_error("--label", NULL, "must not be empty");
        if (p->nlabels == REPORT_MAX_RESULTS) {
            char why[80];
            snprintf(why, sizeof why, "more labels than the %d results a report holds",
                     REPORT_MAX_RESULTS);
            return usage_error("--label", arg, why);
        }
        p->labels[p->nlabels++] = arg;
        return 0;
    case OPT_COMPARE:
        p->compare_path = arg;
        return 0;
    case OPT_INSPECT:
        p->inspect_path = arg;
        return 0;
    case OPT_C2C:
        if (p->nc2c == REPORT_MAX_C2C) {
            char why[80];
            snprintf(why, sizeof why, "more than the %d matrices a report holds", REPORT_MAX_C2C);
            return usage_error("--c2c", arg, why);
        }
        p->c2c_paths[p->nc2c++] = arg;
        return 0;
    case OPT_GROUP:
        return add_group(p, arg);
    case OPT_SVG:
        if (!arg[0])
            return usage_error("--svg", NULL, "needs a directory");
        p->svg_dir = arg;
        return 0;
    default: /* OPT_TITLE */
        p->title = arg;
        return 0;
    }
}

static const struct cli_command report_cli = {
    "report", report_usage, "o:a:qh", report_options, report_option, NULL,
};

int report_parse_args(int argc, char **argv, struct report_params *p)
{
    memset(p, 0, sizeof(*p));
    p->output = REPORT_DEFAULT_OUTPUT;
    int first;
    int rc = cli_parse(&report_cli, &p->common, p, argc, argv, 1, &first);
    if (rc >= 0)
        return rc;
    int n = argc - first;
    if (p->grouped && n > 0)
        return usage_error("--group", NULL, "results come either as --group or as files, not both");
    if (p->grouped)
        return p->nlabels > 0 && p->nlabels != p->nfiles
                   ? usage_error("--label", NULL, "one label per --group, in order")
                   : -1;
    if (n <= 0 && p->nc2c == 0) {
        fprintf(stderr, "jitterlab: report: which results? (e.g. jitterlab report a.json "
                        "b.json -o report.html; see jitterlab help report)\n");
        return EXIT_USAGE;
    }
    if (n > REPORT_MAX_RESULTS) {
        fprintf(stderr, "jitterlab: report: %d results, at most %d fit in one report\n", n,
                REPORT_MAX_RESULTS);
        return EXIT_USAGE;
    }
    if (p->nlabels > 0 && p->nlabels != n) {
        char why[96];
        snprintf(why, sizeof why, "%d label%s for %d result%s (one per result, in order)",
                 p->nlabels, p->nlabels == 1 ? "" : "s", n, n == 1 ? "" : "s");
        return usage_error("--label", NULL, why);
    }
    for (int i = 0; i < n; i++)
        p->files[i] = argv[first + i];
    p->nfiles = n;
    return -1;
}

/* The default label: the file name without its directory and ".json";
 * a label taken already gets " (2)", " (3)", ... */
static void set_label(struct report_run *runs, int i, const char *given)
{
    char *label = runs[i].label;
    size_t size = sizeof runs[i].label;
    if (given) {
        snprintf(label, size, "%s", given);
    } else {
        const char *base = strrchr(runs[i].path, '/');
        base = base && base[1] ? base + 1 : runs[i].path;
        size_t len = strlen(base);
        if (len > 5 && strcmp(base + len - 5, ".json") == 0)
            len -= 5;
        snprintf(label, size, "%.*s", (int)(len < size ? len : size - 1), base);
    }
    char first[sizeof runs[i].label];
    snprintf(first, sizeof first, "%s", label);
    for (int k = 2, clash = 1; clash; k++) {
        clash = 0;
        for (int j = 0; j < i; j++)
            clash = clash || strcmp(runs[j].label, label) == 0;
        if (clash)
            snprintf(label, size, "%.100s (%d)", first, k);
    }
}

/* --svg DIR: an existing directory we may write into, or a path whose
 * nearest existing parent is one (DIR is created after the page). */
static int check_svg_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return usage_error("--svg", dir, "not a directory");
        if (access(dir, W_OK | X_OK) != 0)
            return usage_error("--svg", dir, strerror(errno));
        return 0;
    }
    if (errno != ENOENT)
        return usage_error("--svg", dir, strerror(errno));
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    while (slash && slash > parent && slash[1] == '\0') { /* "dir/" */
        *slash = '\0';
        slash = strrchr(parent, '/');
    }
    if (!slash)
        snprintf(parent, sizeof parent, ".");
    else if (slash == parent)
        parent[1] = '\0';
    else
        *slash = '\0';
    return check_svg_dir(parent);
}

static int mkdir_parents(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", dir);
    for (char *s = path + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        *s = '/';
    }
    return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static int write_svgs(const char *dir, const struct report_svgs *svgs)
{
    if (mkdir_parents(dir) != 0) {
        fprintf(stderr, "jitterlab: --svg %s: %s\n", dir, strerror(errno));
        return EXIT_RUNTIME;
    }
    for (size_t i = 0; i < svgs->n; i++) {
        char path[PATH_MAX];
        struct atomic_file af;
        snprintf(path, sizeof path, "%s/%s", dir, svgs->svg[i].name);
        if (atomic_file_open(&af, path) != 0) {
            fprintf(stderr, "jitterlab: --svg %s: %s\n", path, strerror(errno));
            return EXIT_RUNTIME;
        }
        fwrite(svgs->svg[i].text, 1, svgs->svg[i].len, af.fp);
        if (atomic_file_commit(&af) != 0) {
            fprintf(stderr, "jitterlab: --svg %s: %s\n", path, strerror(errno));
            return EXIT_RUNTIME;
        }
    }
    return EXIT_OK;
}

/* The other runs of group i, added into first (its first run, read). */
static int read_group(const struct report_params *p, int i, struct report_run *first)
{
    char err[512];
    int nmore = p->group_n[i] - 1;
    if (first->noise) {
        fprintf(stderr, "jitterlab: --group %s: a noise result; groups are of run results\n",
                p->files[i]);
        return EXIT_USAGE;
    }
    struct report_run *more = calloc((size_t)(nmore ? nmore : 1), sizeof *more);
    if (!more) {
        fprintf(stderr, "jitterlab: --group: out of memory\n");
        return EXIT_RUNTIME;
    }
    int rc = EXIT_OK;
    int k = 0;
    for (; k < nmore; k++)
        if (report_run_read(p->group_file[i][k + 1], &more[k], err, sizeof err) != 0) {
            fprintf(stderr, "jitterlab: --group %s: %s\n", p->group_file[i][k + 1], err);
            rc = EXIT_USAGE;
            break;
        }
    if (rc == EXIT_OK && report_run_merge(first, more, nmore, err, sizeof err) != 0) {
        fprintf(stderr, "jitterlab: --group %s: %s\n", p->files[i], err);
        rc = EXIT_USAGE;
    }
    for (int j = 0; j < k; j++)
        report_run_free(&more[j]);
    free(more);
    return rc;
}

static int read_inputs(const struct report_params *p, struct report_run *runs,
                       struct report_compare *cmp, struct report_inspect *ins,
                       struct report_c2c *c2c)
{
    char err[512];
    /* every document the page shows, with the option that names it */
    const char *paths[REPORT_MAX_RESULTS * REPORT_GROUP_MAX + 2 + REPORT_MAX_C2C],
        *opts[sizeof paths / sizeof *paths];
    int n = 0;
    for (int i = 0; i < p->nfiles; i++)
        for (int k = 0; k < (p->grouped ? p->group_n[i] : 1); k++, n++)
            paths[n] = p->grouped ? p->group_file[i][k] : p->files[i], opts[n] = NULL;
    if (p->compare_path)
        paths[n] = p->compare_path, opts[n++] = "--compare";
    if (p->inspect_path)
        paths[n] = p->inspect_path, opts[n++] = "--inspect";
    for (int i = 0; i < p->nc2c; i++, n++)
        paths[n] = p->c2c_paths[i], opts[n] = "--c2c";
    if (check_inputs_total("report", opts, paths, n) != 0)
        return EXIT_USAGE;
    for (int i = 0; i < p->nfiles; i++) {
        if (report_run_read(p->files[i], &runs[i], err, sizeof err) != 0) {
            fprintf(stderr, "jitterlab: report %s: %s\n", p->files[i], err);
            return EXIT_USAGE;
        }
        if (p->grouped && read_group(p, i, &runs[i]) != EXIT_OK)
            return EXIT_USAGE;
        set_label(runs, i, p->nlabels ? p->labels[i] : NULL);
        if (runs[i].noise != runs[0].noise) {
            fprintf(stderr,
                    "jitterlab: report %s: a %s result, and %s is a %s result: give run and "
                    "noise results to separate reports\n",
                    p->files[i], runs[i].core.kind, p->files[0], runs[0].core.kind);
            return EXIT_USAGE;
        }
    }
    if (p->compare_path && report_compare_read(p->compare_path, cmp, err, sizeof err) != 0) {
        fprintf(stderr, "jitterlab: --compare %s: %s\n", p->compare_path, err);
        return EXIT_USAGE;
    }
    if (p->inspect_path && report_inspect_read(p->inspect_path, ins, err, sizeof err) != 0) {
        fprintf(stderr, "jitterlab: --inspect %s: %s\n", p->inspect_path, err);
        return EXIT_USAGE;
    }
    for (int i = 0; i < p->nc2c; i++)
        if (report_c2c_read(p->c2c_paths[i], &c2c[i], err, sizeof err) != 0) {
            fprintf(stderr, "jitterlab: --c2c %s: %s\n", p->c2c_paths[i], err);
            return EXIT_USAGE;
        }
    return EXIT_OK;
}

/* A tail document among the results (jitterlab tail --json) gets a
 * section of its own; it leaves the results, with its label if one was
 * given. At most REPORT_MAX_TAILS. */
static int take_tail(struct report_params *p, int i, struct report_tail_doc *tails, int *ntail)
{
    char err[300];
    const char *path = p->files[i];
    if (*ntail == REPORT_MAX_TAILS) {
        char why[64];
        snprintf(why, sizeof why, "more than %d tail documents", REPORT_MAX_TAILS);
        return usage_error(path, NULL, why);
    }
    if (report_tail_doc_read(path, &tails[*ntail], err, sizeof err) != 0) {
        fprintf(stderr, "jitterlab: report %s: %s\n", path, err);
        return EXIT_USAGE;
    }
    (*ntail)++;
    memmove(&p->files[i], &p->files[i + 1], (size_t)(p->nfiles - i - 1) * sizeof *p->files);
    if (i < p->nlabels) {
        memmove(&p->labels[i], &p->labels[i + 1], (size_t)(p->nlabels - i - 1) * sizeof *p->labels);
        p->nlabels--;
    }
    p->nfiles--;
    return EXIT_OK;
}

/* The tail document's one input, when it is among the results: its
 * histograms are drawn with the fit. */
static void match_tail_inputs(const struct report_params *p, struct report_tail_doc *tails,
                              int ntail)
{
    for (int t = 0; t < ntail; t++) {
        const json_t *in = tails[t].inputs;
        const char *one =
            json_array_size(in) == 1 ? json_string_value(json_array_get(in, 0)) : NULL;
        for (int i = 0; one && !p->grouped && i < p->nfiles; i++)
            if (strcmp(p->files[i], one) == 0)
                tails[t].run = i;
    }
}

/* A doctor document among the results stands for the runs it names; it is
 * kept in d for its section. At most one. Tail documents go to tails. */
static int take_doctor(struct report_params *p, struct report_doctor *d, bool *have,
                       struct report_tail_doc *tails, int *ntail)
{
    for (int i = 0; i < p->nfiles; i++) {
        char err[300];
        json_t *doc = result_load_file(p->files[i], err, sizeof err);
        const char *kind = json_string_value(json_object_get(doc, "kind"));
        bool doctor = kind && strcmp(kind, "doctor") == 0;
        bool tail = kind && strcmp(kind, "tail") == 0 && !p->grouped;
        json_decref(doc);
        if (tail) {
            int rc = take_tail(p, i, tails, ntail);
            if (rc != EXIT_OK)
                return rc;
            i--;
            continue;
        }
        if (!doctor)
            continue;
        const char *path = p->files[i];
        if (*have)
            return usage_error(path, NULL, "a second doctor document: give one per report");
        if (report_doctor_read(path, d, err, sizeof err) != 0) {
            fprintf(stderr, "jitterlab: report %s: %s\n", path, err);
            return EXIT_USAGE;
        }
        *have = true;
        if (p->nlabels)
            return usage_error("--label", NULL, "a doctor document names its runs itself");
        if (!d->nrun)
            return usage_error(path, NULL,
                               "names no run that was kept (doctor made without -o DIR)");
        if (p->nfiles - 1 + d->nrun > REPORT_MAX_RESULTS)
            return usage_error(path, NULL, "its runs and the other results are more than 10");
        memmove(&p->files[i], &p->files[i + 1], (size_t)(p->nfiles - i - 1) * sizeof *p->files);
        p->nfiles--;
        for (int k = 0; k < d->nrun; k++)
            p->files[p->nfiles++] = d->run[k];
        i--;
    }
    return EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
    static struct report_params p;
    int rc = report_parse_args(argc, argv, &p);
    if (rc >= 0)
        return rc;
    if ((rc = check_output_path("--output", p.output)) != 0 ||
        (p.svg_dir && (rc = check_svg_dir(p.svg_dir)) != 0))
        return rc;
    static struct report_run runs[REPORT_MAX_RESULTS];
    static struct report_compare cmp;
    static struct report_inspect ins;
    static struct report_c2c c2c[REPORT_MAX_C2C];
    static struct report_doctor doctor;
    static struct report_tail_doc tails[REPORT_MAX_TAILS];
    int ntail = 0;
    bool have_doctor = false;
    struct report_svgs svgs = {0};
    rc = take_doctor(&p, &doctor, &have_doctor, tails, &ntail);
    if (rc == EXIT_OK)
        rc = read_inputs(&p, runs, &cmp, &ins, c2c);
    if (rc != EXIT_OK)
        goto done;
    match_tail_inputs(&p, tails, ntail);
    struct report_input in = {.run = runs,
                              .nrun = p.nfiles,
                              .compare = p.compare_path ? &cmp : NULL,
                              .inspect = p.inspect_path ? &ins : NULL,
                              .doctor = have_doctor ? &doctor : NULL,
                              .cpus = &p.common.cpus,
                              .title = p.title,
                              .version = JITTERLAB_VERSION,
                              .c2c = c2c,
                              .nc2c = p.nc2c,
                              .tail = tails,
                              .ntail = ntail};
    struct atomic_file af;
    if (atomic_file_open(&af, p.output) != 0) {
        fprintf(stderr, "jitterlab: --output %s: %s\n", p.output, strerror(errno));
        rc = EXIT_RUNTIME;
        goto done;
    }
    if (report_html_write(af.fp, &in, p.svg_dir ? &svgs : NULL) != 0) {
        atomic_file_abort(&af);
        fprintf(stderr, "jitterlab: --output %s: cannot write the report (%s)\n", p.output,
                errno ? strerror(errno) : "out of memory");
        rc = EXIT_RUNTIME;
        goto done;
    }
    long size = ftell(af.fp);
    if (atomic_file_commit(&af) != 0) {
        fprintf(stderr, "jitterlab: --output %s: %s\n", p.output, strerror(errno));
        rc = EXIT_RUNTIME;
        goto done;
    }
    if (p.svg_dir && (rc = write_svgs(p.svg_dir, &svgs)) != EXIT_OK)
        goto done;
    if (!p.common.quiet) {
        printf("jitterlab: report: wrote %s (%ld kB, %d result%s", p.output,
               size > 0 ? (size + 1023) / 1024 : 0, p.nfiles, p.nfiles == 1 ? "" : "s");
        if (p.nc2c)
            printf(", %d c2c matri%s", p.nc2c, p.nc2c == 1 ? "x" : "ces");
        printf(")");
        if (p.svg_dir)
            printf(" and %zu plots in %s", svgs.n, p.svg_dir);
        printf("\n");
    }
done:
    report_svgs_free(&svgs);
    for (int i = 0; i < p.nfiles; i++)
        report_run_free(&runs[i]);
    report_compare_free(&cmp);
    report_inspect_free(&ins);
    report_doctor_free(&doctor);
    for (int i = 0; i < p.nc2c; i++)
        report_c2c_free(&c2c[i]);
    for (int i = 0; i < ntail; i++)
        report_tail_doc_free(&tails[i]);
    return rc;
}
