/*
 * `jitterlab doctor --apply`: the treatment on this machine. The runtime
 * remedies prescribed (tune actions whose changes are files a journal can
 * put back; not pm-qos, held by a process, nor cache-partition, a resctrl
 * group) go through doctor/treat.c with these operations: apply through
 * the tune journal (the state file of `tune`, so that `jitterlab tune
 * restore` undoes whatever doctor kept), check the value read back and
 * its effect (interrupts, idle-state usage, frequency over a window),
 * switch between the arms of the A/B without touching the journal, run
 * each arm as a child `jitterlab run` with the baseline's options, and
 * judge with compare's tests (src/compare/) on the over-budget rate, p99.9
 * and max. The journal's lock is held for the whole treatment. Then the
 * final state is measured once more for the conclusion.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/doctor_internal.h"
#include "common/stop.h"
#include "common/units.h"
#include "out/result_read.h"
#include "sys/irq.h"
#include "tune/session.h"

#define EFFECT_WINDOW_MS 500 /* how long an effect is watched */

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static bool treatable(const struct remedy *r)
{
    return r->kind == REMEDY_TUNE && r->tune_action && strcmp(r->tune_action, "pm-qos") != 0 &&
           strcmp(r->tune_action, "cache-partition") != 0;
}

/* The runtime remedies, in the prescriptions' (rank) order, each action once. */
static void choose(struct doctor *d)
{
    struct treat_outcome *o = &d->treat;
    o->n = 0;
    for (size_t i = 0; i < d->prescriptions.count && o->n < TREAT_MAX; i++) {
        const struct remedy *r = d->prescriptions.p[i].remedy;
        int a = r->tune_action ? tune_action_find(r->tune_action) : -1;
        if (!treatable(r) || a < 0 || (d->p.only_mask && !(d->p.only_mask & (1u << a))))
            continue;
        bool seen = false;
        for (size_t k = 0; k < o->n; k++)
            seen |= strcmp(o->t[k].action, r->tune_action) == 0;
        if (seen)
            continue;
        struct treatment *t = &o->t[o->n++];
        memset(t, 0, sizeof *t);
        t->prescription = i;
        snprintf(t->action, sizeof t->action, "%s", r->tune_action);
    }
}

static size_t index_of(struct doctor *d, const struct treatment *t)
{
    return (size_t)(t - d->treat.t);
}

static int op_apply(void *ctx, struct treatment *t, char *why, size_t n)
{
    struct doctor *d = ctx;
    size_t i = index_of(d, t);
    struct tune_plan *plan = &d->plan[i];
    int a = tune_action_find(t->action);
    struct tune_request rq = {.sr = &d->sr,
                              .targets = d->targets,
                              .budget_ns = d->p.budget_ns,
                              .boost = -1,
                              .actions = a >= 0 ? 1u << a : 0};
    int built = tune_plan_build(&rq, plan);
    if (built != 0) {
        snprintf(why, n, "%s", built == -2 ? plan->refusal : "out of memory while planning");
        return -1;
    }
    if (plan->n == 0) {
        snprintf(why, n, "%s", plan->nnotes ? plan->note[0] : "nothing to change");
        return 1;
    }
    static struct tune_journal j;
    char err[600];
    int loaded = tune_journal_load(d->state_path, &j, err, sizeof err);
    if (loaded < 0) {
        snprintf(why, n, "%s: %s", d->state_path, err);
        return -1;
    }
    if (loaded == 0) {
        for (int k = 0; k < j.changes.n; k++)
            tune_plan_add(&d->earlier[i], j.changes.change[k].action, j.changes.change[k].path, "",
                          "", "");
        tune_plan_free(&j.changes);
    }
    struct tune_result res;
    if (tune_apply(&d->sr, plan, d->state_path, TUNE_MODE_APPLY, NULL, &res, err, sizeof err)) {
        snprintf(why, n, "%s; nothing was changed", err);
        return -1;
    }
    t->changes = res.applied;
    if (res.applied == 0) {
        snprintf(why, n, "the kernel refused every change: %s", res.refused_list);
        return -1;
    }
    if (res.refused)
        snprintf(why, n, "the kernel refused %d change%s: %s", res.refused,
                 res.refused == 1 ? "" : "s", res.refused_list);
    return 0;
}

