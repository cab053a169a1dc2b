/*
 * The system and config objects of every result side by side. Each
 * document's objects are flattened into "system.cpuidle.driver = none"
 * rows (lists of plain values on one row, lists of objects one row per
 * member, cut after LIST_ROWS entries), the rows of all results are joined
 * by key in the order they first appear, and a row whose values are not
 * all the same is highlighted (one that all share is written once). The page shows the settings
 * that matter most first, then every row that differs, then (folded) every row.
 */
#include <stdlib.h>
#include <string.h>

#include "common/redact.h"
#include "out/report_html_internal.h"

#define LIST_ROWS   32   /* entries of a list of objects shown */
#define MAX_ROWS    6000 /* rows per result */
#define VALUE_CHARS 600  /* a flattened list is cut here */
#define MAX_DEPTH   8

struct kv {
    char *key, *value;
    int run;
    size_t pos; /* first appearance: run, then row */
};

struct kv_list {
    size_t n, cap;
    struct kv *kv;
    size_t rows_of[REPORT_MAX_RESULTS];
    bool truncated, failed;
};

static void add(struct kv_list *l, int run, const char *key, char *value)
{
    if (value && redact_needed(value)) { /* a result written before redaction */
        char *shown = redact_dup(value);
        free(value);
        value = shown;
    }
    if (!value || l->rows_of[run] >= MAX_ROWS) {
        l->truncated = l->truncated || value;
        l->failed = l->failed || !value;
        free(value);
        return;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        void *p = realloc(l->kv, cap * sizeof *l->kv);
        if (!p) {
            l->failed = true;
            free(value);
            return;
        }
        l->kv = p;
        l->cap = cap;
    }
    char *k = strdup(key);
    if (!k) {
        l->failed = true;
        free(value);
        return;
    }
    struct kv *e = &l->kv[l->n];
    e->key = k;
    e->value = value;
    e->run = run;
    e->pos = l->n++;
    l->rows_of[run]++;
}

static bool is_scalar(const json_t *v)
{
    return !json_is_object(v) && !json_is_array(v);
}

static void scalar_text(FILE *m, const json_t *v, bool quote)
{
    if (json_is_string(v))
        fprintf(m, quote ? "\"%s\"" : "%s", json_string_value(v));
    else if (json_is_integer(v))
        fprintf(m, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        fprintf(m, "%.10g", json_real_value(v));
    else
        fputs(json_is_true(v) ? "true" : json_is_false(v) ? "false" : "null", m);
}

/* The text of a scalar or a list of scalars ("[1, 2]"); NULL when out of memory. */
static char *value_text(const json_t *v)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return NULL;
    if (json_is_array(v)) {
        fputc('[', m);
        for (size_t i = 0; i < json_array_size(v) && ftell(m) < VALUE_CHARS; i++) {
            fputs(i ? ", " : "", m);
            scalar_text(m, json_array_get(v, i), true);
        }
        fputc(']', m);
    } else if (json_is_object(v)) {
        fputs("{}", m);
    } else {
        scalar_text(m, v, false);
    }
    if (fclose(m) != 0) {
        free(text);
        return NULL;
    }
    if (len > VALUE_CHARS)
        strcpy(text + VALUE_CHARS - 4, " \xe2\x80\xa6"); /* cut, "…" */
    return text;
}

static bool all_scalars(const json_t *a)
{
    for (size_t i = 0; i < json_array_size(a); i++)
        if (!is_scalar(json_array_get(a, i)))
            return false;
    return true;
}

static void flatten(struct kv_list *l, int run, const char *key, const json_t *v, int depth)
{
    if (json_is_object(v) && json_object_size(v) > 0 && depth < MAX_DEPTH) {
        const char *k;
        const json_t *x;
        json_object_foreach((json_t *)v, k, x)
        {
            char sub[512];
            snprintf(sub, sizeof sub, "%s.%s", key, k);
            flatten(l, run, sub, x, depth + 1);
        }
    } else if (json_is_array(v) && !all_scalars(v) && depth < MAX_DEPTH) {
        size_t n = json_array_size(v);
        for (size_t i = 0; i < n && i < LIST_ROWS; i++) {
            char sub[512];
            snprintf(sub, sizeof sub, "%s[%zu]", key, i);
            flatten(l, run, sub, json_array_get(v, i), depth + 1);
        }
        if (n > LIST_ROWS) {
            char sub[512], *more = NULL;
            snprintf(sub, sizeof sub, "%s[\xe2\x80\xa6]", key);
            if (asprintf(&more, "%zu more entries", n - LIST_ROWS) < 0)
                more = NULL;
            add(l, run, sub, more);
        }
    } else {
        add(l, run, key, value_text(v));
    }
}

/* The command line of a result: argv joined by blanks. */
static void command_row(struct kv_list *l, int run, const json_t *root)
{
    const json_t *argv = json_object_get(root, "argv");
    if (!json_is_array(argv) || !all_scalars(argv))
        return;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return;
    for (size_t i = 0; i < json_array_size(argv); i++) {
        fputs(i ? " " : "", m);
        scalar_text(m, json_array_get(argv, i), false);
    }
    if (fclose(m) != 0) {
        free(text);
        text = NULL;
    }
    add(l, run, "command", text);
}

