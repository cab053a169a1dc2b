/*
 * Best-effort load generators, pinned and bounded: what a real-time machine
 * carries beside its control loop. A load is a kind (cpu, cache, memory,
 * cmd; one table entry each, see load_kind.h) optionally pulsed
 * ("pulse:ON:OFF:KIND..." busy for ON, idle for OFF, again and again), run on
 * a CPU list. Thread kinds get one SCHED_OTHER/BATCH/IDLE thread per CPU; cmd
 * runs a shell command in its own process group, restarted at every ON and
 * killed at every OFF. Loads never run with a real-time policy, end by their
 * duration or load_runner_stop, and take their children with them (process
 * groups, PR_SET_PDEATHSIG).
 */
#ifndef JITTERLAB_LOAD_LOAD_H
#define JITTERLAB_LOAD_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "load/load_exit.h"
#include "sys/cpulist.h"
#include "sys/sysroot.h"

struct load_kind;

struct load_spec {
    const struct load_kind *kind;
    char text[512];      /* as given, without the @CPUS suffix */
    int64_t on_ns;       /* pulse: busy time; 0 = continuous */
    int64_t off_ns;      /* pulse: idle time */
    uint64_t size_bytes; /* cache, memory */
    char command[400];   /* cmd */
    struct cpulist cpus;
    bool cpus_given; /* "@CPUS" or --cpus */
};

/* Scheduling of every load thread and child: SCHED_OTHER, SCHED_BATCH or
 * SCHED_IDLE, and a nice value. */
struct load_sched {
    int policy;
    int nice;
};

/* Parses "[pulse:ON:OFF:]KIND[:ARGS]" (with_cpus: and an optional "@CPUS"
 * suffix, as in run --load). Returns 0 or -1 with a reason in why. */
int load_parse(const char *text, const struct sysroot *sr, bool with_cpus, struct load_spec *out,
               char *why, size_t whylen);
/* The kinds as "cpu, pulse:ON:OFF[:KIND], cache[:SIZE], ...", from the kind
 * table, for error messages. */
void load_kind_names(char *buf, size_t len);
/* The KIND block of `jitterlab load --help`, one "  usage  help" row per kind
 * (help lines continued at column 26), from the kind table. */
void load_kinds_help(char *buf, size_t len);
const char *load_kind_name(const struct load_spec *spec);
bool load_is_external(const struct load_spec *spec);

struct load_runner;

/* Starts every load now, for duration_ns (0: until load_runner_stop).
 * NULL with err filled when something cannot start (the ones already
 * started are stopped). */
struct load_runner *load_runner_start(const struct load_spec *specs, int nspecs,
                                      const struct load_sched *sched, int64_t duration_ns,
                                      char *err, size_t errlen);
/* True once every load has reached its end. */
bool load_runner_finished(const struct load_runner *lr);
/* Ends every load now (threads stop, child process groups are killed) and
 * waits for them. Idempotent. */
void load_runner_stop(struct load_runner *lr);

/* What a load achieved: for thread kinds, one entry per CPU (CPU time of the
 * load thread / wall time); for cmd, one entry for the whole command (CPU
 * time of the process group / (wall time x its CPUs)). */
struct load_duty {
    int cpu;     /* -1 for a cmd load: the whole command */
    double duty; /* 0..1 */
    double cpu_s;
};

/* Valid while running (live) and after stop (final). Returns the number of
 * entries written (at most max) for spec i; starts gets how often a cmd
 * load's command was started. */
int load_runner_duty(const struct load_runner *lr, int i, struct load_duty *out, int max,
                     uint64_t *starts);
void load_runner_destroy(struct load_runner *lr);

/* How the starts of cmd load i ended so far (false: load i is no cmd load).
 * A start fails when the shell exits non-zero or dies of a signal before
 * our own OFF-phase (or final) SIGTERM/SIGKILL; exit 0 before that is
 * "finished". */
struct load_cmd_report {
    uint64_t starts, failures, finished;
    bool has_failure;             /* the last failure: */
    int exit_status;              /* -1 when killed by a signal */
    int signal;                   /* 0 when it exited */
    int fail_code;                /* waitid's si_code */
    struct load_tail stderr_tail; /* the end of its stderr */
    char start_error[512];        /* the command could no longer be started */
};
bool load_runner_cmd_report(const struct load_runner *lr, int i, struct load_cmd_report *out);

/* Waits until every cmd load's first start has either run for min(ON, 1 s)
 * (1 s for a continuous one), been stopped by its OFF phase, or ended by
 * itself. Returns 0, or -1 when one could not be started or failed, with
 * its index in which and "the command failed: STDERR TAIL (exit status N)"
 * in err. Call right after load_runner_start, before measuring. */
int load_runner_check_start(const struct load_runner *lr, int *which, char *err, size_t errlen);

/* The warning to print at the end for load i (failed starts, a command that
 * could no longer be started, a continuous command that finished early):
 * true and the text in buf, or false when there is nothing to say. */
bool load_runner_failure_summary(const struct load_runner *lr, int i, char *buf, size_t len);

#endif
