/*
 * Reversible tuning. A plan is a list of changes (path, old value, new
 * value), built by the actions of tune_actions.c from what the machine shows
 * now. Before the first write the old values go to a state file (the
 * journal, fsynced); restore writes them back, checks them and removes the
 * journal only when every value is back. A second apply extends the journal
 * and keeps the first snapshot's old values. A change may also make a
 * directory or a mount (cache-partition's resctrl group), undone by rmdir or
 * umount. PM QoS is not a file change: the
 * kernel drops the request when its holder closes the file, so it is held by
 * a process (run --tune, tune hold), never left behind.
 */
#ifndef JITTERLAB_TUNE_TUNE_H
#define JITTERLAB_TUNE_TUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/cpulist.h"
#include "sys/sysroot.h"

#define TUNE_DEFAULT_STATE "/run/jitterlab/tune-state.json"
/* The longest hold (tune hold -D): a year. */

enum tune_profile_bits {
    TUNE_PROFILE_LATENCY = 1u << 0,
    TUNE_PROFILE_REALTIME = 1u << 1,
};

enum tune_change_state { TUNE_CHANGE_PLANNED, TUNE_CHANGE_APPLIED, TUNE_CHANGE_REFUSED };

/* What a change does. Most write a file; cache-partition also makes a
 * resctrl group (undone by rmdir) and mounts resctrl (undone by umount).
 * The journal's "op" field names it, absent meaning write (older journals). */
enum tune_op { TUNE_OP_WRITE, TUNE_OP_MKDIR, TUNE_OP_MOUNT };

/* Strings are on the heap, of any length (an IRQ affinity list of a
 * 256-CPU machine is 456 characters); tune_plan_free frees them. */
struct tune_change {
    char action[24];
    enum tune_op op; /* mkdir and mount: old_value and new_value are "" */
    char *path;      /* as on the machine, without the sysroot prefix */
    char *what;      /* for people: "CPU 1 idle state C6 (exit 85 us)" */
    char *old_value;
    char *new_value;
    enum tune_change_state state; /* set by tune_apply */
};

struct tune_plan {
    int n, cap;
    struct tune_change *change;
    int nnotes;
    char note[32][200]; /* what an action found nothing to do about, and why */
    bool out_of_memory; /* a change could not be added */
    /* An action that cannot plan without breaking a rule (cache-partition:
     * no free CLOSID, too many ways): "--cache-ways 12: why" or
     * "cache-partition: why"; the plan is then not applied (exit 2). */
    char refusal[300];
};

struct tune_request {
    const struct sysroot *sr;
    struct cpulist targets;
    int64_t budget_ns;
    int64_t freq_khz; /* 0: the highest the policy allows */
    int boost;        /* -1: leave alone, 0: off, 1: on */
    uint32_t actions; /* bit per tune_action index */
    /* cache-partition */
    int cache_ways;                  /* 0: a quarter of the ways (or the working set's) */
    const char *cache_group;         /* NULL: TUNE_CACHE_GROUP */
    int mba_pct;                     /* 0: leave the default group's bandwidth alone */
    uint64_t cache_working_set_size; /* run --workload ptrchase:SIZE, bytes; 0 = none */
};

#define TUNE_CACHE_GROUP "jitterlab-rt"

/* The exit latency an idle state (or the PM QoS limits) may have for a
 * latency budget: half of it, the other half being left to the wake-up path
 * itself. inspect's cstate-exit-latency finding uses the same limit. */
static inline int64_t tune_exit_latency_limit_ns(int64_t budget_ns)
{
    return budget_ns / 2;
}

struct tune_action {
    const char *name;
    const char *summary;
    unsigned profiles; /* enum tune_profile_bits; 0 = opt-in only (--only) */
    /* Where its writes land, NULL-terminated: a prefix ending in '/' is a
     * directory, anything else one file. The allow-list of apply and restore
     * is this column and nothing else. */
    const char *const *writes;
    /* Adds the changes this action wants, reading current values. */
    void (*plan)(const struct tune_request *rq, struct tune_plan *plan);
};

/* The action table (tune_actions.c). */
extern const struct tune_action tune_actions[];
extern const int tune_action_count;
/* Index of a named action, or -1. */
int tune_action_find(const char *name);
/* Actions of a profile ("latency", "realtime"), or 0 for an unknown name. */
uint32_t tune_profile_actions(const char *profile);
/* The action mask of a profile (NULL = latency) or of an --only list
 * ("a,b"); 0 with *bad_opt ("--only" or "--profile") and why. */
