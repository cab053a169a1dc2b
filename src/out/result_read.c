/*
 * The reader of result documents (result_read.h). jansson parses the text;
 * every value is then checked for its type and range before it lands in
 * the struct, and a failure names the key path ("cpus[1].histogram.bins[3]:
 * bins out of order") so that a person can find it in the file. The checks
 * are those the writer guarantees: counts are non-negative, bins ascend
 * without overlapping and, with the overflow counter, add up to the samples,
 * CPU ids are unique and in range. A noise document is read into the same
 * structs (gaps as samples), with its own checks: noise within the time
 * measured, windows in time order, the merged entry the sum of the CPUs
 * (result_read_noise.c).
 * A run's report windows (intervals[], else telemetry[]) are gathered per
 * CPU in one pass over the array, each checked against its CPU's figures
 * (time order, no more samples than the CPU, no maximum above its own);
 * windows that fail are dropped with their reason, the document stays.
 */
#include "out/result_read.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/histogram.h"
#include "out/result_read_internal.h"
#include "sys/cpulist.h"

int result_read_refuse(struct reader *r, const char *where, const char *fmt, ...)
{
    char why[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->errlen, "%s: %s", where, why);
    return -1;
}

/* A count: a JSON integer >= 0. */
int result_read_count(struct reader *r, const json_t *obj, const char *where, const char *key,
                      uint64_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v))
        return result_read_refuse(r, where, "%s: %s", key, v ? "not an integer" : "missing");
    json_int_t n = json_integer_value(v);
    if (n < 0)
        return result_read_refuse(r, where, "%s: negative count %lld", key, (long long)n);
    *out = (uint64_t)n;
    return 0;
}

/* The statistics object under key ("latency_ns", "exec_ns", ...). */
int result_read_stats(struct reader *r, const json_t *cpu, const char *where, const char *key,
                      struct result_latency *out)
{
    static const char *const keys[] = {"min", "mean", "stddev", "max",  "p50",
                                       "p90", "p99",  "p999",   "p9999"};
    int64_t *const fields[] = {&out->min, &out->mean, &out->stddev, &out->max,  &out->p50,
                               &out->p90, &out->p99,  &out->p999,   &out->p9999};
    json_t *lat = json_object_get(cpu, key);
    if (!json_is_object(lat))
        return result_read_refuse(r, where, "%s: %s", key, lat ? "not an object" : "missing");
    int nulls = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = json_object_get(lat, keys[i]);
        if (json_is_null(v)) {
            nulls++;
            continue;
        }
        if (!json_is_integer(v))
            return result_read_refuse(r, where, "%s.%s: %s", key, keys[i],
                                      v ? "not an integer or null" : "missing");
        *fields[i] = (int64_t)json_integer_value(v);
    }
    if (nulls != 0 && nulls != (int)(sizeof keys / sizeof keys[0]))
        return result_read_refuse(r, where, "%s: some statistics null, others not", key);
    out->known = nulls == 0;
    if (!out->known)
        return 0;
    if (out->min > out->max || out->mean < out->min || out->mean > out->max)
        return result_read_refuse(r, where, "%s: min <= mean <= max does not hold", key);
    if (out->stddev < 0)
        return result_read_refuse(r, where, "%s.stddev: negative", key);
    if (out->p50 > out->p90 || out->p90 > out->p99 || out->p99 > out->p999 ||
        out->p999 > out->p9999)
        return result_read_refuse(r, where, "%s: percentiles not ascending", key);
    return 0;
}

static int read_bin(struct reader *r, const json_t *bin, const char *where, size_t i,
                    struct result_bin *out)
{
    if (!json_is_array(bin) || json_array_size(bin) != 3)
        return result_read_refuse(r, where, "histogram.bins[%zu]: not [lo, hi, count]", i);
    json_int_t v[3];
    for (size_t k = 0; k < 3; k++) {
        json_t *e = json_array_get(bin, k);
        if (!json_is_integer(e))
            return result_read_refuse(r, where, "histogram.bins[%zu]: not [lo, hi, count]", i);
        v[k] = json_integer_value(e);
    }
    if (v[0] < 0 || v[1] < v[0] || v[1] > LATENCY_HIST_MAX_NS)
        return result_read_refuse(r, where,
                                  "histogram.bins[%zu]: [%lld, %lld] is not a range of 0 .. 60 s",
                                  i, (long long)v[0], (long long)v[1]);
    if (v[2] < 0)
        return result_read_refuse(r, where, "histogram.bins[%zu]: negative count %lld", i,
                                  (long long)v[2]);
    out->lo = v[0];
    out->hi = v[1];
    out->count = (uint64_t)v[2];
    return 0;
}

