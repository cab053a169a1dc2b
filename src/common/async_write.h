/*
 * A file written from a thread of its own: the caller puts fixed-size
 * binary records into buffers and hands the full ones over; the writer
 * thread turns each buffer into text (the caller's `format`) and writes
 * it, so that formatting and write(2) (and a disk that throttles dirty
 * pages) cost the writer thread, not the caller. The samples file of a
 * 256-CPU run takes millions of rows a second; on the collector, it was
 * more than a third of the work per sample. Buffers are
 * allocated (and so locked) before the run; when all are full the caller
 * waits for one, as a blocking write would have made it wait.
 */
#ifndef JITTERLAB_COMMON_ASYNC_WRITE_H
#define JITTERLAB_COMMON_ASYNC_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct async_write;

/* Text of n records of record_size bytes at in, into out (room for
 * AW_TEXT_PER_RECORD bytes a record); returns the bytes of text. */
typedef size_t (*async_write_format)(const void *ctx, const void *in, size_t n, char *out);
#define AW_TEXT_PER_RECORD 256

/* Takes over fp until async_write_finish (the caller does not touch it in
 * between). The thread blocks every signal. NULL with err when out of
 * memory or no thread could start. */
struct async_write *async_write_start(FILE *fp, size_t record_size, async_write_format format,
                                      const void *ctx, char *err, size_t errlen);
/* Where the next record goes (record_size bytes); the caller fills it. */
void *async_write_record(struct async_write *w);
/* Hands over what is buffered and asks for an fflush after it (a log's
 * rows reach the file); does not wait. */
void async_write_flush(struct async_write *w);
/* Writes everything, ends the thread and frees w; fp is the caller's
 * again (ferror tells of a failed write). */
void async_write_finish(struct async_write *w);

#endif
