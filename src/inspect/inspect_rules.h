/*
 * The inspect rules: one table entry per finding id, one
 * file per area (rules_*.c, joined in inspect_rules.c). Each
 * rule reads struct inspect_system and the latency budget and emits at most
 * one finding -- severity, CPUs, evidence (values with their paths), effect
 * and fix, with the tune action the fix offers first -- or, when what it needs could not be read,
 * an "unknown" note. The verdict is "not-ready" when some finding is critical;
 * else "unverified" when a finding's effect cannot be bounded from inside the
 * machine (a hypervisor, an undecidable preemption model) and no measurement
 * within the budget says otherwise; else "ready". A measurement (a short run
 * on the target CPUs, struct inspect_measurement) adds the finding
 * measured-latency, critical when its max exceeds the budget or it missed
 * periods.
 */
#ifndef JITTERLAB_INSPECT_INSPECT_RULES_H
#define JITTERLAB_INSPECT_INSPECT_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inspect/inspect_system.h"

enum inspect_severity {
    INSPECT_OK = 0,
    INSPECT_INFO,
    INSPECT_WARNING,
    INSPECT_CRITICAL,
};

#define INSPECT_MAX_EVIDENCE     12
#define INSPECT_MAX_FINDINGS     32
#define INSPECT_MAX_TUNE_ACTIONS 3 /* tune actions one fix may offer */

struct inspect_evidence {
    char path[160];
    char value[200];
};

struct inspect_finding {
    const char *id;
    const char *area;
    enum inspect_severity severity;
    char cpus[256]; /* kernel list form; "" = the whole machine */
    int nevidence;
    struct inspect_evidence evidence[INSPECT_MAX_EVIDENCE];
    char effect[512];
    char fix[768];
    const char *tune_action; /* id in tune_actions[] the fix offers first, or NULL */
    bool unbounded;          /* its effect cannot be bounded from inside: measure */
};

struct inspect_unknown {
    const char *id;
    char why[256];
};

enum inspect_verdict {
    INSPECT_READY = 0,
    INSPECT_UNVERIFIED,
    INSPECT_NOT_READY,
};

/* What a short `jitterlab run` on the target CPUs measured. */
struct inspect_measurement {
    bool done;         /* it ran and its result was read; else why says why not */
    bool interrupted;  /* stopped early (Ctrl-C): the figures cover duration_s */
    bool realtime;     /* the measuring threads got a real-time policy */
    char command[512]; /* the run, for people: "jitterlab run -a 1 -i 1ms -D 10s" */
    char why[256];
    double duration_s;
    int64_t interval_ns;
    uint64_t samples, missed;
    int64_t max_ns, p99_ns;
    int max_cpu; /* the CPU that saw max_ns */
};

struct inspect_findings {
    int64_t budget_ns;
    int count;
    struct inspect_finding finding[INSPECT_MAX_FINDINGS]; /* worst first, then table order */
    int nunknown;
    struct inspect_unknown unknown[INSPECT_MAX_FINDINGS];
    bool has_measurement; /* inspect --measure was asked for: measurement is set */
    struct inspect_measurement measurement;
    enum inspect_verdict verdict;
    bool ready;               /* verdict == INSPECT_READY */
    char verdict_reason[640]; /* one sentence naming the worst cause */
};

/* Runs every rule. out is large (tens of KiB); callers allocate it. */
void inspect_rules_run(const struct inspect_system *s, int64_t budget_ns,
                       struct inspect_findings *out);
/* The same, with a measurement folded in (measured may be NULL). */
void inspect_rules_run_measured(const struct inspect_system *s, int64_t budget_ns,
                                const struct inspect_measurement *measured,
                                struct inspect_findings *out);
/* "ready", "unverified", "not-ready" */
const char *inspect_verdict_name(enum inspect_verdict v);
const char *inspect_severity_name(enum inspect_severity sev);
/* The rule table, for docs and tests: ids and areas in table order. */
size_t inspect_rule_count(void);
const char *inspect_rule_id(size_t i);
/* The k-th tune action id rule i offers in its fix, or NULL past the last. */
const char *inspect_rule_tune_action(size_t i, int k);
/* The finding with that id, or NULL. */
const struct inspect_finding *inspect_finding_by_id(const struct inspect_findings *f,
                                                    const char *id);

#endif
