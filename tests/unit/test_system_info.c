/*
 * Unit tests for src/sys/sysroot.c and src/sys/system_info.c. The machine
 * description is checked against recorded trees of real machine types in
 * tests/fixtures/ (found through $JL_TOP, the repository root, else "."), and
 * the corner cases (each preempt source and their order, hypervisor names, CPU model keys,
 * malformed files) against small trees each test writes into a temporary
 * directory of its own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "sys/system_info.h"
#include "sys/sysroot.h"
#include "test_fixture.h"
#include "test_tree.h"

/* ---- helpers ---------------------------------------------------------- */

/* ---- sysroot ---------------------------------------------------------- */

static void test_sysroot_init_strips_trailing_slashes(void **state)
{
    (void)state;
    struct sysroot sr;
    char path[64];
    sysroot_init(&sr, "/tmp/fixture///");
    assert_string_equal(sr.prefix, "/tmp/fixture");
    assert_int_equal(sysroot_path(&sr, "/proc/version", path, sizeof path), 0);
    assert_string_equal(path, "/tmp/fixture/proc/version");

    sysroot_init(&sr, "/");
    assert_string_equal(sr.prefix, "");
    sysroot_init(&sr, "");
    assert_string_equal(sr.prefix, "");
    sysroot_init(&sr, NULL);
    assert_string_equal(sr.prefix, "");
    assert_int_equal(sysroot_path(&sr, "/proc/version", path, sizeof path), 0);
    assert_string_equal(path, "/proc/version");
}

static void test_sysroot_path_reports_overflow(void **state)
{
    (void)state;
    struct sysroot sr;
    char path[16];
    sysroot_init(&sr, "/a/long/prefix");
    assert_int_equal(sysroot_path(&sr, "/proc/version", path, sizeof path), -1);
    assert_string_equal(path, "");
}

static void test_sysroot_read_string_strips_one_newline(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    char buf[64];
    sysroot_init(&sr, root);

    write_text(root, "/a", "abc\n");
    assert_int_equal(sysroot_read_string(&sr, "/a", buf, sizeof buf), 3);
    assert_string_equal(buf, "abc");
    write_text(root, "/a", "abc\n\n");
    assert_int_equal(sysroot_read_string(&sr, "/a", buf, sizeof buf), 4);
    assert_string_equal(buf, "abc\n");
    write_text(root, "/a", "abc");
    assert_int_equal(sysroot_read_string(&sr, "/a", buf, sizeof buf), 3);
    assert_string_equal(buf, "abc");
    write_text(root, "/a", "");
    assert_int_equal(sysroot_read_string(&sr, "/a", buf, sizeof buf), 0);
    assert_string_equal(buf, "");
}

static void test_sysroot_read_string_cuts_at_buffer_size(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    char buf[4];
    sysroot_init(&sr, root);
    write_text(root, "/long", "abcdef\n");
    assert_int_equal(sysroot_read_string(&sr, "/long", buf, sizeof buf), 3);
    assert_string_equal(buf, "abc");
    /* the newline is not the file's last byte here, so it stays */
    write_text(root, "/long", "ab\ncd");
    assert_int_equal(sysroot_read_string(&sr, "/long", buf, sizeof buf), 3);
    assert_string_equal(buf, "ab\n");
}

static void test_sysroot_read_string_reports_errno(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    char buf[16] = "stale";
    sysroot_init(&sr, root);
    assert_int_equal(sysroot_read_string(&sr, "/missing", buf, sizeof buf), -ENOENT);
    assert_string_equal(buf, "");
    strcpy(buf, "stale");
    assert_int_equal(sysroot_read_string(&sr, "", buf, sizeof buf), -EISDIR);
    assert_string_equal(buf, "");
    assert_int_equal(sysroot_read_string(&sr, "/missing", buf, 0), -EINVAL);
}

