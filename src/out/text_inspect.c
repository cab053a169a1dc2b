/*
 * Prints the inspect report. Findings arrive sorted worst first; areas are
 * printed in the order in which their first (worst) finding appears, so the
 * area that holds the worst problem leads. Ok findings take one line each,
 * the others their effect, evidence and fix.
 */
#include "out/text_inspect.h"

#include <string.h>

#include "common/safe_text.h"

#define RED    "\033[1;31m"
#define YELLOW "\033[33m"
#define CYAN   "\033[36m"
#define GREEN  "\033[32m"
#define BOLD   "\033[1m"
#define RESET  "\033[0m"

static const char *severity_colour(enum inspect_severity sev)
{
    switch (sev) {
    case INSPECT_CRITICAL:
        return RED;
    case INSPECT_WARNING:
        return YELLOW;
    case INSPECT_INFO:
        return CYAN;
    case INSPECT_OK:
        break;
    }
    return GREEN;
}

/* Findings quote what the machine holds (thread and IRQ names, file
 * contents): shown in the terminal form, so that no byte of theirs is a
 * control sequence. */
static void put_term(FILE *out, const char *before, const char *s)
{
    char buf[SAFE_TEXT_TERM_LEN(sizeof((struct inspect_finding *)0)->fix)];
    fprintf(out, "%s%s", before, safe_text_term(buf, sizeof buf, s));
}

static void print_finding(FILE *out, const struct inspect_finding *f, bool colour)
{
    const char *name = inspect_severity_name(f->severity);
    char label[16];
    snprintf(label, sizeof label, "%s", name);
    if (f->severity == INSPECT_CRITICAL)
        snprintf(label, sizeof label, "CRITICAL");
    fprintf(out, "  %s%-8s%s  %s", colour ? severity_colour(f->severity) : "", label,
            colour ? RESET : "", f->id);
    if (f->cpus[0])
        fprintf(out, " (CPU%s %s)", strpbrk(f->cpus, ",-") ? "s" : "", f->cpus);
    if (f->severity == INSPECT_OK) {
        put_term(out, ": ", f->effect);
        fputc('\n', out);
        return;
    }
    put_term(out, "\n            ", f->effect);
    for (int i = 0; i < f->nevidence; i++) {
        put_term(out, "\n            ", f->evidence[i].path);
        put_term(out, " = ", f->evidence[i].value);
    }
    put_term(out, "\n            fix: ", f->fix);
    fputc('\n', out);
}

static void print_header(FILE *out, const struct inspect_system *s,
                         const struct inspect_findings *f)
{
    char cpus[256], budget[32];
    if (cpulist_format(&s->targets, cpus, sizeof cpus) != 0)
        snprintf(cpus, sizeof cpus, "(many)");
    snprintf(budget, sizeof budget, "%.10g µs", (double)f->budget_ns / 1000.0);
    fprintf(out, "jitterlab inspect: CPU%s %s, budget %s\n", strpbrk(cpus, ",-") ? "s" : "", cpus,
            budget);
    const struct cpufreq_policy_info *p =
        s->targets.count ? cpufreq_policy_of(&s->cpufreq, s->targets.cpu[0]) : NULL;
    char preempt[64];
    system_info_preempt_label(&s->base, preempt, sizeof preempt);
    fprintf(out, "kernel %s (%s), cpuidle %s/%s, cpufreq %s%s%s, clocksource %s%s%s\n",
            s->base.kernel[0] ? s->base.kernel : "?", preempt,
            s->cpuidle.driver[0] ? s->cpuidle.driver : "?",
            s->cpuidle.governor[0] ? s->cpuidle.governor : "?", p ? p->driver : "none",
            p ? " " : "", p ? p->governor : "", s->base.clocksource[0] ? s->base.clocksource : "?",
            s->base.hypervisor[0] ? ", hypervisor " : "", s->base.hypervisor);
}

void text_inspect_report(FILE *out, const struct inspect_system *s,
                         const struct inspect_findings *f, bool colour)
{
    print_header(out, s, f);
    const char *done[INSPECT_MAX_FINDINGS];
    int ndone = 0;
    for (int i = 0; i < f->count; i++) {
        const char *area = f->finding[i].area;
        bool seen = false;
        for (int k = 0; k < ndone; k++)
            seen = seen || strcmp(done[k], area) == 0;
        if (seen)
            continue;
        done[ndone++] = area;
        fprintf(out, "\n%s%s%s\n", colour ? BOLD : "", area, colour ? RESET : "");
        for (int k = i; k < f->count; k++)
            if (strcmp(f->finding[k].area, area) == 0)
                print_finding(out, &f->finding[k], colour);
    }
    if (f->nunknown > 0) {
        fprintf(out, "\nunknown (not checked)\n");
        for (int i = 0; i < f->nunknown; i++) {
            put_term(out, "  ", f->unknown[i].id);
            put_term(out, ": ", f->unknown[i].why);
            fputc('\n', out);
        }
    }
    if (s->notes.count > 0) {
        fprintf(out, "\nunreadable (ignored)\n");
        for (int i = 0; i < s->notes.count; i++) {
            put_term(out, "  ", s->notes.note[i].path);
            put_term(out, ": ", s->notes.note[i].reason);
            fputc('\n', out);
        }
    }
    static const char *const shout[] = {"READY", "UNVERIFIED", "NOT READY"};
    static const char *const paint[] = {GREEN, YELLOW, RED};
    fprintf(out, "\n%sverdict: %s%s\n%s\n", colour ? paint[f->verdict] : "", shout[f->verdict],
            colour ? RESET : "", f->verdict_reason);
}
