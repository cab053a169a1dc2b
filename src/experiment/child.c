/*
 * Starting and waiting for an experiment's children (child.h). The wait is
 * a poll of at most 20 ms at a time on the child's output pipe (or a sleep
 * without one), so a stop request, a time limit or a grace time is acted
 * on within 20 ms, and no loop spins. Exec failures come back through a
 * close-on-exec pipe, so "cannot start" is told apart from "exit 127".
 */
#include "experiment/child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/stop.h"

#define POLL_MS 20

/* In the child, between fork and exec: only what is needed, then exec. */
static void exec_child(const struct child_spec *spec, int out_fd, int err_pipe, pid_t parent)
{
    setpgid(0, 0);
    /* If the experiment dies, a run still ends in order (SIGTERM writes its
     * document and restores what it tuned). */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(127);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL); /* ignored by jitterlab, which exec would pass on */
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd >= 0)
        dup2(null_fd, STDIN_FILENO);
    if (out_fd >= 0) {
        dup2(out_fd, STDOUT_FILENO);
        dup2(out_fd, STDERR_FILENO);
    } else if (spec->quiet && null_fd >= 0) {
        dup2(null_fd, STDOUT_FILENO);
    }
    for (const char *const *e = spec->env; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (eq) {
            char name[128];
            snprintf(name, sizeof(name), "%.*s", (int)(eq - *e), *e);
            setenv(name, eq + 1, 1);
        }
    }
    if (spec->cwd && chdir(spec->cwd) != 0) {
        int e = errno;
        (void)!write(err_pipe, &e, sizeof(e));
        _exit(127);
    }
    execv(spec->path, spec->argv);
    int e = errno;
    (void)!write(err_pipe, &e, sizeof(e));
    _exit(127);
}

/* Keeps the last CHILD_TAIL_BYTES of the output in buf (2 x that size). */
static void tail_add(char *buf, size_t *used, bool *cut, const char *data, size_t n)
{
    const size_t cap = 2 * CHILD_TAIL_BYTES;
    if (n >= CHILD_TAIL_BYTES) {
        data += n - CHILD_TAIL_BYTES;
        n = CHILD_TAIL_BYTES;
        *used = 0;
        *cut = true;
    }
    if (*used + n > cap) {
        size_t keep = CHILD_TAIL_BYTES - n;
        memmove(buf, buf + *used - keep, keep);
        *used = keep;
        *cut = true;
    }
    memcpy(buf + *used, data, n);
    *used += n;
}

/* Reads what is there; false at end of file (or an error). */
static bool drain(int fd, char *buf, size_t *used, bool *cut)
{
    char chunk[4096];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n > 0) {
            tail_add(buf, used, cut, chunk, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 && errno == EAGAIN;
    }
}

static void finish_tail(struct child_result *res, const char *buf, size_t used, bool cut)
{
    const char *start = buf;
    if (used > CHILD_TAIL_BYTES) {
        start += used - CHILD_TAIL_BYTES;
        used = CHILD_TAIL_BYTES;
        cut = true;
    }
    if (cut) { /* start at a whole line where there is one */
        const char *nl = memchr(start, '\n', used);
        if (nl && nl + 1 < start + used) {
            used -= (size_t)(nl + 1 - start);
            start = nl + 1;
        }
    }
    memcpy(res->tail, start, used);
    res->tail[used] = '\0';
}

static void wait_a_little(int *fd, char *buf, size_t *used, bool *cut)
{
    if (*fd >= 0) {
        struct pollfd pfd = {*fd, POLLIN, 0};
        if (poll(&pfd, 1, POLL_MS) > 0 && !drain(*fd, buf, used, cut)) {
            close(*fd); /* the child closed its output but runs on */
            *fd = -1;
        }
        return;
    }
    struct timespec pause = {0, POLL_MS * 1000 * 1000};
    nanosleep(&pause, NULL);
}

int child_run(const struct child_spec *spec, struct child_result *res)
{
    memset(res, 0, sizeof(*res));
    res->exit_status = -1;
    int out[2] = {-1, -1}, errp[2];
    if (spec->capture && pipe2(out, O_CLOEXEC) != 0) {
        res->spawn_errno = errno;
        return -1;
    }
    if (pipe2(errp, O_CLOEXEC) != 0) {
        res->spawn_errno = errno;
        if (out[0] >= 0) {
            close(out[0]);
            close(out[1]);
        }
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    int64_t start = monotonic_now_ns();
    pid_t pid = fork();
    if (pid == 0)
        exec_child(spec, out[1], errp[1], parent);
    int fork_errno = errno;
    close(errp[1]);
    if (out[1] >= 0)
        close(out[1]);
    if (pid < 0) {
        res->spawn_errno = fork_errno;
        close(errp[0]);
        if (out[0] >= 0)
            close(out[0]);
        return -1;
    }
    setpgid(pid, pid); /* also here, so that no signal finds it in ours */
    int exec_errno = 0;
    ssize_t got;
    while ((got = read(errp[0], &exec_errno, sizeof(exec_errno))) < 0 && errno == EINTR)
        ;
    close(errp[0]);
    int fd = out[0];
    if (fd >= 0)
        fcntl(fd, F_SETFL, O_NONBLOCK);
    char buf[2 * CHILD_TAIL_BYTES];
    size_t used = 0;
    bool cut = false, sent_int = false, sent_kill = false;
    int64_t kill_at = 0;
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        int64_t now = monotonic_now_ns();
        if (!sent_int && spec->forward_stop && stop_requested()) {
            res->interrupted = true;
            sent_int = true;
        } else if (!sent_int && spec->limit_ns > 0 && now - start >= spec->limit_ns) {
            res->timed_out = true;
            sent_int = true;
        } else if (sent_int && !sent_kill && now >= kill_at) {
            kill(-pid, SIGKILL);
            res->killed = sent_kill = true;
        }
        if (sent_int && !kill_at) {
            kill(-pid, SIGINT);
            kill_at = deadline_after_ns(now, spec->grace_ns);
        }
        wait_a_little(&fd, buf, &used, &cut);
    }
    res->duration_s = (double)(monotonic_now_ns() - start) / 1e9;
    if (fd >= 0) {
        drain(fd, buf, &used, &cut); /* what it wrote last; never waits */
        close(fd);
    }
    finish_tail(res, buf, used, cut);
    if (got == (ssize_t)sizeof(exec_errno)) {
        res->spawn_errno = exec_errno;
        return -1;
    }
    res->started = true;
    if (WIFEXITED(status)) {
        res->exit_status = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->signal = WTERMSIG(status);
    }
    return 0;
}

void child_describe(const struct child_result *res, char *buf, size_t len)
{
    if (!res->started) {
        snprintf(buf, len, "could not start: %s", strerror(res->spawn_errno));
        return;
    }
    const char *why = res->killed        ? " (SIGKILL: it did not end after SIGINT)"
                      : res->timed_out   ? " (stopped at its time limit)"
                      : res->interrupted ? " (interrupted)"
                                         : "";
    if (res->signal)
        snprintf(buf, len, "killed by signal %d (%s)%s", res->signal, strsignal(res->signal), why);
    else
        snprintf(buf, len, "exit status %d%s", res->exit_status, why);
}

void child_last_line(const struct child_result *res, char *buf, size_t len)
{
    const char *tail = res->tail;
    size_t n = strlen(tail);
    while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == ' '))
        n--;
    size_t start = n;
    while (start > 0 && tail[start - 1] != '\n')
        start--;
    snprintf(buf, len, "%.*s", (int)(n - start), tail + start);
}
