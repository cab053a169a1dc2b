/*
 * What a page costs the measuring loop: a thread pinned to one CPU sleeps
 * to absolute times like the cycle loop, reads the clock, then writes one
 * cache line on each of P distinct pages (P = 0 .. -P), the TSC read around
 * the writes only. Every configuration runs in blocks of -n cycles that
 * take turns, so the machine's drift spreads over all of them; the first
 * cycles of a block (until its lines have been touched once) are not
 * counted. The same is done with the P lines on one page and with the P
 * pages inside one transparent huge page (when the kernel gives one).
 *
 *   page-cost [-c CPU] [-i US] [-n CYCLES] [-b BLOCKS] [-P PAGES]
 *
 * Prints per configuration the median and the mean up to the 99th
 * percentile in ns, then the cost of one more page: the slope of the
 * medians from 1 to P pages, by least squares. Not a test; a test runs it
 * small (tests/e2e/loop_probe.sh). Needs an x86 TSC; SCHED_FIFO 90 and
 * locked memory when allowed, plain scheduling otherwise (said on stderr).
 */
#include "common/clock.h"
#include "common/tsc.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGE        4096
#define HUGE_PAGE   (2u << 20)
#define MAX_PAGES   64
#define WARM_CYCLES 5

enum layout { LINES_ONE_PAGE, SMALL_PAGES, HUGE_PAGES, LAYOUTS };
static const char *const layout_name[LAYOUTS] = {"lines on one page", "4 KiB pages",
                                                 "pages in a huge page"};

struct config {
    enum layout layout;
    int pages;
    volatile uint64_t *line[MAX_PAGES];
    uint64_t *ticks; /* one per counted cycle */
    size_t count;
};

struct options {
    int cpu, cycles, blocks, pages;
    long interval_us;
};

static int parse_int(const char *opt, const char *arg, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || end == arg || *end || v < lo || v > hi) {
        fprintf(stderr, "page-cost: %s %s: expected an integer from %ld to %ld\n", opt, arg, lo,
                hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
    *o = (struct options){.cpu = 1, .cycles = 100, .blocks = 10, .pages = 8, .interval_us = 1000};
    int c;
    long v;
    while ((c = getopt(argc, argv, "c:i:n:b:P:")) != -1) {
        char opt[3] = {'-', (char)c, 0};
        switch (c) {
        case 'c':
            if (parse_int(opt, optarg, 0, CPU_SETSIZE - 1, &v))
                return -1;
            o->cpu = (int)v;
            break;
        case 'i':
            if (parse_int(opt, optarg, 10, 1000000, &o->interval_us))
                return -1;
            break;
        case 'n':
            if (parse_int(opt, optarg, WARM_CYCLES + 1, 100000, &v))
                return -1;
            o->cycles = (int)v;
            break;
        case 'b':
            if (parse_int(opt, optarg, 1, 100000, &v))
                return -1;
            o->blocks = (int)v;
            break;
        case 'P':
            if (parse_int(opt, optarg, 2, MAX_PAGES, &v))
                return -1;
            o->pages = (int)v;
            break;
        default:
            fprintf(stderr, "usage: page-cost [-c CPU] [-i US] [-n CYCLES] [-b BLOCKS] [-P "
                            "PAGES]\n");
            return -1;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "page-cost: %s: no operands expected\n", argv[optind]);
        return -1;
    }
    return 0;
}

/* Pins the thread to the measured CPU; -1 (with the reason said) when it
 * cannot run there. */
static int pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) == 0)
        return 0;
    fprintf(stderr, "page-cost: -c %d: cannot run there (%s)\n", cpu, strerror(errno));
    return -1;
}

static void go_realtime(void)
{
    struct sched_param sp = {.sched_priority = 90};
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
        fprintf(stderr, "page-cost: SCHED_FIFO: %s; plain scheduling\n", strerror(errno));
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
        fprintf(stderr, "page-cost: mlockall: %s; memory not locked\n", strerror(errno));
}

/* The line of page i: pages 3 apart and lines at different offsets, so
 * that no two land in one cache set by their page offset alone. */
