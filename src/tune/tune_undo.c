/*
 * Undoing one apply among others: doctor's treatment applies a tune action,
 * measures with and without it (tune_plan_set switches the values, the
 * journal untouched, so that `tune restore` brings everything back at any
 * moment), and puts back the actions that did not help (tune_put_back)
 * while the journal keeps the ones that did. Only file writes: an action
 * that makes directories or mounts is restored whole by tune restore.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tune/tune.h"

static void add_failure(char *err, size_t errlen, const struct tune_change *c, int rc)
{
    size_t used = strlen(err);
    if (used + 1 < errlen)
        snprintf(err + used, errlen - used, "%s%s (%s)", used ? ", " : "", c->path, strerror(-rc));
}

int tune_plan_set(const struct sysroot *sr, const struct tune_plan *plan, bool after,
                  const struct tune_io *io, char *err, size_t errlen)
{
    if (!io)
        io = &tune_io_machine;
    err[0] = '\0';
    int failed = 0;
    for (int k = 0; k < plan->n; k++) {
        /* the order of the plan to set, the reverse to unset (as restore) */
        const struct tune_change *c = &plan->change[after ? k : plan->n - 1 - k];
        if (c->op != TUNE_OP_WRITE || c->state != TUNE_CHANGE_APPLIED)
            continue;
        int rc = tune_write_checked(io, sr, c, after ? c->new_value : c->old_value);
        if (rc != 0) {
            add_failure(err, errlen, c, rc);
            failed++;
        }
    }
    return failed ? -1 : 0;
}

int tune_put_back(const struct sysroot *sr, const struct tune_plan *plan,
                  const struct tune_plan *earlier, const char *state_path, const struct tune_io *io,
                  char *err, size_t errlen)
{
    char failed[600];
    int values = tune_plan_set(sr, plan, false, io, failed, sizeof failed);
    static struct tune_journal j;
    int loaded = tune_journal_load(state_path, &j, err, errlen);
    if (loaded < 0)
        return -1;
    if (loaded == 0) {
        for (int i = 0; i < plan->n; i++) {
            const struct tune_change *c = &plan->change[i];
            int k = tune_plan_find(&j.changes, c->path);
            /* a value not back stays journaled, for tune restore */
            bool back = c->state != TUNE_CHANGE_APPLIED || !strstr(failed, c->path);
            if (k >= 0 && back && tune_plan_find(earlier, c->path) < 0)
                tune_plan_remove(&j.changes, k);
        }
        int rc = j.changes.n > 0 || unlink(state_path) != 0
                     ? tune_journal_save(state_path, &j, err, errlen)
                     : 0;
        tune_plan_free(&j.changes);
        if (rc != 0)
            return -1;
    }
    if (values != 0) {
        snprintf(err, errlen, "not back: %s", failed);
        return -1;
    }
    return 0;
}
