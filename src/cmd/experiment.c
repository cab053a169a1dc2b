/*
 * `jitterlab experiment FILE`: an A/B experiment run fairly. Reads and
 * checks the whole file (experiment/plan.c) and every step's `jitterlab run`
 * options (run_parse_args, run_validate) before anything runs or any
 * directory exists; then creates the results directory, runs the plan
 * (experiment/runner.c) and keeps experiment.json up to date after each
 * run, then has compare and report write compare.json and report.html.
 * --resume DIR runs what is missing; --dry-run prints the plan.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/experiment_cli.h"
#include "cmd/options.h"
#include "cmd/run_cli.h"
#include "common/atomic_file.h"
#include "common/clock.h"
#include "common/json_text.h"
#include "common/redact.h"
#include "common/stop.h"
#include "common/units.h"
#include "experiment/plan.h"
#include "experiment/record.h"
#include "experiment/runner.h"
#include "out/json_result.h"
#include "out/result_read.h"
#include "sys/system_info.h"

/* What a session works with; the runner's callbacks get it. */
struct session {
    const struct experiment_params *p;
    struct experiment_plan plan;
    struct experiment_record rec;
    struct system_info *si;
    const char *dir;
    char json_path[4200];
    int argc;
    char **argv;
    char started_at[40];
    char exe[PATH_MAX]; /* this program, as the command lines show it */
    bool interrupted;
    int runs_made;
    char note[200]; /* the judged result's latencies, for the line that ends the run */
};

static void save(struct session *ss)
{
    json_t *doc =
        json_document_new("experiment", JITTERLAB_VERSION, ss->argc, ss->argv, ss->started_at);
    json_object_set_new(doc, "interrupted", json_boolean(ss->interrupted));
    json_object_set_new(doc, "directory", json_text_new(ss->dir));
    json_object_set_new(doc, "system", json_system_info(ss->si));
    record_fill(&ss->rec, doc);
    if (json_write_file(doc, ss->json_path) != 0)
        fprintf(stderr, "jitterlab: experiment: cannot write %s: %s\n", ss->json_path,
                strerror(errno));
    json_decref(doc);
}

/* "p50 ... us, p99 ... us, max ... us" of a result's latencies, else "". */
static void latency_note(const struct result_doc *doc, char *buf, size_t len)
{
    buf[0] = '\0';
    if (doc->all.latency.known)
        snprintf(buf, len, "p50 %.1f us, p99 %.1f us, max %.1f us",
                 (double)doc->all.latency.p50 / 1e3, (double)doc->all.latency.p99 / 1e3,
                 (double)doc->all.latency.max / 1e3);
}

/* Whether a run's result will do; its latencies are noted from the same
 * reading, so that each document is read once. */
static int judge(void *ctx, const char *path, char *why, size_t whylen)
{
    struct session *ss = ctx; /* NULL: judged without a note (resume) */
    struct result_doc doc;
    if (ss)
        ss->note[0] = '\0';
    if (result_read_file(path, &doc, why, whylen) != 0)
        return -1;
    int rc = strcmp(doc.kind, "run") != 0 ? -1 : doc.interrupted ? 1 : 0;
    if (rc < 0)
        snprintf(why, whylen, "a document of kind \"%s\", not \"run\"", doc.kind);
    else if (ss)
        latency_note(&doc, ss->note, sizeof ss->note);
    result_doc_free(&doc);
    return rc;
}

/* The command line as a shell would take it, exe in place of argv[0]. */
static void format_command(const char *exe, char *const *argv, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; argv[i]; i++) {
        if (i)
            strncat(buf, " ", len - strlen(buf) - 1);
        words_quote(i == 0 && exe ? exe : argv[i], buf, len);
    }
    redact_in_place(buf, len);
}

static void run_started(void *ctx, const struct run_record *r, char *const *argv)
{
    struct session *ss = ctx;
    ss->note[0] = '\0';
    if (ss->p->common.quiet)
        return;
    char name[PLAN_NAME_MAX + 32], cmd[8192];
    runner_file_name(&ss->plan, r->index, name, sizeof(name));
    format_command(ss->exe, argv, cmd, sizeof(cmd));
    printf("[%d/%d] %.*s: %s\n", ss->plan.run[r->index].order, ss->plan.nruns,
           (int)(strlen(name) - 5), name, cmd);
    fflush(stdout);
}