/* A file's number, -1 when it cannot be read. */
static long long read_number(const struct sysroot *sr, const char *path)
{
    char *v = NULL;
    long long x = sysroot_read_value(sr, path, &v) >= 0 && v ? strtoll(v, NULL, 10) : -1;
    free(v);
    return x;
}

/* The counter file beside a changed file (".../state3/disable" ->
 * ".../state3/usage"), or "" when the change has no counter to watch. */
static void counter_of(const struct tune_change *c, char *buf, size_t len)
{
    buf[0] = '\0';
    const char *slash = strrchr(c->path, '/');
    if (!slash)
        return;
    if (strcmp(slash, "/disable") == 0 && strstr(c->path, "/cpuidle/state"))
        snprintf(buf, len, "%.*s/usage", (int)(slash - c->path), c->path);
}

#define EFFECT_MAX_CHANGES 256

/* Per change of plan that moved an IRQ: its interrupts on the target CPUs
 * (count[k]); UINT64_MAX for the other changes. */
static void moved_irq_counts(struct doctor *d, const struct tune_plan *plan, uint64_t *count)
{
    for (int k = 0; k < plan->n && k < EFFECT_MAX_CHANGES; k++)
        count[k] = UINT64_MAX;
    struct irq_table tab;
    if (irq_read(&d->sr, &d->targets, &tab, NULL) != 0)
        return;
    for (int k = 0; k < plan->n && k < EFFECT_MAX_CHANGES; k++) {
        const struct tune_change *c = &plan->change[k];
        char id[16];
        if (c->state != TUNE_CHANGE_APPLIED || sscanf(c->path, "/proc/irq/%15[0-9]/", id) != 1)
            continue;
        for (int q = 0; q < tab.nirq; q++) {
            if (strcmp(tab.irq[q].id, id) != 0)
                continue;
            count[k] = 0;
            for (int x = 0; x < tab.ntarget; x++)
                if (irq_count(&tab, q, x) != IRQ_COUNT_UNKNOWN)
                    count[k] += irq_count(&tab, q, x);
        }
    }
    irq_free(&tab);
}

/* An IRQ still taken on the targets over the window: on x86 a move takes
 * effect at the IRQ's next interrupt, which may still land on the old CPU,
 * so one interrupt is allowed, two are not. */
static bool irqs_moved(struct doctor *d, const struct tune_plan *plan, const uint64_t *before,
                       char *why, size_t n)
{
    static uint64_t after[EFFECT_MAX_CHANGES];
    moved_irq_counts(d, plan, after);
    for (int k = 0; k < plan->n && k < EFFECT_MAX_CHANGES; k++) {
        if (before[k] == UINT64_MAX || after[k] == UINT64_MAX || after[k] < before[k] + 2)
            continue;
        snprintf(why, n, "%s: still %llu interrupts on CPU%s %s in %d ms after the move",
                 plan->change[k].what, (unsigned long long)(after[k] - before[k]),
                 d->targets.count > 1 ? "s" : "", d->cpus, EFFECT_WINDOW_MS);
        return false;
    }
    return true;
}

/* A governor set to performance runs its policy near the top. */
static bool frequency_follows(struct doctor *d, const struct tune_change *c, char *why, size_t n)
{
    const char *slash = strrchr(c->path, '/');
    if (!slash || strcmp(slash, "/scaling_governor") != 0 || strcmp(c->new_value, "performance"))
        return true;
    char cur[512], max[512];
    snprintf(cur, sizeof cur, "%.*s/scaling_cur_freq", (int)(slash - c->path), c->path);
    snprintf(max, sizeof max, "%.*s/scaling_max_freq", (int)(slash - c->path), c->path);
    long long f = read_number(&d->sr, cur), top = read_number(&d->sr, max);
    if (f < 0 || top <= 0 || f * 10 >= top * 9)
        return true;
    snprintf(why, n, "%s: %lld kHz after the governor change, of %lld kHz", c->what, f, top);
    return false;
}