static void test_sysroot_read_int64_accepts_surrounding_blanks(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    int64_t v = 0;
    sysroot_init(&sr, root);
    write_text(root, "/n", " 42\n");
    assert_int_equal(sysroot_read_int64(&sr, "/n", &v), 0);
    assert_int_equal(v, 42);
    write_text(root, "/n", "-7");
    assert_int_equal(sysroot_read_int64(&sr, "/n", &v), 0);
    assert_int_equal(v, -7);
    write_text(root, "/n", "\t2000000000 \n\n");
    assert_int_equal(sysroot_read_int64(&sr, "/n", &v), 0);
    assert_int_equal(v, 2000000000);
    write_text(root, "/n", "9223372036854775807\n");
    assert_int_equal(sysroot_read_int64(&sr, "/n", &v), 0);
    assert_int_equal(v, INT64_MAX);
}

static void test_sysroot_read_int64_rejects_garbage(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    sysroot_init(&sr, root);
    static const char *const bad[] = {"12abc", "abc", "", "\n", "1 2", "0x10", "--1", "- 1", "1.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t v = 99;
        write_text(root, "/n", bad[i]);
        assert_int_equal(sysroot_read_int64(&sr, "/n", &v), -EINVAL);
        assert_int_equal(v, 99);
    }
    char long_text[200];
    memset(long_text, ' ', sizeof long_text - 2);
    long_text[sizeof long_text - 2] = '1';
    long_text[sizeof long_text - 1] = '\0';
    write_text(root, "/n", long_text);
    int64_t v = 99;
    assert_int_equal(sysroot_read_int64(&sr, "/n", &v), -EINVAL);
    write_text(root, "/n", "99999999999999999999\n");
    assert_int_equal(sysroot_read_int64(&sr, "/n", &v), -ERANGE);
    assert_int_equal(sysroot_read_int64(&sr, "/missing", &v), -ENOENT);
    assert_int_equal(v, 99);
}

static void test_sysroot_write_string_replaces_content(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    char buf[64];
    sysroot_init(&sr, root);
    write_text(root, "/sys/knob", "performance\n");
    assert_int_equal(sysroot_write_string(&sr, "/sys/knob", "1"), 0);
    assert_int_equal(sysroot_read_string(&sr, "/sys/knob", buf, sizeof buf), 1);
    assert_string_equal(buf, "1");
}

static void test_sysroot_write_string_never_creates(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    char path[PATH_MAX];
    sysroot_init(&sr, root);
    assert_int_equal(sysroot_write_string(&sr, "/absent", "1"), -ENOENT);
    snprintf(path, sizeof path, "%s/absent", root);
    assert_int_equal(access(path, F_OK), -1);
}

/* ---- system_info against recorded machines ---------------------------- */

static void test_system_info_reads_vm_fixture(void **state)
{
    (void)state;
    struct sysroot sr;
    struct system_info *si = malloc(sizeof *si);
    assert_non_null(si);
    fixture_sysroot(&sr, "vm-haltpoll");
    system_info_read(&sr, si);

    assert_string_equal(si->hostname, "vm");
    assert_string_equal(si->kernel, "6.18.44-fc-v782");
    assert_non_null(strstr(si->kernel_version, "Linux version 6.18.44-fc-v782 "));
    assert_non_null(strstr(si->kernel_version, "#1 SMP PREEMPT_DYNAMIC"));
    /* PREEMPT_DYNAMIC in /proc/version, CONFIG_PREEMPT_NONE=y: the config's
     * boot default is the running model (no debugfs, no preempt=) */
    assert_string_equal(si->preempt_model, "none");
    assert_string_equal(si->preempt_source, "/proc/config.gz");
    assert_non_null(strstr(si->cmdline, "clocksource=kvm-clock"));
    assert_int_equal(si->cmdline[strlen(si->cmdline) - 1] != '\n', 1);
    assert_string_equal(si->cpu_model, "AMD EPYC");
    assert_string_equal(si->arch, ""); /* uname never describes a fixture */
    assert_string_equal(si->cpus_online, "0-1");
    assert_int_equal(si->online.count, 2);
    assert_int_equal(si->online.cpu[1], 1);
    assert_string_equal(si->isolated, "");
    assert_int_equal(si->isolated_list.count, 0);
    assert_string_equal(si->nohz_full, "");
    assert_string_equal(si->clocksource, "kvm-clock");
    assert_string_equal(si->clocksource_available, "kvm-clock");
    assert_true(si->tsc_constant);
    assert_true(si->tsc_nonstop);
    assert_true(si->tsc_invariant);
    assert_string_equal(si->hypervisor, "unknown"); /* flag set, no name exposed */
    assert_string_equal(si->hypervisor_source, "/proc/cpuinfo");
    assert_int_equal(si->cpu_dma_latency_us, 2000000000);
    free(si);
}

