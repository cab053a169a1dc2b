/*
 * Reading /dev/kmsg (see kmsg.h). The device hands out one whole record per
 * read and says EAGAIN at the end (opened O_NONBLOCK, so a reader never
 * waits for the next printk) and EPIPE when records were overwritten before
 * we got them; a fixture is a plain file of the same lines, assembled here
 * from chunks into a bounded line buffer. Both paths share the header
 * parser, which checks every number for overflow and every byte.
 */
#include "sys/kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A record line: the header, then at most KMSG_TEXT_MAX bytes of text that
 * are kept; the rest of a longer line is skipped. */
#define KMSG_HEADER_MAX 256
#define KMSG_LINE_MAX   (KMSG_HEADER_MAX + KMSG_TEXT_MAX)
/* A device record with its continuation lines is at most 8 KiB
 * (CONSOLE_EXT_LOG_MAX); a smaller buffer makes read(2) fail with EINVAL. */
#define KMSG_DEVICE_BUF (16 * 1024)
#define KMSG_FILE_CHUNK (64 * 1024)

/* A decimal number of at most max at s[*i..len), advancing *i; -1 on
 * overflow or no digit. */
static int parse_u64(const char *s, size_t len, size_t *i, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    size_t start = *i;
    while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
        uint64_t d = (uint64_t)(s[*i] - '0');
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
        (*i)++;
    }
    if (*i == start)
        return -1;
    *out = v;
    return 0;
}

int kmsg_parse_line(const char *line, size_t len, struct kmsg_record *out, char *text,
                    size_t textcap)
{
    memset(out, 0, sizeof *out);
    size_t i = 0;
    uint64_t prio, seq, usec;
    if (parse_u64(line, len, &i, 0xffffff, &prio) != 0 || i >= len || line[i++] != ',' ||
        parse_u64(line, len, &i, UINT64_MAX, &seq) != 0 || i >= len || line[i++] != ',' ||
        parse_u64(line, len, &i, UINT64_MAX, &usec) != 0 || i >= len || line[i++] != ',')
        return -1;
    /* the flags, then any further fields the kernel may add, up to ';' */
    size_t semi = i;
    while (semi < len && semi < KMSG_HEADER_MAX && line[semi] != ';')
        semi++;
    if (semi >= len || line[semi] != ';' || semi == i)
        return -1;
    out->level = (int)(prio & 7);
    out->facility = (int)(prio >> 3);
    out->seq = seq;
    out->usec = usec;
    size_t n = len - semi - 1, keep = n < textcap - 1 ? n : textcap - 1;
    const unsigned char *src = (const unsigned char *)line + semi + 1;
    for (size_t k = 0; k < keep; k++)
        text[k] = src[k] < 0x20 || src[k] >= 0x7f ? '?' : (char)src[k];
    text[keep] = '\0';
    out->truncated = keep < n;
    out->text = text;
    out->len = keep;
    return 0;
}

struct reader {
    kmsg_fn fn;
    void *arg;
    struct kmsg_stats *st;
    uint64_t bytes;
    char text[KMSG_TEXT_MAX + 1];
};

/* One line (without its newline); false once the caps are reached. */
static bool take_line(struct reader *r, const char *line, size_t len, bool cut)
{
    if (len == 0 || line[0] == ' ')
        return true; /* an empty line or a " KEY=value" continuation */
    struct kmsg_record rec;
    if (kmsg_parse_line(line, len, &rec, r->text, sizeof r->text) != 0) {
        r->st->malformed++;
        return true;
    }
    rec.truncated = rec.truncated || cut;
    if (rec.truncated)
        r->st->truncated++;
    if (!r->st->have_first_seq) {
        r->st->have_first_seq = true;
        r->st->first_seq = rec.seq;
    }
    r->st->records++;
    r->fn(r->arg, &rec);
    if (r->st->records >= KMSG_MAX_RECORDS) {
        r->st->capped = true;
        return false;
    }
    return true;
}

static bool over_bytes(struct reader *r, size_t n)
{
    r->bytes += n;
    if (r->bytes <= KMSG_MAX_BYTES)
        return false;
    r->st->capped = true;
    return true;
}

/* The device: a record per read until EAGAIN. 0, or an errno when the very
 * first read failed. */
static int read_device(int fd, struct reader *r)
{
    char *buf = malloc(KMSG_DEVICE_BUF);
    if (!buf)
        return ENOMEM;
    int rc = 0;
    /* EINTR and EPIPE retry; a bound on the tries keeps a signal storm or a
     * log overwritten faster than we read from looping forever. */
    for (uint64_t tries = 0; tries < 2 * (uint64_t)KMSG_MAX_RECORDS; tries++) {
        ssize_t n = read(fd, buf, KMSG_DEVICE_BUF);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EPIPE) {
            r->st->lost++;
            continue;
        }
        if (n < 0) {
            /* EAGAIN: the end; EINVAL: a record larger than the buffer,
             * which the kernel will not skip: stop there too */
            if (errno != EAGAIN && errno != EINVAL && r->st->records == 0)
                rc = errno;
            break;
        }
        if (n == 0 || over_bytes(r, (size_t)n))
            break;
        const char *nl = memchr(buf, '\n', (size_t)n);
        size_t len = nl ? (size_t)(nl - buf) : (size_t)n;
        if (!take_line(r, buf, len, false))
            break;
    }
    free(buf);
    return rc;
}

/* A file: lines assembled in a bounded buffer. 0, or an errno when the
 * first read failed. */
static int read_lines(int fd, struct reader *r)
{
    char *chunk = malloc(KMSG_FILE_CHUNK);
    char *line = malloc(KMSG_LINE_MAX);
    if (!chunk || !line) {
        free(chunk);
        free(line);
        return ENOMEM;
    }
    size_t len = 0;
    bool cut = false, more = true, any = false;
    int rc = 0;
    while (more) {
        ssize_t n = read(fd, chunk, KMSG_FILE_CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            if (!any)
                rc = errno;
            break;
        }
        any = true;
        if (n == 0 || over_bytes(r, (size_t)n))
            break;
        for (ssize_t k = 0; k < n && more; k++) {
            if (chunk[k] == '\n') {
                more = take_line(r, line, len, cut);
                len = 0;
                cut = false;
            } else if (len < KMSG_LINE_MAX) {
                line[len++] = chunk[k];
            } else {
                cut = true;
            }
        }
    }
    if (more && rc == 0 && len > 0)
        take_line(r, line, len, cut); /* the last line had no newline */
    free(chunk);
    free(line);
    return rc;
}

int kmsg_read(const struct sysroot *sr, kmsg_fn fn, void *arg, struct kmsg_stats *st, char *why,
              size_t whylen)
{
    memset(st, 0, sizeof *st);
    if (why && whylen)
        why[0] = '\0';
    int fd = sysroot_open_beneath(sr, "/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, whylen, "not readable: %s", strerror(-fd));
        return -1;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        snprintf(why, whylen, "not readable: %s", strerror(errno));
        close(fd);
        return -1;
    }
    struct reader *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(why, whylen, "not readable: %s", strerror(ENOMEM));
        close(fd);
        return -1;
    }
    r->fn = fn;
    r->arg = arg;
    r->st = st;
    st->device = S_ISCHR(sb.st_mode);
    int err = st->device ? read_device(fd, r) : read_lines(fd, r);
    free(r);
    close(fd);
    if (err != 0) {
        snprintf(why, whylen, "not readable: %s", strerror(err));
        return -1;
    }
    return 0;
}