static volatile uint64_t *line_of(char *base, enum layout layout, int i)
{
    size_t page = layout == LINES_ONE_PAGE ? 0 : (size_t)i * 3;
    size_t line = layout == LINES_ONE_PAGE ? (size_t)i : (size_t)(i * 7) % (PAGE / 64);
    return (volatile uint64_t *)(base + page * PAGE + line * 64);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void run_blocks(struct config *cfg, int ncfg, const struct options *o)
{
    int64_t interval = o->interval_us * 1000;
    int64_t t = monotonic_now_ns() + 10 * interval;
    for (int b = 0; b < o->blocks * ncfg; b++) {
        struct config *c = &cfg[b % ncfg];
        for (int k = 0; k < o->cycles; k++) {
            struct timespec ts = {.tv_sec = t / 1000000000, .tv_nsec = t % 1000000000};
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
            int64_t wake = monotonic_now_ns();
            uint64_t t0 = read_tsc();
            for (int i = 0; i < c->pages; i++)
                (*c->line[i])++;
            uint64_t t1 = read_tsc();
            if (k >= WARM_CYCLES)
                c->ticks[c->count++] = t1 - t0;
            t += interval;
            if (t <= wake) /* a stall longer than a period: the schedule moves on */
                t = wake + interval;
        }
    }
}

static void report(struct config *cfg, int ncfg, int pages, double ns_per_tick, bool huge)
{
    double median[LAYOUTS][MAX_PAGES + 1];
    for (int i = 0; i < ncfg; i++) {
        struct config *c = &cfg[i];
        qsort(c->ticks, c->count, sizeof *c->ticks, cmp_u64);
        size_t n99 = c->count * 99 / 100 ? c->count * 99 / 100 : 1;
        double sum = 0;
        for (size_t k = 0; k < n99; k++)
            sum += (double)c->ticks[k];
        median[c->layout][c->pages] = (double)c->ticks[c->count / 2] * ns_per_tick;
        printf("%-21s %2d: median %7.1f ns  mean99 %7.1f ns  (%zu cycles)\n",
               layout_name[c->layout], c->pages, median[c->layout][c->pages],
               sum / (double)n99 * ns_per_tick, c->count);
    }
    for (int l = 0; l < LAYOUTS; l++) {
        if (l == HUGE_PAGES && !huge)
            continue;
        double sx = 0, sy = 0, sxx = 0, sxy = 0, n = pages;
        for (int p = 1; p <= pages; p++) {
            sx += p;
            sy += median[l][p];
            sxx += (double)p * p;
            sxy += p * median[l][p];
        }
        printf("one more, %s: %.1f ns\n", layout_name[l],
               (n * sxy - sx * sy) / (n * sxx - sx * sx));
    }
}

int main(int argc, char **argv)
{
    struct options o;
    if (parse_options(argc, argv, &o) != 0 || pin_to(o.cpu) != 0)
        return 2;
    if (!TSC_SUPPORTED) {
        fprintf(stderr, "page-cost: needs an x86 TSC\n");
        return 1;
    }
    double hz;
    char why[128];
    if (tsc_calibrate(&hz, why, sizeof why) != 0) {
        fprintf(stderr, "page-cost: %s\n", why);
        return 1;
    }
    /* Each configuration its own pages, never shared with another's: the
     * huge-page layout's in 2 MiB pages of their own, the others' not. A
     * configuration's span is a power of two (at most 1 MiB), so that none
     * straddles two huge pages. */
    size_t span = PAGE;
    while (span < (size_t)(3 * o.pages + 1) * PAGE)
        span *= 2;
    int ncfg = LAYOUTS * (o.pages + 1);
    size_t per_layout = span * (size_t)(o.pages + 1);
    size_t huge_bytes = (per_layout + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    size_t bytes = huge_bytes + 2 * per_layout;
    char *map =
        mmap(NULL, bytes + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct config *cfg = calloc((size_t)ncfg, sizeof *cfg);
    uint64_t *ticks = calloc((size_t)ncfg * (size_t)o.blocks * (size_t)o.cycles, sizeof *ticks);
    if (map == MAP_FAILED || !cfg || !ticks) {
        fprintf(stderr, "page-cost: out of memory\n");
        return 1;
    }
    char *base = (char *)(((uintptr_t)map + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    madvise(base, huge_bytes, MADV_HUGEPAGE);
    madvise(base + huge_bytes, bytes - huge_bytes, MADV_NOHUGEPAGE);
    memset(base, 1, bytes);
    for (int l = 0, i = 0; l < LAYOUTS; l++) {
        char *region = l == HUGE_PAGES ? base : base + huge_bytes + per_layout * (size_t)l;
        for (int p = 0; p <= o.pages; p++, i++) {
            cfg[i] = (struct config){.layout = (enum layout)l,
                                     .pages = p,
                                     .ticks = ticks + (size_t)i * o.blocks * o.cycles};
            for (int k = 0; k < p; k++)
                cfg[i].line[k] = line_of(region + span * (size_t)p, (enum layout)l, k);
        }
    }
    go_realtime(); /* mlockall after madvise: pages it populates are 4 KiB */
    bool huge = false;
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (f) {
        char row[256];
        while (fgets(row, sizeof row, f))
            if (!strncmp(row, "AnonHugePages:", 14) && strtol(row + 14, NULL, 10) > 0)
                huge = true;
        fclose(f);
    }
    if (!huge)
        fprintf(stderr, "page-cost: no transparent huge page given; that layout is 4 KiB pages\n");
    printf("interval %ld us, CPU %d, %d blocks of %d cycles per configuration\n", o.interval_us,
           o.cpu, o.blocks, o.cycles);
    run_blocks(cfg, ncfg, &o);
    report(cfg, ncfg, o.pages, 1e9 / hz, huge);
    free(ticks);
    free(cfg);
    munmap(map, bytes + HUGE_PAGE);
    return 0;
}
