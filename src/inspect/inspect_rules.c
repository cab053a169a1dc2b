/*
 * The rules of `jitterlab inspect`, stress-ng style: one function and one
 * table entry per finding id. A rule looks at struct inspect_system and the
 * budget, and emits one finding (ok findings too, so that a report shows
 * what was checked) or an "unknown" note when the data it needs is missing.
 * Severity is relative to the budget where the data gives a number (exit
 * latencies, PLL relock stalls, preemption model); everything else that RT
 * tuning guides change is a warning, the harmless rest info. Fixes name the
 * `jitterlab tune apply --only ACTION` action, a sysfs write, a boot
 * parameter or a firmware setting. docs/inspect.md describes every id.
 */
#include "inspect/inspect_rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/pm_qos.h"

struct rule_ctx {
    const struct inspect_system *s;
    int64_t budget_ns;
    struct inspect_findings *out;
    const char *id;
    const char *area;
    char budget[32]; /* "50 µs" */
    char targets[256];
};

struct inspect_rule {
    const char *id;
    const char *area;
    void (*check)(struct rule_ctx *c);
};

/* ---- helpers ---------------------------------------------------------- */

static void us_text(int64_t ns, char *buf, size_t len)
{
    snprintf(buf, len, "%.10g µs", (double)ns / 1000.0);
}

static struct inspect_finding *emit(struct rule_ctx *c, enum inspect_severity sev, const char *cpus)
{
    if (c->out->count >= INSPECT_MAX_FINDINGS)
        return NULL;
    struct inspect_finding *f = &c->out->finding[c->out->count++];
    memset(f, 0, sizeof *f);
    f->id = c->id;
    f->area = c->area;
    f->severity = sev;
    snprintf(f->cpus, sizeof f->cpus, "%s", cpus ? cpus : "");
    return f;
}

__attribute__((format(printf, 3, 4))) static void evidence(struct inspect_finding *f,
                                                           const char *path, const char *fmt, ...)
{
    if (!f || f->nevidence >= INSPECT_MAX_EVIDENCE)
        return;
    struct inspect_evidence *e = &f->evidence[f->nevidence++];
    snprintf(e->path, sizeof e->path, "%s", path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->value, sizeof e->value, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 2, 3))) static void effect(struct inspect_finding *f, const char *fmt,
                                                         ...)
{
    if (!f)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->effect, sizeof f->effect, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 2, 3))) static void fix(struct inspect_finding *f, const char *fmt,
                                                      ...)
{
    if (!f)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->fix, sizeof f->fix, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 2, 3))) static void unknown(struct rule_ctx *c, const char *fmt, ...)
{
    if (c->out->nunknown >= INSPECT_MAX_FINDINGS)
        return;
    struct inspect_unknown *u = &c->out->unknown[c->out->nunknown++];
    u->id = c->id;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->why, sizeof u->why, fmt, ap);
    va_end(ap);
}

static void format_list(const struct cpulist *l, char *buf, size_t len)
{
    if (cpulist_format(l, buf, len) != 0)
        snprintf(buf, len, "(many)");
}

/* "CPU 3" or "CPUs 1-3" */
static void cpus_phrase(const char *list, char *buf, size_t len)
{
    bool one = list[0] && !strpbrk(list, ",-");
    snprintf(buf, len, "CPU%s %s", one ? "" : "s", list);
}

static struct cpulist *new_list(void)
{
    return calloc(1, sizeof(struct cpulist));
}

/* ---- cpu idle --------------------------------------------------------- */

/* The latency limit (µs) the idle governor honours on a CPU: the smaller
 * of the global PM QoS request and the CPU's resume latency; -1 = none. */
static int64_t idle_limit_us(const struct inspect_system *s, const struct cpuidle_cpu *c)
{
    int64_t limit = -1;
    int64_t global = s->base.cpu_dma_latency_us;
    if (global >= 0 && global < PM_QOS_NO_REQUEST_US)
        limit = global;
    if (c->resume_latency_us == RESUME_LATENCY_NONE_ALLOWED)
        limit = 0;
    else if (c->resume_latency_us > 0 && (limit < 0 || c->resume_latency_us < limit))
        limit = c->resume_latency_us;
    return limit;
}

static bool state_reachable(const struct cpuidle_state_info *st, int64_t limit_us)
{
    if (st->disable == 1 || st->latency_us == VALUE_UNKNOWN)
        return false;
    return limit_us < 0 || st->latency_us <= limit_us;
}

/* One idle state name over the threshold, merged across the target CPUs. */
struct slow_state {
    char name[32];
    int64_t latency_us;
    int cpu_first, state_index;
    struct cpulist *cpus;
};

#define MAX_SLOW_STATES CPUIDLE_MAX_STATES

static int collect_slow_states(const struct inspect_system *s, int64_t threshold_ns,
                               struct slow_state *slow, int *nslow, int *cpus_with_states)
{
    *nslow = 0;
    *cpus_with_states = 0;
    for (int i = 0; i < s->targets.count; i++) {
        const struct cpuidle_cpu *c = cpuidle_find_cpu(&s->cpuidle, s->targets.cpu[i]);
        if (!c || c->nstates == 0)
            continue;
        (*cpus_with_states)++;
        int64_t limit = idle_limit_us(s, c);
        for (int k = 0; k < c->nstates; k++) {
            const struct cpuidle_state_info *st = &c->state[k];
            if (!state_reachable(st, limit) || st->latency_us * 1000 <= threshold_ns)
                continue;
            int j = 0;
            while (j < *nslow && strcmp(slow[j].name, st->name) != 0)
                j++;
            if (j == *nslow) {
                if (*nslow >= MAX_SLOW_STATES)
                    continue;
                slow[j].cpus = new_list();
                if (!slow[j].cpus)
                    return -1;
                snprintf(slow[j].name, sizeof slow[j].name, "%s", st->name);
                slow[j].latency_us = st->latency_us;
                slow[j].cpu_first = c->cpu;
                slow[j].state_index = st->index;
                (*nslow)++;
            }
            if (st->latency_us > slow[j].latency_us)
                slow[j].latency_us = st->latency_us;
            cpulist_add(slow[j].cpus, c->cpu);
        }
    }
    return 0;
}

static void free_slow_states(struct slow_state *slow, int n)
{
    for (int i = 0; i < n; i++)
        free(slow[i].cpus);
}

static int compare_slow_desc(const void *a, const void *b)
{
    const struct slow_state *x = a, *y = b;
    return (y->latency_us > x->latency_us) - (y->latency_us < x->latency_us);
}

static const char *max_cstate_param(const struct inspect_system *s)
{
    if (strcmp(s->cpuidle.driver, "intel_idle") == 0)
        return "intel_idle.max_cstate=1";
    return "processor.max_cstate=1";
}

