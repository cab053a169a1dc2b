/*
 * The helpers every inspect rule section uses to fill a finding: evidence,
 * effect and fix text, the "unknown" note, CPU list phrases. The fix line of
 * a tune action is built here from the action id in the rule's table entry,
 * the one place that spells the tune command.
 */
#include "inspect/rules_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"

struct inspect_finding *rule_emit(struct rule_ctx *c, enum inspect_severity sev, const char *cpus)
{
    if (c->out->count >= INSPECT_MAX_FINDINGS)
        return NULL;
    struct inspect_finding *f = &c->out->finding[c->out->count++];
    memset(f, 0, sizeof *f);
    f->id = c->id;
    f->area = c->area;
    f->severity = sev;
    snprintf(f->cpus, sizeof f->cpus, "%s", cpus ? cpus : "");
    return f;
}

void rule_unbounded(struct inspect_finding *f)
{
    if (f)
        f->unbounded = true;
}

void rule_evidence(struct inspect_finding *f, const char *path, const char *fmt, ...)
{
    if (!f || f->nevidence >= INSPECT_MAX_EVIDENCE)
        return;
    struct inspect_evidence *e = &f->evidence[f->nevidence++];
    snprintf(e->path, sizeof e->path, "%s", path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->value, sizeof e->value, fmt, ap);
    va_end(ap);
}

void rule_effect(struct inspect_finding *f, const char *fmt, ...)
{
    if (!f)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->effect, sizeof f->effect, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 2, 0))) static void fix_append_v(struct inspect_finding *f,
                                                               const char *fmt, va_list ap)
{
    size_t used = strlen(f->fix);
    if (used < sizeof f->fix)
        vsnprintf(f->fix + used, sizeof f->fix - used, fmt, ap);
}

void rule_fix(struct inspect_finding *f, const char *fmt, ...)
{
    if (!f)
        return;
    f->fix[0] = '\0';
    va_list ap;
    va_start(ap, fmt);
    fix_append_v(f, fmt, ap);
    va_end(ap);
}

void rule_fix_more(struct inspect_finding *f, const char *fmt, ...)
{
    if (!f)
        return;
    va_list ap;
    va_start(ap, fmt);
    fix_append_v(f, fmt, ap);
    va_end(ap);
}

/* The command part of a tune fix; the first action also names the finding's
 * tune_action. */
static void fix_tune_command(struct rule_ctx *c, struct inspect_finding *f, int k)
{
    const char *id = k >= 0 && k < INSPECT_MAX_TUNE_ACTIONS ? c->rule->tune_action[k] : NULL;
    if (!id)
        id = "(none)"; /* a rule asked for an action its table entry lacks */
    if (!f->tune_action) {
        /* tune plans for CPUs and a budget (idle states by their exit
         * latency): the ones this report judged, not tune's defaults */
        char budget_arg[32];
        format_duration_arg(c->budget_ns, budget_arg, sizeof budget_arg);
        f->tune_action = id;
        rule_fix_more(f, "jitterlab tune apply -a %s --budget %s --only %s", c->targets, budget_arg,
                      id);
    } else {
        rule_fix_more(f, ", or --only %s", id);
    }
}

void rule_fix_tune(struct rule_ctx *c, struct inspect_finding *f, int k, const char *fmt, ...)
{
    if (!f)
        return;
    fix_tune_command(c, f, k);
    rule_fix_more(f, " (");
    va_list ap;
    va_start(ap, fmt);
    fix_append_v(f, fmt, ap);
    va_end(ap);
    rule_fix_more(f, ")");
}

void rule_fix_tune_plain(struct rule_ctx *c, struct inspect_finding *f, int k)
{
    if (f)
        fix_tune_command(c, f, k);
}

void rule_unknown(struct rule_ctx *c, const char *fmt, ...)
{
    if (c->out->nunknown >= INSPECT_MAX_FINDINGS)
        return;
    struct inspect_unknown *u = &c->out->unknown[c->out->nunknown++];
    u->id = c->id;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->why, sizeof u->why, fmt, ap);
    va_end(ap);
}

void rule_format_cpus(const struct cpulist *l, char *buf, size_t len)
{
    if (cpulist_format(l, buf, len) != 0)
        snprintf(buf, len, "(many)");
}

void rule_cpus_phrase(const char *list, char *buf, size_t len)
{
    bool one = list[0] && !strpbrk(list, ",-");
    snprintf(buf, len, "CPU%s %s", one ? "" : "s", list);
}

void rule_cpus_texts(const struct cpulist *l, char *cpus, size_t cpus_len, char *phrase,
                     size_t phrase_len)
{
    rule_format_cpus(l, cpus, cpus_len);
    rule_cpus_phrase(cpus, phrase, phrase_len);
}

struct cpulist *rule_new_list(void)
{
    return calloc(1, sizeof(struct cpulist));
}
