/*
 * The stat table and CSV (see text_stat.h). A column exists when its
 * figure has a source; a value that is absent in one interval (a counter
 * that went backwards, a file that vanished) prints as "-".
 */
#include "out/text_stat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/units.h"

static bool has(const struct telemetry *t, enum telemetry_figure f)
{
    return telemetry_source(t, f)->name != NULL;
}

void stat_table_init(struct stat_table *st, const struct telemetry *t,
                     const struct telemetry_cpu_figures *first, bool tty)
{
    memset(st, 0, sizeof *st);
    st->t = t;
    st->tty = tty;
    st->nidle = first ? first->nidle : 0;
    for (int k = 0; k < st->nidle; k++)
        text_copy(st->idle_name[k], sizeof st->idle_name[k], first->idle[k].name);
}

static void cell_real(FILE *out, int width, int prec, double v)
{
    if (isfinite(v))
        fprintf(out, " %*.*f", width, prec, v);
    else
        fprintf(out, " %*s", width, "-");
}

static void cell_count(FILE *out, int width, int64_t v)
{
    if (v >= 0)
        fprintf(out, " %*lld", width, (long long)v);
    else
        fprintf(out, " %*s", width, "-");
}

static void print_header(const struct stat_table *st, FILE *out)
{
    const struct telemetry *t = st->t;
    fprintf(out, "%8s %4s", "time_s", "CPU");
    if (has(t, TELEMETRY_AVG_MHZ))
        fprintf(out, " %8s", telemetry_freq_column(telemetry_source(t, TELEMETRY_AVG_MHZ)->name));
    if (has(t, TELEMETRY_BUSY_PCT))
        fprintf(out, " %7s", "Busy%");
    if (has(t, TELEMETRY_BZY_MHZ))
        fprintf(out, " %8s", "Bzy_MHz");
    if (has(t, TELEMETRY_TSC_MHZ))
        fprintf(out, " %8s", "TSC_MHz");
    if (has(t, TELEMETRY_IRQS))
        fprintf(out, " %8s", "IRQ");
    if (has(t, TELEMETRY_SOFTIRQS))
        fprintf(out, " %8s", "SIRQ");
    if (has(t, TELEMETRY_CTXT))
        fprintf(out, " %8s", "CSW");
    if (has(t, TELEMETRY_STEAL))
        fprintf(out, " %7s", "Steal%");
    if (has(t, TELEMETRY_SMI))
        fprintf(out, " %5s", "SMI");
    for (int k = 0; k < st->nidle; k++) {
        char name[24];
        snprintf(name, sizeof name, "%s%%", st->idle_name[k]);
        fprintf(out, " %7s", name);
    }
    if (has(t, TELEMETRY_CORE_TEMP))
        fprintf(out, " %7s", "CoreTmp");
    if (has(t, TELEMETRY_PKG_TEMP))
        fprintf(out, " %6s", "PkgTmp");
    if (has(t, TELEMETRY_PKG_POWER))
        fprintf(out, " %7s", "PkgWatt");
}

static void print_row(const struct stat_table *st, FILE *out, double t_s,
                      const struct telemetry_cpu_figures *f)
{
    const struct telemetry *t = st->t;
    fprintf(out, "%8.3f %4d", t_s, f->cpu);
    if (has(t, TELEMETRY_AVG_MHZ))
        cell_real(out, 8, 0, f->avg_mhz);
    if (has(t, TELEMETRY_BUSY_PCT))
        cell_real(out, 7, 2, f->busy_pct);
    if (has(t, TELEMETRY_BZY_MHZ))
        cell_real(out, 8, 0, f->bzy_mhz);
    if (has(t, TELEMETRY_TSC_MHZ))
        cell_real(out, 8, 0, f->tsc_mhz);
    if (has(t, TELEMETRY_IRQS))
        cell_count(out, 8, f->irqs);
    if (has(t, TELEMETRY_SOFTIRQS))
        cell_count(out, 8, f->softirqs);
    if (has(t, TELEMETRY_CTXT))
        cell_count(out, 8, f->ctxt);
    if (has(t, TELEMETRY_STEAL))
        cell_real(out, 7, 2, f->steal_pct);
    if (has(t, TELEMETRY_SMI))
        cell_count(out, 5, f->smi);
    for (int k = 0; k < st->nidle; k++) {
        double v = NAN;
        for (int j = 0; j < f->nidle; j++)
            if (strcmp(f->idle[j].name, st->idle_name[k]) == 0)
                v = f->idle[j].residency_pct;
        cell_real(out, 7, 2, v);
    }
    if (has(t, TELEMETRY_CORE_TEMP))
        cell_real(out, 7, 0, f->core_temp_c);
    if (has(t, TELEMETRY_PKG_TEMP))
        cell_real(out, 6, 0, f->pkg_temp_c);
    if (has(t, TELEMETRY_PKG_POWER))
        cell_real(out, 7, 2, f->pkg_watts);
}

