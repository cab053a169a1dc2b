/*
 * experiment.json's own part (record.h). Strings that came from a child's
 * output may be anything; they are stored in their text form
 * (common/safe_text.h), since a JSON document must be text.
 */
#include "experiment/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_text.h"

static json_t *text_or_null(const char *s)
{
    return s ? json_text_redacted(s) : json_null();
}

static json_t *entry_base(const struct experiment_plan *p, int i)
{
    const struct plan_run *run = &p->run[i];
    return json_pack("{s:i, s:s, s:i}", "order", run->order, "step", p->step[run->step].name,
                     "repeat", run->repeat);
}

static json_t *not_run_entry(const struct experiment_plan *p, int i, const char *why)
{
    json_t *e = entry_base(p, i);
    json_object_set_new(e, "status", json_string("not-run"));
    json_object_set_new(e, "file", json_null());
    json_object_set_new(e, "why", json_string(why));
    return e;
}

static json_t *child_json(const struct child_result *c)
{
    if (!c->started && !c->spawn_errno)
        return json_null();
    char how[300];
    child_describe(c, how, sizeof(how));
    json_t *j = json_object();
    json_object_set_new(j, "exit_status",
                        c->started && !c->signal ? json_integer(c->exit_status) : json_null());
    json_object_set_new(j, "signal", c->signal ? json_integer(c->signal) : json_null());
    json_object_set_new(j, "status", json_string(how));
    json_object_set_new(j, "duration_s", json_real(c->duration_s));
    return j;
}

static json_t *hook_json(const struct child_result *c, const char *command)
{
    json_t *j = child_json(c);
    if (json_is_object(j)) {
        json_object_set_new(j, "command", json_text_redacted(command));
        json_object_set_new(j, "output_tail", json_text_redacted(c->tail));
    }
    return j;
}

static json_t *run_entry(const struct experiment_plan *p, const struct run_record *rec)
{
    const struct plan_step *s = &p->step[p->run[rec->index].step];
    json_t *e = entry_base(p, rec->index);
    json_object_set_new(e, "status", json_string(run_status_name(rec->status)));
    json_object_set_new(e, "file", rec->file[0] ? json_string(rec->file) : json_null());
    json_object_set_new(e, "why", rec->why[0] ? json_string(rec->why) : json_null());
    json_object_set_new(e, "started_at", json_string(rec->started_at));
    json_object_set_new(e, "duration_s",
                        rec->run_started ? json_real(rec->run.duration_s) : json_null());
    json_object_set_new(e, "exit_status",
                        rec->run_started && !rec->run.signal ? json_integer(rec->run.exit_status)
                                                             : json_null());
    json_object_set_new(e, "signal", rec->run.signal ? json_integer(rec->run.signal) : json_null());
    json_object_set_new(e, "budget_exceeded",
                        json_boolean(rec->status == RUN_DONE && rec->run.exit_status == 3));
    json_object_set_new(e, "before", hook_json(&rec->before, s->key[STEP_BEFORE].text));
    json_object_set_new(e, "after", hook_json(&rec->after, s->key[STEP_AFTER].text));
    return e;
}

int record_init(struct experiment_record *r, const struct experiment_plan *plan)
{
    memset(r, 0, sizeof(*r));
    r->plan = plan;
    r->sessions = json_array();
    r->history = json_array();
    r->runs = calloc((size_t)plan->nruns, sizeof(*r->runs));
    r->compare = json_pack("{s:s, s:n, s:s}", "status", "not-run", "file", "why", "not run yet");
    r->report = json_pack("{s:s, s:n, s:s}", "status", "not-run", "file", "why", "not run yet");
    if (!r->runs || !r->sessions || !r->history) {
        record_free(r);
        return -1;
    }
    for (int i = 0; i < plan->nruns; i++)
        r->runs[i] = not_run_entry(plan, i, "not run yet");
    return 0;
}

