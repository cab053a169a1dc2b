/*
 * The reader of noise documents (kind "noise", see result_read.h), read
 * into the same structs as a run's (gaps as samples) with their own
 * checks: noise within the time measured, windows in time order and
 * within their length, causes with their pids, the merged entry the sum
 * of the CPUs. The document's frame and the CPU entries' common part are
 * result_read.c's.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/result_read_internal.h"
#include "stats/histogram.h"

/* A count the writer keeps in int64_t (ns): a JSON integer >= 0. */
static int read_ns(struct reader *r, const json_t *obj, const char *where, const char *key,
                   int64_t *out)
{
    uint64_t v = 0;
    if (result_read_count(r, obj, where, key, &v) != 0)
        return -1;
    *out = (int64_t)v;
    return 0;
}

static int read_noise_window(struct reader *r, const json_t *w, const char *where, size_t i,
                             struct result_noise_window *out)
{
    char at[64];
    snprintf(at, sizeof at, "%s.windows[%zu]", where, i);
    if (!json_is_object(w))
        return result_read_refuse(r, at, "not an object");
    json_t *t = json_object_get(w, "t_s");
    if (!json_is_number(t) || !(json_number_value(t) >= 0 && json_number_value(t) < 1e9))
        return result_read_refuse(r, at, "t_s: %s", t ? "not a time of 0 .. 1e9 s" : "missing");
    out->t_s = json_number_value(t);
    if (read_ns(r, w, at, "duration_ns", &out->duration_ns) != 0 ||
        read_ns(r, w, at, "measured_ns", &out->measured_ns) != 0 ||
        read_ns(r, w, at, "noise_ns", &out->noise_ns) != 0 ||
        read_ns(r, w, at, "max_ns", &out->max_ns) != 0 ||
        result_read_count(r, w, at, "gaps", &out->gaps) != 0)
        return -1;
    if (out->measured_ns > out->duration_ns || out->noise_ns > out->duration_ns)
        return result_read_refuse(r, at, "measured_ns and noise_ns must not exceed duration_ns");
    return 0;
}

/* A short word of the writer ("thread", "SCHED_FIFO") into buf. */
static int read_word(struct reader *r, const json_t *obj, const char *where, const char *key,
                     bool required, char *buf, size_t len)
{
    json_t *v = json_object_get(obj, key);
    if (!v && !required)
        return 0;
    const char *s = json_string_value(v);
    if (!s)
        return result_read_refuse(r, where, "%s: %s", key, v ? "not a string" : "missing");
    if (strlen(s) >= len || !s[0])
        return result_read_refuse(r, where, "%s: empty or longer than %zu characters", key,
                                  len - 1);
    snprintf(buf, len, "%s", s);
    return 0;
}

/* A thread row's "pids" [{pid, gaps, ns}] and "pids_unlisted" {gaps, ns}
 * (both optional: documents of older versions have neither). */
static int read_noise_cause_pids(struct reader *r, const json_t *c, const char *at,
                                 struct result_noise_cause *out)
{
    json_t *pids = json_object_get(c, "pids"), *unlisted = json_object_get(c, "pids_unlisted");
    if (pids && !json_is_array(pids))
        return result_read_refuse(r, at, "pids: not an array");
    if (json_array_size(pids) > RESULT_NOISE_MAX_CAUSES)
        return result_read_refuse(r, at, "pids: %zu entries, more than %d", json_array_size(pids),
                                  RESULT_NOISE_MAX_CAUSES);
    for (size_t k = 0; k < json_array_size(pids); k++) {
        char w[96];
        snprintf(w, sizeof w, "%s.pids[%zu]", at, k);
        json_t *p = json_array_get(pids, k), *pid = json_object_get(p, "pid");
        if (!json_is_object(p))
            return result_read_refuse(r, w, "not an object");
        if (!json_is_integer(pid) || json_integer_value(pid) < 0 ||
            json_integer_value(pid) > 4194304)
            return result_read_refuse(r, w, "pid: not a process id");
        int64_t ns;
        uint64_t gaps;
        if (read_ns(r, p, w, "ns", &ns) != 0 || result_read_count(r, p, w, "gaps", &gaps) != 0)
            return -1;
        if (out->npid < RESULT_NOISE_CAUSE_PIDS) {
            out->pids[out->npid].pid = (int64_t)json_integer_value(pid);
            out->pids[out->npid].ns = ns;
            out->pids[out->npid++].gaps = gaps;
        } else if (ns <= INT64_MAX - out->pids_other_ns) {
            out->pids_other_ns += ns;
        }
    }
    if (unlisted) {
        char w[96];
        snprintf(w, sizeof w, "%s.pids_unlisted", at);
        int64_t ns;
        if (!json_is_object(unlisted))
            return result_read_refuse(r, w, "not an object");
        if (read_ns(r, unlisted, w, "ns", &ns) != 0)
            return -1;
        if (ns <= INT64_MAX - out->pids_other_ns)
            out->pids_other_ns += ns;
    }
    return 0;
}

