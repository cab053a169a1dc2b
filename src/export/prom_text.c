/*
 * The metrics page (see prom_text.h). Every family is written whole, its
 * HELP and TYPE first, then one sample per CPU (and per bucket, state,
 * interrupt source or cause), so that a scraper sees each family once.
 */
#include "export/prom_text.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/safe_text.h"

struct page {
    FILE *out;
    bool om; /* OpenMetrics */
};

/* A label value with \, " and newline escaped. The exposition formats are
 * UTF-8, and a name of other bytes would make a scraper drop the whole
 * page: a byte of no valid UTF-8 sequence is written \xNN, as in the
 * documents (common/safe_text.h), its backslash escaped as any other. */
static void label_value(FILE *out, const char *v)
{
    while (*v) {
        size_t n = safe_text_utf8_len((const unsigned char *)v);
        if (n == 0)
            fprintf(out, "\\\\x%02x", (unsigned char)*v);
        else if (*v == '\\' || *v == '"')
            fputc('\\', out), fputc(*v, out);
        else if (*v == '\n')
            fputs("\\n", out);
        else
            fwrite(v, 1, n, out);
        v += n ? n : 1;
    }
}

/* A number as both formats read it. */
static void number(FILE *out, double v)
{
    if (isnan(v))
        fputs("NaN", out);
    else if (isinf(v))
        fputs(v > 0 ? "+Inf" : "-Inf", out);
    else {
        /* the shortest form that reads back as the same double */
        char buf[40];
        for (int prec = 6; prec <= 17; prec++) {
            snprintf(buf, sizeof(buf), "%.*g", prec, v);
            if (strtod(buf, NULL) == v)
                break;
        }
        fputs(buf, out);
    }
}

/* HELP and TYPE of a family; counters are named without _total in
 * OpenMetrics. */
static void family(struct page *pg, const char *name, const char *type, const char *help)
{
    char fam[128];
    snprintf(fam, sizeof(fam), "%s", name);
    size_t n = strlen(fam);
    if (pg->om && strcmp(type, "counter") == 0 && n > 6 && strcmp(fam + n - 6, "_total") == 0)
        fam[n - 6] = '\0';
    if (pg->om && strcmp(type, "info") == 0 && n > 5 && strcmp(fam + n - 5, "_info") == 0)
        fam[n - 5] = '\0';
    fprintf(pg->out, "# HELP %s %s\n# TYPE %s %s\n", fam, help, fam,
            !pg->om && strcmp(type, "info") == 0 ? "gauge" : type);
}

static void cpu_sample(struct page *pg, const char *name, int cpu, const char *extra_label,
                       const char *extra_value, double v)
{
    fprintf(pg->out, "%s{cpu=\"%d\"", name, cpu);
    if (extra_label && extra_value) {
        fprintf(pg->out, ",%s=\"", extra_label);
        label_value(pg->out, extra_value);
        fputc('"', pg->out);
    }
    fputs("} ", pg->out);
    number(pg->out, v);
    fputc('\n', pg->out);
}

/* An interrupt source: irq is the /proc/interrupts row ("36", "LOC"), name
 * what people know it by ("virtio1-req.0", "Local timer interrupts"; the
 * row again when /proc/interrupts names nothing). A device name is chosen
 * by a driver and may hold any bytes: it is written in the documents' text
 * form (common/safe_text.h), valid UTF-8 whatever the bytes. */
static void irq_sample(struct page *pg, int cpu, const struct metrics_irq *q)
{
    char name[SAFE_TEXT_GROWTH * sizeof q->name + 1];
    safe_text(name, sizeof name, q->name[0] ? q->name : q->id);
    fprintf(pg->out, "jitterlab_interrupts_total{cpu=\"%d\",irq=\"", cpu);
    label_value(pg->out, q->id);
    fputs("\",name=\"", pg->out);
    label_value(pg->out, name);
    fputs("\"} ", pg->out);
    number(pg->out, (double)q->total);
    fputc('\n', pg->out);
}