/* The entry of planned run i in an earlier document's runs, or NULL. */
static json_t *old_entry(const struct experiment_plan *p, json_t *runs, int i)
{
    json_t *e;
    size_t k;
    json_array_foreach(runs, k, e)
    {
        json_t *order = json_object_get(e, "order"), *step = json_object_get(e, "step"),
               *repeat = json_object_get(e, "repeat");
        if (json_is_integer(order) && json_integer_value(order) == p->run[i].order &&
            json_is_string(step) &&
            strcmp(json_string_value(step), p->step[p->run[i].step].name) == 0 &&
            json_is_integer(repeat) && json_integer_value(repeat) == p->run[i].repeat)
            return e;
    }
    return NULL;
}

int record_load(struct experiment_record *r, const struct experiment_plan *plan, json_t *doc,
                const bool *have, char *why, size_t whylen)
{
    json_t *kind = json_object_get(doc, "kind");
    if (!json_is_string(kind) || strcmp(json_string_value(kind), "experiment") != 0) {
        snprintf(why, whylen, "not an experiment document (kind is not \"experiment\")");
        return -1;
    }
    if (record_init(r, plan) != 0) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    json_t *sessions = json_object_get(doc, "sessions"), *history = json_object_get(doc, "history"),
           *runs = json_object_get(doc, "runs");
    if (json_is_array(sessions))
        json_array_extend(r->sessions, sessions);
    if (json_is_array(history))
        json_array_extend(r->history, history);
    for (int i = 0; i < plan->nruns; i++) {
        json_t *e = json_is_array(runs) ? old_entry(plan, runs, i) : NULL;
        json_t *status = json_object_get(e, "status");
        bool said_done = json_is_string(status) && strcmp(json_string_value(status), "done") == 0;
        char name[PLAN_NAME_MAX + 32];
        runner_file_name(plan, i, name, sizeof(name));
        json_t *now = NULL;
        if (e && said_done == have[i]) {
            now = json_deep_copy(e);
        } else if (have[i]) { /* the file is the truth */
            now = entry_base(plan, i);
            json_object_set_new(now, "status", json_string("done"));
            json_object_set_new(now, "file", json_string(name));
            json_object_set_new(now, "why", json_null());
        } else if (e) {
            now = json_deep_copy(e);
            json_object_set_new(now, "status", json_string("not-run"));
            json_object_set_new(now, "file", json_null());
            json_object_set_new(
                now, "why",
                json_string("its result file is missing or not a finished run's result"));
        }
        if (now) {
            json_decref(r->runs[i]);
            r->runs[i] = now;
        }
    }
    return 0;
}

void record_free(struct experiment_record *r)
{
    if (r->runs)
        for (int i = 0; i < r->plan->nruns; i++)
            json_decref(r->runs[i]);
    free(r->runs);
    json_decref(r->sessions);
    json_decref(r->history);
    json_decref(r->compare);
    json_decref(r->report);
    memset(r, 0, sizeof(*r));
}

void record_session_begin(struct experiment_record *r, int argc, char **argv,
                          const char *started_at, bool resume)
{
    json_t *args = json_array();
    json_array_append_new(args, json_string("jitterlab"));
    for (int i = 0; i < argc; i++)
        json_array_append_new(args, json_text_redacted(argv[i]));
    json_array_append_new(r->sessions, json_pack("{s:s, s:n, s:o, s:b, s:b, s:i}", "started_at",
                                                 started_at, "ended_at", "argv", args, "resume",
                                                 resume, "interrupted", 0, "runs_made", 0));
}

void record_session_end(struct experiment_record *r, const char *ended_at, bool interrupted,
                        int runs_made)
{
    json_t *s = json_array_get(r->sessions, json_array_size(r->sessions) - 1);
    if (!s)
        return;
    json_object_set_new(s, "ended_at", json_string(ended_at));
    json_object_set_new(s, "interrupted", json_boolean(interrupted));
    json_object_set_new(s, "runs_made", json_integer(runs_made));
}

