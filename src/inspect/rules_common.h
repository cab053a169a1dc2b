/*
 * What the inspect rule sections (rules_*.c) share: the context a rule runs
 * in, the table entry shape, and the helpers that fill a finding. A section
 * file holds the rules of one area and exports one struct rule_section;
 * inspect_rules.c joins the sections in report order.
 *
 * A rule names the tune actions its fix offers by id (.tune_action), and the
 * fix line is built from that id by rule_fix_tune, so a renamed action cannot
 * leave a stale command in a report; test_inspect_rules checks every id
 * against tune_actions[].
 */
#ifndef JITTERLAB_INSPECT_RULES_COMMON_H
#define JITTERLAB_INSPECT_RULES_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inspect/inspect_rules.h"

struct inspect_rule;

struct rule_ctx {
    const struct inspect_system *s;
    int64_t budget_ns;
    const struct inspect_measurement *measured; /* NULL: no measurement asked for */
    struct inspect_findings *out;
    const struct inspect_rule *rule;
    const char *id;
    const char *area;
    char budget[32]; /* "50 µs" */
    char targets[256];
};

struct inspect_rule {
    const char *id;
    void (*check)(struct rule_ctx *c);
    /* ids in tune_actions[] the fix offers, in the order it names them */
    const char *tune_action[INSPECT_MAX_TUNE_ACTIONS];
};

struct rule_section {
    const char *area;
    const struct inspect_rule *rule;
    size_t count;
};

/* In report order (inspect_rules.c). */
extern const struct rule_section rules_idle, rules_frequency, rules_kernel, rules_isolation,
    rules_interference, rules_scheduler, rules_memory, rules_clock, rules_platform,
    rules_measurement, rules_cache;

/* A new finding of the running rule, or NULL when the list is full (the
 * fillers below accept NULL). */
struct inspect_finding *rule_emit(struct rule_ctx *c, enum inspect_severity sev, const char *cpus);
__attribute__((format(printf, 3, 4))) void rule_evidence(struct inspect_finding *f,
                                                         const char *path, const char *fmt, ...);
__attribute__((format(printf, 2, 3))) void rule_effect(struct inspect_finding *f, const char *fmt,
                                                       ...);
/* The whole fix, as free text (boot parameters, firmware, other commands). */
__attribute__((format(printf, 2, 3))) void rule_fix(struct inspect_finding *f, const char *fmt,
                                                    ...);
/* Appends to the fix the command for the rule's tune action k:
 * "jitterlab tune apply --only ID (DETAIL)" first, ", or --only ID (DETAIL)"
 * after another action; rule_fix_tune_plain leaves out the detail. */
__attribute__((format(printf, 4, 5))) void
rule_fix_tune(struct rule_ctx *c, struct inspect_finding *f, int k, const char *fmt, ...);
void rule_fix_tune_plain(struct rule_ctx *c, struct inspect_finding *f, int k);
/* Appends free text to the fix. */
__attribute__((format(printf, 2, 3))) void rule_fix_more(struct inspect_finding *f, const char *fmt,
                                                         ...);
/* The finding's effect cannot be bounded from inside the machine: without a
 * measurement within the budget the verdict is at best unverified. */
void rule_unbounded(struct inspect_finding *f);
/* The running rule could not look: what was missing. */
__attribute__((format(printf, 2, 3))) void rule_unknown(struct rule_ctx *c, const char *fmt, ...);
/* Kernel list form, "(many)" when it does not fit. */
void rule_format_cpus(const struct cpulist *l, char *buf, size_t len);
/* "CPU 3" or "CPUs 1-3" */
void rule_cpus_phrase(const char *list, char *buf, size_t len);
/* Both of the above for a list: cpus in kernel form, phrase "CPUs 1-3". */
void rule_cpus_texts(const struct cpulist *l, char *cpus, size_t cpus_len, char *phrase,
                     size_t phrase_len);
/* A zeroed list on the heap (lists are 16 KiB), or NULL. */
struct cpulist *rule_new_list(void);

#endif
