/*
 * `run --prometheus [ADDR:]PORT`: an HTTP server (libmicrohttpd, one
 * thread of its own, created from the collector's thread so it shares its
 * housekeeping CPUs and blocks every signal) serving GET /metrics from the
 * figures the collector publishes (metrics.h), GET / a short page, 404
 * otherwise. Bounded against abuse: connections, per-address connections,
 * request memory and an idle timeout.
 */
#ifndef JITTERLAB_EXPORT_EXPORTER_H
#define JITTERLAB_EXPORT_EXPORTER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "export/metrics.h"

/* A listening address: [ADDR:]PORT, ADDR an IPv4 address, [IPv6] or
 * localhost; without ADDR 127.0.0.1. */
struct listen_addr {
    struct sockaddr_storage sa;
    socklen_t len;
    char text[80]; /* as people read it: 127.0.0.1:9808, [::1]:9808 */
};

/* 0, or -1 with why. Port 0 is refused (a scraper must know it). */
int listen_addr_parse(const char *text, struct listen_addr *a, char *why, size_t whylen);

struct exporter;

/* Starts the server; NULL with err (address in use, no permission). */
struct exporter *exporter_start(const struct listen_addr *a, struct metrics *m, char *err,
                                size_t errlen);
/* Requests answered so far, by outcome. */
struct exporter_counts {
    uint64_t scrapes; /* /metrics answered */
    uint64_t refused; /* 404, 405 */
};
void exporter_counts(struct exporter *x, struct exporter_counts *out);
void exporter_stop(struct exporter *x);

#endif
