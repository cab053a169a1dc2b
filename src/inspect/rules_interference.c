/*
 * The interference rules: device interrupts and threads that may run on the
 * target CPUs.
 * One function and one table entry per finding id; rules_common.h has the
 * helpers, inspect_rules.c joins the sections in report order.
 */
#include "inspect/rules_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keeps the busiest few lines as evidence, by insertion into a short list. */
static void keep_busiest(const struct irq_table *t, int i, int *order, int *norder)
{
    int pos = *norder;
    while (pos > 0 && t->irq[order[pos - 1]].target_total < t->irq[i].target_total)
        pos--;
    if (pos >= INSPECT_MAX_EVIDENCE)
        return;
    int last = *norder < INSPECT_MAX_EVIDENCE ? *norder : INSPECT_MAX_EVIDENCE - 1;
    memmove(&order[pos + 1], &order[pos], (size_t)(last - pos) * sizeof order[0]);
    order[pos] = i;
    if (*norder < INSPECT_MAX_EVIDENCE)
        (*norder)++;
}

static void irq_evidence(struct inspect_finding *f, const struct irq_line *irq)
{
    bool pending = irq->placement == IRQ_MOVE_PENDING;
    char path[96];
    snprintf(path, sizeof path, "/proc/irq/%s/%s", irq->id,
             pending ? "effective_affinity_list" : "smp_affinity_list");
    rule_evidence(f, path, "requested %.40s, effective %.40s: %s (%.50s; %llu on the target CPUs)",
                  irq->smp_affinity_list[0] ? irq->smp_affinity_list : "?",
                  irq->effective_affinity_list[0] ? irq->effective_affinity_list : "not shown",
                  pending ? "kernel has not moved it yet" : "tune moves it", irq->desc,
                  (unsigned long long)irq->target_total);
}

/*
 * Counts the device IRQs by irq_placement_of, the model tune's irq-affinity
 * plans with: the ones whose requested mask includes a target are what
 * `tune apply --only irq-affinity` moves; the ones whose move is pending in
 * the kernel have nothing left to write.
 */
static void rule_irq_on_rt_cpu(struct rule_ctx *c)
{
    const struct irq_table *t = &c->s->irqs;
    if (t->nirq == 0) {
        rule_unknown(c, "/proc/interrupts unreadable or empty");
        return;
    }
    int allowed = 0, pending = 0;
    uint64_t handled = 0;
    int order[INSPECT_MAX_EVIDENCE];
    int norder = 0;
    for (int i = 0; i < t->nirq; i++) {
        const struct irq_line *irq = &t->irq[i];
        if (!irq->numeric || irq->placement == IRQ_OFF_TARGETS)
            continue;
        allowed += irq->placement == IRQ_ALLOWED_ON_TARGET;
        pending += irq->placement == IRQ_MOVE_PENDING;
        handled += irq->target_total;
        keep_busiest(t, i, order, &norder);
    }
    if (allowed + pending == 0) {
        struct inspect_finding *f = rule_emit(c, INSPECT_OK, c->targets);
        rule_evidence(f, "/proc/irq/*/smp_affinity_list", "no device IRQ includes a target CPU");
        rule_effect(f, "device interrupts are kept off the target CPUs");
        rule_fix(f, "nothing to do");
        return;
    }
    struct cpulist *rest = malloc(sizeof *rest);
    if (rest)
        cpulist_subtract(&c->s->base.online, &c->s->targets, rest);
    bool nowhere = !rest || rest->count == 0; /* tune's "nowhere to move IRQs" */
    free(rest);
    int moves = nowhere ? 0 : allowed;
    struct inspect_finding *f = rule_emit(c, INSPECT_WARNING, c->targets);
    for (int k = 0; k < norder && k < 8; k++)
        irq_evidence(f, &t->irq[order[k]]);
    char phrase[280];
    rule_cpus_phrase(c->targets, phrase, sizeof phrase);
    int n = allowed + pending;
    if (allowed > 0) {
        char more[96] = "";
        if (pending)
            snprintf(more, sizeof more,
                     "; %d more requested elsewhere: the kernel has not moved "
                     "%s yet",
                     pending, pending == 1 ? "it" : "them");
        rule_effect(f,
                    "%d device interrupt%s can arrive on %s (%llu handled there since boot); "
                    "tune moves %d of them (requested affinity includes a target)%s; each runs "
                    "its handler, on PREEMPT_RT wakes its IRQ thread, ahead of the real-time "
                    "thread",
                    n, n == 1 ? "" : "s", phrase, (unsigned long long)handled, moves, more);
        if (nowhere)
            rule_fix(f, "every online CPU is a target: nowhere to move IRQs; leave a "
                        "housekeeping CPU out of the targets");
        else
            rule_fix_tune(c, f, 0,
                          "moves %d IRQ%s: writes the housekeeping CPUs to "
                          "/proc/irq/N/smp_affinity_list; managed IRQs refuse",
                          moves, moves == 1 ? "" : "s");
        rule_fix_more(f, "; boot: irqaffinity=<housekeeping CPUs> and isolcpus=managed_irq,...");
        return;
    }
    rule_effect(f,
                "%d device interrupt%s still arrive%s on %s (%llu handled there since boot) "
                "although the requested affinity excludes it: the kernel has not moved %s yet "
                "(it does at the next interrupt); one that keeps arriving there after a move is "
                "usually a managed IRQ; tune moves 0 of them",
                n, n == 1 ? "" : "s", n == 1 ? "s" : "", phrase, (unsigned long long)handled,
                n == 1 ? "it" : "them");
    rule_fix(f, "nothing left for tune to write; check again after some interrupts; a managed IRQ "
                "moves only with boot: isolcpus=managed_irq,<CPUs>");
}