static int read_noise_cause(struct reader *r, const json_t *c, const char *where, size_t i,
                            struct result_noise_cause *out)
{
    char at[64];
    snprintf(at, sizeof at, "%s.causes[%zu]", where, i);
    out->pid = -1;
    if (!json_is_object(c))
        return result_read_refuse(r, at, "not an object");
    if (read_word(r, c, at, "kind", true, out->kind, sizeof out->kind) != 0)
        return -1;
    const char *name = json_string_value(json_object_get(c, "name"));
    if (!name || strlen(name) > 255)
        return result_read_refuse(r, at, "name: %s",
                                  name ? "longer than 255 characters" : "missing or not a string");
    if (!(out->name = strdup(name)))
        return result_read_refuse(r, at, "out of memory");
    json_t *pid = json_object_get(c, "pid"), *prio = json_object_get(c, "priority");
    if (pid &&
        (!json_is_integer(pid) || json_integer_value(pid) < 0 || json_integer_value(pid) > 4194304))
        return result_read_refuse(r, at, "pid: not a process id");
    out->pid = pid ? (int64_t)json_integer_value(pid) : -1;
    if (prio && (!json_is_integer(prio) || json_integer_value(prio) < -100 ||
                 json_integer_value(prio) > 200))
        return result_read_refuse(r, at, "priority: not an integer of -100 .. 200");
    out->priority = prio ? (int64_t)json_integer_value(prio) : 0;
    if (read_word(r, c, at, "policy", false, out->policy, sizeof out->policy) != 0 ||
        read_ns(r, c, at, "ns", &out->ns) != 0 ||
        result_read_count(r, c, at, "gaps", &out->gaps) != 0 ||
        read_noise_cause_pids(r, c, at, out) != 0 ||
        (json_object_get(c, "folded") && result_read_count(r, c, at, "folded", &out->folded) != 0))
        return -1;
    json_t *share = json_object_get(c, "share");
    if (!json_is_number(share) ||
        !(json_number_value(share) >= 0 && json_number_value(share) <= 1 + 1e-9))
        return result_read_refuse(r, at, "share: %s", share ? "not a number of 0 .. 1" : "missing");
    out->share = json_number_value(share);
    return 0;
}

/* windows[] or causes[] of a noise CPU entry: an array of at most max. */
static int noise_array(struct reader *r, const json_t *obj, const char *where, const char *key,
                       size_t max, const json_t **out)
{
    json_t *a = json_object_get(obj, key);
    if (!json_is_array(a))
        return result_read_refuse(r, where, "%s: %s", key, a ? "not an array" : "missing");
    if (json_array_size(a) > max)
        return result_read_refuse(r, where, "%s: %zu entries, more than %zu", key,
                                  json_array_size(a), max);
    *out = a;
    return 0;
}

static int read_noise_lists(struct reader *r, const json_t *obj, const char *where,
                            struct result_noise *n)
{
    const json_t *wins, *causes;
    if (noise_array(r, obj, where, "windows", RESULT_NOISE_MAX_WINDOWS, &wins) != 0 ||
        noise_array(r, obj, where, "causes", RESULT_NOISE_MAX_CAUSES, &causes) != 0)
        return -1;
    size_t nw = json_array_size(wins), nc = json_array_size(causes);
    n->win = nw ? calloc(nw, sizeof *n->win) : NULL;
    n->cause = nc ? calloc(nc, sizeof *n->cause) : NULL;
    if ((nw && !n->win) || (nc && !n->cause))
        return result_read_refuse(r, where, "out of memory");
    for (size_t i = 0; i < nw; i++) {
        n->nwin = i + 1;
        if (read_noise_window(r, json_array_get(wins, i), where, i, &n->win[i]) != 0)
            return -1;
        if (i > 0 && n->win[i].t_s <= n->win[i - 1].t_s)
            return result_read_refuse(r, where, "windows[%zu]: not in time order", i);
    }
    for (size_t i = 0; i < nc; i++) {
        n->ncause = i + 1;
        if (read_noise_cause(r, json_array_get(causes, i), where, i, &n->cause[i]) != 0)
            return -1;
    }
    return 0;
}

