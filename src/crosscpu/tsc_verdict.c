/*
 * The pure part of the TSC check (see tsc_verdict.h): counting, estimating,
 * classifying the kernel's lines and deciding. Every reason the verdict
 * gives is one rule below, so docs/crosscpu.md and the unit tests can name
 * them one by one. "Unsafe" needs evidence (a missing flag, a warp, an
 * offset, a rate, a verdict of the kernel's own checks); what is only
 * worth knowing (a boot parameter, the clocksource in use, a hypervisor)
 * is a note.
 */
#include "crosscpu/tsc_verdict.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tsc_warp_scan(const uint64_t *seq, size_t n, struct tsc_warp_count *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 1; i < n; i++)
        tsc_warp_observe(out, seq[i - 1], seq[i]);
}

void tsc_warp_merge(struct tsc_warp_count *into, const struct tsc_warp_count *from)
{
    into->reads += from->reads;
    into->warps += from->warps;
    if (from->max_warp_cycles > into->max_warp_cycles)
        into->max_warp_cycles = from->max_warp_cycles;
}

void tsc_offset_init(struct tsc_offset_est *e)
{
    memset(e, 0, sizeof *e);
}

void tsc_offset_add(struct tsc_offset_est *e, uint64_t t0, uint64_t tk, uint64_t t1)
{
    if (t1 < t0) {
        e->rejected++;
        return;
    }
    e->samples++;
    uint64_t rtt = t1 - t0;
    if (e->valid && rtt >= e->rtt_min_cycles)
        return;
    /* tk - (t0 + t1) / 2 without overflow: the unsigned difference taken
     * as signed holds any offset below 2^63 cycles either way */
    e->valid = true;
    e->rtt_min_cycles = rtt;
    e->offset_cycles = (int64_t)(tk - t0) - (int64_t)(rtt / 2);
    e->bound_cycles = rtt - rtt / 2; /* rounded up: never narrower than the truth */
}

uint64_t tsc_offset_excess(const struct tsc_offset_est *e)
{
    if (!e->valid)
        return 0;
    uint64_t mag = e->offset_cycles < 0 ? (uint64_t)0 - (uint64_t)e->offset_cycles
                                        : (uint64_t)e->offset_cycles;
    return mag > e->bound_cycles ? mag - e->bound_cycles : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void tsc_rate_summarize(const struct tsc_rate *rates, int n, struct tsc_rate_summary *out)
{
    memset(out, 0, sizeof *out);
    double *v = calloc(n > 0 ? (size_t)n : 1, sizeof *v);
    if (!v)
        return;
    int imin = -1, imax = -1;
    for (int i = 0; i < n; i++) {
        if (!rates[i].valid)
            continue;
        v[out->n++] = rates[i].hz;
        if (imin < 0 || rates[i].hz < rates[imin].hz)
            imin = i;
        if (imax < 0 || rates[i].hz > rates[imax].hz)
            imax = i;
    }
    if (out->n > 0) {
        qsort(v, (size_t)out->n, sizeof *v, cmp_double);
        out->median_hz = out->n % 2 ? v[out->n / 2] : (v[out->n / 2 - 1] + v[out->n / 2]) / 2;
        out->min_hz = rates[imin].hz;
        out->max_hz = rates[imax].hz;
        out->spread_ppm = (out->max_hz - out->min_hz) / out->median_hz * 1e6;
        out->allowed_ppm =
            TSC_RATE_TOLERANCE_PPM +
            (rates[imin].uncertainty_hz + rates[imax].uncertainty_hz) / out->median_hz * 1e6;
        out->disagree = out->n > 1 && out->spread_ppm > out->allowed_ppm;
    }
    free(v);
}

/* ---- the kernel log ---------------------------------------------------- */

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* "tsc" as a word of its own, any case ("'tsc'", "tsc-early", "wd-tsc-wd";
 * not "tsc_reliable" or "tsc=" of a command line). */
static bool has_tsc_word(const char *s)
{
    for (const char *p = s; (p = strcasestr(p, "tsc")) != NULL; p += 3) {
        bool left = p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool right = !(isalnum((unsigned char)p[3]) || p[3] == '_' || p[3] == '=');
        if (left && right)
            return true;
    }
    return false;
}

static void copy_reason(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src);
    size_t n = strlen(dst);
    while (n > 0 && (dst[n - 1] == '.' || dst[n - 1] == ' ' || dst[n - 1] == '!'))
        dst[--n] = '\0';
}

