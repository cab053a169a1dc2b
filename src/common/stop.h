/*
 * The stop request: SIGINT, SIGTERM, SIGQUIT and SIGHUP only record that the
 * process should end in order (a run still writes its outputs, a tuned
 * machine is restored). Long loops poll stop_requested(); the handlers have
 * no SA_RESTART, so a sleep ends early.
 *
 * A run that goes on until stopped (`run --forever`) takes two requests
 * more, in the daemon convention: SIGHUP asks to reopen the files it
 * appends to (after logrotate moved them) instead of stopping, and SIGUSR1
 * asks for the result so far. Each request is taken once by whoever polls.
 * The program may also end itself in order when it has what it ran for;
 * stop_signalled() tells that apart from a signal.
 */
#ifndef JITTERLAB_COMMON_STOP_H
#define JITTERLAB_COMMON_STOP_H

#include <stdbool.h>

/* Installs the handlers (SIGHUP stays ignored when inherited so, as under
 * nohup). */
void stop_handlers_install(void);
/* A stop request: a signal's, or the program's own (stop_request_end). */
bool stop_requested(void);
/* Whether a signal asked for the stop (not the program itself). */
bool stop_signalled(void);
/* The program asks itself to end in order, as a signal would, because it
 * has what it ran for (`run --until-confident`); any thread may call it. */
void stop_request_end(void);

/* SIGUSR1 records a result request (installed by stop_handlers_install:
 * the default action would end the process). */
bool result_request_take(void);
/* From now on SIGHUP records a reopen request instead of a stop (unless
 * it is ignored, as under nohup). */
void stop_hup_reopens(void);
bool reopen_request_take(void);

#endif
