/*
 * The tuning actions, one table entry each: what to change for a latency
 * budget on the target CPUs, read from the machine through the same readers
 * as `jitterlab inspect` (the finding ids name these actions in their fix).
 * An action only plans; tune.c journals, writes and restores. Actions that
 * change the whole machine's behaviour in ways people may not expect
 * (RT throttling, transparent hugepages, NMI watchdog, the cache partition
 * of tune_resctrl.c) are opt-in (--only).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/cpufreq.h"
#include "sys/cpuidle.h"
#include "sys/irq.h"
#include "sys/kernel_tunables.h"
#include "sys/read_notes.h"
#include "tune/tune.h"
#include "tune/tune_resctrl.h"

/* The exit latency allowed for this budget, in µs (rounded down). */
static int64_t limit_us(const struct tune_request *rq)
{
    return tune_exit_latency_limit_ns(rq->budget_ns) / 1000;
}

static void plan_pm_qos(const struct tune_request *rq, struct tune_plan *plan)
{
    tune_plan_note(plan,
                   "pm-qos: /dev/cpu_dma_latency is held at %lld us only while a jitterlab "
                   "process holds it (run --tune, tune hold)",
                   (long long)limit_us(rq));
}

static void plan_idle_states(const struct tune_request *rq, struct tune_plan *plan)
{
    struct cpuidle_info ci;
    static struct read_notes notes;
    if (cpuidle_read(rq->sr, &rq->targets, &ci, &notes) != 0)
        return;
    int planned = 0;
    for (int c = 0; c < ci.ncpu; c++) {
        const struct cpuidle_cpu *cpu = &ci.cpu[c];
        for (int s = 0; s < cpu->nstates; s++) {
            const struct cpuidle_state_info *st = &cpu->state[s];
            if (st->latency_us == VALUE_UNKNOWN ||
                st->latency_us * 1000 <= tune_exit_latency_limit_ns(rq->budget_ns) ||
                st->disable != 0) /* already disabled, or unknown: nothing to snapshot */
                continue;
            char path[128], what[160];
            snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/disable",
                     cpu->cpu, st->index);
            snprintf(what, sizeof(what),
                     "CPU %d idle state %s: exit latency %lld us > half the budget", cpu->cpu,
                     st->name, (long long)st->latency_us);
            tune_plan_add(plan, "idle-states", path, "0", "1", what);
            planned++;
        }
    }
    if (!planned)
        tune_plan_note(plan,
                       "idle-states: no idle state of the target CPUs exits slower than "
                       "the budget%s",
                       ci.driver[0] && strcmp(ci.driver, "none") != 0 ? ""
                                                                      : " (no cpuidle driver)");
    cpuidle_free(&ci);
}

/* How much wake-up latency a pm_qos_resume_latency_us value allows, in µs:
 * "0" means no limit at all, "n/a" none allowed (the strictest). -2 for
 * anything else. */
static int64_t resume_latency_allowed_us(const char *value)
{
    if (strcmp(value, "n/a") == 0)
        return 0;
    char *end;
    long long v = strtoll(value, &end, 10);
    if (end == value || *end || v < 0)
        return -2;
    return v == 0 ? INT64_MAX : v;
}

static void plan_resume_latency(const struct tune_request *rq, struct tune_plan *plan)
{
    char want[32];
    if (limit_us(rq) >= 1)
        snprintf(want, sizeof(want), "%lld", (long long)limit_us(rq));
    else
        snprintf(want, sizeof(want), "n/a"); /* no exit latency allowed at all */
    for (int i = 0; i < rq->targets.count; i++) {
        char path[128], what[96];
        char *now = NULL;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/power/pm_qos_resume_latency_us",
                 rq->targets.cpu[i]);
        if (sysroot_read_value(rq->sr, path, &now) < 0) {
            tune_plan_note(plan, "resume-latency: %s is missing", path);
            continue;
        }
        int64_t allowed = resume_latency_allowed_us(now);
        /* never loosen: a limit at least as strict as the plan's stays */
        if (allowed == -2)
            tune_plan_note(plan, "resume-latency: %s reads '%.40s'; left alone", path, now);
        else if (allowed > resume_latency_allowed_us(want)) {
            snprintf(what, sizeof(what), "CPU %d resume latency limit", rq->targets.cpu[i]);
            tune_plan_add(plan, "resume-latency", path, now, want, what);
        }
        free(now);
    }
}

