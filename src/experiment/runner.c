/*
 * Running the plan (runner.h). A run's life: settle (not before the first
 * of a session), before, the run, after; the after runs whenever its before
 * was started, also when a stop request arrived, and is never interrupted
 * itself (it is bounded by RUNNER_HOOK_LIMIT_NS instead). A run's document
 * goes to a hidden .part file and is renamed only when it is a finished
 * run's, so STEP-REPEAT.json always means "finished" and --resume can go
 * by the files alone.
 */
#include "experiment/runner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/stop.h"
#include "common/units.h"

const char *run_status_name(enum run_status s)
{
    static const char *const names[] = {"not-run", "done", "failed", "interrupted", "skipped"};
    return names[s];
}

const char *output_status_name(enum output_status s)
{
    static const char *const names[] = {"done", "failed", "not-run"};
    return names[s];
}

void runner_file_name(const struct experiment_plan *plan, int i, char *buf, size_t len)
{
    const struct plan_run *r = &plan->run[i];
    snprintf(buf, len, "%s-%d.json", plan->step[r->step].name, r->repeat);
}

static void part_path(const struct runner_config *cfg, int i, char *buf, size_t len)
{
    char name[PLAN_NAME_MAX + 32];
    runner_file_name(cfg->plan, i, name, sizeof(name));
    snprintf(buf, len, "%s/.%s.part", cfg->dir, name);
}

/* DIR/STEP-REPEAT.SUFFIX of save kind k, or its hidden .part while the run runs. */
static void saved_path(const struct runner_config *cfg, int i, int k, bool part, char *buf,
                       size_t len)
{
    const struct plan_run *r = &cfg->plan->run[i];
    snprintf(buf, len, "%s/%s%s-%d.%s%s", cfg->dir, part ? "." : "", cfg->plan->step[r->step].name,
             r->repeat, plan_save_kinds[k].suffix, part ? ".part" : "");
}

/* Removes the .part files of run i's saved outputs. */
static void unlink_saved_parts(const struct runner_config *cfg, int i)
{
    unsigned save = cfg->plan->step[cfg->plan->run[i].step].save;
    for (int k = 0; k < PLAN_SAVE_KINDS; k++) {
        char path[4400];
        if (!(save & (1u << k)))
            continue;
        saved_path(cfg, i, k, true, path, sizeof(path));
        unlink(path);
    }
}

/* Renames run i's saved outputs into place (before its result, so that
 * STEP-REPEAT.json means they are there too). 0, or -1 with why. */
static int rename_saved(const struct runner_config *cfg, int i, char *why, size_t len)
{
    unsigned save = cfg->plan->step[cfg->plan->run[i].step].save;
    for (int k = 0; k < PLAN_SAVE_KINDS; k++) {
        char part[4400], final[4400];
        if (!(save & (1u << k)))
            continue;
        saved_path(cfg, i, k, true, part, sizeof(part));
        saved_path(cfg, i, k, false, final, sizeof(final));
        if (rename(part, final) != 0) {
            snprintf(why, len, "cannot rename its %s to %.200s: %s", plan_save_kinds[k].word, final,
                     strerror(errno));
            return -1;
        }
    }
    return 0;
}

int runner_run_argv(const struct runner_config *cfg, int i, struct words *argv)
{
    const struct plan_step *s = &cfg->plan->step[cfg->plan->run[i].step];
    char why[64], part[4200];
    part_path(cfg, i, part, sizeof(part));
    int rc = words_append(argv, cfg->exe, why, sizeof(why));
    for (int k = 0; k < s->argv.count && rc == 0; k++)
        rc = words_append(argv, s->argv.word[k], why, sizeof(why));
    if (rc == 0)
        rc = words_append(argv, "--json", why, sizeof(why));
    if (rc == 0)
        rc = words_append(argv, part, why, sizeof(why));
    for (int k = 0; k < PLAN_SAVE_KINDS && rc == 0; k++) {
        if (!(s->save & (1u << k)))
            continue;
        saved_path(cfg, i, k, true, part, sizeof(part));
        rc = words_append(argv, plan_save_kinds[k].option, why, sizeof(why));
        if (rc == 0)
            rc = words_append(argv, part, why, sizeof(why));
    }
    if (rc != 0)
        words_free(argv);
    return rc;
}

