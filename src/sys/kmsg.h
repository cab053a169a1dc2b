/*
 * The kernel log, read through the sysroot from /dev/kmsg: on the device,
 * one record per read(2) ("prio,seq,usec,flags[,...];text" and continuation
 * lines " KEY=value"), without blocking, until EAGAIN; in a fixture tree the
 * same records as the lines of a plain file. The reader trusts none of its
 * input: a line longer than KMSG_TEXT_MAX is cut (and counted), bytes
 * outside printable ASCII become '?', a last line without a newline still
 * counts, and a log that keeps growing (or a huge file) cannot keep it
 * reading past KMSG_MAX_RECORDS records or KMSG_MAX_BYTES bytes.
 */
#ifndef JITTERLAB_SYS_KMSG_H
#define JITTERLAB_SYS_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/sysroot.h"

/* The longest record text delivered (the kernel's own limit is 1024). */
#define KMSG_TEXT_MAX    2048
#define KMSG_MAX_RECORDS 1000000
#define KMSG_MAX_BYTES   (64u << 20)

struct kmsg_record {
    int level;        /* syslog level 0 (emerg) .. 7 (debug) */
    int facility;     /* 0 for the kernel */
    uint64_t seq;     /* the record's sequence number */
    uint64_t usec;    /* CLOCK_MONOTONIC at the printk, in us */
    bool truncated;   /* the text was cut at KMSG_TEXT_MAX */
    const char *text; /* NUL-terminated, printable ASCII only */
    size_t len;
};

struct kmsg_stats {
    bool device;        /* read from a character device (else a file) */
    uint64_t records;   /* delivered */
    uint64_t malformed; /* lines without a "prio,seq,usec,flags;" header: skipped */
    uint64_t truncated; /* records cut at KMSG_TEXT_MAX */
    uint64_t lost;      /* EPIPE: records overwritten while we read */
    bool capped;        /* stopped at KMSG_MAX_RECORDS or KMSG_MAX_BYTES */
    bool have_first_seq;
    uint64_t first_seq; /* of the first record delivered */
};

typedef void (*kmsg_fn)(void *arg, const struct kmsg_record *rec);

/* Parses one record line of len bytes (no newline; may hold any bytes).
 * The text goes, sanitised, into text[textcap] (out->text points at it).
 * 0, or -1 when the header is missing or malformed. */
int kmsg_parse_line(const char *line, size_t len, struct kmsg_record *out, char *text,
                    size_t textcap);

/* Reads every record of sysroot's /dev/kmsg, calling fn for each in order.
 * 0; or -1 with why ("not readable: Permission denied") when the log could
 * not be opened or read at all. st is filled either way. */
int kmsg_read(const struct sysroot *sr, kmsg_fn fn, void *arg, struct kmsg_stats *st, char *why,
              size_t whylen);

#endif