/* One scaling_{max,min}_freq change of a policy, when it differs and is known. */
static void plan_freq_limit(struct tune_plan *plan, const char *base, const char *file,
                            int64_t now_khz, int64_t want_khz, const char *want, int policy,
                            const char *what_text)
{
    if (now_khz == want_khz || now_khz == VALUE_UNKNOWN)
        return;
    char path[512], old[32], what[160];
    snprintf(path, sizeof(path), "%s/%s", base, file);
    snprintf(old, sizeof(old), "%lld", (long long)now_khz);
    snprintf(what, sizeof(what), "policy%d %s", policy, what_text);
    tune_plan_add(plan, "cpufreq", path, old, want, what);
}

static void plan_cpufreq(const struct tune_request *rq, struct tune_plan *plan)
{
    struct cpufreq_info cf;
    static struct read_notes notes;
    if (cpufreq_read(rq->sr, &cf, &notes) != 0)
        return;
    if (cf.npolicy == 0)
        tune_plan_note(plan, "cpufreq: this machine has no cpufreq policies (fixed frequency "
                             "or a hypervisor decides)");
    for (int p = 0; p < cf.npolicy; p++) {
        const struct cpufreq_policy_info *pol = &cf.policy[p];
        bool covers = false;
        for (int i = 0; i < rq->targets.count && !covers; i++)
            covers = cpulist_text_contains(
                pol->affected_cpus[0] ? pol->affected_cpus : pol->related_cpus, rq->targets.cpu[i]);
        if (!covers)
            continue;
        char base[64], path[128], what[96], value[32];
        snprintf(base, sizeof(base), "/sys/devices/system/cpu/cpufreq/policy%d", pol->id);
        /* EPP before the governor: intel_pstate and amd-pstate refuse EPP writes
         * (EBUSY) while the governor is performance, which implies EPP
         * performance anyway; restore (reverse order) then puts the governor
         * back before EPP. With the governor performance already, EPP reads
         * performance and is left alone. */
        bool gov_performance = strcmp(pol->governor, "performance") == 0;
        if (pol->epp[0] && strcmp(pol->epp, "performance") != 0 && !gov_performance) {
            snprintf(path, sizeof(path), "%s/energy_performance_preference", base);
            snprintf(what, sizeof(what), "policy%d energy/performance preference", pol->id);
            tune_plan_add(plan, "cpufreq", path, pol->epp, "performance", what);
        }
        if (pol->governor[0] && !gov_performance) {
            if (strstr(pol->available_governors, "performance")) {
                snprintf(path, sizeof(path), "%s/scaling_governor", base);
                snprintf(what, sizeof(what), "policy%d governor", pol->id);
                tune_plan_add(plan, "cpufreq", path, pol->governor, "performance", what);
            } else {
                tune_plan_note(plan, "cpufreq: policy%d offers no performance governor (%s)",
                               pol->id, pol->available_governors);
            }
        }
        int64_t fixed = rq->freq_khz > 0 ? rq->freq_khz : pol->cpuinfo_max_khz;
        if (fixed != VALUE_UNKNOWN && fixed > 0) {
            snprintf(value, sizeof(value), "%lld", (long long)fixed);
            /* min <= max must hold at every step (older kernels refuse a
             * write that breaks it): below the current minimum, lower min
             * first; otherwise move max first. Restore runs in reverse. */
            bool min_first = pol->min_khz != VALUE_UNKNOWN && fixed < pol->min_khz;
            for (int step = 0; step < 2; step++) {
                if ((step == 0) == min_first)
                    plan_freq_limit(plan, base, "scaling_min_freq", pol->min_khz, fixed, value,
                                    pol->id, "minimum frequency = maximum (kHz)");
                else
                    plan_freq_limit(plan, base, "scaling_max_freq", pol->max_khz, fixed, value,
                                    pol->id, "maximum frequency (kHz)");
            }
        }
    }
    if (rq->boost >= 0) {
        char value[24];
        if (cf.boost != VALUE_UNKNOWN) {
            char old[24];
            snprintf(old, sizeof(old), "%lld", (long long)cf.boost);
            snprintf(value, sizeof(value), "%d", rq->boost);
            if (cf.boost != rq->boost)
                tune_plan_add(plan, "cpufreq", "/sys/devices/system/cpu/cpufreq/boost", old, value,
                              "boost");
        } else if (cf.intel_no_turbo != VALUE_UNKNOWN) {
            char old[24];
            snprintf(old, sizeof(old), "%lld", (long long)cf.intel_no_turbo);
            snprintf(value, sizeof(value), "%d", !rq->boost);
            if (cf.intel_no_turbo != !rq->boost)
                tune_plan_add(plan, "cpufreq", "/sys/devices/system/cpu/intel_pstate/no_turbo", old,
                              value, "turbo (intel_pstate no_turbo)");
        } else {
            tune_plan_note(plan, "cpufreq: no boost switch on this machine");
        }
    }
    cpufreq_free(&cf);
}

