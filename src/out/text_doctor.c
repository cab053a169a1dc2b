/*
 * The doctor's story in order: what stands in the way (causes ranked by
 * what they cost the budget), what fixes it (commands first, the words
 * around them wrapped to the width), whether the baseline met the budget.
 * Machine strings are shown in their terminal form.
 */
#include "out/text_doctor.h"

#include <string.h>

#include "common/safe_text.h"
#include "common/text.h"
#include "common/units.h"

#define WIDTH          100
#define FINDINGS_WIDTH (WIDTH - 73) /* what the table leaves the last column */

/* text (at most 1400 bytes) in its terminal form, wrapped at WIDTH: its
 * first line indented by indent blanks, the others by more */
static void wrapped_hanging(FILE *out, int indent, int more, const char *text)
{
    /* a thread's name in the text may hold any bytes: shown, never obeyed */
    char term[SAFE_TEXT_TERM_LEN(1400)];
    const char *p = safe_text_term(term, sizeof term, text);
    while (*p) {
        size_t room = WIDTH - (size_t)indent, n = strlen(p);
        if (n > room) {
            n = room;
            while (n > 0 && p[n] != ' ')
                n--;
            if (n == 0)
                n = room;
        }
        fprintf(out, "%*s%.*s\n", indent, "", (int)n, p);
        p += n;
        while (*p == ' ')
            p++;
        indent = more;
    }
}

static void wrapped(FILE *out, int indent, const char *text)
{
    wrapped_hanging(out, indent, indent, text);
}

static void cause_label(const struct doctor_cause *c, char *buf, size_t len)
{
    char name[128];
    safe_text_term(name, sizeof name, c->name);
    if (c->pid > 0 && c->policy[0] && strcmp(c->policy, "SCHED_OTHER") != 0)
        snprintf(buf, len, "%s %s/%lld %s %lld", c->kind, name, (long long)c->pid, c->policy,
                 (long long)c->priority);
    else if (c->pid > 0)
        snprintf(buf, len, "%s %s/%lld", c->kind, name, (long long)c->pid);
    else
        snprintf(buf, len, "%s %s", c->kind, name);
}

static void diagnosis(FILE *out, const struct doctor_diagnosis *d)
{
    const struct doctor_conclusion *c = &d->conclusion;
    fprintf(out, "\nDiagnosis: %llu of %llu samples over the budget%s\n",
            (unsigned long long)c->over_budget, (unsigned long long)c->samples,
            d->ncauses ? ", by what they cost it" : "");
    if (!d->ncauses)
        return;
    bool window = strcmp(d->method, "window") == 0;
    fprintf(out, "  %2s  %-40s %7s %6s %9s  %s\n", "#", "cause", "samples",
            window ? "share*" : "share", "max", "inspect findings");
    for (size_t i = 0; i < d->ncauses; i++) {
        const struct doctor_cause *k = &d->cause[i];
        char label[160], max[32], found[256] = "";
        cause_label(k, label, sizeof label);
        format_duration(k->max_latency_ns, max, sizeof max);
        /* as many as fit in the row, then how many more */
        for (size_t f = 0; f < k->nfindings; f++) {
            size_t need = strlen(found) + 2 + strlen(k->findings[f]) + 5;
            if (need > FINDINGS_WIDTH) {
                text_append(found, sizeof found, " +%zu", k->nfindings - f);
                break;
            }
            text_append(found, sizeof found, "%s%s", f ? ", " : "", k->findings[f]);
        }
        fprintf(out, "  %2zu  %-40.40s %7llu %5.1f%% %9s  %s\n", i + 1, label,
                (unsigned long long)k->count, 100.0 * k->share, max, found[0] ? found : "-");
    }
    fprintf(out, "  share: %s\n",
            window ? "*of the samples over the budget (the window method has no time per cause)"
                   : "of the latency beyond the budget of every sample over it");
}

