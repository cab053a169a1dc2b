/*
 * The wake channels of `run --wake MECH` (see wake.h): one per measured
 * CPU, opened before any thread starts and closed after every thread has
 * ended. Each mechanism tells the measured thread which wake it received,
 * so that a wake it was not waiting for is counted, never lost or counted
 * twice: the futex word is the sequence number (its low 32 bits), an
 * eventfd read returns the wakes since the last read, a pipe or queue
 * message is {seq, timestamp}, a signal's si_value is the sequence number,
 * and each semaphore wait takes one post, in order. The waker's timestamps
 * of the mechanisms that carry none sit in a small table by sequence
 * number, on lines only the waker writes.
 */
#include "engine/wake.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *const mech_names[WAKE_MECH_COUNT] = {
    "timer", "futex", "eventfd", "pipe", "signal", "mq", "sem",
};

const char *wake_mech_name(enum wake_mech m)
{
    return (unsigned)m < WAKE_MECH_COUNT ? mech_names[m] : "?";
}

int wake_mech_parse(const char *name, enum wake_mech *out)
{
    for (int m = 0; m < WAKE_MECH_COUNT; m++)
        if (strcmp(name, mech_names[m]) == 0) {
            *out = (enum wake_mech)m;
            return 0;
        }
    return -1;
}

const char *wake_mech_list(void)
{
    return "timer, futex, eventfd, pipe, signal, mq, sem";
}

int wake_signal_number(void)
{
    return SIGRTMIN + 2; /* glibc keeps the first ones; nothing else here uses RT signals */
}

static struct timespec ns_timespec(int64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    return ts;
}

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int wake_channel_open(struct wake_channel *ch, enum wake_mech m, int index, uint64_t end_seq,
                      char *err, size_t errlen)
{
    memset(ch, 0, sizeof(*ch));
    ch->mech = m;
    ch->fd_read = ch->fd_write = -1;
    ch->mq = (mqd_t)-1;
    ch->signo = wake_signal_number();
    atomic_store(&ch->futex_word, UINT32_MAX); /* seq -1: no wake yet */
    atomic_store(&ch->end_seq, end_seq);
    for (int i = 0; i < WAKE_STAMPS; i++)
        atomic_store(&ch->stamps[i].seq, UINT64_MAX);
    ch->realtime_minus_mono = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
    switch (m) {
    case WAKE_EVENTFD:
        ch->fd_read = ch->fd_write = eventfd(0, EFD_CLOEXEC);
        if (ch->fd_read < 0)
            goto fail;
        break;
    case WAKE_PIPE: {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0)
            goto fail;
        ch->fd_read = fds[0];
        ch->fd_write = fds[1];
        /* A full pipe must not hold the waker: the wake is lost, and the
         * measured thread sees the gap. */
        if (fcntl(ch->fd_write, F_SETFL, O_NONBLOCK) != 0)
            goto fail;
        break;
    }
    case WAKE_MQ: {
        char name[64];
        snprintf(name, sizeof name, "/jitterlab-%d-%d", (int)getpid(), index);
        struct mq_attr attr = {.mq_maxmsg = 8, .mq_msgsize = sizeof(struct wake_message)};
        ch->mq = mq_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600, &attr);
        if (ch->mq == (mqd_t)-1)
            goto fail;
        mq_unlink(name); /* nothing left in /dev/mqueue, whatever ends the run */
        break;
    }
    case WAKE_SEM:
        ch->sem =
            mmap(NULL, sizeof(sem_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (ch->sem == MAP_FAILED) {
            ch->sem = NULL;
            goto fail;
        }
        if (sem_init(ch->sem, 1, 0) != 0)
            goto fail;
        break;
    default:
        break;
    }
    return 0;
fail:
    snprintf(err, errlen, "--wake %s: cannot open the channel of CPU index %d: %s",
             wake_mech_name(m), index, strerror(errno));
    wake_channel_close(ch);
    return -1;
}

void wake_channel_close(struct wake_channel *ch)
{
    if (ch->fd_read >= 0)
        close(ch->fd_read);
    if (ch->fd_write >= 0 && ch->fd_write != ch->fd_read)
        close(ch->fd_write);
    ch->fd_read = ch->fd_write = -1;
    if (ch->mq != (mqd_t)-1)
        mq_close(ch->mq);
    ch->mq = (mqd_t)-1;
    if (ch->sem) {
        sem_destroy(ch->sem);
        munmap(ch->sem, sizeof(sem_t));
        ch->sem = NULL;
    }
}

static void stamp_put(struct wake_channel *ch, uint64_t seq, int64_t ts_ns)
{
    struct wake_stamp *s = &ch->stamps[seq % WAKE_STAMPS];
    atomic_store_explicit(&s->seq, UINT64_MAX, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&s->ts_ns, ts_ns, memory_order_relaxed);
    atomic_store_explicit(&s->seq, seq, memory_order_release);
}

