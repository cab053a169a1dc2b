/*
 * The wake paths `run --wake MECH` measures: how a measured thread is woken
 * by another thread of the application (a futex, an eventfd, a pipe, an RT
 * signal, a POSIX message queue, a process-shared semaphore) instead of by
 * its own timer. One channel per measured CPU carries the waker's sequence
 * number of each wake and the waker's timestamp taken just before its wake
 * call; wake.c opens, posts on, waits on and closes the channels.
 */
#ifndef JITTERLAB_ENGINE_WAKE_H
#define JITTERLAB_ENGINE_WAKE_H

#include <mqueue.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* WAKE_TIMER is the engine's own timer (the default); the others each
 * have a waker thread. */
enum wake_mech {
    WAKE_TIMER,
    WAKE_FUTEX,
    WAKE_EVENTFD,
    WAKE_PIPE,
    WAKE_SIGNAL,
    WAKE_MQ,
    WAKE_SEM,
    WAKE_MECH_COUNT
};

/* The mechanism's name ("timer", "futex", ...). */
const char *wake_mech_name(enum wake_mech m);
/* 0 and *out, or -1 for an unknown name. */
int wake_mech_parse(const char *name, enum wake_mech *out);
/* "timer, futex, eventfd, pipe, signal, mq, sem": for messages and help. */
const char *wake_mech_list(void);

/* The waker's timestamps of the newest wakes, by sequence number: the
 * mechanisms that carry no timestamp (futex, eventfd, signal, sem) give
 * the measured thread a sequence number, and it finds the timestamp here. */
#define WAKE_STAMPS 64

struct wake_stamp {
    _Atomic uint64_t seq; /* written after ts: a reader checks it around ts */
    _Atomic int64_t ts_ns;
};

/* What a pipe or a message queue carries: the wake itself. */
struct wake_message {
    uint64_t seq;
    int64_t ts_ns;
};

/* One measured CPU's channel. The lines the waker writes (its stamps, the
 * futex word, the end) are apart from those the measured thread writes
 * (its own counts of eventfd and semaphore wakes). */
struct wake_channel {
    /* written by the waker */
    alignas(64) _Atomic uint32_t futex_word; /* the low 32 bits of the newest seq */
    _Atomic uint64_t end_seq;                /* a wake with seq >= this ends the wait */
    struct wake_stamp stamps[WAKE_STAMPS];
    /* set before the threads start, read-only after */
    alignas(64) enum wake_mech mech;
    int fd_read, fd_write; /* eventfd (both the same) or the pipe's ends */
    mqd_t mq;
    sem_t *sem; /* in a shared mapping of its own */
    int signo;
    pthread_t target;            /* the measured thread (signal) */
    int64_t realtime_minus_mono; /* mq_timedreceive's clock, from ours */
    /* written by the measured thread only */
    alignas(64) uint64_t consumed; /* eventfd and sem: wakes taken so far */
};

/* A wake as the measured thread received it. */
struct wake_got {
    uint64_t seq;
    int64_t ts_ns; /* -1: not known (a stamp overwritten since) */
};

/* Opens what the mechanism needs (the message queue under a unique name,
 * unlinked at once). 0, or -1 with err filled. */
int wake_channel_open(struct wake_channel *ch, enum wake_mech m, int index, uint64_t end_seq,
                      char *err, size_t errlen);
/* Closes everything; a channel never opened, or closed, is left alone. */
void wake_channel_close(struct wake_channel *ch);

/* The waker: records the timestamp of wake seq and issues the wake;
 * skipped: the sequence numbers just before seq that were never issued
 * (the mechanisms that count wakes, eventfd and sem, count them too, so
 * that their count stays the sequence number). 0, or an errno (a full
 * pipe or queue loses the wake: the measured thread sees the gap). */
int wake_post(struct wake_channel *ch, uint64_t seq, int64_t ts_ns, uint64_t skipped);

/* The measured thread: blocks until a wake with a sequence number of at
 * least `expected` arrives, or for about grace_ns after now_ns (a recent
 * CLOCK_MONOTONIC reading; eventfd and pipe have no timeout: the waker's
 * last wake or the engine's stop signal ends their wait). 0 with *got, or
 * EAGAIN (nothing new: wait again), EINTR, ETIMEDOUT, or another errno. */
int wake_wait(struct wake_channel *ch, uint64_t expected, int64_t now_ns, int64_t grace_ns,
              struct wake_got *got);

/* The waker's timestamp of wake seq; -1 when its entry holds another
 * (the measured thread was WAKE_STAMPS wakes behind, or the wake was never
 * stamped: pipe and mq carry theirs in the message). */
int64_t wake_stamp_of(const struct wake_channel *ch, uint64_t seq);

/* The signal the signal mechanism uses (blocked in the measured thread). */
int wake_signal_number(void);

#endif
