/*
 * Walks /proc/[pid]/task/[tid] through the sysroot. The stat line's comm can
 * hold blanks and parentheses, so the fields are counted from the last ')'.
 * Threads come and go while we walk: a thread whose files vanished is
 * skipped, not noted. Only threads that touch a target CPU are kept, up to
 * TASKS_MAX_KEPT; the rest are only counted.
 */
#include "sys/tasks.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fields after the comm, counting the state as field 3 (proc(5)). */
#define STAT_FLAGS       9
#define STAT_PROCESSOR   39
#define STAT_RT_PRIORITY 40
#define STAT_POLICY      41

int task_parse_stat(const char *stat, struct task_info *t)
{
    const char *open = strchr(stat, '(');
    const char *close = strrchr(stat, ')');
    if (!open || !close || close < open)
        return -1;
    char *end = NULL;
    long pid = strtol(stat, &end, 10);
    if (end == stat || pid <= 0)
        return -1;
    size_t n = (size_t)(close - open - 1);
    if (n >= sizeof t->comm)
        n = sizeof t->comm - 1;
    memcpy(t->comm, open + 1, n);
    t->comm[n] = '\0';
    t->tid = (int)pid;
    t->processor = -1;

    const char *p = close + 1;
    int field = 2;
    unsigned long long flags = 0;
    bool have_flags = false;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p || *p == '\n')
            break;
        field++;
        const char *tok = p;
        while (*p && *p != ' ' && *p != '\n')
            p++;
        if (field == 3)
            t->state = *tok;
        else if (field == STAT_FLAGS) {
            flags = strtoull(tok, NULL, 10);
            have_flags = true;
        } else if (field == STAT_PROCESSOR)
            t->processor = (int)strtol(tok, NULL, 10);
        else if (field == STAT_RT_PRIORITY)
            t->rt_priority = (int)strtol(tok, NULL, 10);
        else if (field == STAT_POLICY)
            t->policy = (int)strtol(tok, NULL, 10);
    }
    if (!have_flags || !isalpha((unsigned char)t->state))
        return -1;
    t->kernel_thread = (flags & PF_KTHREAD_FLAG) != 0;
    return 0;
}

/* "Cpus_allowed_list:\t0-3" from a status text (scratch: the line is cut
 * there with a NUL). The key only at the start of a line: the "Name:" line
 * above it is the task's own choice. The list itself, not a copy: a big
 * machine's list ("64,66,68,...") outgrows the task's short text. */
char *task_status_allowed_list(char *status)
{
    const char *key = "Cpus_allowed_list:";
    char *p = status;
    while (p && strncmp(p, key, strlen(key)) != 0)
        p = (p = strchr(p, '\n')) ? p + 1 : NULL;
    if (!p)
        return NULL;
    p += strlen(key);
    while (*p == ' ' || *p == '\t')
        p++;
    p[strcspn(p, "\n")] = '\0';
    return p;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

struct walk {
    const struct sysroot *sr;
    const struct cpulist *targets;
    struct cpulist *allowed; /* scratch */
    struct task_table *out;
    struct read_notes *notes;
    char *status; /* scratch, STATUS_MAX */
};

#define STATUS_MAX 8192

static void look_at_thread(struct walk *w, int pid, int tid)
{
    char path[128], stat[1024];
    struct task_info t;
    memset(&t, 0, sizeof t);
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", pid, tid);
    if (sysroot_read_string(w->sr, path, stat, sizeof stat) <= 0)
        return; /* gone */
    if (task_parse_stat(stat, &t) != 0) {
        read_notes_add(w->notes, path, "not a stat line");
        return;
    }
    t.pid = pid;
    t.tid = tid;
    snprintf(path, sizeof path, "/proc/%d/task/%d/status", pid, tid);
    if (sysroot_read_string(w->sr, path, w->status, STATUS_MAX) <= 0)
        return;
    w->out->scanned++;
    const char *why = NULL;
    const char *allowed = task_status_allowed_list(w->status);
    if (!allowed || cpulist_parse(allowed, w->allowed, &why) != 0) {
        read_notes_add(w->notes, path, "no readable Cpus_allowed_list");
        return;
    }
    cpulist_text_shorten(t.cpus_allowed, sizeof t.cpus_allowed, allowed);
    t.per_cpu = w->allowed->count == 1;
    t.only_targets = w->allowed->count > 0;
    for (int i = 0; i < w->allowed->count; i++) {
        if (cpulist_contains(w->targets, w->allowed->cpu[i]))
            t.allowed_on_target = true;
        else
            t.only_targets = false;
    }
    t.running_on_target = t.processor >= 0 && cpulist_contains(w->targets, t.processor);
    if (!t.allowed_on_target && !t.running_on_target)
        return;
    if (w->out->nkept >= TASKS_MAX_KEPT) {
        w->out->truncated = true;
        return;
    }
    w->out->task[w->out->nkept++] = t;
}

static void walk_process(struct walk *w, int pid)
{
    char rel[64], path[4096 + 64];
    snprintf(rel, sizeof rel, "/proc/%d/task", pid);
    if (sysroot_path(w->sr, rel, path, sizeof path) != 0)
        return;
    DIR *dir = opendir(path);
    if (!dir)
        return;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL)
        if (all_digits(e->d_name))
            look_at_thread(w, pid, atoi(e->d_name));
    closedir(dir);
}

int tasks_read(const struct sysroot *sr, const struct cpulist *targets, int self_pid,
               struct task_table *out, struct read_notes *notes)
{
    memset(out, 0, sizeof *out);
    char path[4096 + 64];
    if (sysroot_path(sr, "/proc", path, sizeof path) != 0)
        return 0;
    struct walk w = {.sr = sr, .targets = targets, .out = out, .notes = notes};
    w.allowed = malloc(sizeof *w.allowed);
    w.status = malloc(STATUS_MAX);
    out->task = malloc(TASKS_MAX_KEPT * sizeof *out->task);
    if (!w.allowed || !w.status || !out->task) {
        free(w.allowed);
        free(w.status);
        free(out->task);
        out->task = NULL;
        return -1;
    }
    DIR *dir = opendir(path);
    if (dir) {
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            if (!all_digits(e->d_name) || atoi(e->d_name) == self_pid)
                continue;
            walk_process(&w, atoi(e->d_name));
        }
        closedir(dir);
    }
    free(w.allowed);
    free(w.status);
    return 0;
}

void tasks_free(struct task_table *t)
{
    free(t->task);
    memset(t, 0, sizeof *t);
}
