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