void stat_table_print(struct stat_table *st, FILE *out, double t_s,
                      const struct telemetry_cpu_figures *f, int ncpu)
{
    const char *eol = st->tty ? "\033[K\n" : "\n";
    if (st->tty) {
        if (st->lines_drawn > 0)
            fprintf(out, "\033[%dA", st->lines_drawn);
        st->lines_drawn = 0;
    }
    if (st->tty || !st->header_done) {
        print_header(st, out);
        fputs(eol, out);
        st->lines_drawn++;
        st->header_done = true;
    }
    for (int i = 0; i < ncpu; i++) {
        print_row(st, out, t_s, &f[i]);
        fputs(eol, out);
        st->lines_drawn++;
    }
    if (st->tty && has(st->t, TELEMETRY_IRQS)) {
        for (int i = 0; i < ncpu; i++) {
            fprintf(out, "CPU %d interrupts:", f[i].cpu);
            for (int k = 0; k < f[i].nirq && k < 4; k++)
                fprintf(out, "%s %s %llu", k ? "," : "", telemetry_irq_label(&f[i].irq[k]),
                        (unsigned long long)f[i].irq[k].count);
            if (f[i].nirq == 0)
                fputs(" none", out);
            fputs(eol, out);
            st->lines_drawn++;
        }
    }
    if (st->tty)
        fputs("\033[J", out);
    fflush(out);
}

/* A name from a kernel file in a CSV cell: separators become '_'. */
static void csv_name(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc(*s == ',' || *s == ';' || *s == ':' || *s == '"' || (unsigned char)*s < ' ' ? '_'
                                                                                          : *s,
              out);
}

void stat_csv_header(FILE *out, const struct telemetry *t,
                     const struct telemetry_cpu_figures *first)
{
    fputs("t_s,cpu,avg_mhz,busy_pct,bzy_mhz,tsc_mhz,irqs,softirqs,ctxt,steal_pct,irq_pct,"
          "softirq_pct,smi,core_temp_c,pkg_temp_c,pkg_watts",
          out);
    for (int k = 0; first && k < first->nidle; k++) {
        fputc(',', out);
        csv_name(out, first->idle[k].name);
        fputs("_pct,", out);
        csv_name(out, first->idle[k].name);
        fputs("_entries", out);
    }
    for (int k = 0; k < telemetry_softirq_count(t); k++) {
        fputs(",softirq_", out);
        csv_name(out, telemetry_softirq_name(t, k));
    }
    fputs(",irq_top\n", out);
}

static void csv_real(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, ",%.2f", v);
    else
        fputc(',', out);
}

static void csv_count(FILE *out, int64_t v)
{
    if (v >= 0)
        fprintf(out, ",%lld", (long long)v);
    else
        fputc(',', out);
}

