/*
 * Threads that may disturb a set of target CPUs: every thread of every
 * process (/proc/PID/task/TID) whose allowed CPUs include a target or that
 * last ran on one, from its stat (processor, flags, policy, priority) and
 * status (Cpus_allowed_list).
 */
#ifndef JITTERLAB_SYS_TASKS_H
#define JITTERLAB_SYS_TASKS_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/cpulist.h"
#include "sys/read_notes.h"
#include "sys/sysroot.h"

#define TASKS_MAX_KEPT  4096
#define PF_KTHREAD_FLAG 0x00200000u /* include/linux/sched.h */

struct task_info {
    int pid, tid;
    char comm[32];
    char state;         /* R, S, D, I, ... */
    bool kernel_thread; /* PF_KTHREAD */
    bool per_cpu;       /* allowed on exactly one CPU */
    int processor;      /* CPU it last ran on, -1 unknown */
    int policy;         /* SCHED_* number */
    int rt_priority;
    char cpus_allowed[128];
    bool allowed_on_target;
    bool running_on_target; /* processor is a target */
    bool only_targets;      /* allowed nowhere else */
};

struct task_table {
    int scanned; /* threads looked at */
    int nkept;   /* threads kept: allowed on or last running on a target */
    bool truncated;
    struct task_info *task;
};

/* self_pid: the pid to leave out (the inspecting process itself on the live
 * machine; 0 for none). Returns 0, or -1 when out of memory. */
int tasks_read(const struct sysroot *sr, const struct cpulist *targets, int self_pid,
               struct task_table *out, struct read_notes *notes);
void tasks_free(struct task_table *t);
/* Parses one /proc/.../stat line into t (pid, comm, state, flags, processor,
 * policy, priority). Returns 0 or -1 (exposed for tests). */
int task_parse_stat(const char *stat, struct task_info *t);
/* The Cpus_allowed_list value of a /proc/.../status text, cut in place; NULL
 * when no line starts with that key (exposed for tests). */
char *task_status_allowed_list(char *status);

#endif