static void test_system_info_reads_rt_fixture(void **state)
{
    (void)state;
    struct sysroot sr;
    struct system_info *si = malloc(sizeof *si);
    assert_non_null(si);
    fixture_sysroot(&sr, "rt-tuned-minimal");
    system_info_read(&sr, si);

    assert_string_equal(si->hostname, "rt-ipc-01");
    assert_string_equal(si->kernel, "6.1.0-28-rt-amd64");
    assert_string_equal(si->preempt_model, "PREEMPT_RT");
    assert_string_equal(si->preempt_source, "/sys/kernel/realtime");
    assert_non_null(strstr(si->cmdline, "isolcpus=3 nohz_full=3"));
    assert_string_equal(si->cpu_model, "Intel(R) Core(TM) i5-6500 CPU @ 3.20GHz");
    assert_string_equal(si->cpus_online, "0-3");
    assert_int_equal(si->online.count, 4);
    assert_string_equal(si->isolated, "3");
    assert_int_equal(si->isolated_list.count, 1);
    assert_int_equal(si->isolated_list.cpu[0], 3);
    assert_string_equal(si->nohz_full, "3");
    assert_string_equal(si->clocksource, "tsc");
    assert_string_equal(si->clocksource_available, "tsc hpet acpi_pm");
    assert_true(si->tsc_invariant);
    assert_string_equal(si->hypervisor, "");
    assert_int_equal(si->cpu_dma_latency_us, -1); /* not in this fixture */
    free(si);
}

static void test_system_info_missing_sysroot_leaves_fields_empty(void **state)
{
    (void)state;
    struct sysroot sr;
    struct system_info *si = malloc(sizeof *si);
    assert_non_null(si);
    memset(si, 0x5a, sizeof *si);
    sysroot_init(&sr, "/nonexistent/jitterlab-sysroot");
    system_info_read(&sr, si);

    const char *fields[] = {si->hostname,
                            si->kernel,
                            si->kernel_version,
                            si->preempt_model,
                            si->preempt_source,
                            si->cmdline,
                            si->cpu_model,
                            si->arch,
                            si->cpus_online,
                            si->isolated,
                            si->nohz_full,
                            si->clocksource,
                            si->clocksource_available,
                            si->hypervisor};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        assert_string_equal(fields[i], "");
    assert_false(si->tsc_constant);
    assert_false(si->tsc_nonstop);
    assert_false(si->tsc_invariant);
    assert_int_equal(si->cpu_dma_latency_us, -1);
    assert_int_equal(si->online.count, 0); /* no sysconf fallback under a sysroot */
    assert_int_equal(si->isolated_list.count, 0);
    free(si);
}

static void test_system_info_live_machine_has_basics(void **state)
{
    (void)state;
    struct sysroot sr;
    struct system_info *si = malloc(sizeof *si);
    assert_non_null(si);
    sysroot_init(&sr, NULL);
    system_info_read(&sr, si);
    assert_true(si->kernel[0] != '\0');
    assert_true(si->arch[0] != '\0');
    assert_true(si->online.count >= 1);
    assert_true(si->cpus_online[0] != '\0');
    free(si);
}

/* ---- system_info corner cases on written trees ------------------------ */

