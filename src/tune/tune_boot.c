/*
 * The boot-time and firmware part of a tuning proposal. nohz_full= needs a
 * kernel built with CONFIG_NO_HZ_FULL and rcu_nocbs=/rcu_nocb_poll one with
 * CONFIG_RCU_NOCB_CPU; a kernel without them ignores the parameter (with a
 * line in its log at most), so proposing it would promise an effect that
 * never comes. The config comes from /proc/config.gz (sys/kernel_config.c);
 * without it nothing is left out and the proposal says what the build
 * decides. On a virtual machine C-states, C1E, SMT, turbo and SMIs belong
 * to the host's firmware: the guest has no setting for them.
 */
#include "tune/tune_boot.h"

#include <stdio.h>
#include <string.h>

/* Appends "%s" to buf (space-separated); cuts rather than overflows. */
static void add_word(char *buf, size_t len, const char *word)
{
    size_t used = strlen(buf);
    if (used + 1 < len)
        snprintf(buf + used, len - used, "%s%s", used ? " " : "", word);
}

static void add_left_out(char *buf, size_t len, const char *what)
{
    size_t used = strlen(buf);
    if (used + 1 < len)
        snprintf(buf + used, len - used, "%s%s", used ? "; " : "", what);
}

void tune_boot_propose(const struct system_info *si, const struct kernel_config *cfg,
                       const struct cpulist *targets, struct tune_boot_proposal *out)
{
    char t[1024], house[1024], word[1200];
    struct cpulist rest;
    memset(out, 0, sizeof *out);
    cpulist_format(targets, t, sizeof t);
    cpulist_subtract(&si->online, targets, &rest);
    cpulist_format(&rest, house, sizeof house);

    bool no_hz_full = !cfg->present || cfg->no_hz_full;
    bool rcu_nocb = !cfg->present || cfg->rcu_nocb_cpu;
    snprintf(word, sizeof word, "isolcpus=managed_irq,domain,%s", t);
    add_word(out->cmdline, sizeof out->cmdline, word);
    snprintf(word, sizeof word, "nohz_full=%s", t);
    if (no_hz_full) {
        add_word(out->cmdline, sizeof out->cmdline, word);
    } else {
        snprintf(word, sizeof word,
                 "nohz_full=%s (this kernel lacks CONFIG_NO_HZ_FULL and would ignore it: the "
                 "tick keeps interrupting the target CPUs until a kernel built with it runs)",
                 t);
        add_left_out(out->left_out, sizeof out->left_out, word);
    }
    if (rcu_nocb) {
        snprintf(word, sizeof word, "rcu_nocbs=%s", t);
        add_word(out->cmdline, sizeof out->cmdline, word);
    } else {
        snprintf(word, sizeof word,
                 "rcu_nocbs=%s rcu_nocb_poll (this kernel lacks CONFIG_RCU_NOCB_CPU)", t);
        add_left_out(out->left_out, sizeof out->left_out, word);
    }
    snprintf(word, sizeof word, "irqaffinity=%s", house[0] ? house : "0");
    add_word(out->cmdline, sizeof out->cmdline, word);
    if (rcu_nocb)
        add_word(out->cmdline, sizeof out->cmdline, "rcu_nocb_poll");
    add_word(out->cmdline, sizeof out->cmdline, "nosoftlockup skew_tick=1");
    if (!cfg->present)
        snprintf(out->unchecked, sizeof out->unchecked,
                 "/proc/config.gz is not readable: nohz_full= takes effect only in a kernel "
                 "built with CONFIG_NO_HZ_FULL, rcu_nocbs= and rcu_nocb_poll only with "
                 "CONFIG_RCU_NOCB_CPU");

    out->rt_kernel = strcmp(si->preempt_model, "PREEMPT_RT") != 0;

    if (si->hypervisor[0])
        snprintf(out->firmware, sizeof out->firmware,
                 "this is a virtual machine (hypervisor %s): C-states, C1E, SMT, turbo and SMIs "
                 "are the host's firmware settings, with nothing to set here; on the host: "
                 "disable package C-states and C1E, fixed (non-turbo) frequency, the vendor's "
                 "low-latency mode, and give this VM's vCPUs host CPUs of their own (pinned, "
                 "isolated there, SMT siblings idle)",
                 si->hypervisor);
    else
        snprintf(out->firmware, sizeof out->firmware,
                 "disable package C-states and C1E, disable SMT on the real-time cores or "
                 "leave their siblings idle, fixed (non-turbo) frequency, enable the vendor's "
                 "real-time / low-latency mode, disable SMIs where the vendor allows");
}
