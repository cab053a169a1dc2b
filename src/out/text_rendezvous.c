/*
 * The rendezvous table, ratio lines and CSV (see text_rendezvous.h). The
 * unit is "cycles" with the TSC and "ns" with the monotonic clock; the CSV
 * keeps the _cycles column names in both cases, as the JSON keys do.
 */
#include "out/text_rendezvous.h"

#include <inttypes.h>
#include <string.h>

#include "sys/cpulist.h"

static const char *unit_of(const struct rendezvous_report *rep)
{
    return rep->tb->tsc ? "cycles" : "ns";
}

static void summary_cells(FILE *out, const struct sample_summary *s)
{
    if (s->n == 0)
        fprintf(out, " %9s %9s %9s %9s", "-", "-", "-", "-");
    else
        fprintf(out, " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64, s->min, s->median, s->p99,
                s->max);
}

static void ratio_phrase(FILE *out, const char *what, const struct rv_ratio *r)
{
    if (r->batches == 0) {
        fprintf(out, "%s: no batch with both layouts measured", what);
        return;
    }
    fprintf(out, "%s %.3f", what, r->median);
    if (r->has_ci)
        fprintf(out, " (95%% CI %.3f-%.3f; %zu batches %.3f-%.3f)", r->ci_low, r->ci_high,
                r->batches, r->batch_min, r->batch_max);
    else
        fprintf(out, " (1 batch: no interval)");
}

static void header(FILE *out, const struct rendezvous_report *rep)
{
    struct cpulist l = {0};
    for (int i = 0; i < rep->ncpu && i < CPULIST_MAX_CPUS; i++)
        cpulist_add(&l, rep->cpus[i]);
    char list[256];
    if (cpulist_format(&l, list, sizeof list) != 0)
        snprintf(list, sizeof list, "%d CPUs", rep->ncpu);
    fprintf(out, "rendezvous: CPUs %s (master %d), %ld rendezvous of %ld iterations, layouts ",
            list, rep->cpus[0], rep->rendezvous, rep->iterations);
    for (int i = 0; i < rep->nlayouts; i++)
        fprintf(out, "%s%s", i ? "," : "", rv_layout_name(rep->layouts[i]));
    fprintf(out, " interleaved in %ld batches\n", rep->batches);
    if (rep->tb->tsc)
        fprintf(out, "clock: TSC at %.3f MHz", rep->tb->hz / 1e6);
    else
        fprintf(out, "clock: CLOCK_MONOTONIC, ticks are ns (%s)", rep->tb->why);
    if (rep->realtime)
        fprintf(out, "; SCHED_FIFO %ld", rep->priority);
    else
        fprintf(out, "; SCHED_OTHER (not real-time)");
    fprintf(out, "; deadline %.1f ms%s\n", (double)rep->deadline_ns / 1e6,
            rep->interrupted ? "; interrupted" : "");
    fprintf(out,
            "loop-exit: clock after the stamp read of the last iteration -> after the loop; "
            "total: entry -> after the loop (%s)\n\n",
            unit_of(rep));
}

/* "faster than packed (total 0.62x, 95 % CI 0.58-0.66 excludes 1)" and the
 * like: the interval decides, the median only sizes the difference. */
static void verdict_phrase(FILE *out, const char *what, const struct rv_ratio *r)
{
    switch (rv_ratio_verdict(r)) {
    case RV_VERDICT_FASTER:
        fprintf(out, "%s faster than packed (%.2fx the time; 95%% CI %.3f-%.3f excludes 1)", what,
                r->median, r->ci_low, r->ci_high);
        break;
    case RV_VERDICT_SLOWER:
        fprintf(out, "%s slower than packed (%.2fx the time; 95%% CI %.3f-%.3f excludes 1)", what,
                r->median, r->ci_low, r->ci_high);
        break;
    case RV_VERDICT_SAME:
        fprintf(out, "%s no difference shown (95%% CI %.3f-%.3f includes 1)", what, r->ci_low,
                r->ci_high);
        break;
    case RV_VERDICT_NONE:
        fprintf(out, "%s no conclusion (%s)", what,
                r->batches ? "1 batch: no interval; use --batches 2 or more"
                           : "no batch with both layouts");
        break;
    }
}