static void histogram(struct page *pg, const char *name, const char *help,
                      const struct metrics_bounds *b, const struct metrics_cpu *cpus, int ncpu,
                      bool response)
{
    family(pg, name, "histogram", help);
    for (int i = 0; i < ncpu; i++) {
        const struct metrics_hist *h = response ? &cpus[i].response : &cpus[i].latency;
        uint64_t cum = 0;
        for (int k = 0; k <= b->n; k++) {
            cum += h->bucket[k];
            fprintf(pg->out, "%s_bucket{cpu=\"%d\",le=\"", name, cpus[i].cpu);
            if (k < b->n)
                number(pg->out, (double)b->le_ns[k] / 1e9);
            else
                fputs("+Inf", pg->out);
            fprintf(pg->out, "\"} %llu\n", (unsigned long long)cum);
        }
        fprintf(pg->out, "%s_sum{cpu=\"%d\"} ", name, cpus[i].cpu);
        number(pg->out, (double)h->sum_ns / 1e9);
        fprintf(pg->out, "\n%s_count{cpu=\"%d\"} %llu\n", name, cpus[i].cpu,
                (unsigned long long)h->count);
    }
}

/* One family with a value per CPU, from a field picked by `pick`. */
typedef double (*pick_fn)(const struct metrics_cpu *c);

static void per_cpu(struct page *pg, const char *name, const char *type, const char *help,
                    const struct metrics_cpu *cpus, int ncpu, pick_fn pick)
{
    family(pg, name, type, help);
    for (int i = 0; i < ncpu; i++)
        cpu_sample(pg, name, cpus[i].cpu, NULL, NULL, pick(&cpus[i]));
}

static double pick_samples(const struct metrics_cpu *c)
{
    return (double)c->latency.count;
}
static double pick_missed(const struct metrics_cpu *c)
{
    return (double)c->missed;
}
static double pick_deadline(const struct metrics_cpu *c)
{
    return (double)c->deadline_misses;
}
static double pick_drops(const struct metrics_cpu *c)
{
    return (double)c->ring_drops;
}
static double pick_max_scrape(const struct metrics_cpu *c)
{
    return c->max_scrape_set ? (double)c->max_scrape_ns / 1e9 : 0;
}
static double pick_max_total(const struct metrics_cpu *c)
{
    return c->latency.count ? (double)c->max_total_ns / 1e9 : 0;
}
static double pick_freq(const struct metrics_cpu *c)
{
    return c->frequency_hz;
}
static double pick_busy(const struct metrics_cpu *c)
{
    return c->busy_ratio;
}
static double pick_steal(const struct metrics_cpu *c)
{
    return c->steal_s;
}

static bool any(const struct metrics_cpu *cpus, int ncpu, size_t offset)
{
    for (int i = 0; i < ncpu; i++)
        if (*(const bool *)((const char *)&cpus[i] + offset))
            return true;
    return false;
}

