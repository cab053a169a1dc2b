/*
 * Reads /sys/devices/system/cpu/cpuidle (driver, governor) and, per CPU,
 * cpuN/cpuidle/stateK/ and cpuN/power/pm_qos_resume_latency_us. States are
 * numbered from 0 without gaps, so the walk stops at the first stateK
 * without a name. A CPU without a cpuidle directory (no driver, a VM) keeps
 * zero states; that is what the rules then see.
 */
#include "sys/cpuidle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_DIR "/sys/devices/system/cpu"

/* A counter the kernel prints unsigned: a negative one is garbage. */
static void read_count_noted(const struct sysroot *sr, const char *path, int64_t *out,
                             struct read_notes *notes)
{
    if (read_int_noted(sr, path, out, notes) == READ_OK && *out < 0) {
        read_notes_add(notes, path, "a negative count");
        *out = VALUE_UNKNOWN;
    }
}

static void read_state(const struct sysroot *sr, int cpu, int k, struct cpuidle_state_info *st,
                       struct read_notes *notes)
{
    char path[256];
    struct {
        const char *file;
        int64_t *value;
    } ints[] = {{"latency", &st->latency_us}, {"residency", &st->residency_us},
                {"disable", &st->disable},    {"usage", &st->usage},
                {"time", &st->time_us},       {"above", &st->above},
                {"below", &st->below}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        snprintf(path, sizeof path, CPU_DIR "/cpu%d/cpuidle/state%d/%s", cpu, k, ints[i].file);
        /* latency, residency and disable are settings; the rest count */
        if (i < 3)
            read_int_noted(sr, path, ints[i].value, notes);
        else
            read_count_noted(sr, path, ints[i].value, notes);
    }
    snprintf(path, sizeof path, CPU_DIR "/cpu%d/cpuidle/state%d/desc", cpu, k);
    read_text(sr, path, st->desc, sizeof st->desc);
}

static void read_resume_latency(const struct sysroot *sr, struct cpuidle_cpu *c,
                                struct read_notes *notes)
{
    char path[256], text[32];
    snprintf(path, sizeof path, CPU_DIR "/cpu%d/power/pm_qos_resume_latency_us", c->cpu);
    c->resume_latency_us = VALUE_UNKNOWN;
    if (read_text(sr, path, text, sizeof text) != READ_OK)
        return;
    if (strcmp(text, "n/a") == 0) {
        c->resume_latency_us = RESUME_LATENCY_NONE_ALLOWED;
        return;
    }
    int64_t v;
    if (read_int_noted(sr, path, &v, notes) == READ_OK) {
        if (v >= 0)
            c->resume_latency_us = v;
        else
            read_notes_add(notes, path, "negative latency");
    }
}

int cpuidle_read(const struct sysroot *sr, const struct cpulist *cpus, struct cpuidle_info *out,
                 struct read_notes *notes)
{
    memset(out, 0, sizeof *out);
    read_text(sr, CPU_DIR "/cpuidle/current_driver", out->driver, sizeof out->driver);
    if (read_text(sr, CPU_DIR "/cpuidle/current_governor", out->governor, sizeof out->governor) !=
        READ_OK)
        read_text(sr, CPU_DIR "/cpuidle/current_governor_ro", out->governor, sizeof out->governor);
    read_text(sr, CPU_DIR "/cpuidle/available_governors", out->available_governors,
              sizeof out->available_governors);
    if (cpus->count == 0)
        return 0;
    out->cpu = calloc((size_t)cpus->count, sizeof *out->cpu);
    if (!out->cpu)
        return -1;
    out->ncpu = cpus->count;
    for (int i = 0; i < cpus->count; i++) {
        struct cpuidle_cpu *c = &out->cpu[i];
        c->cpu = cpus->cpu[i];
        for (int k = 0; k < CPUIDLE_MAX_STATES; k++) {
            char path[256];
            struct cpuidle_state_info *st = &c->state[c->nstates];
            snprintf(path, sizeof path, CPU_DIR "/cpu%d/cpuidle/state%d/name", c->cpu, k);
            if (read_text(sr, path, st->name, sizeof st->name) != READ_OK)
                break;
            st->index = k;
            read_state(sr, c->cpu, k, st, notes);
            c->nstates++;
        }
        read_resume_latency(sr, c, notes);
    }
    return 0;
}

void cpuidle_refresh_counters(const struct sysroot *sr, struct cpuidle_info *ci,
                              struct read_notes *notes)
{
    for (int i = 0; i < ci->ncpu; i++) {
        struct cpuidle_cpu *c = &ci->cpu[i];
        for (int k = 0; k < c->nstates; k++) {
            struct cpuidle_state_info *st = &c->state[k];
            char path[256];
            snprintf(path, sizeof path, CPU_DIR "/cpu%d/cpuidle/state%d/usage", c->cpu, st->index);
            read_count_noted(sr, path, &st->usage, notes);
            snprintf(path, sizeof path, CPU_DIR "/cpu%d/cpuidle/state%d/time", c->cpu, st->index);
            read_count_noted(sr, path, &st->time_us, notes);
        }
    }
}

void cpuidle_free(struct cpuidle_info *ci)
{
    free(ci->cpu);
    ci->cpu = NULL;
    ci->ncpu = 0;
}

const struct cpuidle_cpu *cpuidle_find_cpu(const struct cpuidle_info *ci, int cpu)
{
    for (int i = 0; i < ci->ncpu; i++)
        if (ci->cpu[i].cpu == cpu)
            return &ci->cpu[i];
    return NULL;
}

const char *cpuidle_no_driver_why(const struct sysroot *sr)
{
    char driver[64];
    if (read_text(sr, CPU_DIR "/cpuidle/current_driver", driver, sizeof driver) != READ_OK)
        return "no cpuidle driver (" CPU_DIR "/cpuidle/current_driver absent)";
    if (strcmp(driver, "none") == 0 || driver[0] == '\0')
        return "no cpuidle driver (current_driver: none)";
    return NULL;
}
