/*
 * `run --influx FILE|udp://HOST:PORT|http[s]://HOST:PORT/PATH`: one InfluxDB
 * line-protocol point per measured CPU and report window (measurement
 * `jitterlab`, tags host and cpu, the window's samples, missed periods,
 * min, mean, p50, p99, p99.9 and max latency and, in a run with a
 * deadline, deadline misses: the
 * window's max, never a last value), and the telemetry fields per
 * telemetry window under the same tags (a window that ends at the same
 * time merges into the same point). A file is a log, appended to and
 * reopened on request; UDP sends without waiting; HTTP (libcurl, InfluxDB
 * 1.x /write?db= and 2.x /api/v2/write, token from $INFLUX_TOKEN) posts
 * from a thread of its own, fed through a bounded queue: a slow or absent
 * server never holds up the collector, and what it could not take is
 * counted. The collector calls everything but the thread.
 */
#ifndef JITTERLAB_EXPORT_INFLUX_H
#define JITTERLAB_EXPORT_INFLUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "stats/histogram.h"
#include "stats/window.h"
#include "telemetry/run_telemetry.h"

enum influx_kind { INFLUX_FILE, INFLUX_UDP, INFLUX_HTTP };

struct influx_dest {
    enum influx_kind kind;
    char text[2048];            /* the path or URL as given */
    char shown[2048];           /* as messages and records show it: no credentials */
    struct sockaddr_storage sa; /* UDP */
    socklen_t salen;
};

/* 0, or -1 with why (a UDP host is resolved here). */
int influx_dest_parse(const char *text, struct influx_dest *d, char *why, size_t whylen);

/* What a text becomes in a line: INFLUX_KEY for tag keys and values and
 * field keys. */
enum influx_part { INFLUX_MEASUREMENT, INFLUX_KEY, INFLUX_STRING };
/* Escapes in for its part of a line into out[len] (always NUL-terminated,
 * cut only between whole characters); returns the length written. */
size_t influx_escape(char *out, size_t len, const char *in, enum influx_part part);

/* Formatting, pure: one line with its newline into buf; returns its length,
 * or 0 when it does not fit or there is nothing to write. */
size_t influx_window_line(char *buf, size_t len, const char *host, bool with_deadline,
                          const struct interval_stats *w, const struct latency_hist *h,
                          int64_t t_unix_ns);
size_t influx_telemetry_line(char *buf, size_t len, const char *host,
                             const struct telemetry_cpu_figures *f, int64_t t_unix_ns);

struct influx_counts {
    uint64_t points;  /* written or queued */
    uint64_t sent;    /* accepted by the destination (HTTP: 2xx; file, UDP: written) */
    uint64_t dropped; /* the queue was full, or a send failed */
    char last_error[256];
};

struct influx;

/* Opens the destination (and the HTTP thread); with_deadline: the windows
 * carry deadline_misses. NULL with err. */
struct influx *influx_open(const struct influx_dest *d, const char *host, bool with_deadline,
                           char *err, size_t errlen);
/* Adds one window's point / one telemetry point to the open batch. */
void influx_window(struct influx *x, const struct interval_stats *w, const struct latency_hist *h,
                   int64_t t_unix_ns);
void influx_telemetry(struct influx *x, const struct telemetry_cpu_figures *f, int64_t t_unix_ns);
/* Hands the batch to the destination (after a drain pass). */
void influx_flush(struct influx *x);
/* A file is closed and opened again (logrotate); 0 or -1 with err. */
int influx_reopen(struct influx *x, char *err, size_t errlen);
/* Sends what is left (HTTP: for at most a few seconds), stops, frees. */
void influx_close(struct influx *x, struct influx_counts *out);

#endif
