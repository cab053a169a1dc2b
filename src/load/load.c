/*
 * The load runner (the kind list and the parser are in load_parse.c).
 * Each thread-kind load gets one worker
 * thread per CPU (pinned, SCHED_OTHER/BATCH/IDLE, never real-time); a cmd
 * load gets one worker thread that starts the command in a process group
 * of its own (without fork, see load_spawn.c) and kills the whole group at
 * the end of each ON phase. Pulse phases follow a fixed schedule
 * (start + k * (ON + OFF)) so they never drift. Duty cycles come from the
 * kernel's accounting: per-thread CPU clocks, and wait4() usage of the
 * command's process tree. A command's stderr goes to a pipe the cmd worker
 * drains while it waits (bounded tail, see load_exit.c), and the shell's
 * exit status is looked at (waitid WNOWAIT, so the zombie keeps the group's
 * id until the group is reaped) before our own kill: a start that exits
 * non-zero by itself counts as a failure; load_runner_check_start turns a
 * failure in the first ON phase into an error before anything is measured.
 */
#include "load/load.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/text.h"
#include "common/units.h"
#include "load/load_kind.h"
#include "load/load_spawn.h"

#define SLEEP_SLICE_NS     (20 * NS_PER_MS)  /* how quickly a sleeping worker sees stop */
#define KILL_GRACE_NS      (300 * NS_PER_MS) /* SIGTERM, then SIGKILL */
#define START_PROBE_NS     NS_PER_S /* a cmd load's first start must survive min(ON, this) */
#define MESSAGE_TAIL_CHARS 300      /* of a stderr tail in one message line */
#define DRAIN_READS        16       /* 64 KiB per wake-up: a flood cannot hold the worker */

/* ---- the runner ----------------------------------------------------------- */

enum { GATE_WAIT, GATE_GO, GATE_ABORT };

/* How a cmd load's first start went, as far as load_runner_check_start cares. */
enum { FIRST_PENDING, FIRST_RUNNING, FIRST_FINISHED, FIRST_FAILED };

struct load_worker {
    struct load_runner *lr;
    int spec_index;
    int cpu; /* -1: a cmd worker, whose child runs on the spec's CPUs */
    pthread_t thread;
    bool started;
    void *state;
    char error[512];
    _Atomic bool done;
    _Atomic int64_t cpu_ns;      /* final CPU time (thread kinds), or children's so far */
    _Atomic int64_t cpu_base_ns; /* thread CPU time spent preparing, not counted */
    _Atomic int64_t end_wall_ns; /* when the worker ended */
    _Atomic uint64_t starts;     /* cmd: times the command was started */
    _Atomic bool start_failed;   /* cmd: error holds why the command could not start */
    /* cmd: how its starts ended, under outcome_lock */
    pthread_mutex_t outcome_lock;
    struct load_tail tail; /* the current start's stderr */
    uint64_t failures, finished;
    int first;
    bool has_failure;
    int fail_code, fail_status; /* waitid's si_code, si_status */
    struct load_tail fail_tail;
};

struct load_runner {
    struct load_spec *specs;
    int nspecs;
    struct load_sched sched;
    int64_t duration_ns;
    int64_t start_ns;
    _Atomic bool stop;
    struct load_worker *workers;
    int nworkers;
    pthread_mutex_t gate_lock;
    pthread_cond_t gate_cond;
    int ready;
    int gate;
    bool joined;
};

static void sleep_until(struct load_runner *lr, int64_t t_ns)
{
    for (;;) {
        int64_t now = monotonic_now_ns();
        if (now >= t_ns || atomic_load(&lr->stop))
            return;
        int64_t d = t_ns - now < SLEEP_SLICE_NS ? t_ns - now : SLEEP_SLICE_NS;
        struct timespec ts = {(time_t)(d / NS_PER_S), (long)(d % NS_PER_S)};
        nanosleep(&ts, NULL);
    }
}

/* The command's CPUs: the cmd worker runs there too, but the child sets
 * them itself rather than rely on inheriting them. */