static void rule_cstate_exit_latency(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    struct slow_state slow[MAX_SLOW_STATES];
    int nslow = 0, with_states = 0;
    /* critical above the budget, a warning above half of it */
    int64_t threshold = c->budget_ns / 2;
    if (collect_slow_states(s, threshold, slow, &nslow, &with_states) != 0) {
        free_slow_states(slow, nslow);
        unknown(c, "out of memory");
        return;
    }
    if (with_states == 0) {
        const char *drv = s->cpuidle.driver;
        if (!drv[0]) {
            unknown(c, "no cpuidle states or driver readable under "
                       "/sys/devices/system/cpu (cpuidle/current_driver missing)");
            return;
        }
        struct inspect_finding *f = emit(c, INSPECT_INFO, c->targets);
        evidence(f, "/sys/devices/system/cpu/cpuidle/current_driver", "%s", drv);
        effect(f,
               "no idle states listed for the target CPUs (driver %s): the CPU idles with the "
               "architecture default (HLT on x86), whose exit latency the kernel does not report",
               drv);
        fix(f, "nothing to tune in sysfs; idle=poll on the kernel command line trades power for "
               "the lowest wake-up latency");
        return;
    }
    qsort(slow, (size_t)nslow, sizeof slow[0], compare_slow_desc);
    if (nslow == 0) {
        /* report the deepest reachable state of the first target with states */
        struct inspect_finding *f = emit(c, INSPECT_OK, c->targets);
        fix(f, "nothing to do");
        for (int i = 0; i < s->targets.count && f; i++) {
            const struct cpuidle_cpu *cc = cpuidle_find_cpu(&s->cpuidle, s->targets.cpu[i]);
            if (!cc || cc->nstates == 0)
                continue;
            int64_t limit = idle_limit_us(s, cc);
            const struct cpuidle_state_info *deepest = NULL;
            for (int k = 0; k < cc->nstates; k++)
                if (state_reachable(&cc->state[k], limit))
                    deepest = &cc->state[k];
            if (deepest) {
                char path[128];
                snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/latency",
                         cc->cpu, deepest->index);
                evidence(f, path, "%lld (%s)", (long long)deepest->latency_us, deepest->name);
                effect(f,
                       "the deepest idle state in use, %s, exits in %lld µs, within the %s "
                       "budget",
                       deepest->name, (long long)deepest->latency_us, c->budget);
            } else {
                effect(f, "every idle state but polling is disabled or held off by PM QoS");
            }
            break;
        }
        return;
    }
    bool over = slow[0].latency_us * 1000 > c->budget_ns;
    struct cpulist *all = new_list();
    if (!all) {
        free_slow_states(slow, nslow);
        return;
    }
    char names[256] = "";
    size_t used = 0;
    for (int i = 0; i < nslow; i++) {
        for (int k = 0; k < slow[i].cpus->count; k++)
            cpulist_add(all, slow[i].cpus->cpu[k]);
        int n = snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", slow[i].name);
        if (n > 0 && (size_t)n < sizeof names - used)
            used += (size_t)n;
    }
    char cpus[256], phrase[280];
    format_list(all, cpus, sizeof cpus);
    cpus_phrase(cpus, phrase, sizeof phrase);
    struct inspect_finding *f = emit(c, over ? INSPECT_CRITICAL : INSPECT_WARNING, cpus);
    for (int i = 0; i < nslow; i++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/latency",
                 slow[i].cpu_first, slow[i].state_index);
        evidence(f, path, "%lld (%s, enabled)", (long long)slow[i].latency_us, slow[i].name);
    }
    if (s->base.cpu_dma_latency_us >= 0)
        evidence(f, "/dev/cpu_dma_latency", "%lld", (long long)s->base.cpu_dma_latency_us);
    if (over)
        effect(f,
               "%s exit latency %lld µs exceeds the %s budget on %s (reachable states over "
               "half the budget: %s); a wake-up from it alone can miss the deadline",
               slow[0].name, (long long)slow[0].latency_us, c->budget, phrase, names);
    else
        effect(f, "%s exit latency %lld µs takes more than half of the %s budget on %s",
               slow[0].name, (long long)slow[0].latency_us, c->budget, phrase);
    fix(f,
        "jitterlab tune apply --only idle-states (echo 1 > "
        "/sys/devices/system/cpu/cpuN/cpuidle/stateK/disable for %s on %s), or --only "
        "resume-latency (echo %lld > /sys/devices/system/cpu/cpuN/power/"
        "pm_qos_resume_latency_us), or --only pm-qos; boot: %s; firmware: limit package "
        "C-states (C-state limit C1, or the vendor's real-time mode)",
        names, phrase, (long long)(c->budget_ns / 2000 > 0 ? c->budget_ns / 2000 : 1),
        max_cstate_param(s));
    free(all);
    free_slow_states(slow, nslow);
}

static void rule_pm_qos_unset(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    int64_t v = s->base.cpu_dma_latency_us;
    if (v < 0) {
        unknown(c, "/dev/cpu_dma_latency unreadable (needs root) or absent");
        return;
    }
    struct slow_state slow[MAX_SLOW_STATES];
    int nslow = 0, with_states = 0;
    collect_slow_states(s, c->budget_ns, slow, &nslow, &with_states);
    free_slow_states(slow, nslow);
    struct inspect_finding *f;
    if (v == PM_QOS_NO_REQUEST_US) {
        f = emit(c, nslow > 0 ? INSPECT_WARNING : INSPECT_OK, nslow > 0 ? c->targets : "");
        evidence(f, "/dev/cpu_dma_latency", "%lld (no request)", (long long)v);
        if (nslow > 0)
            effect(f,
                   "no CPU latency request is in force, so nothing keeps the idle governor "
                   "out of states that exit slower than the %s budget",
                   c->budget);
        else
            effect(f,
                   "no CPU latency request is in force; none is needed: no enabled idle "
                   "state exits slower than the %s budget",
                   c->budget);
    } else {
        bool loose = v * 1000 > c->budget_ns;
        f = emit(c, loose ? INSPECT_INFO : INSPECT_OK, "");
        evidence(f, "/dev/cpu_dma_latency", "%lld", (long long)v);
        effect(f,
               "a CPU latency request of %lld µs is in force (%s the %s budget); it lasts "
               "only while its holder keeps the file open",
               (long long)v, loose ? "looser than" : "within", c->budget);
    }
    fix(f,
        "jitterlab tune apply --only pm-qos (holds /dev/cpu_dma_latency at %lld µs), or "
        "jitterlab run --pm-qos %lld for the length of a measurement",
        (long long)(c->budget_ns / 2000), (long long)(c->budget_ns / 2000));
}