void record_run(struct experiment_record *r, const struct run_record *rec)
{
    json_t *e = run_entry(r->plan, rec);
    json_object_set_new(e, "session", json_integer((json_int_t)json_array_size(r->sessions)));
    json_array_append(r->history, e);
    json_decref(r->runs[rec->index]);
    r->runs[rec->index] = e;
}

void record_output(struct experiment_record *r, const char *key, const char *file, const char *dir,
                   const struct output_record *out)
{
    json_t *cmd = json_array();
    for (int i = 0; i < out->argv.count; i++)
        json_array_append_new(cmd, json_text_redacted(out->argv.word[i]));
    json_t *j = json_object();
    json_object_set_new(j, "status", json_string(output_status_name(out->status)));
    json_object_set_new(j, "file", out->status == OUTPUT_DONE ? json_string(file) : json_null());
    json_object_set_new(j, "why", out->why[0] ? json_text_redacted(out->why) : json_null());
    json_object_set_new(j, "command", out->argv.count ? cmd : (json_decref(cmd), json_null()));
    json_object_set_new(j, "cwd", json_text_redacted(dir));
    json_t **slot = strcmp(key, "compare") == 0 ? &r->compare : &r->report;
    json_decref(*slot);
    *slot = j;
}

json_t *record_plan_json(const struct experiment_plan *p)
{
    json_t *steps = json_array(), *runs = json_array();
    for (int i = 0; i < p->nsteps; i++) {
        const struct plan_step *s = &p->step[i];
        json_t *argv = json_array();
        for (int k = 0; k < s->argv.count; k++)
            json_array_append_new(argv, json_text_redacted(s->argv.word[k]));
        json_t *step = json_pack("{s:s, s:i}", "name", s->name, "line", s->line);
        for (int k = 0; k < STEP_NKEYS; k++)
            json_object_set_new(step, plan_step_keys[k], text_or_null(s->key[k].text));
        json_object_set_new(step, "argv", argv);
        json_array_append_new(steps, step);
    }
    for (int i = 0; i < p->nruns; i++) {
        char name[PLAN_NAME_MAX + 32];
        runner_file_name(p, i, name, sizeof(name));
        json_t *e = entry_base(p, i);
        json_object_set_new(e, "file", json_string(name));
        json_array_append_new(runs, e);
    }
    return json_pack("{s:s, s:s, s:i, s:s, s:I, s:o, s:o}", "name", p->name, "file",
                     "experiment.ini", "repeat", p->repeat, "order",
                     p->blocked ? "blocked" : "interleaved", "settle_ns", (json_int_t)p->settle_ns,
                     "steps", steps, "runs", runs);
}

const char *record_run_status(const struct experiment_record *r, int i)
{
    const char *s = json_string_value(json_object_get(r->runs[i], "status"));
    return s ? s : "not-run";
}

void record_fill(const struct experiment_record *r, json_t *doc)
{
    static const char *const statuses[] = {"done", "failed", "interrupted", "skipped", "not-run"};
    json_t *summary = json_pack("{s:i}", "planned", r->plan->nruns);
    for (size_t k = 0; k < sizeof(statuses) / sizeof(statuses[0]); k++) {
        int n = 0;
        for (int i = 0; i < r->plan->nruns; i++)
            n += strcmp(record_run_status(r, i), statuses[k]) == 0;
        char key[32];
        snprintf(key, sizeof(key), "%s", statuses[k]);
        if (strcmp(key, "not-run") == 0)
            snprintf(key, sizeof(key), "not_run");
        json_object_set_new(summary, key, json_integer(n));
    }
    json_t *runs = json_array();
    for (int i = 0; i < r->plan->nruns; i++)
        json_array_append(runs, r->runs[i]);
    json_object_set_new(doc, "plan", record_plan_json(r->plan));
    json_object_set_new(doc, "summary", summary);
    json_object_set_new(doc, "sessions", json_incref(r->sessions));
    json_object_set_new(doc, "runs", runs);
    json_object_set_new(doc, "history", json_incref(r->history));
    json_object_set_new(doc, "compare", json_incref(r->compare));
    json_object_set_new(doc, "report", json_incref(r->report));
}
