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

/* A value as the shell takes it: quoted when it holds more than plain
 * characters ("L3:0=e00;1=e00" has a ';'). */
static void print_shell_word(FILE *out, const char *v, size_t n)
{
    bool plain = n > 0;
    for (size_t i = 0; i < n && plain; i++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,/-+@%",
                       v[i]) != NULL;
    if (plain) {
        fprintf(out, "%.*s", (int)n, v);
        return;
    }
    fputc('\'', out);
    for (size_t i = 0; i < n; i++)
        fputs(v[i] == '\'' ? "'\\''" : (char[2]){v[i], '\0'}, out);
    fputc('\'', out);
}

/* A value for people on one line: a line break as " + ". */
static void print_flat(FILE *out, const char *v)
{
    for (; *v; v++)
        fputs(*v == '\n' ? " + " : (char[2]){*v, '\0'}, out);
}

static void print_dry_run(FILE *out, const struct tune_change *c, const char *full)
{
    if (c->op == TUNE_OP_MOUNT) {
        fprintf(out, "mount -t resctrl resctrl %s    # %s: %s\n", full, c->action, c->what);
        return;
    }
    if (c->op == TUNE_OP_MKDIR) {
        fprintf(out, "mkdir %s    # %s: %s\n", full, c->action, c->what);
        return;
    }
    /* a value of several lines (a schemata's L3 and MB) is one echo per
     * line: the kernel takes each line on its own */
    for (const char *v = c->new_value;;) {
        size_t n = strcspn(v, "\n");
        fputs("echo ", out);
        print_shell_word(out, v, n);
        fprintf(out, " > %s", full);
        if (v == c->new_value) {
            fprintf(out, "    # %s: %s (now ", c->action, c->what);
            print_flat(out, c->old_value[0] ? c->old_value : "empty");
            fputc(')', out);
        }
        fputc('\n', out);
        if (!v[n])
            break;
        v += n + 1;
    }
}

void tune_plan_print(FILE *out, const struct tune_plan *plan, const struct sysroot *sr,
                     bool dry_run)
{
    for (int i = 0; i < plan->n; i++) {
        const struct tune_change *c = &plan->change[i];
        char full[4400];
        sysroot_path(sr, c->path, full, sizeof(full));
        if (dry_run) {
            print_dry_run(out, c, full);
        } else if (c->op != TUNE_OP_WRITE) {
            fprintf(out, "  [%s] %s: %s %s\n", c->action, c->what, tune_op_name(c->op), c->path);
        } else {
            fprintf(out, "  [%s] %s: ", c->action, c->what);
            print_flat(out, c->old_value[0] ? c->old_value : "(empty)");
            fputs(" -> ", out);
            print_flat(out, c->new_value);
            fprintf(out, "  (%s)\n", c->path);
        }
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

/* Whether this apply mounted resctrl: what cache-partition needs is known
 * only now. */
static bool mounted_resctrl(const struct tune_plan *plan)
{
    for (int i = 0; i < plan->n; i++)
        if (plan->change[i].op == TUNE_OP_MOUNT && plan->change[i].state == TUNE_CHANGE_APPLIED)
            return true;
    return false;
}

/* Plans cache-partition again on the mounted resctrl and applies that too,
 * extending the journal; the changes join s->plan (for the summary). */
static int apply_after_mount(struct tune_session *s, const struct tune_request *rq,
                             struct tune_result *res)
{
    struct tune_request again = *rq;
    again.actions = 1u << tune_action_find("cache-partition");
    struct tune_plan more;
    char why[600];
    int built = tune_plan_build(&again, &more);
    int rc = 0;
    if (built != 0) {
        fprintf(s->err, "jitterlab: %s; only resctrl was mounted (tune restore unmounts it)\n",
                built == -2 ? more.refusal : "tune: out of memory while planning");
        rc = -1;
    } else if (more.n > 0) {
        if (s->out)
            tune_plan_print(s->out, &more, rq->sr, false);
        /* TUNE_MODE_APPLY: the journal holds this session's mount already */
        if (tune_apply(rq->sr, &more, s->state_path, TUNE_MODE_APPLY, NULL, res, why,
                       sizeof(why)) != 0) {
            fprintf(s->err, "jitterlab: tune: %s; only resctrl was mounted\n", why);
            rc = -1;
        } else {
            s->applied += res->applied;
            s->refused += res->refused;
        }
        for (int i = 0; i < more.n && rc == 0; i++) {
            const struct tune_change *c = &more.change[i];
            tune_plan_add(&s->plan, c->action, c->path, c->old_value, c->new_value, c->what);
            int k = tune_plan_find(&s->plan, c->path);
            if (k >= 0) {
                s->plan.change[k].op = c->op;
                s->plan.change[k].state = c->state;
            }
        }
    }
    for (int i = 0; i < more.nnotes; i++)
        tune_plan_note(&s->plan, "%s", more.note[i]);
    tune_plan_free(&more);
    return rc;
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
    int built = tune_plan_build(rq, &s->plan);
    if (built == -2) {
        fprintf(err, "jitterlab: %s; nothing was changed\n", s->plan.refusal);
        tune_session_free(s);
        return TUNE_REFUSED;
    }
    if (built != 0) {
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
    if (mounted_resctrl(&s->plan) && apply_after_mount(s, rq, &res) != 0) {
        /* said on err; a run or hold undoes its session now, an apply keeps
         * the mount journaled for tune restore */
        if (mode != TUNE_MODE_APPLY)
            restore_report_locked(state_path, false, out, err);
        tune_session_free(s);
        return TUNE_REFUSED;
    }
    if (s->refused)
        fprintf(err,
                "jitterlab: tune: the kernel refused %d change%s (left as they "
                "were, not in the snapshot): %s\n",
                s->refused, s->refused == 1 ? "" : "s", res.refused_list);
    if (out && res.journaled)
        fprintf(out, "%d applied, %d refused; snapshot in %s (undo: jitterlab tune restore)\n",
                s->applied, s->refused, state_path);
    else if (out)
        fprintf(out, "%d applied, %d refused; nothing changed, no snapshot kept\n", s->applied,
                s->refused);
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
