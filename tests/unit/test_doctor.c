/*
 * Unit tests for src/doctor/diagnosis.c and prescribe.c against fixture
 * trees: a run result (built here, as `run --explain=BUDGET` writes it)
 * and the machine of the fixture give the causes ranked by what they cost
 * the budget, with their findings, and the exact prescriptions: the
 * thread to move with its commands, the kernel command line for these
 * CPUs on this machine, the hypervisor's part on a guest.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "test_fixture.h"

#include "doctor/diagnosis.h"
#include "doctor/prescribe.h"
#include "inspect/inspect_rules.h"
#include "inspect/inspect_system.h"
#include "out/text_doctor.h"

#define BUDGET_NS 250000

struct world {
    struct inspect_system sys;
    struct inspect_findings findings;
    struct remedy_machine m;
    struct doctor_diagnosis d;
    struct doctor_prescriptions p;
};

/* One by_cause row of count spikes of latency_ns each. */
static json_t *row(const char *kind, const char *name, int pid, const char *policy, int prio,
                   int count, int64_t latency_ns)
{
    json_t *o = json_pack("{s:s,s:s}", "kind", kind, "name", name);
    if (pid) {
        json_object_set_new(o, "pid", json_integer(pid));
        json_object_set_new(o, "policy", json_string(policy));
        json_object_set_new(o, "priority", json_integer(prio));
    }
    json_object_set_new(o, "count", json_integer(count));
    json_object_set_new(o, "total_ns", json_integer(count * latency_ns / 2));
    json_object_set_new(o, "max_ns", json_integer(latency_ns / 2));
    json_object_set_new(o, "latency_total_ns", json_integer(count * latency_ns));
    json_object_set_new(o, "latency_max_ns", json_integer(latency_ns));
    return o;
}

/* A run of 10000 samples whose spikes above the budget are the rows. */
static json_t *result(json_t *rows, int64_t max_ns)
{
    size_t n = json_array_size(rows), spikes = 0;
    for (size_t i = 0; i < n; i++)
        spikes += (size_t)json_integer_value(json_object_get(json_array_get(rows, i), "count"));
    return json_pack("{s:s,s:b,s:f,s:{s:I,s:I,s:{s:I,s:I,s:I}},s:{s:s,s:I,s:I},s:{s:s,s:o}}",
                     "kind", "run", "interrupted", 0, "duration_s", 10.0, "all", "samples",
                     (json_int_t)10000, "missed", (json_int_t)0, "latency_ns", "p999",
                     (json_int_t)200000, "p9999", (json_int_t)900000, "max", (json_int_t)max_ns,
                     "explain", "method", "tracepoints", "threshold_ns", (json_int_t)BUDGET_NS,
                     "spikes", (json_int_t)spikes, "spike_summary", "method", "tracepoints",
                     "by_cause", rows);
}

static struct world *diagnose(const char *fixture, const char *cpus, json_t *doc)
{
    struct world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    struct sysroot sr;
    struct cpulist targets;
    fixture_sysroot(&sr, fixture);
    assert_int_equal(cpulist_parse(cpus, &targets, NULL), 0);
    assert_int_equal(inspect_system_read(&sr, &targets, &w->sys), 0);
    inspect_rules_run(&w->sys, BUDGET_NS, &w->findings);
    doctor_machine_of(&w->sys, &w->m);
    char err[200];
    assert_int_equal(doctor_diagnose(doc, BUDGET_NS, &w->findings, &w->m, &w->d, err, sizeof err),
                     0);
    doctor_prescribe(&w->d, &w->findings, &w->sys, BUDGET_NS, &w->p);
    json_decref(doc);
    return w;
}

static void world_free(struct world *w)
{
    inspect_system_free(&w->sys);
    free(w);
}

static const struct doctor_prescription *prescribed(const struct world *w, const char *remedy)
{
    for (size_t i = 0; i < w->p.count; i++)
        if (strcmp(w->p.p[i].remedy->id, remedy) == 0)
            return &w->p.p[i];
    return NULL;
}

static bool cause_has_finding(const struct doctor_cause *c, const char *id)
{
    for (size_t i = 0; i < c->nfindings; i++)
        if (strcmp(c->findings[i], id) == 0)
            return true;
    return false;
}

/* Ranked by time beyond the budget, not by count: 5 spikes of 2 ms cost
 * more than 40 of 300 us. */