uint32_t tune_actions_for(const char *profile, const char *only, const char **bad_opt, char *why,
                          size_t whylen);
/* NULL when the action of that name may write path; else why not (an
 * unknown action, a "." or ".." component, a path outside its writes). */
const char *tune_path_refusal(const char *action, const char *path);

void tune_plan_add(struct tune_plan *plan, const char *action, const char *path,
                   const char *old_value, const char *new_value, const char *what);
/* A mkdir or mount change (path: the directory). */
void tune_plan_add_op(struct tune_plan *plan, enum tune_op op, const char *action, const char *path,
                      const char *what);
/* "write", "mkdir", "mount"; and back (-1 for an unknown name). */
const char *tune_op_name(enum tune_op op);
int tune_op_from_name(const char *name);
/* NULL when an op may touch path: a mkdir only a plain group name right
 * below /sys/fs/resctrl, a mount only /sys/fs/resctrl itself (and only
 * cache-partition); else why not. */
const char *tune_op_refusal(const char *action, enum tune_op op, const char *path);
/* A resctrl group name jitterlab makes: [A-Za-z0-9_-], 1..48 characters,
 * not info, mon_groups or mon_data. */
bool tune_group_name_ok(const char *name);
void tune_plan_note(struct tune_plan *plan, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void tune_plan_free(struct tune_plan *plan);
/* Index of the change of path, or -1; tune_plan_remove drops change k. */
int tune_plan_find(const struct tune_plan *plan, const char *path);
void tune_plan_remove(struct tune_plan *plan, int k);
/* 0, -1 out of memory, -2 refused (plan->refusal says why; apply nothing). */
int tune_plan_build(const struct tune_request *rq, struct tune_plan *plan);

/* How a journal was made: a run or hold restores at its end; an apply stays. */
enum tune_mode { TUNE_MODE_APPLY, TUNE_MODE_RUN, TUNE_MODE_HOLD };

struct tune_journal {
    enum tune_mode mode;
    long pid;
    bool complete; /* every write of the last apply was attempted */
    char sysroot[4096];
    char created_at[40];
    struct tune_plan changes; /* old_value = the value before the first apply */
};

/* 0 loaded, 1 no journal, -1 unreadable or untrusted (err says why): the
 * journal must be a regular file (no symlink) owned by the effective user and
 * writable by nobody else, in a directory others cannot write to (unless
 * sticky), and every change must pass tune_path_refusal. */
int tune_journal_load(const char *state_path, struct tune_journal *j, char *err, size_t errlen);
int tune_journal_save(const char *state_path, const struct tune_journal *j, char *err,
                      size_t errlen);

/* The journal's lock (STATE.lock beside it, flock): taken for each apply and
 * restore, and for the whole of a run --tune or tune hold, so that one
 * session never restores another's settings. Returns 0 (*fd holds it), 1
 * when another process holds it (err names its pid), -1 on error. */
int tune_lock(const char *state_path, enum tune_mode mode, int *fd, char *err, size_t errlen);
void tune_unlock(int fd);

/* How values reach the machine. Tests model kernel rules (EBUSY) with their
 * own; NULL means tune_io_machine. */
struct tune_io {
    /* 0 or -errno */
    int (*write)(const struct tune_io *io, const struct sysroot *sr, const char *path,
                 const char *value);
    /* the length of *value (heap, caller frees) or -errno */
    int (*read)(const struct tune_io *io, const struct sysroot *sr, const char *path, char **value);
    void *ctx;
};
/* sysroot_write_string / sysroot_read_value: no symlinks, never outside. */
extern const struct tune_io tune_io_machine;

/* Directories and mounts (cache-partition's resctrl group and mount), kept
 * apart from struct tune_io so that file-only test doubles stay as they are.
 * Each returns 0 or -errno; a NULL member means tune_dir_io_machine's. */
struct tune_dir_io {
    int (*mkdir)(const struct tune_dir_io *io, const struct sysroot *sr, const char *path);
    int (*rmdir)(const struct tune_dir_io *io, const struct sysroot *sr, const char *path);
    int (*mount)(const struct tune_dir_io *io, const struct sysroot *sr, const char *fstype,
                 const char *path);
    int (*umount)(const struct tune_dir_io *io, const struct sysroot *sr, const char *path);
    void *ctx;
};
/* mkdirat/unlinkat(AT_REMOVEDIR) in the parent opened beneath the sysroot
 * (no symlinks, never outside); mount(2)/umount2(2) only on the live
 * machine (sysroot ""), else -EOPNOTSUPP. */
extern const struct tune_dir_io tune_dir_io_machine;

/* Outcome of writing one value. */
struct tune_result {
    int applied;
    int refused; /* the kernel said no; the value did not change */
    char refused_list[1024];
    int journaled; /* changes the journal holds afterwards (0: no journal left) */
};

/* Journals, then writes every change of the plan (marking each applied or
 * refused). A refused change that left its file as it was is then dropped
 * from the journal again (an entry of an earlier apply keeps its values), so
 * status and restore know only what changed; a journal left empty is
 * removed. A run or hold refuses a journal that already holds changes: its
 * restore would undo them. Returns 0 (refusals included: see res), or -1
 * when nothing was changed (err says why). */
int tune_apply(const struct sysroot *sr, struct tune_plan *plan, const char *state_path,
               enum tune_mode mode, const struct tune_io *io, struct tune_result *res, char *err,
               size_t errlen);
/* Writes the journal's old values back in reverse order (a write refused
 * with EBUSY is retried after the others), verifies each in full; removes
 * the journal when all are back. Returns 0, 1 when there is no journal, -1
 * when some value could not be restored (listed in failed) or the journal is
 * refused (err). */
int tune_restore(const char *state_path, const struct tune_io *io, char *failed, size_t failedlen,
                 int *restored, char *err, size_t errlen);
/* The same with directory and mount operations (dirs NULL: the machine's).
 * A restore undoes a mount with umount and a mkdir with rmdir (after the
 * changes journaled after it, in reverse order); a file inside a directory
 * jitterlab made is not written back (the rmdir takes it). An rmdir of an
 * absent directory and an umount of what is not mounted succeed: after a
 * crash half-way, the steps that never happened are no error. */
int tune_apply_with(const struct sysroot *sr, struct tune_plan *plan, const char *state_path,
                    enum tune_mode mode, const struct tune_io *io, const struct tune_dir_io *dirs,
                    struct tune_result *res, char *err, size_t errlen);
int tune_restore_with(const char *state_path, const struct tune_io *io,
                      const struct tune_dir_io *dirs, char *failed, size_t failedlen, int *restored,
                      char *err, size_t errlen);
/* Writes value ("value\n", as echo does) to the file of change c and reads
 * it back: 0 when the whole value reads back, else -errno (-EIO: it reads
 * back different). Only paths c's action writes are opened. */
int tune_write_checked(const struct tune_io *io, const struct sysroot *sr,
                       const struct tune_change *c, const char *value);
/* One apply undone while the others stay (doctor's treatment; the caller
 * holds the journal's lock): the write changes plan applied get their old
 * value back in reverse order, each checked, and the journal forgets the
 * entries this apply added (those whose path earlier, the journal as it was
 * before the apply, lacks); an entry of an earlier apply keeps its values.
 * A journal left empty is removed. 0, or -1 with err (the values not back,
 * which stay journaled, or the journal). */
int tune_put_back(const struct sysroot *sr, const struct tune_plan *plan,
                  const struct tune_plan *earlier, const char *state_path, const struct tune_io *io,
                  char *err, size_t errlen);
/* Each applied write change of plan set to its old (after false) or new
 * value again, checked; the journal is left as it is (it still holds the
 * old values). An A/B's arms. 0, or -1 with err. */
int tune_plan_set(const struct sysroot *sr, const struct tune_plan *plan, bool after,
                  const struct tune_io *io, char *err, size_t errlen);
/* Whether a value read back equals the one written ("always [madvise]
 * never" matches "madvise"; surrounding blanks ignored). */
bool tune_value_matches(const char *written, const char *read_back);
/* The same for the file at path: a resctrl schemata file matches when each
 * written line's domains hold the written values (the kernel pads names and
 * masks and prints every resource). */
bool tune_value_matches_at(const char *path, const char *written, const char *read_back);
/* A warning line when a journal was left by a jitterlab process that died
 * before restoring (run or hold), or in the middle of an apply; "" if none. */
void tune_stale_warning(const char *state_path, char *buf, size_t len);

/* What a run measured under: its result document's config.tune. */
struct tune_summary {
    const char *profile;
    int64_t budget_ns;
    const struct tune_plan *plan; /* changes with their state, and the notes */
};

#endif
