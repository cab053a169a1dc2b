/*
 * Reading an experiment file (plan.h). libinih splits the text into
 * sections and key = value pairs; our reader hands it one physical line at
 * a time, so that it knows each line's number, its raw text (to tell an
 * indented continuation from a new key and to see what an inline comment
 * cut off) and the section headers, also of sections without keys. The
 * first error, in line order, is the one reported.
 */
#include "experiment/plan.h"

#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"

const char *const plan_step_keys[STEP_NKEYS] = {"run", "load", "tune", "before", "after", "save"};

const struct plan_save_kind plan_save_kinds[PLAN_SAVE_KINDS] = {
    [SAVE_SAMPLES] = {"samples", "--samples", "samples.csv"},
    [SAVE_HISTOGRAM] = {"histogram", "--histogram-file", "histogram.txt"},
    [SAVE_INTERVALS] = {"intervals", "--intervals", "intervals.csv"},
};

enum exp_key { EXP_NAME, EXP_REPEAT, EXP_ORDER, EXP_SETTLE, EXP_NKEYS };
static const char *const exp_keys[EXP_NKEYS] = {"name", "repeat", "order", "settle"};

enum section { SEC_NONE, SEC_EXPERIMENT, SEC_STEP, SEC_IGNORE };

struct parse_state {
    const char *file;
    const char *text;
    size_t len, pos;
    int line;             /* of the line libinih works on */
    const char *raw;      /* that line, without its line end */
    size_t raw_len;       /* (BOM skipped on the first line) */
    bool continuation;    /* an indented line continuing prev_key */
    char prev_key[64];    /* libinih's prev_name: the last key of the section */
    enum section section; /* where the keys of this line go */
    struct plan_step *step;
    bool experiment_seen;
    int exp_line[EXP_NKEYS]; /* where each [experiment] key was given, 0: not */
    struct experiment_plan *plan;
    int err_line; /* 0: no error yet */
    char *err;
    size_t errlen;
};

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Records the first error; the message gets "FILE:LINE: " (line 0: "FILE: "). */
__attribute__((format(printf, 3, 4))) static void fail_at(struct parse_state *st, int line,
                                                          const char *fmt, ...)
{
    if (st->err_line)
        return;
    st->err_line = line > 0 ? line : -1;
    int n = line > 0 ? snprintf(st->err, st->errlen, "%s:%d: ", st->file, line)
                     : snprintf(st->err, st->errlen, "%s: ", st->file);
    if (n < 0 || (size_t)n >= st->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->err + n, st->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

bool plan_name_valid(const char *name, size_t len)
{
    if (len == 0 || len > PLAN_NAME_MAX)
        return false;
    /* A plain word: it becomes file names that children get as arguments,
     * where "-h-1.json" would read as an option. */
    if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') ||
          (name[0] >= '0' && name[0] <= '9')))
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return false;
    }
    return true;
}

