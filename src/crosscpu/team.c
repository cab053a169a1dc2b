/*
 * Starting, pinning and joining a team of measuring threads. The start
 * gate is a mutex and a condition variable: the threads wait there, outside
 * any measurement, until all are pinned. The wait for them is bounded: a
 * CPU held by a higher-priority thread may never run ours, and then the
 * team is called off, the threads that did arrive are joined and the
 * others detached. The team lives on the heap and the last of its threads
 * to leave frees it, so a thread that starts late touches nothing of the
 * caller's.
 */
#include "crosscpu/team.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TEAM_STACK_BYTES (256 * 1024)
#define TEAM_START_S     2 /* every thread running on its CPU within this */

enum gate { GATE_WAIT, GATE_GO, GATE_ABORT };

struct member {
    struct team *team;
    int index, cpu;
    pthread_t thread;
    bool started, arrived;
    char error[96];
};

struct team {
    void (*body)(void *arg, int index);
    void *arg;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int ready;
    int refs; /* the caller and every started member */
    enum gate gate;
    struct member *members;
};

static void team_unref(struct team *t)
{
    pthread_mutex_lock(&t->lock);
    bool last = --t->refs == 0;
    pthread_mutex_unlock(&t->lock);
    if (!last)
        return;
    pthread_cond_destroy(&t->cond);
    pthread_mutex_destroy(&t->lock);
    free(t->members);
    free(t);
}

static void *member_main(void *p)
{
    struct member *m = p;
    struct team *t = m->team;
    if (sched_getcpu() != m->cpu)
        snprintf(m->error, sizeof m->error, "the thread for CPU %d runs on CPU %d", m->cpu,
                 sched_getcpu());
    pthread_mutex_lock(&t->lock);
    if (t->gate == GATE_WAIT) {
        m->arrived = true;
        t->ready++;
        pthread_cond_broadcast(&t->cond);
    }
    while (t->gate == GATE_WAIT)
        pthread_cond_wait(&t->cond, &t->lock);
    enum gate g = t->gate;
    pthread_mutex_unlock(&t->lock);
    if (g == GATE_GO)
        t->body(t->arg, m->index);
    team_unref(t);
    return NULL;
}

static int start_member(struct team *t, struct member *m, bool fifo, int priority)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, TEAM_STACK_BYTES);
    size_t setsize = CPU_ALLOC_SIZE(m->cpu + 1);
    cpu_set_t *set = CPU_ALLOC(m->cpu + 1);
    if (!set) {
        pthread_attr_destroy(&attr);
        return ENOMEM;
    }
    CPU_ZERO_S(setsize, set);
    CPU_SET_S(m->cpu, setsize, set);
    pthread_attr_setaffinity_np(&attr, setsize, set);
    struct sched_param sp = {.sched_priority = fifo ? priority : 0};
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, fifo ? SCHED_FIFO : SCHED_OTHER);
    pthread_attr_setschedparam(&attr, &sp);
    pthread_mutex_lock(&t->lock);
    t->refs++; /* before the thread can drop it */
    pthread_mutex_unlock(&t->lock);
    int rc = pthread_create(&m->thread, &attr, member_main, m);
    if (rc != 0) {
        pthread_mutex_lock(&t->lock);
        t->refs--;
        pthread_mutex_unlock(&t->lock);
    }
    pthread_attr_destroy(&attr);
    CPU_FREE(set);
    return rc;
}

/* Waits until every started member arrived or the start time is over;
 * 0, or -1 with err naming the first CPU whose thread never ran. Called
 * with the lock held. */
static int wait_ready(struct team *t, int started, const int *cpus, int *stuck, char *err,
                      size_t errlen)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += TEAM_START_S;
    while (t->ready < started)
        if (pthread_cond_timedwait(&t->cond, &t->lock, &until) == ETIMEDOUT)
            break;
    if (t->ready == started)
        return 0;
    for (int i = 0; i < started; i++)
        if (!t->members[i].arrived) {
            *stuck = cpus[i];
            snprintf(err, errlen,
                     "the thread for CPU %d did not run within %d s (a higher-priority thread "
                     "holds that CPU?)",
                     cpus[i], TEAM_START_S);
            break;
        }
    return -1;
}

int team_run(const struct team_config *cfg, struct team_report *rep, char *err, size_t errlen)
{
    rep->realtime = false;
    rep->stuck_cpu = -1;
    struct team *t = calloc(1, sizeof *t);
    struct member *members = calloc((size_t)(cfg->n > 0 ? cfg->n : 1), sizeof *members);
    if (!t || !members) {
        free(t);
        free(members);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *t = (struct team){.body = cfg->body, .arg = cfg->arg, .refs = 1, .members = members};
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->cond, NULL);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* inherited by the members */
    bool fifo = cfg->fifo;
    int rc = 0, started = 0;
    for (int i = 0; i < cfg->n && rc == 0; i++) {
        struct member *m = &t->members[i];
        m->team = t;
        m->index = i;
        m->cpu = cfg->cpus[i];
        rc = start_member(t, m, fifo, cfg->priority);
        if (rc == EPERM && fifo && i == 0) {
            fifo = false; /* not allowed: the whole team at SCHED_OTHER */
            rc = start_member(t, m, false, 0);
        }
        if (rc != 0)
            snprintf(err, errlen, "cannot start the thread for CPU %d: %s", cfg->cpus[i],
                     strerror(rc));
        else {
            m->started = true;
            started++;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_mutex_lock(&t->lock);
    if (rc == 0)
        rc = wait_ready(t, started, cfg->cpus, &rep->stuck_cpu, err, errlen);
    for (int i = 0; i < started && rc == 0; i++)
        if (t->members[i].error[0]) {
            snprintf(err, errlen, "%s", t->members[i].error);
            rc = -1;
        }
    t->gate = rc == 0 ? GATE_GO : GATE_ABORT;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
    /* The members that arrived are joined; one that never ran is left to
     * end by itself when its CPU frees up: it sees the abort and leaves.
     * arrived no longer changes once the gate is open. The caller's
     * reference keeps t alive until the end. */
    for (int i = 0; i < started; i++) {
        if (t->members[i].arrived)
            pthread_join(t->members[i].thread, NULL);
        else
            pthread_detach(t->members[i].thread);
    }
    team_unref(t);
    rep->realtime = rc == 0 && fifo;
    return rc == 0 ? 0 : -1;
}
