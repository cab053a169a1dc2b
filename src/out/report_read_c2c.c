/*
 * Reading a c2c document (kind "c2c", written by `jitterlab c2c --json`)
 * for the report: the matrix (matrix.cpus, matrix.median_ns, matrix.min_ns:
 * a row per "from" CPU, null on the diagonal and for pairs not measured),
 * the topology of each CPU and the summary per group. Untrusted: the
 * matrix must be square over unique CPU ids, every latency null or a
 * finite number of at most an hour in ns, and at least one, at most
 * REPORT_C2C_MAX_CPUS CPUs (the page indexes the matrix's first and last
 * CPU, so an empty matrix is refused here rather than guarded there).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/report_json.h"
#include "out/report_model.h"
#include "out/report_read_internal.h"
#include "sys/cpulist.h"

#define C2C_MAX_NS 3.6e12

/* One row of a latency matrix: n numbers or nulls. */
static int read_row(struct jreader *r, const json_t *row, const char *where, size_t i, int n,
                    double *out)
{
    if (!json_is_array(row) || json_array_size(row) != (size_t)n)
        return jr_fail(r, where, "[%zu]: not a row of %d values", i, n);
    for (int k = 0; k < n; k++) {
        const json_t *v = json_array_get(row, (size_t)k);
        if (json_is_null(v)) {
            out[k] = NAN;
            continue;
        }
        if (!json_is_number(v))
            return jr_fail(r, where, "[%zu][%d]: not a number or null", i, k);
        out[k] = json_number_value(v);
        if (!isfinite(out[k]) || out[k] < 0 || out[k] > C2C_MAX_NS)
            return jr_fail(r, where, "[%zu][%d]: out of range", i, k);
    }
    return 0;
}

static int read_matrix(struct jreader *r, const json_t *m, const char *key, int n, double *out)
{
    const json_t *rows;
    char where[32];
    snprintf(where, sizeof where, "matrix.%s", key);
    if (jr_array(r, m, "matrix", key, JR_REQUIRED, REPORT_C2C_MAX_CPUS, &rows) != 0)
        return -1;
    if (json_array_size(rows) != (size_t)n)
        return jr_fail(r, where, "%zu rows for %d CPUs", json_array_size(rows), n);
    for (size_t i = 0; i < (size_t)n; i++)
        if (read_row(r, json_array_get(rows, i), where, i, n, out + i * (size_t)n) != 0)
            return -1;
    return 0;
}

static int read_cpus(struct jreader *r, const json_t *m, struct report_c2c *c)
{
    const json_t *cpus;
    if (jr_array(r, m, "matrix", "cpus", JR_REQUIRED, REPORT_C2C_MAX_CPUS, &cpus) != 0)
        return -1;
    c->ncpu = (int)json_array_size(cpus);
    if (c->ncpu == 0)
        return jr_fail(r, "matrix.cpus", "empty: a matrix needs at least one CPU");
    size_t cells = (size_t)c->ncpu * (size_t)c->ncpu;
    c->cpu = calloc((size_t)c->ncpu, sizeof *c->cpu);
    c->median_ns = calloc(cells, sizeof *c->median_ns);
    c->min_ns = calloc(cells, sizeof *c->min_ns);
    if (!c->cpu || !c->median_ns || !c->min_ns)
        return jr_fail(r, "matrix", "out of memory");
    for (int i = 0; i < c->ncpu; i++) {
        const json_t *v = json_array_get(cpus, (size_t)i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) >= CPULIST_MAX_CPUS)
            return jr_fail(r, "matrix.cpus", "[%d]: not a CPU id", i);
        c->cpu[i] =
            (struct report_c2c_cpu){(int)json_integer_value(v), JR_ABSENT, JR_ABSENT, JR_ABSENT};
        for (int k = 0; k < i; k++)
            if (c->cpu[k].cpu == c->cpu[i].cpu)
                return jr_fail(r, "matrix.cpus", "[%d]: CPU %d twice", i, c->cpu[i].cpu);
    }
    return 0;
}

/* topology[]: optional; entries for CPUs outside the matrix are ignored. */
static int read_topology(struct jreader *r, struct report_c2c *c)
{
    const json_t *topo;
    if (jr_array(r, c->root, "", "topology", JR_OPTIONAL, CPULIST_MAX_CPUS, &topo) != 0)
        return -1;
    for (size_t i = 0; topo && i < json_array_size(topo); i++) {
        const json_t *e = json_array_get(topo, i);
        char w[40];
        int64_t cpu, core, pkg, llc;
        snprintf(w, sizeof w, "topology[%zu]", i);
        if (!json_is_object(e))
            return jr_fail(r, w, "not an object");
        if (jr_int(r, e, w, "cpu", 0, CPULIST_MAX_CPUS - 1, JR_REQUIRED, &cpu) != 0 ||
            jr_int(r, e, w, "core_id", 0, INT32_MAX, JR_OPTIONAL, &core) != 0 ||
            jr_int(r, e, w, "package_id", 0, INT32_MAX, JR_OPTIONAL, &pkg) != 0 ||
            jr_int(r, e, w, "llc_id", 0, INT32_MAX, JR_OPTIONAL, &llc) != 0)
            return -1;
        for (int k = 0; k < c->ncpu; k++)
            if (c->cpu[k].cpu == cpu)
                c->cpu[k] = (struct report_c2c_cpu){(int)cpu, core, pkg, llc};
    }
    return 0;
}

