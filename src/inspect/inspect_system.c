/*
 * Fills struct inspect_system by calling each reader in turn; each one owns
 * one concern (cpuidle.c, cpufreq.c, kernel_cmdline.c, ...). Here is only
 * the PM QoS file's "unreadable" note. The preempt model is system_info's
 * (one decision for run and inspect alike). The struct is large; callers
 * allocate it.
 */
#include "inspect/inspect_system.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/pm_qos.h"

int inspect_system_read(const struct sysroot *sr, const struct cpulist *targets,
                        struct inspect_system *out)
{
    memset(out, 0, sizeof *out);
    system_info_read(sr, &out->base);
    if (targets && targets->count > 0)
        out->targets = *targets;
    else
        system_info_default_cpus(&out->base, &out->targets);

    int64_t pm_qos = pm_qos_read(sr);
    if (pm_qos == -EINVAL)
        read_notes_add(&out->notes, "/dev/cpu_dma_latency", "neither a 4-byte value nor a number");

    kernel_cmdline_parse(out->base.cmdline, &out->cmdline);
    kernel_config_read(sr, &out->config, &out->notes);
    kernel_tunables_read(sr, &out->tunables, &out->notes);

    const struct cpulist *all = out->base.online.count > 0 ? &out->base.online : &out->targets;
    int self_pid = sr->prefix[0] ? 0 : (int)getpid();
    if (cpuidle_read(sr, all, &out->cpuidle, &out->notes) != 0 ||
        cpufreq_read(sr, &out->cpufreq, &out->notes) != 0 ||
        cpu_topology_read(sr, all, &out->topology, &out->notes) != 0 ||
        irq_read(sr, &out->targets, &out->irqs, &out->notes) != 0 ||
        tasks_read(sr, &out->targets, self_pid, &out->tasks, &out->notes) != 0 ||
        !(out->resctrl = malloc(sizeof *out->resctrl))) {
        inspect_system_free(out);
        return -1;
    }
    resctrl_read(sr, out->resctrl, &out->notes);
    return 0;
}

void inspect_system_free(struct inspect_system *s)
{
    cpuidle_free(&s->cpuidle);
    cpufreq_free(&s->cpufreq);
    cpu_topology_free(&s->topology);
    irq_free(&s->irqs);
    tasks_free(&s->tasks);
    free(s->resctrl);
    s->resctrl = NULL;
}

bool inspect_task_is_rt(const struct task_info *t)
{
    return t->policy == SCHED_FIFO || t->policy == SCHED_RR || t->policy == 6 /* DEADLINE */;
}

bool inspect_task_listed_in_run(const struct inspect_system *s, const struct task_info *t)
{
    if (inspect_task_is_rt(t))
        return true;
    if (!t->allowed_on_target)
        return false; /* merely last ran there: it can go anywhere */
    const struct cpulist *online = &s->base.online;
    for (int i = 0; i < online->count; i++)
        if (!cpulist_text_contains(t->cpus_allowed, online->cpu[i]))
            return true;
    return false;
}

bool inspect_irq_listed_in_run(const struct irq_line *irq)
{
    return irq->numeric ? irq->affine_to_target : irq->target_total > 0;
}
