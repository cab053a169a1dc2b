/*
 * `jitterlab run --policy deadline` (see run_deadline.h): the reservation's
 * options and checks, and the words for what the kernel says of it.
 *
 * The measured loop wakes once per interval, so the reservation's period
 * is the interval: --period is another way to give it, never a second
 * value. --deadline keeps its meaning (the response time limit of a
 * cycle) and is also the reservation's relative deadline, which is the
 * same promise: each cycle done within it.
 */
#include "cmd/run_deadline.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "common/units.h"

int run_deadline_option(struct run_params *p, const char *opt, const char *arg)
{
    bool runtime = strcmp(opt, "--runtime") == 0;
    int64_t *to = runtime ? &p->reservation.runtime_ns : &p->reservation.period_ns;
    int rc = parse_positive_duration(opt, arg, NS_PER_US, to);
    if (!rc && *to > 3600 * NS_PER_S)
        rc = usage_error(opt, arg, "must be at most 1h");
    if (runtime)
        p->runtime_text = arg;
    else
        p->period_text = arg;
    return rc;
}

/* A value as its option was given, else as an option would take it. */
static const char *as_given(const char *text, int64_t ns, char *buf, size_t len)
{
    if (text)
        return text;
    format_duration_arg(ns, buf, len);
    return buf;
}

int run_deadline_finish(struct run_params *p)
{
    if (p->policy != SCHED_DEADLINE) {
        if (p->runtime_text)
            return usage_error("--runtime", p->runtime_text, "needs --policy deadline");
        if (p->period_text)
            return usage_error("--period", p->period_text, "needs --policy deadline");
        return -1;
    }
    if (p->priority_set)
        return usage_error("--priority", NULL,
                           "has no meaning with --policy deadline (the reservation is "
                           "--runtime, --deadline and --period)");
    p->priority = 0;
    if (!p->runtime_text)
        return usage_error("--policy", "deadline",
                           "needs --runtime DUR (the CPU time reserved in each period)");
    struct deadline_reservation *r = &p->reservation;
    char a[32], b[32], why[160];
    if (p->period_text) {
        if (p->interval_set && r->period_ns != p->interval_ns) {
            snprintf(why, sizeof why,
                     "must equal the interval (-i %s): the measured thread wakes once per "
                     "interval; give one of the two",
                     as_given(NULL, p->interval_ns, a, sizeof a));
            return usage_error("--period", p->period_text, why);
        }
        p->interval_ns = r->period_ns;
    } else {
        r->period_ns = p->interval_ns;
    }
    r->deadline_ns = p->deadline_ns > 0 ? p->deadline_ns : r->period_ns;
    if (r->runtime_ns < DEADLINE_MIN_NS)
        return usage_error(
            "--runtime", p->runtime_text,
            "must be at least 1024ns (the kernel's shortest SCHED_DEADLINE runtime)");
    const char *period_opt = p->period_text || !p->interval_set ? "--period" : "-i";
    if (r->runtime_ns > r->deadline_ns) {
        if (p->deadline_text)
            snprintf(why, sizeof why, "longer than --deadline %s", p->deadline_text);
        else
            snprintf(why, sizeof why, "longer than the deadline, which is the period (%s %s)",
                     period_opt, as_given(p->period_text, r->period_ns, a, sizeof a));
        return usage_error("--runtime", p->runtime_text, why);
    }
    if (r->deadline_ns > r->period_ns) {
        snprintf(why, sizeof why, "longer than %s %s", period_opt,
                 as_given(p->period_text, r->period_ns, b, sizeof b));
        return usage_error("--deadline", p->deadline_text, why);
    }
    p->deadline_ns = r->deadline_ns;
    return -1;
}

int run_deadline_validate(const struct run_params *p, const struct sysroot *sr)
{
    if (p->policy != SCHED_DEADLINE)
        return 0;
    const char *opt = p->period_text ? "--period" : "--interval";
    char given[32], why[200];
    const char *text = as_given(p->period_text, p->reservation.period_ns, given, sizeof given);
    int64_t min_us, max_us;
    if (sysroot_read_int64(sr, "/proc/sys/kernel/sched_deadline_period_min_us", &min_us) == 0 &&
        p->reservation.period_ns < min_us * NS_PER_US) {
        snprintf(why, sizeof why,
                 "shorter than the kernel's shortest SCHED_DEADLINE period "
                 "(kernel.sched_deadline_period_min_us = %lld)",
                 (long long)min_us);
        return usage_error(opt, text, why);
    }
    if (sysroot_read_int64(sr, "/proc/sys/kernel/sched_deadline_period_max_us", &max_us) == 0 &&
        p->reservation.period_ns > max_us * NS_PER_US) {
        snprintf(why, sizeof why,
                 "longer than the kernel's longest SCHED_DEADLINE period "
                 "(kernel.sched_deadline_period_max_us = %lld)",
                 (long long)max_us);
        return usage_error(opt, text, why);
    }
    return 0;
}

