/*
 * The stop request and the two requests of a run without an end (see
 * stop.h). The flags are the process's only signal-set state; nothing but
 * the handlers sets them (but the program's own end request, kept apart),
 * and a request is taken with an atomic exchange,
 * so one arriving while another is taken is not lost.
 */
#include "common/stop.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>

static volatile sig_atomic_t stop_flag;
static atomic_int end_flag; /* set by stop_request_end, from any thread */
static atomic_int result_flag;
static atomic_int reopen_flag;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static void on_result_signal(int sig)
{
    (void)sig;
    atomic_store(&result_flag, 1);
}

static void on_reopen_signal(int sig)
{
    (void)sig;
    atomic_store(&reopen_flag, 1);
}

static void install(int sig, void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = handler; /* no SA_RESTART: sleeps end early */
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

static bool ignored(int sig)
{
    struct sigaction old;
    return sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
}

void stop_handlers_install(void)
{
    install(SIGINT, on_stop_signal);
    install(SIGTERM, on_stop_signal);
    install(SIGQUIT, on_stop_signal);
    install(SIGUSR1, on_result_signal);
    /* A dropped ssh session (SIGHUP) must restore a tuned machine too; under
     * nohup, where SIGHUP is ignored, it stays ignored. */
    if (!ignored(SIGHUP))
        install(SIGHUP, on_stop_signal);
}

bool stop_requested(void)
{
    return stop_flag != 0 || atomic_load(&end_flag) != 0;
}

bool stop_signalled(void)
{
    return stop_flag != 0;
}

void stop_request_end(void)
{
    atomic_store(&end_flag, 1);
}

bool result_request_take(void)
{
    return atomic_exchange(&result_flag, 0) != 0;
}

void stop_hup_reopens(void)
{
    if (!ignored(SIGHUP))
        install(SIGHUP, on_reopen_signal);
}

bool reopen_request_take(void)
{
    return atomic_exchange(&reopen_flag, 0) != 0;
}
