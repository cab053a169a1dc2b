/*
 * The figures of one CPU between the last two snapshots (see telemetry.h),
 * with turbostat's definitions where it has them: Avg_MHz = APERF delta
 * over the elapsed time, Busy% = MPERF / TSC, Bzy_MHz = TSC rate x APERF /
 * MPERF. Without MSRs, busy is the scheduler's run time over the window
 * (schedstat, in ns), else the share of /proc/stat ticks that were neither
 * idle, iowait nor steal. Each counter is read at its kernel
 * width (common/counter_delta.h): a 32-bit count (interrupts, softirqs,
 * SMIs) that passed its top is counted across it; any other fall is a
 * reset, which makes the figure absent rather than huge (a 64-bit counter:
 * a CPU that went offline, a driver reloaded) or, for an interrupt line
 * requested again, counts what the line took since.
 */
#include <math.h>
#include <string.h>

#include "common/counter_delta.h"
#include "common/text.h"

#include "telemetry/telemetry_internal.h"

/* The per-CPU counts of /proc/interrupts and /proc/softirqs are unsigned
 * int in the kernel; the SMI count MSR is 32 bits wide. */
#define IRQ_COUNT_BITS 32
#define SMI_COUNT_BITS 32

/* A 64-bit counter (APERF, MPERF, TSC, /proc/stat ticks, context
 * switches): a fall is a reset, and the figure unknown. */
static bool counter64_delta(uint64_t before, uint64_t after, uint64_t *out)
{
    return counter_delta(before, after, 64, out) == COUNTER_ADVANCED;
}

static void msr_figures(const struct telemetry *t, const struct snap_cpu *a,
                        const struct snap_cpu *b, struct telemetry_cpu_figures *f)
{
    if (!t->msr_via || !a->msr_ok || !b->msr_ok || b->msr_t_ns <= a->msr_t_ns)
        return;
    double us = (double)(b->msr_t_ns - a->msr_t_ns) / 1e3;
    uint64_t d[MSR_COUNTERS] = {0};
    bool ok[MSR_COUNTERS];
    for (int k = 0; k < MSR_COUNTERS; k++)
        ok[k] = t->msr_have[k] &&
                counter_delta(a->msr[k], b->msr[k], k == MSR_COUNTER_SMI ? SMI_COUNT_BITS : 64,
                              &d[k]) != COUNTER_RESET;
    if (ok[MSR_COUNTER_TSC])
        f->tsc_mhz = (double)d[MSR_COUNTER_TSC] / us;
    if (ok[MSR_COUNTER_APERF])
        f->avg_mhz = (double)d[MSR_COUNTER_APERF] / us;
    if (ok[MSR_COUNTER_MPERF] && ok[MSR_COUNTER_TSC] && d[MSR_COUNTER_TSC] > 0)
        f->busy_pct = 100.0 * (double)d[MSR_COUNTER_MPERF] / (double)d[MSR_COUNTER_TSC];
    if (ok[MSR_COUNTER_APERF] && ok[MSR_COUNTER_MPERF] && ok[MSR_COUNTER_TSC] &&
        d[MSR_COUNTER_MPERF] > 0)
        f->bzy_mhz = f->tsc_mhz * (double)d[MSR_COUNTER_APERF] / (double)d[MSR_COUNTER_MPERF];
    if (ok[MSR_COUNTER_SMI])
        f->smi = (int64_t)d[MSR_COUNTER_SMI];
}

static void cpu_time_figures(const struct telemetry *t, int i, struct telemetry_cpu_figures *f)
{
    const struct snapshot *sa = snap_old(t), *sb = snap_new(t);
    if (!sa->stat_ok || !sb->stat_ok)
        return;
    const struct proc_stat_cpu *a = &sa->stat.cpu[i], *b = &sb->stat.cpu[i];
    if (!a->present || !b->present)
        return;
    uint64_t d[CPU_TIME_KINDS] = {0}, total = 0;
    for (int k = 0; k < CPU_TIME_GUEST; k++) {
        if (!counter64_delta(a->ticks[k], b->ticks[k], &d[k]))
            return;
        total += d[k];
    }
    if (total == 0)
        return;
    double pct = 100.0 / (double)total;
    if (t->source[TELEMETRY_STEAL].name)
        f->steal_pct = (double)d[CPU_TIME_STEAL] * pct;
    f->irq_pct = (double)d[CPU_TIME_IRQ] * pct;
    f->softirq_pct = (double)d[CPU_TIME_SOFTIRQ] * pct;
    if (t->busy_via == BUSY_VIA_TICKS && t->source[TELEMETRY_BUSY_PCT].name)
        f->busy_pct = (double)(d[CPU_TIME_USER] + d[CPU_TIME_NICE] + d[CPU_TIME_SYSTEM] +
                               d[CPU_TIME_IRQ] + d[CPU_TIME_SOFTIRQ]) *
                      pct;
}

