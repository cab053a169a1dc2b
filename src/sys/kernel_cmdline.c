/*
 * Splits /proc/cmdline the way the kernel does (blanks separate parameters,
 * double quotes protect blanks inside a value, "--" ends the kernel's part)
 * and keeps the parameters `jitterlab inspect` reasons about. The last
 * occurrence of a parameter wins, as in the kernel, except tsc=, whose values
 * all apply and are kept together.
 */
#include "sys/kernel_cmdline.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_cpus(struct cmdline_cpus *c, const char *value)
{
    const char *why = NULL;
    c->present = true;
    snprintf(c->text, sizeof c->text, "%s", value);
    c->all = strcmp(value, "all") == 0;
    c->valid = c->all || cpulist_parse(value, &c->cpus, &why) == 0;
    if (!c->valid || c->all)
        c->cpus.count = 0;
}

/* isolcpus=[nohz,][domain,][managed_irq,]LIST: flags first, then the list. */
static void set_isolcpus(struct kernel_cmdline *out, const char *value)
{
    static const struct {
        const char *word;
        size_t len;
    } flags[] = {{"nohz,", 5}, {"domain,", 7}, {"managed_irq,", 12}};
    out->isolcpus_nohz = out->isolcpus_domain = out->isolcpus_managed_irq = false;
    const char *p = value;
    bool any_flag = false;
    for (bool again = true; again;) {
        again = false;
        for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
            if (strncmp(p, flags[i].word, flags[i].len) == 0) {
                if (i == 0)
                    out->isolcpus_nohz = true;
                else if (i == 1)
                    out->isolcpus_domain = true;
                else
                    out->isolcpus_managed_irq = true;
                p += flags[i].len;
                any_flag = again = true;
            }
        }
    }
    if (!any_flag)
        out->isolcpus_domain = true; /* the kernel's default flag */
    set_cpus(&out->isolcpus, p);
}

static int64_t parse_small_int(const char *value)
{
    char *end = NULL;
    long v = strtol(value, &end, 10);
    if (end == value || *end != '\0' || v < 0)
        return -1;
    return v;
}

static void copy_value(char *dst, size_t len, const char *value)
{
    snprintf(dst, len, "%s", value);
}

static void apply_param(struct kernel_cmdline *out, const char *key, const char *value)
{
    bool has_value = value != NULL;
    const char *v = has_value ? value : "";
    if (strcmp(key, "isolcpus") == 0)
        set_isolcpus(out, v);
    else if (strcmp(key, "nohz_full") == 0)
        set_cpus(&out->nohz_full, v);
    else if (strcmp(key, "rcu_nocbs") == 0)
        set_cpus(&out->rcu_nocbs, has_value ? v : "all");
    else if (strcmp(key, "irqaffinity") == 0)
        set_cpus(&out->irqaffinity, v);
    else if (strcmp(key, "idle") == 0)
        copy_value(out->idle, sizeof out->idle, v);
    else if (strcmp(key, "intel_idle.max_cstate") == 0)
        out->intel_idle_max_cstate = parse_small_int(v);
    else if (strcmp(key, "processor.max_cstate") == 0)
        out->processor_max_cstate = parse_small_int(v);
    else if (strcmp(key, "clocksource") == 0)
        copy_value(out->clocksource, sizeof out->clocksource, v);
    else if (strcmp(key, "tsc") == 0) {
        size_t n = strlen(out->tsc);
        snprintf(out->tsc + n, sizeof out->tsc - n, "%s%s", n ? "," : "", v);
    } else if (strcmp(key, "nosoftlockup") == 0)
        out->nosoftlockup = true;
    else if (strcmp(key, "nmi_watchdog") == 0)
        copy_value(out->nmi_watchdog, sizeof out->nmi_watchdog, v);
    else if (strcmp(key, "skew_tick") == 0)
        out->skew_tick = parse_small_int(v);
    else if (strcmp(key, "mitigations") == 0)
        copy_value(out->mitigations, sizeof out->mitigations, v);
    else if (strcmp(key, "preempt") == 0)
        copy_value(out->preempt, sizeof out->preempt, v);
    else if (strcmp(key, "nosmt") == 0)
        out->nosmt = true;
}

void kernel_cmdline_parse(const char *text, struct kernel_cmdline *out)
{
    memset(out, 0, sizeof *out);
    out->intel_idle_max_cstate = -1;
    out->processor_max_cstate = -1;
    out->skew_tick = -1;
    if (!text)
        return;

    char word[1024];
    const char *p = text;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        size_t n = 0;
        bool quoted = false;
        for (; *p && (quoted || !isspace((unsigned char)*p)); p++) {
            if (*p == '"') {
                quoted = !quoted;
                continue;
            }
            if (n < sizeof word - 1)
                word[n++] = *p;
        }
        word[n] = '\0';
        if (strcmp(word, "--") == 0)
            break;
        char *eq = strchr(word, '=');
        if (eq)
            *eq = '\0';
        for (char *k = word; *k; k++)
            if (*k == '-')
                *k = '_'; /* the kernel treats - and _ in names alike */
        apply_param(out, word, eq ? eq + 1 : NULL);
    }
}