static void telemetry_families(struct page *pg, const struct metrics_cpu *cpus, int ncpu)
{
    bool freq = false, busy = false, idle = false;
    for (int i = 0; i < ncpu; i++) {
        freq |= cpus[i].has_telemetry && !isnan(cpus[i].frequency_hz);
        busy |= cpus[i].has_telemetry && !isnan(cpus[i].busy_ratio);
        idle |= cpus[i].has_telemetry && cpus[i].nidle > 0;
    }
    if (freq)
        per_cpu(
            pg, "jitterlab_cpu_frequency_hertz", "gauge",
            "CPU frequency of the newest telemetry window: cycles run (APERF) where the machine "
            "has it, else the one cpufreq requested or /proc/cpuinfo reports; the run "
            "result's telemetry_sources.avg_mhz names which.",
            cpus, ncpu, pick_freq);
    if (busy)
        per_cpu(pg, "jitterlab_cpu_busy_ratio", "gauge",
                "Share of the newest telemetry window the CPU was busy (0..1): C0 from MPERF/TSC, "
                "else the "
                "scheduler's run time (with thread-schedstat the measured thread's only).",
                cpus, ncpu, pick_busy);
    if (idle) {
        family(pg, "jitterlab_cpu_idle_state_residency_ratio", "gauge",
               "Share of the newest telemetry window spent in each idle state (0..1).");
        for (int i = 0; i < ncpu; i++)
            for (int k = 0; k < cpus[i].nidle; k++)
                if (!isnan(cpus[i].idle[k].residency_pct))
                    cpu_sample(pg, "jitterlab_cpu_idle_state_residency_ratio", cpus[i].cpu, "state",
                               cpus[i].idle[k].name, cpus[i].idle[k].residency_pct / 100.0);
    }
    if (any(cpus, ncpu, offsetof(struct metrics_cpu, has_irqs))) {
        family(pg, "jitterlab_interrupts_total", "counter",
               "Device and architecture interrupts on the CPU since the start, by source "
               "(irq: the /proc/interrupts row, name: its device or description; the "
               "largest, the rest as other).");
        for (int i = 0; i < ncpu; i++) {
            if (!cpus[i].has_irqs)
                continue;
            for (int k = 0; k < cpus[i].nirq; k++)
                irq_sample(pg, cpus[i].cpu, &cpus[i].irq[k]);
            struct metrics_irq other = {.id = "other", .name = "other", .total = cpus[i].irq_other};
            irq_sample(pg, cpus[i].cpu, &other);
        }
    }
    if (any(cpus, ncpu, offsetof(struct metrics_cpu, has_steal)))
        per_cpu(pg, "jitterlab_cpu_steal_seconds_total", "counter",
                "Time the hypervisor ran something else while the CPU wanted to run.", cpus, ncpu,
                pick_steal); /* absent where the hypervisor reports none: unknown, not 0 */
}

/* A probability as a label: the shortest %g form, the exponent without
 * its leading zero ("1e-9", "0.001"). */
static void probability_label(char *buf, size_t len, double p)
{
    snprintf(buf, len, "%g", p);
    char *e = strstr(buf, "e-0");
    if (e)
        memmove(e + 2, e + 3, strlen(e + 3) + 1);
}

/* The newest tail fit (run --tail --prometheus): present once a fit ran;
 * an estimate only where every check passed. */
static void tail_families(struct page *pg, const struct metrics_cpu *cpus, int ncpu)
{
    bool fitted = false, estimate = false, budget = false;
    for (int i = 0; i < ncpu; i++) {
        fitted |= cpus[i].tail.fitted;
        estimate |= cpus[i].tail.fitted && cpus[i].tail.pass;
        budget |= cpus[i].tail.fitted && !isnan(cpus[i].tail.budget_p);
    }
    if (!fitted)
        return;
    if (estimate) {
        family(pg, "jitterlab_latency_estimate_seconds", "gauge",
               "Latency exceeded with the given probability per cycle, from the newest fit of "
               "the tail (absent where its checks refuse an estimate).");
        for (int i = 0; i < ncpu; i++) {
            const struct metrics_tail *t = &cpus[i].tail;
            for (int k = 0; t->fitted && t->pass && k < t->nprob; k++) {
                if (!isfinite(t->estimate_s[k]))
                    continue;
                char p[32];
                probability_label(p, sizeof p, t->probability[k]);
                cpu_sample(pg, "jitterlab_latency_estimate_seconds", cpus[i].cpu, "probability", p,
                           t->estimate_s[k]);
            }
        }
    }
    if (budget) {
        family(pg, "jitterlab_budget_exceedance_probability", "gauge",
               "Probability per cycle that the latency exceeds --budget, from the newest fit of "
               "the tail.");
        for (int i = 0; i < ncpu; i++)
            if (cpus[i].tail.fitted && !isnan(cpus[i].tail.budget_p))
                cpu_sample(pg, "jitterlab_budget_exceedance_probability", cpus[i].cpu, NULL, NULL,
                           cpus[i].tail.budget_p);
    }
    family(pg, "jitterlab_tail_checks_pass", "gauge",
           "1 when every check of the newest tail fit passed (its estimates are published), 0 "
           "when one refused an estimate.");
    for (int i = 0; i < ncpu; i++)
        if (cpus[i].tail.fitted)
            cpu_sample(pg, "jitterlab_tail_checks_pass", cpus[i].cpu, NULL, NULL,
                       cpus[i].tail.pass ? 1 : 0);
}

