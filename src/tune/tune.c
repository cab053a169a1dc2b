/*
 * The mechanism of reversible tuning: the journal (a small JSON state file
 * written atomically and fsynced before the first change), apply, restore
 * with verification, and the stale-journal warning that every jitterlab
 * invocation prints after a run died before restoring. What to change lives
 * in tune_actions.c, the plan as data in tune_plan.c; this file only knows
 * paths and values.
 */
#include "tune/tune.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/atomic_file.h"
#include "common/json_text.h"
#include "common/safe_text.h"
#include "sys/sysroot.h"
#include "tune/tune_dirs.h"

static void free_strings(char **list, int n)
{
    for (int i = 0; list && i < n; i++)
        free(list[i]);
    free(list);
}

/* ---- journal -------------------------------------------------------------- */

static const char *mode_names[] = {"apply", "run", "hold"};

/* Why the directory of the journal cannot be trusted, or NULL: anyone who
 * can replace the journal could make root write what they want. */
static const char *state_dir_refusal(const char *state_path, char *buf, size_t len)
{
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", state_path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    struct stat st;
    if (stat(dir, &st) != 0)
        return NULL; /* made by make_parent_dir, or the open fails and says so */
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
        snprintf(buf, len, "%s: its directory %s is writable by others (and not sticky)",
                 state_path, dir);
        return buf;
    }
    if (st.st_uid != geteuid() && st.st_uid != 0) {
        snprintf(buf, len, "%s: its directory %s belongs to user %u, not to you or root",
                 state_path, dir, (unsigned)st.st_uid);
        return buf;
    }
    return NULL;
}

/* Opens the journal for reading: 0 (*fp set, *owner its owner), 1 absent,
 * -1 refused. Without trust only a regular file is asked for: what is read
 * then is only told, never written. */
static int journal_open(const char *state_path, FILE **fp, bool trust, uid_t *owner, char *err,
                        size_t errlen)
{
    *fp = NULL;
    if (trust && state_dir_refusal(state_path, err, errlen))
        return -1;
    int fd = open(state_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT)
        return 1;
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", state_path,
                 errno == ELOOP ? "is a symbolic link; refused" : strerror(errno));
        return -1;
    }
    struct stat st;
    const char *why = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        why = "not a regular file";
    else if (!trust)
        why = NULL;
    else if (st.st_uid != geteuid())
        why = "owned by another user";
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        why = "writable by group or others";
    if (why) {
        snprintf(err, errlen, "%s: %s; refused (it says which files to write as root)", state_path,
                 why);
        close(fd);
        return -1;
    }
    *owner = st.st_uid;
    *fp = fdopen(fd, "r");
    if (!*fp) {
        snprintf(err, errlen, "%s: %s", state_path, strerror(errno));
        close(fd);
        return -1;
    }
    return 0;
}

/*
 * A string field of the journal: with "escaped" (journals since machine
 * strings are stored in their text form) the bytes it stands for, in
 * *owned (the caller frees it); NULL if absent or not a text form.
 */
static const char *journal_string(json_t *o, const char *key, bool escaped, char **owned)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s || !escaped)
        return s;
    size_t n = strlen(s) + 1;
    *owned = malloc(n);
    if (*owned && safe_text_decode(s, *owned, n) >= 0)
        return *owned;
    return NULL;
}

