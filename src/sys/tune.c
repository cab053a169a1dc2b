/*
 * The mechanism of reversible tuning: plans, the journal (a small JSON state
 * file written atomically and fsynced before the first change), apply,
 * restore with verification, and the stale-journal warning that every
 * jitterlab invocation prints after a run died before restoring. What to
 * change lives in tune_actions.c; this file only knows paths and values.
 */
#include "sys/tune.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "out/atomic_file.h"

void tune_plan_add(struct tune_plan *plan, const char *action, const char *path,
                   const char *old_value, const char *new_value, const char *what)
{
    for (int i = 0; i < plan->n; i++) {
        if (strcmp(plan->change[i].path, path) == 0) { /* one change per file */
            snprintf(plan->change[i].new_value, TUNE_VALUE_MAX, "%s", new_value);
            return;
        }
    }
    if (plan->n == plan->cap) {
        int cap = plan->cap ? plan->cap * 2 : 32;
        struct tune_change *grown = realloc(plan->change, (size_t)cap * sizeof(*grown));
        if (!grown)
            return; /* the change is left out; plan_build reports the shortage */
        plan->change = grown;
        plan->cap = cap;
    }
    struct tune_change *c = &plan->change[plan->n++];
    memset(c, 0, sizeof(*c));
    snprintf(c->action, sizeof(c->action), "%s", action);
    snprintf(c->path, sizeof(c->path), "%s", path);
    snprintf(c->old_value, sizeof(c->old_value), "%s", old_value);
    snprintf(c->new_value, sizeof(c->new_value), "%s", new_value);
    snprintf(c->what, sizeof(c->what), "%s", what ? what : "");
}

void tune_plan_note(struct tune_plan *plan, const char *fmt, ...)
{
    if (plan->nnotes >= (int)(sizeof(plan->note) / sizeof(plan->note[0])))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(plan->note[plan->nnotes++], sizeof(plan->note[0]), fmt, ap);
    va_end(ap);
}

void tune_plan_free(struct tune_plan *plan)
{
    free(plan->change);
    memset(plan, 0, sizeof(*plan));
}

int tune_plan_build(const struct tune_request *rq, struct tune_plan *plan)
{
    memset(plan, 0, sizeof(*plan));
    for (int i = 0; i < tune_action_count; i++)
        if (rq->actions & (1u << i))
            tune_actions[i].plan(rq, plan);
    return 0;
}

bool tune_value_matches(const char *written, const char *read_back)
{
    char got[TUNE_VALUE_MAX];
    const char *open = strchr(read_back, '[');
    const char *close = open ? strchr(open, ']') : NULL;
    if (open && close) { /* "always [madvise] never" */
        snprintf(got, sizeof(got), "%.*s", (int)(close - open - 1), open + 1);
    } else {
        size_t a = strspn(read_back, " \t\n");
        snprintf(got, sizeof(got), "%s", read_back + a);
        size_t n = strlen(got);
        while (n && (got[n - 1] == ' ' || got[n - 1] == '\t' || got[n - 1] == '\n'))
            got[--n] = '\0';
    }
    return strcmp(got, written) == 0;
}

/* ---- journal -------------------------------------------------------------- */

static const char *mode_names[] = {"apply", "run", "hold"};