void text_rendezvous_conclusion(FILE *out, const char *layout, const struct rv_ratio *total,
                                const struct rv_ratio *loop_exit)
{
    fprintf(out, "  so %s: ", layout);
    verdict_phrase(out, "total", total);
    fprintf(out, "; ");
    verdict_phrase(out, "loop-exit", loop_exit);
    fputc('\n', out);
}

void text_rendezvous(FILE *out, const struct rendezvous_report *rep)
{
    const struct rv_stats *st = rep->stats;
    const char *u = unit_of(rep);
    header(out, rep);
    fprintf(out, "%-10s %4s  %-39s  %s\n", "", "", "loop-exit", "total");
    fprintf(out, "%-10s %4s %9s %9s %9s %9s %9s %9s %9s %9s\n", "layout", "CPU", "min", "median",
            "p99", "max", "min", "median", "p99", "max");
    for (int li = 0; li < st->nlayouts; li++) {
        const struct rv_layout_stats *ls = &st->layout[li];
        for (int i = 0; i < rep->ncpu; i++) {
            fprintf(out, "%-10s %4d", rv_layout_name(ls->layout), rep->cpus[i]);
            summary_cells(out, &ls->cpu[RV_LOOP_EXIT][i]);
            summary_cells(out, &ls->cpu[RV_TOTAL][i]);
            fputc('\n', out);
        }
        fprintf(out, "  %s: %" PRIu64 " done, %" PRIu64 " timeouts (%" PRIu64 " at the start)",
                rv_layout_name(ls->layout), ls->done, ls->timeouts, ls->timeouts_at_start);
        if (ls->has_median)
            fprintf(out, "; median over CPUs: loop-exit %.0f, total %.0f %s\n",
                    ls->median[RV_LOOP_EXIT], ls->median[RV_TOTAL], u);
        else
            fprintf(out, "; no rendezvous completed in time\n");
    }
    fputc('\n', out);
    bool packed = false;
    for (int li = 0; li < st->nlayouts; li++)
        packed = packed || st->layout[li].layout == RV_PACKED;
    if (!packed) {
        fprintf(out, "no ratios: packed was not measured\n");
        return;
    }
    for (int li = 0; li < st->nlayouts; li++) {
        const struct rv_layout_stats *ls = &st->layout[li];
        if (!ls->has_ratio)
            continue;
        char name[32];
        snprintf(name, sizeof name, "%s / packed:", rv_layout_name(ls->layout));
        fprintf(out, "%-20s ", name);
        ratio_phrase(out, "loop-exit", &ls->ratio[RV_LOOP_EXIT]);
        fprintf(out, ", ");
        ratio_phrase(out, "total", &ls->ratio[RV_TOTAL]);
        fputc('\n', out);
        text_rendezvous_conclusion(out, rv_layout_name(ls->layout), &ls->ratio[RV_TOTAL],
                                   &ls->ratio[RV_LOOP_EXIT]);
    }
}

static void csv_cells(FILE *out, const struct sample_summary *s)
{
    if (s->n == 0)
        fprintf(out, ",,,,");
    else
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, s->min, s->median, s->p99,
                s->max);
}

void csv_rendezvous(FILE *out, const struct rendezvous_report *rep)
{
    fprintf(out, "layout,cpu,rendezvous_done,timeouts,loop_exit_min_cycles,"
                 "loop_exit_median_cycles,loop_exit_p99_cycles,loop_exit_max_cycles,"
                 "total_min_cycles,total_median_cycles,total_p99_cycles,total_max_cycles\n");
    const struct rv_stats *st = rep->stats;
    for (int li = 0; li < st->nlayouts; li++) {
        const struct rv_layout_stats *ls = &st->layout[li];
        for (int i = 0; i < rep->ncpu; i++) {
            fprintf(out, "%s,%d,%" PRIu64 ",%" PRIu64, rv_layout_name(ls->layout), rep->cpus[i],
                    ls->done, ls->timeouts);
            csv_cells(out, &ls->cpu[RV_LOOP_EXIT][i]);
            csv_cells(out, &ls->cpu[RV_TOTAL][i]);
            fputc('\n', out);
        }
    }
}
