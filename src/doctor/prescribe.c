/*
 * Each remedy of the table (doctor/remedy.c) made concrete by one renderer
 * here, found by the remedy's id (renderers[], which a unit test holds
 * against the remedy table). A renderer reads the machine snapshot: the
 * target and housekeeping CPUs, the kernel's configuration, the cpuidle
 * driver, the hypervisor. The kernel command line gathers the words of
 * every boot remedy prescribed, in order, each once.
 */
#include "doctor/prescribe.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/text.h"
#include "common/units.h"

struct render_ctx {
    const struct inspect_system *s;
    struct remedy_machine m;
    char cpus[256];       /* the targets, kernel list form */
    const char *cpu_word; /* "CPU" or "CPUs" before cpus */
    char house[256];      /* every other online CPU; "" when none */
    char budget[32];
};

static void render_tune(const struct render_ctx *c, const struct doctor_cause *cause,
                        struct doctor_prescription *p)
{
    (void)cause;
    snprintf(p->command, sizeof p->command, "jitterlab tune apply --only %s -a %s --budget %s",
             p->remedy->tune_action, c->cpus, c->budget);
    snprintf(p->advice, sizeof p->advice, "%s (reversible: jitterlab tune restore)",
             p->remedy->summary);
}

static void render_isolation(const struct render_ctx *c, const struct doctor_cause *cause,
                             struct doctor_prescription *p)
{
    (void)cause;
    if (!c->house[0]) {
        snprintf(p->advice, sizeof p->advice,
                 "every online CPU is a target: leave one to housekeeping (-a) before isolating");
        return;
    }
    const struct kernel_config *k = &c->s->config;
    snprintf(p->command, sizeof p->command, "isolcpus=managed_irq,domain,%s", c->cpus);
    if (k->no_hz_full)
        text_append(p->command, sizeof p->command, " nohz_full=%s", c->cpus);
    if (k->rcu_nocb_cpu)
        text_append(p->command, sizeof p->command, " rcu_nocbs=%s", c->cpus);
    text_append(p->command, sizeof p->command, " irqaffinity=%s", c->house);
    snprintf(p->advice, sizeof p->advice,
             "boot parameters: no scheduler balancing, managed IRQs or other IRQs on %s %s%s",
             c->cpu_word, c->cpus, k->no_hz_full ? ", no tick while one task runs" : "");
    if (!k->present)
        text_append(p->advice, sizeof p->advice,
                    "; nohz_full and rcu_nocbs left out: the kernel's configuration "
                    "(/proc/config.gz) could not be read");
    else if (!k->no_hz_full || !k->rcu_nocb_cpu)
        text_append(p->advice, sizeof p->advice, "; this kernel lacks %s%s%s",
                    k->no_hz_full ? "" : "CONFIG_NO_HZ_FULL",
                    !k->no_hz_full && !k->rcu_nocb_cpu ? " and " : "",
                    k->rcu_nocb_cpu ? "" : "CONFIG_RCU_NOCB_CPU");
}

static void render_cstates(const struct render_ctx *c, const struct doctor_cause *cause,
                           struct doctor_prescription *p)
{
    (void)cause;
    bool intel = strcmp(c->s->cpuidle.driver, "intel_idle") == 0;
    snprintf(p->command, sizeof p->command, "%sprocessor.max_cstate=1",
             intel ? "intel_idle.max_cstate=0 " : "");
    snprintf(p->advice, sizeof p->advice,
             "boot parameters: no idle state deeper than C1 on any CPU (cpuidle driver %s); "
             "idle=poll instead keeps the CPUs from idling at all",
             c->s->cpuidle.driver[0] ? c->s->cpuidle.driver : "unknown");
}

static void render_clocksource(const struct render_ctx *c, const struct doctor_cause *cause,
                               struct doctor_prescription *p)
{
    (void)cause;
    snprintf(p->command, sizeof p->command, "clocksource=tsc");
    snprintf(p->advice, sizeof p->advice, "boot parameter: the TSC as clocksource (now %s)",
             c->s->base.clocksource[0] ? c->s->base.clocksource : "unknown");
}