/* Sleeps ns, or less when a stop is requested. */
static void settle(int64_t ns)
{
    int64_t end = deadline_after_ns(monotonic_now_ns(), ns);
    while (!stop_requested()) {
        int64_t left = end - monotonic_now_ns();
        if (left <= 0)
            return;
        if (left > 50 * NS_PER_MS)
            left = 50 * NS_PER_MS;
        struct timespec pause = {0, (long)left};
        nanosleep(&pause, NULL);
    }
}

/* `sh -c COMMAND` with what the command may want to know in its environment. */
static void run_hook(const struct runner_config *cfg, int i, const char *command, bool before,
                     struct child_result *res)
{
    const struct experiment_plan *p = cfg->plan;
    const struct plan_run *r = &p->run[i];
    char file[PLAN_NAME_MAX + 32], e_name[128], e_dir[4200], e_step[128], e_rep[64], e_result[4300],
        e_exe[4200];
    runner_file_name(p, i, file, sizeof(file));
    snprintf(e_name, sizeof(e_name), "JITTERLAB_EXPERIMENT=%s", p->name);
    snprintf(e_dir, sizeof(e_dir), "JITTERLAB_DIR=%s", cfg->dir);
    snprintf(e_step, sizeof(e_step), "JITTERLAB_STEP=%s", p->step[r->step].name);
    snprintf(e_rep, sizeof(e_rep), "JITTERLAB_REPEAT=%d", r->repeat);
    snprintf(e_result, sizeof(e_result), "JITTERLAB_RESULT=%s/%s", cfg->dir, file);
    snprintf(e_exe, sizeof(e_exe), "JITTERLAB=%s", cfg->exe_path ? cfg->exe_path : "jitterlab");
    const char *env[] = {e_exe, e_name, e_dir, e_step, e_rep, e_result, NULL};
    char *argv[] = {"sh", "-c", (char *)command, NULL};
    struct child_spec spec = {
        .path = "/bin/sh",
        .argv = argv,
        .env = env,
        .capture = true,
        .forward_stop = before, /* an after is cleaning up: let it finish */
        .limit_ns = RUNNER_HOOK_LIMIT_NS,
        .grace_ns = RUNNER_GRACE_NS,
    };
    child_run(&spec, res);
}

static bool child_ok(const struct child_result *r)
{
    return r->started && r->exit_status == 0 && !r->signal;
}