static void prescriptions(FILE *out, const struct doctor_prescriptions *ps)
{
    if (!ps->count)
        return;
    fprintf(out, "\nPrescriptions\n");
    for (size_t i = 0; i < ps->count; i++) {
        const struct doctor_prescription *p = &ps->p[i];
        char head[400];
        bool boot = p->remedy->kind == REMEDY_BOOT || p->remedy->kind == REMEDY_KERNEL;
        snprintf(head, sizeof head, "%2zu. %s [%s] for %s", i + 1, p->remedy->id,
                 remedy_kind_name(p->remedy->kind), p->because);
        wrapped_hanging(out, 2, 6, head);
        wrapped(out, 6, p->advice);
        for (const char *line = p->command; *line;) {
            size_t n = strcspn(line, "\n");
            fprintf(out, "        %s%.*s\n", boot ? "boot: " : "$ ", (int)n, line);
            line += n + (line[n] == '\n');
        }
    }
    if (ps->boot_cmdline[0]) {
        fprintf(out, "\nKernel command line (add to GRUB_CMDLINE_LINUX in /etc/default/grub, "
                     "update-grub, reboot):\n");
        wrapped(out, 2, ps->boot_cmdline);
    }
}

static void quantile(char *buf, size_t len, const char *name, const struct doctor_quantile *q)
{
    char v[32];
    if (!q->known) {
        text_append(buf, len, "%s -", name);
        return;
    }
    format_duration(q->ns, v, sizeof v);
    text_append(buf, len, "%s %s", name, v);
    if (strcmp(name, "max") != 0)
        text_append(buf, len, " (%llu samples beyond)", (unsigned long long)q->beyond);
}

static void conclusion(FILE *out, const struct doctor_conclusion *c, const char *state)
{
    char budget[32], line[600] = "";
    format_duration(c->budget_ns, budget, sizeof budget);
    text_append(line, sizeof line, "Conclusion: budget %s %s in %s%s: ", budget,
                c->met ? "met" : "NOT met", state, c->interrupted ? " (stopped early)" : "");
    quantile(line, sizeof line, "p99.9", &c->p999);
    text_append(line, sizeof line, ", ");
    quantile(line, sizeof line, "p99.99", &c->p9999);
    text_append(line, sizeof line, ", ");
    quantile(line, sizeof line, "max", &c->max);
    text_append(line, sizeof line,
                "; %llu samples in %.1f s, %llu over the budget, %llu missed periods",
                (unsigned long long)c->samples, c->measured_s, (unsigned long long)c->over_budget,
                (unsigned long long)c->missed);
    fprintf(out, "\n");
    wrapped(out, 0, line);
}

static void tail_line(FILE *out, const char *arm, const struct treat_tail *t)
{
    char p999[32] = "-", max[32] = "-", rate[32] = "-";
    if (t->p999_ns >= 0)
        format_duration(t->p999_ns, p999, sizeof p999);
    if (t->max_ns >= 0)
        format_duration(t->max_ns, max, sizeof max);
    if (t->over_rate >= 0)
        snprintf(rate, sizeof rate, "%.3f%%", 100.0 * t->over_rate);
    fprintf(out, "      %-7s over the budget %8s  p99.9 %10s  max %10s  (%llu samples)\n", arm,
            rate, p999, max, (unsigned long long)t->samples);
}

static void treatment(FILE *out, const struct doctor_treatment_report *tr, size_t i)
{
    const struct treatment *t = &tr->outcome->t[i];
    char head[300], on[48] = "the baseline";
    if (t->on_top_of >= 0)
        snprintf(on, sizeof on, "treatment %d kept", t->on_top_of + 1);
    snprintf(head, sizeof head, "%2zu. %s (prescription %zu): %s", i + 1, t->action,
             t->prescription + 1, treat_status_name(t->status));
    if (t->status != TREAT_NOT_TRIED && t->status != TREAT_NOTHING)
        text_append(head, sizeof head, "; %d change%s%s%s", t->changes, t->changes == 1 ? "" : "s",
                    t->rounds ? ", measured on " : "", t->rounds ? on : "");
    wrapped_hanging(out, 2, 6, head);
    if (t->verdict != VERDICT_NA) {
        tail_line(out, "before", &t->before);
        tail_line(out, "after", &t->after);
        char v[300];
        snprintf(v, sizeof v,
                 "compare over %d round%s: %s (over-budget rate %s, p99.9 %s, max %s): %s",
                 t->rounds, t->rounds == 1 ? "" : "s", verdict_name(t->verdict),
                 verdict_name(t->tail_verdict[0]), verdict_name(t->tail_verdict[1]),
                 verdict_name(t->tail_verdict[2]),
                 t->status == TREAT_KEPT ? "kept, the new baseline" : "put back");
        wrapped(out, 6, v);
    }
    if (t->why[0])
        wrapped(out, 6, t->why);
}