/* ---- cpu frequency ---------------------------------------------------- */

static bool governor_fixed(const struct cpufreq_policy_info *p)
{
    if (strcmp(p->governor, "performance") == 0)
        return true;
    return p->min_khz != VALUE_UNKNOWN && p->min_khz == p->max_khz;
}

/* Pre-Nehalem P-state drivers: every frequency change relocks the PLL. */
static bool legacy_pstates(const struct inspect_system *s, const struct cpufreq_policy_info *p)
{
    static const char *const drivers[] = {"acpi-cpufreq", "speedstep-centrino", "p4-clockmod",
                                          "powernow-k8", "speedstep-ich"};
    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
        if (strcmp(p->driver, drivers[i]) == 0)
            return s->base.tsc_present && !s->base.tsc_nonstop;
    return false;
}

#define PLL_RELOCK_STALL_US 110 /* Core 2 Q6600, DESIGN.md */

static void rule_cpufreq_governor(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    if (s->cpufreq.npolicy == 0) {
        struct inspect_finding *f = emit(c, INSPECT_INFO, "");
        evidence(f, "/sys/devices/system/cpu/cpufreq", "absent");
        effect(f,
               "no cpufreq driver: the frequency is fixed or under %s control, invisible "
               "to the kernel",
               s->base.hypervisor[0] ? "hypervisor" : "firmware");
        fix(f, "firmware: disable SpeedStep/EIST, Cool'n'Quiet and turbo for a fixed clock");
        return;
    }
    struct cpulist *moving = new_list();
    if (!moving)
        return;
    bool legacy = false;
    const struct cpufreq_policy_info *first = NULL;
    for (int i = 0; i < s->targets.count; i++) {
        const struct cpufreq_policy_info *p = cpufreq_policy_of(&s->cpufreq, s->targets.cpu[i]);
        if (!p || !p->governor[0] || governor_fixed(p))
            continue;
        cpulist_add(moving, s->targets.cpu[i]);
        legacy = legacy || legacy_pstates(s, p);
        if (!first)
            first = p;
    }
    if (!first) {
        const struct cpufreq_policy_info *p = cpufreq_policy_of(&s->cpufreq, s->targets.cpu[0]);
        struct inspect_finding *f = emit(c, INSPECT_OK, c->targets);
        if (p) {
            char path[96];
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpufreq/policy%d/scaling_governor",
                     p->id);
            evidence(f, path, "%s", p->governor[0] ? p->governor : "unknown");
        }
        effect(f, "the target CPUs run at a fixed frequency request (governor performance or "
                  "min = max)");
        fix(f, "nothing to do");
        free(moving);
        return;
    }
    char cpus[256], phrase[280], path[96];
    format_list(moving, cpus, sizeof cpus);
    cpus_phrase(cpus, phrase, sizeof phrase);
    bool critical = legacy && c->budget_ns < PLL_RELOCK_STALL_US * 1000;
    struct inspect_finding *f = emit(c, critical ? INSPECT_CRITICAL : INSPECT_WARNING, cpus);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpufreq/policy%d/scaling_governor",
             first->id);
    evidence(f, path, "%s", first->governor);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpufreq/policy%d/scaling_driver",
             first->id);
    evidence(f, path, "%s", first->driver[0] ? first->driver : "unknown");
    if (first->min_khz != VALUE_UNKNOWN && first->max_khz != VALUE_UNKNOWN) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpufreq/policy%d/scaling_min_freq",
                 first->id);
        evidence(f, path, "%lld", (long long)first->min_khz);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpufreq/policy%d/scaling_max_freq",
                 first->id);
        evidence(f, path, "%lld", (long long)first->max_khz);
    }
    if (first->available_frequencies[0]) {
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpufreq/policy%d/scaling_available_frequencies",
                 first->id);
        evidence(f, path, "%s", first->available_frequencies);
    }
    long long lo = first->min_khz != VALUE_UNKNOWN ? first->min_khz / 1000 : 0;
    long long hi = first->max_khz != VALUE_UNKNOWN ? first->max_khz / 1000 : 0;
    if (legacy)
        effect(f,
               "governor %s moves %s between %lld and %lld MHz; on CPUs of this generation "
               "(%s, no nonstop_tsc) every P-state change stalls the core while the PLL "
               "relocks, up to ~%d µs, %s the %s budget",
               first->governor, phrase, lo, hi, first->driver, PLL_RELOCK_STALL_US,
               critical ? "above" : "within", c->budget);
    else
        effect(f,
               "governor %s lets the clock of %s follow the load (%lld-%lld MHz): execution "
               "time varies and a thread that wakes from idle starts at a low frequency",
               first->governor, phrase, lo, hi);
    fix(f,
        "jitterlab tune apply --only cpufreq (echo performance > "
        "/sys/devices/system/cpu/cpufreq/policyN/scaling_governor for %s); firmware: disable "
        "SpeedStep/EIST (or Cool'n'Quiet) for a fixed clock",
        phrase);
    free(moving);
}

static void rule_cpufreq_boost(struct rule_ctx *c)
{
    const struct cpufreq_info *cf = &c->s->cpufreq;
    const char *path = NULL;
    int on = -1;
    if (cf->intel_no_turbo != VALUE_UNKNOWN) {
        path = "/sys/devices/system/cpu/intel_pstate/no_turbo";
        on = cf->intel_no_turbo == 0;
    } else if (cf->boost != VALUE_UNKNOWN) {
        path = "/sys/devices/system/cpu/cpufreq/boost";
        on = cf->boost != 0;
    } else {
        for (int i = 0; i < cf->npolicy && on < 0; i++) {
            if (cf->policy[i].boost != VALUE_UNKNOWN) {
                on = cf->policy[i].boost != 0;
                path = "/sys/devices/system/cpu/cpufreq/policyN/boost";
            }
        }
    }
    if (on < 0) {
        if (cf->npolicy > 0)
            unknown(c, "no boost switch exposed (cpufreq/boost, intel_pstate/no_turbo)");
        return;
    }
    struct inspect_finding *f = emit(c, on ? INSPECT_WARNING : INSPECT_OK, on ? c->targets : "");
    evidence(f, path, "%s", strstr(path, "no_turbo") ? (on ? "0" : "1") : (on ? "1" : "0"));
    const struct cpufreq_policy_info *p = cpufreq_policy_of(cf, c->s->targets.cpu[0]);
    if (on && p && p->base_khz != VALUE_UNKNOWN && p->cpuinfo_max_khz != VALUE_UNKNOWN)
        effect(f,
               "turbo/boost is on: the clock rises from the %lld MHz base up to %lld MHz "
               "depending on how many cores are busy and how warm the package is, so "
               "execution time depends on the neighbours",
               (long long)(p->base_khz / 1000), (long long)(p->cpuinfo_max_khz / 1000));
    else if (on)
        effect(f, "turbo/boost is on: the clock depends on how many cores are busy and on "
                  "temperature, so execution time depends on the neighbours");
    else
        effect(f, "turbo/boost is off: the clock does not depend on the neighbours' load");
    fix(f, "jitterlab tune apply --only cpufreq (echo 1 > "
           "/sys/devices/system/cpu/intel_pstate/no_turbo, or echo 0 > "
           "/sys/devices/system/cpu/cpufreq/boost); firmware: disable Turbo Boost / Core "
           "Performance Boost");
}

