/*
 * Unit tests for src/sys/resctrl.c: the fixture trees of an Intel machine
 * with cache allocation (mounted, with and without a real-time group), an
 * AMD EPYC (supported, not mounted) and a VM (no support), schemata as the
 * kernel writes them (CDP, several domains, MB) and garbage.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sys/resctrl.h"
#include "test_fixture.h"
#include "test_tree.h"

static struct resctrl_info *read_fixture(const char *name, struct read_notes *notes)
{
    struct sysroot sr;
    fixture_sysroot(&sr, name);
    struct resctrl_info *r = malloc(sizeof *r);
    assert_non_null(r);
    memset(notes, 0, sizeof *notes);
    resctrl_read(&sr, r, notes);
    return r;
}

static void test_intel_mounted_default_group(void **state)
{
    (void)state;
    static struct read_notes notes;
    struct resctrl_info *r = read_fixture("intel-ipc-untuned", &notes);
    assert_true(r->cat_l3 && r->cat_l2 && r->cdp_l3 && r->rdt_a);
    assert_false(r->mba);
    assert_true(r->cpu_supported && r->kernel_supported && r->mounted);
    assert_string_equal(r->why_unsupported, "");
    assert_true(r->l3_info);
    assert_int_equal(r->cbm_mask, 0xfff);
    assert_int_equal(r->cbm_bits, 12);
    assert_int_equal(r->min_cbm_bits, 1);
    assert_int_equal(r->num_closids, 4);
    assert_int_equal(r->shareable_bits, 0);
    assert_true(r->l2_info);
    assert_int_equal(r->ngroups, 1); /* info and mon_groups are not groups */
    assert_string_equal(r->group[0].name, "");
    assert_string_equal(r->group[0].cpus_list, "0-3");
    assert_string_equal(r->group[0].mode, "shareable");
    assert_true(r->group[0].l3_read);
    assert_int_equal(r->group[0].ndomains, 1);
    assert_int_equal(r->group[0].domain[0].id, 0);
    assert_int_equal(r->group[0].domain[0].mask, 0xfff);
    assert_int_equal(notes.count, 0);
    free(r);
}

static void test_intel_tuned_has_the_rt_group(void **state)
{
    (void)state;
    static struct read_notes notes;
    struct resctrl_info *r = read_fixture("intel-ipc-tuned", &notes);
    assert_int_equal(r->ngroups, 2);
    const struct resctrl_group *g = resctrl_group_find(r, "jitterlab-rt");
    assert_non_null(g);
    assert_string_equal(g->cpus_list, "3");
    assert_string_equal(g->mode, "shareable"); /* with L2 allocation: see tune_resctrl.c */
    assert_true(r->l2_info);
    assert_int_equal(g->domain[0].mask, 0xe00);
    assert_int_equal(resctrl_group_find(r, "")->domain[0].mask, 0x1ff);
    assert_null(resctrl_group_find(r, "info"));
    free(r);
}

static void test_epyc_supported_not_mounted_and_vm_unsupported(void **state)
{
    (void)state;
    static struct read_notes notes;
    struct resctrl_info *r = read_fixture("amd-epyc", &notes);
    assert_true(r->cat_l3 && r->cdp_l3 && r->mba && r->cpu_supported && r->kernel_supported);
    assert_false(r->mounted);
    assert_int_equal(r->ngroups, 0);
    assert_string_equal(r->why_unsupported, "");
    free(r);
    r = read_fixture("vm-haltpoll", &notes);
    assert_false(r->cpu_supported);
    assert_false(r->mounted);
    assert_non_null(strstr(r->why_unsupported, "cat_l3"));
    free(r);
}

static void test_schemata_forms(void **state)
{
    (void)state;
    static struct resctrl_group g;
    const char *why = NULL;
    assert_int_equal(resctrl_parse_schemata("    L3:0=ff0;1=00f\n    MB:0=100;1=50\n", &g, &why),
                     0);
    assert_true(g.l3_read);
    assert_int_equal(g.ndomains, 2);
    assert_int_equal(g.domain[0].mask, 0xff0);
    assert_int_equal(g.domain[1].mask, 0x00f);
    assert_int_equal(g.domain[0].mb, 100);
    assert_int_equal(g.domain[1].mb, 50);
    /* CDP: the data mask stands for L3 */
    assert_int_equal(resctrl_parse_schemata("L3CODE:0=f00\nL3DATA:0=0ff\n", &g, &why), 0);
    assert_int_equal(g.domain[0].mask, 0x0ff);
    /* other resources are skipped; an MB-only text has no L3 */
    assert_int_equal(resctrl_parse_schemata("L2:0=f\nMB:0=10\n", &g, &why), 0);
    assert_false(g.l3_read);
    static const char *const bad[] = {"L3:0=zz\n", "L3:x=f\n",     "L3 0=f\n",
                                      "L3:0=-1\n", "L3:0=f,1=f\n", "MB:0=ten\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why = NULL;
        if (resctrl_parse_schemata(bad[i], &g, &why) == 0)
            fail_msg("accepted %s", bad[i]);
        assert_non_null(why);
    }
}

static void test_masks_contiguous(void **state)
{
    (void)state;
    assert_true(resctrl_mask_contiguous(0xe00));
    assert_true(resctrl_mask_contiguous(0x1));
    assert_true(resctrl_mask_contiguous(0xfff));
    assert_false(resctrl_mask_contiguous(0));
    assert_false(resctrl_mask_contiguous(0xf0f));
    assert_false(resctrl_mask_contiguous(0x5));
}

/* Garbage in the files is noted with the path, never a crash or a guess. */
static void test_garbage_is_noted(void **state)
{
    char *root = *state;
    write_text(root, "/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu cat_l3 rdt_a\n\n");
    write_text(root, "/proc/filesystems", "nodev\tresctrl\n");
    write_text(root, "/sys/fs/resctrl/info/L3/cbm_mask", "not hex\n");
    write_text(root, "/sys/fs/resctrl/info/last_cmd_status", "ok\n");
    write_text(root, "/sys/fs/resctrl/schemata", "L3:0=\xff\xfe\n");
    write_text(root, "/sys/fs/resctrl/cpus_list", "0-1\n");
    write_text(root, "/sys/fs/resctrl/bad name/schemata", "L3:0=f\n");
    write_text(root, "/sys/fs/resctrl/rt/schemata", "L3:0=3\n");
    write_text(root, "/sys/fs/resctrl/rt/cpus_list", "1\n");
    struct sysroot sr;
    sysroot_init(&sr, root);
    static struct resctrl_info r;
    static struct read_notes notes;
    memset(&notes, 0, sizeof notes);
    resctrl_read(&sr, &r, &notes);
    assert_true(r.mounted);
    assert_false(r.l3_info);
    assert_int_equal(r.ngroups, 2); /* "bad name" is not a group name the kernel allows */
    assert_false(r.group[0].l3_read);
    assert_int_equal(r.group[1].domain[0].mask, 3);
    assert_int_equal(notes.count, 2);
    assert_non_null(strstr(notes.note[0].path, "cbm_mask"));
    assert_non_null(strstr(notes.note[1].path, "/sys/fs/resctrl/schemata"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intel_mounted_default_group),
        cmocka_unit_test(test_intel_tuned_has_the_rt_group),
        cmocka_unit_test(test_epyc_supported_not_mounted_and_vm_unsupported),
        cmocka_unit_test(test_schemata_forms),
        cmocka_unit_test(test_masks_contiguous),
        cmocka_unit_test_setup_teardown(test_garbage_is_noted, temp_tree_setup, temp_tree_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