static void treatments(FILE *out, const struct doctor_report *r)
{
    const struct doctor_treatment_report *tr = r->treatment;
    const struct treat_outcome *o = tr->outcome;
    fprintf(out,
            "\nTreatment: %zu runtime remed%s, one at a time in rank order, A/B %d round%s each\n",
            o->n, o->n == 1 ? "y" : "ies", tr->repeat, tr->repeat == 1 ? "" : "s");
    for (size_t i = 0; i < o->n; i++)
        treatment(out, tr, i);
    if (tr->stopped_in)
        fprintf(out, "  stopped in %s%s: %s\n",
                strncmp(tr->stopped_in, "treatment", 9) == 0 ? "" : "the ", tr->stopped_in,
                strncmp(tr->stopped_in, "treatment", 9) == 0
                    ? "the change under test was put back, the changes kept stay"
                    : "the changes kept stay");
    char kept[400] = "", back[400] = "";
    for (size_t i = 0; i < o->n; i++) {
        const struct treatment *t = &o->t[i];
        if (t->status == TREAT_KEPT)
            text_append(kept, sizeof kept, "%s%s", kept[0] ? ", " : "", t->action);
        else if (t->status == TREAT_PUT_BACK || t->status == TREAT_NO_EFFECT ||
                 t->status == TREAT_FAILED || t->status == TREAT_STOPPED)
            text_append(back, sizeof back, "%s%s (%s)", back[0] ? ", " : "", t->action,
                        t->status == TREAT_PUT_BACK ? verdict_name(t->verdict)
                                                    : treat_status_name(t->status));
    }
    char line[2000];
    snprintf(line, sizeof line, "Kept: %s%s%s%s. Put back: %s.", kept[0] ? kept : "nothing",
             kept[0] ? " (undo: jitterlab tune restore; journal " : "", kept[0] ? tr->journal : "",
             kept[0] ? ")" : "", back[0] ? back : "nothing");
    fprintf(out, "\n");
    wrapped(out, 0, line);
    /* what no treatment can do (a reboot or a person), and the tune
     * remedies left out (--only, or held by a process: pm-qos) */
    char rest[1200] = "", untried[600] = "";
    for (size_t i = 0; i < r->prescriptions->count; i++) {
        const struct doctor_prescription *p = &r->prescriptions->p[i];
        bool treated = false;
        for (size_t k = 0; k < o->n; k++)
            treated |= o->t[k].prescription == i;
        if (treated || p->remedy->kind == REMEDY_NONE)
            continue;
        char *list = p->remedy->kind == REMEDY_TUNE ? untried : rest;
        size_t len = p->remedy->kind == REMEDY_TUNE ? sizeof untried : sizeof rest;
        text_append(list, len, "%s%zu %s", list[0] ? ", " : "", i + 1, p->remedy->id);
    }
    if (untried[0]) {
        snprintf(line, sizeof line, "Not tried: prescriptions %s", untried);
        wrapped(out, 0, line);
    }
    if (rest[0]) {
        snprintf(line, sizeof line, "Remains (a reboot or a person): prescriptions %s", rest);
        wrapped(out, 0, line);
    }
}

void text_doctor_report(FILE *out, const struct doctor_report *r)
{
    const struct doctor_conclusion *c = &r->diagnosis->conclusion;
    char budget[32];
    format_duration(c->budget_ns, budget, sizeof budget);
    char head[1400] = "";
    text_append(head, sizeof head, "jitterlab doctor: CPU%s %s, budget %s",
                strpbrk(r->cpus, ",-") ? "s" : "", r->cpus, budget);
    if (r->baseline && !r->baseline_command)
        text_append(head, sizeof head, ", from %s", r->baseline);
    wrapped(out, 0, head);
    if (r->baseline_command) { /* a command line of its own, continued under itself */
        char line[1400] = "";
        text_append(line, sizeof line, "baseline: %s", r->baseline_command);
        wrapped_hanging(out, 2, 12, line);
    }
    diagnosis(out, r->diagnosis);
    prescriptions(out, r->prescriptions);
    if (!r->treatment) {
        conclusion(out, c, "the baseline");
        return;
    }
    treatments(out, r);
    if (r->treatment->final)
        conclusion(out, r->treatment->final, "the final state");
    else
        conclusion(out, c, "the baseline (the final state was not measured)");
}