static void test_system_info_preempt_from_debugfs(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    struct system_info *si = malloc(sizeof *si);
    assert_non_null(si);
    sysroot_init(&sr, root);
    write_text(root, "/sys/kernel/realtime", "0\n"); /* present but not RT */
    write_text(root, "/sys/kernel/debug/sched/preempt", "none voluntary (full) lazy\n");
    write_text(root, "/proc/version", "Linux version 6.12.0 #1 SMP PREEMPT_DYNAMIC\n");
    system_info_read(&sr, si);
    assert_string_equal(si->preempt_model, "full");
    assert_string_equal(si->preempt_source, "/sys/kernel/debug/sched/preempt");

    write_text(root, "/sys/kernel/debug/sched/preempt", "none (voluntary) full\n");
    system_info_read(&sr, si);
    assert_string_equal(si->preempt_model, "voluntary");

    /* no parenthesised word: fall back to /proc/version */
    write_text(root, "/sys/kernel/debug/sched/preempt", "full\n");
    system_info_read(&sr, si);
    assert_string_equal(si->preempt_model, "dynamic");
    assert_string_equal(si->preempt_source, "/proc/version");
    free(si);
}

static void test_system_info_preempt_from_proc_version(void **state)
{
    const char *root = *state;
    static const struct {
        const char *version;
        const char *model;
    } cases[] = {
        {"Linux version 6.1.0-28-rt-amd64 #1 SMP PREEMPT_RT Debian 6.1.119-1\n", "PREEMPT_RT"},
        {"Linux version 4.19.0-rt #1 SMP PREEMPT RT Mon Jan 1 00:00:00 UTC 2024\n", "PREEMPT_RT"},
        {"Linux version 6.8.0 #1 SMP PREEMPT_DYNAMIC Tue Jan 2 2024\n", "dynamic"},
        {"Linux version 5.15.0 #1 SMP PREEMPT Wed Jan 3 2024\n", "full"},
        {"Linux version 5.10.0 #1 SMP Debian 5.10.209-2 (2024-01-31)\n", ""},
        {"Linux version 5.10.0 #1 SMP PREEMPTIBLE_NOT_A_FLAG\n", ""},
    };
    struct sysroot sr;
    struct system_info *si = malloc(sizeof *si);
    assert_non_null(si);
    sysroot_init(&sr, root);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_text(root, "/proc/version", cases[i].version);
        system_info_read(&sr, si);
        assert_string_equal(si->preempt_model, cases[i].model);
        assert_string_equal(si->preempt_source, cases[i].model[0] ? "/proc/version" : "");
    }
    free(si);
}

/* /proc/config.gz as the kernel serves it: gzip of the config text. */
static void write_config_gz(const char *root, const char *text)
{
    char path[PATH_MAX];
    write_text(root, "/proc/config.gz", ""); /* makes /proc */
    snprintf(path, sizeof path, "%s/proc/config.gz", root);
    gzFile gz = gzopen(path, "wb");
    assert_non_null(gz);
    assert_int_equal(gzputs(gz, text), (int)strlen(text));
    assert_int_equal(gzclose(gz), Z_OK);
}

static void assert_preempt(const char *root, const char *model, const char *source)
{
    struct sysroot sr;
    struct system_info *si = malloc(sizeof *si);
    assert_non_null(si);
    sysroot_init(&sr, root);
    system_info_read(&sr, si);
    assert_string_equal(si->preempt_model, model);
    assert_string_equal(si->preempt_source, source);
    free(si);
}

#define DYNAMIC_VERSION "Linux version 6.12.0 #1 SMP PREEMPT_DYNAMIC Tue Jan 2 2024\n"
#define DYNAMIC_NONE_CONFIG                                                                        \
    "CONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPT_NONE=y\n# CONFIG_PREEMPT is not set\n"                 \
    "CONFIG_PREEMPTION=y\nCONFIG_PREEMPT_DYNAMIC=y\n"

static void test_preempt_realtime_flag_wins(void **state)
{
    const char *root = *state;
    write_text(root, "/sys/kernel/realtime", "1\n");
    write_text(root, "/sys/kernel/debug/sched/preempt", "none voluntary (full) lazy\n");
    write_text(root, "/proc/version", "Linux version 6.12.0-rt #1 SMP PREEMPT_RT\n");
    assert_preempt(root, "PREEMPT_RT", "/sys/kernel/realtime");
}