static int op_took_effect(void *ctx, struct treatment *t, char *why, size_t n)
{
    struct doctor *d = ctx;
    const struct tune_plan *plan = &d->plan[index_of(d, t)];
    long long usage[EFFECT_MAX_CHANGES];
    static uint64_t irqs[EFFECT_MAX_CHANGES];
    char path[512];
    for (int k = 0; k < EFFECT_MAX_CHANGES; k++)
        usage[k] = -1;
    for (int k = 0; k < plan->n; k++) {
        const struct tune_change *c = &plan->change[k];
        if (c->state != TUNE_CHANGE_APPLIED || c->op != TUNE_OP_WRITE)
            continue;
        char *back = NULL;
        bool same = sysroot_read_value(&d->sr, c->path, &back) >= 0 &&
                    tune_value_matches_at(c->path, c->new_value, back);
        free(back);
        if (!same) {
            snprintf(why, n, "%s: the value read back is not the one written", c->path);
            return 0;
        }
        if (!frequency_follows(d, c, why, n))
            return 0;
        counter_of(c, path, sizeof path);
        if (k < EFFECT_MAX_CHANGES)
            usage[k] = path[0] ? read_number(&d->sr, path) : -1;
    }
    moved_irq_counts(d, plan, irqs);
    sleep_ms(EFFECT_WINDOW_MS);
    if (!irqs_moved(d, plan, irqs, why, n))
        return 0;
    for (int k = 0; k < plan->n && k < EFFECT_MAX_CHANGES; k++) {
        counter_of(&plan->change[k], path, sizeof path);
        long long now = path[0] ? read_number(&d->sr, path) : -1;
        if (usage[k] >= 0 && now > usage[k]) {
            snprintf(why, n, "%s: still entered %lld times in %d ms after it was disabled",
                     plan->change[k].what, now - usage[k], EFFECT_WINDOW_MS);
            return 0;
        }
    }
    return 1;
}

static int op_set_arm(void *ctx, struct treatment *t, bool after, char *why, size_t n)
{
    struct doctor *d = ctx;
    char err[600];
    if (tune_plan_set(&d->sr, &d->plan[index_of(d, t)], after, NULL, err, sizeof err) == 0)
        return 0;
    snprintf(why, n, "setting it %s failed: %s", after ? "again" : "back", err);
    return -1;
}

static void run_path(struct doctor *d, size_t i, bool after, int round, char *buf, size_t len)
{
    char name[64];
    treat_run_file(name, sizeof name, i, after, round);
    snprintf(buf, len, "%s/%s", d->dir, name);
}

static int op_measure(void *ctx, struct treatment *t, bool after, int round, char *why, size_t n)
{
    struct doctor *d = ctx;
    char path[4200];
    run_path(d, index_of(d, t), after, round, path, sizeof path);
    snprintf(d->phase, sizeof d->phase, "treatment %zu of %zu (%s), A/B round %d, %s",
             index_of(d, t) + 1, d->treat.n, t->action, round + 1, after ? "after" : "before");
    int rc = doctor_run_child(d, path, false, why, n);
    if (rc > 0)
        snprintf(d->stopped_in, sizeof d->stopped_in, "treatment %zu", index_of(d, t) + 1);
    return rc;
}

/* The arm's runs read; false with why. */
static bool read_arm(struct doctor *d, size_t i, bool after, int rounds, struct result_doc *docs,
                     char *why, size_t n)
{
    char path[4200], err[300];
    for (int r = 0; r < rounds; r++) {
        run_path(d, i, after, r, path, sizeof path);
        if (result_read_file(path, &docs[r], err, sizeof err) != 0) {
            snprintf(why, n, "%s: %s", path, err);
            for (int k = 0; k < r; k++)
                result_doc_free(&docs[k]);
            return false;
        }
    }
    return true;
}

static void tail_of(const struct result_doc *docs, int rounds, const struct metric_result *m,
                    bool after, struct treat_tail *tail)
{
    tail->samples = 0;
    for (int r = 0; r < rounds; r++)
        tail->samples += docs[r].all.samples;
    const struct metric_result *rate = &m[METRIC_EXCEED_BUDGET], *p = &m[METRIC_P999],
                               *max = &m[METRIC_MAX];
    tail->over_rate = rate->present ? (after ? rate->value : rate->baseline) : -1;
    tail->p999_ns = p->present ? (int64_t)(after ? p->value : p->baseline) : -1;
    tail->max_ns = max->present ? (int64_t)(after ? max->value : max->baseline) : -1;
}

