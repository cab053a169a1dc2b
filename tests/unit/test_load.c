/*
 * Load specs: the pulse prefix, the kinds and their arguments, the @CPUS
 * suffix of run --load, default buffer sizes from sysfs cache information,
 * and the reasons given for bad specs. Starting a cmd load's shell: what the
 * child is (group, CPUs, policy, nice, signals) and that the parent's pages
 * are left alone. How a command's starts end: the bounded stderr tail, the
 * exit status classes (our own OFF-phase kill is no failure), and the
 * first-start check that fails a run before it measures.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "load/load.h"
#include "load/load_spawn.h"
#include "test_fixture.h"
#include "test_tree.h"

static struct load_spec parse_ok(const char *text, bool with_cpus)
{
    struct sysroot sr;
    fixture_sysroot(&sr, "cache-l2");
    struct load_spec spec;
    char why[600] = "";
    int rc = load_parse(text, &sr, with_cpus, &spec, why, sizeof why);
    if (rc != 0)
        fail_msg("%s: %s", text, why);
    return spec;
}

static const char *parse_why(const char *text, bool with_cpus)
{
    static char why[600];
    struct sysroot sr;
    fixture_sysroot(&sr, "cache-l2");
    struct load_spec spec;
    why[0] = '\0';
    assert_int_equal(load_parse(text, &sr, with_cpus, &spec, why, sizeof why), -1);
    assert_true(why[0] != '\0');
    return why;
}

/* The kind lists come from the kind table: every kind the lists name parses,
 * and each gets a help row. */
static void test_load_kind_lists_come_from_the_table(void **state)
{
    (void)state;
    char names[256], help[2048];
    load_kind_names(names, sizeof names);
    assert_string_equal(names,
                        "cpu, pulse:ON:OFF[:KIND], cache[:SIZE], memory[:SIZE], cmd:COMMAND");
    load_kinds_help(help, sizeof help);
    int listed = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", names);
    for (char *save = NULL, *usage = strtok_r(list, ", ", &save); usage;
         usage = strtok_r(NULL, ", ", &save)) {
        listed++;
        char row[64];
        snprintf(row, sizeof row, "  %s ", usage);
        if (!strstr(help, row))
            fail_msg("no help row for %s in:\n%s", usage, help);
        char spec[64];
        snprintf(spec, sizeof spec, "%.*s", (int)strcspn(usage, ":["), usage);
        if (strcmp(spec, "pulse") == 0)
            snprintf(spec, sizeof spec, "pulse:1ms:1ms");
        else if (strcmp(spec, "cmd") == 0)
            snprintf(spec, sizeof spec, "cmd:true");
        parse_ok(spec, false);
    }
    assert_int_equal(listed, 5);
    assert_non_null(strstr(help,
                           "  pulse:ON:OFF[:KIND]     KIND (default cpu) busy for ON, idle for "
                           "OFF, again\n                          and again"));
}

static void test_load_pulse_defaults_to_cpu(void **state)
{
    (void)state;
    struct load_spec s = parse_ok("pulse:100ms:400ms", false);
    assert_string_equal(load_kind_name(&s), "cpu");
    assert_int_equal(s.on_ns, 100000000);
    assert_int_equal(s.off_ns, 400000000);
    s = parse_ok("pulse:50:50", false); /* bare numbers are ms */
    assert_int_equal(s.on_ns, 50000000);
}

static void test_load_pulse_wraps_any_kind(void **state)
{
    (void)state;
    struct load_spec s = parse_ok("pulse:1s:2s:cmd:stress-ng --cpu 1", false);
    assert_string_equal(load_kind_name(&s), "cmd");
    assert_true(load_is_external(&s));
    assert_string_equal(s.command, "stress-ng --cpu 1");
    assert_int_equal(s.off_ns, 2000000000);
    s = parse_ok("pulse:10ms:10ms:cache:1MiB", false);
    assert_string_equal(load_kind_name(&s), "cache");
    assert_int_equal(s.size_bytes, 1 << 20);
}

static void test_load_sizes_default_from_the_last_level_cache(void **state)
{
    (void)state;
    /* fixture: L3 24576K */
    assert_int_equal(parse_ok("cache", false).size_bytes, 24576 * 1024);
    assert_int_equal(parse_ok("memory", false).size_bytes, 4 * 24576 * 1024);
}