static void test_preempt_debugfs_running_mode_beats_boot_default(void **state)
{
    const char *root = *state;
    write_text(root, "/proc/version", DYNAMIC_VERSION);
    write_text(root, "/proc/cmdline", "root=/dev/sda1 preempt=full\n");
    write_config_gz(root, DYNAMIC_NONE_CONFIG);
    write_text(root, "/sys/kernel/debug/sched/preempt", "none (voluntary) full lazy\n");
    assert_preempt(root, "voluntary", "/sys/kernel/debug/sched/preempt");
}

static void test_preempt_cmdline_overrides_the_dynamic_default(void **state)
{
    const char *root = *state;
    write_text(root, "/proc/version", DYNAMIC_VERSION);
    write_text(root, "/proc/cmdline", "root=/dev/sda1 preempt=full quiet\n");
    write_config_gz(root, DYNAMIC_NONE_CONFIG);
    assert_preempt(root, "full", "/proc/cmdline");

    /* without config.gz the PREEMPT_DYNAMIC flag says preempt= applies */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/proc/config.gz", root);
    unlink(path);
    assert_preempt(root, "full", "/proc/cmdline");

    /* a value the kernel does not know is no model */
    write_text(root, "/proc/cmdline", "preempt=fast\n");
    assert_preempt(root, "dynamic", "/proc/version");
}

static void test_preempt_cmdline_ignored_by_a_static_kernel(void **state)
{
    const char *root = *state;
    write_text(root, "/proc/version", "Linux version 6.1.0 #1 SMP\n");
    write_text(root, "/proc/cmdline", "preempt=full\n");
    write_config_gz(root, "CONFIG_PREEMPT_VOLUNTARY=y\n# CONFIG_PREEMPT_DYNAMIC is not set\n");
    assert_preempt(root, "voluntary", "/proc/config.gz");
}

static void test_preempt_config_names_rt_and_the_default(void **state)
{
    const char *root = *state;
    write_text(root, "/proc/version", DYNAMIC_VERSION);
    write_config_gz(root, DYNAMIC_NONE_CONFIG);
    assert_preempt(root, "none", "/proc/config.gz");

    write_text(root, "/proc/version", "Linux version 6.6.0-rt #1 SMP PREEMPT_RT\n");
    write_text(root, "/proc/cmdline", "preempt=none\n"); /* meaningless on RT */
    write_config_gz(root, "CONFIG_PREEMPT_RT=y\nCONFIG_PREEMPTION=y\n");
    assert_preempt(root, "PREEMPT_RT", "/proc/config.gz");

    /* a config without any model line leaves the version flag to decide */
    write_config_gz(root, "CONFIG_HZ=1000\n");
    write_text(root, "/proc/cmdline", "quiet\n");
    write_text(root, "/proc/version", "Linux version 5.15.0 #1 SMP PREEMPT Wed Jan 3 2024\n");
    assert_preempt(root, "full", "/proc/version");
}

static void test_system_info_names_the_hypervisor(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    struct system_info *si = malloc(sizeof *si);
    assert_non_null(si);
    sysroot_init(&sr, root);
    write_text(root, "/proc/cpuinfo",
               "processor\t: 0\nmodel name\t: QEMU Virtual CPU\n"
               "flags\t\t: fpu tsc constant_tsc hypervisor\n\n");
    write_text(root, "/sys/devices/virtual/dmi/id/sys_vendor", "QEMU\n");
    system_info_read(&sr, si);
    assert_string_equal(si->hypervisor, "QEMU");
    assert_string_equal(si->hypervisor_source, "/sys/devices/virtual/dmi/id/sys_vendor");
    assert_true(si->tsc_constant);
    assert_false(si->tsc_nonstop);
    assert_false(si->tsc_invariant);

    write_text(root, "/sys/hypervisor/type", "xen\n"); /* preferred over DMI */
    system_info_read(&sr, si);
    assert_string_equal(si->hypervisor, "xen");
    free(si);
}

