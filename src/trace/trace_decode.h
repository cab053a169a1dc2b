/*
 * From perf ring-buffer bytes to struct trace_event, with no system call:
 * the part of the capture that unit tests and the fuzzer drive directly.
 *
 * A trace_decoder holds, per tracepoint jitterlab reads, where each field
 * sits in the raw record (taken once from the kernel's format files through
 * libtraceevent) and which trace_event member it fills. The ring reader
 * treats the buffer as hostile: a record whose size runs past the data, a
 * raw part past its record or a field past its raw part is counted as lost
 * and never read out of bounds.
 */
#ifndef JITTERLAB_TRACE_TRACE_DECODE_H
#define JITTERLAB_TRACE_TRACE_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace_event.h"

struct tep_handle;

/* Which trace_event member a tracepoint field fills. */
enum trace_role {
    ROLE_PID,       /* pid */
    ROLE_PRIO,      /* prio */
    ROLE_NAME,      /* name: a char array or a __data_loc string */
    ROLE_PREV_PID,  /* prev_pid */
    ROLE_PREV_PRIO, /* prev_prio */
    ROLE_PREV_COMM, /* prev_comm */
    ROLE_ARG,       /* arg; 4-byte values sign-extended (cpu_idle's -1) */
    ROLE_ID,        /* id */
    ROLE_FUNC,      /* name: the kernel symbol at this address, or the address */
    ROLE_SOFTIRQ,   /* id and name: the softirq vector */
    ROLE_COUNT
};

struct trace_field {
    uint16_t offset;
    uint16_t size;
    uint8_t present;
    uint8_t dynamic; /* __data_loc: 16-bit offset, 16-bit length */
};

struct trace_format {
    uint16_t id; /* the event's common_type */
    uint16_t kind;
    char name[TRACE_COMM_LEN * 2]; /* fixed name (irq_vectors), else "" */
    char event[48];                /* "system:event", for messages */
    struct trace_field field[ROLE_COUNT];
};

#define TRACE_MAX_FORMATS 64

struct trace_decoder {
    struct trace_format format[TRACE_MAX_FORMATS];
    int nformats;
    uint8_t index_of[65536];           /* common_type -> format index + 1; 0: not ours */
    struct tep_handle *symbols;        /* kernel symbols for ROLE_FUNC; may be NULL */
    uint64_t count[TRACE_MAX_FORMATS]; /* records decoded, per format */
    uint8_t scratch[65536 + 8];        /* one record that wraps the ring end */
};

/* One tracepoint jitterlab wants, by system and event name. */
struct trace_wanted {
    const char *system;
    const char *event;
    enum trace_kind kind;
};

/* The fixed list (irq_vectors are added by name: trace_decoder_add_vector). */
extern const struct trace_wanted trace_wanted_events[];
extern const size_t trace_wanted_count;

void trace_decoder_init(struct trace_decoder *d);
/* Adds the event's layout from tep. 0, or -1 when tep does not know the
 * event (the caller lists it as missing) or the table is full. */
int trace_decoder_add(struct trace_decoder *d, struct tep_handle *tep, const char *system,
                      const char *event, enum trace_kind kind);
/* irq_vectors:X_entry / X_exit: kind from the suffix, name X. 0 or -1. */
int trace_decoder_add_vector(struct trace_decoder *d, struct tep_handle *tep, const char *event);

/* Decodes the records between *tail and head of a perf data area of size
 * bytes (a power of two), at most max events into out (a record that does
 * not fit stays for the next call). Advances *tail past what was consumed,
 * adds lost records (PERF_RECORD_LOST and malformed ones) to *lost and
 * marks where in the stream they were lost with a TRACE_LOST event (one
 * for consecutive losses), so that the reader can tell which stretch of
 * time they leave without events. The records are PERF_SAMPLE_TIME | RAW
 * samples of the ring of one CPU, cpu, which every event gets. Counts each
 * decoded record in d->count of its format. */
size_t trace_decode_ring(struct trace_decoder *d, const uint8_t *data, uint64_t size, uint64_t head,
                         uint64_t *tail, int cpu, struct trace_event *out, size_t max,
                         uint64_t *lost);

/* Decodes one tracepoint's raw bytes (the PERF_SAMPLE_RAW part) into ev,
 * whose t_ns, cpu and pid the caller has set. 1 decoded, 0 not one of
 * ours, -1 malformed. */
int trace_decode_raw(const struct trace_decoder *d, const uint8_t *raw, uint32_t raw_size,
                     struct trace_event *ev);

/* One tracepoint record (raw: its common_type, common_pid, ... as both
 * perf's RAW part and ftrace's ring hold it), recorded at t_ns on cpu, into
 * out[n], counted in d->count of its format; a malformed one is a loss
 * there (trace_decode_mark_lost), one not of ours is left out. Returns the
 * new count. */
size_t trace_decode_append(struct trace_decoder *d, const uint8_t *raw, size_t raw_size,
                           int64_t t_ns, int cpu, struct trace_event *out, size_t n,
                           uint64_t *lost);
/* A loss of records at out[n] of the stream: a TRACE_LOST marker there, or
 * added to the marker just before it (out needs room for one more). Adds
 * records to *lost; returns the new count. */
size_t trace_decode_mark_lost(struct trace_event *out, size_t n, uint64_t records, uint64_t *lost);

#endif