void stat_csv_rows(FILE *out, const struct telemetry *t, double t_s,
                   const struct telemetry_cpu_figures *f, int ncpu)
{
    for (int i = 0; i < ncpu; i++) {
        const struct telemetry_cpu_figures *c = &f[i];
        fprintf(out, "%.3f,%d", t_s, c->cpu);
        csv_real(out, c->avg_mhz);
        csv_real(out, c->busy_pct);
        csv_real(out, c->bzy_mhz);
        csv_real(out, c->tsc_mhz);
        csv_count(out, c->irqs);
        csv_count(out, c->softirqs);
        csv_count(out, c->ctxt);
        csv_real(out, c->steal_pct);
        csv_real(out, c->irq_pct);
        csv_real(out, c->softirq_pct);
        csv_count(out, c->smi);
        csv_real(out, c->core_temp_c);
        csv_real(out, c->pkg_temp_c);
        csv_real(out, c->pkg_watts);
        /* idle columns follow the first CPU's states; a CPU with other
         * states leaves them empty */
        for (int k = 0; k < f[0].nidle; k++) {
            bool found = false;
            for (int j = 0; j < c->nidle && !found; j++)
                if (strcmp(c->idle[j].name, f[0].idle[k].name) == 0) {
                    csv_real(out, c->idle[j].residency_pct);
                    csv_count(out, c->idle[j].entries);
                    found = true;
                }
            if (!found)
                fputs(",,", out);
        }
        for (int k = 0; k < telemetry_softirq_count(t); k++)
            csv_count(out, c->softirqs >= 0 ? (int64_t)c->softirq[k] : -1);
        fputc(',', out);
        for (int k = 0; k < c->nirq; k++) {
            if (k)
                fputc(';', out);
            csv_name(out, telemetry_irq_label(&c->irq[k]));
            fprintf(out, ":%llu", (unsigned long long)c->irq[k].count);
        }
        fputc('\n', out);
    }
}

/* One CPU's figures over several windows. */
struct cpu_total {
    int cpu;
    double s;                            /* seconds covered */
    double mhz_s, busy_s, steal_s;       /* figure x seconds, where known */
    double mhz_cov, busy_cov, steal_cov; /* seconds with a value */
    double irqs, softirqs, ctxt;
    double irqs_cov, softirqs_cov, ctxt_cov;
    int nsrc;
    struct telemetry_irq src[16]; /* summed by id */
};

static void total_add(struct cpu_total *c, const struct telemetry_window *w)
{
    double s = (double)w->duration_ns / 1e9;
    const struct telemetry_cpu_figures *f = &w->fig;
    c->s += s;
    if (isfinite(f->avg_mhz))
        c->mhz_s += f->avg_mhz * s, c->mhz_cov += s;
    if (isfinite(f->busy_pct))
        c->busy_s += f->busy_pct * s, c->busy_cov += s;
    if (isfinite(f->steal_pct))
        c->steal_s += f->steal_pct * s, c->steal_cov += s;
    if (f->irqs >= 0)
        c->irqs += (double)f->irqs, c->irqs_cov += s;
    if (f->softirqs >= 0)
        c->softirqs += (double)f->softirqs, c->softirqs_cov += s;
    if (f->ctxt >= 0)
        c->ctxt += (double)f->ctxt, c->ctxt_cov += s;
    for (int k = 0; k < f->nirq; k++) {
        int j = 0;
        while (j < c->nsrc && strcmp(c->src[j].id, f->irq[k].id) != 0)
            j++;
        if (j == c->nsrc) {
            if (c->nsrc == 16)
                continue;
            c->src[c->nsrc++] = f->irq[k];
            continue;
        }
        c->src[j].count += f->irq[k].count;
    }
}

static double per(double v, double cov)
{
    return cov > 0 ? v / cov : NAN;
}

static bool listed(const int *only, int nonly, int cpu)
{
    if (!only)
        return true;
    for (int i = 0; i < nonly; i++)
        if (only[i] == cpu)
            return true;
    return false;
}

