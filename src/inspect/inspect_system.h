/*
 * Everything `jitterlab inspect` knows about a machine, read once through
 * the sysroot: the run document's system_info plus cpuidle, cpufreq, the
 * parsed command line and kernel config, SMT, scheduler and memory settings,
 * and the IRQs and threads that touch the target CPUs. The inspect rules
 * read only this struct; `jitterlab run` embeds its JSON form.
 */
#ifndef JITTERLAB_INSPECT_INSPECT_SYSTEM_H
#define JITTERLAB_INSPECT_INSPECT_SYSTEM_H

#include "sys/cpu_topology.h"
#include "sys/cpufreq.h"
#include "sys/cpuidle.h"
#include "sys/cpulist.h"
#include "sys/irq.h"
#include "sys/kernel_cmdline.h"
#include "sys/kernel_config.h"
#include "sys/kernel_tunables.h"
#include "sys/read_notes.h"
#include "sys/resctrl.h"
#include "sys/system_info.h"
#include "sys/sysroot.h"
#include "sys/tasks.h"

struct inspect_system {
    struct system_info base; /* holds the preempt model, too */
    struct cpulist targets;  /* the CPUs the real-time work will run on */
    struct kernel_cmdline cmdline;
    struct kernel_config config;
    struct cpuidle_info cpuidle; /* every online CPU */
    struct cpufreq_info cpufreq;
    struct cpu_topology topology; /* every online CPU */
    struct kernel_tunables tunables;
    struct irq_table irqs;
    struct task_table tasks;
    struct resctrl_info *resctrl; /* cache allocation (heap: it is large) */
    struct read_notes notes;      /* files that held garbage */
};

/* Reads the whole machine; targets NULL or empty means the default CPUs
 * (system_info_default_cpus). Returns 0, or -1 when out of memory (then
 * already freed). Free with inspect_system_free. */
int inspect_system_read(const struct sysroot *sr, const struct cpulist *targets,
                        struct inspect_system *out);
void inspect_system_free(struct inspect_system *s);

/*
 * What a run result lists of the threads and IRQs (inspect lists them all;
 * the run keeps counts and the ones that matter to the measured CPUs, not
 * the machine's every thread). A thread (one of tasks, so already allowed on
 * or running on a target) is listed when it is real-time or confined to
 * fewer CPUs than are online: per-CPU kernel threads, pinned applications.
 * An IRQ is listed when its affinity includes a target or, for the per-CPU
 * lines (LOC, RES, ...), when it fired there.
 */
bool inspect_task_is_rt(const struct task_info *t);
bool inspect_task_listed_in_run(const struct inspect_system *s, const struct task_info *t);
bool inspect_irq_listed_in_run(const struct irq_line *irq);

#endif