static pid_t spawn_command(const struct load_spec *spec, const struct load_sched *sched,
                           int stderr_fd)
{
    /* Sized for the highest CPU: a fixed cpu_set_t ends at CPU 1023. */
    int top = spec->cpus.count > 0 ? spec->cpus.cpu[spec->cpus.count - 1] : 0;
    size_t setsize = CPU_ALLOC_SIZE(top + 1);
    cpu_set_t *set = CPU_ALLOC(top + 1);
    if (!set) {
        errno = ENOMEM;
        return -1;
    }
    CPU_ZERO_S(setsize, set);
    for (int i = 0; i < spec->cpus.count; i++)
        CPU_SET_S(spec->cpus.cpu[i], setsize, set);
    struct load_spawn_attr attr = {.cpus = set,
                                   .cpus_size = setsize,
                                   .policy = sched->policy,
                                   .nice = sched->nice,
                                   .stderr_fd = stderr_fd};
    pid_t pid = load_spawn_shell(spec->command, &attr);
    int err = errno;
    CPU_FREE(set);
    errno = err;
    return pid;
}

static int64_t rusage_ns(const struct rusage *ru)
{
    return ((int64_t)ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * NS_PER_S +
           ((int64_t)ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * NS_PER_US;
}

/* Ends the command's whole process group and reaps every member (jitterlab
 * is a child subreaper, so members whose parent died are ours too); returns
 * the group's CPU time in ns. */
static int64_t kill_command(pid_t pgid)
{
    struct rusage ru;
    int status;
    int64_t cpu_ns = 0;
    killpg(pgid, SIGTERM);
    int64_t give_up = monotonic_now_ns() + KILL_GRACE_NS;
    for (;;) {
        pid_t got = wait4(-pgid, &status, WNOHANG, &ru);
        if (got > 0) {
            cpu_ns += rusage_ns(&ru);
            continue;
        }
        if (got < 0) /* ECHILD: the whole group is gone */
            return cpu_ns;
        if (monotonic_now_ns() >= give_up)
            break;
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    killpg(pgid, SIGKILL);
    pid_t got;
    while ((got = wait4(-pgid, &status, 0, &ru)) > 0 || (got < 0 && errno == EINTR))
        if (got > 0)
            cpu_ns += rusage_ns(&ru);
    return cpu_ns;
}

static int wait_at_gate(struct load_runner *lr)
{
    pthread_mutex_lock(&lr->gate_lock);
    lr->ready++;
    pthread_cond_broadcast(&lr->gate_cond);
    while (lr->gate == GATE_WAIT)
        pthread_cond_wait(&lr->gate_cond, &lr->gate_lock);
    int gate = lr->gate;
    pthread_mutex_unlock(&lr->gate_lock);
    return gate;
}

static int apply_sched(const struct load_sched *sched, char *err, size_t errlen)
{
    if (sched->policy != SCHED_OTHER) {
        struct sched_param sp = {.sched_priority = 0};
        if (sched_setscheduler(0, sched->policy, &sp) != 0) {
            snprintf(err, errlen, "cannot set the scheduling policy: %s", strerror(errno));
            return -1;
        }
    }
    if (sched->nice && setpriority(PRIO_PROCESS, (id_t)gettid(), sched->nice) != 0) {
        snprintf(err, errlen, "--nice %d: %s", sched->nice, strerror(errno));
        return -1;
    }
    return 0;
}

/* Reads what the command wrote to stderr, at most DRAIN_READS buffers;
 * returns false at end of file (every writer is gone). */
static bool drain_stderr(struct load_worker *w, int fd)
{
    char buf[4096];
    for (int i = 0; i < DRAIN_READS; i++) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n == 0)
            return false;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return true; /* EAGAIN: nothing more for now */
        }
        pthread_mutex_lock(&w->outcome_lock);
        load_tail_append(&w->tail, buf, (size_t)n);
        pthread_mutex_unlock(&w->outcome_lock);
    }
    return true;
}

/* Whether the shell has ended, without reaping it: as a zombie it keeps its
 * pid, which is also the group's id, until kill_command reaps the group. */
static bool leader_exited(pid_t pid, siginfo_t *si)
{
    memset(si, 0, sizeof(*si));
    return waitid(P_PID, (id_t)pid, si, WEXITED | WNOHANG | WNOWAIT) == 0 && si->si_pid == pid;
}

