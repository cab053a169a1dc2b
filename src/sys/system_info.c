/*
 * The machine description that goes into every result document: read once,
 * before a run, entirely through the sysroot so that fixture trees of real
 * machines can stand in for the live one. Every item is optional: a file that
 * is missing or unreadable leaves its field empty (or -1), never an error,
 * because a container or an old kernel lacks some of them and the run must
 * still go on. The only live-machine-only sources (uname, sysconf) are used
 * when the sysroot is the live machine, so a fixture never mixes in the host.
 */
#include "sys/system_info.h"

#include "sys/kernel_cmdline.h"
#include "sys/kernel_config.h"
#include "sys/kmsg.h"
#include "sys/pm_qos.h"
#include "sys/read_notes.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define CPUINFO_READ_MAX (64 * 1024) /* the first processor's block is enough */

static void trim_trailing_space(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
}

/* Reads a one-line value; "" when unreadable. */
static void read_value(const struct sysroot *sr, const char *path, char *buf, size_t len)
{
    if (sysroot_read_string(sr, path, buf, len) < 0)
        buf[0] = '\0';
    trim_trailing_space(buf);
}

static void copy_string(char *dst, size_t len, const char *src, size_t src_len)
{
    if (src_len >= len)
        src_len = len - 1;
    memcpy(dst, src, src_len);
    dst[src_len] = '\0';
}

/* True if word occurs in text delimited by blanks or the ends of text. */
static bool has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = text; (p = strstr(p, word)) != NULL; p++) {
        bool starts = p == text || isspace((unsigned char)p[-1]);
        bool ends = p[n] == '\0' || isspace((unsigned char)p[n]);
        if (starts && ends)
            return true;
    }
    return false;
}

/* The value of the first "key<blanks>: value" line in a /proc/cpuinfo text,
 * trimmed, or "" when there is none. */
static void cpuinfo_field(const char *cpuinfo, const char *key, char *buf, size_t len)
{
    size_t key_len = strlen(key);
    buf[0] = '\0';
    for (const char *line = cpuinfo; line && *line;) {
        const char *eol = strchr(line, '\n');
        const char *line_end = eol ? eol : line + strlen(line);
        if ((size_t)(line_end - line) > key_len && strncmp(line, key, key_len) == 0) {
            const char *p = line + key_len;
            while (p < line_end && (*p == ' ' || *p == '\t'))
                p++;
            if (p < line_end && *p == ':') {
                p++;
                while (p < line_end && isspace((unsigned char)*p))
                    p++;
                copy_string(buf, len, p, (size_t)(line_end - p));
                trim_trailing_space(buf);
                return;
            }
        }
        line = eol ? eol + 1 : NULL;
    }
}

static void set_preempt(struct system_info *out, const char *model, const char *source)
{
    snprintf(out->preempt_model, sizeof out->preempt_model, "%s", model);
    snprintf(out->preempt_source, sizeof out->preempt_source, "%s", source);
}

/* preempt= of the command line: "" when absent or not a model name. */
static void cmdline_preempt(const char *cmdline, char *buf, size_t len)
{
    struct kernel_cmdline *k = malloc(sizeof *k);
    buf[0] = '\0';
    if (!k)
        return;
    kernel_cmdline_parse(cmdline, k);
    static const char *const modes[] = {"none", "voluntary", "full", "lazy"};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(k->preempt, modes[i]) == 0)
            snprintf(buf, len, "%s", modes[i]);
    free(k);
}

/*
 * The preempt model the kernel runs with, decided here once for the run
 * header, the run result and inspect alike. From the most to the least
 * direct source:
 * 1. /sys/kernel/realtime = 1: a PREEMPT_RT kernel;
 * 2. debugfs /sys/kernel/debug/sched/preempt, "none voluntary (full) lazy":
 *    the mode running now, whatever it booted with;
 * 3. the boot default of a PREEMPT_DYNAMIC kernel: preempt= on the command
 *    line, which the kernel honours only when built dynamic;
 * 4. the kernel config (/proc/config.gz): the built model or dynamic default;
 * 5. the build flag in /proc/version ("PREEMPT_RT", "PREEMPT_DYNAMIC" - then
 *    the mode is unknown: "dynamic" - or "PREEMPT", i.e. full).
 * A kernel built without preemption prints no flag: the model stays "".
 */
