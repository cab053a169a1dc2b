/*
 * The text and CSV of `jitterlab tsc` (see text_tsc.h). A large machine
 * has many pairs: beyond TEXT_PAIRS_MAX rows the table keeps the pairs
 * that warped or compared nothing and counts the rest (the CSV and JSON
 * hold every pair).
 */
#include "out/text_tsc.h"

#include <inttypes.h>
#include <string.h>

#define TEXT_PAIRS_MAX 32

static void print_flags(FILE *out, const struct tsc_flags *f)
{
    if (!f->readable) {
        fprintf(out, "TSC flags     unknown (no flags line in /proc/cpuinfo)\n");
        return;
    }
    const struct {
        const char *name;
        bool on;
    } fl[] = {{"tsc", f->tsc},
              {"constant_tsc", f->constant_tsc},
              {"nonstop_tsc", f->nonstop_tsc},
              {"tsc_reliable", f->tsc_reliable},
              {"tsc_known_freq", f->tsc_known_freq},
              {"rdtscp", f->rdtscp}};
    fprintf(out, "TSC flags    ");
    int have = 0, missing = 0;
    for (size_t i = 0; i < sizeof fl / sizeof fl[0]; i++)
        if (fl[i].on)
            fprintf(out, " %s", fl[i].name), have++;
    if (!have)
        fprintf(out, " none");
    for (size_t i = 0; i < sizeof fl / sizeof fl[0]; i++)
        if (!fl[i].on)
            fprintf(out, "%s%s", missing++ ? " " : " (missing: ", fl[i].name);
    fprintf(out, "%s\n", missing ? ")" : "");
}

static void print_static(FILE *out, const struct tsc_static *st)
{
    if (st->sysroot[0])
        fprintf(out, "read from     %s\n", st->sysroot);
    print_flags(out, &st->flags);
    char avail[256];
    snprintf(avail, sizeof avail, "%s", st->available);
    size_t n = strlen(avail);
    while (n > 0 && avail[n - 1] == ' ')
        avail[--n] = '\0';
    fprintf(out, "clocksource   %s (available: %s)\n", st->clocksource[0] ? st->clocksource : "?",
            avail[0] ? avail : "?");
    if (st->cmdline_tsc[0])
        fprintf(out, "command line  tsc=%s\n", st->cmdline_tsc);
    const struct tsc_kernel_log *log = &st->log;
    if (!log->readable) {
        fprintf(out, "kernel log    %s\n", log->why);
        return;
    }
    fprintf(out, "kernel log    %d TSC line%s%s\n", log->nlines, log->nlines == 1 ? "" : "s",
            log->nlines ? ":" : "");
    for (int i = 0; i < log->nlines; i++)
        fprintf(out, "  %s\n", log->lines[i]);
    if (log->lines_dropped)
        fprintf(out, "  (%" PRIu64 " more)\n", log->lines_dropped);
}

static void print_pair(FILE *out, const struct tsc_pair_result *p)
{
    fprintf(out, "  %5d  %5d  %-13s %12" PRIu64 " %12" PRIu64 " %7" PRIu64 " %16" PRIu64 "\n", p->a,
            p->b,
            p->a == p->b  ? "alone"
            : p->group[0] ? p->group
                          : "?",
            p->reads, p->handoffs, p->warps, p->max_warp_cycles);
}

static void print_warp(FILE *out, const struct tsc_text *t)
{
    const struct tsc_results *r = t->r;
    if (!r->warp_measured) {
        fprintf(out, "\nwarp test     not run\n");
        return;
    }
    int tested = 0;
    for (int i = 0; i < r->npairs; i++)
        tested += r->pair[i].measured;
    fprintf(out, "\nwarp test     %.2f s, %d of %" PRIu64 " pair%s, %s, deadlines in %s ticks\n",
            r->warp_duration_s, tested, r->pairs_possible, r->pairs_possible == 1 ? "" : "s",
            t->realtime ? "SCHED_FIFO" : "SCHED_OTHER", t->clock);
    fprintf(out, "  CPU a  CPU b  group                reads     handoffs   warps  "
                 "max_warp_cycles\n");
    int shown = 0, hidden = 0;
    for (int i = 0; i < r->npairs; i++) {
        const struct tsc_pair_result *p = &r->pair[i];
        if (!p->measured)
            continue;
        bool notable = p->warps > 0 || (p->a != p->b && p->handoffs == 0);
        if (tested <= TEXT_PAIRS_MAX || (notable && shown < TEXT_PAIRS_MAX)) {
            print_pair(out, p);
            shown++;
        } else {
            hidden++;
        }
    }
    if (hidden)
        fprintf(out, "  (%d more pairs without warps: --csv or --json has every pair)\n", hidden);
    fprintf(out, "  all: %" PRIu64 " warps in %" PRIu64 " reads, the largest %" PRIu64 " cycles\n",
            r->warp_total.warps, r->warp_total.reads, r->warp_total.max_warp_cycles);
}

