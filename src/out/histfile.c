/*
 * cyclictest-compatible histogram file, laid out as `cyclictest -q -h N`
 * prints it: the "# /dev/cpu_dma_latency set to Nus" line (only when the run
 * held a PM QoS request, as cyclictest prints it only after its write
 * succeeded), one row per microsecond of latency ("%06d" then one "%06lu"
 * column per thread, tab-separated), the Total/Min/Avg/Max/Overflows comment
 * lines and the cycle numbers of the overflows, at most one per row as
 * cyclictest keeps them. Rows come from the engine's exact 1 µs linear
 * histogram, not from the log-linear one (whose buckets are wider than 1 µs
 * above 128 µs). A last "# jitterlab:" line maps thread numbers to CPUs.
 */
#include "out/histfile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "common/atomic_file.h"

/* cyclictest keeps the cycle numbers of at most as many overflows as the
 * histogram has rows, and so does the engine (cpu_result_record_us). */
static uint64_t overflows_listed(const struct histfile_column *c, uint32_t rows)
{
    return c->us_overflow < rows ? c->us_overflow : rows;
}

static unsigned long us_floor(int64_t ns)
{
    return ns > 0 ? (unsigned long)(ns / 1000) : 0;
}

int histfile_write_columns(const struct histfile_column *col, int n, uint32_t rows,
                           int64_t pm_qos_us, const char *path)
{
    struct atomic_file f;
    if (atomic_file_open(&f, path) != 0)
        return -1;
    FILE *o = f.fp;
    /* cyclictest writes this before the histogram, once its request holds */
    if (pm_qos_us >= 0)
        fprintf(o, "# /dev/cpu_dma_latency set to %lldus\n", (long long)pm_qos_us);
    fprintf(o, "# Histogram\n");
    for (uint32_t i = 0; i < rows; i++) {
        fprintf(o, "%06u ", i);
        for (int j = 0; j < n; j++)
            fprintf(o, "%06llu%s", (unsigned long long)col[j].us_hist[i], j < n - 1 ? "\t" : "");
        fputc('\n', o);
    }
    fprintf(o, "# Total:");
    for (int j = 0; j < n; j++) {
        unsigned long long total = 0;
        for (uint32_t i = 0; i < rows; i++)
            total += col[j].us_hist[i];
        fprintf(o, " %09llu", total);
    }
    fprintf(o, "\n# Min Latencies:");
    for (int j = 0; j < n; j++)
        fprintf(o, " %05lu", col[j].count ? us_floor(col[j].min_ns) : 0);
    fprintf(o, "\n# Avg Latencies:");
    for (int j = 0; j < n; j++)
        fprintf(o, " %05lu", col[j].count ? us_floor((int64_t)llround(col[j].mean_ns)) : 0);
    fprintf(o, "\n# Max Latencies:");
    for (int j = 0; j < n; j++)
        fprintf(o, " %05lu", col[j].count ? us_floor(col[j].max_ns) : 0);
    fprintf(o, "\n# Histogram Overflows:");
    for (int j = 0; j < n; j++)
        fprintf(o, " %05llu", (unsigned long long)col[j].us_overflow);
    fprintf(o, "\n# Histogram Overflow at cycle number:\n");
    for (int j = 0; j < n; j++) {
        fprintf(o, "# Thread %d:", j);
        uint64_t listed = overflows_listed(&col[j], rows);
        for (uint64_t i = 0; i < listed; i++)
            fprintf(o, " %05llu", (unsigned long long)col[j].overflow_at[i]);
        if (listed < col[j].us_overflow)
            fprintf(o, " # %05llu others", (unsigned long long)(col[j].us_overflow - listed));
        fputc('\n', o);
    }
    /* Threads are numbered as cyclictest does; this line maps them to CPUs. */
    fprintf(o, "# jitterlab: thread-to-CPU");
    for (int j = 0; j < n; j++)
        fprintf(o, " %d:%d", j, col[j].cpu);
    fputc('\n', o);
    return atomic_file_commit(&f);
}

int histfile_write(const struct run_report *rep, const char *path)
{
    int n = rep->ncpu;
    struct histfile_column *col = calloc(n > 0 ? (size_t)n : 1, sizeof *col);
    if (!col)
        return -1;
    for (int j = 0; j < n; j++) {
        const struct cpu_result *r = rep->cpu[j];
        col[j] = (struct histfile_column){.cpu = r->cpu,
                                          .count = r->samples,
                                          .min_ns = r->latency.min,
                                          .mean_ns = r->latency.mean,
                                          .max_ns = r->latency.max,
                                          .us_hist = r->us_hist,
                                          .us_overflow = r->us_overflow,
                                          .overflow_at = r->overflow_cycles};
    }
    int rc = histfile_write_columns(col, n, n > 0 ? rep->cpu[0]->us_rows : 0, rep->pm_qos_us, path);
    int e = errno;
    free(col);
    errno = e;
    return rc;
}