static void test_causes_are_ranked_by_what_they_cost_the_budget(void **state)
{
    (void)state;
    json_t *rows = json_array();
    json_array_append_new(rows, row("irq", "eth0-rx", 0, NULL, 0, 40, 300000));
    json_array_append_new(rows, row("thread", "spin", 4711, "SCHED_FIFO", 95, 5, 2000000));
    json_array_append_new(rows, row("unexplained", "no events", 0, NULL, 0, 1, 260000));
    struct world *w = diagnose("intel-ipc-untuned", "2-3", result(rows, 2000000));
    assert_int_equal(w->d.ncauses, 3);
    assert_string_equal(w->d.cause[0].kind, "thread");
    assert_int_equal(w->d.cause[0].pid, 4711);
    assert_int_equal(w->d.cause[0].count, 5);
    assert_int_equal(w->d.cause[0].over_ns, 5 * (2000000 - BUDGET_NS));
    assert_int_equal(w->d.cause[0].max_latency_ns, 2000000);
    assert_string_equal(w->d.cause[1].kind, "irq");
    assert_int_equal(w->d.cause[1].over_ns, 40 * (300000 - BUDGET_NS));
    /* spikes no event explains stay a cause of their own */
    assert_string_equal(w->d.cause[2].kind, "unexplained");
    assert_int_equal(w->d.cause[2].over_ns, 10000);
    double sum = 0;
    for (size_t i = 0; i < w->d.ncauses; i++)
        sum += w->d.cause[i].share;
    assert_true(sum > 0.999 && sum < 1.001);
    assert_true(cause_has_finding(&w->d.cause[1], "irq-on-rt-cpu"));
    assert_false(w->d.conclusion.met);
    assert_int_equal(w->d.conclusion.over_budget, 46);
    assert_int_equal(w->d.conclusion.p999.beyond, 10);
    assert_int_equal(w->d.conclusion.p9999.beyond, 1);
    world_free(w);
}

/* A real-time thread is named with the exact commands to move or lower it. */
static void test_a_realtime_thread_is_advised_as_a_thread_to_move(void **state)
{
    (void)state;
    json_t *rows = json_array();
    json_array_append_new(rows, row("thread", "spin", 4711, "SCHED_FIFO", 95, 5, 2000000));
    struct world *w = diagnose("intel-ipc-untuned", "2-3", result(rows, 2000000));
    assert_string_equal(w->p.p[0].remedy->id, "move-thread");
    assert_int_equal(w->p.p[0].pid, 4711);
    assert_string_equal(w->p.p[0].command, "taskset -a -p -c 0-1 4711\nchrt -o -p 0 4711");
    assert_non_null(strstr(w->p.p[0].advice, "thread spin (pid 4711, SCHED_FIFO 95)"));
    assert_non_null(strstr(w->p.p[0].advice, "no tuning removes"));
    world_free(w);
}

/* Skylake-like, untuned: the kernel has RCU_NOCB_CPU but no NO_HZ_FULL,
 * intel_idle, PREEMPT_DYNAMIC at voluntary. */
static void test_boot_command_line_of_an_untuned_intel_machine(void **state)
{
    (void)state;
    json_t *rows = json_array();
    json_array_append_new(rows, row("idle-exit", "C6", 0, NULL, 0, 10, 400000));
    json_array_append_new(rows, row("irq", "eth0-rx", 0, NULL, 0, 5, 300000));
    struct world *w = diagnose("intel-ipc-untuned", "2-3", result(rows, 400000));
    assert_string_equal(w->p.boot_cmdline, "intel_idle.max_cstate=0 processor.max_cstate=1 "
                                           "isolcpus=managed_irq,domain,2-3 rcu_nocbs=2-3 "
                                           "irqaffinity=0-1 preempt=full");
    const struct doctor_prescription *iso = prescribed(w, "boot-isolation");
    assert_non_null(iso);
    assert_non_null(strstr(iso->advice, "lacks CONFIG_NO_HZ_FULL"));
    const struct doctor_prescription *idle = prescribed(w, "tune-idle-states");
    assert_non_null(idle);
    assert_string_equal(idle->command,
                        "jitterlab tune apply --only idle-states -a 2-3 --budget 250us");
    assert_null(prescribed(w, "hypervisor-halt"));
    world_free(w);
}

/* Core 2 without /proc/config.gz: nohz_full and rcu_nocbs are left out
 * (and why), acpi_idle limits C-states by processor.max_cstate alone. */
static void test_boot_command_line_of_a_core2_without_kernel_config(void **state)
{
    (void)state;
    json_t *rows = json_array();
    json_array_append_new(rows, row("idle-exit", "C3", 0, NULL, 0, 10, 400000));
    struct world *w = diagnose("core2-quad", "1-3", result(rows, 400000));
    const struct doctor_prescription *iso = prescribed(w, "boot-isolation");
    assert_non_null(iso);
    assert_string_equal(iso->command, "isolcpus=managed_irq,domain,1-3 irqaffinity=0");
    assert_non_null(strstr(iso->advice, "could not be read"));
    assert_string_equal(prescribed(w, "boot-cstates")->command, "processor.max_cstate=1");
    world_free(w);
}