static void plan_irq_affinity(const struct tune_request *rq, struct tune_plan *plan)
{
    struct irq_table t;
    static struct read_notes notes;
    char online_text[1024];
    struct cpulist online, keep;
    if (sysroot_read_string(rq->sr, "/sys/devices/system/cpu/online", online_text,
                            sizeof(online_text)) < 0 ||
        cpulist_parse(online_text, &online, &(const char *){NULL}) != 0)
        return;
    cpulist_subtract(&online, &rq->targets, &keep);
    if (keep.count == 0) {
        tune_plan_note(plan, "irq-affinity: every online CPU is a target; nowhere to move IRQs");
        return;
    }
    if (irq_read(rq->sr, &rq->targets, &t, &notes) != 0)
        return;
    /* inspect's irq-on-rt-cpu counts the same ones (irq_placement_of): a
     * move pending in the kernel has nothing left to write. */
    for (int i = 0; i < t.nirq; i++) {
        const struct irq_line *l = &t.irq[i];
        if (!l->numeric || l->placement != IRQ_ALLOWED_ON_TARGET)
            continue;
        /* The list in full (irq_read keeps a short copy for people). */
        char path[64], *old = NULL;
        snprintf(path, sizeof(path), "/proc/irq/%s/smp_affinity_list", l->id);
        struct cpulist aff, moved;
        if (sysroot_read_value(rq->sr, path, &old) < 0 ||
            cpulist_parse(old, &aff, &(const char *){NULL}) != 0) {
            free(old);
            continue;
        }
        irq_moved_mask(&aff, &rq->targets, &keep, &moved);
        /* CPULIST_MAX_CPUS CPUs listed one by one take under 20 KiB */
        char *value = malloc(32 * 1024), what[160];
        if (value) {
            cpulist_format(&moved, value, 32 * 1024);
            snprintf(what, sizeof(what), "IRQ %s (%.100s) off the target CPUs", l->id, l->desc);
            tune_plan_add(plan, "irq-affinity", path, old, value, what);
        } else {
            plan->out_of_memory = true;
        }
        free(value);
        free(old);
    }
    irq_free(&t);
}

/* One integer file to a fixed value when it is not already there. */
static void plan_int_file(struct tune_plan *plan, const struct tune_request *rq, const char *action,
                          const char *path, const char *want, const char *what)
{
    char *now = NULL;
    if (sysroot_read_value(rq->sr, path, &now) < 0) {
        tune_plan_note(plan, "%s: %s is missing", action, path);
        return;
    }
    if (!tune_value_matches(want, now))
        tune_plan_add(plan, action, path, now, want, what);
    free(now);
}

static void plan_timer_migration(const struct tune_request *rq, struct tune_plan *plan)
{
    plan_int_file(plan, rq, "timer-migration", "/proc/sys/kernel/timer_migration", "0",
                  "timers stay on the CPU that armed them");
}

static void plan_rt_throttling(const struct tune_request *rq, struct tune_plan *plan)
{
    plan_int_file(plan, rq, "rt-throttling", "/proc/sys/kernel/sched_rt_runtime_us", "-1",
                  "no RT throttling (a runaway RT thread can then starve the CPU)");
}

static void plan_thp(const struct tune_request *rq, struct tune_plan *plan)
{
    const char *path = "/sys/kernel/mm/transparent_hugepage/enabled";
    char now[128], selected[32];
    if (sysroot_read_string(rq->sr, path, now, sizeof(now)) < 0 ||
        sysfs_selected_word(now, selected, sizeof(selected)) != 0) {
        tune_plan_note(plan, "thp: %s is missing or unreadable", path);
        return;
    }
    if (strcmp(selected, "never") != 0)
        tune_plan_add(plan, "thp", path, selected, "never", "transparent hugepages off");
}

static void plan_nmi_watchdog(const struct tune_request *rq, struct tune_plan *plan)
{
    plan_int_file(plan, rq, "nmi-watchdog", "/proc/sys/kernel/nmi_watchdog", "0",
                  "NMI watchdog off");
}