static void render_nosmt(const struct render_ctx *c, const struct doctor_cause *cause,
                         struct doctor_prescription *p)
{
    (void)c, (void)cause;
    snprintf(p->command, sizeof p->command, "nosmt");
    snprintf(p->advice, sizeof p->advice,
             "boot parameter: no SMT siblings, or take the targets' siblings offline");
}

static void render_thread(const struct render_ctx *c, const struct doctor_cause *cause,
                          struct doctor_prescription *p)
{
    const char *to = c->house[0] ? c->house : "OTHER-CPUS";
    if (!cause || cause->pid <= 0) {
        snprintf(p->command, sizeof p->command, "taskset -a -p -c %s PID", to);
        snprintf(p->advice, sizeof p->advice,
                 "move each thread inspect lists on %s %s off them (a per-CPU kernel thread "
                 "cannot move: isolate the CPUs instead)",
                 c->cpu_word, c->cpus);
        return;
    }
    bool rt = strcmp(cause->policy, "SCHED_FIFO") == 0 || strcmp(cause->policy, "SCHED_RR") == 0 ||
              strcmp(cause->policy, "RT") == 0;
    snprintf(p->command, sizeof p->command, "taskset -a -p -c %s %lld", to, (long long)cause->pid);
    if (rt)
        text_append(p->command, sizeof p->command, "\nchrt -o -p 0 %lld", (long long)cause->pid);
    snprintf(p->advice, sizeof p->advice, "thread %s (pid %lld, %s", cause->name,
             (long long)cause->pid, cause->policy[0] ? cause->policy : "policy unknown");
    if (rt)
        text_append(p->advice, sizeof p->advice, " %lld", (long long)cause->priority);
    text_append(p->advice, sizeof p->advice, ") took %s %s from the measured loop: ", c->cpu_word,
                c->cpus);
    text_append(p->advice, sizeof p->advice, "%s",
                rt ? "a real-time thread that no tuning removes; move it off the CPUs, or lower it"
                   : "move it off the CPUs (isolcpus keeps others away at boot)");
}

/* The kernel's hex mask of a CPU list, 32 CPUs per comma-separated word. */
static void cpumask_hex(const struct cpulist *l, char *buf, size_t len)
{
    uint32_t words[CPULIST_MAX_CPUS / 32 + 1] = {0};
    int top = 0;
    for (int i = 0; i < l->count; i++) {
        words[l->cpu[i] / 32] |= 1u << (l->cpu[i] % 32);
        if (l->cpu[i] / 32 > top)
            top = l->cpu[i] / 32;
    }
    buf[0] = '\0';
    for (int w = top; w >= 0; w--)
        text_append(buf, len, w == top ? "%x" : ",%08x", words[w]);
}

static void render_workqueue(const struct render_ctx *c, const struct doctor_cause *cause,
                             struct doctor_prescription *p)
{
    (void)cause;
    struct cpulist house;
    cpulist_subtract(&c->s->base.online, &c->s->targets, &house);
    char mask[300];
    cpumask_hex(&house, mask, sizeof mask);
    snprintf(p->command, sizeof p->command, "echo %s > /sys/devices/virtual/workqueue/cpumask",
             mask);
    snprintf(p->advice, sizeof p->advice,
             "unbound workqueue items on the housekeeping CPUs %s (not kept across a reboot; "
             "a per-CPU work item stays: isolate the CPUs)",
             c->house);
}

static void render_swap(const struct render_ctx *c, const struct doctor_cause *cause,
                        struct doctor_prescription *p)
{
    (void)c, (void)cause;
    snprintf(p->command, sizeof p->command, "swapoff -a");
    snprintf(p->advice, sizeof p->advice,
             "no swapping (and the real-time application locks its memory: mlockall)");
}

static void render_preempt_rt(const struct render_ctx *c, const struct doctor_cause *cause,
                              struct doctor_prescription *p)
{
    (void)cause;
    const char *model = c->s->base.preempt_model;
    if (strcmp(model, "PREEMPT_RT") == 0) {
        snprintf(p->advice, sizeof p->advice,
                 "the kernel is PREEMPT_RT already: the time goes to interrupts off or a "
                 "driver's long section; isolate the CPUs");
        return;
    }
    if (c->s->config.preempt_dynamic && strcmp(model, "full") != 0)
        snprintf(p->command, sizeof p->command, "preempt=full");
    snprintf(p->advice, sizeof p->advice,
             "a PREEMPT_RT kernel (Debian: linux-image-rt-amd64; preemption model now %s)%s",
             model[0] ? model : "unknown",
             p->command[0] ? "; until then, boot parameter preempt=full" : "");
}