/* si NULL: still running when we stopped it. */
static void record_outcome(struct load_worker *w, const siginfo_t *si)
{
    enum load_exit how =
        si ? load_exit_classify(si->si_code, si->si_status, false) : load_exit_classify(0, 0, true);
    pthread_mutex_lock(&w->outcome_lock);
    if (how == LOAD_EXIT_FAILED) {
        w->failures++;
        w->has_failure = true;
        w->fail_code = si->si_code;
        w->fail_status = si->si_status;
        w->fail_tail = w->tail;
    } else if (how == LOAD_EXIT_FINISHED) {
        w->finished++;
    }
    if (w->first == FIRST_PENDING)
        w->first = how == LOAD_EXIT_FAILED     ? FIRST_FAILED
                   : how == LOAD_EXIT_FINISHED ? FIRST_FINISHED
                                               : FIRST_RUNNING;
    pthread_mutex_unlock(&w->outcome_lock);
}

/* Waits until `until` (or stop), draining the stderr pipe, and records the
 * outcome as soon as the shell ends by itself; true if it did. */
static bool watch_command(struct load_worker *w, pid_t pid, int fd, int64_t until)
{
    struct load_runner *lr = w->lr;
    bool exited = false, open = true;
    siginfo_t si;
    for (;;) {
        if (!exited && leader_exited(pid, &si)) {
            if (open)
                open = drain_stderr(w, fd);
            record_outcome(w, &si);
            exited = true;
        }
        int64_t now = monotonic_now_ns();
        if (now >= until || atomic_load(&lr->stop))
            return exited;
        int64_t d = until - now < SLEEP_SLICE_NS ? until - now : SLEEP_SLICE_NS;
        struct timespec ts = {(time_t)(d / NS_PER_S), (long)(d % NS_PER_S)};
        struct pollfd pfd = {.fd = open ? fd : -1, .events = POLLIN};
        if (ppoll(&pfd, 1, &ts, NULL) > 0 && open)
            open = drain_stderr(w, fd);
    }
}

/* One start of the command, from its ON phase's start to `until`; -1 when
 * it cannot be started (w->error says why). */
static int run_command_once(struct load_worker *w, const struct load_spec *spec, int64_t until)
{
    struct load_runner *lr = w->lr;
    int fds[2];
    pid_t pid = -1;
    int spawn_errno = 0;
    /* close-on-exec from the start: another cmd worker's child must not
     * inherit this pipe (only this child gets it, as fd 2) */
    if (pipe2(fds, O_CLOEXEC) == 0) {
        fcntl(fds[0], F_SETFL, O_NONBLOCK);
        pthread_mutex_lock(&w->outcome_lock);
        w->tail.len = 0;
        w->tail.text[0] = '\0';
        pthread_mutex_unlock(&w->outcome_lock);
        pid = spawn_command(spec, &lr->sched, fds[1]);
        spawn_errno = errno;
        close(fds[1]);
        if (pid < 0)
            close(fds[0]);
    } else {
        spawn_errno = errno;
    }
    if (pid < 0) {
        snprintf(w->error, sizeof(w->error), "cannot start '%s': %s", spec->command,
                 strerror(spawn_errno));
        atomic_store(&w->start_failed, true);
        return -1;
    }
    atomic_fetch_add(&w->starts, 1);
    if (!watch_command(w, pid, fds[0], until)) {
        siginfo_t si;
        bool exited = leader_exited(pid, &si); /* it may have ended just now */
        drain_stderr(w, fds[0]);
        record_outcome(w, exited ? &si : NULL);
    }
    atomic_fetch_add(&w->cpu_ns, kill_command(pid));
    close(fds[0]);
    return 0;
}

/* ON phases start at start + k * (ON + OFF), added up one period at a time
 * (exact integers: no drift) and saturating, so that no duration can wrap
 * a deadline around; INT64_MAX is "never". */