/* The files each action writes: the allow-list of apply and restore. */
static const char *const cpu_files[] = {"/sys/devices/system/cpu/", NULL};
static const char *const sysctl_timer_migration[] = {"/proc/sys/kernel/timer_migration", NULL};
static const char *const irq_files[] = {"/proc/irq/", NULL};
static const char *const sysctl_rt_runtime[] = {"/proc/sys/kernel/sched_rt_runtime_us", NULL};
static const char *const thp_files[] = {"/sys/kernel/mm/transparent_hugepage/", NULL};
static const char *const sysctl_nmi_watchdog[] = {"/proc/sys/kernel/nmi_watchdog", NULL};
static const char *const pm_qos_file[] = {"/dev/cpu_dma_latency", NULL};
/* also its mkdir of the group and mount of resctrl (tune_op_refusal) */
static const char *const resctrl_files[] = {"/sys/fs/resctrl/", NULL};

const struct tune_action tune_actions[] = {
    {"pm-qos", "hold /dev/cpu_dma_latency at the budget while jitterlab runs",
     TUNE_PROFILE_LATENCY | TUNE_PROFILE_REALTIME, pm_qos_file, plan_pm_qos},
    {"idle-states", "disable idle states whose exit latency exceeds the budget",
     TUNE_PROFILE_LATENCY | TUNE_PROFILE_REALTIME, cpu_files, plan_idle_states},
    {"resume-latency", "per-CPU pm_qos_resume_latency_us at the budget",
     TUNE_PROFILE_LATENCY | TUNE_PROFILE_REALTIME, cpu_files, plan_resume_latency},
    {"cpufreq", "performance governor, min = max (or --freq), EPP performance, --boost",
     TUNE_PROFILE_LATENCY | TUNE_PROFILE_REALTIME, cpu_files, plan_cpufreq},
    {"timer-migration", "kernel.timer_migration = 0", TUNE_PROFILE_LATENCY | TUNE_PROFILE_REALTIME,
     sysctl_timer_migration, plan_timer_migration},
    {"irq-affinity", "move movable IRQs off the target CPUs", TUNE_PROFILE_REALTIME, irq_files,
     plan_irq_affinity},
    {"rt-throttling", "kernel.sched_rt_runtime_us = -1 (opt-in)", 0, sysctl_rt_runtime,
     plan_rt_throttling},
    {"thp", "transparent hugepages never (opt-in)", 0, thp_files, plan_thp},
    {"nmi-watchdog", "kernel.nmi_watchdog = 0 (opt-in)", 0, sysctl_nmi_watchdog, plan_nmi_watchdog},
    {"cache-partition", "exclusive L3 ways for the target CPUs with resctrl (opt-in)", 0,
     resctrl_files, plan_cache_partition},
};
const int tune_action_count = (int)(sizeof(tune_actions) / sizeof(tune_actions[0]));

int tune_action_find(const char *name)
{
    for (int i = 0; i < tune_action_count; i++)
        if (strcmp(tune_actions[i].name, name) == 0)
            return i;
    return -1;
}

uint32_t tune_profile_actions(const char *profile)
{
    unsigned bit = strcmp(profile, "latency") == 0    ? TUNE_PROFILE_LATENCY
                   : strcmp(profile, "realtime") == 0 ? TUNE_PROFILE_REALTIME
                                                      : 0;
    uint32_t mask = 0;
    for (int i = 0; bit && i < tune_action_count; i++)
        if (tune_actions[i].profiles & bit)
            mask |= 1u << i;
    return mask;
}

uint32_t tune_actions_for(const char *profile, const char *only, const char **bad_opt, char *why,
                          size_t whylen)
{
    if (only) {
        uint32_t mask = 0;
        char list[512];
        snprintf(list, sizeof(list), "%s", only);
        for (char *save = NULL, *name = strtok_r(list, ",", &save); name;
             name = strtok_r(NULL, ",", &save)) {
            int idx = tune_action_find(name);
            if (idx < 0) {
                snprintf(why, whylen, "unknown action '%s' (actions: %s", name,
                         tune_actions[0].name);
                for (int i = 1; i < tune_action_count; i++) {
                    size_t used = strlen(why);
                    snprintf(why + used, whylen - used, ", %s", tune_actions[i].name);
                }
                strncat(why, ")", whylen - strlen(why) - 1);
                *bad_opt = "--only";
                return 0;
            }
            mask |= 1u << idx;
        }
        if (!mask) {
            snprintf(why, whylen, "empty action list");
            *bad_opt = "--only";
        }
        return mask;
    }
    uint32_t mask = tune_profile_actions(profile ? profile : "latency");
    if (!mask) {
        snprintf(why, whylen, "unknown profile (use latency or realtime)");
        *bad_opt = "--profile";
    }
    return mask;
}