/* The device name of an interrupt line: the last word of its description
 * for a numbered IRQ ("... 1-edge virtio1-req.0"), the description itself
 * for an architecture line ("Local timer interrupts"). */
static void irq_name(const struct percpu_row *r, char *buf, size_t len)
{
    const char *name = r->desc;
    if (r->numeric) {
        const char *space = strrchr(r->desc, ' ');
        if (space)
            name = space + 1;
    }
    text_copy(buf, len, name[0] ? name : r->id);
}

static void keep_top(struct telemetry_cpu_figures *f, const struct percpu_row *r, uint64_t n)
{
    int at = f->nirq;
    while (at > 0 && f->irq[at - 1].count < n)
        at--;
    if (at >= TELEMETRY_TOP_IRQS)
        return;
    int last = f->nirq < TELEMETRY_TOP_IRQS ? f->nirq : TELEMETRY_TOP_IRQS - 1;
    memmove(&f->irq[at + 1], &f->irq[at], (size_t)(last - at) * sizeof f->irq[0]);
    text_copy(f->irq[at].id, sizeof f->irq[at].id, r->id);
    irq_name(r, f->irq[at].name, sizeof f->irq[at].name);
    f->irq[at].count = n;
    if (f->nirq < TELEMETRY_TOP_IRQS)
        f->nirq++;
}

/* Delta of row r of the new table against the same id in the old one; a
 * line that appeared counts from zero, a CPU that had no column before (it
 * came online) has no delta yet. A 32-bit count that wrapped is counted
 * across its top; a line freed and requested again (a reset) counts what
 * it took since. */
static bool row_delta(const struct percpu_table *a, const struct percpu_table *b, int r, int i,
                      uint64_t *out)
{
    uint64_t now = percpu_count(b, r, i);
    if (now == PERCPU_COUNT_UNKNOWN)
        return false;
    int ra = percpu_table_find(a, b->row[r].id, r);
    uint64_t before = ra >= 0 ? percpu_count(a, ra, i) : 0;
    if (before == PERCPU_COUNT_UNKNOWN)
        return false;
    counter_delta(before, now, IRQ_COUNT_BITS, out);
    return true;
}

static void irq_figures(const struct telemetry *t, int i, struct telemetry_cpu_figures *f)
{
    const struct snapshot *a = snap_old(t), *b = snap_new(t);
    if (a->irqs_ok && b->irqs_ok) {
        uint64_t total = 0;
        bool known = false; /* the CPU has a column in both tables */
        for (int r = 0; r < b->irqs.nrow; r++) {
            uint64_t n;
            if (!row_delta(&a->irqs, &b->irqs, r, i, &n))
                continue;
            known = true;
            if (n == 0)
                continue;
            total += n;
            keep_top(f, &b->irqs.row[r], n);
        }
        if (known)
            f->irqs = (int64_t)total;
        else
            f->nirq = 0;
    }
    if (a->softirqs_ok && b->softirqs_ok) {
        uint64_t total = 0;
        bool known = false;
        for (int r = 0; r < b->softirqs.nrow; r++) {
            uint64_t n;
            if (!row_delta(&a->softirqs, &b->softirqs, r, i, &n))
                continue;
            known = true;
            total += n;
            for (int k = 0; k < t->nsoftirq; k++)
                if (strcmp(t->softirq_name[k], b->softirqs.row[r].id) == 0)
                    f->softirq[k] = n;
        }
        if (known)
            f->softirqs = (int64_t)total;
    }
}