void text_telemetry_summary(FILE *out, const struct telemetry *t, const struct telemetry_window *w,
                            uint64_t n, uint64_t dropped, int64_t window_ns, const int *only,
                            int nonly)
{
    int ncpu = telemetry_cpu_count(t);
    if (n == 0 || ncpu == 0)
        return;
    struct cpu_total *tot = calloc((size_t)ncpu, sizeof(*tot));
    if (!tot)
        return;
    int seen = 0;
    for (uint64_t k = 0; k < n; k++) {
        int i = 0;
        while (i < seen && tot[i].cpu != w[k].cpu)
            i++;
        if (i == seen) {
            if (seen == ncpu)
                continue;
            tot[seen++].cpu = w[k].cpu;
        }
        total_add(&tot[i], &w[k]);
    }
    /* The windows of one CPU (each CPU has a record per window), the last
     * of a run often a fraction of the period: counted apart. */
    uint64_t full = 0;
    int64_t tail_ns = 0;
    for (uint64_t k = 0; k < n; k++) {
        if (w[k].cpu != w[0].cpu)
            continue;
        if (w[k].duration_ns * 2 >= window_ns || k + ncpu < n)
            full++, tail_ns = 0;
        else
            tail_ns = w[k].duration_ns;
    }
    char window[32], tail[64] = "";
    format_duration(window_ns, window, sizeof window);
    if (tail_ns > 0) {
        char d[32];
        format_duration(tail_ns, d, sizeof d);
        snprintf(tail, sizeof tail, " and a last one of %s", d);
    }
    fprintf(out, "\nTelemetry over %llu window%s of %s%s%s, averaged by time; rates per second\n",
            (unsigned long long)full, full == 1 ? "" : "s", window, tail,
            dropped ? " (the newest)" : "");
    if (only)
        fputs("  (the CPUs above; --per-cpu: every CPU)\n", out);
    fprintf(out, "%5s", "CPU");
    if (has(t, TELEMETRY_AVG_MHZ))
        fprintf(out, " %8s", telemetry_freq_column(telemetry_source(t, TELEMETRY_AVG_MHZ)->name));
    if (has(t, TELEMETRY_BUSY_PCT))
        fprintf(out, " %7s", "Busy%");
    if (has(t, TELEMETRY_IRQS))
        fprintf(out, " %8s", "IRQ/s");
    if (has(t, TELEMETRY_SOFTIRQS))
        fprintf(out, " %8s", "SIRQ/s");
    if (has(t, TELEMETRY_CTXT))
        fprintf(out, " %8s", "CSW/s");
    if (has(t, TELEMETRY_STEAL))
        fprintf(out, " %7s", "Steal%");
    fprintf(out, "  busiest interrupts (/s)\n");
    for (int i = 0; i < seen; i++) {
        struct cpu_total *c = &tot[i];
        if (!listed(only, nonly, c->cpu))
            continue;
        fprintf(out, "%5d", c->cpu);
        if (has(t, TELEMETRY_AVG_MHZ))
            cell_real(out, 8, 0, per(c->mhz_s, c->mhz_cov));
        if (has(t, TELEMETRY_BUSY_PCT))
            cell_real(out, 7, 2, per(c->busy_s, c->busy_cov));
        if (has(t, TELEMETRY_IRQS))
            cell_real(out, 8, 0, per(c->irqs, c->irqs_cov));
        if (has(t, TELEMETRY_SOFTIRQS))
            cell_real(out, 8, 0, per(c->softirqs, c->softirqs_cov));
        if (has(t, TELEMETRY_CTXT))
            cell_real(out, 8, 0, per(c->ctxt, c->ctxt_cov));
        if (has(t, TELEMETRY_STEAL))
            cell_real(out, 7, 2, per(c->steal_s, c->steal_cov));
        fputs(" ", out);
        /* the three largest sums */
        for (int shown = 0; shown < 3; shown++) {
            int best = -1;
            for (int j = 0; j < c->nsrc; j++)
                if (c->src[j].count > 0 && (best < 0 || c->src[j].count > c->src[best].count))
                    best = j;
            if (best < 0)
                break;
            double rate = c->s > 0 ? (double)c->src[best].count / c->s : 0.0;
            fprintf(out, "%s %s %.*f", shown ? "," : "", telemetry_irq_label(&c->src[best]),
                    rate < 10 ? 1 : 0, rate);
            c->src[best].count = 0;
        }
        fputc('\n', out);
    }
    free(tot);
}