int64_t wake_stamp_of(const struct wake_channel *ch, uint64_t seq)
{
    const struct wake_stamp *s = &ch->stamps[seq % WAKE_STAMPS];
    uint64_t before = atomic_load_explicit(&s->seq, memory_order_acquire);
    int64_t ts = atomic_load_explicit(&s->ts_ns, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    uint64_t after = atomic_load_explicit(&s->seq, memory_order_relaxed);
    return before == seq && after == seq ? ts : -1;
}

int wake_post(struct wake_channel *ch, uint64_t seq, int64_t ts_ns, uint64_t skipped)
{
    struct wake_message msg = {.seq = seq, .ts_ns = ts_ns};
    uint64_t count = skipped + 1;
    switch (ch->mech) {
    case WAKE_FUTEX:
        stamp_put(ch, seq, ts_ns);
        atomic_store_explicit(&ch->futex_word, (uint32_t)seq, memory_order_release);
        if (syscall(SYS_futex, &ch->futex_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) < 0)
            return errno;
        return 0;
    case WAKE_EVENTFD:
        stamp_put(ch, seq, ts_ns);
        return write(ch->fd_write, &count, sizeof count) == (ssize_t)sizeof count ? 0 : errno;
    case WAKE_PIPE:
        return write(ch->fd_write, &msg, sizeof msg) == (ssize_t)sizeof msg ? 0 : errno;
    case WAKE_SIGNAL: {
        stamp_put(ch, seq, ts_ns);
        union sigval v = {.sival_ptr = (void *)(uintptr_t)seq};
        return pthread_sigqueue(ch->target, ch->signo, v);
    }
    case WAKE_MQ: {
        /* never blocks: a deadline already past (a full queue loses the wake) */
        struct timespec past = {0, 0};
        if (mq_timedsend(ch->mq, (const char *)&msg, sizeof msg, 0, &past) == 0)
            return 0;
        /* a full queue with a deadline already past reports ETIMEDOUT */
        return errno == ETIMEDOUT ? EAGAIN : errno;
    }
    case WAKE_SEM:
        stamp_put(ch, seq, ts_ns);
        /* the skipped ones first: posts the measured thread takes as the
         * gap (no waiter is woken for them while it is busy) */
        for (uint64_t i = 0; i < skipped; i++)
            if (sem_post(ch->sem) != 0)
                return errno;
        return sem_post(ch->sem) == 0 ? 0 : errno;
    default:
        return EINVAL;
    }
}

int wake_wait(struct wake_channel *ch, uint64_t expected, int64_t now_ns, int64_t grace_ns,
              struct wake_got *got)
{
    struct timespec rel = ns_timespec(grace_ns);
    switch (ch->mech) {
    case WAKE_FUTEX: {
        uint32_t last = (uint32_t)(expected - 1);
        if (atomic_load_explicit(&ch->futex_word, memory_order_acquire) == last &&
            syscall(SYS_futex, &ch->futex_word, FUTEX_WAIT_PRIVATE, last, &rel, NULL, 0) < 0 &&
            errno != EAGAIN)
            return errno;
        uint32_t word = atomic_load_explicit(&ch->futex_word, memory_order_acquire);
        if (word == last)
            return EAGAIN; /* woken for nothing */
        got->seq = expected - 1 + (uint32_t)(word - last);
        got->ts_ns = wake_stamp_of(ch, got->seq);
        return 0;
    }
    case WAKE_EVENTFD: {
        uint64_t n;
        if (read(ch->fd_read, &n, sizeof n) != (ssize_t)sizeof n)
            return errno;
        ch->consumed += n;
        got->seq = ch->consumed - 1;
        got->ts_ns = wake_stamp_of(ch, got->seq);
        return 0;
    }
    case WAKE_PIPE: {
        struct wake_message msg;
        ssize_t r = read(ch->fd_read, &msg, sizeof msg);
        if (r != (ssize_t)sizeof msg)
            return r < 0 ? errno : EIO;
        got->seq = msg.seq;
        got->ts_ns = msg.ts_ns;
        return 0;
    }
    case WAKE_SIGNAL: {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, ch->signo);
        siginfo_t info;
        if (sigtimedwait(&set, &info, &rel) < 0)
            return errno == EAGAIN ? ETIMEDOUT : errno;
        got->seq = (uint64_t)(uintptr_t)info.si_value.sival_ptr;
        got->ts_ns = wake_stamp_of(ch, got->seq);
        return 0;
    }
    case WAKE_MQ: {
        struct wake_message msg;
        struct timespec until = ns_timespec(now_ns + grace_ns + ch->realtime_minus_mono);
        ssize_t r = mq_timedreceive(ch->mq, (char *)&msg, sizeof msg, NULL, &until);
        if (r != (ssize_t)sizeof msg)
            return r < 0 ? errno : EIO;
        got->seq = msg.seq;
        got->ts_ns = msg.ts_ns;
        return 0;
    }
    case WAKE_SEM: {
        struct timespec until = ns_timespec(now_ns + grace_ns);
        if (sem_clockwait(ch->sem, CLOCK_MONOTONIC, &until) != 0)
            return errno;
        got->seq = ch->consumed++;
        got->ts_ns = wake_stamp_of(ch, got->seq);
        return 0;
    }
    default:
        return EINVAL;
    }
}