static int op_judge(void *ctx, struct treatment *t, int rounds, char *why, size_t n)
{
    struct doctor *d = ctx;
    size_t i = index_of(d, t);
    struct result_doc before[TREAT_MAX_REPEAT], after[TREAT_MAX_REPEAT];
    if (!read_arm(d, i, false, rounds, before, why, n))
        return -1;
    if (!read_arm(d, i, true, rounds, after, why, n)) {
        for (int r = 0; r < rounds; r++)
            result_doc_free(&before[r]);
        return -1;
    }
    /* compare's defaults: alpha 0.05 over the whole comparison */
    struct compare_arm arms[2] = {{"before", rounds, before}, {"after", rounds, after}};
    struct compare_config cfg = {
        .alpha = 0.05, .budget_ns = d->p.budget_ns, .reps = 4000, .seed = 1};
    struct arm_comparison cmp;
    struct compare_family fam;
    char err[300] = "";
    int rc = compare_all(arms, 2, &cfg, &cmp, &fam, err, sizeof err);
    if (rc == 0) {
        const struct cpu_comparison *all = &cmp.cpu[cmp.ncpus - 1];
        for (int k = 0; k < 3; k++)
            t->tail_verdict[k] = all->m[treat_tail_metrics[k]].verdict;
        tail_of(before, rounds, all->m, false, &t->before);
        tail_of(after, rounds, all->m, true, &t->after);
        arm_comparison_free(&cmp);
    } else {
        snprintf(why, n, "compare: %s", err);
    }
    for (int r = 0; r < rounds; r++) {
        result_doc_free(&before[r]);
        result_doc_free(&after[r]);
    }
    return rc == 0 ? 0 : -1;
}

static int op_put_back(void *ctx, struct treatment *t, char *why, size_t n)
{
    struct doctor *d = ctx;
    size_t i = index_of(d, t);
    char err[600];
    if (tune_put_back(&d->sr, &d->plan[i], &d->earlier[i], d->state_path, NULL, err, sizeof err) ==
        0)
        return 0;
    snprintf(why, n, "%s (jitterlab tune restore puts back everything)", err);
    return -1;
}

static bool op_stopped(void *ctx)
{
    (void)ctx;
    return stop_requested();
}

/* The final state measured once more: what the conclusion rests on. */
static void conclude(struct doctor *d)
{
    if (stop_requested())
        return;
    snprintf(d->phase, sizeof d->phase, "conclusion");
    snprintf(d->final_result, sizeof d->final_result, "%s/final.json", d->dir);
    char why[600], err[300];
    int rc = doctor_run_child(d, d->final_result, false, why, sizeof why);
    if (rc > 0)
        snprintf(d->stopped_in, sizeof d->stopped_in, "conclusion");
    json_t *root = rc >= 0 ? result_load_file(d->final_result, err, sizeof err) : NULL;
    if (!root) {
        fprintf(stderr, "jitterlab: doctor: the final state's run: %s\n", rc < 0 ? why : err);
        d->final_result[0] = '\0';
        return;
    }
    doctor_conclude(root, d->p.budget_ns, &d->final);
    d->final_measured = true;
    json_decref(root);
}

int doctor_apply_lock(struct doctor *d)
{
    d->state_path = tune_state_path(NULL);
    char err[600];
    if (tune_lock(d->state_path, TUNE_MODE_APPLY, &d->lock_fd, err, sizeof err) != 0) {
        fprintf(stderr, "jitterlab: doctor: --apply: %s; nothing was measured or changed\n", err);
        if (!d->temp_dir)
            rmdir(d->dir); /* -o DIR: made for this, still empty */
        return EXIT_RUNTIME;
    }
    d->locked = true;
    return -1;
}

int doctor_apply(struct doctor *d)
{
    choose(d);
    d->runs_total = d->runs_done + (int)d->treat.n * 2 * d->p.repeat + 1;
    struct treat_ops ops = {d,          op_apply, op_took_effect, op_set_arm,
                            op_measure, op_judge, op_put_back,    op_stopped};
    struct treat_config cfg = {d->p.repeat, d->p.keep_neutral};
    treat_run(&cfg, &ops, &d->treat);
    if (d->treat.stopped_at >= 0 && !d->stopped_in[0])
        snprintf(d->stopped_in, sizeof d->stopped_in, "treatment %d", d->treat.stopped_at + 1);
    conclude(d);
    return -1;
}

void doctor_apply_free(struct doctor *d)
{
    if (d->locked)
        tune_unlock(d->lock_fd);
    d->locked = false;
    for (size_t i = 0; i < TREAT_MAX; i++) {
        tune_plan_free(&d->plan[i]);
        tune_plan_free(&d->earlier[i]);
    }
}
