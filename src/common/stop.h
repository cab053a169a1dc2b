/*
 * The stop request: SIGINT, SIGTERM, SIGQUIT and SIGHUP only record that the
 * process should end in order (a run still writes its outputs, a tuned
 * machine is restored). Long loops poll stop_requested(); the handlers have
 * no SA_RESTART, so a sleep ends early.
 */
#ifndef JITTERLAB_COMMON_STOP_H
#define JITTERLAB_COMMON_STOP_H

#include <stdbool.h>

/* Installs the handlers (SIGHUP stays ignored when inherited so, as under
 * nohup). */
void stop_handlers_install(void);
bool stop_requested(void);

#endif
