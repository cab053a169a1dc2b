/*
 * Starting a cmd load's shell without disturbing the measurement: the child
 * shares the parent's memory until it execs (CLONE_VM | CLONE_VFORK, as
 * glibc's posix_spawn does), so no page table is copied and no page of the
 * memory-locked measuring threads becomes copy-on-write.
 */
#ifndef JITTERLAB_LOAD_LOAD_SPAWN_H
#define JITTERLAB_LOAD_LOAD_SPAWN_H

#include <sched.h>
#include <sys/types.h>

/* What the child is before it runs the command. */
struct load_spawn_attr {
    const cpu_set_t *cpus; /* affinity */
    size_t cpus_size;      /* its CPU_ALLOC_SIZE; 0: a fixed cpu_set_t (CPUs 0-1023) */
    int policy;            /* SCHED_OTHER, SCHED_BATCH or SCHED_IDLE; priority 0 */
    int nice;
    int stderr_fd; /* becomes the command's stderr; -1: jitterlab's own */
};

/* Runs "/bin/sh -c command" as the leader of a new process group, on
 * attr->cpus, with attr's policy and nice value, every signal at its default
 * action and none blocked, and SIGKILL when the calling thread dies
 * (PR_SET_PDEATHSIG), and attr->stderr_fd (when >= 0) as its stderr. Returns once the child has
 * called exec: its pid, or -1 with errno set (also when exec failed; the child is reaped then). */
pid_t load_spawn_shell(const char *command, const struct load_spawn_attr *attr);

#endif