/* "Marking TSC unstable due to REASON": what the reason says. */
static enum tsc_kmsg_kind unstable_kind(const char *reason, struct tsc_kmsg_match *m)
{
    copy_reason(m->reason, sizeof m->reason, reason);
    if (starts_with(reason, "boot parameter"))
        return TSC_KMSG_BOOT_PARAM;
    if (strstr(reason, "clocksource watchdog"))
        return TSC_KMSG_WATCHDOG;
    if (strstr(reason, "check_tsc_sync"))
        return TSC_KMSG_SYNC_FAILED;
    return TSC_KMSG_UNSTABLE;
}

/* The rest of s after prefix, or NULL. */
static const char *after(const char *s, const char *prefix)
{
    return starts_with(s, prefix) ? s + strlen(prefix) : NULL;
}

/* "tsc: Detected 3499.912 MHz TSC" or "tsc: Refined TSC clocksource
 * calibration: 3499.998 MHz", num pointing at the figure. */
static enum tsc_kmsg_kind mhz_kind(const char *num, enum tsc_kmsg_kind kind,
                                   struct tsc_kmsg_match *m)
{
    char *end;
    double mhz = strtod(num, &end);
    if (end == num || !starts_with(end, " MHz") || !(mhz > 0) || !isfinite(mhz))
        return TSC_KMSG_NOTE;
    m->mhz = mhz;
    return kind;
}

/* A record of arch/x86/kernel/tsc.c, after its "tsc: " prefix. */
static enum tsc_kmsg_kind classify_tsc(const char *t, struct tsc_kmsg_match *m)
{
    const char *p;
    if ((p = after(t, "Marking TSC unstable due to ")) != NULL)
        return unstable_kind(p, m);
    if ((p = after(t, "Detected ")) != NULL)
        return mhz_kind(p, TSC_KMSG_DETECTED, m);
    if ((p = after(t, "Refined TSC clocksource calibration: ")) != NULL)
        return mhz_kind(p, TSC_KMSG_REFINED, m);
    return TSC_KMSG_NOTE;
}

/* A record of kernel/time/clocksource.c, after its "clocksource: " prefix
 * (the watchdog's continuation lines are indented). */
static enum tsc_kmsg_kind classify_clocksource(const char *t)
{
    t += strspn(t, " ");
    if (!has_tsc_word(t))
        return TSC_KMSG_NONE;
    /* the watchdog's own line; an "Override clocksource tsc is unstable"
     * only repeats an earlier verdict (or tsc=unstable) */
    if ((starts_with(t, "timekeeping watchdog on CPU") && strcasestr(t, "unstable")) ||
        starts_with(t, "Clocksource tsc unstable"))
        return TSC_KMSG_WATCHDOG;
    if (starts_with(t, "CPUs ") && strstr(t, " for clocksource tsc") &&
        (strstr(t, " ahead of CPU") || strstr(t, " behind CPU")))
        return TSC_KMSG_SKEW;
    /* a clocksource's registration ("tsc: mask: ...") says nothing */
    if (strstr(t, ": mask: 0x") && strstr(t, "max_idle_ns"))
        return TSC_KMSG_NONE;
    return TSC_KMSG_NOTE;
}

/* Only the kernel's own phrases, each at the start of the record after its
 * subsystem's prefix: any other record may quote a user's words (a crashed
 * program's name and file in its segfault line), and none of these can be
 * forged by a task name (TASK_COMM_LEN, 15 characters, is what such a
 * record starts with). tsc_sync.c and kernel/sched/clock.c print without a
 * prefix, with phrases longer than that. */