/* Trims blanks at both ends of [*s, *s + *n). */
static void trim(const char **s, size_t *n)
{
    while (*n && is_blank(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && (is_blank((*s)[*n - 1]) || (*s)[*n - 1] == '\r'))
        (*n)--;
}

static void begin_step(struct parse_state *st, const char *name, size_t n)
{
    struct experiment_plan *p = st->plan;
    if (!plan_name_valid(name, n)) {
        fail_at(st, st->line,
                "[step %.*s]: a step name is 1 to %d letters, digits, '_', '.' or '-', "
                "starting with a letter or digit",
                (int)n, name, PLAN_NAME_MAX);
        return;
    }
    for (int i = 0; i < p->nsteps; i++) {
        if (strlen(p->step[i].name) == n && memcmp(p->step[i].name, name, n) == 0) {
            fail_at(st, st->line,
                    "[step %.*s]: a second step of that name (the first is at line %d)", (int)n,
                    name, p->step[i].line);
            return;
        }
    }
    if (p->nsteps == PLAN_MAX_STEPS) {
        fail_at(st, st->line, "[step %.*s]: more than %d steps", (int)n, name, PLAN_MAX_STEPS);
        return;
    }
    st->step = &p->step[p->nsteps++];
    memcpy(st->step->name, name, n);
    st->step->name[n] = '\0';
    st->step->line = st->line;
    st->section = SEC_STEP;
}

/* A [section] header line: which section the following keys belong to. */
static void begin_section(struct parse_state *st, const char *name, size_t n)
{
    st->prev_key[0] = '\0';
    st->step = NULL;
    st->section = SEC_IGNORE;
    trim(&name, &n);
    if (n == 10 && memcmp(name, "experiment", 10) == 0) {
        if (st->experiment_seen) {
            fail_at(st, st->line,
                    "[experiment]: a second [experiment] section (the first is at "
                    "line %d)",
                    st->plan->line);
            return;
        }
        st->experiment_seen = true;
        st->plan->line = st->line;
        st->section = SEC_EXPERIMENT;
    } else if (n >= 4 && memcmp(name, "step", 4) == 0 && (n == 4 || is_blank(name[4]))) {
        const char *s = name + 4;
        size_t sn = n - 4;
        trim(&s, &sn);
        if (sn == 0)
            fail_at(st, st->line, "[step]: a step needs a name: [step NAME]");
        else
            begin_step(st, s, sn);
    } else {
        fail_at(st, st->line, "unknown section [%.*s] (sections: [experiment], [step NAME])",
                (int)n, name);
    }
}

/* libinih's line reader: one physical line per call, as libinih counts. */
static char *read_line(char *str, int num, void *stream)
{
    struct parse_state *st = stream;
    if (st->pos >= st->len || num < 4)
        return NULL;
    const char *start = st->text + st->pos;
    const char *nl = memchr(start, '\n', st->len - st->pos);
    size_t n = nl ? (size_t)(nl - start) + 1 : st->len - st->pos;
    st->pos += n;
    st->line++;
    st->raw = start;
    st->raw_len = n;
    if (st->line == 1 && n >= 3 && memcmp(start, "\xEF\xBB\xBF", 3) == 0) {
        st->raw += 3;
        st->raw_len -= 3;
    }
    while (st->raw_len && (st->raw[st->raw_len - 1] == '\n' || st->raw[st->raw_len - 1] == '\r'))
        st->raw_len--;
    if (memchr(st->raw, '\0', st->raw_len)) {
        fail_at(st, st->line, "a NUL byte (is this a text file?)");
        return strcpy(str, "\n");
    }
    /* libinih wants room for "\r\n\0" after the longest line. */
    if (st->raw_len > (size_t)num - 3) {
        fail_at(st, st->line,
                "a line longer than %d characters (continue a long value on indented lines)",
                num - 3);
        return strcpy(str, "\n");
    }
    memcpy(str, start, n);
    str[n] = '\0';
    /* What libinih will make of the line, seen from its raw text. */
    const char *s = st->raw;
    size_t sn = st->raw_len;
    trim(&s, &sn);
    bool indented = sn && s > st->raw;
    st->continuation = indented && st->prev_key[0] && *s != ';' && *s != '#';
    if (!st->continuation && sn && *s == '[') {
        const char *close = memchr(s, ']', sn);
        if (close)
            begin_section(st, s + 1, (size_t)(close - s - 1));
    }
    return str;
}

/* The value as written on the current line, before libinih cut an inline
 * comment off: everything after the first '=' or ':' (all of a
 * continuation line), trimmed. */
static void raw_value(const struct parse_state *st, const char **v, size_t *n)
{
    *v = st->raw;
    *n = st->raw_len;
    if (!st->continuation) {
        const char *eq = NULL;
        for (size_t i = 0; i < *n && !eq; i++)
            if ((*v)[i] == '=' || (*v)[i] == ':')
                eq = *v + i;
        if (eq) {
            *n -= (size_t)(eq + 1 - *v);
            *v = eq + 1;
        }
    }
    trim(v, n);
}

static int find_key(const char *const *keys, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(keys[i], name) == 0)
            return i;
    return -1;
}