int tune_journal_load(const char *state_path, struct tune_journal *j, char *err, size_t errlen)
{
    memset(j, 0, sizeof(*j));
    if (access(state_path, F_OK) != 0)
        return 1;
    json_error_t jerr;
    json_t *doc = json_load_file(state_path, 0, &jerr);
    json_t *changes = doc ? json_object_get(doc, "changes") : NULL;
    const char *kind = doc ? json_string_value(json_object_get(doc, "kind")) : NULL;
    if (!doc || !json_is_array(changes) || !kind || strcmp(kind, "tune-state") != 0) {
        snprintf(err, errlen, "%s: not a jitterlab tune state file (%s)", state_path,
                 doc ? "unexpected content" : jerr.text);
        json_decref(doc);
        return -1;
    }
    const char *mode = json_string_value(json_object_get(doc, "mode"));
    for (int m = 0; m < 3; m++)
        if (mode && strcmp(mode, mode_names[m]) == 0)
            j->mode = (enum tune_mode)m;
    j->pid = (long)json_integer_value(json_object_get(doc, "pid"));
    j->complete = json_is_true(json_object_get(doc, "complete"));
    const char *sr = json_string_value(json_object_get(doc, "sysroot"));
    snprintf(j->sysroot, sizeof(j->sysroot), "%s", sr ? sr : "");
    const char *created = json_string_value(json_object_get(doc, "created_at"));
    snprintf(j->created_at, sizeof(j->created_at), "%s", created ? created : "");
    size_t i;
    json_t *c;
    json_array_foreach(changes, i, c)
    {
        const char *action = json_string_value(json_object_get(c, "action"));
        const char *path = json_string_value(json_object_get(c, "path"));
        const char *old_value = json_string_value(json_object_get(c, "old"));
        const char *new_value = json_string_value(json_object_get(c, "new"));
        const char *what = json_string_value(json_object_get(c, "what"));
        if (!action || !path || !old_value || !new_value) {
            snprintf(err, errlen, "%s: change %zu is incomplete", state_path, i);
            tune_plan_free(&j->changes);
            json_decref(doc);
            return -1;
        }
        tune_plan_add(&j->changes, action, path, old_value, new_value, what);
    }
    json_decref(doc);
    return 0;
}

static int make_parent_dir(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

int tune_journal_save(const char *state_path, const struct tune_journal *j, char *err,
                      size_t errlen)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "tool", json_string("jitterlab"));
    json_object_set_new(doc, "schema", json_integer(1));
    json_object_set_new(doc, "kind", json_string("tune-state"));
    json_object_set_new(doc, "created_at", json_string(j->created_at));
    json_object_set_new(doc, "mode", json_string(mode_names[j->mode]));
    json_object_set_new(doc, "pid", json_integer(j->pid));
    json_object_set_new(doc, "complete", json_boolean(j->complete));
    json_object_set_new(doc, "sysroot", json_string(j->sysroot));
    json_t *arr = json_array();
    for (int i = 0; i < j->changes.n; i++) {
        const struct tune_change *c = &j->changes.change[i];
        json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:s,s:s}", "action", c->action, "path",
                                             c->path, "what", c->what, "old", c->old_value, "new",
                                             c->new_value));
    }
    json_object_set_new(doc, "changes", arr);
    struct atomic_file f;
    int rc = -1;
    if (make_parent_dir(state_path) == 0 && atomic_file_open(&f, state_path) == 0) {
        if (json_dumpf(doc, f.fp, JSON_INDENT(1) | JSON_PRESERVE_ORDER) == 0) {
            fputc('\n', f.fp);
            rc = atomic_file_commit(&f);
        } else {
            atomic_file_abort(&f);
        }
    }
    if (rc != 0)
        snprintf(err, errlen, "cannot write the tune state file %s: %s", state_path,
                 strerror(errno));
    json_decref(doc);
    return rc;
}

/* ---- apply / restore ------------------------------------------------------ */

/* Test aid: JITTERLAB_TUNE_WRITE_DELAY_MS pauses after each write, so a test
 * can kill an apply in the middle. */
