/*
 * The writer thread and its buffers (see async_write.h): a fixed set of
 * buffers, the caller filling one, full ones queued in order, the thread
 * writing them with fwrite and giving them back.
 */
#include "common/async_write.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define AW_BUFFERS        8
#define AW_BUFFER_RECORDS 8192

struct aw_buffer {
    char *data;
    size_t len; /* records */
    bool flush; /* fflush after writing it */
};

struct async_write {
    FILE *fp;
    size_t record_size;
    async_write_format format;
    const void *ctx;
    char *text; /* the thread's: one buffer's records as text */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct aw_buffer buf[AW_BUFFERS];
    /* the caller's: the buffer being filled */
    int filling;
    /* under lock: full buffers in order (a ring of indices), free ones */
    int queue[AW_BUFFERS];
    int q_head, q_len;
    int free_list[AW_BUFFERS];
    int n_free;
    bool stopping;
};

static void *writer(void *arg)
{
    struct async_write *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (w->q_len == 0 && !w->stopping)
            pthread_cond_wait(&w->cond, &w->lock);
        if (w->q_len == 0)
            break; /* stopping, and everything written */
        struct aw_buffer *b = &w->buf[w->queue[w->q_head]];
        int idx = w->queue[w->q_head];
        pthread_mutex_unlock(&w->lock);
        if (b->len > 0) {
            size_t n = w->format(w->ctx, b->data, b->len, w->text);
            fwrite_unlocked(w->text, 1, n, w->fp);
        }
        if (b->flush)
            fflush(w->fp);
        pthread_mutex_lock(&w->lock);
        b->len = 0;
        b->flush = false;
        w->q_head = (w->q_head + 1) % AW_BUFFERS;
        w->q_len--;
        w->free_list[w->n_free++] = idx;
        pthread_cond_broadcast(&w->cond);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

static void free_buffers(struct async_write *w)
{
    for (int i = 0; i < AW_BUFFERS; i++)
        free(w->buf[i].data);
    free(w->text);
    free(w);
}

struct async_write *async_write_start(FILE *fp, size_t record_size, async_write_format format,
                                      const void *ctx, char *err, size_t errlen)
{
    struct async_write *w = calloc(1, sizeof(*w));
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->fp = fp;
    w->record_size = record_size;
    w->format = format;
    w->ctx = ctx;
    /* everything touched, so that it is resident (and locked) before the run */
    w->text = calloc(AW_BUFFER_RECORDS, AW_TEXT_PER_RECORD);
    bool ok = w->text != NULL;
    for (int i = 0; i < AW_BUFFERS && ok; i++) {
        w->buf[i].data = calloc(AW_BUFFER_RECORDS, record_size);
        ok = w->buf[i].data != NULL;
        if (ok)
            memset(w->buf[i].data, 0, AW_BUFFER_RECORDS * record_size);
        if (i > 0)
            w->free_list[w->n_free++] = i;
    }
    if (!ok) {
        free_buffers(w);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    memset(w->text, 0, (size_t)AW_BUFFER_RECORDS * AW_TEXT_PER_RECORD);
    w->filling = 0;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&w->thread, NULL, writer, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the writer thread: %s", strerror(rc));
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->cond);
        free_buffers(w);
        return NULL;
    }
    return w;
}

/* Queues the buffer being filled (flush: fflush after it) and takes a free
 * one, waiting while there is none. */
static void hand_over(struct async_write *w, bool flush)
{
    pthread_mutex_lock(&w->lock);
    w->buf[w->filling].flush = flush;
    w->queue[(w->q_head + w->q_len) % AW_BUFFERS] = w->filling;
    w->q_len++;
    pthread_cond_broadcast(&w->cond);
    while (w->n_free == 0)
        pthread_cond_wait(&w->cond, &w->lock);
    w->filling = w->free_list[--w->n_free];
    pthread_mutex_unlock(&w->lock);
}

void *async_write_record(struct async_write *w)
{
    struct aw_buffer *b = &w->buf[w->filling];
    if (b->len == AW_BUFFER_RECORDS) {
        hand_over(w, false);
        b = &w->buf[w->filling];
    }
    return b->data + w->record_size * b->len++;
}

void async_write_flush(struct async_write *w)
{
    hand_over(w, true);
}

void async_write_finish(struct async_write *w)
{
    if (!w)
        return;
    hand_over(w, true);
    pthread_mutex_lock(&w->lock);
    w->stopping = true;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
    free_buffers(w);
}