static void render_smi(const struct render_ctx *c, const struct doctor_cause *cause,
                       struct doctor_prescription *p)
{
    (void)cause;
    if (c->m.vm)
        snprintf(p->advice, sizeof p->advice,
                 "time no event in this guest accounts for: the host's (%s) firmware, SMIs or "
                 "its own scheduling; ask the host's owner (BIOS low-latency profile, vCPU "
                 "pinning)",
                 c->s->base.hypervisor);
    else
        snprintf(p->advice, sizeof p->advice,
                 "time no event accounts for: SMIs or firmware. In the BIOS: the vendor's "
                 "low-latency/real-time profile, no C-states beyond C1, no power or thermal "
                 "management by the firmware; `jitterlab stat` counts SMIs");
}

static void render_tsc(const struct render_ctx *c, const struct doctor_cause *cause,
                       struct doctor_prescription *p)
{
    (void)cause;
    snprintf(p->advice, sizeof p->advice,
             "the TSC is not invariant (constant_tsc and nonstop_tsc): %s",
             c->m.vm ? "the host must pass an invariant TSC to the guest (KVM: invtsc)"
                     : "this CPU or its firmware setting; `jitterlab tsc` checks it");
}

static void render_steal(const struct render_ctx *c, const struct doctor_cause *cause,
                         struct doctor_prescription *p)
{
    (void)cause;
    snprintf(p->advice, sizeof p->advice,
             "the hypervisor (%s) runs something else on these vCPUs: on the host, pin each "
             "vCPU of %s %s to a host CPU of its own, isolate those host CPUs, do not "
             "overcommit; `jitterlab stat` shows steal",
             c->s->base.hypervisor[0] ? c->s->base.hypervisor : "if any", c->cpu_word, c->cpus);
}

static void render_halt(const struct render_ctx *c, const struct doctor_cause *cause,
                        struct doctor_prescription *p)
{
    (void)cause;
    snprintf(p->command, sizeof p->command, "modprobe cpuidle-haltpoll");
    snprintf(p->advice, sizeof p->advice,
             "a halted vCPU wakes through the hypervisor (%s; cpuidle driver %s): in the guest "
             "poll before halting (cpuidle-haltpoll) or never halt (boot parameter idle=poll, "
             "a busy vCPU); on the host pin the vCPUs of %s %s and isolate their host CPUs",
             c->s->base.hypervisor, c->s->cpuidle.driver[0] ? c->s->cpuidle.driver : "unknown",
             c->cpu_word, c->cpus);
}

/* a remedy of nothing to run: its summary says why */
static void render_measured(const struct render_ctx *c, const struct doctor_cause *cause,
                            struct doctor_prescription *p)
{
    (void)c, (void)cause;
    snprintf(p->advice, sizeof p->advice, "%s", p->remedy->summary);
}

static const struct {
    const char *id;
    void (*render)(const struct render_ctx *, const struct doctor_cause *,
                   struct doctor_prescription *);
} renderers[] = {
    {"boot-isolation", render_isolation},
    {"boot-cstates", render_cstates},
    {"boot-clocksource", render_clocksource},
    {"boot-nosmt", render_nosmt},
    {"move-thread", render_thread},
    {"workqueue-cpumask", render_workqueue},
    {"swap-off", render_swap},
    {"kernel-preempt-rt", render_preempt_rt},
    {"firmware-smi", render_smi},
    {"firmware-tsc", render_tsc},
    {"hypervisor-steal", render_steal},
    {"hypervisor-halt", render_halt},
    {"measured", render_measured},
    {"trace-lost", render_measured},
};

int doctor_remedy_rendered(const char *id)
{
    const struct remedy *r = remedy_find(id);
    if (r && r->kind == REMEDY_TUNE)
        return 1;
    for (size_t i = 0; i < sizeof renderers / sizeof renderers[0]; i++)
        if (strcmp(renderers[i].id, id) == 0)
            return 1;
    return 0;
}

void doctor_machine_of(const struct inspect_system *s, struct remedy_machine *m)
{
    m->vm = s->base.hypervisor[0] != '\0';
    m->no_cpuidle_driver = strcmp(s->cpuidle.driver, "none") == 0;
}