static void last_line(const char *tail, char *buf, size_t len)
{
    size_t n = strlen(tail);
    while (n && tail[n - 1] == '\n')
        n--;
    size_t start = n;
    while (start && tail[start - 1] != '\n')
        start--;
    snprintf(buf, len, "%.*s", (int)(n - start), tail + start);
}

static void run_ended(void *ctx, const struct run_record *r)
{
    struct session *ss = ctx;
    record_run(&ss->rec, r);
    ss->runs_made++;
    save(ss);
    char name[PLAN_NAME_MAX + 32], line[300], how[300];
    runner_file_name(&ss->plan, r->index, name, sizeof(name));
    name[strlen(name) - 5] = '\0';
    if (r->status == RUN_DONE) {
        const char *note = ss->note;
        if (!ss->p->common.quiet)
            printf("  %s: done in %.1f s%s%s%s\n", name, r->run.duration_s, note[0] ? " (" : "",
                   note, note[0] ? ")" : "");
    } else if (r->status == RUN_INTERRUPTED) {
        fprintf(stderr, "jitterlab: experiment: %s: %s\n", name, r->why);
    } else {
        last_line(r->before.tail[0] ? r->before.tail : r->run.tail, line, sizeof(line));
        fprintf(stderr, "jitterlab: experiment: %s: %s%s%s\n", name, r->why, line[0] ? ": " : "",
                line);
    }
    if (r->after.started && (r->after.exit_status != 0 || r->after.signal)) {
        child_describe(&r->after, how, sizeof(how));
        last_line(r->after.tail, line, sizeof(line));
        fprintf(stderr, "jitterlab: experiment: %s: after: %s%s%s\n", name, how,
                line[0] ? ": " : "", line);
    } else if (!r->after.started && r->after.spawn_errno) {
        fprintf(stderr, "jitterlab: experiment: %s: after could not start: %s\n", name,
                strerror(r->after.spawn_errno));
    }
    fflush(stdout);
}

/* have[i]: run i's STEP-REPEAT.json is a finished run's result, read as
 * compare will read it; a file that is not (empty, cut short, edited) is
 * made again, and with tell the experiment says so. */
static void have_files(const struct session *ss, bool *have, bool tell)
{
    for (int i = 0; i < ss->plan.nruns; i++) {
        char name[PLAN_NAME_MAX + 32], path[4400], why[400] = "";
        struct stat sb;
        runner_file_name(&ss->plan, i, name, sizeof(name));
        snprintf(path, sizeof(path), "%s/%s", ss->dir, name);
        have[i] = stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
        if (have[i] && judge(NULL, path, why, sizeof(why)) != 0) {
            have[i] = false;
            if (tell)
                fprintf(stderr,
                        "jitterlab: experiment: %s: not a finished run's result (%s); the run "
                        "is made again\n",
                        path, why[0] ? why : "it says it was interrupted");
        }
    }
}