static int journal_load(const char *state_path, struct tune_journal *j, bool trust, uid_t *owner,
                        char *err, size_t errlen)
{
    memset(j, 0, sizeof(*j));
    FILE *fp;
    int opened = journal_open(state_path, &fp, trust, owner, err, errlen);
    if (opened != 0)
        return opened;
    json_error_t jerr;
    json_t *doc = json_loadf(fp, 0, &jerr);
    fclose(fp);
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
    bool escaped = json_is_true(json_object_get(doc, "escaped"));
    char *owned[5] = {NULL};
    const char *sr = journal_string(doc, "sysroot", escaped, &owned[0]);
    snprintf(j->sysroot, sizeof(j->sysroot), "%s", sr ? sr : "");
    const char *created = journal_string(doc, "created_at", escaped, &owned[1]);
    snprintf(j->created_at, sizeof(j->created_at), "%s", created ? created : "");
    free(owned[0]);
    free(owned[1]);
    size_t i;
    json_t *c;
    json_array_foreach(changes, i, c)
    {
        const char *action = json_string_value(json_object_get(c, "action"));
        for (int k = 0; k < 4; k++)
            owned[k] = NULL;
        const char *path = journal_string(c, "path", escaped, &owned[0]);
        const char *old_value = journal_string(c, "old", escaped, &owned[1]);
        const char *new_value = journal_string(c, "new", escaped, &owned[2]);
        const char *what = journal_string(c, "what", escaped, &owned[3]);
        /* "op" is optional: journals before cache-partition hold writes only */
        json_t *op_field = json_object_get(c, "op");
        int op =
            op_field
                ? tune_op_from_name(json_string_value(op_field) ? json_string_value(op_field) : "")
                : TUNE_OP_WRITE;
        if (op > TUNE_OP_WRITE) {
            old_value = old_value ? old_value : "";
            new_value = new_value ? new_value : "";
        }
        const char *why = NULL;
        if (op < 0) {
            snprintf(err, errlen, "%s: change %zu has an unknown op; refused, nothing written",
                     state_path, i);
            why = "unknown op";
        } else if (!action || !path || !old_value || !new_value) {
            snprintf(err, errlen, "%s: change %zu is incomplete", state_path, i);
            why = "incomplete";
        } else if ((why = tune_op_refusal(action, (enum tune_op)op, path)) != NULL) {
            snprintf(err, errlen, "%s: change %zu (%s %.200s): %s; refused, nothing written",
                     state_path, i, action, path, why);
        } else {
            if (op == TUNE_OP_WRITE)
                tune_plan_add(&j->changes, action, path, old_value, new_value, what);
            else
                tune_plan_add_op(&j->changes, (enum tune_op)op, action, path, what);
            if (j->changes.out_of_memory) {
                snprintf(err, errlen, "%s: out of memory at change %zu", state_path, i);
                why = "out of memory";
            }
        }
        for (int k = 0; k < 4; k++)
            free(owned[k]);
        if (why) {
            tune_plan_free(&j->changes);
            json_decref(doc);
            return -1;
        }
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
    if (state_dir_refusal(state_path, err, errlen))
        return -1;
    json_t *doc = json_object();
    json_object_set_new(doc, "tool", json_string("jitterlab"));
    json_object_set_new(doc, "schema", json_integer(1));
    json_object_set_new(doc, "kind", json_string("tune-state"));
    json_object_set_new(doc, "created_at", json_text_new(j->created_at));
    json_object_set_new(doc, "mode", json_string(mode_names[j->mode]));
    json_object_set_new(doc, "pid", json_integer(j->pid));
    json_object_set_new(doc, "complete", json_boolean(j->complete));
    json_object_set_new(doc, "sysroot", json_text_new(j->sysroot));
    /* machine strings below are in their text form (common/safe_text.h) */
    json_object_set_new(doc, "escaped", json_true());
    json_t *arr = json_array();
    for (int i = 0; i < j->changes.n; i++) {
        const struct tune_change *c = &j->changes.change[i];
        json_t *e = json_pack("{s:s,s:o,s:o,s:o,s:o}", "action", c->action, "path",
                              json_text_new(c->path), "what", json_text_new(c->what), "old",
                              json_text_new(c->old_value), "new", json_text_new(c->new_value));
        if (c->op != TUNE_OP_WRITE) /* absent = write: older journals read the same */
            json_object_set_new(e, "op", json_string(tune_op_name(c->op)));
        json_array_append_new(arr, e);
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

/* ---- lock ----------------------------------------------------------------- */

int tune_lock(const char *state_path, enum tune_mode mode, int *fd, char *err, size_t errlen)
{
    char lock_path[4200];
    *fd = -1;
    snprintf(lock_path, sizeof(lock_path), "%s.lock", state_path);
    if (state_dir_refusal(state_path, err, errlen))
        return -1;
    if (make_parent_dir(state_path) != 0) {
        snprintf(err, errlen, "cannot make the directory of %s: %s", state_path, strerror(errno));
        return -1;
    }
    int lfd = open(lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (lfd < 0) {
        snprintf(err, errlen, "cannot open the lock %s: %s", lock_path, strerror(errno));
        return -1;
    }
    if (flock(lfd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        char holder[64] = "";
        ssize_t n = pread(lfd, holder, sizeof(holder) - 1, 0);
        holder[n > 0 ? n : 0] = '\0';
        holder[strcspn(holder, "\n")] = '\0';
        if (e == EWOULDBLOCK)
            snprintf(err, errlen,
                     "%s is in use by jitterlab pid %s; it restores its settings when it "
                     "ends (one tuning session at a time)",
                     state_path, holder[0] ? holder : "?");
        else
            snprintf(err, errlen, "cannot lock %s: %s", lock_path, strerror(e));
        close(lfd);
        return e == EWOULDBLOCK ? 1 : -1;
    }
    char me[64];
    int len = snprintf(me, sizeof(me), "%ld (%s)\n", (long)getpid(), mode_names[mode]);
    if (ftruncate(lfd, 0) != 0 || pwrite(lfd, me, (size_t)len, 0) != len) {
        /* the lock holds without the note; only the message loses the pid */
    }
    *fd = lfd;
    return 0;
}

void tune_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* drops the flock */
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

static int machine_write(const struct tune_io *io, const struct sysroot *sr, const char *path,
                         const char *value)
{
    (void)io;
    return sysroot_write_string(sr, path, value);
}

static int machine_read(const struct tune_io *io, const struct sysroot *sr, const char *path,
                        char **value)
{
    (void)io;
    return sysroot_read_value(sr, path, value);
}

const struct tune_io tune_io_machine = {machine_write, machine_read, NULL};

/* Writes "value\n", as echo does: every sysfs/procfs file here takes it, and
 * a restored file reads back byte for byte as the kernel printed it. Returns
 * 0 when the whole value reads back, else -errno (-EIO: it reads back
 * different). Only paths the actions write are ever opened. */
static int write_and_check(const struct tune_io *io, const struct sysroot *sr,
                           const struct tune_change *c, const char *value)
{
    if (tune_path_refusal(c->action, c->path))
        return -EPERM;
    size_t len = strlen(value);
    char *line = malloc(len + 2);
    if (!line)
        return -ENOMEM;
    memcpy(line, value, len);
    memcpy(line + len, "\n", 2);
    int rc = io->write(io, sr, c->path, line);
    free(line);
    if (rc != 0)
        return rc;
    char *back = NULL;
    rc = io->read(io, sr, c->path, &back);
    if (rc >= 0)
        rc = tune_value_matches_at(c->path, value, back) ? 0 : -EIO;
    free(back);
    return rc;
}

int tune_write_checked(const struct tune_io *io, const struct sysroot *sr,
                       const struct tune_change *c, const char *value)
{
    return write_and_check(io ? io : &tune_io_machine, sr, c, value);
}

/* Whether the file already holds value (a restore that finds it back). */
static bool reads_as(const struct tune_io *io, const struct sysroot *sr, const char *path,
                     const char *value)
{
    char *now = NULL;
    bool same = io->read(io, sr, path, &now) >= 0 && tune_value_matches_at(path, value, now);
    free(now);
    return same;
}

/*
 * Writes the old or new value of each change in the order given. Some kernel
 * files depend on others: intel_pstate and amd-pstate refuse an EPP write
 * with EBUSY while the governor is performance, so a restore must put the
 * governor back first. The plan orders them right; a write refused with
 * EBUSY is also retried once after all the others, for journals that hold
 * another order. rc[i] is 0 or -errno.
 */
static void write_in_order(const struct tune_io *io, const struct tune_dir_io *dirs,
                           const struct sysroot *sr, struct tune_change *const *order, int n,
                           bool restore, int *rc)
{
    for (int i = 0; i < n; i++) {
        const struct tune_change *c = order[i];
        const char *value = restore ? c->old_value : c->new_value;
        if (c->op != TUNE_OP_WRITE)
            rc[i] = tune_dir_step(dirs, sr, c, restore);
        else if (restore && tune_inside_made_dir(order, n, c))
            rc[i] = 0; /* the rmdir of its directory, later in this order, undoes it */
        else
            rc[i] =
                restore && reads_as(io, sr, c->path, value) ? 0 : write_and_check(io, sr, c, value);
        write_delay();
    }
    for (int i = 0; i < n; i++)
        if (rc[i] == -EBUSY && order[i]->op == TUNE_OP_WRITE)
            rc[i] = write_and_check(io, sr, order[i],
                                    restore ? order[i]->old_value : order[i]->new_value);
}

/* The order to write: the plan's for an apply, the reverse for a restore. */
static int write_changes(const struct tune_io *io, const struct tune_dir_io *dirs,
                         const struct sysroot *sr, struct tune_plan *changes, bool restore,
                         int **rc_out)
{
    int n = changes->n;
    struct tune_change **order = malloc((size_t)(n ? n : 1) * sizeof(*order));
    int *rc = calloc((size_t)(n ? n : 1), sizeof(*rc));
    if (!order || !rc) {
        free(order);
        free(rc);
        return -1;
    }
    for (int i = 0; i < n; i++)
        order[i] = &changes->change[restore ? n - 1 - i : i];
    write_in_order(io, dirs, sr, order, n, restore, rc);
    if (restore) { /* back to plan order for the caller */
        for (int i = 0; i < n / 2; i++) {
            int t = rc[i];
            rc[i] = rc[n - 1 - i];
            rc[n - 1 - i] = t;
        }
    }
    free(order);
    *rc_out = rc;
    return 0;
}

int tune_apply(const struct sysroot *sr, struct tune_plan *plan, const char *state_path,
               enum tune_mode mode, const struct tune_io *io, struct tune_result *res, char *err,
               size_t errlen)
{
    return tune_apply_with(sr, plan, state_path, mode, io, NULL, res, err, errlen);
}

int tune_apply_with(const struct sysroot *sr, struct tune_plan *plan, const char *state_path,
                    enum tune_mode mode, const struct tune_io *io, const struct tune_dir_io *dirs,
                    struct tune_result *res, char *err, size_t errlen)
{
    if (!io)
        io = &tune_io_machine;
    memset(res, 0, sizeof(*res));
    for (int i = 0; i < plan->n; i++) {
        const struct tune_change *c = &plan->change[i];
        const char *why = tune_op_refusal(c->action, c->op, c->path);
        if (why) {
            snprintf(err, errlen, "%s: %s", plan->change[i].path, why);
            return -1;
        }
    }
    static struct tune_journal j;
    int loaded = tune_journal_load(state_path, &j, err, errlen);
    if (loaded < 0)
        return -1;
    if (loaded == 0 && j.changes.n > 0 && mode != TUNE_MODE_APPLY) {
        /* Its end-of-session restore would undo those settings too. */
        snprintf(err, errlen,
                 "%s holds %d setting%s changed by jitterlab tune %s (pid %ld, %s); "
                 "`jitterlab tune restore` them first",
                 state_path, j.changes.n, j.changes.n == 1 ? "" : "s", mode_names[j.mode], j.pid,
                 j.created_at);
        tune_plan_free(&j.changes);
        return -1;
    }
    if (loaded == 1 || j.changes.n == 0) {
        j.mode = mode;
        rfc3339_now(j.created_at, sizeof(j.created_at));
    } else if (strcmp(j.sysroot, sr->prefix) != 0) {
        snprintf(err, errlen, "%s holds changes to another tree (%s); restore those first",
                 state_path, j.sysroot[0] ? j.sysroot : "/");
        tune_plan_free(&j.changes);
        return -1;
    }
    j.pid = (long)getpid();
    j.complete = false;
    snprintf(j.sysroot, sizeof(j.sysroot), "%s", sr->prefix);
    /* Extend: an existing entry keeps its original old value (and, should
     * this apply's write be refused, the new value of the earlier apply). */
    int before = j.changes.n;
    char **earlier = calloc((size_t)(plan->n ? plan->n : 1), sizeof(*earlier));
    for (int i = 0; i < plan->n && earlier; i++) {
        const struct tune_change *c = &plan->change[i];
        int k = tune_plan_find(&j.changes, c->path);
        if (k >= 0 && !(earlier[i] = strdup(j.changes.change[k].new_value)))
            j.changes.out_of_memory = true;
        if (c->op == TUNE_OP_WRITE)
            tune_plan_add(&j.changes, c->action, c->path, c->old_value, c->new_value, c->what);
        else
            tune_plan_add_op(&j.changes, c->op, c->action, c->path, c->what);
    }
    int *rc = NULL;
    bool oom = !earlier || j.changes.out_of_memory;
    if (oom || tune_journal_save(state_path, &j, err, errlen) != 0 ||
        (oom = write_changes(io, dirs, sr, plan, false, &rc) != 0)) {
        if (oom)
            snprintf(err, errlen, "out of memory");
        free_strings(earlier, plan->n);
        tune_plan_free(&j.changes);
        return -1;
    }
    for (int i = 0; i < plan->n; i++) {
        struct tune_change *c = &plan->change[i];
        c->state = rc[i] == 0 ? TUNE_CHANGE_APPLIED : TUNE_CHANGE_REFUSED;
        if (rc[i] == 0) {
            res->applied++;
            continue;
        }
        res->refused++;
        size_t used = strlen(res->refused_list);
        snprintf(res->refused_list + used, sizeof(res->refused_list) - used, "%s%s",
                 used ? ", " : "", c->path);
        /* A refused write normally left the old value; the journal then
         * forgets this apply's entry. One that did not stays, for restore. */
        /* A refused mkdir or mount found the directory or mount there (or
         * could not make it): not ours to undo. A file that is not there
         * (its group was not made) did not change either. */
        if (c->op == TUNE_OP_WRITE && rc[i] != -ENOENT &&
            write_and_check(io, sr, c, c->old_value) != 0 &&
            !reads_as(io, sr, c->path, c->old_value))
            continue;
        int k = tune_plan_find(&j.changes, c->path);
        if (k >= before)
            tune_plan_remove(&j.changes, k);
        else if (k >= 0 && earlier[i]) /* back to the earlier apply's new value */
            tune_plan_add(&j.changes, c->action, c->path, c->old_value, earlier[i], c->what);
    }
    free(rc);
    free_strings(earlier, plan->n);
    j.complete = true;
    res->journaled = j.changes.n;
    int saved = j.changes.n > 0 || unlink(state_path) != 0
                    ? tune_journal_save(state_path, &j, err, errlen)
                    : 0; /* nothing changed by jitterlab: no snapshot */
    tune_plan_free(&j.changes);
    return saved;
}

/* A value for a message: whole when short, else its start and its length. */
static void shown(char *buf, size_t len, const char *value)
{
    size_t n = strlen(value);
    if (n <= 120)
        snprintf(buf, len, "%s", value);
    else
        snprintf(buf, len, "%.100s... (%zu characters)", value, n);
}

int tune_restore(const char *state_path, const struct tune_io *io, char *failed, size_t failedlen,
                 int *restored, char *err, size_t errlen)
{
    return tune_restore_with(state_path, io, NULL, failed, failedlen, restored, err, errlen);
}

int tune_restore_with(const char *state_path, const struct tune_io *io,
                      const struct tune_dir_io *dirs, char *failed, size_t failedlen, int *restored,
                      char *err, size_t errlen)
{
    if (!io)
        io = &tune_io_machine;
    static struct tune_journal j;
    failed[0] = '\0';
    *restored = 0;
    int loaded = tune_journal_load(state_path, &j, err, errlen);
    if (loaded != 0)
        return loaded;
    struct sysroot sr;
    sysroot_init(&sr, j.sysroot);
    int *rc = NULL;
    if (write_changes(io, dirs, &sr, &j.changes, true, &rc) != 0) {
        snprintf(err, errlen, "out of memory");
        tune_plan_free(&j.changes);
        return -1;
    }
    int bad = 0;
    for (int i = j.changes.n - 1; i >= 0; i--) {
        const struct tune_change *c = &j.changes.change[i];
        if (rc[i] == 0) {
            (*restored)++;
            continue;
        }
        size_t used = strlen(failed);
        if (c->op != TUNE_OP_WRITE) {
            snprintf(failed + used, failedlen - used, "  %s: %s (%s)\n", c->path,
                     c->op == TUNE_OP_MKDIR ? "rmdir failed" : "umount failed", strerror(-rc[i]));
            bad++;
            continue;
        }
        char *now = NULL;
        char is[160], should[160];
        io->read(io, &sr, c->path, &now);
        shown(is, sizeof(is), now ? now : "?");
        shown(should, sizeof(should), c->old_value);
        free(now);
        snprintf(failed + used, failedlen - used, "  %s: is %s, should be %s (%s)\n", c->path, is,
                 should, rc[i] == -EIO ? "reads back different" : strerror(-rc[i]));
        bad++;
    }
    free(rc);
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

int tune_journal_load(const char *state_path, struct tune_journal *j, char *err, size_t errlen)
{
    uid_t owner;
    return journal_load(state_path, j, true, &owner, err, errlen);
}

/* Only a session that died before restoring is worth a word: a finished
 * `tune apply` keeps its journal on purpose, and a journal this user may
 * not act on (root's, for a normal user) is read, not judged: restore
 * checks trust, a warning only tells. A journal this user cannot read at
 * all says nothing either way. */
void tune_stale_warning(const char *state_path, char *buf, size_t len)
{
    buf[0] = '\0';
    static const char *const what[] = {"a `jitterlab tune apply` that did not finish",
                                       "a `jitterlab run --tune`", "a `jitterlab tune hold`"};
    static struct tune_journal j;
    char err[256];
    uid_t owner = geteuid();
    int loaded = journal_load(state_path, &j, false, &owner, err, sizeof(err));
    if (loaded != 0) {
        if (loaded < 0 && errno != EACCES && owner == geteuid())
            snprintf(buf, len, "%s", err); /* this user's own journal is damaged */
        return;
    }
    bool alive = j.pid > 0 && (kill((pid_t)j.pid, 0) == 0 || errno == EPERM);
    if (!alive && (j.mode != TUNE_MODE_APPLY || !j.complete))
        snprintf(buf, len,
                 "%s (pid %ld, started %s) ended without putting back %d setting%s it "
                 "changed; the machine may still run with them. %s `jitterlab tune restore` "
                 "puts them back (journal: %s)",
                 what[j.mode], j.pid, j.created_at, j.changes.n, j.changes.n == 1 ? "" : "s",
                 owner == geteuid() ? "Running" : "As root,", state_path);
    tune_plan_free(&j.changes);
}