static void test_load_at_cpus_only_with_run_syntax(void **state)
{
    (void)state;
    struct load_spec s = parse_ok("cache:4MiB@0,2-3", true);
    assert_true(s.cpus_given);
    assert_int_equal(s.cpus.count, 3);
    assert_string_equal(s.text, "cache:4MiB");
    s = parse_ok("cmd:echo a@b", false); /* standalone: '@' belongs to the command */
    assert_string_equal(s.command, "echo a@b");
    assert_false(s.cpus_given);
}

static void test_load_bad_specs_say_why(void **state)
{
    (void)state;
    assert_non_null(strstr(parse_why("pulse:0:0", false), "greater than 0"));
    assert_non_null(strstr(parse_why("pulse:10ms", false), "ON and OFF"));
    assert_non_null(strstr(parse_why("bogus", false), "unknown load kind 'bogus'"));
    assert_non_null(strstr(parse_why("cmd:", false), "needs a command"));
    assert_non_null(strstr(parse_why("cmd:   ", false), "needs a command"));
    assert_non_null(strstr(parse_why("cpu:3", false), "no arguments"));
    assert_non_null(strstr(parse_why("cache:12", false), "cache size"));
    assert_non_null(strstr(parse_why("cpu@", true), "empty CPU list"));
    assert_non_null(strstr(parse_why("cpu@x", true), "@x"));
}

static void reap(pid_t pid, int *status)
{
    while (waitpid(pid, status, 0) < 0)
        assert_int_equal(errno, EINTR);
}

static void test_load_spawn_child_leads_its_group_on_its_cpus(void **state)
{
    (void)state;
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(0, &cpus);
    struct load_spawn_attr attr = {
        .cpus = &cpus, .policy = SCHED_BATCH, .nice = 7, .stderr_fd = -1};
    pid_t pid = load_spawn_shell("exec sleep 30", &attr);
    assert_true(pid > 0);
    /* Returned after exec: everything below was set up before it. */
    assert_int_equal(getpgid(pid), pid);
    assert_int_equal(sched_getscheduler(pid), SCHED_BATCH);
    errno = 0;
    assert_int_equal(getpriority(PRIO_PROCESS, (id_t)pid), 7);
    cpu_set_t got;
    assert_int_equal(sched_getaffinity(pid, sizeof(got), &got), 0);
    assert_true(CPU_EQUAL(&got, &cpus));
    kill(pid, SIGKILL);
    int status;
    reap(pid, &status);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

static void on_usr1(int sig)
{
    (void)sig;
}

/* "SigBlk:\t0000000000000000" -> the mask. */
static unsigned long long status_mask(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    assert_non_null(p);
    return strtoull(p + strlen(key), NULL, 16);
}

static void test_load_spawn_child_blocks_and_ignores_no_stop_signal(void **state)
{
    const char *root = *state;
    struct sigaction usr1 = {.sa_handler = on_usr1}, ign = {.sa_handler = SIG_IGN}, old_usr1,
                     old_int;
    sigaction(SIGUSR1, &usr1, &old_usr1);
    sigaction(SIGINT, &ign, &old_int);
    sigset_t block, old_mask;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &block, &old_mask);
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "exec grep -E '^Sig(Blk|Ign)' /proc/self/status > %s/sig", root);
    cpu_set_t cpus;
    sched_getaffinity(0, sizeof(cpus), &cpus);
    struct load_spawn_attr attr = {
        .cpus = &cpus, .policy = SCHED_OTHER, .nice = 0, .stderr_fd = -1};
    pid_t pid = load_spawn_shell(cmd, &attr);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    sigaction(SIGUSR1, &old_usr1, NULL);
    sigaction(SIGINT, &old_int, NULL);
    assert_true(pid > 0);
    int status;
    reap(pid, &status);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    char path[PATH_MAX + 8], text[256] = "";
    snprintf(path, sizeof path, "%s/sig", root);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    assert_int_equal(status_mask(text, "SigBlk:"), 0);
    unsigned long long ignored = status_mask(text, "SigIgn:");
    assert_false(ignored & (1ull << (SIGINT - 1)));
    assert_false(ignored & (1ull << (SIGTERM - 1)));
}

/* Schedules are computed from durations the parser bounds; the runner must
 * still never wrap around when given more ("forever" is INT64_MAX). */
static void test_load_runner_saturates_huge_durations(void **state)
{
    (void)state;
    struct load_spec spec = parse_ok("pulse:1ms:1ms", false);
    spec.off_ns = INT64_MAX - 1;
    spec.cpus.count = 1;
    spec.cpus.cpu[0] = sched_getcpu();
    struct load_sched sched = {.policy = SCHED_OTHER, .nice = 0};
    char err[256] = "";
    struct load_runner *lr = load_runner_start(&spec, 1, &sched, INT64_MAX, err, sizeof err);
    if (!lr)
        fail_msg("load_runner_start: %s", err);
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    bool finished_early = load_runner_finished(lr);
    load_runner_stop(lr);
    assert_true(load_runner_finished(lr));
    load_runner_destroy(lr);
    assert_false(finished_early);
}