/* The "histogram" object of parent, whose bins and overflow must add up
 * to samples; key names the parent in messages ("" for the CPU entry). */
int result_read_histogram(struct reader *r, const json_t *parent, const char *where,
                          const char *key, uint64_t samples, struct result_dist *out)
{
    const char *dot = key[0] ? "." : "";
    json_t *h = json_object_get(parent, "histogram");
    if (!json_is_object(h))
        return result_read_refuse(r, where, "%s%shistogram: %s", key, dot,
                                  h ? "not an object" : "missing");
    const char *unit = json_string_value(json_object_get(h, "unit"));
    if (!unit || strcmp(unit, "ns") != 0)
        return result_read_refuse(r, where, "%s%shistogram.unit: not \"ns\"", key, dot);
    if (result_read_count(r, h, where, "overflow", &out->overflow) != 0)
        return -1;
    json_t *bins = json_object_get(h, "bins");
    if (!json_is_array(bins))
        return result_read_refuse(r, where, "%s%shistogram.bins: %s", key, dot,
                                  bins ? "not an array" : "missing");
    size_t n = json_array_size(bins);
    if (n > LATENCY_HIST_BUCKETS)
        return result_read_refuse(r, where,
                                  "%s%shistogram.bins: %zu bins, more than the %d a histogram has",
                                  key, dot, n, LATENCY_HIST_BUCKETS);
    out->bins = n ? calloc(n, sizeof *out->bins) : NULL;
    if (n && !out->bins)
        return result_read_refuse(r, where, "out of memory");
    uint64_t total = out->overflow;
    for (size_t i = 0; i < n; i++) {
        struct result_bin *b = &out->bins[i];
        if (read_bin(r, json_array_get(bins, i), where, i, b) != 0)
            return -1;
        if (i > 0 && b->lo <= out->bins[i - 1].hi)
            return result_read_refuse(
                r, where, "%s%shistogram.bins[%zu]: out of order or overlapping", key, dot, i);
        if (b->count > UINT64_MAX - total)
            return result_read_refuse(r, where, "%s%shistogram.bins: counts overflow", key, dot);
        total += b->count;
        out->nbins = (int)i + 1;
    }
    if (total != samples)
        return result_read_refuse(
            r, where, "%s%shistogram: bins and overflow hold %llu values, samples says %llu", key,
            dot, (unsigned long long)total, (unsigned long long)samples);
    return 0;
}

/* exec_ns or response_ns, with its histogram, when the entry has it. */
static int read_optional_dist(struct reader *r, const json_t *obj, const char *where,
                              const char *key, uint64_t samples, struct result_dist *out)
{
    json_t *d = json_object_get(obj, key);
    if (!d || json_is_null(d))
        return 0;
    if (result_read_stats(r, obj, where, key, &out->stats) != 0 ||
        result_read_histogram(r, d, where, key, out->stats.known ? samples : 0, out) != 0)
        return -1;
    out->present = true;
    return 0;
}

int result_read_cpu_histogram(struct reader *r, const json_t *obj, const char *where,
                              struct result_cpu *out)
{
    struct result_dist d = {0};
    int rc = result_read_histogram(r, obj, where, "", out->samples, &d);
    out->bins = d.bins; /* freed with the CPU, also when refused */
    out->nbins = d.nbins;
    out->overflow = d.overflow;
    return rc;
}

/* An entry of cpus[] is an object with its CPU id; the merged "all" object
 * (merged) has none: out->cpu = -1. */
int result_read_cpu_head(struct reader *r, const json_t *obj, const char *where, bool merged,
                         struct result_cpu *out)
{
    if (!json_is_object(obj))
        return result_read_refuse(r, where, "%s", obj ? "not an object" : "missing");
    out->cpu = -1;
    if (!merged) {
        json_t *id = json_object_get(obj, "cpu");
        if (!json_is_integer(id))
            return result_read_refuse(r, where, "cpu: %s", id ? "not an integer" : "missing");
        json_int_t cpu = json_integer_value(id);
        if (cpu < 0 || cpu >= CPULIST_MAX_CPUS)
            return result_read_refuse(r, where, "cpu: %lld is not a CPU id (0 .. %d)",
                                      (long long)cpu, CPULIST_MAX_CPUS - 1);
        out->cpu = (int)cpu;
    }
    return 0;
}