static enum tsc_kmsg_kind classify(const char *t, struct tsc_kmsg_match *m)
{
    const char *p;
    if ((p = after(t, "tsc: ")) != NULL)
        return classify_tsc(p, m);
    if ((p = after(t, "clocksource: ")) != NULL)
        return classify_clocksource(p);
    if ((p = after(t, "Measured ")) != NULL) {
        char *end;
        long long w = strtoll(p, &end, 10);
        if (end == p || !starts_with(end, " cycles TSC warp between CPUs"))
            return TSC_KMSG_NONE;
        m->warp_cycles = w >= 0 ? w : -1;
        return TSC_KMSG_SYNC_FAILED;
    }
    if (starts_with(t, "TSC synchronization "))
        return strcasestr(t, "failed") ? TSC_KMSG_SYNC_FAILED : TSC_KMSG_NOTE;
    if (starts_with(t, "TSC found unstable after boot"))
        return TSC_KMSG_AFTER_BOOT;
    if (starts_with(t, "TSC ") || starts_with(t, "[Firmware Bug]: TSC "))
        return TSC_KMSG_NOTE;
    return TSC_KMSG_NONE;
}

enum tsc_kmsg_kind tsc_kmsg_classify(const char *text, struct tsc_kmsg_match *m)
{
    memset(m, 0, sizeof *m);
    m->warp_cycles = -1;
    m->kind = classify(text, m);
    return m->kind;
}

void tsc_kernel_log_init(struct tsc_kernel_log *log)
{
    memset(log, 0, sizeof *log);
    log->sync_warp_cycles = -1;
}

void tsc_kernel_log_add(struct tsc_kernel_log *log, const char *text)
{
    struct tsc_kmsg_match m;
    enum tsc_kmsg_kind k = tsc_kmsg_classify(text, &m);
    if (k == TSC_KMSG_NONE)
        return;
    if (log->nlines < TSC_LOG_LINES_MAX)
        snprintf(log->lines[log->nlines++], TSC_TEXT_MAX, "%s", text);
    else
        log->lines_dropped++;
    switch (k) {
    case TSC_KMSG_DETECTED:
        /* "MHz TSC" (the TSC's own rate) wins over "MHz processor" */
        if (log->detected_mhz == 0 || strstr(text, " MHz TSC"))
            log->detected_mhz = m.mhz;
        break;
    case TSC_KMSG_REFINED:
        log->refined_mhz = m.mhz;
        break;
    case TSC_KMSG_BOOT_PARAM:
        log->boot_param = true;
        break;
    case TSC_KMSG_WATCHDOG:
        if (!log->watchdog)
            snprintf(log->watchdog_text, sizeof log->watchdog_text, "%s", text);
        log->watchdog = true;
        break;
    case TSC_KMSG_SYNC_FAILED:
        if (!log->sync_failed || (log->sync_warp_cycles < 0 && m.warp_cycles >= 0))
            snprintf(log->sync_text, sizeof log->sync_text, "%s", text);
        if (m.warp_cycles >= 0 && log->sync_warp_cycles < 0)
            log->sync_warp_cycles = m.warp_cycles;
        log->sync_failed = true;
        break;
    case TSC_KMSG_SKEW:
        if (!log->skew)
            snprintf(log->skew_text, sizeof log->skew_text, "%s", text);
        log->skew = true;
        break;
    case TSC_KMSG_UNSTABLE:
        if (!log->unstable)
            snprintf(log->unstable_reason, sizeof log->unstable_reason, "%s", m.reason);
        log->unstable = true;
        break;
    case TSC_KMSG_AFTER_BOOT:
        log->after_boot = true;
        break;
    default:
        break;
    }
}

/* ---- the verdict ------------------------------------------------------- */