/* A guest without a cpuidle driver: a late idle exit is the hypervisor's. */
static void test_idle_exit_on_a_haltpoll_guest_goes_to_the_hypervisor(void **state)
{
    (void)state;
    json_t *rows = json_array();
    json_array_append_new(rows, row("idle-exit", "state 0", 0, NULL, 0, 10, 400000));
    struct world *w = diagnose("vm-haltpoll", "1", result(rows, 400000));
    assert_string_equal(w->d.cause[0].remedies[0]->id, "hypervisor-halt");
    assert_string_equal(w->p.p[0].remedy->id, "hypervisor-halt");
    assert_string_equal(w->p.p[0].command, "modprobe cpuidle-haltpoll");
    assert_non_null(strstr(w->p.p[0].advice, "idle=poll"));
    assert_null(prescribed(w, "boot-cstates"));
    assert_null(prescribed(w, "tune-idle-states"));
    /* no NO_HZ_FULL in this kernel: no nohz_full= */
    assert_null(strstr(w->p.boot_cmdline, "nohz_full"));
    assert_non_null(strstr(w->p.boot_cmdline, "irqaffinity=0"));
    world_free(w);
}

/* Without tracepoints the window method counts spikes per cause, with no
 * time: ranked and shared by count, steal and SMIs made concrete. */
static void test_window_method_causes_are_ranked_by_count(void **state)
{
    (void)state;
    json_t *rows = json_array();
    json_array_append_new(rows, json_pack("{s:s,s:s,s:I,s:f,s:I,s:I}", "kind", "smi", "name", "SMI",
                                          "windows", 1, "share", 0.2, "spikes", (json_int_t)3,
                                          "max_ns", (json_int_t)700000));
    json_array_append_new(rows, json_pack("{s:s,s:s,s:I,s:f,s:I,s:I}", "kind", "steal", "name",
                                          "steal", "windows", 4, "share", 0.8, "spikes",
                                          (json_int_t)9, "max_ns", (json_int_t)500000));
    json_t *doc = result(rows, 700000);
    json_object_set_new(json_object_get(doc, "spike_summary"), "method", json_string("window"));
    struct world *w = diagnose("intel-ipc-untuned", "2-3", doc);
    assert_string_equal(w->d.method, "window");
    assert_string_equal(w->d.cause[0].kind, "steal");
    assert_int_equal(w->d.cause[0].count, 9);
    assert_int_equal(w->d.cause[0].over_ns, -1);
    assert_true(w->d.cause[0].share > 0.74 && w->d.cause[0].share < 0.76);
    assert_int_equal(w->d.cause[1].max_latency_ns, 700000);
    assert_string_equal(w->p.p[0].remedy->id, "hypervisor-steal");
    assert_non_null(prescribed(w, "firmware-smi"));
    world_free(w);
}

/* What the diagnosis needs and a run without --explain lacks. */
static void test_a_result_without_explain_is_refused(void **state)
{
    (void)state;
    json_t *doc = json_pack("{s:s}", "kind", "run");
    struct doctor_diagnosis *d = malloc(sizeof *d);
    struct remedy_machine m = {0};
    char err[200];
    assert_int_equal(doctor_diagnose(doc, BUDGET_NS, NULL, &m, d, err, sizeof err), -1);
    assert_non_null(strstr(err, "without --explain"));
    json_decref(doc);
    free(d);
}

/* A thread may name itself anything: the text shows its bytes, a
 * terminal never obeys them. */
static void test_text_shows_a_control_byte_of_a_thread_name(void **state)
{
    (void)state;
    json_t *rows = json_array();
    json_array_append_new(rows, row("thread", "evil\x1b[2J", 66, "SCHED_FIFO", 50, 3, 900000));
    struct world *w = diagnose("intel-ipc-untuned", "2-3", result(rows, 900000));
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    struct doctor_report r = {.cpus = "2-3", .diagnosis = &w->d, .prescriptions = &w->p};
    text_doctor_report(out, &r);
    fclose(out);
    assert_null(memchr(text, 0x1b, len));
    assert_non_null(strstr(text, "evil\\x1b[2J/66"));
    assert_non_null(strstr(text, "thread evil\\x1b[2J (pid 66, SCHED_FIFO 50)"));
    free(text);
    world_free(w);
}

static void test_every_remedy_is_made_concrete(void **state)
{
    (void)state;
    for (size_t i = 0; i < remedy_count(); i++)
        if (!doctor_remedy_rendered(remedy_at(i)->id))
            fail_msg("remedy %s has no renderer in prescribe.c", remedy_at(i)->id);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_causes_are_ranked_by_what_they_cost_the_budget),
        cmocka_unit_test(test_a_realtime_thread_is_advised_as_a_thread_to_move),
        cmocka_unit_test(test_boot_command_line_of_an_untuned_intel_machine),
        cmocka_unit_test(test_boot_command_line_of_a_core2_without_kernel_config),
        cmocka_unit_test(test_idle_exit_on_a_haltpoll_guest_goes_to_the_hypervisor),
        cmocka_unit_test(test_window_method_causes_are_ranked_by_count),
        cmocka_unit_test(test_a_result_without_explain_is_refused),
        cmocka_unit_test(test_text_shows_a_control_byte_of_a_thread_name),
        cmocka_unit_test(test_every_remedy_is_made_concrete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