static void print_offsets(FILE *out, const struct tsc_results *r)
{
    if (r->ncpu < 2 || !r->offsets_measured)
        return;
    fprintf(out, "\noffsets against CPU %d (the round with the smallest round trip)\n",
            r->cpu[0].cpu);
    fprintf(out, "  CPU  offset_cycles  bound_cycles  rtt_min_cycles  rounds  timeouts\n");
    for (int i = 1; i < r->ncpu; i++) {
        const struct tsc_cpu_result *c = &r->cpu[i];
        if (c->offset.valid) {
            char bound[24];
            snprintf(bound, sizeof bound, "+-%" PRIu64, c->offset.bound_cycles);
            fprintf(out, "  %3d  %13" PRId64 "  %12s  %14" PRIu64 "  %6" PRIu64 "  %8" PRIu64 "\n",
                    c->cpu, c->offset.offset_cycles, bound, c->offset.rtt_min_cycles, c->rounds,
                    c->timeouts);
        } else {
            fprintf(out, "  %3d  %13s  %12s  %14s  %6" PRIu64 "  %8" PRIu64 "\n", c->cpu, "-", "-",
                    "-", c->rounds, c->timeouts);
        }
    }
}

static void print_rates(FILE *out, const struct tsc_text *t)
{
    const struct tsc_results *r = t->r;
    if (!r->rates_measured)
        return;
    fprintf(out, "\nTSC rate against CLOCK_MONOTONIC_RAW\n");
    fprintf(out, "  CPU           tsc_mhz  +-ppm\n");
    for (int i = 0; i < r->ncpu; i++) {
        const struct tsc_rate *rt = &r->cpu[i].rate;
        if (rt->valid)
            fprintf(out, "  %3d  %16.6f  %5.1f\n", r->cpu[i].cpu, rt->hz / 1e6,
                    rt->uncertainty_hz / rt->hz * 1e6);
        else
            fprintf(out, "  %3d  %16s  %5s\n", r->cpu[i].cpu, "-", "-");
    }
    const struct tsc_rate_summary *s = &t->v->rates;
    if (s->n > 1)
        fprintf(out, "  spread %.1f ppm (allowed %.1f ppm)\n", s->spread_ppm, s->allowed_ppm);
}

void tsc_text_print(FILE *out, const struct tsc_text *t)
{
    print_static(out, t->st);
    print_warp(out, t);
    print_offsets(out, t->r);
    print_rates(out, t);
    const struct tsc_verdict *v = t->v;
    fprintf(out, "\nverdict: --clock tsc is %s on CPU%s %s\n", v->safe ? "safe" : "UNSAFE",
            t->r->ncpu == 1 ? "" : "s", t->cpus_text);
    for (int i = 0; i < v->nreasons; i++)
        fprintf(out, "  - %s\n", v->reasons[i]);
    for (int i = 0; i < v->nnotes; i++)
        fprintf(out, "  note: %s\n", v->notes[i]);
}

void tsc_csv_write(FILE *out, const struct tsc_results *r)
{
    fprintf(out, "cpu_a,cpu_b,group,reads,handoffs,warps,max_warp_cycles,duration_s\n");
    for (int i = 0; i < r->npairs; i++) {
        const struct tsc_pair_result *p = &r->pair[i];
        if (!p->measured)
            continue;
        fprintf(out, "%d,%d,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6f\n", p->a, p->b,
                p->a == p->b ? "alone" : p->group, p->reads, p->handoffs, p->warps,
                p->max_warp_cycles, p->duration_s);
    }
}