static void rule_threads_on_rt_cpu(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    const struct task_table *t = &s->tasks;
    if (t->scanned == 0) {
        rule_unknown(c, "no /proc/PID/task/TID/{stat,status} readable");
        return;
    }
    int allowed = 0, running = 0, kernel = 0, pinned_apps = 0;
    const struct task_info *examples[6];
    int nex = 0;
    for (int i = 0; i < t->nkept; i++) {
        const struct task_info *k = &t->task[i];
        if (k->kernel_thread && k->per_cpu)
            continue; /* per-CPU kthreads (ksoftirqd/N, migration/N) belong there */
        if (!k->kernel_thread && k->only_targets) {
            pinned_apps++; /* the real-time application itself, most likely */
            continue;
        }
        allowed++;
        kernel += k->kernel_thread;
        if (k->running_on_target) {
            running++;
            if (nex < 6)
                examples[nex++] = k;
        }
    }
    bool isolated = s->base.isolated_list.count > 0;
    enum inspect_severity sev = INSPECT_OK;
    if (allowed > 0)
        sev = isolated && running > 0 ? INSPECT_WARNING : INSPECT_INFO;
    struct inspect_finding *f = rule_emit(c, sev, c->targets);
    for (int i = 0; i < nex; i++) {
        char path[96];
        snprintf(path, sizeof path, "/proc/%d/task/%d/stat", examples[i]->pid, examples[i]->tid);
        rule_evidence(f, path, "%s, %s thread, last ran on CPU %d, allowed %s", examples[i]->comm,
                      examples[i]->kernel_thread ? "kernel" : "user", examples[i]->processor,
                      examples[i]->cpus_allowed);
    }
    char phrase[280];
    rule_cpus_phrase(c->targets, phrase, sizeof phrase);
    if (allowed == 0)
        rule_effect(f, "only per-CPU kernel threads%s may run on %s",
                    pinned_apps ? " and threads "
                                  "pinned there"
                                : "",
                    phrase);
    else
        rule_effect(f, "%d thread%s (%d kernel) of %d may run on %s and %d last ran there%s",
                    allowed, allowed == 1 ? "" : "s", kernel, t->scanned, phrase, running,
                    isolated ? "" : " (no isolation: see no-isolation)");
    rule_fix(f,
             "boot: isolcpus=domain,managed_irq,<CPUs> nohz_full=<CPUs> (unbound kernel threads "
             "then stay on the housekeeping CPUs); user threads: taskset -a -p -c <housekeeping> "
             "PID, or a cpuset");
    (void)pinned_apps;
}

static const struct inspect_rule rules[] = {
    {"irq-on-rt-cpu", rule_irq_on_rt_cpu, {"irq-affinity"}},
    {"threads-on-rt-cpu", rule_threads_on_rt_cpu, {NULL}},
};

const struct rule_section rules_interference = {"interference", rules,
                                                sizeof rules / sizeof rules[0]};