static void write_delay(void)
{
    const char *ms = getenv("JITTERLAB_TUNE_WRITE_DELAY_MS");
    long v = ms ? strtol(ms, NULL, 10) : 0;
    if (v > 0 && v < 10000) {
        struct timespec ts = {v / 1000, (v % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* Writes "value\n", as echo does: every sysfs/procfs file here takes it, and
 * a restored file reads back byte for byte as the kernel printed it. */
static bool write_and_check(const struct sysroot *sr, const char *path, const char *value)
{
    char back[TUNE_VALUE_MAX], line[TUNE_VALUE_MAX + 2];
    snprintf(line, sizeof(line), "%s\n", value);
    if (sysroot_write_string(sr, path, line) != 0)
        return false;
    return sysroot_read_string(sr, path, back, sizeof(back)) >= 0 &&
           tune_value_matches(value, back);
}

int tune_apply(const struct sysroot *sr, const struct tune_plan *plan, const char *state_path,
               enum tune_mode mode, struct tune_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof(*res));
    static struct tune_journal j;
    int loaded = tune_journal_load(state_path, &j, err, errlen);
    if (loaded < 0)
        return -1;
    if (loaded == 1 || j.changes.n == 0) {
        j.mode = mode;
        rfc3339_now(j.created_at, sizeof(j.created_at));
    } else if (strcmp(j.sysroot, sr->prefix) != 0) {
        snprintf(err, errlen, "%s holds changes to another tree (%s); restore those first",
                 state_path, j.sysroot[0] ? j.sysroot : "/");
        tune_plan_free(&j.changes);
        return -1;
    }
    if (mode != TUNE_MODE_APPLY)
        j.mode = mode; /* a run or hold restores everything at its end */
    j.pid = (long)getpid();
    j.complete = false;
    snprintf(j.sysroot, sizeof(j.sysroot), "%s", sr->prefix);
    /* Extend: an existing entry keeps its original old value. */
    for (int i = 0; i < plan->n; i++) {
        const struct tune_change *c = &plan->change[i];
        tune_plan_add(&j.changes, c->action, c->path, c->old_value, c->new_value, c->what);
    }
    if (tune_journal_save(state_path, &j, err, errlen) != 0) {
        tune_plan_free(&j.changes);
        return -1;
    }
    for (int i = 0; i < plan->n; i++) {
        const struct tune_change *c = &plan->change[i];
        if (write_and_check(sr, c->path, c->new_value)) {
            res->applied++;
        } else {
            res->refused++;
            size_t used = strlen(res->refused_list);
            snprintf(res->refused_list + used, sizeof(res->refused_list) - used, "%s%s",
                     used ? ", " : "", c->path);
            /* make sure a refused write left the old value */
            write_and_check(sr, c->path, c->old_value);
        }
        write_delay();
    }
    j.complete = true;
    int rc = tune_journal_save(state_path, &j, err, errlen);
    tune_plan_free(&j.changes);
    return rc;
}

int tune_restore(const char *state_path, char *failed, size_t failedlen, int *restored, char *err,
                 size_t errlen)
{
    static struct tune_journal j;
    failed[0] = '\0';
    *restored = 0;
    int loaded = tune_journal_load(state_path, &j, err, errlen);
    if (loaded != 0)
        return loaded;
    struct sysroot sr;
    sysroot_init(&sr, j.sysroot);
    int bad = 0;
    for (int i = j.changes.n - 1; i >= 0; i--) {
        const struct tune_change *c = &j.changes.change[i];
        char now[TUNE_VALUE_MAX] = "?";
        /* Already back (or never changed: the kernel refused the write). */
        bool back = sysroot_read_string(&sr, c->path, now, sizeof(now)) >= 0 &&
                    tune_value_matches(c->old_value, now);
        if (back || write_and_check(&sr, c->path, c->old_value)) {
            (*restored)++;
            continue;
        }
        sysroot_read_string(&sr, c->path, now, sizeof(now));
        size_t used = strlen(failed);
        snprintf(failed + used, failedlen - used, "  %s: is %s, should be %s\n", c->path, now,
                 c->old_value);
        bad++;
    }
    tune_plan_free(&j.changes);
    if (bad)
        return -1;
    if (unlink(state_path) != 0 && errno != ENOENT) {
        snprintf(err, errlen, "values restored, but %s could not be removed: %s", state_path,
                 strerror(errno));
        return -1;
    }
    return 0;
}

void tune_stale_warning(const char *state_path, char *buf, size_t len)
{
    buf[0] = '\0';
    if (access(state_path, F_OK) != 0)
        return;
    static struct tune_journal j;
    char err[256];
    if (tune_journal_load(state_path, &j, err, sizeof(err)) != 0) {
        snprintf(buf, len, "%s", err);
        return;
    }
    bool alive = j.pid > 0 && (kill((pid_t)j.pid, 0) == 0 || errno == EPERM);
    if (!alive && (j.mode != TUNE_MODE_APPLY || !j.complete))
        snprintf(buf, len,
                 "settings changed by jitterlab (%s, pid %ld, %s) were never restored: %d "
                 "values in %s; run `jitterlab tune restore`",
                 mode_names[j.mode], j.pid, j.created_at, j.changes.n, state_path);
    tune_plan_free(&j.changes);
}