/* One entry of cpus[] (cpu >= 0) or the merged "all" object (cpu = -1). */
static int read_cpu(struct reader *r, const json_t *obj, const char *where, bool merged,
                    struct result_cpu *out)
{
    if (result_read_cpu_head(r, obj, where, merged, out) != 0)
        return -1;
    if (result_read_count(r, obj, where, "samples", &out->samples) != 0 ||
        result_read_count(r, obj, where, "missed", &out->missed) != 0 ||
        result_read_stats(r, obj, where, "latency_ns", &out->latency) != 0)
        return -1;
    /* documents before samples_lacking lack nothing: their results were final */
    if (json_object_get(obj, "samples_lacking") &&
        result_read_count(r, obj, where, "samples_lacking", &out->samples_lacking) != 0)
        return -1;
    if (json_object_get(obj, "ring_drops") &&
        result_read_count(r, obj, where, "ring_drops", &out->ring_drops) != 0)
        return -1;
    if (out->ring_drops > out->samples)
        return result_read_refuse(r, where, "ring_drops: %llu, more than the %llu samples",
                                  (unsigned long long)out->ring_drops,
                                  (unsigned long long)out->samples);
    if (out->latency.known != (out->samples > 0))
        return result_read_refuse(r, where, "latency_ns: %s",
                                  out->samples ? "null with samples"
                                               : "statistics without samples");
    if (result_read_cpu_histogram(r, obj, where, out) != 0)
        return -1;
    json_t *dm = json_object_get(obj, "deadline_misses");
    if (dm && !json_is_null(dm)) { /* null: the run had no deadline */
        if (result_read_count(r, obj, where, "deadline_misses", &out->deadline_misses) != 0)
            return -1;
        out->has_deadline_misses = true;
    }
    return read_optional_dist(r, obj, where, "exec_ns", out->samples, &out->exec) != 0 ||
                   read_optional_dist(r, obj, where, "response_ns", out->samples, &out->response) !=
                       0
               ? -1
               : 0;
}

/* cpus[] (1 .. CPULIST_MAX_CPUS entries, no CPU twice) and "all", each
 * entry by read_one. */
int result_read_cpus(struct reader *r, const json_t *doc, cpu_reader read_one,
                     struct result_doc *out)
{
    json_t *cpus = json_object_get(doc, "cpus");
    if (!json_is_array(cpus))
        return result_read_refuse(r, "cpus", "%s", cpus ? "not an array" : "missing");
    size_t n = json_array_size(cpus);
    if (n == 0 || n > CPULIST_MAX_CPUS)
        return result_read_refuse(r, "cpus", "%zu entries (1 .. %d expected)", n, CPULIST_MAX_CPUS);
    out->cpus = calloc(n, sizeof *out->cpus);
    if (!out->cpus)
        return result_read_refuse(r, "cpus", "out of memory");
    for (size_t i = 0; i < n; i++) {
        char where[32];
        snprintf(where, sizeof where, "cpus[%zu]", i);
        out->ncpus = (int)i + 1;
        if (read_one(r, json_array_get(cpus, i), where, false, &out->cpus[i]) != 0)
            return -1;
        for (size_t k = 0; k < i; k++)
            if (out->cpus[k].cpu == out->cpus[i].cpu)
                return result_read_refuse(r, where, "CPU %d listed twice", out->cpus[i].cpu);
    }
    return read_one(r, json_object_get(doc, "all"), "all", true, &out->all);
}

/* ---- a run's report windows --------------------------------------------- */

/* The largest latency of a window entry: latency_ns.max (intervals[]),
 * else max_ns; *has = false when it is null (a window without samples). */
static int read_window_max(struct reader *r, const json_t *w, const char *at, int64_t *out,
                           bool *has)
{
    json_t *lat = json_object_get(w, "latency_ns");
    json_t *v = json_is_object(lat) ? json_object_get(lat, "max") : NULL;
    if (!v)
        v = json_object_get(w, "max_ns");
    *has = false;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return result_read_refuse(r, at, "max_ns: not an integer >= 0 or null");
    *out = (int64_t)json_integer_value(v);
    *has = true;
    return 0;
}