static void experiment_value(struct parse_state *st, const char *key, const char *value)
{
    struct experiment_plan *p = st->plan;
    int k = find_key(exp_keys, EXP_NKEYS, key);
    if (k < 0) {
        fail_at(st, st->line, "[experiment] %s: unknown key (keys: name, repeat, order, settle)",
                key);
        return;
    }
    if (st->continuation) {
        fail_at(st, st->line,
                "[experiment] %s: an indented line continues it; the value takes "
                "one line",
                key);
        return;
    }
    if (st->exp_line[k]) {
        fail_at(st, st->line, "[experiment] %s: given twice (first at line %d)", key,
                st->exp_line[k]);
        return;
    }
    st->exp_line[k] = st->line;
    const char *why;
    long v;
    switch (k) {
    case EXP_NAME:
        if (!plan_name_valid(value, strlen(value)))
            fail_at(st, st->line,
                    "[experiment] name '%s': must be 1 to %d letters, digits, '_', '.' or '-', "
                    "starting with a letter or digit",
                    value, PLAN_NAME_MAX);
        else
            snprintf(p->name, sizeof(p->name), "%s", value);
        break;
    case EXP_REPEAT:
        if (parse_int_range(value, 1, PLAN_MAX_REPEAT, &v, &why) != 0)
            fail_at(st, st->line,
                    "[experiment] repeat '%s': must be a whole number from 1 to %d (the runs "
                    "one compare group holds)",
                    value, PLAN_MAX_REPEAT);
        else
            p->repeat = (int)v;
        break;
    case EXP_ORDER:
        if (strcmp(value, "interleaved") == 0 || strcmp(value, "blocked") == 0)
            p->blocked = strcmp(value, "blocked") == 0;
        else
            fail_at(st, st->line, "[experiment] order '%s': must be interleaved or blocked", value);
        break;
    default: /* EXP_SETTLE */
        if (parse_duration_bounded_ns(value, NS_PER_S, &p->settle_ns, &why) != 0)
            fail_at(st, st->line, "[experiment] settle '%s': %s", value, why);
        else if (p->settle_ns > PLAN_MAX_SETTLE_NS)
            fail_at(st, st->line, "[experiment] settle '%s': must be at most 1h", value);
        break;
    }
}

/* An indented line that reads "KEY = ..." for a step key was meant as a key. */
static int looks_like_key(const char *text)
{
    for (int k = 0; k < STEP_NKEYS; k++) {
        size_t n = strlen(plan_step_keys[k]);
        const char *s = text + n;
        if (strncmp(text, plan_step_keys[k], n) != 0)
            continue;
        while (is_blank(*s))
            s++;
        if (*s == '=' || *s == ':')
            return k;
    }
    return -1;
}

static void step_value(struct parse_state *st, const char *key, const char *value)
{
    struct plan_step *s = st->step;
    int k = find_key(plan_step_keys, STEP_NKEYS, key);
    if (k < 0) {
        fail_at(st, st->line,
                "[step %s] %s: unknown key (keys: run, load, tune, before, after, save)", s->name,
                key);
        return;
    }
    const char *raw;
    size_t raw_n;
    raw_value(st, &raw, &raw_n);
    if ((k == STEP_BEFORE || k == STEP_AFTER) && (strlen(value) != raw_n)) {
        fail_at(st, st->line,
                "[step %s] %s: ' ;' starts a comment in an INI file and would cut the command "
                "there; write 'a; b' (no blank before ';'), 'a && b', or continue on an indented "
                "line",
                s->name, key);
        return;
    }
    struct plan_value *pv = &s->key[k];
    if (!st->continuation) {
        if (pv->text) {
            fail_at(st, st->line, "[step %s] %s: given twice (first at line %d)", s->name, key,
                    pv->line);
            return;
        }
        pv->line = st->line;
        pv->text = strdup(value);
        return;
    }
    int meant = looks_like_key(value);
    if (meant >= 0) {
        fail_at(st, st->line,
                "[step %s] %s: this indented line continues %s (libinih reads an indented line "
                "as a continuation); write %s at the start of its line",
                s->name, key, key, plan_step_keys[meant]);
        return;
    }
    if (k == STEP_TUNE) {
        fail_at(st, st->line,
                "[step %s] tune: an indented line continues it; the value takes "
                "one line",
                s->name);
        return;
    }
    /* run and load continue as more words, before and after as more lines. */
    size_t old = strlen(pv->text), add = strlen(value);
    char *joined = realloc(pv->text, old + add + 2);
    if (!joined)
        return;
    joined[old] = (k == STEP_BEFORE || k == STEP_AFTER) ? '\n' : ' ';
    memcpy(joined + old + 1, value, add + 1);
    pv->text = joined;
}