/* The run itself, and what its result is. */
static void run_measurement(const struct runner_config *cfg, int i, struct run_record *rec,
                            const struct runner_ops *ops)
{
    struct words argv = {0};
    char part[4200], final[4300], name[PLAN_NAME_MAX + 32], how[300];
    part_path(cfg, i, part, sizeof(part));
    runner_file_name(cfg->plan, i, name, sizeof(name));
    snprintf(final, sizeof(final), "%s/%s", cfg->dir, name);
    unlink(part); /* left by a run that was killed */
    unlink_saved_parts(cfg, i);
    if (runner_run_argv(cfg, i, &argv) != 0) {
        rec->status = RUN_FAILED;
        snprintf(rec->why, sizeof(rec->why), "out of memory");
        return;
    }
    rfc3339_now(rec->started_at, sizeof(rec->started_at));
    if (ops->started)
        ops->started(ops->ctx, rec, argv.word);
    struct child_spec spec = {
        .path = cfg->exe,
        .argv = argv.word,
        .quiet = cfg->quiet,
        .forward_stop = true,
        .limit_ns = cfg->limit_ns ? cfg->limit_ns[cfg->plan->run[i].step] : 0,
        .grace_ns = RUNNER_GRACE_NS,
    };
    rec->run_started = child_run(&spec, &rec->run) == 0;
    words_free(&argv);
    child_describe(&rec->run, how, sizeof(how));
    struct stat sb;
    int judged = -1;
    char why[400] = "no result document was written";
    if (rec->run_started && stat(part, &sb) == 0)
        judged = ops->judge(ops->ctx, part, why, sizeof(why));
    bool exit_ok = rec->run_started && !rec->run.signal &&
                   (rec->run.exit_status == 0 || rec->run.exit_status == 3);
    if (exit_ok && judged == 0) {
        if (rename_saved(cfg, i, rec->why, sizeof(rec->why)) == 0) {
            if (rename(part, final) == 0) {
                rec->status = RUN_DONE;
                snprintf(rec->file, sizeof(rec->file), "%s", name);
                return;
            }
            snprintf(rec->why, sizeof(rec->why), "cannot rename its result to %.200s: %s", name,
                     strerror(errno));
        }
        rec->status = RUN_FAILED;
    } else if (!rec->run_started) {
        rec->status = RUN_FAILED;
        snprintf(rec->why, sizeof(rec->why), "jitterlab run %s", how);
    } else if (rec->run.timed_out) {
        /* Not an interruption: nobody asked it to stop, it overran. */
        char limit[32];
        format_duration(spec.limit_ns, limit, sizeof(limit));
        rec->status = RUN_FAILED;
        snprintf(rec->why, sizeof(rec->why),
                 "stopped at its time limit of %s; its partial result was removed", limit);
    } else if (rec->run.interrupted || judged == 1) {
        rec->status = RUN_INTERRUPTED;
        snprintf(rec->why, sizeof(rec->why),
                 "interrupted after %.1f s; its partial result was removed", rec->run.duration_s);
    } else if (exit_ok) {
        rec->status = RUN_FAILED;
        snprintf(rec->why, sizeof(rec->why), "jitterlab run %s, but its result: %.250s", how, why);
    } else {
        rec->status = RUN_FAILED;
        snprintf(rec->why, sizeof(rec->why), "jitterlab run %s", how);
    }
    unlink(part);
    unlink_saved_parts(cfg, i);
}

static void run_one(const struct runner_config *cfg, int i, struct run_record *rec,
                    const struct runner_ops *ops)
{
    const struct plan_step *s = &cfg->plan->step[cfg->plan->run[i].step];
    memset(rec, 0, sizeof(*rec));
    rec->index = i;
    rfc3339_now(rec->started_at, sizeof(rec->started_at));
    const char *before = s->key[STEP_BEFORE].text, *after = s->key[STEP_AFTER].text;
    char how[300];
    if (before) {
        run_hook(cfg, i, before, true, &rec->before);
        child_describe(&rec->before, how, sizeof(how));
        if (rec->before.interrupted) {
            rec->status = RUN_INTERRUPTED;
            snprintf(rec->why, sizeof(rec->why), "interrupted during before (%s)", how);
        } else if (!child_ok(&rec->before)) {
            rec->status = RUN_SKIPPED;
            snprintf(rec->why, sizeof(rec->why), "before failed (%s), so the run was skipped", how);
        }
    }
    if (rec->status == RUN_NOT_RUN && stop_requested()) {
        rec->status = RUN_INTERRUPTED;
        snprintf(rec->why, sizeof(rec->why), "interrupted before the run started");
    }
    if (rec->status == RUN_NOT_RUN)
        run_measurement(cfg, i, rec, ops);
    if (after)
        run_hook(cfg, i, after, false, &rec->after);
}

bool runner_run(const struct runner_config *cfg, const bool *todo, struct run_record *records,
                const struct runner_ops *ops)
{
    bool first = true;
    for (int i = 0; i < cfg->plan->nruns; i++) {
        if (!todo[i])
            continue;
        if (!first)
            settle(cfg->plan->settle_ns);
        if (stop_requested())
            return true;
        first = false;
        run_one(cfg, i, &records[i], ops);
        if (ops->ended)
            ops->ended(ops->ctx, &records[i]);
        if (stop_requested())
            return true;
    }
    return false;
}

/* The subcommand exists in this binary: `EXE help NAME` exits 0. */
static int append(struct output_record *out, const char *word)
{
    char why[64];
    return words_append(&out->argv, word, why, sizeof(why));
}

/* The results a report draws, one colour each (src/out/report_model.h). */
#define REPORT_STEPS_MAX 10

