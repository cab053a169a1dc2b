/*
 * `jitterlab run --policy deadline`: the options of the reservation
 * (--runtime, --deadline, --period), their checks, the header's text of
 * the reservation, what a refusal by the kernel means, and the summary's
 * line of runtime overruns (docs/deadline.md). The engine sets the policy
 * (engine/deadline.h).
 */
#ifndef JITTERLAB_CMD_RUN_DEADLINE_H
#define JITTERLAB_CMD_RUN_DEADLINE_H

#include <stddef.h>
#include <stdio.h>

#include "cmd/run_cli.h"
#include "out/report.h"

/* --runtime or --period (opt) with its value: 0 or the exit code. */
int run_deadline_option(struct run_params *p, const char *opt, const char *arg);

/* After parsing: without --policy deadline, refuses --runtime and --period;
 * with it, completes the reservation (period: the interval, or the interval
 * from --period; deadline: the period) and checks 1024 ns <= runtime <=
 * deadline <= period, that --period equals -i when both are given, and
 * that -p is absent. The reservation's deadline becomes the run's response
 * limit (deadline_ns). -1 to continue, or EXIT_USAGE after the message. */
int run_deadline_finish(struct run_params *p);

/* With --policy deadline, the period within the kernel's bounds
 * (kernel.sched_deadline_period_min_us, _max_us, when it has them). 0 or
 * EXIT_USAGE after the message. */
int run_deadline_validate(const struct run_params *p, const struct sysroot *sr);

/* "SCHED_DEADLINE runtime 200 us deadline 1 ms period 1 ms". */
void run_deadline_text(const struct deadline_reservation *r, char *buf, size_t len);

/* Why the kernel refused (err: its errno) the reservation of the thread for
 * cpu, for "jitterlab: --policy deadline: WHY". */
void run_deadline_refusal(const struct run_params *p, const struct sysroot *sr, int err, int cpu,
                          char *buf, size_t len);

/* The summary's line of a SCHED_DEADLINE run: the runtime overruns per CPU
 * and where the threads woke. Nothing for another policy. */
void run_deadline_summary(FILE *out, const struct run_params *p, const struct run_report *rep);

#endif