static void rule_epp_not_performance(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    struct cpulist *slow = new_list();
    if (!slow)
        return;
    const struct cpufreq_policy_info *first = NULL, *any = NULL;
    for (int i = 0; i < s->targets.count; i++) {
        const struct cpufreq_policy_info *p = cpufreq_policy_of(&s->cpufreq, s->targets.cpu[i]);
        if (!p || !p->epp[0])
            continue;
        any = p;
        if (strcmp(p->epp, "performance") == 0)
            continue;
        cpulist_add(slow, s->targets.cpu[i]);
        if (!first)
            first = p;
    }
    if (!any) {
        free(slow); /* no EPP (no HWP, or a passive driver): nothing to check */
        return;
    }
    char path[128];
    const struct cpufreq_policy_info *p = first ? first : any;
    snprintf(path, sizeof path,
             "/sys/devices/system/cpu/cpufreq/policy%d/energy_performance_preference", p->id);
    if (!first) {
        struct inspect_finding *f = emit(c, INSPECT_OK, c->targets);
        evidence(f, path, "%s", p->epp);
        effect(f, "the hardware P-state control is asked for performance");
        fix(f, "nothing to do");
        free(slow);
        return;
    }
    char cpus[256], phrase[280];
    format_list(slow, cpus, sizeof cpus);
    cpus_phrase(cpus, phrase, sizeof phrase);
    struct inspect_finding *f = emit(c, INSPECT_WARNING, cpus);
    evidence(f, path, "%s", p->epp);
    effect(f,
           "energy-performance preference %s on %s: the hardware (HWP) raises the clock "
           "slowly after idle and lowers it early, so a periodic thread often runs at a "
           "low frequency",
           p->epp, phrase);
    fix(f, "jitterlab tune apply --only cpufreq (echo performance > "
           "/sys/devices/system/cpu/cpufreq/policyN/energy_performance_preference)");
    free(slow);
}

/* ---- isolation -------------------------------------------------------- */

static void rule_no_isolation(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    struct cpulist *missing = new_list();
    if (!missing)
        return;
    cpulist_subtract(&s->targets, &s->base.isolated_list, missing);
    if (missing->count == 0) {
        struct inspect_finding *f = emit(c, INSPECT_OK, c->targets);
        evidence(f, "/sys/devices/system/cpu/isolated", "%s", s->base.isolated);
        effect(f, "the target CPUs are isolated from the scheduler's load balancing");
        fix(f, "nothing to do");
        free(missing);
        return;
    }
    char cpus[256], phrase[280];
    format_list(missing, cpus, sizeof cpus);
    cpus_phrase(cpus, phrase, sizeof phrase);
    struct inspect_finding *f = emit(c, INSPECT_WARNING, cpus);
    evidence(f, "/sys/devices/system/cpu/isolated", "%s",
             s->base.isolated[0] ? s->base.isolated : "(none)");
    if (s->cmdline.isolcpus.present)
        evidence(f, "/proc/cmdline", "isolcpus=%s", s->cmdline.isolcpus.text);
    effect(f,
           "%s %s not isolated: the scheduler balances any task onto %s, and unbound "
           "kernel threads and workqueues run there",
           phrase, missing->count == 1 ? "is" : "are", missing->count == 1 ? "it" : "them");
    fix(f,
        "boot: isolcpus=domain,managed_irq,%s nohz_full=%s rcu_nocbs=%s (or a cpuset "
        "partition of type isolated at runtime)",
        cpus, cpus, cpus);
    free(missing);
}

static void rule_nohz_full_missing(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    struct cpulist *nohz = new_list(), *missing = new_list();
    if (!nohz || !missing) {
        free(nohz);
        free(missing);
        return;
    }
    const char *why = NULL;
    if (cpulist_parse(s->base.nohz_full, nohz, &why) != 0)
        nohz->count = 0;
    if (nohz->count == 0 && s->cmdline.nohz_full.valid)
        *nohz = s->cmdline.nohz_full.cpus;
    cpulist_subtract(&s->targets, nohz, missing);
    struct inspect_finding *f;
    if (missing->count == 0) {
        f = emit(c, INSPECT_OK, c->targets);
        evidence(f, "/sys/devices/system/cpu/nohz_full", "%s", s->base.nohz_full);
        effect(f, "the scheduler tick stops on the target CPUs while one task runs there");
        fix(f, "nothing to do");
    } else {
        char cpus[256], phrase[280];
        format_list(missing, cpus, sizeof cpus);
        cpus_phrase(cpus, phrase, sizeof phrase);
        f = emit(c, INSPECT_WARNING, cpus);
        evidence(f, "/sys/devices/system/cpu/nohz_full", "%s",
                 s->base.nohz_full[0] ? s->base.nohz_full : "(none or absent)");
        if (s->config.present)
            evidence(f, "/proc/config.gz", "CONFIG_NO_HZ_FULL %s, CONFIG_HZ=%lld",
                     s->config.no_hz_full ? "y" : "not set",
                     (long long)(s->config.hz != VALUE_UNKNOWN ? s->config.hz : 0));
        if (s->config.hz != VALUE_UNKNOWN && s->config.hz > 0)
            effect(f,
                   "the scheduler tick interrupts %s every %.3g ms (CONFIG_HZ=%lld), a few "
                   "µs each time, also while the real-time thread runs",
                   phrase, 1000.0 / (double)s->config.hz, (long long)s->config.hz);
        else
            effect(f,
                   "the scheduler tick interrupts %s every 1-10 ms, a few µs each time, "
                   "also while the real-time thread runs",
                   phrase);
        fix(f, "boot: nohz_full=%s%s", cpus,
            s->config.present && !s->config.no_hz_full
                ? " (this kernel lacks CONFIG_NO_HZ_FULL: use one built with it)"
                : "");
    }
    free(nohz);
    free(missing);
}