/* One entry of a noise document's cpus[] (merged: its "all"): the gaps
 * as samples, gap_ns as the statistics, then the noise figures. */
static int read_noise_cpu(struct reader *r, const json_t *obj, const char *where, bool merged,
                          struct result_cpu *out)
{
    if (result_read_cpu_head(r, obj, where, merged, out) != 0)
        return -1;
    struct result_noise *n = &out->noise;
    n->present = true;
    n->floor_ns = -1;
    if (result_read_count(r, obj, where, "gaps", &out->samples) != 0 ||
        read_ns(r, obj, where, "measured_ns", &n->measured_ns) != 0 ||
        read_ns(r, obj, where, "noise_ns", &n->noise_ns) != 0 ||
        result_read_stats(r, obj, where, "gap_ns", &out->latency) != 0)
        return -1;
    if (n->noise_ns > n->measured_ns)
        return result_read_refuse(r, where, "noise_ns: %lld, more than measured_ns %lld",
                                  (long long)n->noise_ns, (long long)n->measured_ns);
    if ((out->samples == 0) != (n->noise_ns == 0))
        return result_read_refuse(r, where, "gaps and noise_ns: one is 0, the other not");
    if (out->latency.known != (out->samples > 0))
        return result_read_refuse(r, where, "gap_ns: %s",
                                  out->samples ? "null with gaps" : "statistics without gaps");
    json_t *floor = json_object_get(obj, "floor_ns");
    if (floor && !json_is_null(floor) && read_ns(r, obj, where, "floor_ns", &n->floor_ns) != 0)
        return -1;
    /* a gap is never negative: the histogram's underflow stays empty */
    json_t *h = json_object_get(obj, "histogram");
    json_t *uf = json_is_object(h) ? json_object_get(h, "underflow") : NULL;
    if (uf && !(json_is_integer(uf) && json_integer_value(uf) == 0))
        return result_read_refuse(r, where, "histogram.underflow: not 0 (gaps are never negative)");
    if (result_read_cpu_histogram(r, obj, where, out) != 0)
        return -1;
    return merged ? 0 : read_noise_lists(r, obj, where, n);
}

/* The merged entry must be the sum of the CPUs. */
static int check_noise_sums(struct reader *r, const struct result_doc *out)
{
    uint64_t gaps = 0;
    int64_t noise = 0, measured = 0;
    for (int i = 0; i < out->ncpus; i++) {
        const struct result_cpu *c = &out->cpus[i];
        if (c->samples > UINT64_MAX - gaps || c->noise.noise_ns > INT64_MAX - noise ||
            c->noise.measured_ns > INT64_MAX - measured)
            return result_read_refuse(r, "cpus", "gaps or times overflow");
        gaps += c->samples;
        noise += c->noise.noise_ns;
        measured += c->noise.measured_ns;
    }
    if (gaps != out->all.samples || noise != out->all.noise.noise_ns ||
        measured != out->all.noise.measured_ns)
        return result_read_refuse(r, "all",
                                  "gaps, noise_ns or measured_ns are not the sums of the CPUs'");
    return 0;
}

int result_read_noise(struct reader *r, const json_t *doc, struct result_doc *out)
{
    if (result_read_cpus(r, doc, read_noise_cpu, out) != 0 || check_noise_sums(r, out) != 0)
        return -1;
    out->budget_ns = -1;
    out->interval_ns = -1;
    json_t *cfg = json_object_get(doc, "config");
    if (!json_is_object(cfg))
        return result_read_refuse(r, "config", "%s", cfg ? "not an object" : "missing");
    json_t *t = json_object_get(cfg, "threshold_ns");
    if (!json_is_integer(t) || json_integer_value(t) <= 0 ||
        json_integer_value(t) > LATENCY_HIST_MAX_NS)
        return result_read_refuse(r, "config", "threshold_ns: %s",
                                  t ? "not a duration of 1 ns .. 60 s" : "missing");
    out->threshold_ns = (int64_t)json_integer_value(t);
    json_t *rt = json_object_get(doc, "realtime");
    if (rt && !json_is_boolean(rt))
        return result_read_refuse(r, "realtime", "not true or false");
    out->realtime = json_is_true(rt);
    json_t *d = json_object_get(doc, "duration_s");
    if (json_is_number(d) && json_number_value(d) >= 0 && json_number_value(d) < 1e12)
        out->duration_s = json_number_value(d);
    return 0;
}

/* Kinds are short lower-case words ("run", "tune-state", "c2c"). */