/* Without /sys/hypervisor/type the kernel's own boot line names it: only a
 * record of facility kernel with the phrase at its start. A user-space
 * record (root may write any text to /dev/kmsg, it gets facility user) or
 * the phrase quoted inside another line is not the kernel's word. */
static void test_system_info_takes_the_hypervisor_from_the_kernel_line(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    struct system_info *si = malloc(sizeof *si);
    assert_non_null(si);
    sysroot_init(&sr, root);
    write_text(root, "/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu tsc hypervisor\n\n");

    /* the phrase only from user space or not at the start: not named */
    write_text(root, "/dev/kmsg",
               "12,1,5,-;Hypervisor detected: Forged\n"
               "4,2,6,-;bash[12]: segfault, Hypervisor detected: Quoted\n");
    system_info_read(&sr, si);
    assert_string_equal(si->hypervisor, "unknown");
    assert_string_equal(si->hypervisor_source, "/proc/cpuinfo");

    /* the kernel's line wins over a later forged one, and over DMI */
    write_text(root, "/dev/kmsg",
               "5,0,0,-;Linux version 6.18.44\n"
               "6,1,0,-;Hypervisor detected: PVM\n"
               "12,2,9,-;Hypervisor detected: Forged\n");
    write_text(root, "/sys/devices/virtual/dmi/id/sys_vendor", "QEMU\n");
    system_info_read(&sr, si);
    assert_string_equal(si->hypervisor, "PVM");
    assert_string_equal(si->hypervisor_source, "/dev/kmsg");

    /* /sys/hypervisor/type, where it exists, is the first source */
    write_text(root, "/sys/hypervisor/type", "xen\n");
    system_info_read(&sr, si);
    assert_string_equal(si->hypervisor, "xen");
    assert_string_equal(si->hypervisor_source, "/sys/hypervisor/type");
    free(si);
}

static void test_system_info_flags_match_whole_words(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    struct system_info *si = malloc(sizeof *si);
    assert_non_null(si);
    sysroot_init(&sr, root);
    write_text(root, "/proc/cpuinfo",
               "processor\t: 0\n"
               "vmx flags\t: constant_tsc nonstop_tsc hypervisor\n"
               "flags\t\t: xconstant_tsc nonstop_tsc_x hypervisor_x\n\n");
    system_info_read(&sr, si);
    assert_false(si->tsc_constant);
    assert_false(si->tsc_nonstop);
    assert_string_equal(si->hypervisor, "");
    free(si);
}

static void test_system_info_cpu_model_fallback_keys(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    struct system_info *si = malloc(sizeof *si);
    assert_non_null(si);
    sysroot_init(&sr, root);
    write_text(root, "/proc/cpuinfo",
               "Processor\t: ARMv7 Processor rev 10 (v7l)\nprocessor\t: 0\nBogoMIPS\t: 3.00\n");
    system_info_read(&sr, si);
    assert_string_equal(si->cpu_model, "ARMv7 Processor rev 10 (v7l)");
    assert_false(si->tsc_invariant);
    assert_string_equal(si->hypervisor, "");

    write_text(root, "/proc/cpuinfo",
               "system type\t\t: MT7621\nprocessor\t\t: 0\n"
               "cpu model\t\t: MIPS 1004Kc V2.15  \n");
    system_info_read(&sr, si);
    assert_string_equal(si->cpu_model, "MIPS 1004Kc V2.15");
    free(si);
}

