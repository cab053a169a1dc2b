/*
 * Fills struct inspect_system by calling each reader in turn; each one owns
 * one concern (cpuidle.c, cpufreq.c, kernel_cmdline.c, ...). Here are only
 * the pieces that combine sources: the effective preempt model (realtime
 * flag, debugfs, preempt=, kernel config, /proc/version) and the PM QoS
 * file's "unreadable" note. The struct is large; callers allocate it.
 */
#include "sys/inspect_system.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sys/pm_qos.h"

static void set_preempt(struct inspect_system *s, const char *model, const char *source)
{
    snprintf(s->preempt_model, sizeof s->preempt_model, "%s", model);
    snprintf(s->preempt_source, sizeof s->preempt_source, "%s", source);
}

/*
 * system_info already chose from /sys/kernel/realtime, debugfs and
 * /proc/version. What it cannot know is the mode of a PREEMPT_DYNAMIC kernel
 * without debugfs ("dynamic"), nor the model of a kernel whose version string
 * names none: preempt= on the command line, else the config's default, fill
 * those in.
 */
static void refine_preempt_model(struct inspect_system *s)
{
    const char *model = s->base.preempt_model;
    set_preempt(s, model, s->base.preempt_source);
    if (strcmp(model, "PREEMPT_RT") == 0)
        return;
    if (s->config.present && strcmp(s->config.preempt, "rt") == 0) {
        set_preempt(s, "PREEMPT_RT", "/proc/config.gz");
        return;
    }
    bool dynamic_unknown = strcmp(model, "dynamic") == 0 || model[0] == '\0';
    if (!dynamic_unknown)
        return;
    static const char *const modes[] = {"none", "voluntary", "full", "lazy"};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (strcmp(s->cmdline.preempt, modes[i]) == 0) {
            set_preempt(s, modes[i], "/proc/cmdline");
            return;
        }
    }
    if (s->config.present && s->config.preempt[0])
        set_preempt(s, s->config.preempt, "/proc/config.gz");
}

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
    refine_preempt_model(out);
    kernel_tunables_read(sr, &out->tunables, &out->notes);

    const struct cpulist *all = out->base.online.count > 0 ? &out->base.online : &out->targets;
    int self_pid = sr->prefix[0] ? 0 : (int)getpid();
    if (cpuidle_read(sr, all, &out->cpuidle, &out->notes) != 0 ||
        cpufreq_read(sr, &out->cpufreq, &out->notes) != 0 ||
        cpu_topology_read(sr, all, &out->topology, &out->notes) != 0 ||
        irq_read(sr, &out->targets, &out->irqs, &out->notes) != 0 ||
        tasks_read(sr, &out->targets, self_pid, &out->tasks, &out->notes) != 0) {
        inspect_system_free(out);
        return -1;
    }
    return 0;
}

void inspect_system_free(struct inspect_system *s)
{
    cpuidle_free(&s->cpuidle);
    cpufreq_free(&s->cpufreq);
    cpu_topology_free(&s->topology);
    irq_free(&s->irqs);
    tasks_free(&s->tasks);
}