/* A chatty command costs a bounded buffer that keeps the end. */
static void test_load_stderr_tail_keeps_the_last_bytes(void **state)
{
    (void)state;
    struct load_tail t = {0};
    load_tail_append(&t, "hello ", 6);
    load_tail_append(&t, "world\n", 6);
    assert_string_equal(t.text, "hello world\n");
    char big[3 * LOAD_TAIL_BYTES];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (char)('a' + i % 26);
    for (int k = 0; k < 5; k++)
        load_tail_append(&t, big, 100);
    load_tail_append(&t, "END", 3);
    assert_int_equal(t.len, LOAD_TAIL_BYTES);
    assert_int_equal(strlen(t.text), LOAD_TAIL_BYTES);
    assert_memory_equal(t.text + LOAD_TAIL_BYTES - 3, "END", 3);
    load_tail_append(&t, big, sizeof big); /* more than the tail at once */
    assert_int_equal(t.len, LOAD_TAIL_BYTES);
    assert_memory_equal(t.text, big + sizeof big - LOAD_TAIL_BYTES, LOAD_TAIL_BYTES);
    char line[64];
    struct load_tail two = {0};
    load_tail_append(&two, "sh: 1: x: not found\nbye\t\x01\n\n", 26);
    load_tail_line(&two, line, sizeof line);
    assert_string_equal(line, "sh: 1: x: not found; bye\t?");
}

static void test_load_exit_classification(void **state)
{
    (void)state;
    /* our own OFF-phase SIGTERM/SIGKILL ends every pulsed start */
    assert_int_equal(load_exit_classify(CLD_KILLED, SIGKILL, true), LOAD_EXIT_STOPPED);
    assert_int_equal(load_exit_classify(CLD_KILLED, SIGTERM, true), LOAD_EXIT_STOPPED);
    assert_int_equal(load_exit_classify(CLD_EXITED, 0, false), LOAD_EXIT_FINISHED);
    assert_int_equal(load_exit_classify(CLD_EXITED, 127, false), LOAD_EXIT_FAILED);
    assert_int_equal(load_exit_classify(CLD_EXITED, 3, false), LOAD_EXIT_FAILED);
    assert_int_equal(load_exit_classify(CLD_KILLED, SIGTERM, false), LOAD_EXIT_FAILED);
    assert_int_equal(load_exit_classify(CLD_DUMPED, SIGSEGV, false), LOAD_EXIT_FAILED);
    char how[96];
    load_exit_describe(CLD_EXITED, 3, how, sizeof how);
    assert_string_equal(how, "exit status 3");
    load_exit_describe(CLD_KILLED, SIGKILL, how, sizeof how);
    assert_string_equal(how, "killed by signal 9 (Killed)");
}

static struct load_runner *start_cmd(const char *text, int64_t duration_ns)
{
    struct load_spec spec = parse_ok(text, false);
    spec.cpus.count = 1;
    spec.cpus.cpu[0] = sched_getcpu();
    struct load_sched sched = {.policy = SCHED_OTHER, .nice = 0};
    char err[256] = "";
    struct load_runner *lr = load_runner_start(&spec, 1, &sched, duration_ns, err, sizeof err);
    if (!lr)
        fail_msg("load_runner_start %s: %s", text, err);
    return lr;
}

/* A start that fails in its first ON phase is an error with its stderr. */
static void test_load_check_start_fails_with_the_commands_stderr(void **state)
{
    (void)state;
    struct load_runner *lr = start_cmd("cmd:echo oops >&2; exit 3", 0);
    char err[600] = "";
    int which = -1;
    assert_int_equal(load_runner_check_start(lr, &which, err, sizeof err), -1);
    assert_int_equal(which, 0);
    assert_string_equal(err, "the command failed: oops (exit status 3)");
    load_runner_stop(lr);
    struct load_cmd_report r;
    assert_true(load_runner_cmd_report(lr, 0, &r));
    assert_int_equal(r.starts, 1);
    assert_int_equal(r.failures, 1);
    assert_int_equal(r.exit_status, 3);
    assert_string_equal(r.stderr_tail.text, "oops\n");
    load_runner_destroy(lr);
}