void run_deadline_text(const struct deadline_reservation *r, char *buf, size_t len)
{
    char rt[32], dl[32], per[32];
    format_duration(r->runtime_ns, rt, sizeof rt);
    format_duration(r->deadline_ns, dl, sizeof dl);
    format_duration(r->period_ns, per, sizeof per);
    snprintf(buf, len, "SCHED_DEADLINE runtime %s deadline %s period %s", rt, dl, per);
}

void run_deadline_refusal(const struct run_params *p, const struct sysroot *sr, int err, int cpu,
                          char *buf, size_t len)
{
    const struct deadline_reservation *r = &p->reservation;
    char res[128];
    run_deadline_text(r, res, sizeof res);
    int n = p->common.cpus.count;
    if (err == EBUSY) {
        int64_t rt_us = 0, period_us = 0;
        char limit[160] = "";
        if (sysroot_read_int64(sr, "/proc/sys/kernel/sched_rt_runtime_us", &rt_us) == 0 &&
            sysroot_read_int64(sr, "/proc/sys/kernel/sched_rt_period_us", &period_us) == 0 &&
            rt_us >= 0 && period_us > 0)
            snprintf(limit, sizeof limit,
                     " (kernel.sched_rt_runtime_us %lld of sched_rt_period_us %lld: %.0f%% of "
                     "each CPU, less what other deadline tasks and servers hold)",
                     (long long)rt_us, (long long)period_us,
                     100.0 * (double)rt_us / (double)period_us);
        snprintf(buf, len,
                 "the kernel refused the reservation of the thread for CPU %d (EBUSY): %d "
                 "thread%s of %s ask %.0f%% of a CPU in all, more than the SCHED_DEADLINE "
                 "bandwidth left%s; shorten --runtime or measure fewer CPUs",
                 cpu, n, n == 1 ? "" : "s", res,
                 100.0 * n * (double)r->runtime_ns / (double)r->period_ns, limit);
    } else if (err == EPERM && geteuid() != 0) {
        snprintf(buf, len,
                 "the kernel refused the reservation of the thread for CPU %d (EPERM): "
                 "SCHED_DEADLINE needs root or CAP_SYS_NICE (there is no SCHED_OTHER fallback "
                 "for it)",
                 cpu);
    } else if (err == EPERM) {
        snprintf(buf, len,
                 "the kernel refused the reservation of the thread for CPU %d (EPERM): a "
                 "SCHED_DEADLINE thread must be allowed on every CPU of its root domain, and "
                 "this process is confined to fewer (taskset, or a cpuset that is not "
                 "exclusive); run it unconfined, or in an exclusive cpuset",
                 cpu);
    } else if (err == EINVAL) {
        snprintf(buf, len,
                 "the kernel refused the reservation of the thread for CPU %d (EINVAL): it "
                 "finds %s invalid",
                 cpu, res);
    } else {
        snprintf(buf, len, "the kernel refused the reservation of the thread for CPU %d: %s", cpu,
                 strerror(err));
    }
}

void run_deadline_summary(FILE *out, const struct run_params *p, const struct run_report *rep)
{
    if (p->policy != SCHED_DEADLINE || rep->ncpu == 0)
        return;
    uint64_t overruns = 0, elsewhere = 0, samples = 0;
    for (int i = 0; i < rep->ncpu; i++) {
        overruns += rep->cpu[i]->dl_overruns;
        elsewhere += rep->cpu[i]->dl_elsewhere;
        samples += rep->cpu[i]->samples;
    }
    fprintf(out, "SCHED_DEADLINE: %llu runtime overrun%s signalled", (unsigned long long)overruns,
            overruns == 1 ? "" : "s");
    if (rep->ncpu > 1) {
        fprintf(out, " (");
        for (int i = 0; i < rep->ncpu; i++)
            fprintf(out, "%sCPU %d: %llu", i ? ", " : "", rep->cpu[i]->cpu,
                    (unsigned long long)rep->cpu[i]->dl_overruns);
        fprintf(out, ")");
    }
    fprintf(out, "; %llu of %llu wake-ups on another CPU than the thread's own\n",
            (unsigned long long)elsewhere, (unsigned long long)samples);
}