static void run_phases(struct load_worker *w, const struct load_spec *spec)
{
    struct load_runner *lr = w->lr;
    const int64_t start = lr->start_ns;
    const int64_t end = lr->duration_ns > 0 ? deadline_after_ns(start, lr->duration_ns) : INT64_MAX;
    const bool pulse = spec->on_ns > 0;
    const int64_t period = pulse ? deadline_after_ns(spec->on_ns, spec->off_ns) : 0;
    for (int64_t on_start = start; on_start < end && !atomic_load(&lr->stop);
         on_start = deadline_after_ns(on_start, period)) {
        /* on_start < end: neither the difference nor the sum can overflow */
        int64_t on_end = pulse && end - on_start > spec->on_ns ? on_start + spec->on_ns : end;
        sleep_until(lr, on_start);
        if (atomic_load(&lr->stop))
            break;
        if (spec->kind->external) {
            if (run_command_once(w, spec, on_end) != 0)
                break;
        } else {
            spec->kind->burn(w->state, on_end, &lr->stop);
        }
        if (!pulse)
            break;
    }
    if (pulse)
        sleep_until(lr, end); /* the last OFF phase belongs to the load's time */
}

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static void *worker_main(void *arg)
{
    struct load_worker *w = arg;
    struct load_runner *lr = w->lr;
    const struct load_spec *spec = &lr->specs[w->spec_index];
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &block, NULL);
    char name[16];
    snprintf(name, sizeof(name), "jl-load-%s", spec->kind->name);
    pthread_setname_np(pthread_self(), name);

    if (apply_sched(&lr->sched, w->error, sizeof(w->error)) == 0 && !spec->kind->external) {
        w->state = spec->kind->prepare(spec);
        if (!w->state)
            snprintf(w->error, sizeof(w->error), "out of memory preparing the %s load",
                     spec->kind->name);
    }
    int gate = wait_at_gate(lr);
    w->cpu_base_ns = thread_cpu_ns();
    if (gate == GATE_GO && !w->error[0])
        run_phases(w, spec);
    if (!spec->kind->external) {
        atomic_store(&w->cpu_ns, thread_cpu_ns() - w->cpu_base_ns);
        if (w->state)
            spec->kind->release(w->state);
        w->state = NULL;
    }
    atomic_store(&w->end_wall_ns, monotonic_now_ns());
    atomic_store(&w->done, true);
    return NULL;
}

static int create_worker(struct load_worker *w)
{
    const struct load_spec *spec = &w->lr->specs[w->spec_index];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    struct sched_param sp = {.sched_priority = 0};
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, SCHED_OTHER); /* never real-time */
    pthread_attr_setschedparam(&attr, &sp);
    /* Sized for the highest CPU: a fixed cpu_set_t ends at CPU 1023. */
    int top = 0;
    if (w->cpu >= 0)
        top = w->cpu;
    else if (spec->cpus.count > 0)
        top = spec->cpus.cpu[spec->cpus.count - 1];
    size_t setsize = CPU_ALLOC_SIZE(top + 1);
    cpu_set_t *set = CPU_ALLOC(top + 1);
    if (!set) {
        pthread_attr_destroy(&attr);
        return ENOMEM;
    }
    CPU_ZERO_S(setsize, set);
    if (w->cpu >= 0) {
        CPU_SET_S(w->cpu, setsize, set);
    } else {
        for (int i = 0; i < spec->cpus.count; i++)
            CPU_SET_S(spec->cpus.cpu[i], setsize, set);
    }
    pthread_attr_setaffinity_np(&attr, setsize, set);
    int rc = pthread_create(&w->thread, &attr, worker_main, w);
    pthread_attr_destroy(&attr);
    CPU_FREE(set);
    return rc;
}

static void join_workers(struct load_runner *lr)
{
    if (lr->joined)
        return;
    for (int i = 0; i < lr->nworkers; i++)
        if (lr->workers[i].started)
            pthread_join(lr->workers[i].thread, NULL);
    lr->joined = true;
}

