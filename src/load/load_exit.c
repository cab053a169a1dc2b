/*
 * The outcome of one start of a cmd load. A command's stderr goes through a
 * pipe that the runner drains while it waits; only the last LOAD_TAIL_BYTES
 * are kept, so a chatty command costs a bounded buffer. Whether a start
 * failed is decided from the shell's status as waitid() reports it, and from
 * whether we had already sent our own SIGTERM/SIGKILL (end of an ON phase or
 * of the load): that kill is how every pulsed start ends and is no failure.
 */
#include "load/load_exit.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

void load_tail_append(struct load_tail *t, const char *buf, size_t n)
{
    if (n >= LOAD_TAIL_BYTES) {
        memcpy(t->text, buf + (n - LOAD_TAIL_BYTES), LOAD_TAIL_BYTES);
        t->len = LOAD_TAIL_BYTES;
    } else {
        if (t->len + n > LOAD_TAIL_BYTES) {
            size_t drop = t->len + n - LOAD_TAIL_BYTES;
            memmove(t->text, t->text + drop, t->len - drop);
            t->len -= drop;
        }
        memcpy(t->text + t->len, buf, n);
        t->len += n;
    }
    t->text[t->len] = '\0';
}

enum load_exit load_exit_classify(int code, int status, bool by_us)
{
    if (by_us)
        return LOAD_EXIT_STOPPED;
    if (code == CLD_EXITED && status == 0)
        return LOAD_EXIT_FINISHED;
    return LOAD_EXIT_FAILED;
}

void load_exit_describe(int code, int status, char *buf, size_t len)
{
    if (code == CLD_EXITED)
        snprintf(buf, len, "exit status %d", status);
    else
        snprintf(buf, len, "killed by signal %d (%s)", status, strsignal(status));
}

void load_tail_line(const struct load_tail *t, char *buf, size_t len)
{
    size_t n = t->len, from = 0, o = 0;
    while (n > 0 && (t->text[n - 1] == '\n' || t->text[n - 1] == ' ' || t->text[n - 1] == '\t' ||
                     t->text[n - 1] == '\r'))
        n--;
    while (from < n && (t->text[from] == '\n' || t->text[from] == ' '))
        from++;
    for (size_t i = from; i < n && o + 3 < len; i++) {
        unsigned char ch = (unsigned char)t->text[i];
        if (ch == '\n') {
            buf[o++] = ';';
            buf[o++] = ' ';
        } else if (ch == '\r') {
            continue;
        } else {
            buf[o++] = ch == '\t' || (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
        }
    }
    if (len)
        buf[o < len ? o : len - 1] = '\0';
}
