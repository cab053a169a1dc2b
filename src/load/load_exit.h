/*
 * How one start of a cmd load ended, and what it said on stderr: the
 * bounded tail of its stderr pipe and the classification of its exit
 * status. Kept apart from the runner so that the rules (a kill by our own
 * OFF phase is not a failure; exit 0 is "finished") are testable alone.
 */
#ifndef JITTERLAB_LOAD_LOAD_EXIT_H
#define JITTERLAB_LOAD_LOAD_EXIT_H

#include <stdbool.h>
#include <stddef.h>

#define LOAD_TAIL_BYTES 512 /* how much of a command's stderr is kept */

/* The last LOAD_TAIL_BYTES bytes written, NUL-terminated. */
struct load_tail {
    size_t len;
    char text[LOAD_TAIL_BYTES + 1];
};

void load_tail_append(struct load_tail *t, const char *buf, size_t n);

enum load_exit {
    LOAD_EXIT_STOPPED,  /* still running when our OFF phase (or the end) stopped it */
    LOAD_EXIT_FINISHED, /* exited 0 by itself */
    LOAD_EXIT_FAILED,   /* exited non-zero, or killed by a signal not ours */
};

/* code and status: si_code and si_status as waitid() reports them (CLD_EXITED, CLD_KILLED,
 * CLD_DUMPED); by_us: the command was still running when we signalled it. */
enum load_exit load_exit_classify(int code, int status, bool by_us);

/* "exit status 3", "killed by signal 11 (Segmentation fault)". */
void load_exit_describe(int code, int status, char *buf, size_t len);

/* The tail as one line for a message: trailing white space dropped, line
 * breaks as "; ", bytes that are not printable ASCII as '?'. */
void load_tail_line(const struct load_tail *t, char *buf, size_t len);

#endif
