/*
 * The waker threads of `run --wake MECH` (waker.c): one per measured CPU,
 * with the channel it wakes that CPU's measuring thread through. Internal
 * to the engine: engine.c creates and frees them with the engine,
 * engine_threads.c starts, stops and joins them with the measuring
 * threads, engine_wake.c is the measured side.
 */
#ifndef JITTERLAB_ENGINE_WAKER_H
#define JITTERLAB_ENGINE_WAKER_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"
#include "engine/wake.h"

struct engine;
struct cpu_slot;

struct waker {
    struct wake_channel ch;                 /* aligned lines of its own (wake.h) */
    alignas(64) struct waker_result result; /* written by the waker thread */
    alignas(64) _Atomic bool stop;
    _Atomic bool done;
    pthread_t thread;
    bool started;
    struct engine *engine;
    struct cpu_slot *slot;
};

/* The planned wakes of a run: those before start + duration (all of them
 * up to the last representable planned time without a duration). */
uint64_t waker_planned_wakes(int64_t interval_ns, int64_t duration_ns);

/* engine_create: a waker and an open channel for every slot. 0, or -1 with
 * err filled (what was made is freed by wakers_free). */
int wakers_create(struct engine *e, char *err, size_t errlen);
/* engine_start, once the measuring threads exist: the wakers, waiting at
 * the engine's gate like them. 0, or -1 with err filled. */
int wakers_start(struct engine *e, char *err, size_t errlen);
/* engine_stop: wakes every sleeping waker to end it. */
void wakers_stop(struct engine *e);
/* engine_join: ends and joins every waker (before the measuring threads,
 * so that no wake is issued to a thread that has gone). */
void wakers_join(struct engine *e);
void wakers_free(struct engine *e);

#endif
