/*
 * What capture.c (perf rings, rings in memory) and capture_ftrace.c (the
 * ftrace instance) share: the capture's state and the few helpers both
 * use. Private to the capture.
 */
#ifndef JITTERLAB_TRACE_CAPTURE_INTERNAL_H
#define JITTERLAB_TRACE_CAPTURE_INTERNAL_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/cpulist.h"
#include "trace/trace_decode.h"
#include "trace/trace_event.h"

struct tep_handle;
struct tracefs_cpu;
struct tracefs_instance;
struct kbuffer;

struct capture_cpu {
    int cpu;
    int fds[TRACE_MAX_FORMATS];       /* fds[0] owns the ring */
    int format_of[TRACE_MAX_FORMATS]; /* fds[k] is decoder.format[format_of[k]] */
    int nfds;
    struct perf_event_mmap_page *meta;
    uint8_t *data;
    uint64_t tail;
    /* The ring may have been full since a read: records may have been
     * dropped whose PERF_RECORD_LOST the kernel writes only with the next
     * record that fits, which will lie at or after clear_at (the head once
     * the reader had made room). */
    bool may_have_lost;
    uint64_t clear_at;
    /* ftrace: the CPU's trace_pipe_raw, the sub-buffer last read from it
     * and where in it the reader is */
    struct tracefs_cpu *tcpu;
    struct kbuffer *kbuf;
    void *page;
    bool loaded;
};

/* Where the records are written: an ftrace instance of our own (the
 * kernel's trace ring, switched on with one write), perf rings
 * (where no instance can be made), or plain memory (the unit tests). */
enum capture_ring { RING_FTRACE, RING_PERF, RING_MEMORY };

struct trace_capture {
    struct tep_handle *tep;
    struct trace_decoder decoder;
    int ncpu;
    struct capture_cpu *cpu;
    size_t map_bytes;  /* meta page + data */
    size_t data_bytes; /* a power of two */
    uint64_t lost;
    uint64_t events;
    enum capture_ring ring;
    struct tracefs_instance *inst; /* RING_FTRACE */
    char missing[512];
};

/* Adds "system:event" (or a system, event NULL) to the missing list. */
void capture_add_missing(struct trace_capture *tc, const char *system, const char *event);
/* Whether JITTERLAB_TRACE_EVENTS (a bench aid) selects the event. */
bool capture_event_selected(const char *event);

/* The ftrace instance (capture_ftrace.c). open: 0, or -1 with err (the
 * caller closes it and falls back to perf); close undoes what open did,
 * whatever it got to; read decodes up to max of the CPU's records. */
int capture_ftrace_open(struct trace_capture *tc, const struct cpulist *cpus, size_t bytes_per_cpu,
                        char *err, size_t errlen);
void capture_ftrace_close(struct trace_capture *tc);
size_t capture_ftrace_read(struct trace_capture *tc, struct capture_cpu *c, struct trace_event *out,
                           size_t max);
/* Writes text to the instance's file ("enable", "filter") of "system:event". */
int capture_ftrace_event_write(struct trace_capture *tc, const char *event, const char *file,
                               const char *text);

#endif
