/*
 * Starting a cmd load's shell. fork() would copy the page tables of a
 * memory-locked process and write-protect every private page, so the
 * measuring threads would take a copy-on-write fault on the next write to
 * their own stacks and buffers. Instead the child is cloned with CLONE_VM |
 * CLONE_VFORK, the way glibc's posix_spawn does it: it runs on a small stack
 * of its own in the parent's memory while the calling thread waits, sets
 * itself up and execs. posix_spawn itself cannot be used because it has no
 * way to ask for PR_SET_PDEATHSIG, which keeps "the command dies with
 * jitterlab" true even when jitterlab is killed with SIGKILL.
 */
#include "load/load_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdalign.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* The child calls a handful of system call wrappers and execv: far less. */
#define SPAWN_STACK_BYTES (32 * 1024)

/* The child's frames are never unwound: with AddressSanitizer they would
 * leave their redzones poisoned in memory this thread's stack uses later. */
#define SPAWN_CHILD_CODE __attribute__((no_sanitize_address))

struct spawn_child {
    const char *command;
    const struct load_spawn_attr *attr;
    pid_t parent;
    volatile int failed_errno; /* written by the child when a step fails */
};

SPAWN_CHILD_CODE _Noreturn static void spawn_fail(struct spawn_child *c)
{
    c->failed_errno = errno ? errno : EINVAL;
    _exit(127);
}

/* Runs in the child, on the parent's memory, with every signal blocked:
 * only system call wrappers, and nothing that takes a lock. */
SPAWN_CHILD_CODE static int spawn_child_main(void *arg)
{
    struct spawn_child *c = arg;
    /* Installed handlers are the parent's code working on the parent's
     * memory: reset them before any signal can be delivered. SIGINT and
     * SIGTERM are reset even when ignored, so that the group can be ended. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction old;
        if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &old) != 0)
            continue;
        bool handled = old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN;
        if (handled || sig == SIGINT || sig == SIGTERM)
            sigaction(sig, &dfl, NULL);
    }
    if (setpgid(0, 0) != 0)
        spawn_fail(c);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != c->parent)
        _exit(126); /* jitterlab died before PDEATHSIG was armed */
    const struct load_spawn_attr *a = c->attr;
    struct sched_param sp = {.sched_priority = 0};
    size_t cpus_size = a->cpus_size ? a->cpus_size : sizeof(cpu_set_t);
    if (sched_setaffinity(0, cpus_size, a->cpus) != 0 ||
        sched_setscheduler(0, a->policy, &sp) != 0 || setpriority(PRIO_PROCESS, 0, a->nice) != 0)
        spawn_fail(c);
    if (a->stderr_fd >= 0) {
        /* dup2 clears close-on-exec on fd 2; when the pipe already is fd 2,
         * clear it by hand */
        if (a->stderr_fd == STDERR_FILENO ? fcntl(STDERR_FILENO, F_SETFD, 0) != 0
                                          : dup2(a->stderr_fd, STDERR_FILENO) < 0)
            spawn_fail(c);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    char *const argv[] = {"sh", "-c", (char *)c->command, NULL};
    execv("/bin/sh", argv);
    spawn_fail(c);
}

pid_t load_spawn_shell(const char *command, const struct load_spawn_attr *attr)
{
    /* The child's stack: while it runs, this thread waits inside clone(),
     * in frames below this array, so the two never overlap. */
    alignas(16) char stack[SPAWN_STACK_BYTES];
    struct spawn_child c = {.command = command, .attr = attr, .parent = getpid()};
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid =
        clone(spawn_child_main, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, &c);
    int clone_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (pid < 0) {
        errno = clone_errno;
        return -1;
    }
    if (c.failed_errno) {
        int why = c.failed_errno;
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        errno = why;
        return -1;
    }
    return pid;
}
