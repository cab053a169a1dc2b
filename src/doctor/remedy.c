/*
 * The remedy table and the table that maps causes and inspect findings to
 * remedies (see remedy.h). A cause kind may need the machine to choose: a
 * halted vCPU the host woke late is `vcpu-wake-late`, but a result written
 * before that kind existed says `idle-exit` on a guest without a cpuidle
 * driver, and the cure there is the hypervisor's, not the idle states'.
 * Pure data.
 */
#include "doctor/remedy.h"

#include <string.h>

static const struct remedy remedies[] = {
    {"tune-irq-affinity", REMEDY_TUNE, "irq-affinity", "move movable IRQs off the CPUs"},
    {"tune-idle-states", REMEDY_TUNE, "idle-states", "disable idle states slower than the budget"},
    {"tune-resume-latency", REMEDY_TUNE, "resume-latency", "per-CPU resume latency at the budget"},
    {"tune-pm-qos", REMEDY_TUNE, "pm-qos", "hold /dev/cpu_dma_latency at the budget"},
    {"tune-cpufreq", REMEDY_TUNE, "cpufreq", "performance governor, fixed frequency"},
    {"tune-timer-migration", REMEDY_TUNE, "timer-migration", "keep timers where they were armed"},
    {"tune-rt-throttling", REMEDY_TUNE, "rt-throttling", "no real-time throttling"},
    {"tune-thp", REMEDY_TUNE, "thp", "transparent hugepages never"},
    {"tune-nmi-watchdog", REMEDY_TUNE, "nmi-watchdog", "no NMI watchdog"},
    {"tune-cache-partition", REMEDY_TUNE, "cache-partition", "exclusive L3 ways for the CPUs"},
    {"boot-isolation", REMEDY_BOOT, NULL,
     "isolate the CPUs from the scheduler, timer ticks, RCU callbacks and IRQs at boot"},
    {"boot-cstates", REMEDY_BOOT, NULL, "limit idle states at boot"},
    {"boot-clocksource", REMEDY_BOOT, NULL, "the TSC as clocksource"},
    {"boot-nosmt", REMEDY_BOOT, NULL, "no SMT siblings beside the CPUs"},
    {"move-thread", REMEDY_THREAD, NULL,
     "a thread takes the CPU: move it off the CPUs or lower its priority"},
    {"workqueue-cpumask", REMEDY_SYSTEM, NULL, "unbound workqueues on the housekeeping CPUs"},
    {"swap-off", REMEDY_SYSTEM, NULL, "no swapping"},
    {"kernel-preempt-rt", REMEDY_KERNEL, NULL, "a fully preemptible (PREEMPT_RT) kernel"},
    {"firmware-smi", REMEDY_FIRMWARE, NULL,
     "the firmware's system management interrupts and power management"},
    {"firmware-tsc", REMEDY_FIRMWARE, NULL, "an invariant TSC"},
    {"hypervisor-steal", REMEDY_HYPERVISOR, NULL,
     "the host runs something else on this vCPU: pin and isolate it there"},
    {"hypervisor-halt", REMEDY_HYPERVISOR, NULL,
     "a halted vCPU wakes through the host: poll in the guest, pin on the host"},
    {"measured", REMEDY_NONE, NULL, "a measurement: the diagnosis itself answers it"},
    {"trace-lost", REMEDY_NONE, NULL,
     "the trace lost the events of these spikes: nothing can name their cause"},
};

#define C(key, when, remedy)                                                                       \
    {                                                                                              \
        REMEDY_FROM_CAUSE, key, NULL, when, remedy                                                 \
    }
#define CN(key, name, when, remedy)                                                                \
    {                                                                                              \
        REMEDY_FROM_CAUSE, key, name, when, remedy                                                 \
    }
#define F(key, remedy)                                                                             \
    {                                                                                              \
        REMEDY_FROM_FINDING, key, NULL, REMEDY_ALWAYS, remedy                                      \
    }
#define FW(key, when, remedy)                                                                      \
    {                                                                                              \
        REMEDY_FROM_FINDING, key, NULL, when, remedy                                               \
    }

