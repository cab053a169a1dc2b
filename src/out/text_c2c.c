/*
 * The c2c matrix, its topology columns, the group summary and the CSV (see
 * text_c2c.h). A cell is the pair's median one-way latency in ns with one
 * decimal; "x" when every round of the pair timed out, "." when the pair was
 * not measured (interrupted, or its threads could not start). The colour bands split the log of the
 * range of medians into equal parts, so that groups a few times apart (SMT, same LLC, other socket)
 * land in different bands. More CPUs than TEXT_MANY_MAX_ROWS (text_many.h) make
 * a matrix no terminal shows (256 CPUs: 65280 cells): then the group summary
 * and the slowest and fastest pairs, the matrix only when asked (--per-cpu).
 */
#include "out/text_c2c.h"
#include "out/text_many.h"

#include <math.h>
#include <string.h>

#include "sys/read_notes.h"

static const char *const band_colour[C2C_COLOUR_BANDS] = {"\033[32m", "\033[36m", "\033[33m",
                                                          "\033[31m"};
static const char *const band_name[C2C_COLOUR_BANDS] = {"green", "cyan", "yellow", "red"};

/* The text of a latency cell. */
static void cell_text(char *buf, size_t len, const struct c2c_pair *p)
{
    if (p->from == p->to)
        snprintf(buf, len, "-");
    else if (isfinite(p->median_ns))
        snprintf(buf, len, "%.1f", p->median_ns);
    else
        snprintf(buf, len, "%s", p->attempted ? "x" : ".");
}

static void topo_value(char *buf, size_t len, int64_t v)
{
    if (v == VALUE_UNKNOWN)
        snprintf(buf, len, "?");
    else
        snprintf(buf, len, "%lld", (long long)v);
}

static void print_header_line(FILE *out, const struct c2c_result *r)
{
    const struct c2c_config *cfg = r->cfg;
    const struct timebase *tb = cfg->tb;
    fprintf(out,
            "one-way latency in ns (round trip / 2): median of the best of %d round%s of %d "
            "round trips\n",
            cfg->rounds, cfg->rounds == 1 ? "" : "s", cfg->round_trips);
    fprintf(out, "mode %s, clock ", c2c_mode_name(cfg->mode));
    if (tb->tsc)
        fprintf(out, "tsc (%.2f MHz)", tb->hz / 1e6);
    else
        fprintf(out, "monotonic");
    if (r->rep.realtime)
        fprintf(out, ", SCHED_FIFO %d\n", cfg->priority);
    else
        fprintf(out, ", SCHED_OTHER (not real-time)\n");
    if (!tb->tsc && tb->why[0])
        fprintf(out, "not the TSC: %s\n", tb->why);
    fputc('\n', out);
}

static void print_matrix(FILE *out, const struct c2c_result *r, bool colour)
{
    const struct c2c_matrix *m = r->m;
    int width = 4;
    char buf[32];
    bool timed_out = false, unmeasured = false;
    for (int i = 0; i < m->ncpu; i++) {
        snprintf(buf, sizeof buf, "%d", m->cpus[i]);
        width = (int)strlen(buf) > width ? (int)strlen(buf) : width;
        for (int k = 0; k < m->ncpu; k++) {
            const struct c2c_pair *p = c2c_matrix_at(m, i, k);
            cell_text(buf, sizeof buf, p);
            width = (int)strlen(buf) > width ? (int)strlen(buf) : width;
            timed_out |= p->from != p->to && p->attempted && !isfinite(p->median_ns);
            unmeasured |= p->from != p->to && !p->attempted;
        }
    }
    struct c2c_bands bands;
    c2c_bands_init(&bands, m, C2C_COLOUR_BANDS);
    fprintf(out, "%7s", "from\\to");
    for (int k = 0; k < m->ncpu; k++)
        fprintf(out, " %*d", width, m->cpus[k]);
    fprintf(out, "  | %5s %5s %5s  %s\n", "core", "llc", "pkg", "siblings");
    for (int i = 0; i < m->ncpu; i++) {
        fprintf(out, "%7d", m->cpus[i]);
        for (int k = 0; k < m->ncpu; k++) {
            const struct c2c_pair *p = c2c_matrix_at(m, i, k);
            cell_text(buf, sizeof buf, p);
            int band = i == k ? -1 : c2c_band_of(&bands, p->median_ns);
            if (colour && band >= 0)
                fprintf(out, " %s%*s\033[0m", band_colour[band], width, buf);
            else
                fprintf(out, " %*s", width, buf);
        }
        const struct cpu_siblings *s = r->topo ? cpu_topology_find(r->topo, m->cpus[i]) : NULL;
        char core[24], llc[24], pkg[24];
        topo_value(core, sizeof core, s ? s->core_id : VALUE_UNKNOWN);
        topo_value(llc, sizeof llc, s ? s->llc_id : VALUE_UNKNOWN);
        topo_value(pkg, sizeof pkg, s ? s->package_id : VALUE_UNKNOWN);
        fprintf(out, "  | %5s %5s %5s  %s\n", core, llc, pkg,
                s && s->thread_siblings[0] ? s->thread_siblings : "?");
    }
    if (colour && isfinite(bands.lo) && c2c_band_of(&bands, bands.hi) > 0) {
        fprintf(out, "colours: %s%s\033[0m", band_colour[0], band_name[0]);
        for (int b = 1; b < C2C_COLOUR_BANDS; b++)
            fprintf(out, " < %.1f <= %s%s\033[0m", c2c_band_floor(&bands, b), band_colour[b],
                    band_name[b]);
        fprintf(out, " (ns)\n");
    }
    if (timed_out)
        fprintf(out, "x: every round of the pair timed out (a wait longer than %lld ms)\n",
                (long long)(r->cfg->timeout_ns / 1000000));
    if (unmeasured)
        fprintf(out, ".: not measured (%s)\n",
                r->rep.pairs_unstarted ? "its threads could not start" : "interrupted");
}