struct load_runner *load_runner_start(const struct load_spec *specs, int nspecs,
                                      const struct load_sched *sched, int64_t duration_ns,
                                      char *err, size_t errlen)
{
    struct load_runner *lr = calloc(1, sizeof(*lr));
    if (!lr) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    lr->specs = malloc((size_t)nspecs * sizeof(*specs));
    int nworkers = 0;
    for (int i = 0; i < nspecs; i++)
        nworkers += specs[i].kind->external ? 1 : specs[i].cpus.count;
    lr->workers = calloc((size_t)nworkers, sizeof(*lr->workers));
    if (!lr->specs || !lr->workers) {
        snprintf(err, errlen, "out of memory");
        load_runner_destroy(lr);
        return NULL;
    }
    memcpy(lr->specs, specs, (size_t)nspecs * sizeof(*specs));
    lr->nspecs = nspecs;
    lr->sched = *sched;
    lr->duration_ns = duration_ns;
    /* Orphaned members of a command's process group become our children, so
     * that they are reaped and their CPU time counted. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    pthread_mutex_init(&lr->gate_lock, NULL);
    pthread_cond_init(&lr->gate_cond, NULL);
    for (int i = 0; i < nspecs; i++) {
        int ncpu = specs[i].kind->external ? 1 : specs[i].cpus.count;
        for (int c = 0; c < ncpu; c++) {
            struct load_worker *w = &lr->workers[lr->nworkers++];
            w->lr = lr;
            w->spec_index = i;
            w->cpu = specs[i].kind->external ? -1 : specs[i].cpus.cpu[c];
            pthread_mutex_init(&w->outcome_lock, NULL);
        }
    }
    int failed = -1;
    for (int i = 0; i < lr->nworkers; i++) {
        int rc = create_worker(&lr->workers[i]);
        if (rc != 0) {
            snprintf(err, errlen, "cannot start a load thread: %s", strerror(rc));
            failed = i;
            break;
        }
        lr->workers[i].started = true;
    }
    pthread_mutex_lock(&lr->gate_lock);
    int expected = failed >= 0 ? failed : lr->nworkers;
    while (lr->ready < expected)
        pthread_cond_wait(&lr->gate_cond, &lr->gate_lock);
    for (int i = 0; failed < 0 && i < lr->nworkers; i++) {
        if (lr->workers[i].error[0]) {
            snprintf(err, errlen, "%s", lr->workers[i].error);
            failed = i;
        }
    }
    lr->start_ns = monotonic_now_ns();
    lr->gate = failed >= 0 ? GATE_ABORT : GATE_GO;
    pthread_cond_broadcast(&lr->gate_cond);
    pthread_mutex_unlock(&lr->gate_lock);
    if (failed >= 0) {
        atomic_store(&lr->stop, true);
        join_workers(lr);
        load_runner_destroy(lr);
        return NULL;
    }
    return lr;
}

bool load_runner_finished(const struct load_runner *lr)
{
    for (int i = 0; i < lr->nworkers; i++)
        if (!atomic_load(&lr->workers[i].done))
            return false;
    return true;
}

void load_runner_stop(struct load_runner *lr)
{
    atomic_store(&lr->stop, true);
    join_workers(lr);
}

int load_runner_duty(const struct load_runner *lr, int i, struct load_duty *out, int max,
                     uint64_t *starts)
{
    int n = 0;
    *starts = 0;
    int64_t now = monotonic_now_ns();
    for (int k = 0; k < lr->nworkers && n < max; k++) {
        const struct load_worker *w = &lr->workers[k];
        if (w->spec_index != i)
            continue;
        bool done = atomic_load(&w->done);
        int64_t end = done ? atomic_load(&w->end_wall_ns) : now;
        int64_t cpu_ns = atomic_load(&w->cpu_ns);
        if (!done && w->cpu >= 0) {
            clockid_t clock;
            struct timespec ts;
            if (pthread_getcpuclockid(w->thread, &clock) == 0 && clock_gettime(clock, &ts) == 0)
                cpu_ns = (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec - w->cpu_base_ns;
        }
        double wall_s = (double)(end - lr->start_ns) / 1e9;
        int ncpu = w->cpu >= 0 ? 1 : lr->specs[i].cpus.count;
        out[n].cpu = w->cpu;
        out[n].cpu_s = (double)cpu_ns / 1e9;
        out[n].duty = wall_s > 0 ? out[n].cpu_s / (wall_s * ncpu) : 0;
        *starts += atomic_load(&w->starts);
        n++;
    }
    return n;
}

void load_runner_destroy(struct load_runner *lr)
{
    if (!lr)
        return;
    if (lr->nworkers) {
        atomic_store(&lr->stop, true);
        join_workers(lr);
        pthread_mutex_destroy(&lr->gate_lock);
        pthread_cond_destroy(&lr->gate_cond);
        for (int i = 0; i < lr->nworkers; i++)
            pthread_mutex_destroy(&lr->workers[i].outcome_lock);
    }
    free(lr->workers);
    free(lr->specs);
    free(lr);
}

/* ---- how a command's starts ended --------------------------------------- */

static const struct load_worker *cmd_worker(const struct load_runner *lr, int i)
{
    for (int k = 0; k < lr->nworkers; k++)
        if (lr->workers[k].spec_index == i && lr->workers[k].cpu < 0)
            return &lr->workers[k];
    return NULL;
}

bool load_runner_cmd_report(const struct load_runner *lr, int i, struct load_cmd_report *out)
{
    memset(out, 0, sizeof(*out));
    struct load_worker *w = (struct load_worker *)cmd_worker(lr, i);
    if (!w)
        return false;
    out->starts = atomic_load(&w->starts);
    pthread_mutex_lock(&w->outcome_lock);
    out->failures = w->failures;
    out->finished = w->finished;
    out->has_failure = w->has_failure;
    out->exit_status = w->fail_code == CLD_EXITED ? w->fail_status : -1;
    out->signal = w->fail_code == CLD_EXITED ? 0 : w->fail_status;
    out->fail_code = w->fail_code;
    out->stderr_tail = w->fail_tail;
    pthread_mutex_unlock(&w->outcome_lock);
    if (atomic_load(&w->start_failed))
        snprintf(out->start_error, sizeof(out->start_error), "%s", w->error);
    return true;
}

/* "TAIL (exit status 3)", or "exit status 3, nothing on stderr". */
static void describe_failure(const struct load_cmd_report *r, char *buf, size_t len)
{
    char how[96], tail[LOAD_TAIL_BYTES + 1];
    load_exit_describe(r->fail_code, r->exit_status >= 0 ? r->exit_status : r->signal, how,
                       sizeof(how));
    load_tail_line(&r->stderr_tail, tail, sizeof(tail));
    size_t n = strlen(tail); /* a message keeps the end, where the error usually is */
    const char *shown = n > MESSAGE_TAIL_CHARS ? tail + n - MESSAGE_TAIL_CHARS : tail;
    if (tail[0])
        snprintf(buf, len, "%s%s (%s)", shown == tail ? "" : "...", shown, how);
    else
        snprintf(buf, len, "%s, nothing on stderr", how);
}

int load_runner_check_start(const struct load_runner *lr, int *which, char *err, size_t errlen)
{
    for (;;) {
        bool all_known = true;
        int64_t now = monotonic_now_ns();
        for (int k = 0; k < lr->nworkers; k++) {
            struct load_worker *w = &lr->workers[k];
            const struct load_spec *spec = &lr->specs[w->spec_index];
            if (w->cpu >= 0)
                continue;
            struct load_cmd_report r;
            load_runner_cmd_report(lr, w->spec_index, &r);
            pthread_mutex_lock(&w->outcome_lock);
            int first = w->first;
            pthread_mutex_unlock(&w->outcome_lock);
            if (r.start_error[0] || first == FIRST_FAILED) {
                *which = w->spec_index;
                if (r.start_error[0]) {
                    snprintf(err, errlen, "%s", r.start_error);
                } else {
                    char why[LOAD_TAIL_BYTES + 128];
                    describe_failure(&r, why, sizeof(why));
                    snprintf(err, errlen, "the command failed: %s", why);
                }
                return -1;
            }
            int64_t probe_ns =
                spec->on_ns > 0 && spec->on_ns < START_PROBE_NS ? spec->on_ns : START_PROBE_NS;
            if (first == FIRST_PENDING && !atomic_load(&w->done) && now < lr->start_ns + probe_ns)
                all_known = false;
        }
        if (all_known)
            return 0;
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

bool load_runner_failure_summary(const struct load_runner *lr, int i, char *buf, size_t len)
{
    struct load_cmd_report r;
    buf[0] = '\0';
    if (!load_runner_cmd_report(lr, i, &r))
        return false;
    if (r.failures > 0) {
        char why[LOAD_TAIL_BYTES + 128];
        describe_failure(&r, why, sizeof(why));
        text_append(buf, len, "%llu of %llu starts failed, the last one: %s",
                    (unsigned long long)r.failures, (unsigned long long)r.starts, why);
    }
    if (r.start_error[0])
        text_append(buf, len, "%sthe command stopped being started: %s", buf[0] ? "; " : "",
                    r.start_error);
    if (lr->specs[i].on_ns == 0 && r.finished > 0)
        text_append(buf, len,
                    "%sthe command finished by itself (exit status 0) before the load's end",
                    buf[0] ? "; " : "");
    return buf[0] != '\0';
}
