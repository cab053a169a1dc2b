/*
 * One child process of an experiment (a `jitterlab run`, a before or after
 * command, compare, report), started in a process group of its own so that
 * a terminal's Ctrl-C reaches only the experiment, which decides what the
 * child gets: child_run() waits for it while polling the stop request
 * (common/stop.h), forwards SIGINT to the child's group when asked, stops
 * a child that overruns its time limit, and SIGKILLs the group when it
 * ignores SIGINT. Output can be kept (its last bytes) instead of shown.
 */
#ifndef JITTERLAB_EXPERIMENT_CHILD_H
#define JITTERLAB_EXPERIMENT_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHILD_TAIL_BYTES 2048

struct child_spec {
    const char *path;       /* the program (execv, no PATH search) */
    char *const *argv;      /* NULL-terminated */
    const char *cwd;        /* directory to run in; NULL: ours */
    const char *const *env; /* NAME=VALUE added to ours, NULL-terminated; may be NULL */
    bool capture;           /* stdout and stderr kept in tail, not shown */
    bool quiet;             /* not captured: stdout to /dev/null (stderr stays) */
    bool forward_stop;      /* a stop request sends SIGINT to the child's group */
    int64_t limit_ns;       /* SIGINT after this long; 0: no limit */
    int64_t grace_ns;       /* SIGKILL this long after a SIGINT */
};

struct child_result {
    bool started;
    int spawn_errno;  /* why it did not start (fork or exec) */
    int exit_status;  /* -1 when a signal ended it */
    int signal;       /* that signal, else 0 */
    bool interrupted; /* SIGINT forwarded on a stop request */
    bool timed_out;   /* SIGINT sent at limit_ns */
    bool killed;      /* SIGKILL sent after the grace time */
    double duration_s;
    char tail[CHILD_TAIL_BYTES + 1]; /* the last output, from a line start */
};

/* Runs the child to its end. Returns 0 when it started (res says how it
 * ended), -1 when it could not be started (res->spawn_errno). */
int child_run(const struct child_spec *spec, struct child_result *res);
/* The last non-empty line of a captured child's output (its error
 * message, as a rule) into buf; "" when there is none. */
void child_last_line(const struct child_result *res, char *buf, size_t len);
/* "exit status 1", "killed by signal 9 (SIGKILL after SIGINT)", ... */
void child_describe(const struct child_result *res, char *buf, size_t len);

#endif