static const struct remedy_link links[] = {
    /* causes of `run --explain` (trace/attribute.h) */
    C("timer-irq-late", REMEDY_ALWAYS, "kernel-preempt-rt"),
    C("timer-irq-late", REMEDY_METAL, "firmware-smi"),
    C("timer-irq-late", REMEDY_VM, "hypervisor-steal"),
    C("vcpu-wake-late", REMEDY_ALWAYS, "hypervisor-halt"),
    C("idle-exit", REMEDY_VM_HALT, "hypervisor-halt"),
    C("idle-exit", REMEDY_NOT_VM_HALT, "tune-idle-states"),
    C("idle-exit", REMEDY_NOT_VM_HALT, "tune-pm-qos"),
    C("idle-exit", REMEDY_NOT_VM_HALT, "boot-cstates"),
    C("irq", REMEDY_ALWAYS, "tune-irq-affinity"),
    C("irq", REMEDY_ALWAYS, "boot-isolation"),
    C("softirq", REMEDY_ALWAYS, "tune-irq-affinity"),
    C("softirq", REMEDY_ALWAYS, "boot-isolation"),
    C("ipi", REMEDY_ALWAYS, "boot-isolation"),
    C("timer", REMEDY_ALWAYS, "tune-timer-migration"),
    C("timer", REMEDY_ALWAYS, "boot-isolation"),
    C("thread", REMEDY_ALWAYS, "move-thread"),
    C("workqueue", REMEDY_ALWAYS, "workqueue-cpumask"),
    C("wakeup", REMEDY_ALWAYS, "kernel-preempt-rt"),
    C("unexplained", REMEDY_METAL, "firmware-smi"),
    C("unexplained", REMEDY_VM, "hypervisor-steal"),
    /* spikes whose events the capture lost (trace/explain.c) say nothing of a cause */
    CN("unexplained", "events lost", REMEDY_ALWAYS, "trace-lost"),
    /* the window method's own kinds (trace/window_explain.h) */
    C("steal", REMEDY_ALWAYS, "hypervisor-steal"),
    C("smi", REMEDY_ALWAYS, "firmware-smi"),
    C("frequency", REMEDY_ALWAYS, "tune-cpufreq"),
    C("idle", REMEDY_VM_HALT, "hypervisor-halt"),
    C("idle", REMEDY_NOT_VM_HALT, "tune-idle-states"),
    /* inspect findings (inspect/rules_*.c) */
    F("resctrl-unmounted", "tune-cache-partition"),
    F("cache-not-partitioned", "tune-cache-partition"),
    F("cache-ways-shared", "tune-cache-partition"),
    F("clocksource-not-tsc", "boot-clocksource"),
    F("tsc-not-invariant", "firmware-tsc"),
    F("cpufreq-governor", "tune-cpufreq"),
    F("cpufreq-boost", "tune-cpufreq"),
    F("epp-not-performance", "tune-cpufreq"),
    FW("cstate-exit-latency", REMEDY_VM_HALT, "hypervisor-halt"),
    F("cstate-exit-latency", "tune-idle-states"),
    F("cstate-exit-latency", "tune-resume-latency"),
    F("cstate-exit-latency", "tune-pm-qos"),
    FW("cstate-exit-latency", REMEDY_NOT_VM_HALT, "boot-cstates"),
    F("pm-qos-unset", "tune-pm-qos"),
    F("irq-on-rt-cpu", "tune-irq-affinity"),
    F("irq-on-rt-cpu", "boot-isolation"),
    F("threads-on-rt-cpu", "move-thread"),
    F("threads-on-rt-cpu", "boot-isolation"),
    F("no-isolation", "boot-isolation"),
    F("nohz-full-missing", "boot-isolation"),
    F("rcu-nocbs-missing", "boot-isolation"),
    F("smt-sibling-shared", "boot-nosmt"),
    F("not-preempt-rt", "kernel-preempt-rt"),
    F("nmi-watchdog", "tune-nmi-watchdog"),
    F("measured-latency", "measured"),
    F("thp-enabled", "tune-thp"),
    F("swap-in-use", "swap-off"),
    F("hypervisor", "hypervisor-steal"),
    FW("hypervisor", REMEDY_VM_HALT, "hypervisor-halt"),
    F("rt-throttling", "tune-rt-throttling"),
    F("timer-migration", "tune-timer-migration"),
};

#undef C
#undef CN
#undef F
#undef FW

size_t remedy_count(void)
{
    return sizeof remedies / sizeof remedies[0];
}

const struct remedy *remedy_at(size_t i)
{
    return i < remedy_count() ? &remedies[i] : NULL;
}

const struct remedy *remedy_find(const char *id)
{
    for (size_t i = 0; id && i < remedy_count(); i++)
        if (strcmp(remedies[i].id, id) == 0)
            return &remedies[i];
    return NULL;
}

size_t remedy_link_count(void)
{
    return sizeof links / sizeof links[0];
}

const struct remedy_link *remedy_link_at(size_t i)
{
    return i < remedy_link_count() ? &links[i] : NULL;
}

bool remedy_when_holds(enum remedy_when when, const struct remedy_machine *m)
{
    bool halt = m->vm && m->no_cpuidle_driver;
    switch (when) {
    case REMEDY_VM_HALT:
        return halt;
    case REMEDY_NOT_VM_HALT:
        return !halt;
    case REMEDY_VM:
        return m->vm;
    case REMEDY_METAL:
        return !m->vm;
    default:
        return true;
    }
}

static bool row_of(const struct remedy_link *l, enum remedy_source source, const char *key,
                   const struct remedy_machine *m)
{
    return l->source == source && strcmp(l->key, key) == 0 && remedy_when_holds(l->when, m) &&
           remedy_find(l->remedy);
}

size_t remedies_for(enum remedy_source source, const char *key, const char *name,
                    const struct remedy_machine *m, const struct remedy **out, size_t max)
{
    bool named = false;
    for (size_t i = 0; key && name && i < remedy_link_count(); i++)
        named |=
            row_of(&links[i], source, key, m) && links[i].name && strcmp(links[i].name, name) == 0;
    size_t n = 0;
    for (size_t i = 0; key && i < remedy_link_count(); i++) {
        const struct remedy_link *l = &links[i];
        if (!row_of(l, source, key, m) ||
            (named ? !l->name || strcmp(l->name, name) != 0 : l->name != NULL))
            continue;
        if (n < max)
            out[n] = remedy_find(l->remedy);
        n++;
    }
    return n;
}

const char *remedy_kind_name(enum remedy_kind kind)
{
    static const char *const names[] = {"tune",   "boot",     "thread",     "kernel",
                                        "system", "firmware", "hypervisor", "none"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}