static void info_family(struct page *pg, const struct metrics_info *in)
{
    family(pg, "jitterlab_info", "info", "What is measured: program, kernel and machine.");
    FILE *o = pg->out;
    const char *keys[] = {"version", "kernel", "preempt", "cpu_model", "clocksource", "hypervisor"};
    const char *vals[] = {in->version,   in->kernel,      in->preempt,
                          in->cpu_model, in->clocksource, in->hypervisor};
    fputs("jitterlab_info{", o);
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        fprintf(o, "%s=\"", keys[k]);
        label_value(o, vals[k]);
        fputs("\",", o);
    }
    fputs("interval_seconds=\"", o);
    number(o, in->interval_s);
    fputs("\"} 1\n", o);
    family(pg, "jitterlab_start_time_seconds", "gauge",
           "When the measurement started (Unix time).");
    fputs("jitterlab_start_time_seconds ", o);
    number(o, in->start_time_s);
    fputc('\n', o);
}

int prom_render(FILE *out, const struct metrics_config *cfg, const struct metrics_cpu *cpus,
                int ncpu, bool openmetrics)
{
    struct page pg = {.out = out, .om = openmetrics};
    histogram(&pg, "jitterlab_wakeup_latency_seconds",
              "Wake-up latency: how late each cycle's thread ran after its planned time.",
              &cfg->bounds, cpus, ncpu, false);
    per_cpu(&pg, "jitterlab_wakeup_latency_max_seconds", "gauge",
            "Largest wake-up latency since the previous scrape (reset when read).", cpus, ncpu,
            pick_max_scrape);
    per_cpu(&pg, "jitterlab_wakeup_latency_max_total_seconds", "gauge",
            "Largest wake-up latency since the start.", cpus, ncpu, pick_max_total);
    per_cpu(&pg, "jitterlab_samples_total", "counter", "Cycles measured.", cpus, ncpu,
            pick_samples);
    per_cpu(&pg, "jitterlab_missed_periods_total", "counter",
            "Planned wake-ups skipped because the previous cycle ran past them.", cpus, ncpu,
            pick_missed);
    if (cfg->deadline) /* without a deadline there is nothing to count, not 0 */
        per_cpu(&pg, "jitterlab_deadline_misses_total", "counter",
                "Cycles whose response time (latency + execution) exceeded the deadline.", cpus,
                ncpu, pick_deadline);
    per_cpu(&pg, "jitterlab_ring_drops_total", "counter",
            "Samples the collector never saw (full ring); the histograms lack them.", cpus, ncpu,
            pick_drops);
    if (cfg->response)
        histogram(&pg, "jitterlab_response_time_seconds",
                  "Response time: latency plus the workload's execution time.", &cfg->bounds, cpus,
                  ncpu, true);
    telemetry_families(&pg, cpus, ncpu);
    if (any(cpus, ncpu, offsetof(struct metrics_cpu, has_spikes))) {
        family(&pg, "jitterlab_spikes_total", "counter",
               "Spikes (samples above the explain threshold) by dominant cause.");
        for (int i = 0; i < ncpu; i++)
            if (cpus[i].has_spikes)
                for (unsigned k = 0; k < CAUSE_KIND_COUNT; k++)
                    cpu_sample(&pg, "jitterlab_spikes_total", cpus[i].cpu, "cause",
                               cause_kind_name(k), (double)cpus[i].spikes[k]);
    }
    tail_families(&pg, cpus, ncpu);
    info_family(&pg, &cfg->info);
    if (openmetrics)
        fputs("# EOF\n", out);
    return ferror(out) ? -1 : 0;
}

bool prom_accepts_openmetrics(const char *accept)
{
    return accept && strcasestr(accept, "application/openmetrics-text") != NULL;
}
