/*
 * Plans as data: the list of changes an apply journals and writes (one per
 * file, a later one for the same file replacing its new value), the notes of
 * what an action found nothing to do about, the comparison of a value read
 * back with the one written, and the allow-list of paths each action may
 * write. tune.c does the journal and the writes; tune_actions.c the plans.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/tune.h"

static char *dup_or_null(const char *s, bool *oom)
{
    char *d = strdup(s ? s : "");
    if (!d)
        *oom = true;
    return d;
}

static bool replace_string(char **slot, const char *value)
{
    char *d = strdup(value);
    if (!d)
        return false;
    free(*slot);
    *slot = d;
    return true;
}

static void change_free(struct tune_change *c)
{
    free(c->path);
    free(c->what);
    free(c->old_value);
    free(c->new_value);
}

int tune_plan_find(const struct tune_plan *plan, const char *path)
{
    for (int i = 0; i < plan->n; i++)
        if (strcmp(plan->change[i].path, path) == 0)
            return i;
    return -1;
}

void tune_plan_add(struct tune_plan *plan, const char *action, const char *path,
                   const char *old_value, const char *new_value, const char *what)
{
    int same = tune_plan_find(plan, path);
    if (same >= 0) { /* one change per file */
        if (!replace_string(&plan->change[same].new_value, new_value))
            plan->out_of_memory = true;
        return;
    }
    if (plan->n == plan->cap) {
        int cap = plan->cap ? plan->cap * 2 : 32;
        struct tune_change *grown = realloc(plan->change, (size_t)cap * sizeof(*grown));
        if (!grown) {
            plan->out_of_memory = true;
            return;
        }
        plan->change = grown;
        plan->cap = cap;
    }
    struct tune_change *c = &plan->change[plan->n];
    memset(c, 0, sizeof(*c));
    bool oom = false;
    snprintf(c->action, sizeof(c->action), "%s", action);
    c->path = dup_or_null(path, &oom);
    c->old_value = dup_or_null(old_value, &oom);
    c->new_value = dup_or_null(new_value, &oom);
    c->what = dup_or_null(what, &oom);
    if (oom) {
        change_free(c);
        plan->out_of_memory = true;
        return;
    }
    plan->n++;
}

void tune_plan_add_op(struct tune_plan *plan, enum tune_op op, const char *action, const char *path,
                      const char *what)
{
    if (tune_plan_find(plan, path) >= 0)
        return; /* journaled already: its undo stays as it was */
    tune_plan_add(plan, action, path, "", "", what);
    int k = tune_plan_find(plan, path);
    if (k >= 0)
        plan->change[k].op = op;
}

static const char *const op_names[] = {"write", "mkdir", "mount"};

const char *tune_op_name(enum tune_op op)
{
    return (unsigned)op < 3 ? op_names[op] : "?";
}

int tune_op_from_name(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(name, op_names[i]) == 0)
            return i;
    return -1;
}

#define RESCTRL_DIR "/sys/fs/resctrl"

const char *tune_op_refusal(const char *action, enum tune_op op, const char *path)
{
    if (op == TUNE_OP_WRITE)
        return tune_path_refusal(action, path);
    if (strcmp(action, "cache-partition") != 0)
        return "only cache-partition makes directories or mounts";
    if (op == TUNE_OP_MOUNT)
        return strcmp(path, RESCTRL_DIR) == 0 ? NULL : "a mount other than " RESCTRL_DIR;
    const char *name = path + strlen(RESCTRL_DIR "/");
    if (strncmp(path, RESCTRL_DIR "/", strlen(RESCTRL_DIR "/")) != 0 || !tune_group_name_ok(name))
        return "not a resctrl group right below " RESCTRL_DIR;
    return NULL;
}

bool tune_group_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 48 || strcmp(name, "info") == 0 || strcmp(name, "mon_groups") == 0 ||
        strcmp(name, "mon_data") == 0)
        return false;
    return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

void tune_plan_remove(struct tune_plan *plan, int k)
{
    struct tune_change *c = &plan->change[k];
    change_free(c);
    memmove(c, c + 1, (size_t)(plan->n - k - 1) * sizeof(*c));
    plan->n--;
}

void tune_plan_note(struct tune_plan *plan, const char *fmt, ...)
{
    if (plan->nnotes >= (int)(sizeof(plan->note) / sizeof(plan->note[0])))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(plan->note[plan->nnotes++], sizeof(plan->note[0]), fmt, ap);
    va_end(ap);
}

