/*
 * The treatment loop of treat.h: one remedy at a time, in rank order,
 * applied, checked, measured A/B against the state before it and judged.
 * It decides what to keep and what to put back; how values are written,
 * runs made and verdicts taken is the caller's (struct treat_ops). The
 * machine is never left with a change under test: every path out of a
 * treatment that is not "kept" goes through put_back.
 */
#include "doctor/treat.h"

#include <stdio.h>
#include <string.h>

const enum compare_metric treat_tail_metrics[3] = {METRIC_EXCEED_BUDGET, METRIC_P999, METRIC_MAX};

const char *treat_status_name(enum treat_status s)
{
    static const char *const names[] = {"not-tried",         "kept",   "put-back", "no-effect",
                                        "nothing-to-change", "failed", "stopped"};
    return (size_t)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

void treat_run_file(char *buf, size_t len, size_t i, bool after, int round)
{
    snprintf(buf, len, "treat-%zu-%s-%d.json", i + 1, after ? "after" : "before", round + 1);
}

enum verdict treat_verdict_of(const enum verdict tail[3])
{
    bool better = false, judged = false;
    for (int i = 0; i < 3; i++) {
        if (tail[i] == VERDICT_WORSE)
            return VERDICT_WORSE;
        better |= tail[i] == VERDICT_BETTER;
        judged |= tail[i] == VERDICT_SAME;
    }
    if (better)
        return VERDICT_BETTER;
    return judged ? VERDICT_SAME : VERDICT_INSUFFICIENT;
}

/* The change goes; a failure is said beside the reason it went. */
static void put_back(const struct treat_ops *ops, struct treatment *t, struct treat_outcome *out)
{
    char why[200] = "";
    if (ops->put_back(ops->ctx, t, why, sizeof why) == 0)
        return;
    out->put_back_failed++;
    size_t used = strlen(t->why);
    snprintf(t->why + used, sizeof t->why - used, "%sputting it back failed: %s", used ? "; " : "",
             why);
}

/* The interleaved A/B: round r runs before then after when r is even,
 * after then before when odd, so that a drift of the machine falls on both.
 * 0 done, 1 stopped, -1 failed (t->why). */
static int measure_ab(const struct treat_config *cfg, const struct treat_ops *ops,
                      struct treatment *t)
{
    for (int r = 0; r < cfg->repeat; r++) {
        for (int k = 0; k < 2; k++) {
            bool after = (k == 0) == (r % 2 == 1);
            if (ops->stopped(ops->ctx))
                return 1;
            if (ops->set_arm(ops->ctx, t, after, t->why, sizeof t->why) != 0)
                return -1;
            int rc = ops->measure(ops->ctx, t, after, r, t->why, sizeof t->why);
            if (rc != 0)
                return rc;
        }
        t->rounds = r + 1;
    }
    return 0;
}

static void treat_one(const struct treat_config *cfg, const struct treat_ops *ops,
                      struct treatment *t, int index, struct treat_outcome *out)
{
    t->on_top_of = out->final_state;
    t->verdict = VERDICT_NA;
    int rc = ops->apply(ops->ctx, t, t->why, sizeof t->why);
    if (rc != 0) {
        t->status = rc > 0 ? TREAT_NOTHING : TREAT_FAILED;
        return;
    }
    if (ops->took_effect(ops->ctx, t, t->why, sizeof t->why) != 1) {
        t->status = TREAT_NO_EFFECT;
        put_back(ops, t, out);
        return;
    }
    t->why[0] = '\0';
    rc = measure_ab(cfg, ops, t);
    if (rc != 0) {
        t->status = rc > 0 ? TREAT_STOPPED : TREAT_FAILED;
        if (rc > 0)
            out->stopped_at = index;
        put_back(ops, t, out);
        return;
    }
    if (ops->judge(ops->ctx, t, t->rounds, t->why, sizeof t->why) != 0) {
        t->status = TREAT_FAILED;
        put_back(ops, t, out);
        return;
    }
    t->verdict = treat_verdict_of(t->tail_verdict);
    bool keep = t->verdict == VERDICT_BETTER || (cfg->keep_neutral && t->verdict == VERDICT_SAME);
    t->status = TREAT_PUT_BACK;
    char arm_why[200] = "";
    if (keep && ops->set_arm(ops->ctx, t, true, arm_why, sizeof arm_why) != 0) {
        snprintf(t->why, sizeof t->why, "%s, but it could not be set again: %s",
                 verdict_name(t->verdict), arm_why);
        t->status = TREAT_FAILED;
        keep = false;
    }
    if (keep) {
        t->status = TREAT_KEPT;
        out->final_state = index;
        return;
    }
    put_back(ops, t, out);
}

void treat_run(const struct treat_config *cfg, const struct treat_ops *ops,
               struct treat_outcome *out)
{
    out->final_state = -1;
    out->stopped_at = -1;
    out->put_back_failed = 0;
    for (size_t i = 0; i < out->n; i++) {
        struct treatment *t = &out->t[i];
        t->status = TREAT_NOT_TRIED;
        t->verdict = VERDICT_NA;
        t->on_top_of = -1;
    }
    for (size_t i = 0; i < out->n; i++) {
        if (ops->stopped(ops->ctx)) {
            if (out->stopped_at < 0)
                out->stopped_at = (int)i;
            break;
        }
        treat_one(cfg, ops, &out->t[i], (int)i, out);
        if (out->stopped_at >= 0)
            break;
    }
}