static void rule_rcu_nocbs_missing(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    if (s->cmdline.rcu_nocbs.all) {
        struct inspect_finding *f = emit(c, INSPECT_OK, c->targets);
        evidence(f, "/proc/cmdline", "rcu_nocbs=%s", s->cmdline.rcu_nocbs.text);
        effect(f, "RCU callbacks of every CPU run in rcuo kthreads");
        fix(f, "nothing to do");
        return;
    }
    struct cpulist *covered = new_list(), *missing = new_list();
    if (!covered || !missing) {
        free(covered);
        free(missing);
        return;
    }
    *covered = s->cmdline.rcu_nocbs.cpus;
    /* nohz_full implies rcu_nocbs for the same CPUs */
    const struct cpulist *nohz = &s->cmdline.nohz_full.cpus;
    for (int i = 0; i < nohz->count; i++)
        cpulist_add(covered, nohz->cpu[i]);
    cpulist_subtract(&s->targets, covered, missing);
    struct inspect_finding *f;
    if (missing->count == 0) {
        f = emit(c, INSPECT_OK, c->targets);
        evidence(f, "/proc/cmdline", "rcu_nocbs=%s nohz_full=%s",
                 s->cmdline.rcu_nocbs.present ? s->cmdline.rcu_nocbs.text : "(absent)",
                 s->cmdline.nohz_full.present ? s->cmdline.nohz_full.text : "(absent)");
        effect(f, "RCU callbacks of the target CPUs are offloaded to rcuo kthreads");
        fix(f, "nothing to do");
    } else {
        char cpus[256], phrase[280];
        format_list(missing, cpus, sizeof cpus);
        cpus_phrase(cpus, phrase, sizeof phrase);
        f = emit(c, INSPECT_WARNING, cpus);
        evidence(f, "/proc/cmdline", "rcu_nocbs=%s",
                 s->cmdline.rcu_nocbs.present ? s->cmdline.rcu_nocbs.text : "(absent)");
        effect(f,
               "RCU callbacks run on %s in softirq context after each grace period, in "
               "bursts that can take tens of µs",
               phrase);
        fix(f, "boot: rcu_nocbs=%s (implied by nohz_full=%s)", cpus, cpus);
    }
    free(covered);
    free(missing);
}

static void rule_smt_sibling_shared(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    const struct cpu_topology *t = &s->topology;
    if (strcmp(t->smt_control, "off") == 0 || strcmp(t->smt_control, "forceoff") == 0 ||
        strcmp(t->smt_control, "notsupported") == 0 || t->smt_active == 0) {
        struct inspect_finding *f = emit(c, INSPECT_OK, "");
        if (t->smt_control[0])
            evidence(f, "/sys/devices/system/cpu/smt/control", "%s", t->smt_control);
        if (t->smt_active != VALUE_UNKNOWN)
            evidence(f, "/sys/devices/system/cpu/smt/active", "%lld", (long long)t->smt_active);
        effect(f, "no CPU shares its core with another hardware thread");
        fix(f, "nothing to do");
        return;
    }
    struct cpulist *shared = new_list(), *sib = new_list(), *outside = new_list();
    if (!shared || !sib || !outside) {
        free(shared);
        free(sib);
        free(outside);
        return;
    }
    int known = 0;
    bool any_outside = false;
    int example_cpu = -1;
    const char *example_list = "";
    for (int i = 0; i < s->targets.count; i++) {
        int cpu = s->targets.cpu[i];
        for (int k = 0; k < t->ncpu; k++) {
            if (t->cpu[k].cpu != cpu || !t->cpu[k].thread_siblings[0])
                continue;
            known++;
            const char *why = NULL;
            if (cpulist_parse(t->cpu[k].thread_siblings, sib, &why) != 0 || sib->count < 2)
                continue;
            cpulist_add(shared, cpu);
            cpulist_subtract(sib, &s->targets, outside);
            if (outside->count > 0)
                any_outside = true;
            if (example_cpu < 0 || outside->count > 0) {
                example_cpu = cpu;
                example_list = t->cpu[k].thread_siblings;
            }
        }
    }
    if (known == 0) {
        unknown(c, "no thread_siblings_list readable for the target CPUs");
    } else if (shared->count == 0) {
        struct inspect_finding *f = emit(c, INSPECT_OK, c->targets);
        effect(f, "each target CPU has its core to itself");
        fix(f, "nothing to do");
    } else {
        char cpus[256], phrase[280], path[96];
        format_list(shared, cpus, sizeof cpus);
        cpus_phrase(cpus, phrase, sizeof phrase);
        struct inspect_finding *f = emit(c, any_outside ? INSPECT_WARNING : INSPECT_INFO, cpus);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
                 example_cpu);
        evidence(f, path, "%s", example_list);
        if (t->smt_control[0])
            evidence(f, "/sys/devices/system/cpu/smt/control", "%s", t->smt_control);
        effect(f,
               "%s share%s a core with another hardware thread (CPU %d: %s)%s: whatever "
               "runs on the sibling competes for execution units and the L1/L2 caches",
               phrase, shared->count == 1 ? "s" : "", example_cpu, example_list,
               any_outside ? ", and some siblings are not target CPUs" : "");
        fix(f, "take the siblings offline (echo 0 > /sys/devices/system/cpu/cpuN/online), or "
               "boot: nosmt; firmware: disable Hyper-Threading / SMT");
    }
    free(shared);
    free(sib);
    free(outside);
}

/* ---- interference ----------------------------------------------------- */

static void rule_irq_on_rt_cpu(struct rule_ctx *c)
{
    const struct irq_table *t = &c->s->irqs;
    if (t->nirq == 0) {
        unknown(c, "/proc/interrupts unreadable or empty");
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
        struct inspect_finding *f = emit(c, INSPECT_OK, c->targets);
        evidence(f, "/proc/irq/*/smp_affinity_list", "no device IRQ includes a target CPU");
        effect(f, "device interrupts are kept off the target CPUs");
        fix(f, "nothing to do");
        return;
    }
    struct inspect_finding *f = emit(c, INSPECT_WARNING, c->targets);
    for (int k = 0; k < norder && k < 8; k++) {
        const struct irq_line *irq = &t->irq[order[k]];
        char path[96];
        bool eff = irq->effective_affinity_list[0] != '\0';
        snprintf(path, sizeof path, "/proc/irq/%s/%s", irq->id,
                 eff ? "effective_affinity_list" : "smp_affinity_list");
        evidence(f, path, "%s (%s; %llu on the target CPUs)",
                 eff ? irq->effective_affinity_list : irq->smp_affinity_list, irq->desc,
                 (unsigned long long)irq->target_total);
    }
    char phrase[280];
    cpus_phrase(c->targets, phrase, sizeof phrase);
    effect(f,
           "%d device interrupt%s can arrive on %s (%llu handled there since boot); each "
           "runs its handler, on PREEMPT_RT wakes its IRQ thread, ahead of the real-time "
           "thread",
           n, n == 1 ? "" : "s", phrase, (unsigned long long)handled);
    fix(f, "jitterlab tune apply --only irq-affinity (writes the housekeeping CPUs to "
           "/proc/irq/N/smp_affinity_list; managed IRQs refuse); boot: irqaffinity=<housekeeping "
           "CPUs> and isolcpus=managed_irq,...");
}