static void test_system_info_cpu_dma_latency_forms(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    struct system_info *si = malloc(sizeof *si);
    assert_non_null(si);
    sysroot_init(&sr, root);

    int32_t zero = 0;
    write_file(root, "/dev/cpu_dma_latency", &zero, sizeof zero);
    system_info_read(&sr, si);
    assert_int_equal(si->cpu_dma_latency_us, 0);

    write_text(root, "/dev/cpu_dma_latency", "20\n"); /* hand-written text form */
    system_info_read(&sr, si);
    assert_int_equal(si->cpu_dma_latency_us, 20);

    write_text(root, "/dev/cpu_dma_latency", "garbage\n");
    system_info_read(&sr, si);
    assert_int_equal(si->cpu_dma_latency_us, -1);

    write_text(root, "/dev/cpu_dma_latency", "");
    system_info_read(&sr, si);
    assert_int_equal(si->cpu_dma_latency_us, -1);
    free(si);
}

static void test_system_info_keeps_unparsable_cpu_list_text(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    struct system_info *si = malloc(sizeof *si);
    assert_non_null(si);
    sysroot_init(&sr, root);
    write_text(root, "/sys/devices/system/cpu/online", "0-3\n");
    write_text(root, "/sys/devices/system/cpu/isolated", "2-1\n");
    system_info_read(&sr, si);
    assert_int_equal(si->online.count, 4);
    assert_string_equal(si->isolated, "2-1");
    assert_int_equal(si->isolated_list.count, 0);
    free(si);
}

/* An isolated list longer than the text field (every second CPU of 4096:
 * about 9 KB) is parsed from the whole file, not from its cut copy, whose
 * last element would be a cut number; the text kept ends with ",...". */
static void test_system_info_parses_a_long_cpu_list_whole(void **state)
{
    const char *root = *state;
    struct sysroot sr;
    struct system_info *si = malloc(sizeof *si);
    char *list = malloc(16384);
    assert_non_null(si);
    assert_non_null(list);
    size_t n = 0;
    for (int cpu = 0; cpu < 4096; cpu += 2)
        n += (size_t)snprintf(list + n, 16384 - n, "%s%d", cpu ? "," : "", cpu);
    snprintf(list + n, 16384 - n, "\n");
    sysroot_init(&sr, root);
    write_text(root, "/sys/devices/system/cpu/online", "0-4095\n");
    write_text(root, "/sys/devices/system/cpu/isolated", list);
    system_info_read(&sr, si);
    assert_int_equal(si->online.count, 4096);
    assert_int_equal(si->isolated_list.count, 2048);
    assert_int_equal(si->isolated_list.cpu[2047], 4094);
    size_t len = strlen(si->isolated);
    assert_true(len < sizeof si->isolated);
    assert_string_equal(si->isolated + len - 4, ",...");
    free(list);
    free(si);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sysroot_init_strips_trailing_slashes),
        cmocka_unit_test(test_sysroot_path_reports_overflow),
        cmocka_unit_test_setup_teardown(test_sysroot_read_string_strips_one_newline,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_sysroot_read_string_cuts_at_buffer_size,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_sysroot_read_string_reports_errno, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_sysroot_read_int64_accepts_surrounding_blanks,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_sysroot_read_int64_rejects_garbage, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_sysroot_write_string_replaces_content, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_sysroot_write_string_never_creates, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test(test_system_info_reads_vm_fixture),
        cmocka_unit_test(test_system_info_reads_rt_fixture),
        cmocka_unit_test(test_system_info_missing_sysroot_leaves_fields_empty),
        cmocka_unit_test(test_system_info_live_machine_has_basics),
        cmocka_unit_test_setup_teardown(test_system_info_preempt_from_debugfs, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_system_info_preempt_from_proc_version, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_preempt_realtime_flag_wins, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_preempt_debugfs_running_mode_beats_boot_default,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_preempt_cmdline_overrides_the_dynamic_default,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_preempt_cmdline_ignored_by_a_static_kernel,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_preempt_config_names_rt_and_the_default,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_system_info_takes_the_hypervisor_from_the_kernel_line,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_system_info_names_the_hypervisor, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_system_info_flags_match_whole_words, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_system_info_cpu_model_fallback_keys, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_system_info_cpu_dma_latency_forms, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_system_info_parses_a_long_cpu_list_whole,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_system_info_keeps_unparsable_cpu_list_text,
                                        temp_tree_setup, temp_tree_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