static void print_plan(struct session *ss, const struct runner_config *cfg, const bool *have)
{
    const struct experiment_plan *p = &ss->plan;
    char settle[32], cmd[8192], hook[4096];
    format_duration(p->settle_ns, settle, sizeof(settle));
    printf("experiment %s: %d steps x %d repeats = %d runs, %s, settle %s, results in %s\n",
           p->name, p->nsteps, p->repeat, p->nruns, p->blocked ? "blocked" : "interleaved",
           p->settle_ns ? settle : "0", ss->dir);
    int todo = 0;
    for (int i = 0; i < p->nruns; i++) {
        char name[PLAN_NAME_MAX + 32];
        runner_file_name(p, i, name, sizeof(name));
        if (have[i]) {
            printf("%4d  %-20.*s done (%s)\n", p->run[i].order, (int)(strlen(name) - 5), name,
                   name);
            continue;
        }
        todo++;
        struct words argv = {0};
        if (runner_run_argv(cfg, i, &argv) != 0)
            continue;
        format_command(ss->exe, argv.word, cmd, sizeof(cmd));
        words_free(&argv);
        const struct plan_step *s = &p->step[p->run[i].step];
        printf("%4d  %-20.*s %s\n", p->run[i].order, (int)(strlen(name) - 5), name, cmd);
        for (int k = STEP_BEFORE; k <= STEP_AFTER; k++) {
            if (!s->key[k].text)
                continue;
            hook[0] = '\0';
            words_quote(s->key[k].text, hook, sizeof(hook));
            redact_in_place(hook, sizeof(hook));
            printf("%27s%-7s sh -c %s\n", "", k == STEP_BEFORE ? "before:" : "after:", hook);
        }
    }
    bool *all = calloc(PLAN_MAX_STEPS * PLAN_MAX_REPEAT, sizeof(*all));
    for (int i = 0; all && i < p->nruns; i++)
        all[i] = true;
    struct output_record out = {0};
    for (int w = OUTPUT_COMPARE; all && w <= OUTPUT_REPORT; w++) {
        if (runner_output_plan(cfg, (enum runner_output)w, all, true, &out)) {
            format_command(ss->exe, out.argv.word, cmd, sizeof(cmd));
            printf("then, in %s: %s\n", ss->dir, cmd);
        }
        words_free(&out.argv);
    }
    free(all);
    printf("%d of %d runs to make\n", todo, p->nruns);
}

/* "jitterlab: --output DIR: why" (or "experiment: DIR" for the default). */
static int dir_error(const struct experiment_params *p, const char *dir, const char *why)
{
    if (p->output_dir)
        return usage_error("--output", dir, why);
    fprintf(stderr, "jitterlab: experiment: %s: %s\n", dir, why);
    return EXIT_USAGE;
}

#define DIR_EXISTS                                                                                 \
    "exists; an experiment never writes into an existing directory (--resume DIR continues one)"

/* Creates DIR with experiment.ini, the file as it was read. */
static int create_dir(const struct experiment_params *p, const char *dir, const char *text,
                      size_t len)
{
    if (mkdir(dir, 0777) != 0) {
        char why[300];
        snprintf(why, sizeof(why), "cannot create: %s", strerror(errno));
        return dir_error(p, dir, errno == EEXIST ? DIR_EXISTS : why);
    }
    char path[4200];
    snprintf(path, sizeof(path), "%s/experiment.ini", dir);
    struct atomic_file f;
    /* a copy holding a URL's credentials is for the owner's eyes only */
    if (atomic_file_open(&f, path) != 0 ||
        (redact_needed(text) && fchmod(fileno(f.fp), 0600) != 0) ||
        fwrite(text, 1, len, f.fp) != len || atomic_file_commit(&f) != 0) {
        fprintf(stderr, "jitterlab: experiment: cannot write %s: %s\n", path, strerror(errno));
        return EXIT_RUNTIME;
    }
    return 0;
}

/* --resume DIR: the record of the earlier sessions. */
static int load_record(struct session *ss, const bool *have)
{
    json_error_t jerr;
    char why[300];
    json_t *doc = json_load_file(ss->json_path, 0, &jerr);
    if (!doc) {
        fprintf(stderr, "jitterlab: --resume %s: %s: %s\n", ss->dir, ss->json_path, jerr.text);
        return EXIT_USAGE;
    }
    int rc = record_load(&ss->rec, &ss->plan, doc, have, why, sizeof(why));
    json_decref(doc);
    if (rc != 0) {
        fprintf(stderr, "jitterlab: --resume %s: %s: %s\n", ss->dir, ss->json_path, why);
        return EXIT_USAGE;
    }
    return 0;
}