/* Every pulsed start ends by our SIGTERM at OFF: no failure, nothing to
 * warn about; a start that fails later is counted and warned about. */
static void test_load_own_off_phase_kill_is_no_failure(void **state)
{
    (void)state;
    struct load_runner *lr = start_cmd("pulse:40ms:40ms:cmd:exec sleep 10", 300 * 1000 * 1000);
    char err[600] = "";
    int which = -1;
    assert_int_equal(load_runner_check_start(lr, &which, err, sizeof err), 0);
    while (!load_runner_finished(lr)) {
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    load_runner_stop(lr);
    struct load_cmd_report r;
    assert_true(load_runner_cmd_report(lr, 0, &r));
    assert_true(r.starts >= 3);
    assert_int_equal(r.failures, 0);
    assert_false(r.has_failure);
    assert_false(load_runner_failure_summary(lr, 0, err, sizeof err));
    load_runner_destroy(lr);

    /* the first start runs until our kill, the next ones fail */
    char flag[64];
    snprintf(flag, sizeof flag, "/tmp/jl-test-load-%d", (int)getpid());
    unlink(flag);
    lr = start_cmd("pulse:40ms:40ms:cmd:f=/tmp/jl-test-load-$PPID; [ -e $f ] && "
                   "{ echo again >&2; exit 5; }; : >$f; exec sleep 10",
                   300 * 1000 * 1000);
    assert_int_equal(load_runner_check_start(lr, &which, err, sizeof err), 0);
    while (!load_runner_finished(lr)) {
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    load_runner_stop(lr);
    unlink(flag);
    assert_true(load_runner_cmd_report(lr, 0, &r));
    assert_true(r.starts >= 3);
    assert_int_equal(r.failures, r.starts - 1);
    assert_int_equal(r.exit_status, 5);
    assert_true(load_runner_failure_summary(lr, 0, err, sizeof err));
    assert_non_null(strstr(err, "starts failed, the last one: again (exit status 5)"));
    load_runner_destroy(lr);
}

/* valgrind runs vfork-like clones as fork, and counts its own faults
 * (under_valgrind() is in test_fixture.h). */
static long minor_faults_of_this_thread(void)
{
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_THREAD, &ru), 0);
    return ru.ru_minflt;
}

/* fork() would write-protect every private page of the parent, and the
 * parent's next write to each would fault (copy-on-write). */
static void test_load_spawn_leaves_the_parents_pages_alone(void **state)
{
    (void)state;
    if (under_valgrind())
        skip();
    enum { PAGES = 1024 };
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), len = PAGES * page;
    char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(buf != MAP_FAILED);
    madvise(buf, len, MADV_NOHUGEPAGE); /* one fault per page, not per 2 MiB */
    memset(buf, 1, len);
    cpu_set_t cpus;
    sched_getaffinity(0, sizeof(cpus), &cpus);
    struct load_spawn_attr attr = {
        .cpus = &cpus, .policy = SCHED_OTHER, .nice = 0, .stderr_fd = -1};
    pid_t pid = load_spawn_shell("exit 3", &attr);
    assert_true(pid > 0);
    int status;
    reap(pid, &status);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
    long before = minor_faults_of_this_thread();
    memset(buf, 2, len);
    long faults = minor_faults_of_this_thread() - before;
    munmap(buf, len);
    if (faults >= PAGES / 8)
        fail_msg("rewriting %d pages after the spawn took %ld faults", PAGES, faults);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_kind_lists_come_from_the_table),
        cmocka_unit_test(test_load_pulse_defaults_to_cpu),
        cmocka_unit_test(test_load_pulse_wraps_any_kind),
        cmocka_unit_test(test_load_sizes_default_from_the_last_level_cache),
        cmocka_unit_test(test_load_at_cpus_only_with_run_syntax),
        cmocka_unit_test(test_load_bad_specs_say_why),
        cmocka_unit_test(test_load_runner_saturates_huge_durations),
        cmocka_unit_test(test_load_stderr_tail_keeps_the_last_bytes),
        cmocka_unit_test(test_load_exit_classification),
        cmocka_unit_test(test_load_check_start_fails_with_the_commands_stderr),
        cmocka_unit_test(test_load_own_off_phase_kill_is_no_failure),
        cmocka_unit_test(test_load_spawn_child_leads_its_group_on_its_cpus),
        cmocka_unit_test_setup_teardown(test_load_spawn_child_blocks_and_ignores_no_stop_signal,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test(test_load_spawn_leaves_the_parents_pages_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
