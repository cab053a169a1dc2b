/*
 * The load runner and the kind list. Each thread-kind load gets one worker
 * thread per CPU (pinned, SCHED_OTHER/BATCH/IDLE, never real-time); a cmd
 * load gets one worker thread that starts the command in a process group
 * of its own (without fork, see load_spawn.c) and kills the whole group at
 * the end of each ON phase. Pulse phases follow a fixed schedule
 * (start + k * (ON + OFF)) so they never drift. Duty cycles come from the
 * kernel's accounting: per-thread CPU clocks, and wait4() usage of the
 * command's process tree.
 */
#include "load/load.h"

#include <errno.h>
#include <stdarg.h>
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
#include "common/units.h"
#include "load/load_kind.h"
#include "load/load_spawn.h"

/* The first kind is also what pulse runs when it names none. */
static const struct load_kind *const load_kinds[] = {
    &load_kind_cpu,
    &load_kind_cache,
    &load_kind_memory,
    &load_kind_cmd,
};
#define LOAD_KIND_COUNT (sizeof(load_kinds) / sizeof(load_kinds[0]))

#define SLEEP_SLICE_NS (20 * NS_PER_MS)  /* how quickly a sleeping worker sees stop */
#define KILL_GRACE_NS  (300 * NS_PER_MS) /* SIGTERM, then SIGKILL */

/* pulse wraps a kind rather than being one; the lists show it after the
 * first kind, its default. */
static const struct load_kind pulse_row = {
    .usage = "pulse:ON:OFF[:KIND]",
    .help = "KIND (default cpu) busy for ON, idle for OFF, again\nand again (bare numbers: ms), "
            "e.g. pulse:100ms:400ms",
};

/* The rows of the kind lists in order: the kinds with pulse after the first. */
static const struct load_kind *kind_row(size_t i)
{
    if (i == 1)
        return &pulse_row;
    i -= i > 1;
    return i < LOAD_KIND_COUNT ? load_kinds[i] : NULL;
}

/* Appends to buf (NUL-terminated, len bytes) without overrunning it. */
__attribute__((format(printf, 3, 4))) static void append(char *buf, size_t len, const char *fmt,
                                                         ...)
{
    size_t used = strnlen(buf, len);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

void load_kind_names(char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; kind_row(i); i++)
        append(buf, len, "%s%s", i ? ", " : "", kind_row(i)->usage);
}

void load_kinds_help(char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; kind_row(i); i++) {
        const char *help = kind_row(i)->help;
        append(buf, len, "  %-24s", kind_row(i)->usage);
        for (const char *nl; (nl = strchr(help, '\n')) != NULL; help = nl + 1)
            append(buf, len, "%.*s\n%26s", (int)(nl - help), help, "");
        append(buf, len, "%s\n", help);
    }
}

const char *load_kind_name(const struct load_spec *spec)
{
    return spec->kind->name;
}

bool load_is_external(const struct load_spec *spec)
{
    return spec->kind->external;
}

/* ---- parsing -------------------------------------------------------------- */

/* Splits "a:b..." at the first ':' into head (copied) and the rest. */
static const char *split_field(const char *text, char *head, size_t len)
{
    const char *colon = strchr(text, ':');
    size_t n = colon ? (size_t)(colon - text) : strlen(text);
    if (n >= len)
        n = len - 1;
    memcpy(head, text, n);
    head[n] = '\0';
    return colon ? colon + 1 : NULL;
}