/* One entry of the window array: which CPU entry (*slot), its window (or
 * samples 0 for one to skip). */
static int read_window(struct reader *r, const json_t *w, const char *at, const int *slot_of,
                       const struct result_doc *out, int *slot, struct result_window *win)
{
    if (!json_is_object(w))
        return result_read_refuse(r, at, "not an object");
    json_t *id = json_object_get(w, "cpu");
    if (!json_is_integer(id))
        return result_read_refuse(r, at, "cpu: %s", id ? "not an integer" : "missing");
    json_int_t cpu = json_integer_value(id);
    if (cpu < 0 || cpu >= CPULIST_MAX_CPUS || slot_of[cpu] < 0)
        return result_read_refuse(r, at, "cpu: %lld is not a CPU of cpus[]", (long long)cpu);
    *slot = slot_of[cpu];
    json_t *t = json_object_get(w, "t_s");
    if (!json_is_number(t) || !(json_number_value(t) >= 0 && json_number_value(t) < 1e9))
        return result_read_refuse(r, at, "t_s: %s", t ? "not a time of 0 .. 1e9 s" : "missing");
    win->t_s = json_number_value(t);
    bool has = false;
    if (result_read_count(r, w, at, "samples", &win->samples) != 0 ||
        read_window_max(r, w, at, &win->max_ns, &has) != 0)
        return -1;
    const struct result_cpu *c = &out->cpus[*slot];
    if (win->samples > 0 && !has)
        return result_read_refuse(r, at, "max_ns: null in a window with samples");
    if (win->samples > c->samples)
        return result_read_refuse(r, at, "samples: %llu, more than the CPU's %llu",
                                  (unsigned long long)win->samples, (unsigned long long)c->samples);
    if (win->samples > 0 && c->latency.known && win->max_ns > c->latency.max)
        return result_read_refuse(r, at, "max_ns: %lld, above the CPU's maximum %lld",
                                  (long long)win->max_ns, (long long)c->latency.max);
    return 0;
}

static int by_time(const void *a, const void *b)
{
    double x = ((const struct result_window *)a)->t_s, y = ((const struct result_window *)b)->t_s;
    return (x > y) - (x < y);
}

/* "all": every CPU's windows by time, those of one time merged (the
 * largest maximum, the samples added). */
static int merge_windows(struct reader *r, struct result_doc *out)
{
    size_t total = 0;
    for (int i = 0; i < out->ncpus; i++)
        total += out->cpus[i].nwindows;
    if (total == 0)
        return 0;
    struct result_window *all = calloc(total, sizeof *all);
    if (!all)
        return result_read_refuse(r, out->windows_from, "out of memory");
    size_t n = 0;
    for (int i = 0; i < out->ncpus; i++)
        for (size_t k = 0; k < out->cpus[i].nwindows; k++)
            all[n++] = out->cpus[i].windows[k];
    qsort(all, n, sizeof *all, by_time);
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        if (m > 0 && all[m - 1].t_s == all[k].t_s) {
            if (all[k].max_ns > all[m - 1].max_ns)
                all[m - 1].max_ns = all[k].max_ns;
            all[m - 1].samples += all[k].samples; /* each <= a CPU's samples */
        } else {
            all[m++] = all[k];
        }
    }
    out->all.windows = all;
    out->all.nwindows = m;
    return 0;
}

/* The windows of intervals[] (when it has entries), else of telemetry[]:
 * counted per CPU first, then filled, so that each CPU's array is
 * allocated once. */