static void rule_threads_on_rt_cpu(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    const struct task_table *t = &s->tasks;
    if (t->scanned == 0) {
        unknown(c, "no /proc/PID/task/TID/{stat,status} readable");
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
    struct inspect_finding *f = emit(c, sev, c->targets);
    for (int i = 0; i < nex; i++) {
        char path[96];
        snprintf(path, sizeof path, "/proc/%d/task/%d/stat", examples[i]->pid, examples[i]->tid);
        evidence(f, path, "%s, %s thread, last ran on CPU %d, allowed %s", examples[i]->comm,
                 examples[i]->kernel_thread ? "kernel" : "user", examples[i]->processor,
                 examples[i]->cpus_allowed);
    }
    char phrase[280];
    cpus_phrase(c->targets, phrase, sizeof phrase);
    if (allowed == 0)
        effect(f, "only per-CPU kernel threads%s may run on %s",
               pinned_apps ? " and threads "
                             "pinned there"
                           : "",
               phrase);
    else
        effect(f, "%d thread%s (%d kernel) of %d may run on %s and %d last ran there%s", allowed,
               allowed == 1 ? "" : "s", kernel, t->scanned, phrase, running,
               isolated ? "" : " (no isolation: see no-isolation)");
    fix(f, "boot: isolcpus=domain,managed_irq,<CPUs> nohz_full=<CPUs> (unbound kernel threads "
           "then stay on the housekeeping CPUs); user threads: taskset -a -p -c <housekeeping> "
           "PID, or a cpuset");
    (void)pinned_apps;
}

/* ---- kernel ----------------------------------------------------------- */

static void rule_not_preempt_rt(struct rule_ctx *c)
{
    const struct inspect_system *s = c->s;
    const char *model = s->base.preempt_model;
    struct inspect_finding *f;
    if (strcmp(model, "PREEMPT_RT") == 0) {
        f = emit(c, INSPECT_OK, "");
        evidence(f, s->base.preempt_source, "PREEMPT_RT");
        effect(f, "a PREEMPT_RT kernel: interrupt handlers and most kernel locks are "
                  "preemptible");
        fix(f, "nothing to do");
        return;
    }
    bool full = strcmp(model, "full") == 0 || strcmp(model, "lazy") == 0;
    int64_t limit_ns = full ? 200 * 1000 : 1000 * 1000;
    f = emit(c, c->budget_ns < limit_ns ? INSPECT_CRITICAL : INSPECT_WARNING, "");
    if (strcmp(s->base.preempt_source, "/proc/config.gz") == 0) {
        char option[32] = "CONFIG_PREEMPT";
        if (!full || strcmp(model, "lazy") == 0) {
            size_t n = strlen(option);
            option[n++] = '_';
            for (const char *m = model; *m && n < sizeof option - 1; m++)
                option[n++] = (char)(*m >= 'a' && *m <= 'z' ? *m - 'a' + 'A' : *m);
            option[n] = '\0';
        }
        evidence(f, "/proc/config.gz", "%s=y%s", option,
                 s->config.preempt_dynamic ? ", CONFIG_PREEMPT_DYNAMIC=y (boot default)" : "");
    } else
        evidence(f, s->base.preempt_source[0] ? s->base.preempt_source : "/proc/version", "%s",
                 model[0] ? model : "no PREEMPT flag (none or voluntary)");
    evidence(f, "/proc/sys/kernel/osrelease", "%s", s->base.kernel);
    if (full)
        effect(f,
               "preemption model %s without PREEMPT_RT: spinlock sections, softirqs and "
               "interrupt handlers run non-preemptible, for hundreds of µs under load, "
               "%s the %s budget",
               model, c->budget_ns < limit_ns ? "above" : "near", c->budget);
    else
        effect(f,
               "preemption model %s: the kernel switches to a woken real-time thread only "
               "at preemption points, after up to milliseconds under load, %s the %s budget",
               model[0] ? model : "none/voluntary", c->budget_ns < limit_ns ? "above" : "near",
               c->budget);
    fix(f, "install a PREEMPT_RT kernel (Debian: linux-image-rt-amd64; mainline 6.12+: "
           "CONFIG_PREEMPT_RT=y); on a PREEMPT_DYNAMIC kernel boot preempt=full at least");
}

static void rule_nmi_watchdog(struct rule_ctx *c)
{
    int64_t v = c->s->tunables.nmi_watchdog;
    if (v == VALUE_UNKNOWN) {
        unknown(c, "/proc/sys/kernel/nmi_watchdog missing or unreadable");
        return;
    }
    struct inspect_finding *f = emit(c, v ? INSPECT_WARNING : INSPECT_OK, v ? c->targets : "");
    evidence(f, "/proc/sys/kernel/nmi_watchdog", "%lld", (long long)v);
    if (v)
        effect(f, "the hard-lockup detector raises a non-maskable interrupt on every CPU "
                  "every few seconds (a perf counter overflow), a few µs that nothing can "
                  "defer");
    else
        effect(f, "the NMI watchdog is off");
    fix(f, "jitterlab tune apply --only nmi-watchdog (echo 0 > "
           "/proc/sys/kernel/nmi_watchdog); boot: nmi_watchdog=0 nosoftlockup");
}

/* ---- scheduler -------------------------------------------------------- */

static void rule_rt_throttling(struct rule_ctx *c)
{
    const struct kernel_tunables *t = &c->s->tunables;
    if (t->sched_rt_runtime_us == VALUE_UNKNOWN) {
        unknown(c, "/proc/sys/kernel/sched_rt_runtime_us missing or unreadable");
        return;
    }
    bool on = t->sched_rt_runtime_us >= 0;
    struct inspect_finding *f = emit(c, on ? INSPECT_WARNING : INSPECT_OK, "");
    evidence(f, "/proc/sys/kernel/sched_rt_runtime_us", "%lld", (long long)t->sched_rt_runtime_us);
    if (t->sched_rt_period_us != VALUE_UNKNOWN)
        evidence(f, "/proc/sys/kernel/sched_rt_period_us", "%lld",
                 (long long)t->sched_rt_period_us);
    if (on && t->sched_rt_period_us > 0)
        effect(f,
               "real-time threads get at most %lld µs of every %lld µs; a busy-polling or "
               "runaway RT thread is stopped for the remaining %lld µs",
               (long long)t->sched_rt_runtime_us, (long long)t->sched_rt_period_us,
               (long long)(t->sched_rt_period_us - t->sched_rt_runtime_us));
    else if (on)
        effect(f, "real-time threads are throttled once they use up their runtime");
    else
        effect(f, "real-time throttling is off");
    fix(f, "jitterlab tune apply --only rt-throttling (echo -1 > "
           "/proc/sys/kernel/sched_rt_runtime_us)");
}

static void rule_timer_migration(struct rule_ctx *c)
{
    int64_t v = c->s->tunables.timer_migration;
    if (v == VALUE_UNKNOWN) {
        unknown(c, "/proc/sys/kernel/timer_migration missing or unreadable");
        return;
    }
    struct inspect_finding *f = emit(c, v ? INSPECT_INFO : INSPECT_OK, "");
    evidence(f, "/proc/sys/kernel/timer_migration", "%lld", (long long)v);
    effect(f, v ? "timers armed on one CPU may expire on another, so timer work can land on "
                  "the real-time CPUs"
                : "timers stay on the CPU that armed them");
    fix(f, "jitterlab tune apply --only timer-migration (echo 0 > "
           "/proc/sys/kernel/timer_migration)");
}

/* ---- memory ----------------------------------------------------------- */

static void rule_thp_enabled(struct rule_ctx *c)
{
    const char *v = c->s->tunables.thp_enabled;
    if (!v[0]) {
        unknown(c, "/sys/kernel/mm/transparent_hugepage/enabled missing or unreadable");
        return;
    }
    enum inspect_severity sev = strcmp(v, "always") == 0    ? INSPECT_WARNING
                                : strcmp(v, "madvise") == 0 ? INSPECT_INFO
                                                            : INSPECT_OK;
    struct inspect_finding *f = emit(c, sev, "");
    evidence(f, "/sys/kernel/mm/transparent_hugepage/enabled", "%s", v);
    if (sev == INSPECT_WARNING)
        effect(f, "every process gets huge pages: page faults may compact memory and "
                  "khugepaged collapses pages in the background, stalls of up to milliseconds");
    else if (sev == INSPECT_INFO)
        effect(f, "huge pages only where a program asks for them (madvise)");
    else
        effect(f, "transparent huge pages are off");
    fix(f, "jitterlab tune apply --only thp (echo never > "
           "/sys/kernel/mm/transparent_hugepage/enabled); boot: transparent_hugepage=never");
}

static void rule_swap_in_use(struct rule_ctx *c)
{
    const struct kernel_tunables *t = &c->s->tunables;
    if (t->swap_total_kb == VALUE_UNKNOWN || t->swap_free_kb == VALUE_UNKNOWN) {
        unknown(c, "/proc/meminfo missing or without SwapTotal/SwapFree");
        return;
    }
    int64_t used = t->swap_total_kb - t->swap_free_kb;
    enum inspect_severity sev = used > 0               ? INSPECT_WARNING
                                : t->swap_total_kb > 0 ? INSPECT_INFO
                                                       : INSPECT_OK;
    struct inspect_finding *f = emit(c, sev, "");
    evidence(f, "/proc/meminfo", "SwapTotal %lld kB, SwapFree %lld kB", (long long)t->swap_total_kb,
             (long long)t->swap_free_kb);
    if (used > 0)
        effect(f,
               "%lld MiB are swapped out: a thread that touches such a page waits for the "
               "disk; only memory-locked (mlockall) processes are safe",
               (long long)(used / 1024));
    else if (t->swap_total_kb > 0)
        effect(f, "swap is configured (%lld MiB) but unused", (long long)(t->swap_total_kb / 1024));
    else
        effect(f, "no swap");
    fix(f, "swapoff -a (and drop swap from /etc/fstab); real-time processes mlockall their "
           "memory (jitterlab run does)");
}

/* ---- clock ------------------------------------------------------------ */

static void rule_clocksource_not_tsc(struct rule_ctx *c)
{
    const struct system_info *b = &c->s->base;
    if (!b->clocksource[0]) {
        unknown(c, "current_clocksource missing or unreadable");
        return;
    }
    static const char *const slow[] = {"hpet", "acpi_pm", "jiffies", "refined-jiffies", "pit"};
    bool is_slow = false;
    for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++)
        is_slow = is_slow || strcmp(b->clocksource, slow[i]) == 0;
    bool tsc = strcmp(b->clocksource, "tsc") == 0;
    enum inspect_severity sev = tsc || !b->tsc_present ? INSPECT_OK
                                : is_slow              ? INSPECT_WARNING
                                                       : INSPECT_INFO;
    if (!is_slow && !tsc && !b->tsc_present)
        sev = INSPECT_OK; /* not x86: the architecture's counter */
    struct inspect_finding *f = emit(c, sev, "");
    evidence(f, "/sys/devices/system/clocksource/clocksource0/current_clocksource", "%s",
             b->clocksource);
    evidence(f, "/sys/devices/system/clocksource/clocksource0/available_clocksource", "%s",
             b->clocksource_available);
    if (sev == INSPECT_WARNING)
        effect(f,
               "clocksource %s: every clock read is a system call and a slow device "
               "access (~0.5-1.5 µs for HPET) instead of a ~20 ns TSC read in the vDSO",
               b->clocksource);
    else if (sev == INSPECT_INFO)
        effect(f,
               "clocksource %s (paravirtual, read in the vDSO): fine in a VM, but "
               "timestamps depend on the host",
               b->clocksource);
    else
        effect(f, "clocksource %s: clock reads stay in the vDSO", b->clocksource);
    if (strstr(b->clocksource_available, "tsc") && !tsc)
        fix(f, "echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource "
               "(only with an invariant, synchronised TSC: see tsc-not-invariant); boot: "
               "clocksource=tsc");
    else
        fix(f, "%s",
            tsc ? "nothing to do"
                : "the kernel did not offer tsc; it marks the TSC unstable when it "
                  "is not invariant or not synchronised (see tsc-not-invariant)");
}