/* Appends the finished runs' files of step s as one comma-separated
 * --group argument; returns how many, or -1 (out of memory). */
static int append_group(const struct runner_config *cfg, const bool *have, int s,
                        struct output_record *out)
{
    const struct experiment_plan *p = cfg->plan;
    char group[8192] = "";
    int n = 0;
    for (int i = 0; i < p->nruns; i++) {
        if (!have[i] || p->run[i].step != s)
            continue;
        char name[PLAN_NAME_MAX + 32];
        runner_file_name(p, i, name, sizeof(name));
        size_t used = strlen(group);
        snprintf(group + used, sizeof(group) - used, "%s%s", used ? "," : "", name);
        n++;
    }
    if (n && append(out, group) != 0)
        return -1;
    return n;
}

bool runner_output_plan(const struct runner_config *cfg, enum runner_output which, const bool *have,
                        bool with_compare, struct output_record *out)
{
    const struct experiment_plan *p = cfg->plan;
    words_free(&out->argv);
    out->status = OUTPUT_NOT_RUN;
    out->why[0] = '\0';
    int rc = append(out, "jitterlab");
    if (which == OUTPUT_COMPARE) {
        rc |= append(out, "compare");
        for (int s = 0; s < p->nsteps && rc == 0; s++) {
            rc |= append(out, "--group");
            int n = append_group(cfg, have, s, out);
            if (n == 0) {
                snprintf(out->why, sizeof(out->why), "step %s has no finished run to compare",
                         p->step[s].name);
                words_free(&out->argv);
                return false;
            }
            rc |= n < 0;
        }
        for (int s = 0; s < p->nsteps; s++)
            rc |= append(out, "--label") | append(out, p->step[s].name);
        rc |= append(out, "--json") | append(out, "compare.json");
    } else {
        /* Every finished run of a step as one result in the step's name
         * (--group: the same runs, pooled the same way, as the verdicts of
         * compare.json; the report draws at most REPORT_STEPS_MAX results,
         * one colour each). */
        rc |= append(out, "report");
        int n = 0;
        for (int s = 0; s < p->nsteps && n < REPORT_STEPS_MAX && rc == 0; s++) {
            bool any = false;
            for (int i = 0; i < p->nruns && !any; i++)
                any = have[i] && p->run[i].step == s;
            if (!any)
                continue;
            rc |= append(out, "--label") | append(out, p->step[s].name) | append(out, "--group");
            rc |= append_group(cfg, have, s, out) < 0;
            n++;
        }
        if (n == 0) {
            snprintf(out->why, sizeof(out->why), "no finished run to report on");
            words_free(&out->argv);
            return false;
        }
        if (with_compare)
            rc |= append(out, "--compare") | append(out, "compare.json");
        rc |= append(out, "-o") | append(out, "report.html");
    }
    if (rc != 0) {
        out->status = OUTPUT_FAILED;
        snprintf(out->why, sizeof(out->why), "out of memory");
        words_free(&out->argv);
        return false;
    }
    return true;
}

void runner_output_run(const struct runner_config *cfg, enum runner_output which,
                       struct output_record *out)
{
    const char *name = which == OUTPUT_COMPARE ? "compare" : "report";
    struct child_spec spec = {
        .path = cfg->exe,
        .argv = out->argv.word,
        .cwd = cfg->dir,
        .quiet = cfg->quiet,
        .forward_stop = true,
        .limit_ns = 600 * NS_PER_S,
        .grace_ns = RUNNER_GRACE_NS,
    };
    struct child_result res;
    int rc = child_run(&spec, &res);
    char how[300];
    child_describe(&res, how, sizeof(how));
    if (rc == 0 && child_ok(&res)) {
        out->status = OUTPUT_DONE;
    } else if (res.interrupted) {
        out->status = OUTPUT_NOT_RUN;
        snprintf(out->why, sizeof(out->why), "interrupted (jitterlab %s %s)", name, how);
    } else {
        out->status = OUTPUT_FAILED;
        snprintf(out->why, sizeof(out->why), "jitterlab %s %s", name, how);
    }
}
