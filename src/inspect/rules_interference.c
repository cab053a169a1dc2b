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

static void rule_irq_on_rt_cpu(struct rule_ctx *c)
{
    const struct irq_table *t = &c->s->irqs;
    if (t->nirq == 0) {
        rule_unknown(c, "/proc/interrupts unreadable or empty");
        return;
    }
    int n = 0;
    uint64_t handled = 0;
    int order[INSPECT_MAX_EVIDENCE];
    int norder = 0;
    for (int i = 0; i < t->nirq; i++) {
        const struct irq_line *irq = &t->irq[i];
        if (!irq->numeric || !irq->affine_to_target)
            continue;
        n++;
        handled += irq->target_total;
        /* keep the busiest few as evidence, by insertion into a short list */
        int pos = norder;
        while (pos > 0 && t->irq[order[pos - 1]].target_total < irq->target_total)
            pos--;
        if (pos < INSPECT_MAX_EVIDENCE) {
            int last = norder < INSPECT_MAX_EVIDENCE ? norder : INSPECT_MAX_EVIDENCE - 1;
            memmove(&order[pos + 1], &order[pos], (size_t)(last - pos) * sizeof order[0]);
            order[pos] = i;
            if (norder < INSPECT_MAX_EVIDENCE)
                norder++;
        }
    }
    if (n == 0) {
        struct inspect_finding *f = rule_emit(c, INSPECT_OK, c->targets);
        rule_evidence(f, "/proc/irq/*/smp_affinity_list", "no device IRQ includes a target CPU");
        rule_effect(f, "device interrupts are kept off the target CPUs");
        rule_fix(f, "nothing to do");
        return;
    }
    struct inspect_finding *f = rule_emit(c, INSPECT_WARNING, c->targets);
    for (int k = 0; k < norder && k < 8; k++) {
        const struct irq_line *irq = &t->irq[order[k]];
        char path[96];
        bool eff = irq->effective_affinity_list[0] != '\0';
        snprintf(path, sizeof path, "/proc/irq/%s/%s", irq->id,
                 eff ? "effective_affinity_list" : "smp_affinity_list");
        rule_evidence(f, path, "%s (%s; %llu on the target CPUs)",
                      eff ? irq->effective_affinity_list : irq->smp_affinity_list, irq->desc,
                      (unsigned long long)irq->target_total);
    }
    char phrase[280];
    rule_cpus_phrase(c->targets, phrase, sizeof phrase);
    rule_effect(f,
                "%d device interrupt%s can arrive on %s (%llu handled there since boot); each "
                "runs its handler, on PREEMPT_RT wakes its IRQ thread, ahead of the real-time "
                "thread",
                n, n == 1 ? "" : "s", phrase, (unsigned long long)handled);
    rule_fix_tune(c, f, 0,
                  "writes the housekeeping CPUs to /proc/irq/N/smp_affinity_list; "
                  "managed IRQs refuse");
    rule_fix_more(f, "; boot: irqaffinity=<housekeeping CPUs> and isolcpus=managed_irq,...");
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