static int parse_pulse(const char *args, struct load_spec *spec, const char **rest, char *why,
                       size_t whylen)
{
    char on[64], off[64];
    const char *why_dur = NULL;
    const char *after_on = args ? split_field(args, on, sizeof(on)) : NULL;
    if (!after_on) {
        snprintf(why, whylen, "pulse needs ON and OFF durations (e.g. pulse:100ms:400ms)");
        return -1;
    }
    *rest = split_field(after_on, off, sizeof(off));
    if (parse_duration_bounded_ns(on, NS_PER_MS, &spec->on_ns, &why_dur) != 0 ||
        parse_duration_bounded_ns(off, NS_PER_MS, &spec->off_ns, &why_dur) != 0) {
        snprintf(why, whylen, "pulse ON/OFF: %s", why_dur);
        return -1;
    }
    if (spec->on_ns <= 0 || spec->off_ns <= 0) {
        snprintf(why, whylen, "pulse ON and OFF must both be greater than 0");
        return -1;
    }
    return 0;
}

int load_parse(const char *text, const struct sysroot *sr, bool with_cpus, struct load_spec *out,
               char *why, size_t whylen)
{
    memset(out, 0, sizeof(*out));
    if (strlen(text) >= sizeof(out->text)) {
        snprintf(why, whylen, "load description too long");
        return -1;
    }
    snprintf(out->text, sizeof(out->text), "%s", text);
    if (with_cpus) {
        char *at = strrchr(out->text, '@');
        if (at) {
            const char *cpu_why = "empty CPU list";
            if (cpulist_parse(at + 1, &out->cpus, &cpu_why) != 0 || out->cpus.count == 0) {
                snprintf(why, whylen, "@%s: %s", at + 1, cpu_why);
                return -1;
            }
            out->cpus_given = true;
            *at = '\0';
        }
    }
    const char *rest = out->text;
    if (strncmp(out->text, "pulse:", 6) == 0 || strcmp(out->text, "pulse") == 0) {
        const char *inner = NULL;
        if (parse_pulse(out->text[5] ? out->text + 6 : NULL, out, &inner, why, whylen) != 0)
            return -1;
        rest = inner && *inner ? inner : load_kinds[0]->name;
    }
    char name[32];
    const char *args = split_field(rest, name, sizeof(name));
    for (size_t i = 0; i < LOAD_KIND_COUNT; i++) {
        if (strcmp(load_kinds[i]->name, name) != 0)
            continue;
        out->kind = load_kinds[i];
        const char *kind_why = NULL;
        if (out->kind->parse(args, sr, out, &kind_why) != 0) {
            snprintf(why, whylen, "%s", kind_why);
            return -1;
        }
        return 0;
    }
    char names[256];
    load_kind_names(names, sizeof(names));
    snprintf(why, whylen, "unknown load kind '%s' (use %s)", name, names);
    return -1;
}

/* ---- the runner ----------------------------------------------------------- */

enum { GATE_WAIT, GATE_GO, GATE_ABORT };

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
static pid_t spawn_command(const struct load_spec *spec, const struct load_sched *sched)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int i = 0; i < spec->cpus.count; i++)
        if (spec->cpus.cpu[i] < CPU_SETSIZE)
            CPU_SET(spec->cpus.cpu[i], &set);
    struct load_spawn_attr attr = {.cpus = &set, .policy = sched->policy, .nice = sched->nice};
    return load_spawn_shell(spec->command, &attr);
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
            pid_t pid = spawn_command(spec, &lr->sched);
            if (pid < 0) {
                snprintf(w->error, sizeof(w->error), "cannot start '%s': %s", spec->command,
                         strerror(errno));
                break;
            }
            atomic_fetch_add(&w->starts, 1);
            sleep_until(lr, on_end);
            atomic_fetch_add(&w->cpu_ns, kill_command(pid));
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
    cpu_set_t set;
    CPU_ZERO(&set);
    if (w->cpu >= 0) {
        CPU_SET(w->cpu, &set);
    } else {
        for (int i = 0; i < spec->cpus.count; i++)
            CPU_SET(spec->cpus.cpu[i], &set);
    }
    pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
    int rc = pthread_create(&w->thread, &attr, worker_main, w);
    pthread_attr_destroy(&attr);
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
    }
    free(lr->workers);
    free(lr->specs);
    free(lr);
}
