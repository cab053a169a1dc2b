/*
 * The stop request (see stop.h). The flag is the process's one piece of
 * signal-set state; nothing but the handler writes it.
 */
#include "common/stop.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t stop_flag;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

void stop_handlers_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal; /* no SA_RESTART: sleeps end early */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    /* A dropped ssh session (SIGHUP) must restore a tuned machine too; under
     * nohup, where SIGHUP is ignored, it stays ignored. */
    struct sigaction old;
    if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaction(SIGHUP, &sa, NULL);
}

bool stop_requested(void)
{
    return stop_flag != 0;
}