static void rule_tsc_not_invariant(struct rule_ctx *c)
{
    const struct system_info *b = &c->s->base;
    if (!b->tsc_present) {
        unknown(c, "no tsc flag in /proc/cpuinfo (not x86, or cpuinfo unreadable)");
        return;
    }
    struct inspect_finding *f = emit(c, b->tsc_invariant ? INSPECT_OK : INSPECT_WARNING, "");
    evidence(f, "/proc/cpuinfo", "constant_tsc %s, nonstop_tsc %s", b->tsc_constant ? "yes" : "no",
             b->tsc_nonstop ? "yes" : "no");
    if (b->tsc_invariant)
        effect(f, "the TSC ticks at a constant rate through P- and C-states");
    else
        effect(f,
               "the TSC %s: the kernel may fall back to a slow clocksource and "
               "jitterlab run --clock tsc is refused",
               !b->tsc_constant ? "changes rate with the CPU frequency" : "stops in deep C-states");
    fix(f, "%s",
        b->tsc_invariant ? "nothing to do"
                         : "a CPU with an invariant TSC; else keep C-states shallow "
                           "(idle-states) and the frequency fixed (cpufreq)");
}

/* ---- platform --------------------------------------------------------- */

static void rule_hypervisor(struct rule_ctx *c)
{
    const struct system_info *b = &c->s->base;
    struct inspect_finding *f = emit(c, b->hypervisor[0] ? INSPECT_WARNING : INSPECT_OK, "");
    evidence(f, "/proc/cpuinfo", "hypervisor flag %s", b->hypervisor[0] ? "set" : "not set");
    if (b->hypervisor[0]) {
        evidence(f, "/sys/hypervisor/type", "%s", b->hypervisor);
        effect(f,
               "a hypervisor (%s) schedules these vCPUs: host activity, VM exits and vCPU "
               "preemption add latency that the guest can neither see nor control",
               b->hypervisor);
        fix(f, "run on bare metal, or pin the vCPUs to isolated host CPUs on a real-time host "
               "(KVM: vcpupin, SCHED_FIFO vCPU threads, isolcpus on the host)");
    } else {
        effect(f, "bare metal");
        fix(f, "nothing to do");
    }
}