static void read_preempt_model(const struct sysroot *sr, struct system_info *out)
{
    int64_t realtime = 0;
    if (sysroot_read_int64(sr, "/sys/kernel/realtime", &realtime) == 0 && realtime == 1) {
        set_preempt(out, "PREEMPT_RT", "/sys/kernel/realtime");
        return;
    }

    char modes[256];
    if (sysroot_read_string(sr, "/sys/kernel/debug/sched/preempt", modes, sizeof modes) > 0) {
        const char *open = strchr(modes, '(');
        const char *close = open ? strchr(open, ')') : NULL;
        if (open && close && close > open + 1) {
            copy_string(out->preempt_model, sizeof out->preempt_model, open + 1,
                        (size_t)(close - open - 1));
            snprintf(out->preempt_source, sizeof out->preempt_source,
                     "/sys/kernel/debug/sched/preempt");
            return;
        }
    }

    const char *v = out->kernel_version;
    struct kernel_config config;
    struct read_notes *ignored = calloc(1, sizeof *ignored); /* inspect notes its own read */
    memset(&config, 0, sizeof config);
    if (ignored)
        kernel_config_read(sr, &config, ignored);
    free(ignored);
    bool dynamic = config.present ? config.preempt_dynamic : has_word(v, "PREEMPT_DYNAMIC");
    bool rt_build = (config.present && strcmp(config.preempt, "rt") == 0) ||
                    has_word(v, "PREEMPT_RT") || strstr(v, " PREEMPT RT ") != NULL;

    char boot[16];
    cmdline_preempt(out->cmdline, boot, sizeof boot);
    if (dynamic && !rt_build && boot[0]) {
        set_preempt(out, boot, "/proc/cmdline");
        return;
    }
    if (config.present && config.preempt[0]) {
        set_preempt(out, strcmp(config.preempt, "rt") == 0 ? "PREEMPT_RT" : config.preempt,
                    "/proc/config.gz");
        return;
    }

    const char *model = "";
    /* RT kernels before 5.x printed "PREEMPT RT" as two words */
    if (has_word(v, "PREEMPT_RT") || strstr(v, " PREEMPT RT "))
        model = "PREEMPT_RT";
    else if (has_word(v, "PREEMPT_DYNAMIC"))
        model = "dynamic";
    else if (has_word(v, "PREEMPT"))
        model = "full";
    if (*model)
        set_preempt(out, model, "/proc/version");
}

#define HYPERVISOR_PHRASE "Hypervisor detected: "

/* The kernel's own line naming the hypervisor it found at boot
 * (arch/x86/kernel/cpu/hypervisor.c), trusted as the TSC verdict trusts the
 * log: only records of facility kernel (a write to /dev/kmsg from user space
 * never has facility 0) and the phrase at the very start of the text, so that
 * no quoted user text (a task name, a file) can pass for it. The first wins. */
static void take_hypervisor_line(void *arg, const struct kmsg_record *rec)
{
    struct system_info *out = arg;
    size_t n = strlen(HYPERVISOR_PHRASE);
    if (out->hypervisor[0] || rec->facility != 0 || strncmp(rec->text, HYPERVISOR_PHRASE, n) != 0)
        return;
    snprintf(out->hypervisor, sizeof out->hypervisor, "%s", rec->text + n);
    trim_trailing_space(out->hypervisor);
}

/* The CPU flag says there is a hypervisor; its name from the first source
 * that exists: Xen's /sys/hypervisor/type, the kernel's boot line, the DMI
 * vendor (the VMM's, e.g. QEMU), else "unknown". The source is kept so that
 * nothing cites a file that is not there. */
static void name_hypervisor(const struct sysroot *sr, struct system_info *out)
{
    static const char dmi[] = "/sys/devices/virtual/dmi/id/sys_vendor";
    const char *source = "/sys/hypervisor/type";
    read_value(sr, source, out->hypervisor, sizeof out->hypervisor);
    if (!out->hypervisor[0]) {
        struct kmsg_stats st;
        char why[128];
        source = "/dev/kmsg";
        if (kmsg_read(sr, take_hypervisor_line, out, &st, why, sizeof why) != 0)
            out->hypervisor[0] = '\0';
    }
    if (!out->hypervisor[0]) {
        source = dmi;
        read_value(sr, dmi, out->hypervisor, sizeof out->hypervisor);
    }
    if (!out->hypervisor[0]) {
        source = "/proc/cpuinfo";
        snprintf(out->hypervisor, sizeof out->hypervisor, "unknown");
    }
    snprintf(out->hypervisor_source, sizeof out->hypervisor_source, "%s", source);
}