/* compare.json and report.html, or why not. */
static bool write_outputs(struct session *ss, const struct runner_config *cfg, bool *have)
{
    struct output_record out = {0};
    bool ok = true;
    have_files(ss, have, false);
    bool compared = false;
    for (int w = OUTPUT_COMPARE; w <= OUTPUT_REPORT; w++) {
        enum runner_output which = (enum runner_output)w;
        const char *key = which == OUTPUT_COMPARE ? "compare" : "report";
        ss->interrupted = ss->interrupted || stop_requested();
        if (ss->interrupted) {
            out.status = OUTPUT_NOT_RUN;
            snprintf(out.why, sizeof(out.why),
                     "interrupted; jitterlab experiment --resume %s writes it", ss->dir);
        } else if (runner_output_plan(cfg, which, have, compared, &out)) {
            runner_output_run(cfg, which, &out);
        }
        if (out.status == OUTPUT_DONE)
            compared = compared || which == OUTPUT_COMPARE;
        else if (out.status == OUTPUT_FAILED)
            ok = false;
        ss->interrupted = ss->interrupted || stop_requested();
        if (out.status != OUTPUT_DONE && !ss->interrupted)
            fprintf(stderr, "jitterlab: experiment: %s not written: %s\n",
                    which == OUTPUT_COMPARE ? "compare.json" : "report.html", out.why);
        record_output(&ss->rec, key, which == OUTPUT_COMPARE ? "compare.json" : "report.html",
                      ss->dir, &out);
        words_free(&out.argv);
    }
    return ok;
}

static int finish(struct session *ss, bool outputs_ok)
{
    int counts[5] = {0}, budget = 0;
    for (int i = 0; i < ss->plan.nruns; i++) {
        const char *st = record_run_status(&ss->rec, i);
        for (int s = RUN_NOT_RUN; s <= RUN_SKIPPED; s++)
            counts[s] += strcmp(st, run_status_name((enum run_status)s)) == 0;
        json_t *b = json_object_get(ss->rec.runs[i], "budget_exceeded");
        budget += json_is_true(b);
    }
    if (!ss->p->common.quiet) {
        printf("experiment %s: %d of %d runs finished", ss->plan.name, counts[RUN_DONE],
               ss->plan.nruns);
        if (counts[RUN_FAILED] || counts[RUN_SKIPPED])
            printf(", %d failed, %d skipped", counts[RUN_FAILED], counts[RUN_SKIPPED]);
        if (budget)
            printf(", %d over budget", budget);
        printf("; results in %s\n", ss->dir);
        if (ss->interrupted)
            printf("interrupted: jitterlab experiment --resume %s makes the %d missing\n", ss->dir,
                   ss->plan.nruns - counts[RUN_DONE]);
    }
    if (counts[RUN_FAILED] || counts[RUN_SKIPPED] || !outputs_ok)
        return EXIT_RUNTIME;
    return budget && counts[RUN_DONE] == ss->plan.nruns ? EXIT_BUDGET : EXIT_OK;
}

/* One session at a time works in DIR: a lock on the directory itself
 * (close-on-exec, so that no child keeps it). fd, or -1 after the message. */
static int lock_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "jitterlab: experiment: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        fprintf(stderr, "jitterlab: experiment: %s: %s\n", dir,
                errno == EWOULDBLOCK ? "another jitterlab experiment is working in it"
                                     : strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

