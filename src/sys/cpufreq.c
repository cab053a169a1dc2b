/*
 * Reads /sys/devices/system/cpu/cpufreq: one policyN directory per group of
 * CPUs that share a clock, found by listing the directory (policy numbers
 * are the first CPU of the group, so they have gaps), plus the global
 * switches of the cpufreq core and of the intel_pstate and amd_pstate
 * drivers. No cpufreq directory (a VM) gives zero policies.
 */
#include "sys/cpufreq.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/cpulist.h"

#define CPUFREQ_DIR  "/sys/devices/system/cpu/cpufreq"
#define MAX_POLICIES CPULIST_MAX_CPUS

static int compare_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Policy numbers found in the directory, ascending. */
static int list_policies(const struct sysroot *sr, int **ids)
{
    char path[4096 + 64];
    *ids = NULL;
    if (sysroot_path(sr, CPUFREQ_DIR, path, sizeof path) != 0)
        return 0;
    DIR *dir = opendir(path);
    if (!dir)
        return 0;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        char *end = NULL;
        if (strncmp(e->d_name, "policy", 6) != 0)
            continue;
        long id = strtol(e->d_name + 6, &end, 10);
        if (end == e->d_name + 6 || *end || id < 0 || id >= MAX_POLICIES)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            int *grown = realloc(*ids, (size_t)cap * sizeof **ids);
            if (!grown) {
                closedir(dir);
                free(*ids);
                *ids = NULL;
                return -1;
            }
            *ids = grown;
        }
        (*ids)[n++] = (int)id;
    }
    closedir(dir);
    if (n > 0)
        qsort(*ids, (size_t)n, sizeof **ids, compare_int);
    return n;
}

static void read_policy(const struct sysroot *sr, struct cpufreq_policy_info *p,
                        struct read_notes *notes)
{
    char path[256];
    struct {
        const char *file;
        char *buf;
        size_t len;
    } texts[] = {
        {"affected_cpus", p->affected_cpus, sizeof p->affected_cpus},
        {"related_cpus", p->related_cpus, sizeof p->related_cpus},
        {"scaling_driver", p->driver, sizeof p->driver},
        {"scaling_governor", p->governor, sizeof p->governor},
        {"scaling_available_governors", p->available_governors, sizeof p->available_governors},
        {"scaling_available_frequencies", p->available_frequencies,
         sizeof p->available_frequencies},
        {"energy_performance_preference", p->epp, sizeof p->epp},
        {"energy_performance_available_preferences", p->epp_available, sizeof p->epp_available},
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        snprintf(path, sizeof path, CPUFREQ_DIR "/policy%d/%s", p->id, texts[i].file);
        read_text(sr, path, texts[i].buf, texts[i].len);
    }
    struct {
        const char *file;
        int64_t *value;
    } ints[] = {
        {"scaling_min_freq", &p->min_khz},
        {"scaling_max_freq", &p->max_khz},
        {"scaling_cur_freq", &p->cur_khz},
        {"cpuinfo_min_freq", &p->cpuinfo_min_khz},
        {"cpuinfo_max_freq", &p->cpuinfo_max_khz},
        {"base_frequency", &p->base_khz},
        {"cpuinfo_transition_latency", &p->transition_latency_ns},
        {"boost", &p->boost},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        snprintf(path, sizeof path, CPUFREQ_DIR "/policy%d/%s", p->id, ints[i].file);
        read_int_noted(sr, path, ints[i].value, notes);
    }
}

int cpufreq_read(const struct sysroot *sr, struct cpufreq_info *out, struct read_notes *notes)
{
    memset(out, 0, sizeof *out);
    read_int_noted(sr, CPUFREQ_DIR "/boost", &out->boost, notes);
    read_text(sr, "/sys/devices/system/cpu/intel_pstate/status", out->intel_pstate_status,
              sizeof out->intel_pstate_status);
    read_int_noted(sr, "/sys/devices/system/cpu/intel_pstate/no_turbo", &out->intel_no_turbo,
                   notes);
    read_text(sr, "/sys/devices/system/cpu/amd_pstate/status", out->amd_pstate_status,
              sizeof out->amd_pstate_status);

    int *ids;
    int n = list_policies(sr, &ids);
    if (n < 0)
        return -1;
    if (n == 0)
        return 0;
    out->policy = calloc((size_t)n, sizeof *out->policy);
    if (!out->policy) {
        free(ids);
        return -1;
    }
    out->npolicy = n;
    for (int i = 0; i < n; i++) {
        out->policy[i].id = ids[i];
        read_policy(sr, &out->policy[i], notes);
    }
    free(ids);
    return 0;
}

void cpufreq_free(struct cpufreq_info *cf)
{
    free(cf->policy);
    cf->policy = NULL;
    cf->npolicy = 0;
}

/* affected_cpus and related_cpus are blank-separated ("0 1 2 3"). */
static bool cpus_text_has(const char *text, int cpu)
{
    const char *p = text;
    while (*p) {
        char *end = NULL;
        long v = strtol(p, &end, 10);
        if (end == p)
            return false;
        if (v == cpu)
            return true;
        p = end;
        while (*p == ' ' || *p == ',')
            p++;
    }
    return false;
}

const struct cpufreq_policy_info *cpufreq_policy_of(const struct cpufreq_info *cf, int cpu)
{
    for (int i = 0; i < cf->npolicy; i++) {
        const struct cpufreq_policy_info *p = &cf->policy[i];
        const char *cpus = p->affected_cpus[0] ? p->affected_cpus : p->related_cpus;
        if (cpus_text_has(cpus, cpu))
            return p;
    }
    return NULL;
}
