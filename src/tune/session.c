/*
 * The tune session of session.h: lock, plan, print, journal and apply at the
 * beginning; restore, verify and report at the end of a run or hold. The
 * journal and the writes themselves are tune.c's; this file only strings
 * them together in the order that keeps the machine restorable, and says
 * what happened on the streams it is given.
 */
#include "tune/session.h"

#include <stdlib.h>
#include <string.h>

#include "common/units.h"

const char *tune_state_path(const char *given)
{
    if (given)
        return given;
    const char *env = getenv("JITTERLAB_TUNE_STATE");
    return env && *env ? env : TUNE_DEFAULT_STATE;
}

void tune_plan_print(FILE *out, const struct tune_plan *plan, const struct sysroot *sr,
                     bool dry_run)
{
    for (int i = 0; i < plan->n; i++) {
        const struct tune_change *c = &plan->change[i];
        char full[4400];
        sysroot_path(sr, c->path, full, sizeof(full));
        if (dry_run)
            fprintf(out, "echo %s > %s    # %s: %s (now %s)\n", c->new_value, full, c->action,
                    c->what, c->old_value);
        else
            fprintf(out, "  [%s] %s: %s -> %s  (%s)\n", c->action, c->what, c->old_value,
                    c->new_value, c->path);
    }
    for (int i = 0; i < plan->nnotes; i++)
        fprintf(out, "%s%s\n", dry_run ? "# " : "  note: ", plan->note[i]);
}

/* Restores and reports, the caller holding the lock. */
static enum tune_outcome restore_report_locked(const char *state_path, bool missing_is_error,
                                               FILE *out, FILE *err)
{
    char failed[4096], why[600];
    int restored = 0;
    int rc = tune_restore(state_path, NULL, failed, sizeof(failed), &restored, why, sizeof(why));
    if (rc == 1) {
        if (missing_is_error) {
            fprintf(err, "jitterlab: tune restore: no snapshot in %s: nothing to restore\n",
                    state_path);
            return TUNE_NO_SNAPSHOT;
        }
        return TUNE_OK;
    }
    if (rc < 0) {
        if (failed[0])
            fprintf(err,
                    "jitterlab: tune restore: %d value%s restored; these could not be:\n%s"
                    "the snapshot stays in %s\n",
                    restored, restored == 1 ? "" : "s", failed, state_path);
        else
            fprintf(err, "jitterlab: tune restore: %s\n", why);
        return TUNE_FAILED;
    }
    if (out)
        fprintf(out, "jitterlab tune: %d value%s restored and verified; %s removed\n", restored,
                restored == 1 ? "" : "s", state_path);
    return TUNE_OK;
}

enum tune_outcome tune_session_begin(struct tune_session *s, const struct tune_request *rq,
                                     const char *profile, const char *state_path,
                                     enum tune_mode mode, FILE *out, FILE *err)
{
    memset(s, 0, sizeof(*s));
    s->lock_fd = -1;
    s->mode = mode;
    s->state_path = state_path;
    s->out = out;
    s->err = err;
    char why[600];
    if (tune_lock(state_path, mode, &s->lock_fd, why, sizeof(why)) != 0) {
        fprintf(err, "jitterlab: tune: %s; nothing was changed\n", why);
        return TUNE_FAILED;
    }
    if (tune_plan_build(rq, &s->plan) != 0) {
        fprintf(err, "jitterlab: tune: out of memory while planning; nothing was changed\n");
        tune_session_free(s);
        return TUNE_FAILED;
    }
    s->summary = (struct tune_summary){profile ? profile : "latency", rq->budget_ns, &s->plan};
    if (out) {
        char t[256], b[32];
        cpulist_format(&rq->targets, t, sizeof(t));
        format_duration(rq->budget_ns, b, sizeof(b));
        fprintf(out, "jitterlab tune: CPUs %s, budget %s, %d change%s\n", t, b, s->plan.n,
                s->plan.n == 1 ? "" : "s");
        tune_plan_print(out, &s->plan, rq->sr, false);
    }
    struct tune_result res;
    if (tune_apply(rq->sr, &s->plan, state_path, mode, NULL, &res, why, sizeof(why)) != 0) {
        fprintf(err, "jitterlab: tune: %s; nothing was changed\n", why);
        tune_session_free(s); /* nothing of ours to restore */
        return TUNE_FAILED;
    }
    /* A refusal is no failure of the session: a run measures under what
     * was applied; `tune apply` makes its exit code from s->refused. */
    s->applied = res.applied;
    s->refused = res.refused;
    if (res.refused)
        fprintf(err,
                "jitterlab: tune: the kernel refused %d change%s (left as they "
                "were, not in the snapshot): %s\n",
                res.refused, res.refused == 1 ? "" : "s", res.refused_list);
    if (out && res.journaled)
        fprintf(out, "%d applied, %d refused; snapshot in %s (undo: jitterlab tune restore)\n",
                res.applied, res.refused, state_path);
    else if (out)
        fprintf(out, "%d applied, %d refused; nothing changed, no snapshot kept\n", res.applied,
                res.refused);
    return TUNE_OK;
}

enum tune_outcome tune_session_end(struct tune_session *s)
{
    enum tune_outcome rc = TUNE_OK;
    if (s->lock_fd >= 0 && s->mode != TUNE_MODE_APPLY)
        rc = restore_report_locked(s->state_path, false, s->out, s->err);
    tune_unlock(s->lock_fd);
    s->lock_fd = -1;
    return rc;
}

void tune_session_free(struct tune_session *s)
{
    tune_unlock(s->lock_fd);
    s->lock_fd = -1;
    tune_plan_free(&s->plan);
}

enum tune_outcome tune_restore_report(const char *state_path, bool missing_is_error, FILE *out,
                                      FILE *err)
{
    char why[600];
    int fd;
    if (tune_lock(state_path, TUNE_MODE_APPLY, &fd, why, sizeof(why)) != 0) {
        fprintf(err, "jitterlab: tune restore: %s\n", why);
        return TUNE_FAILED;
    }
    enum tune_outcome rc = restore_report_locked(state_path, missing_is_error, out, err);
    tune_unlock(fd);
    return rc;
}