static int read_windows(struct reader *r, const json_t *doc, struct result_doc *out)
{
    const char *key = "intervals";
    json_t *arr = json_object_get(doc, key);
    if (arr && !json_is_array(arr))
        return result_read_refuse(r, key, "not an array");
    if (json_array_size(arr) == 0) {
        key = "telemetry";
        arr = json_object_get(doc, key);
        if (arr && !json_is_array(arr))
            return result_read_refuse(r, key, "not an array");
    }
    size_t n = json_array_size(arr);
    if (n == 0)
        return 0;
    if (n > RESULT_MAX_WINDOWS)
        return result_read_refuse(r, key, "%zu entries, more than %d", n, RESULT_MAX_WINDOWS);
    snprintf(out->windows_from, sizeof out->windows_from, "%s", key);
    int *slot_of = malloc(CPULIST_MAX_CPUS * sizeof *slot_of);
    size_t *count = calloc((size_t)out->ncpus, sizeof *count);
    uint64_t *sum = calloc((size_t)out->ncpus, sizeof *sum);
    int rc = -1;
    if (!slot_of || !count || !sum) {
        result_read_refuse(r, key, "out of memory");
        goto done;
    }
    for (int c = 0; c < CPULIST_MAX_CPUS; c++)
        slot_of[c] = -1;
    for (int i = 0; i < out->ncpus; i++)
        slot_of[out->cpus[i].cpu] = i;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < n; k++) {
            char at[48];
            snprintf(at, sizeof at, "%s[%zu]", key, k);
            int slot = 0;
            struct result_window w = {0};
            if (read_window(r, json_array_get(arr, k), at, slot_of, out, &slot, &w) != 0)
                goto done;
            if (w.samples == 0)
                continue;
            struct result_cpu *c = &out->cpus[slot];
            if (pass == 0) {
                count[slot]++;
                sum[slot] += w.samples; /* each <= the CPU's samples: no overflow */
                if (sum[slot] > c->samples) {
                    result_read_refuse(r, at,
                                       "the windows of CPU %d hold more than its %llu samples",
                                       c->cpu, (unsigned long long)c->samples);
                    goto done;
                }
                continue;
            }
            if (c->nwindows > 0 && w.t_s <= c->windows[c->nwindows - 1].t_s) {
                result_read_refuse(r, at, "not in time order for CPU %d", c->cpu);
                goto done;
            }
            c->windows[c->nwindows++] = w;
        }
        for (int i = 0; pass == 0 && i < out->ncpus; i++) {
            if (count[i] == 0)
                continue;
            out->cpus[i].windows = calloc(count[i], sizeof *out->cpus[i].windows);
            if (!out->cpus[i].windows) {
                result_read_refuse(r, key, "out of memory");
                goto done;
            }
        }
    }
    rc = merge_windows(r, out);
done:
    free(slot_of);
    free(count);
    free(sum);
    return rc;
}

/* The windows, or none with the reason in out->windows_error: what only
 * the tail analysis needs never makes a document unreadable. */
static int read_windows_or_none(const json_t *doc, struct result_doc *out)
{
    struct reader wr = {out->windows_error, sizeof out->windows_error};
    if (read_windows(&wr, doc, out) == 0)
        return 0;
    for (int i = 0; i < out->ncpus; i++) {
        free(out->cpus[i].windows);
        out->cpus[i].windows = NULL;
        out->cpus[i].nwindows = 0;
    }
    free(out->all.windows);
    out->all.windows = NULL;
    out->all.nwindows = 0;
    out->windows_from[0] = '\0';
    return 0;
}

