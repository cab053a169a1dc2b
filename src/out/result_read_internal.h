/*
 * What the result reader's files share (result_read.c: the document, a
 * run's CPUs and report windows; result_read_noise.c: kind "noise"). Not
 * an interface: result_read.h is the module's. Every function returns 0,
 * or -1 with the key path and the reason in the reader's err.
 */
#ifndef JITTERLAB_OUT_RESULT_READ_INTERNAL_H
#define JITTERLAB_OUT_RESULT_READ_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "out/result_read.h"

struct reader {
    char *err;
    size_t errlen;
};

/* "where: why" into the reader's err; returns -1. */
int result_read_refuse(struct reader *r, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A count: a JSON integer >= 0. */
int result_read_count(struct reader *r, const json_t *obj, const char *where, const char *key,
                      uint64_t *out);
/* The statistics object under key ("latency_ns", "exec_ns", ...). */
int result_read_stats(struct reader *r, const json_t *cpu, const char *where, const char *key,
                      struct result_latency *out);
/* The "histogram" object of parent, whose bins and overflow must add up
 * to samples; key names the parent in messages ("" for the CPU entry). */
int result_read_histogram(struct reader *r, const json_t *parent, const char *where,
                          const char *key, uint64_t samples, struct result_dist *out);
/* The CPU entry's own "histogram" (its samples, or a noise CPU's gaps)
 * into out->bins, nbins and overflow. */
int result_read_cpu_histogram(struct reader *r, const json_t *obj, const char *where,
                              struct result_cpu *out);
/* An entry of cpus[] is an object with its CPU id; the merged "all" object
 * (merged) has none: out->cpu = -1. */
int result_read_cpu_head(struct reader *r, const json_t *obj, const char *where, bool merged,
                         struct result_cpu *out);
/* The reader of one cpus[] entry, or (merged) of the "all" object. */
typedef int (*cpu_reader)(struct reader *r, const json_t *obj, const char *where, bool merged,
                          struct result_cpu *out);

/* cpus[] (1 .. CPULIST_MAX_CPUS entries, no CPU twice) and "all", each
 * entry by read_one. */
int result_read_cpus(struct reader *r, const json_t *doc, cpu_reader read_one,
                     struct result_doc *out);
/* The kind "noise" document (result_read_noise.c). */
int result_read_noise(struct reader *r, const json_t *doc, struct result_doc *out);

#endif