static int on_value(void *user, const char *section, const char *name, const char *value)
{
    struct parse_state *st = user;
    (void)section; /* read_line follows the sections itself */
    if (!st->continuation)
        snprintf(st->prev_key, sizeof(st->prev_key), "%s", name);
    if (st->err_line)
        return 1;
    switch (st->section) {
    case SEC_NONE:
        fail_at(st, st->line, "%s: a key before any section (the file starts with [experiment])",
                name);
        break;
    case SEC_EXPERIMENT:
        experiment_value(st, name, value);
        break;
    case SEC_STEP:
        step_value(st, name, value);
        break;
    case SEC_IGNORE:
        break;
    }
    return 1;
}

/* Builds a step's run argv: "run", its run words, --load KIND per load word,
 * --tune=TUNE. */
static void step_argv(struct parse_state *st, struct plan_step *s)
{
    char why[128];
    struct words run = {0}, load = {0};
    if (words_append(&s->argv, "run", why, sizeof(why)) != 0 ||
        words_split(s->key[STEP_RUN].text, &run, why, sizeof(why)) != 0) {
        fail_at(st, s->key[STEP_RUN].line, "[step %s] run: %s", s->name, why);
        return;
    }
    for (int i = 0; i < run.count; i++)
        if (words_append(&s->argv, run.word[i], why, sizeof(why)) != 0)
            fail_at(st, s->key[STEP_RUN].line, "[step %s] run: %s", s->name, why);
    words_free(&run);
    s->run_end = s->argv.count;
    const struct plan_value *lv = &s->key[STEP_LOAD];
    if (lv->text && words_split(lv->text, &load, why, sizeof(why)) != 0) {
        fail_at(st, lv->line, "[step %s] load: %s", s->name, why);
        return;
    }
    for (int i = 0; i < load.count; i++)
        if (words_append(&s->argv, "--load", why, sizeof(why)) != 0 ||
            words_append(&s->argv, load.word[i], why, sizeof(why)) != 0)
            fail_at(st, lv->line, "[step %s] load: %s", s->name, why);
    words_free(&load);
    s->load_end = s->argv.count;
    const struct plan_value *tv = &s->key[STEP_TUNE];
    if (tv->text) {
        char arg[512];
        snprintf(arg, sizeof(arg), "--tune=%s", tv->text);
        if (strpbrk(tv->text, " \t"))
            fail_at(st, tv->line, "[step %s] tune '%s': one profile or action list, without blanks",
                    s->name, tv->text);
        else if (words_append(&s->argv, arg, why, sizeof(why)) != 0)
            fail_at(st, tv->line, "[step %s] tune: %s", s->name, why);
    }
}

/* save = WORD...: which run outputs each run of the step writes. */
static void step_save(struct parse_state *st, struct plan_step *s)
{
    const struct plan_value *sv = &s->key[STEP_SAVE];
    char why[128];
    struct words w = {0};
    if (words_split(sv->text, &w, why, sizeof(why)) != 0) {
        fail_at(st, sv->line, "[step %s] save: %s", s->name, why);
        return;
    }
    for (int i = 0; i < w.count; i++) {
        int k = 0;
        while (k < PLAN_SAVE_KINDS && strcmp(w.word[i], plan_save_kinds[k].word) != 0)
            k++;
        if (k == PLAN_SAVE_KINDS)
            fail_at(st, sv->line,
                    "[step %s] save '%s': not an output of a run (outputs: samples, histogram, "
                    "intervals)",
                    s->name, w.word[i]);
        else if (s->save & (1u << k))
            fail_at(st, sv->line, "[step %s] save '%s': given twice", s->name, w.word[i]);
        else
            s->save |= 1u << k;
    }
    words_free(&w);
}