static void print_real(FILE *out, int width, double v)
{
    if (isfinite(v))
        fprintf(out, " %*.1f", width, v);
    else
        fprintf(out, " %*s", width, "-");
}

static void print_groups(FILE *out, const struct c2c_result *r)
{
    fprintf(out, "\n%-14s %6s %9s %10s %9s %12s %9s\n", "group", "pairs", "min_ns", "median_ns",
            "max_ns", "best_min_ns", "timeouts");
    for (int i = 0; i < r->ngroups; i++) {
        const struct c2c_group_stats *g = &r->group[i];
        fprintf(out, "%-14s %6d", cpu_pair_group_name(g->group), g->pairs);
        print_real(out, 9, g->min_ns);
        print_real(out, 10, g->median_ns);
        print_real(out, 9, g->max_ns);
        print_real(out, 12, g->best_min_ns);
        fprintf(out, " %9lld\n", (long long)g->timeouts);
    }
    size_t total = (size_t)r->m->ncpu * (size_t)(r->m->ncpu - 1);
    char took[32];
    if (r->duration_s < 1)
        snprintf(took, sizeof took, "%.0f ms", r->duration_s * 1e3);
    else
        snprintf(took, sizeof took, "%.1f s", r->duration_s);
    fprintf(out, "\n%zu of %zu pairs measured in %s, %lld timeouts%s\n", r->rep.pairs_done, total,
            took, (long long)r->rep.timeouts, r->rep.interrupted ? " (interrupted)" : "");
    if (r->hypervisor) {
        bool named = strcmp(r->hypervisor, "unknown") != 0;
        fprintf(out,
                "under a hypervisor%s%s%s: the host may move the vCPUs between its cores,\n"
                "and each transfer includes whatever the hypervisor does\n",
                named ? " (" : "", named ? r->hypervisor : "", named ? ")" : "");
    }
}

/* The slowest (or fastest) measured pairs, by median. */
static void print_extreme_pairs(FILE *out, const struct c2c_result *r, bool slowest)
{
    const struct c2c_matrix *m = r->m;
    struct text_many_top top;
    text_many_top_init(&top, slowest);
    int measured = 0;
    for (int i = 0; i < m->ncpu; i++)
        for (int k = 0; k < m->ncpu; k++) {
            const struct c2c_pair *p = c2c_matrix_at(m, i, k);
            if (i == k || !isfinite(p->median_ns))
                continue;
            measured++;
            text_many_top_add(&top, i * m->ncpu + k, p->median_ns);
        }
    if (top.n == 0)
        return;
    fprintf(out, "\n%s %d of %d measured pairs, by median:\n", slowest ? "slowest" : "fastest",
            top.n, measured);
    fprintf(out, "%6s %6s  %-14s %9s %10s %9s\n", "from", "to", "group", "min_ns", "median_ns",
            "timeouts");
    for (int j = 0; j < top.n; j++) {
        const struct c2c_pair *p = &m->pair[top.idx[j]];
        fprintf(out, "%6d %6d  %-14s", p->from, p->to, cpu_pair_group_name(p->group));
        print_real(out, 9, p->min_ns);
        print_real(out, 10, p->median_ns);
        fprintf(out, " %9d\n", p->timeouts);
    }
}

void text_c2c_show(FILE *out, const struct c2c_result *r, bool colour, bool per_cpu)
{
    print_header_line(out, r);
    if (!text_many_collapsed(r->m->ncpu, per_cpu)) {
        print_matrix(out, r, colour);
        print_groups(out, r);
        return;
    }
    fprintf(out, "%d CPUs: the matrix with --per-cpu (or every pair: --csv, --json)\n", r->m->ncpu);
    print_groups(out, r);
    print_extreme_pairs(out, r, true);
    print_extreme_pairs(out, r, false);
}

void text_c2c_print(FILE *out, const struct c2c_result *r, bool colour)
{
    text_c2c_show(out, r, colour, false);
}

static void csv_real(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, ",%.1f", v);
    else
        fputc(',', out);
}

void c2c_csv_write(FILE *out, const struct c2c_result *r)
{
    const struct c2c_matrix *m = r->m;
    fprintf(out, "from,to,group,min_ns,median_ns,timeouts\n");
    for (int i = 0; i < m->ncpu; i++)
        for (int k = 0; k < m->ncpu; k++) {
            if (i == k)
                continue;
            const struct c2c_pair *p = c2c_matrix_at(m, i, k);
            fprintf(out, "%d,%d,%s", p->from, p->to, cpu_pair_group_name(p->group));
            csv_real(out, p->min_ns);
            csv_real(out, p->median_ns);
            fprintf(out, ",%d\n", p->timeouts);
        }
}