static void add(char (*list)[TSC_TEXT_MAX], int *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add(char (*list)[TSC_TEXT_MAX], int *n, const char *fmt, ...)
{
    if (*n >= TSC_VERDICT_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(list[*n], TSC_TEXT_MAX, fmt, ap);
    va_end(ap);
    (*n)++;
}

#define REASON(v, ...) add((v)->reasons, &(v)->nreasons, __VA_ARGS__)
#define NOTE(v, ...)   add((v)->notes, &(v)->nnotes, __VA_ARGS__)

static bool has_value(const char *list, const char *word)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
        if (strcmp(w, word) == 0)
            return true;
    return false;
}

static void static_rules(const struct tsc_static *st, const struct tsc_results *r,
                         struct tsc_verdict *v)
{
    const struct tsc_flags *f = &st->flags;
    if (r && !r->arch_tsc)
        REASON(v, "this CPU architecture has no TSC");
    if (!f->readable)
        REASON(v, "the TSC is not known to be invariant: no CPU flags in /proc/cpuinfo");
    else if (!f->tsc)
        REASON(v, "the CPU has no TSC (no tsc flag in /proc/cpuinfo)");
    else if (!f->constant_tsc && !f->nonstop_tsc)
        REASON(v, "the TSC is not invariant: constant_tsc and nonstop_tsc missing from "
                  "/proc/cpuinfo (its rate follows the CPU frequency and it stops in deep "
                  "C-states)");
    else if (!f->constant_tsc)
        REASON(v, "the TSC is not invariant: constant_tsc missing from /proc/cpuinfo (its "
                  "rate follows the CPU frequency)");
    else if (!f->nonstop_tsc)
        REASON(v, "the TSC is not invariant: nonstop_tsc missing from /proc/cpuinfo (it stops "
                  "in deep C-states)");
    if (r && r->no_rdtscp)
        REASON(v, "the CPU has no rdtscp, the instruction jitterlab reads the TSC with (nothing "
                  "was measured)");
    else if (f->readable && f->tsc && !f->rdtscp)
        NOTE(v, "rdtscp is not in the CPU flags%s; jitterlab reads the TSC with rdtscp",
             st->sysroot[0] ? ""
                            : " (the hypervisor hides it; this CPU executed it during the check)");

    const struct tsc_kernel_log *log = &st->log;
    if (log->watchdog)
        REASON(v, "the kernel's clocksource watchdog marked the TSC unstable (kernel log: \"%s\")",
               log->watchdog_text);
    if (log->sync_failed)
        REASON(v,
               "the kernel's TSC synchronization check between CPUs failed (kernel log: "
               "\"%s\")",
               log->sync_text);
    if (log->skew)
        REASON(v, "the kernel found CPUs out of step on the TSC (kernel log: \"%s\")",
               log->skew_text);
    if (log->unstable)
        REASON(v, "the kernel marked the TSC unstable due to %s", log->unstable_reason);
    /* the line that follows a verdict: evidence only when the verdict's
     * own line is gone (a log that wrapped) */
    if (log->after_boot && !log->watchdog && !log->sync_failed && !log->skew && !log->unstable)
        REASON(v, "the kernel found the TSC unstable after boot (its reason is no longer in the "
                  "log)");
    if (log->boot_param)
        NOTE(v, "the kernel marked the TSC unstable due to a boot parameter (tsc=unstable): the "
                "administrator's choice, not evidence about the TSC (the kernel then keeps its "
                "clocksource off the TSC; --clock tsc reads the TSC itself)");
    else if (has_value(st->cmdline_tsc, "unstable"))
        NOTE(v, "tsc=unstable on the kernel command line: the administrator's choice, not "
                "evidence about the TSC");
    if (has_value(st->cmdline_tsc, "reliable") || has_value(st->cmdline_tsc, "nowatchdog"))
        NOTE(v,
             "tsc=%s on the kernel command line: the clocksource watchdog does not check "
             "the TSC, so a log without its verdict proves nothing",
             has_value(st->cmdline_tsc, "reliable") ? "reliable" : "nowatchdog");
    if (!log->readable)
        NOTE(v, "the kernel log (/dev/kmsg) is %s: the kernel's own TSC verdicts are unknown",
             log->why[0] ? log->why : "not readable");
    else if (log->start_lost)
        NOTE(v,
             "the kernel log starts at record %llu: the boot's first messages (and any TSC "
             "verdict among them) were overwritten",
             (unsigned long long)log->first_seq);
    if (st->clocksource[0] && strcmp(st->clocksource, "tsc") != 0)
        NOTE(v,
             "the kernel's clocksource is %s, not tsc%s; --clock tsc reads the TSC itself "
             "and does not need it",
             st->clocksource, st->hypervisor[0] ? " (usual in a virtual machine)" : "");
    if (st->hypervisor[0])
        NOTE(v,
             "a virtual machine%s%s%s: the TSC is the host's, offset (and maybe scaled) per "
             "VM; a migration or a host whose TSCs disagree can change that after this check",
             strcmp(st->hypervisor, "unknown") ? " (" : "",
             strcmp(st->hypervisor, "unknown") ? st->hypervisor : "",
             strcmp(st->hypervisor, "unknown") ? ")" : "");
    if (st->sysroot[0])
        NOTE(v,
             "the flags, clocksources and kernel log come from %s; the warp, offset and rate "
             "measurements ran on this machine's CPUs",
             st->sysroot);
}

/* "CPU 1" or "CPUs 0 and 1". */
static void pair_name(const struct tsc_pair_result *p, char *buf, size_t len)
{
    if (p->a == p->b)
        snprintf(buf, len, "CPU %d", p->a);
    else
        snprintf(buf, len, "CPUs %d and %d", p->a, p->b);
}

static void warp_rules(const struct tsc_results *r, struct tsc_verdict *v)
{
    int warping = 0, idle = 0;
    for (int i = 0; i < r->npairs; i++) {
        const struct tsc_pair_result *p = &r->pair[i];
        if (!p->measured)
            continue;
        char who[48];
        pair_name(p, who, sizeof who);
        if (p->warps > 0 && warping++ < TSC_VERDICT_PER_KIND) {
            if (p->a == p->b)
                REASON(v,
                       "%s: the TSC went backwards %llu times in %llu reads, by up to %llu "
                       "cycles",
                       who, (unsigned long long)p->warps, (unsigned long long)p->reads,
                       (unsigned long long)p->max_warp_cycles);
            else
                REASON(v, "%s: %llu TSC warps in %llu reads, the largest %llu cycles", who,
                       (unsigned long long)p->warps, (unsigned long long)p->reads,
                       (unsigned long long)p->max_warp_cycles);
        }
        if (p->a != p->b && p->handoffs == 0 && idle++ < TSC_VERDICT_PER_KIND)
            NOTE(v,
                 "%s: the reads never alternated between the two CPUs (one of them did not "
                 "run?): this pair compared nothing",
                 who);
    }
    if (warping > TSC_VERDICT_PER_KIND)
        REASON(v, "and %d more CPU pairs with TSC warps", warping - TSC_VERDICT_PER_KIND);
    if (idle > TSC_VERDICT_PER_KIND)
        NOTE(v, "and %d more CPU pairs that compared nothing", idle - TSC_VERDICT_PER_KIND);
    int measured = 0;
    for (int i = 0; i < r->npairs; i++)
        measured += r->pair[i].measured;
    if (r->ncpu == 1)
        NOTE(v, "one CPU: nothing to compare across CPUs; its TSC was checked for going "
                "backwards");
    if ((uint64_t)measured < r->pairs_possible && r->ncpu > 1)
        NOTE(v, "%d of %llu CPU pairs tested (every CPU with CPU %d first, then neighbours)",
             measured, (unsigned long long)r->pairs_possible, r->cpu[0].cpu);
}

static void offset_rules(const struct tsc_results *r, struct tsc_verdict *v)
{
    int off = 0, unknown = 0, lossy = 0;
    int ref = r->cpu[0].cpu;
    for (int i = 1; i < r->ncpu; i++) {
        const struct tsc_cpu_result *c = &r->cpu[i];
        uint64_t excess = tsc_offset_excess(&c->offset);
        if (excess > TSC_OFFSET_TOLERANCE_CYCLES && off++ < TSC_VERDICT_PER_KIND)
            REASON(v, "CPU %d's TSC is %lld cycles %s CPU %d's (bound +-%llu, tolerance %d)",
                   c->cpu, (long long)llabs(c->offset.offset_cycles),
                   c->offset.offset_cycles > 0 ? "ahead of" : "behind", ref,
                   (unsigned long long)c->offset.bound_cycles, TSC_OFFSET_TOLERANCE_CYCLES);
        if (!c->offset.valid && unknown++ < TSC_VERDICT_PER_KIND)
            NOTE(v, "CPU %d: no offset round against CPU %d completed (%llu timed out)", c->cpu,
                 ref, (unsigned long long)c->timeouts);
        else if (c->offset.valid && c->timeouts > 0 && lossy++ < TSC_VERDICT_PER_KIND)
            NOTE(v, "CPU %d: %llu of %llu offset rounds timed out (the partner did not answer)",
                 c->cpu, (unsigned long long)c->timeouts, (unsigned long long)c->rounds);
    }
    if (off > TSC_VERDICT_PER_KIND)
        REASON(v, "and %d more CPUs whose TSC is off CPU %d's", off - TSC_VERDICT_PER_KIND, ref);
    if (unknown + lossy > 2 * TSC_VERDICT_PER_KIND)
        NOTE(v, "and more CPUs with offset rounds that timed out");
}

static void rate_rules(const struct tsc_static *st, const struct tsc_results *r,
                       struct tsc_verdict *v)
{
    struct tsc_rate *rates = calloc((size_t)r->ncpu, sizeof *rates);
    if (!rates)
        return;
    int missing = 0;
    for (int i = 0; i < r->ncpu; i++) {
        rates[i] = r->cpu[i].rate;
        missing += !rates[i].valid;
    }
    tsc_rate_summarize(rates, r->ncpu, &v->rates);
    free(rates);
    if (v->rates.disagree)
        REASON(v,
               "the TSC rates disagree across CPUs: %.6f to %.6f MHz, %.1f ppm apart "
               "(allowed %.1f ppm)",
               v->rates.min_hz / 1e6, v->rates.max_hz / 1e6, v->rates.spread_ppm,
               v->rates.allowed_ppm);
    if (missing > 0)
        NOTE(v, "the TSC rate of %d CPU%s was not measured", missing, missing > 1 ? "s" : "");
    /* the kernel's figure describes the tree's machine, not this one */
    if (v->kernel_mhz > 0 && v->rates.n > 0 && !st->sysroot[0]) {
        v->vs_kernel_known = true;
        v->vs_kernel_ppm = (v->rates.median_hz / 1e6 - v->kernel_mhz) / v->kernel_mhz * 1e6;
        NOTE(v,
             "the TSC runs at %.6f MHz against CLOCK_MONOTONIC_RAW; the kernel %s %.3f MHz "
             "(%+.1f ppm)%s",
             v->rates.median_hz / 1e6, st->log.refined_mhz > 0 ? "refined it to" : "detected",
             v->kernel_mhz, v->vs_kernel_ppm,
             fabs(v->vs_kernel_ppm) > 1000 ? ": the kernel's figure is off by more than 0.1%" : "");
    }
}

void tsc_verdict_decide(const struct tsc_static *st, const struct tsc_results *r,
                        struct tsc_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->kernel_mhz = st->log.refined_mhz > 0 ? st->log.refined_mhz : st->log.detected_mhz;
    static_rules(st, r, v);
    if (r && r->warp_measured)
        warp_rules(r, v);
    else if (r && r->arch_tsc && !r->no_rdtscp)
        NOTE(v, "the warp test did not run");
    if (r && r->ncpu > 1 && r->offsets_measured)
        offset_rules(r, v);
    else if (r && r->ncpu > 1 && r->warp_measured)
        NOTE(v, "the offsets were not measured");
    if (r && r->rates_measured)
        rate_rules(st, r, v);
    if (r && r->interrupted)
        NOTE(v, "interrupted: only what was measured before the signal is judged");
    v->safe = v->nreasons == 0;
}