static void read_cpuinfo(const struct sysroot *sr, struct system_info *out)
{
    char *cpuinfo = malloc(CPUINFO_READ_MAX);
    if (!cpuinfo)
        return;
    if (sysroot_read_string(sr, "/proc/cpuinfo", cpuinfo, CPUINFO_READ_MAX) < 0) {
        free(cpuinfo);
        return;
    }

    static const char *const model_keys[] = {"model name", "Processor", "cpu model"};
    for (size_t i = 0; i < sizeof model_keys / sizeof model_keys[0] && !out->cpu_model[0]; i++)
        cpuinfo_field(cpuinfo, model_keys[i], out->cpu_model, sizeof out->cpu_model);

    char flags[8192];
    cpuinfo_field(cpuinfo, "flags", flags, sizeof flags);
    free(cpuinfo);

    out->tsc_present = has_word(flags, "tsc");
    out->tsc_constant = has_word(flags, "constant_tsc");
    out->tsc_nonstop = has_word(flags, "nonstop_tsc");
    out->tsc_invariant = out->tsc_constant && out->tsc_nonstop;

    if (has_word(flags, "hypervisor"))
        name_hypervisor(sr, out);
}

/* A CPU list file: parsed from the whole file, and the text kept a display
 * copy (cut after a whole element with ",..." when longer than the field):
 * a cut copy would parse as other CPUs ("...,1022,10" names CPU 10). A
 * malformed list is empty, its text kept as read (inspect notes it). */
static void read_list(const struct sysroot *sr, const char *path, char *buf, size_t len,
                      struct cpulist *out, struct read_notes *ignored)
{
    if (read_cpulist_noted(sr, path, buf, len, out, ignored) == READ_GARBAGE)
        read_value(sr, path, buf, len);
}

static void read_cpu_lists(const struct sysroot *sr, struct system_info *out)
{
    const char *why = NULL;
    struct read_notes *ignored = calloc(1, sizeof *ignored);
    if (!ignored)
        return;
    struct cpulist *scratch = malloc(sizeof *scratch);
    read_list(sr, "/sys/devices/system/cpu/online", out->cpus_online, sizeof out->cpus_online,
              &out->online, ignored);
    if (!out->cpus_online[0] && !sr->prefix[0]) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n == 1)
            snprintf(out->cpus_online, sizeof out->cpus_online, "0");
        else if (n > 1)
            snprintf(out->cpus_online, sizeof out->cpus_online, "0-%ld", n - 1);
        if (cpulist_parse(out->cpus_online, &out->online, &why) != 0)
            out->online.count = 0;
    }
    read_list(sr, "/sys/devices/system/cpu/isolated", out->isolated, sizeof out->isolated,
              &out->isolated_list, ignored);
    if (scratch)
        read_list(sr, "/sys/devices/system/cpu/nohz_full", out->nohz_full, sizeof out->nohz_full,
                  scratch, ignored);
    free(scratch);
    free(ignored);
}

void system_info_read(const struct sysroot *sr, struct system_info *out)
{
    memset(out, 0, sizeof *out);
    out->cpu_dma_latency_us = -1;

    read_value(sr, "/proc/sys/kernel/hostname", out->hostname, sizeof out->hostname);
    read_value(sr, "/proc/sys/kernel/osrelease", out->kernel, sizeof out->kernel);
    read_value(sr, "/proc/version", out->kernel_version, sizeof out->kernel_version);
    read_value(sr, "/proc/cmdline", out->cmdline, sizeof out->cmdline);
    read_preempt_model(sr, out);
    read_cpuinfo(sr, out);

    /* uname(2) always describes the live machine, never a fixture */
    struct utsname uts;
    if (!sr->prefix[0] && uname(&uts) == 0)
        copy_string(out->arch, sizeof out->arch, uts.machine, strlen(uts.machine));

    read_cpu_lists(sr, out);
    read_value(sr, "/sys/devices/system/clocksource/clocksource0/current_clocksource",
               out->clocksource, sizeof out->clocksource);
    read_value(sr, "/sys/devices/system/clocksource/clocksource0/available_clocksource",
               out->clocksource_available, sizeof out->clocksource_available);
    int64_t pm_qos = pm_qos_read(sr);
    out->cpu_dma_latency_us = pm_qos < 0 ? -1 : pm_qos;
}

void system_info_preempt_label(const struct system_info *si, char *buf, size_t len)
{
    const char *model = si->preempt_model[0] ? si->preempt_model : "unknown";
    snprintf(buf, len, "preempt=%s%s", model,
             strcmp(model, "dynamic") == 0 ? " (mode unknown)" : "");
}

void system_info_default_cpus(const struct system_info *si, struct cpulist *out)
{
    if (si->isolated_list.count > 0) {
        *out = si->isolated_list;
    } else if (si->online.count > 1) {
        struct cpulist *zero = calloc(1, sizeof *zero);
        if (zero) {
            cpulist_add(zero, 0);
            cpulist_subtract(&si->online, zero, out);
            free(zero);
        } else {
            *out = si->online;
        }
    } else {
        *out = si->online;
    }
    if (out->count == 0)
        cpulist_add(out, 0);
}