/* The prescription of remedy r for pid (-1: any), else a new one. */
static struct doctor_prescription *slot(struct doctor_prescriptions *out, const struct remedy *r,
                                        int64_t pid, bool *fresh)
{
    *fresh = false;
    for (size_t i = 0; i < out->count; i++)
        if (out->p[i].remedy == r && out->p[i].pid == pid)
            return &out->p[i];
    if (out->count == DOCTOR_PRESCRIPTIONS_MAX)
        return NULL;
    struct doctor_prescription *p = &out->p[out->count++];
    memset(p, 0, sizeof *p);
    p->remedy = r;
    p->pid = pid;
    *fresh = true;
    return p;
}

static void prescribe(const struct render_ctx *c, const struct remedy *r,
                      const struct doctor_cause *cause, const char *because,
                      struct doctor_prescriptions *out)
{
    int64_t pid = cause && r->kind == REMEDY_THREAD && cause->pid > 0 ? cause->pid : -1;
    bool fresh;
    struct doctor_prescription *p = slot(out, r, pid, &fresh);
    if (!p)
        return;
    text_append(p->because, sizeof p->because, "%s%s", p->because[0] ? "; " : "", because);
    if (!fresh)
        return;
    if (r->kind == REMEDY_TUNE) {
        render_tune(c, cause, p);
        return;
    }
    for (size_t i = 0; i < sizeof renderers / sizeof renderers[0]; i++)
        if (strcmp(renderers[i].id, r->id) == 0)
            renderers[i].render(c, cause, p);
}

/* The words of every boot remedy, each once. */
static void gather_boot_words(struct doctor_prescriptions *out)
{
    out->boot_cmdline[0] = '\0';
    for (size_t i = 0; i < out->count; i++) {
        const struct doctor_prescription *p = &out->p[i];
        if (p->remedy->kind != REMEDY_BOOT && p->remedy->kind != REMEDY_KERNEL)
            continue;
        if (!p->command[0] || strstr(out->boot_cmdline, p->command))
            continue;
        text_append(out->boot_cmdline, sizeof out->boot_cmdline, "%s%s",
                    out->boot_cmdline[0] ? " " : "", p->command);
    }
}

void doctor_prescribe(const struct doctor_diagnosis *d, const struct inspect_findings *findings,
                      const struct inspect_system *s, int64_t budget_ns,
                      struct doctor_prescriptions *out)
{
    memset(out, 0, sizeof *out);
    struct render_ctx c = {.s = s};
    doctor_machine_of(s, &c.m);
    cpulist_format(&s->targets, c.cpus, sizeof c.cpus);
    c.cpu_word = s->targets.count == 1 ? "CPU" : "CPUs";
    struct cpulist house;
    cpulist_subtract(&s->base.online, &s->targets, &house);
    cpulist_format(&house, c.house, sizeof c.house);
    format_duration_arg(budget_ns, c.budget, sizeof c.budget);
    char because[200];
    for (size_t i = 0; d && i < d->ncauses; i++) {
        const struct doctor_cause *cause = &d->cause[i];
        snprintf(because, sizeof because, "cause %zu %s%s%s", i + 1, cause->kind,
                 cause->name[0] ? " " : "", cause->name);
        if (cause->pid > 0)
            text_append(because, sizeof because, "/%lld", (long long)cause->pid);
        for (size_t k = 0; k < cause->nremedies; k++)
            prescribe(&c, cause->remedies[k], cause, because, out);
    }
    for (int i = 0; findings && i < findings->count; i++) {
        const struct inspect_finding *f = &findings->finding[i];
        if (!doctor_finding_counts(f))
            continue;
        const struct remedy *r[DOCTOR_CAUSE_REMEDIES_MAX];
        size_t n =
            remedies_for(REMEDY_FROM_FINDING, f->id, NULL, &c.m, r, DOCTOR_CAUSE_REMEDIES_MAX);
        snprintf(because, sizeof because, "finding %s", f->id);
        for (size_t k = 0; k < n && k < DOCTOR_CAUSE_REMEDIES_MAX; k++)
            prescribe(&c, r[k], NULL, because, out);
    }
    gather_boot_words(out);
}