/* ---- the table -------------------------------------------------------- */

static const struct inspect_rule rules[] = {
    {"cstate-exit-latency", "cpu idle", rule_cstate_exit_latency},
    {"pm-qos-unset", "cpu idle", rule_pm_qos_unset},
    {"cpufreq-governor", "cpu frequency", rule_cpufreq_governor},
    {"cpufreq-boost", "cpu frequency", rule_cpufreq_boost},
    {"epp-not-performance", "cpu frequency", rule_epp_not_performance},
    {"not-preempt-rt", "kernel", rule_not_preempt_rt},
    {"nmi-watchdog", "kernel", rule_nmi_watchdog},
    {"no-isolation", "isolation", rule_no_isolation},
    {"nohz-full-missing", "isolation", rule_nohz_full_missing},
    {"rcu-nocbs-missing", "isolation", rule_rcu_nocbs_missing},
    {"smt-sibling-shared", "isolation", rule_smt_sibling_shared},
    {"irq-on-rt-cpu", "interference", rule_irq_on_rt_cpu},
    {"threads-on-rt-cpu", "interference", rule_threads_on_rt_cpu},
    {"rt-throttling", "scheduler", rule_rt_throttling},
    {"timer-migration", "scheduler", rule_timer_migration},
    {"thp-enabled", "memory", rule_thp_enabled},
    {"swap-in-use", "memory", rule_swap_in_use},
    {"clocksource-not-tsc", "clock", rule_clocksource_not_tsc},
    {"tsc-not-invariant", "clock", rule_tsc_not_invariant},
    {"hypervisor", "platform", rule_hypervisor},
};

#define RULE_COUNT (sizeof rules / sizeof rules[0])

size_t inspect_rule_count(void)
{
    return RULE_COUNT;
}

const char *inspect_rule_id(size_t i)
{
    return i < RULE_COUNT ? rules[i].id : NULL;
}

const char *inspect_severity_name(enum inspect_severity sev)
{
    switch (sev) {
    case INSPECT_CRITICAL:
        return "critical";
    case INSPECT_WARNING:
        return "warning";
    case INSPECT_INFO:
        return "info";
    case INSPECT_OK:
        break;
    }
    return "ok";
}

const struct inspect_finding *inspect_finding_by_id(const struct inspect_findings *f,
                                                    const char *id)
{
    for (int i = 0; i < f->count; i++)
        if (strcmp(f->finding[i].id, id) == 0)
            return &f->finding[i];
    return NULL;
}

/* Worst first; equal severities keep table order (insertion sort: stable). */
static void sort_findings(struct inspect_findings *out)
{
    for (int i = 1; i < out->count; i++) {
        struct inspect_finding tmp = out->finding[i];
        int j = i;
        while (j > 0 && out->finding[j - 1].severity < tmp.severity) {
            out->finding[j] = out->finding[j - 1];
            j--;
        }
        out->finding[j] = tmp;
    }
}

static void write_verdict(struct inspect_findings *out, const char *budget)
{
    int critical = 0, warnings = 0;
    for (int i = 0; i < out->count; i++) {
        critical += out->finding[i].severity == INSPECT_CRITICAL;
        warnings += out->finding[i].severity == INSPECT_WARNING;
    }
    out->ready = critical == 0;
    const struct inspect_finding *worst = out->count ? &out->finding[0] : NULL;
    if (!out->ready) {
        /* the effect's first clause names the cause with its number */
        char cause[512];
        snprintf(cause, sizeof cause, "%s", worst->effect);
        cause[strcspn(cause, ";(")] = '\0';
        size_t n = strlen(cause);
        while (n > 0 && (cause[n - 1] == ' ' || cause[n - 1] == ','))
            cause[--n] = '\0';
        snprintf(out->verdict_reason, sizeof out->verdict_reason,
                 "not ready for a %s budget: %s [%s]%s", budget, cause, worst->id,
                 critical > 1 ? ", among other critical findings" : "");
    } else if (warnings > 0)
        snprintf(out->verdict_reason, sizeof out->verdict_reason,
                 "ready for a %s budget: nothing critical; the worst of %d warning%s is %s", budget,
                 warnings, warnings == 1 ? "" : "s", worst->id);
    else
        snprintf(out->verdict_reason, sizeof out->verdict_reason,
                 "ready for a %s budget: nothing critical, no warnings", budget);
}

void inspect_rules_run(const struct inspect_system *s, int64_t budget_ns,
                       struct inspect_findings *out)
{
    memset(out, 0, sizeof *out);
    out->budget_ns = budget_ns;
    struct rule_ctx c = {.s = s, .budget_ns = budget_ns, .out = out};
    us_text(budget_ns, c.budget, sizeof c.budget);
    format_list(&s->targets, c.targets, sizeof c.targets);
    for (size_t i = 0; i < RULE_COUNT; i++) {
        c.id = rules[i].id;
        c.area = rules[i].area;
        rules[i].check(&c);
    }
    sort_findings(out);
    write_verdict(out, c.budget);
}
