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

void text_doctor_report(FILE *out, const struct doctor_report *r)
{
    const struct doctor_conclusion *c = &r->diagnosis->conclusion;
    char budget[32];
    format_duration(c->budget_ns, budget, sizeof budget);
    char head[1400] = "";
    text_append(head, sizeof head, "jitterlab doctor: CPU%s %s, budget %s",
                strpbrk(r->cpus, ",-") ? "s" : "", r->cpus, budget);
    if (r->baseline_command)
        text_append(head, sizeof head, ", baseline: %s", r->baseline_command);
    else if (r->baseline)
        text_append(head, sizeof head, ", from %s", r->baseline);
    wrapped(out, 0, head);
    diagnosis(out, r->diagnosis);
    prescriptions(out, r->prescriptions);
    char line[600] = "";
    text_append(line, sizeof line, "Conclusion: budget %s %s in the baseline%s: ", budget,
                c->met ? "met" : "NOT met", c->interrupted ? " (stopped early)" : "");
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