static int read_run(struct reader *r, const json_t *doc, struct result_doc *out)
{
    if (result_read_cpus(r, doc, read_cpu, out) != 0)
        return -1;
    uint64_t samples = 0;
    for (int i = 0; i < out->ncpus; i++) {
        if (out->cpus[i].samples > UINT64_MAX - samples)
            return result_read_refuse(r, "cpus", "samples overflow");
        samples += out->cpus[i].samples;
    }
    if (samples != out->all.samples)
        return result_read_refuse(r, "all", "samples: %llu, the CPUs add up to %llu",
                                  (unsigned long long)out->all.samples,
                                  (unsigned long long)samples);
    json_t *exact = json_object_get(doc, "exact");
    if (exact && !json_is_boolean(exact))
        return result_read_refuse(r, "exact", "not true or false");
    out->exact = !exact || json_is_true(exact);
    if (out->exact && out->all.samples_lacking > 0)
        return result_read_refuse(r, "exact", "true, but all.samples_lacking is %llu",
                                  (unsigned long long)out->all.samples_lacking);
    out->budget_ns = -1;
    out->interval_ns = -1;
    snprintf(out->wake, sizeof out->wake, "timer");
    json_t *cfg = json_object_get(doc, "config");
    if (json_is_object(cfg)) {
        json_t *wk = json_object_get(cfg, "wake");
        if (json_is_string(wk))
            snprintf(out->wake, sizeof out->wake, "%s", json_string_value(wk));
        json_t *b = json_object_get(cfg, "budget_ns"), *iv = json_object_get(cfg, "interval_ns");
        if (json_is_integer(b) && json_integer_value(b) > 0)
            out->budget_ns = (int64_t)json_integer_value(b);
        if (json_is_integer(iv) && json_integer_value(iv) > 0)
            out->interval_ns = (int64_t)json_integer_value(iv);
        json_t *wl = json_object_get(cfg, "workload"), *ct = json_object_get(cfg, "counters");
        out->control_task = (wl && !json_is_null(wl)) || (ct && !json_is_null(ct));
        out->realtime = json_is_true(json_object_get(cfg, "realtime"));
        /* A document from before config.deadline_ns counted a run without a
         * workload against the interval as if it were a deadline: that
         * count means nothing, and is read as absent. */
        if (!json_object_get(cfg, "deadline_ns") && !(wl && !json_is_null(wl))) {
            for (int i = 0; i < out->ncpus; i++)
                out->cpus[i].has_deadline_misses = false;
            out->all.has_deadline_misses = false;
        }
    }
    json_t *d = json_object_get(doc, "duration_s");
    if (json_is_number(d) && json_number_value(d) >= 0 && json_number_value(d) < 1e12)
        out->duration_s = json_number_value(d);
    return read_windows_or_none(doc, out);
}
static bool plausible_kind(const char *kind)
{
    size_t n = strlen(kind);
    if (n == 0 || n >= sizeof((struct result_doc *)0)->kind)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((kind[i] >= 'a' && kind[i] <= 'z') || kind[i] == '-' ||
              (i > 0 && kind[i] >= '0' && kind[i] <= '9'))) /* "c2c" */
            return false;
    return true;
}

static int read_doc(struct reader *r, const json_t *doc, struct result_doc *out)
{
    if (!json_is_object(doc))
        return result_read_refuse(r, "document", "not a JSON object");
    const char *tool = json_string_value(json_object_get(doc, "tool"));
    if (!tool || strcmp(tool, "jitterlab") != 0)
        return result_read_refuse(r, "tool", "not \"jitterlab\": not a document of this program");
    json_t *schema = json_object_get(doc, "schema");
    if (!json_is_integer(schema))
        return result_read_refuse(r, "schema", "%s", schema ? "not an integer" : "missing");
    if (json_integer_value(schema) != 1)
        return result_read_refuse(r, "schema",
                                  "%lld is not supported (this version reads schema 1)",
                                  (long long)json_integer_value(schema));
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    if (!kind || !plausible_kind(kind))
        return result_read_refuse(r, "kind", "%s", kind ? "not a document kind" : "missing");
    snprintf(out->kind, sizeof out->kind, "%s", kind);
    const char *version = json_string_value(json_object_get(doc, "version"));
    snprintf(out->version, sizeof out->version, "%s", version ? version : "");
    json_t *interrupted = json_object_get(doc, "interrupted");
    if (interrupted && !json_is_boolean(interrupted))
        return result_read_refuse(r, "interrupted", "not true or false");
    out->interrupted = json_is_true(interrupted);
    json_t *in_progress = json_object_get(doc, "in_progress");
    if (in_progress && !json_is_boolean(in_progress))
        return result_read_refuse(r, "in_progress", "not true or false");
    out->in_progress = json_is_true(in_progress);
    out->exact = true;
    out->threshold_ns = -1;
    if (strcmp(kind, "noise") == 0)
        return result_read_noise(r, doc, out);
    return strcmp(kind, "run") == 0 ? read_run(r, doc, out) : 0;
}

int result_read_tree(const json_t *root, struct result_doc *doc, char *err, size_t errlen)
{
    memset(doc, 0, sizeof *doc);
    struct reader r = {err, errlen};
    int rc = read_doc(&r, root, doc);
    if (rc != 0)
        result_doc_free(doc);
    return rc;
}

static void cpu_free(struct result_cpu *c)
{
    free(c->bins);
    free(c->exec.bins);
    free(c->response.bins);
    for (size_t i = 0; i < c->noise.ncause; i++)
        free(c->noise.cause[i].name);
    free(c->noise.cause);
    free(c->noise.win);
    free(c->windows);
}

void result_doc_free(struct result_doc *doc)
{
    for (int i = 0; i < doc->ncpus; i++)
        cpu_free(&doc->cpus[i]);
    free(doc->cpus);
    cpu_free(&doc->all);
    memset(doc, 0, sizeof *doc);
}