static int by_key(const void *a, const void *b)
{
    const struct kv *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* A row of the joined table: the values of one key, one per result. */
struct row {
    const char *key;
    size_t pos;
    const char *value[REPORT_MAX_RESULTS];
    bool differs;
};

static int by_pos(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static size_t join_rows(struct kv_list *l, int nrun, struct row *rows)
{
    if (l->n > 1)
        qsort(l->kv, l->n, sizeof *l->kv, by_key);
    size_t n = 0;
    for (size_t i = 0; i < l->n; n++) {
        struct row *r = &rows[n];
        memset(r, 0, sizeof *r);
        r->key = l->kv[i].key;
        r->pos = l->kv[i].pos;
        size_t j = i;
        for (; j < l->n && strcmp(l->kv[j].key, r->key) == 0; j++)
            if (!r->value[l->kv[j].run])
                r->value[l->kv[j].run] = l->kv[j].value;
        for (int k = 1; k < nrun; k++)
            if (!r->value[0] || !r->value[k] || strcmp(r->value[0], r->value[k]) != 0)
                r->differs = true;
        i = j;
    }
    if (n > 1)
        qsort(rows, n, sizeof *rows, by_pos);
    return n;
}

static void table(struct report_ctx *c, const struct row *rows, size_t n, bool only_diff,
                  const char *const *only_keys)
{
    FILE *f = c->f;
    fputs("<table class=\"config\"><tr><th class=\"text\">key</th>", f);
    for (int i = 0; i < c->in->nrun; i++) {
        fprintf(f, "<th class=\"text\"><span class=\"swatch\" style=\"background:%s\"></span>",
                report_colour(i));
        markup_escape(f, c->in->run[i].label, 0);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (size_t i = 0; i < n; i++) {
        const struct row *r = &rows[i];
        if (only_diff && !r->differs)
            continue;
        if (only_keys) {
            bool listed = false;
            for (const char *const *k = only_keys; *k && !listed; k++)
                listed = strcmp(*k, r->key) == 0;
            if (!listed)
                continue;
        }
        fprintf(f, "<tr%s><td class=\"key\">", r->differs ? " class=\"diff\"" : "");
        markup_escape(f, r->key, 0);
        fputs("</td>", f);
        /* a value all results share is written once, across their columns */
        int cols = r->differs ? c->in->nrun : 1;
        for (int k = 0; k < cols; k++) {
            if (cols == 1 && c->in->nrun > 1)
                fprintf(f, "<td class=\"text same\" colspan=\"%d\">", c->in->nrun);
            else
                fputs(r->value[k] ? "<td class=\"text\">" : "<td class=\"text na\">", f);
            markup_escape(f, r->value[k] ? r->value[k] : "(absent)", 0);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static const char *const main_keys[] = {
    "command",
    "system.hostname",
    "system.kernel",
    "system.preempt_model",
    "system.cmdline",
    "system.cpu_model",
    "system.cpus_online",
    "system.isolated",
    "system.nohz_full",
    "system.clocksource",
    "system.hypervisor",
    "system.cpu_dma_latency_us",
    "config.interval_ns",
    "config.duration_ns",
    "config.policy",
    "config.priority",
    "config.realtime",
    "config.memory_lock",
    "config.cpus",
    "config.clock",
    "config.workload.spec",
    "config.deadline_ns",
    "config.pm_qos_us",
    "config.tune.profile",
    "config.load[0].spec",
    "config.load[1].spec",
    "config.telemetry.mode",
    NULL,
};

void report_config(struct report_ctx *c)
{
    FILE *f = c->f;
    struct kv_list l = {0};
    for (int r = 0; r < c->in->nrun; r++) {
        const struct report_run *run = &c->in->run[r];
        command_row(&l, r, run->root);
        if (run->system)
            flatten(&l, r, "system", run->system, 0);
        if (run->config)
            flatten(&l, r, "config", run->config, 0);
    }
    struct row *rows = calloc(l.n ? l.n : 1, sizeof *rows);
    if (!rows || l.failed)
        c->failed = true;
    size_t n = rows ? join_rows(&l, c->in->nrun, rows) : 0;
    size_t ndiff = 0;
    for (size_t i = 0; i < n; i++)
        ndiff += rows[i].differs;
    fputs("<section id=\"system\"><h2>System and config</h2>\n", f);
    if (c->in->nrun > 1)
        fputs("<p class=\"note\">Highlighted rows differ between the results.</p>\n", f);
    fputs("<h3>Main settings</h3>\n", f);
    table(c, rows, n, false, main_keys);
    if (c->in->nrun > 1) {
        fprintf(f, "<details open><summary>%zu of %zu keys differ</summary>\n", ndiff, n);
        table(c, rows, n, true, NULL);
        fputs("</details>\n", f);
    }
    fprintf(f, "<details><summary>Every key (%zu)</summary>\n", n);
    table(c, rows, n, false, NULL);
    if (l.truncated)
        fprintf(f, "<p class=\"note\">Cut at %d rows per result.</p>\n", MAX_ROWS);
    fputs("</details>\n</section>\n", f);
    for (size_t i = 0; i < l.n; i++) {
        free(l.kv[i].key);
        free(l.kv[i].value);
    }
    free(l.kv);
    free(rows);
}