static int read_groups(struct jreader *r, struct report_c2c *c)
{
    const json_t *groups;
    if (jr_array(r, c->root, "", "groups", JR_OPTIONAL, REPORT_C2C_GROUPS, &groups) != 0)
        return -1;
    c->ngroup = groups ? json_array_size(groups) : 0;
    for (size_t i = 0; i < c->ngroup; i++) {
        const json_t *e = json_array_get(groups, i);
        struct report_c2c_group *g = &c->group[i];
        char w[40];
        snprintf(w, sizeof w, "groups[%zu]", i);
        if (!json_is_object(e))
            return jr_fail(r, w, "not an object");
        if (jr_string(r, e, w, "group", JR_REQUIRED, &g->group) != 0 ||
            jr_int(r, e, w, "pairs", 0, INT64_C(1) << 40, JR_REQUIRED, &g->pairs) != 0 ||
            jr_number(r, e, w, "min_ns", 0, C2C_MAX_NS, JR_OPTIONAL, &g->min_ns) != 0 ||
            jr_number(r, e, w, "median_ns", 0, C2C_MAX_NS, JR_OPTIONAL, &g->median_ns) != 0 ||
            jr_number(r, e, w, "max_ns", 0, C2C_MAX_NS, JR_OPTIONAL, &g->max_ns) != 0 ||
            jr_number(r, e, w, "best_min_ns", 0, C2C_MAX_NS, JR_OPTIONAL, &g->best_min_ns) != 0)
            return -1;
    }
    return 0;
}

/* The document in c->root. */
static int read_c2c(struct jreader *r, struct report_c2c *c)
{
    const json_t *m, *cfg, *sys;
    if (jr_object(r, c->root, "", "matrix", JR_REQUIRED, &m) != 0 ||
        jr_object(r, c->root, "", "config", JR_OPTIONAL, &cfg) != 0 ||
        jr_object(r, c->root, "", "system", JR_OPTIONAL, &sys) != 0 ||
        jr_string(r, c->root, "", "started_at", JR_OPTIONAL, &c->started_at) != 0 ||
        jr_string(r, c->root, "", "clock", JR_OPTIONAL, &c->clock) != 0 ||
        jr_bool(r, c->root, "", "interrupted", JR_OPTIONAL, false, &c->interrupted) != 0 ||
        jr_bool(r, c->root, "", "realtime", JR_OPTIONAL, false, &c->realtime) != 0)
        return -1;
    if (sys && jr_string(r, sys, "system", "hostname", JR_OPTIONAL, &c->hostname) != 0)
        return -1;
    if (cfg &&
        (jr_string(r, cfg, "config", "mode", JR_OPTIONAL, &c->mode) != 0 ||
         jr_int(r, cfg, "config", "round_trips", 0, INT64_MAX, JR_OPTIONAL, &c->round_trips) != 0 ||
         jr_int(r, cfg, "config", "rounds", 0, INT64_MAX, JR_OPTIONAL, &c->rounds) != 0))
        return -1;
    if (read_cpus(r, m, c) != 0 || read_matrix(r, m, "median_ns", c->ncpu, c->median_ns) != 0 ||
        read_matrix(r, m, "min_ns", c->ncpu, c->min_ns) != 0 || read_topology(r, c) != 0 ||
        read_groups(r, c) != 0)
        return -1;
    /* copied into median_ns and min_ns: the largest part of the tree */
    json_object_del(c->root, "matrix");
    return 0;
}

void report_c2c_free(struct report_c2c *c)
{
    free(c->cpu);
    free(c->median_ns);
    free(c->min_ns);
    json_decref(c->root);
    memset(c, 0, sizeof *c);
}

int report_c2c_read(const char *path, struct report_c2c *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->round_trips = c->rounds = JR_ABSENT;
    struct jreader r = {err, errlen};
    if (report_load_doc(&r, path, "c2c", &c->root) != 0 || read_c2c(&r, c) != 0) {
        report_c2c_free(c);
        return -1;
    }
    c->path = path;
    return 0;
}

int report_c2c_read_buffer(const char *text, size_t len, struct report_c2c *c, char *err,
                           size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->round_trips = c->rounds = JR_ABSENT;
    struct jreader r = {err, errlen};
    if (report_load_doc_buffer(&r, text, len, "c2c", &c->root) != 0 || read_c2c(&r, c) != 0) {
        report_c2c_free(c);
        return -1;
    }
    c->path = "(buffer)";
    return 0;
}