static int run_session(struct session *ss, const char *text, size_t len, const int64_t *limit_ns)
{
    const struct experiment_params *p = ss->p;
    bool *have = calloc((size_t)ss->plan.nruns, sizeof(*have));
    bool *todo = calloc((size_t)ss->plan.nruns, sizeof(*todo));
    struct run_record *records = calloc((size_t)ss->plan.nruns, sizeof(*records));
    int rc = have && todo && records ? 0 : EXIT_RUNTIME;
    struct runner_config cfg = {&ss->plan, ss->dir,         "/proc/self/exe",
                                ss->exe,   p->common.quiet, limit_ns};
    struct runner_ops ops = {ss, judge, run_started, run_ended};
    int lock = -1;
    if (rc == 0 && p->resume_dir) {
        if (!p->dry_run && (lock = lock_dir(ss->dir)) < 0)
            rc = EXIT_USAGE;
        have_files(ss, have, true);
        if (rc == 0)
            rc = load_record(ss, have);
    } else if (rc == 0 && !p->dry_run && (rc = create_dir(p, ss->dir, text, len)) == 0) {
        if ((lock = lock_dir(ss->dir)) < 0)
            rc = EXIT_RUNTIME;
        else if (record_init(&ss->rec, &ss->plan) != 0)
            rc = EXIT_RUNTIME;
    }
    if (rc == 0 && p->dry_run) {
        print_plan(ss, &cfg, have);
    } else if (rc == 0) {
        stop_handlers_install();
        record_session_begin(&ss->rec, ss->argc, ss->argv, ss->started_at, p->resume_dir != NULL);
        save(ss);
        for (int i = 0; i < ss->plan.nruns; i++)
            todo[i] = !have[i];
        ss->interrupted = runner_run(&cfg, todo, records, &ops);
        bool outputs_ok = write_outputs(ss, &cfg, have);
        char ended_at[40];
        rfc3339_now(ended_at, sizeof(ended_at));
        record_session_end(&ss->rec, ended_at, ss->interrupted, ss->runs_made);
        save(ss);
        rc = finish(ss, outputs_ok);
    }
    if (lock >= 0)
        close(lock);
    free(have);
    free(todo);
    free(records);
    return rc;
}

int cmd_experiment(int argc, char **argv)
{
    static struct experiment_params p;
    static struct session ss;
    memset(&ss, 0, sizeof(ss));
    /* As typed, for experiment.json: getopt reorders argv. */
    char **typed = cli_argv_copy(argc, argv);
    if (!typed)
        return EXIT_RUNTIME;
    int rc = experiment_parse_args(argc, argv, &p);
    if (rc >= 0) {
        free(typed);
        return rc;
    }
    ss.p = &p;
    ss.argc = argc;
    ss.argv = typed;
    ssize_t n = readlink("/proc/self/exe", ss.exe, sizeof(ss.exe) - 1);
    snprintf(ss.exe + (n > 0 ? n : 0), sizeof(ss.exe) - (size_t)(n > 0 ? n : 0), "%s",
             n > 0 ? "" : "jitterlab");
    rfc3339_now(ss.started_at, sizeof(ss.started_at));
    char src[4200], dir[4096];
    if (p.resume_dir)
        snprintf(src, sizeof(src), "%s/experiment.ini", p.resume_dir);
    else
        snprintf(src, sizeof(src), "%s", p.file);
    size_t len = 0;
    char *text = experiment_read_file(src, &len);
    if (!text)
        return EXIT_USAGE;
    char err[1024];
    int64_t limit_ns[PLAN_MAX_STEPS] = {0};
    if (plan_parse(text, len, src, &ss.plan, err, sizeof(err)) != 0) {
        fprintf(stderr, "jitterlab: %s\n", err);
        rc = EXIT_USAGE;
    } else {
        rc = experiment_check_steps(&ss.plan, src, limit_ns);
    }
    if (rc == 0) {
        if (p.resume_dir) {
            snprintf(dir, sizeof(dir), "%s", p.resume_dir);
        } else if (p.output_dir) {
            snprintf(dir, sizeof(dir), "%s", p.output_dir);
        } else {
            time_t now = time(NULL);
            struct tm tm;
            char stamp[32];
            localtime_r(&now, &tm);
            strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
            snprintf(dir, sizeof(dir), "./%s-%s", ss.plan.name, stamp);
        }
        ss.dir = dir;
        snprintf(ss.json_path, sizeof(ss.json_path), "%s/experiment.json", dir);
        struct stat sb;
        if (!p.resume_dir && lstat(dir, &sb) == 0)
            rc = dir_error(&p, dir, DIR_EXISTS);
    }
    if (rc == 0) {
        ss.si = calloc(1, sizeof(*ss.si));
        if (ss.si) {
            struct sysroot sr;
            sysroot_init(&sr, p.common.sysroot_dir);
            system_info_read(&sr, ss.si);
            rc = run_session(&ss, text, len, limit_ns);
        } else {
            rc = EXIT_RUNTIME;
        }
    }
    if (ss.rec.runs)
        record_free(&ss.rec);
    plan_free(&ss.plan);
    free(ss.si);
    free(text);
    free(typed);
    return rc;
}
