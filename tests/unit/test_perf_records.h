/*
 * perf records as the kernel writes them for jitterlab's tracepoints
 * (PERF_SAMPLE_TIME | RAW), built by hand for the tests that
 * feed the decoder and the explainer rings of their own: test_capture.c
 * and test_explain.c.
 */
#ifndef JITTERLAB_TESTS_PERF_RECORDS_H
#define JITTERLAB_TESTS_PERF_RECORDS_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

/* The largest record perf_sample_record builds, for a raw part of 64 bytes. */
#define PERF_RECORD_MAX 128

/* A PERF_RECORD_SAMPLE (TIME | RAW) holding raw, recorded in task tid
 * (the raw part's common_pid), padded as the kernel pads it: the record
 * stays a multiple of 8 bytes. Returns its size. */
static inline size_t perf_sample_record(uint8_t *rec, uint64_t t_ns, uint32_t tid, const void *raw,
                                        uint32_t raw_len)
{
    uint32_t padded = raw_len;
    while ((4 + padded) % 8)
        padded++;
    struct perf_event_header h = {.type = PERF_RECORD_SAMPLE, .size = (uint16_t)(8 + 12 + padded)};
    size_t at = 0;
    memcpy(rec + at, &h, sizeof(h));
    at += sizeof(h);
    memcpy(rec + at, &t_ns, sizeof(t_ns));
    at += sizeof(t_ns);
    memcpy(rec + at, &padded, sizeof(padded));
    at += sizeof(padded);
    memcpy(rec + at, raw, raw_len);
    if (raw_len >= 8)
        memcpy(rec + at + 4, &tid, 4);
    memset(rec + at + raw_len, 0, padded - raw_len);
    return at + padded;
}

/* A PERF_RECORD_LOST of count records into rec; returns its size. */
static inline size_t perf_lost_record(uint8_t *rec, uint64_t count)
{
    struct perf_event_header h = {.type = PERF_RECORD_LOST, .size = 24};
    uint64_t body[2] = {7, count}; /* id, lost */
    memcpy(rec, &h, sizeof(h));
    memcpy(rec + sizeof(h), body, sizeof(body));
    return 24;
}

/* sched_switch raw bytes (offsets of tests/fixtures/trace_formats.h);
 * type is the event's id. */
static inline void switch_raw(uint8_t raw[64], uint16_t type, const char *prev, int32_t prev_pid,
                              int32_t prev_prio, int64_t prev_state, const char *next,
                              int32_t next_pid, int32_t next_prio)
{
    memset(raw, 0, 64);
    memcpy(raw, &type, 2);
    strncpy((char *)raw + 8, prev, 16);
    memcpy(raw + 24, &prev_pid, 4);
    memcpy(raw + 28, &prev_prio, 4);
    memcpy(raw + 32, &prev_state, 8);
    strncpy((char *)raw + 40, next, 16);
    memcpy(raw + 56, &next_pid, 4);
    memcpy(raw + 60, &next_prio, 4);
}

#endif