static void idle_figures(const struct telemetry *t, int i, double us,
                         struct telemetry_cpu_figures *f)
{
    if (!t->use_idle || us <= 0)
        return;
    const struct cpuidle_cpu *c = &t->idle.cpu[i];
    const struct snap_cpu *a = &snap_old(t)->cpu[i], *b = &snap_new(t)->cpu[i];
    for (int k = 0; k < c->nstates; k++) {
        struct telemetry_idle *d = &f->idle[f->nidle];
        text_copy(d->name, sizeof d->name, c->state[k].name);
        /* unknown counts are VALUE_UNKNOWN, far below 0 */
        bool known = a->idle_time_us[k] >= 0 && a->idle_usage[k] >= 0 &&
                     b->idle_time_us[k] >= a->idle_time_us[k] &&
                     b->idle_usage[k] >= a->idle_usage[k];
        /* The kernel adds a state's time when the CPU leaves it: an idle
         * period that began before the window is credited here in full,
         * and can exceed the window. At most the whole window was spent in
         * it. */
        d->residency_pct =
            known ? fmin(100.0, 100.0 * (double)(b->idle_time_us[k] - a->idle_time_us[k]) / us)
                  : NAN;
        d->entries = known ? b->idle_usage[k] - a->idle_usage[k] : -1;
        f->nidle++;
    }
}

static void sensor_figures(const struct telemetry *t, int i, double s,
                           struct telemetry_cpu_figures *f)
{
    int package = (int)t->package_id[i];
    if (t->use_temps) {
        const struct sensor_temp *pt = sensors_package_temp(t->sensors, package);
        if (pt && pt->ok)
            f->pkg_temp_c = (double)pt->milli_c / 1000.0;
        const struct sensor_temp *ct =
            t->core_id[i] >= 0 ? sensors_core_temp(t->sensors, package, (int)t->core_id[i]) : NULL;
        if (ct && ct->ok)
            f->core_temp_c = (double)ct->milli_c / 1000.0;
    }
    if (t->use_energy && s > 0) {
        const struct snapshot *a = snap_old(t), *b = snap_new(t);
        for (int e = 0; e < t->sensors->nenergy; e++)
            if (t->sensors->energy[e].package == package && a->energy_ok[e] && b->energy_ok[e]) {
                uint64_t uj;
                if (sensors_energy_delta_uj(&t->sensors->energy[e], a->energy_uj[e],
                                            b->energy_uj[e], &uj))
                    f->pkg_watts = (double)uj / 1e6 / s;
                break;
            }
    }
}

void telemetry_cpu_delta(const struct telemetry *t, int i, struct telemetry_cpu_figures *f)
{
    memset(f, 0, sizeof *f);
    f->cpu = t->cpus.cpu[i];
    f->avg_mhz = f->busy_pct = f->bzy_mhz = f->tsc_mhz = NAN;
    f->steal_pct = f->irq_pct = f->softirq_pct = NAN;
    f->core_temp_c = f->pkg_temp_c = f->pkg_watts = NAN;
    f->smi = f->ctxt = f->irqs = f->softirqs = -1;
    const struct snapshot *a = snap_old(t), *b = snap_new(t);
    if (!a->taken || !b->taken || b->t_ns <= a->t_ns)
        return;
    double s = (double)(b->t_ns - a->t_ns) / 1e9;
    msr_figures(t, &a->cpu[i], &b->cpu[i], f);
    cpu_time_figures(t, i, f);
    if (a->cpu[i].run_ns >= 0 && b->cpu[i].run_ns >= a->cpu[i].run_ns)
        f->busy_pct = fmin(100.0, 100.0 * (double)(b->cpu[i].run_ns - a->cpu[i].run_ns) /
                                      (double)(b->t_ns - a->t_ns));
    if (t->freq_via && b->cpu[i].freq_khz > 0)
        f->avg_mhz = (double)b->cpu[i].freq_khz / 1000.0;
    irq_figures(t, i, f);
    idle_figures(t, i, s * 1e6, f);
    if (t->use_ctxt) {
        uint64_t n;
        if (counter64_delta(a->cpu[i].ctxt, b->cpu[i].ctxt, &n))
            f->ctxt = (int64_t)n;
    }
    sensor_figures(t, i, s, f);
}

int64_t telemetry_system_ctxt(const struct telemetry *t)
{
    const struct snapshot *a = snap_old(t), *b = snap_new(t);
    uint64_t n;
    if (!a->taken || !b->taken || !a->stat_ok || !b->stat_ok || !a->stat.has_ctxt ||
        !b->stat.has_ctxt || !counter64_delta(a->stat.ctxt, b->stat.ctxt, &n))
        return -1;
    return (int64_t)n;
}
