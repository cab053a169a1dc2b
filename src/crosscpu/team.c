/*
 * Starting, pinning and joining a team of measuring threads. The start
 * gate is a mutex and a condition variable: the threads wait there, outside
 * any measurement, until all are pinned.
 */
#include "crosscpu/team.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEAM_STACK_BYTES (256 * 1024)

enum gate { GATE_WAIT, GATE_GO, GATE_ABORT };

struct team {
    const struct team_config *cfg;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int ready;
    enum gate gate;
    struct member *members;
};

struct member {
    struct team *team;
    int index;
    pthread_t thread;
    bool started;
    char error[96];
};

static void *member_main(void *p)
{
    struct member *m = p;
    struct team *t = m->team;
    int cpu = t->cfg->cpus[m->index];
    if (sched_getcpu() != cpu)
        snprintf(m->error, sizeof m->error, "the thread for CPU %d runs on CPU %d", cpu,
                 sched_getcpu());
    pthread_mutex_lock(&t->lock);
    t->ready++;
    pthread_cond_broadcast(&t->cond);
    while (t->gate == GATE_WAIT)
        pthread_cond_wait(&t->cond, &t->lock);
    enum gate g = t->gate;
    pthread_mutex_unlock(&t->lock);
    if (g == GATE_GO)
        t->cfg->body(t->cfg->arg, m->index);
    return NULL;
}

static int start_member(struct team *t, struct member *m, bool fifo)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, TEAM_STACK_BYTES);
    int cpu = t->cfg->cpus[m->index];
    size_t setsize = CPU_ALLOC_SIZE(cpu + 1);
    cpu_set_t *set = CPU_ALLOC(cpu + 1);
    if (!set) {
        pthread_attr_destroy(&attr);
        return ENOMEM;
    }
    CPU_ZERO_S(setsize, set);
    CPU_SET_S(cpu, setsize, set);
    pthread_attr_setaffinity_np(&attr, setsize, set);
    struct sched_param sp = {.sched_priority = fifo ? t->cfg->priority : 0};
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, fifo ? SCHED_FIFO : SCHED_OTHER);
    pthread_attr_setschedparam(&attr, &sp);
    int rc = pthread_create(&m->thread, &attr, member_main, m);
    pthread_attr_destroy(&attr);
    CPU_FREE(set);
    return rc;
}

static void open_gate(struct team *t, enum gate g)
{
    pthread_mutex_lock(&t->lock);
    t->gate = g;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
}

static void join_all(struct team *t)
{
    for (int i = 0; i < t->cfg->n; i++)
        if (t->members[i].started)
            pthread_join(t->members[i].thread, NULL);
}

int team_run(const struct team_config *cfg, struct team_report *rep, char *err, size_t errlen)
{
    struct team t = {.cfg = cfg, .gate = GATE_WAIT};
    rep->realtime = false;
    t.members = calloc((size_t)cfg->n, sizeof *t.members);
    if (!t.members) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    pthread_mutex_init(&t.lock, NULL);
    pthread_cond_init(&t.cond, NULL);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* inherited by the members */
    bool fifo = cfg->fifo;
    int rc = 0;
    for (int i = 0; i < cfg->n && rc == 0; i++) {
        struct member *m = &t.members[i];
        m->team = &t;
        m->index = i;
        rc = start_member(&t, m, fifo);
        if (rc == EPERM && fifo && i == 0) {
            fifo = false; /* not allowed: the whole team at SCHED_OTHER */
            rc = start_member(&t, m, false);
        }
        if (rc != 0)
            snprintf(err, errlen, "cannot start the thread for CPU %d: %s", cfg->cpus[i],
                     strerror(rc));
        else
            m->started = true;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0) {
        pthread_mutex_lock(&t.lock);
        while (t.ready < cfg->n)
            pthread_cond_wait(&t.cond, &t.lock);
        pthread_mutex_unlock(&t.lock);
        for (int i = 0; i < cfg->n && rc == 0; i++)
            if (t.members[i].error[0]) {
                snprintf(err, errlen, "%s", t.members[i].error);
                rc = -1;
            }
    }
    open_gate(&t, rc == 0 ? GATE_GO : GATE_ABORT);
    join_all(&t);
    pthread_cond_destroy(&t.cond);
    pthread_mutex_destroy(&t.lock);
    free(t.members);
    rep->realtime = rc == 0 && fifo;
    return rc == 0 ? 0 : -1;
}