/* What the file must have once read: [experiment] with a name, two steps or
 * more, each with a non-empty run; values that are given are not empty. */
static void check_complete(struct parse_state *st)
{
    struct experiment_plan *p = st->plan;
    if (!st->experiment_seen) {
        fail_at(st, 0, "no [experiment] section (it names the experiment: name = ...)");
        return;
    }
    if (!p->name[0]) {
        fail_at(st, p->line, "[experiment]: name is required");
        return;
    }
    for (int i = 0; i < p->nsteps && !st->err_line; i++) {
        struct plan_step *s = &p->step[i];
        if (!s->key[STEP_RUN].text) {
            fail_at(st, s->line, "[step %s]: run is required (the options of jitterlab run)",
                    s->name);
            return;
        }
        for (int k = 0; k < STEP_NKEYS; k++)
            if (s->key[k].text && !s->key[k].text[strspn(s->key[k].text, " \t\n")])
                fail_at(st, s->key[k].line, "[step %s] %s: empty", s->name, plan_step_keys[k]);
    }
    if (!st->err_line && p->nsteps < 2)
        fail_at(st, 0, "an experiment needs at least two [step NAME] sections, found %d",
                p->nsteps);
    for (int i = 0; i < p->nsteps && !st->err_line; i++) {
        step_argv(st, &p->step[i]);
        if (p->step[i].key[STEP_SAVE].text)
            step_save(st, &p->step[i]);
    }
}

int plan_parse(const char *text, size_t len, const char *file, struct experiment_plan *plan,
               char *err, size_t errlen)
{
    memset(plan, 0, sizeof(*plan));
    plan->repeat = PLAN_DEFAULT_REPEAT;
    plan->settle_ns = NS_PER_S;
    struct parse_state st = {
        .file = file, .text = text, .len = len, .plan = plan, .err = err, .errlen = errlen};
    err[0] = '\0';
    int rc = ini_parse_stream(read_line, &st, on_value, &st);
    if (rc > 0 && (!st.err_line || st.err_line < 0 || rc < st.err_line)) {
        st.err_line = 0; /* libinih's error comes first */
        fail_at(&st, rc, "neither a [section] nor a key = value line");
    } else if (rc < 0 && !st.err_line) {
        fail_at(&st, 0, "cannot be parsed (out of memory)");
    }
    if (!st.err_line)
        check_complete(&st);
    if (!st.err_line) {
        plan->nruns = plan->nsteps * plan->repeat;
        plan->run = calloc((size_t)plan->nruns, sizeof(*plan->run));
        if (!plan->run)
            fail_at(&st, 0, "out of memory");
        else
            plan_order(plan->nsteps, plan->repeat, plan->blocked, plan->run);
    }
    if (st.err_line) {
        plan_free(plan);
        return -1;
    }
    return 0;
}

void plan_free(struct experiment_plan *plan)
{
    for (int i = 0; i < plan->nsteps; i++) {
        for (int k = 0; k < STEP_NKEYS; k++)
            free(plan->step[i].key[k].text);
        words_free(&plan->step[i].argv);
    }
    free(plan->run);
    memset(plan, 0, sizeof(*plan));
}

void plan_order(int nsteps, int repeat, bool blocked, struct plan_run *out)
{
    int i = 0;
    for (int outer = 0; outer < (blocked ? nsteps : repeat); outer++) {
        for (int inner = 0; inner < (blocked ? repeat : nsteps); inner++, i++) {
            out[i].order = i + 1;
            out[i].step = blocked ? outer : inner;
            out[i].repeat = (blocked ? inner : outer) + 1;
        }
    }
}