void tune_plan_free(struct tune_plan *plan)
{
    for (int i = 0; i < plan->n; i++)
        change_free(&plan->change[i]);
    free(plan->change);
    memset(plan, 0, sizeof(*plan));
}

int tune_plan_build(const struct tune_request *rq, struct tune_plan *plan)
{
    memset(plan, 0, sizeof(*plan));
    for (int i = 0; i < tune_action_count; i++)
        if (rq->actions & (1u << i))
            tune_actions[i].plan(rq, plan);
    if (plan->refusal[0])
        return -2;
    return plan->out_of_memory ? -1 : 0;
}

bool tune_value_matches(const char *written, const char *read_back)
{
    const char *from = read_back, *to;
    const char *open = strchr(read_back, '[');
    const char *close = open ? strchr(open, ']') : NULL;
    if (open && close) { /* "always [madvise] never" */
        from = open + 1;
        to = close;
    } else {
        from += strspn(from, " \t\n");
        to = from + strlen(from);
        while (to > from && (to[-1] == ' ' || to[-1] == '\t' || to[-1] == '\n'))
            to--;
    }
    size_t n = (size_t)(to - from);
    return strlen(written) == n && memcmp(written, from, n) == 0;
}

/* The next "RES:entries" line of a schemata text, trimmed; NULL at the end. */
static const char *schemata_line(const char *p, char *line, size_t len)
{
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        const char *next = p + n + (eol ? 1 : 0);
        while (n && (*p == ' ' || *p == '\t')) {
            p++;
            n--;
        }
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
            n--;
        if (n && n < len) {
            memcpy(line, p, n);
            line[n] = '\0';
            return next;
        }
        p = next;
    }
    return NULL;
}

/* The value of domain id in entries "0=fff;1=ff0" (hex), or -1. */
static long long schemata_entry(const char *entries, long id)
{
    for (const char *e = entries; e && *e; e = strchr(e, ';') ? strchr(e, ';') + 1 : NULL) {
        char *end;
        long k = strtol(e, &end, 10);
        if (end != e && *end == '=' && k == id)
            return strtoll(end + 1, NULL, 16);
    }
    return -1;
}

/* Every domain of every line written holds that value in read_back. */
static bool schemata_matches(const char *written, const char *read_back)
{
    char want[1024], have[1024];
    bool any = false;
    for (const char *w = written; (w = schemata_line(w, want, sizeof want)) != NULL;) {
        char *colon = strchr(want, ':');
        if (!colon)
            return false;
        size_t res_len = (size_t)(colon - want) + 1;
        bool found = false;
        for (const char *b = read_back; !found && (b = schemata_line(b, have, sizeof have));)
            found = strncmp(want, have, res_len) == 0;
        if (!found)
            return false;
        for (const char *e = colon + 1; e && *e; e = strchr(e, ';') ? strchr(e, ';') + 1 : NULL) {
            char *end;
            long id = strtol(e, &end, 10);
            if (end == e || *end != '=' ||
                schemata_entry(have + res_len, id) != strtoll(end + 1, NULL, 16))
                return false;
        }
        any = true;
    }
    return any;
}

bool tune_value_matches_at(const char *path, const char *written, const char *read_back)
{
    size_t n = strlen(path);
    if (strncmp(path, RESCTRL_DIR "/", strlen(RESCTRL_DIR "/")) == 0 && n >= 9 &&
        strcmp(path + n - 9, "/schemata") == 0)
        return schemata_matches(written, read_back);
    return tune_value_matches(written, read_back);
}

const char *tune_path_refusal(const char *action, const char *path)
{
    int idx = tune_action_find(action);
    if (idx < 0)
        return "not an action of jitterlab tune";
    if (path[0] != '/')
        return "not an absolute path";
    for (const char *p = path; (p = strchr(p, '/')) != NULL;) {
        p++;
        size_t len = strcspn(p, "/");
        if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
            return "a '.' or '..' component";
        if (len == 0 && *p)
            return "an empty component";
    }
    for (const char *const *w = tune_actions[idx].writes; w && *w; w++) {
        size_t len = strlen(*w);
        bool dir = len && (*w)[len - 1] == '/';
        if (dir ? strncmp(path, *w, len) == 0 && path[len] : strcmp(path, *w) == 0)
            return NULL;
    }
    return "outside what this action writes";
}
