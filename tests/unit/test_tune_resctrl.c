/*
 * cache-partition against an emulated resctrl: a struct tune_io and a
 * struct tune_dir_io over a temporary tree that behave as the kernel does
 * (mount makes info/ and the default group, mkdir a group with full masks,
 * a group's cpus_list takes its CPUs from the default group and rmdir gives
 * them back, an exclusive group's ways are its own). Pins the masks planned,
 * the refusals, apply and restore back to the byte, and a restore after a
 * crash half-way.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/cpulist.h"
#include "sys/resctrl.h"
#include "tune/tune.h"
#include "test_tree.h"

#define R "/sys/fs/resctrl"

/* The machine the emulation stands for. */
struct emu {
    const char *cbm;       /* info/L3/cbm_mask */
    const char *min_bits;  /* info/L3/min_cbm_bits */
    const char *closids;   /* info/L3/num_closids */
    const char *shareable; /* info/L3/shareable_bits */
    int ndomains;
    const char *cpus; /* every CPU */
    bool mb;          /* info/MB exists */
};

static char *slurp(const char *root, const char *rel)
{
    struct sysroot sr;
    sysroot_init(&sr, root);
    char *v = NULL;
    if (sysroot_read_value(&sr, rel, &v) < 0)
        return NULL;
    return v;
}

static void render(const char *root, const char *rel, const struct resctrl_group *g, bool mb)
{
    char text[1024];
    size_t used = (size_t)snprintf(text, sizeof text, "L3:");
    for (int i = 0; i < g->ndomains; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%d=%llx", i ? ";" : "",
                                 g->domain[i].id, (unsigned long long)g->domain[i].mask);
    for (int i = 0; mb && i < g->ndomains; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%d=%d",
                                 i ? ";" : "\nMB:", g->domain[i].id, g->domain[i].mb);
    snprintf(text + used, sizeof text - used, "\n");
    write_text(root, rel, text);
}

static bool read_group(const char *root, const char *dir, struct resctrl_group *g)
{
    char rel[256];
    snprintf(rel, sizeof rel, "%s/schemata", dir);
    char *text = slurp(root, rel);
    const char *why;
    memset(g, 0, sizeof *g);
    bool ok = text && resctrl_parse_schemata(text, g, &why) == 0;
    free(text);
    return ok;
}

static int emu_mount(const struct tune_dir_io *io, const struct sysroot *sr, const char *fstype,
                     const char *path)
{
    const struct emu *e = io->ctx;
    const char *root = sr->prefix;
    char *probe = slurp(root, R "/info/L3/cbm_mask");
    free(probe);
    if (probe || strcmp(fstype, "resctrl") != 0 || strcmp(path, R) != 0)
        return -EBUSY;
    write_text(root, R "/info/L3/cbm_mask", e->cbm);
    write_text(root, R "/info/L3/min_cbm_bits", e->min_bits);
    write_text(root, R "/info/L3/num_closids", e->closids);
    write_text(root, R "/info/L3/shareable_bits", e->shareable);
    if (e->mb) {
        write_text(root, R "/info/MB/bandwidth_gran", "10\n");
        write_text(root, R "/info/MB/min_bandwidth", "10\n");
    }
    struct resctrl_group g = {.ndomains = e->ndomains};
    for (int i = 0; i < e->ndomains; i++)
        g.domain[i] = (struct resctrl_domain){i, strtoull(e->cbm, NULL, 16), 100};
    render(root, R "/schemata", &g, e->mb);
    char cpus[64];
    snprintf(cpus, sizeof cpus, "%s\n", e->cpus);
    write_text(root, R "/cpus_list", cpus);
    write_text(root, R "/mode", "shareable\n");
    write_text(root, R "/tasks", "");
    return 0;
}

static int remove_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    return ftw->level > 0 ? remove(p) : 0;
}

static int emu_umount(const struct tune_dir_io *io, const struct sysroot *sr, const char *path)
{
    (void)io;
    char full[4400], *probe = slurp(sr->prefix, R "/info/L3/cbm_mask");
    free(probe);
    if (!probe || strcmp(path, R) != 0)
        return -EINVAL;
    snprintf(full, sizeof full, "%s%s", sr->prefix, R);
    return nftw(full, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -EIO;
}

static int emu_mkdir(const struct tune_dir_io *io, const struct sysroot *sr, const char *path)
{
    (void)io;
    char full[4400], rel[256];
    snprintf(full, sizeof full, "%s%s", sr->prefix, path);
    if (mkdir(full, 0755) != 0)
        return -errno;
    struct resctrl_group g;
    assert_true(read_group(sr->prefix, R, &g));
    char *cbm = slurp(sr->prefix, R "/info/L3/cbm_mask");
    for (int i = 0; i < g.ndomains; i++)
        g.domain[i].mask = strtoull(cbm, NULL, 16);
    free(cbm);
    snprintf(rel, sizeof rel, "%s/schemata", path);
    render(sr->prefix, rel, &g, false);
    snprintf(rel, sizeof rel, "%s/cpus_list", path);
    write_text(sr->prefix, rel, "\n");
    snprintf(rel, sizeof rel, "%s/mode", path);
    write_text(sr->prefix, rel, "shareable\n");
    snprintf(rel, sizeof rel, "%s/tasks", path);
    write_text(sr->prefix, rel, "");
    return 0;
}

/* Moves CPUs between the default group's cpus_list and a group's. */
static void move_cpus(const char *root, const struct cpulist *to_default,
                      const struct cpulist *from_default)
{
    char *text = slurp(root, R "/cpus_list");
    struct cpulist def, tmp;
    const char *why;
    assert_int_equal(cpulist_parse(text ? text : "", &def, &why), 0);
    free(text);
    if (from_default)
        cpulist_subtract(&def, from_default, &tmp);
    else
        tmp = def;
    for (int i = 0; to_default && i < to_default->count; i++)
        if (!cpulist_contains(&tmp, to_default->cpu[i]))
            tmp.cpu[tmp.count++] = to_default->cpu[i];
    /* the kernel prints the list sorted */
    for (int i = 1; i < tmp.count; i++)
        for (int k = i; k > 0 && tmp.cpu[k - 1] > tmp.cpu[k]; k--) {
            int t = tmp.cpu[k];
            tmp.cpu[k] = tmp.cpu[k - 1];
            tmp.cpu[k - 1] = t;
        }
    char out[256];
    cpulist_format(&tmp, out, sizeof out);
    strcat(out, "\n");
    write_text(root, R "/cpus_list", out);
}

static int emu_rmdir(const struct tune_dir_io *io, const struct sysroot *sr, const char *path)
{
    (void)io;
    char full[4400], rel[256];
    snprintf(full, sizeof full, "%s%s", sr->prefix, path);
    struct stat st;
    if (stat(full, &st) != 0)
        return -errno;
    snprintf(rel, sizeof rel, "%s/cpus_list", path);
    char *text = slurp(sr->prefix, rel);
    struct cpulist cpus;
    const char *why;
    assert_int_equal(cpulist_parse(text ? text : "", &cpus, &why), 0);
    free(text);
    move_cpus(sr->prefix, &cpus, NULL);
    nftw(full, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rmdir(full) == 0 ? 0 : -errno;
}

/* Whether group dir's masks overlap an exclusive group's (or, with
 * exclusive, any other group's). */
static bool overlaps(const char *root, const char *dir, const struct resctrl_group *mine,
                     bool exclusive)
{
    const char *names[] = {"", "/jitterlab-rt", "/other", "/batch"};
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        char gdir[128], rel[160];
        snprintf(gdir, sizeof gdir, R "%s", names[n]);
        if (strcmp(gdir, dir) == 0)
            continue;
        struct resctrl_group g;
        if (!read_group(root, gdir, &g))
            continue;
        snprintf(rel, sizeof rel, "%s/mode", gdir);
        char *mode = slurp(root, rel);
        bool excl = mode && strcmp(mode, "exclusive") == 0;
        free(mode);
        if (!exclusive && !excl)
            continue;
        for (int i = 0; i < g.ndomains && i < mine->ndomains; i++)
            if (g.domain[i].mask & mine->domain[i].mask)
                return true;
    }
    return false;
}

static int emu_write(const struct tune_io *io, const struct sysroot *sr, const char *path,
                     const char *value)
{
    (void)io;
    const char *root = sr->prefix;
    const char *leaf = strrchr(path, '/');
    char dir[256];
    snprintf(dir, sizeof dir, "%.*s", (int)(leaf - path), path);
    char *exists = slurp(root, path);
    free(exists);
    if (!exists)
        return -ENOENT;
    if (strcmp(leaf, "/cpus_list") == 0 && strcmp(dir, R) != 0) {
        struct cpulist now, want, gone;
        const char *why;
        char *text = slurp(root, path);
        char trimmed[256];
        snprintf(trimmed, sizeof trimmed, "%.*s", (int)strcspn(value, "\n"), value);
        if (cpulist_parse(trimmed, &want, &why) != 0 || cpulist_parse(text, &now, &why) != 0) {
            free(text);
            return -EINVAL;
        }
        free(text);
        cpulist_subtract(&now, &want, &gone);
        move_cpus(root, &gone, &want);
    } else if (strcmp(leaf, "/schemata") == 0) {
        struct resctrl_group g, w;
        const char *why;
        assert_true(read_group(root, dir, &g));
        if (resctrl_parse_schemata(value, &w, &why) != 0)
            return -EINVAL;
        for (int i = 0; i < w.ndomains; i++)
            for (int k = 0; k < g.ndomains; k++)
                if (g.domain[k].id == w.domain[i].id) {
                    if (w.domain[i].mask)
                        g.domain[k].mask = w.domain[i].mask;
                    if (w.domain[i].mb >= 0)
                        g.domain[k].mb = w.domain[i].mb;
                }
        if (overlaps(root, dir, &g, false))
            return -EINVAL; /* an exclusive group's ways */
        char *mb = slurp(root, R "/info/MB/bandwidth_gran");
        free(mb);
        render(root, path, &g, mb && strcmp(dir, R) == 0);
        return 0;
    } else if (strcmp(leaf, "/mode") == 0 && strncmp(value, "exclusive", 9) == 0) {
        struct resctrl_group g;
        assert_true(read_group(root, dir, &g));
        if (overlaps(root, dir, &g, true))
            return -EINVAL;
    }
    return tune_io_machine.write(&tune_io_machine, sr, path, value);
}

static const struct emu intel12 = {"fff\n", "1\n", "4\n", "0\n", 1, "0-3", false};

static struct tune_io emu_io = {emu_write, NULL, NULL};
static struct tune_dir_io emu_dirs;

static void setup_emu(const char *root, const struct emu *e, bool mounted)
{
    emu_io.read = tune_io_machine.read;
    emu_dirs = (struct tune_dir_io){emu_mkdir, emu_rmdir, emu_mount, emu_umount, (void *)e};
    write_text(root, "/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu sse2 cat_l3 cdp_l3 mba\n");
    write_text(root, "/proc/filesystems", "nodev\tsysfs\nnodev\tresctrl\n");
    char keep[4200];
    write_text(root, R "/.keep", ""); /* makes the (empty) mount point */
    snprintf(keep, sizeof keep, "%s%s/.keep", root, R);
    unlink(keep);
    if (mounted) {
        struct sysroot sr;
        sysroot_init(&sr, root);
        assert_int_equal(emu_mount(&emu_dirs, &sr, "resctrl", R), 0);
    }
}

static struct tune_plan plan;

static uint64_t working_set; /* run --workload ptrchase:SIZE */

static int build(const char *root, const char *cpus, int ways, int mba)
{
    static struct sysroot sr;
    sysroot_init(&sr, root);
    struct tune_request rq = {.sr = &sr,
                              .budget_ns = 50000,
                              .boost = -1,
                              .cache_ways = ways,
                              .mba_pct = mba,
                              .cache_working_set_size = working_set};
    rq.actions = 1u << tune_action_find("cache-partition");
    const char *why;
    assert_int_equal(cpulist_parse(cpus, &rq.targets, &why), 0);
    tune_plan_free(&plan);
    return tune_plan_build(&rq, &plan);
}

static const struct tune_change *change_of(const char *path)
{
    int k = tune_plan_find(&plan, path);
    return k >= 0 ? &plan.change[k] : NULL;
}

/* Every path of the tree with its mode and contents, sorted by nftw order. */
static char listing[1 << 16];
static size_t listing_used;
static size_t listing_root;

static int list_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    listing_used += (size_t)snprintf(listing + listing_used, sizeof listing - listing_used,
                                     "%s %o\n", p + listing_root, (unsigned)st->st_mode);
    if (flag == FTW_F) {
        FILE *f = fopen(p, "r");
        size_t got = f ? fread(listing + listing_used, 1, 4096, f) : 0;
        listing_used += got;
        if (f)
            fclose(f);
    }
    return 0;
}

static char *tree_listing(const char *root)
{
    listing_used = 0;
    listing_root = strlen(root);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/sys", root);
    nftw(dir, list_entry, 16, FTW_PHYS);
    return strndup(listing, listing_used);
}

static void test_cache_partition_takes_the_top_quarter_of_twelve_ways(void **state)
{
    const char *root = *state;
    setup_emu(root, &intel12, true);
    assert_int_equal(build(root, "3", 0, 0), 0);
    assert_int_equal(plan.n, 5);
    /* apply order: the default group shrinks before the group is exclusive */
    assert_string_equal(plan.change[0].path, R "/schemata");
    assert_string_equal(plan.change[0].old_value, "L3:0=fff");
    assert_string_equal(plan.change[0].new_value, "L3:0=1ff");
    assert_int_equal(plan.change[1].op, TUNE_OP_MKDIR);
    assert_string_equal(plan.change[1].path, R "/jitterlab-rt");
    assert_string_equal(change_of(R "/jitterlab-rt/cpus_list")->new_value, "3");
    assert_string_equal(change_of(R "/jitterlab-rt/schemata")->new_value, "L3:0=e00");
    assert_string_equal(change_of(R "/jitterlab-rt/mode")->new_value, "exclusive");
    assert_int_equal(plan.change[4].op, TUNE_OP_WRITE);
}

static void test_cache_partition_fits_a_ptrchase_working_set(void **state)
{
    const char *root = *state;
    setup_emu(root, &intel12, true);
    write_text(root, "/sys/devices/system/cpu/cpu0/cache/index3/level", "3\n");
    write_text(root, "/sys/devices/system/cpu/cpu0/cache/index3/type", "Unified\n");
    write_text(root, "/sys/devices/system/cpu/cpu0/cache/index3/size", "12288K\n");
    working_set = 5u << 20; /* 5 ways of 1 MiB */
    int rc = build(root, "3", 0, 0);
    working_set = 0;
    assert_int_equal(rc, 0);
    assert_string_equal(change_of(R "/jitterlab-rt/schemata")->new_value, "L3:0=f80");
    assert_non_null(strstr(plan.note[0], "needs 5 ways of 1024 KiB"));
    /* --cache-ways wins */
    working_set = 5u << 20;
    rc = build(root, "3", 2, 0);
    working_set = 0;
    assert_int_equal(rc, 0);
    assert_string_equal(change_of(R "/jitterlab-rt/schemata")->new_value, "L3:0=c00");
}

static void test_cache_partition_writes_every_domain(void **state)
{
    const char *root = *state;
    struct emu two = intel12;
    two.ndomains = 2;
    two.cpus = "0-7";
    setup_emu(root, &two, true);
    assert_int_equal(build(root, "3,7", 4, 0), 0);
    assert_string_equal(change_of(R "/schemata")->new_value, "L3:0=ff;1=ff");
    assert_string_equal(change_of(R "/jitterlab-rt/schemata")->new_value, "L3:0=f00;1=f00");
    assert_string_equal(change_of(R "/jitterlab-rt/cpus_list")->new_value, "3,7");
}

static void test_cache_partition_avoids_shareable_bits(void **state)
{
    const char *root = *state;
    struct emu io_ways = intel12;
    io_ways.shareable = "c00\n"; /* the top two ways are I/O's too */
    setup_emu(root, &io_ways, true);
    assert_int_equal(build(root, "3", 3, 0), 0);
    /* 380 would split the default group; 007 keeps it contiguous */
    assert_string_equal(change_of(R "/jitterlab-rt/schemata")->new_value, "L3:0=7");
    assert_string_equal(change_of(R "/schemata")->new_value, "L3:0=ff8");
}

static void apply_all(const char *root)
{
    struct sysroot sr;
    sysroot_init(&sr, root);
    char st[4200], err[600];
    snprintf(st, sizeof st, "%s/state.json", root);
    struct tune_result res;
    assert_int_equal(
        tune_apply_with(&sr, &plan, st, TUNE_MODE_APPLY, &emu_io, &emu_dirs, &res, err, sizeof err),
        0);
    assert_int_equal(res.refused, 0);
}

static void restore_all(const char *root)
{
    char st[4200], err[600], failed[2048];
    int restored = 0;
    snprintf(st, sizeof st, "%s/state.json", root);
    int rc = tune_restore_with(st, &emu_io, &emu_dirs, failed, sizeof failed, &restored, err,
                               sizeof err);
    if (rc != 0)
        fail_msg("restore: %d %s %s", rc, failed, err);
    assert_int_not_equal(access(st, F_OK), 0);
}

static void test_cache_partition_apply_then_restore_is_byte_identical(void **state)
{
    const char *root = *state;
    struct emu mb = intel12;
    mb.mb = true;
    setup_emu(root, &mb, true);
    char *before = tree_listing(root);
    assert_int_equal(build(root, "2-3", 0, 45), 0);
    assert_string_equal(change_of(R "/schemata")->new_value, "L3:0=1ff\nMB:0=50");
    apply_all(root);
    char *cpus = slurp(root, R "/cpus_list"), *mode = slurp(root, R "/jitterlab-rt/mode");
    char *def = slurp(root, R "/schemata");
    assert_string_equal(cpus, "0-1");
    assert_string_equal(mode, "exclusive");
    assert_string_equal(def, "L3:0=1ff\nMB:0=50");
    free(cpus);
    free(mode);
    free(def);
    /* planned again: nothing left to do */
    assert_int_equal(build(root, "2-3", 0, 45), 0);
    assert_int_equal(plan.n, 0);
    assert_non_null(strstr(plan.note[0], "already holds CPUs 2-3"));
    restore_all(root);
    char *after = tree_listing(root);
    assert_string_equal(after, before);
    free(before);
    free(after);
}

static void test_cache_partition_mounts_and_unmounts_only_its_own(void **state)
{
    const char *root = *state;
    setup_emu(root, &intel12, false);
    char *before = tree_listing(root);
    assert_int_equal(build(root, "3", 0, 0), 0);
    assert_int_equal(plan.n, 1);
    assert_int_equal(plan.change[0].op, TUNE_OP_MOUNT);
    apply_all(root);
    /* now mounted: the rest is planned, and extends the journal */
    assert_int_equal(build(root, "3", 0, 0), 0);
    assert_int_equal(plan.n, 5);
    apply_all(root);
    restore_all(root);
    char *after = tree_listing(root);
    assert_string_equal(after, before);
    free(before);
    free(after);
}

static void test_cache_partition_restore_after_a_crash_half_way(void **state)
{
    const char *root = *state;
    setup_emu(root, &intel12, true);
    char *before = tree_listing(root);
    assert_int_equal(build(root, "3", 0, 0), 0);
    /* the journal of the whole plan, written first; then only the mkdir */
    static struct tune_journal j;
    memset(&j, 0, sizeof j);
    snprintf(j.sysroot, sizeof j.sysroot, "%s", root);
    snprintf(j.created_at, sizeof j.created_at, "2026-01-01T00:00:00Z");
    j.pid = 1;
    for (int i = 0; i < plan.n; i++) {
        const struct tune_change *c = &plan.change[i];
        if (c->op == TUNE_OP_WRITE)
            tune_plan_add(&j.changes, c->action, c->path, c->old_value, c->new_value, c->what);
        else
            tune_plan_add_op(&j.changes, c->op, c->action, c->path, c->what);
    }
    char st[4200], err[600];
    snprintf(st, sizeof st, "%s/state.json", root);
    assert_int_equal(tune_journal_save(st, &j, err, sizeof err), 0);
    struct sysroot sr;
    sysroot_init(&sr, root);
    assert_int_equal(emu_mkdir(&emu_dirs, &sr, R "/jitterlab-rt"), 0);
    restore_all(root);
    char *after = tree_listing(root);
    assert_string_equal(after, before);
    /* and a journal none of whose steps happened restores cleanly too */
    assert_int_equal(tune_journal_save(st, &j, err, sizeof err), 0);
    restore_all(root);
    free(after);
    after = tree_listing(root);
    assert_string_equal(after, before);
    free(before);
    free(after);
    tune_plan_free(&j.changes);
}

static void test_cache_partition_refusals_name_the_reason(void **state)
{
    const char *root = *state;
    setup_emu(root, &intel12, true);
    assert_int_equal(build(root, "3", 12, 0), -2);
    assert_non_null(strstr(plan.refusal, "--cache-ways 12: more ways than"));
    assert_int_equal(build(root, "3", 11, 0), 0); /* the default group keeps 1 */
    assert_int_equal(build(root, "3", 0, 50), -2);
    assert_non_null(strstr(plan.refusal, "--mba 50: this machine has no memory bandwidth"));

    struct emu min2 = intel12;
    min2.min_bits = "2\n";
    setup_emu(root, &min2, false);
    struct sysroot sr;
    sysroot_init(&sr, root);
    emu_umount(&emu_dirs, &sr, R);
    emu_mount(&emu_dirs, &sr, "resctrl", R);
    assert_int_equal(build(root, "3", 1, 0), -2);
    assert_non_null(strstr(plan.refusal, "--cache-ways 1: fewer ways than min_cbm_bits (2)"));
    assert_int_equal(build(root, "3", 11, 0), -2); /* 12 - 2 */

    /* another group's ways overlap every run of 3 */
    emu_umount(&emu_dirs, &sr, R);
    setup_emu(root, &intel12, true);
    assert_int_equal(emu_mkdir(&emu_dirs, &sr, R "/batch"), 0);
    write_text(root, R "/batch/schemata", "L3:0=7fe\n");
    assert_int_equal(build(root, "3", 0, 0), -2);
    assert_non_null(strstr(plan.refusal, "cache-partition: group batch's L3 mask overlaps"));
    assert_int_equal(plan.n, 0);

    /* no free CLOSID: 4 groups of 4 */
    write_text(root, R "/batch/schemata", "L3:0=1\n");
    assert_int_equal(emu_mkdir(&emu_dirs, &sr, R "/other"), 0);
    write_text(root, R "/other/schemata", "L3:0=1\n");
    assert_int_equal(emu_mkdir(&emu_dirs, &sr, R "/x3"), 0);
    assert_int_equal(build(root, "3", 0, 0), -2);
    assert_non_null(strstr(plan.refusal, "cache-partition: no free CLOSID"));
}

static void test_cache_partition_refuses_domains_that_disagree(void **state)
{
    const char *root = *state;
    struct emu two = intel12;
    two.ndomains = 2;
    two.cpus = "0-7";
    setup_emu(root, &two, true);
    write_text(root, R "/schemata", "L3:0=fff;1=ff0\n");
    assert_int_equal(build(root, "3,7", 0, 0), -2);
    assert_non_null(strstr(plan.refusal, "hold different default masks"));
    /* with the target CPUs' caches known, only their domain counts */
    write_text(root, "/sys/devices/system/cpu/cpu3/cache/index3/id", "0\n");
    assert_int_equal(build(root, "3", 0, 0), 0);
}

static void test_cache_partition_unsupported_is_a_note(void **state)
{
    const char *root = *state;
    write_text(root, "/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu sse2 hypervisor\n");
    char *before = tree_listing(root);
    assert_int_equal(build(root, "1", 0, 0), 0);
    assert_int_equal(plan.n, 0);
    assert_non_null(strstr(plan.note[0], "cache-partition: not supported here"));
    /* the CPU can, the kernel cannot */
    write_text(root, "/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu cat_l3\n");
    write_text(root, "/proc/filesystems", "nodev\tsysfs\n");
    assert_int_equal(build(root, "1", 0, 0), 0);
    assert_int_equal(plan.n, 0);
    assert_non_null(strstr(plan.note[0], "/proc/filesystems"));
    char *after = tree_listing(root);
    assert_string_equal(after, before);
    free(before);
    free(after);
}

static void test_journal_ops_load_and_unsafe_ones_are_refused(void **state)
{
    const char *root = *state;
    char st[4200], err[600];
    snprintf(st, sizeof st, "%s/state.json", root);
    static struct tune_journal j;
    const char *head =
        "{\"kind\":\"tune-state\",\"mode\":\"apply\",\"sysroot\":\"/x\",\"changes\":[";
    char doc[1024];
    snprintf(doc, sizeof doc,
             "%s{\"action\":\"cache-partition\",\"op\":\"mount\",\"path\":\"" R "\"},"
             "{\"action\":\"cache-partition\",\"op\":\"mkdir\",\"path\":\"" R "/rt\"},"
             "{\"action\":\"cache-partition\",\"path\":\"" R "/rt/mode\",\"old\":\"a\","
             "\"new\":\"b\"}]}",
             head);
    write_text(root, "/state.json", doc);
    chmod(st, 0600);
    assert_int_equal(tune_journal_load(st, &j, err, sizeof err), 0);
    assert_int_equal(j.changes.n, 3);
    assert_int_equal(j.changes.change[0].op, TUNE_OP_MOUNT);
    assert_int_equal(j.changes.change[1].op, TUNE_OP_MKDIR);
    assert_int_equal(j.changes.change[2].op, TUNE_OP_WRITE);
    tune_plan_free(&j.changes);
    const char *bad[] = {
        "{\"action\":\"cache-partition\",\"op\":\"mkdir\",\"path\":\"" R "/info\"}",
        "{\"action\":\"cache-partition\",\"op\":\"mkdir\",\"path\":\"" R "/a/b\"}",
        "{\"action\":\"cache-partition\",\"op\":\"mkdir\",\"path\":\"/etc/x\"}",
        "{\"action\":\"cache-partition\",\"op\":\"mount\",\"path\":\"/mnt\"}",
        "{\"action\":\"thp\",\"op\":\"mkdir\",\"path\":\"" R "/rt\"}",
        "{\"action\":\"cache-partition\",\"op\":\"rm\",\"path\":\"" R "/rt\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(doc, sizeof doc, "%s%s]}", head, bad[i]);
        write_text(root, "/state.json", doc);
        assert_int_equal(tune_journal_load(st, &j, err, sizeof err), -1);
    }
}

static void test_schemata_matches_what_the_kernel_prints(void **state)
{
    (void)state;
    const char *f = R "/g/schemata";
    assert_true(tune_value_matches_at(f, "L3:0=e00;1=e00", "    L3:0=e00;1=e00\n    MB:0=100"));
    assert_true(tune_value_matches_at(f, "L3:0=1ff\nMB:0=50", "MB:0=50\nL3:0=01ff"));
    assert_false(tune_value_matches_at(f, "L3:0=e00;1=e00", "L3:0=e00;1=f00"));
    assert_false(tune_value_matches_at(f, "L3:0=e00", "MB:0=100"));
    assert_false(tune_value_matches_at("/proc/x", "L3:0=e00", "L3:0=0e00"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cache_partition_takes_the_top_quarter_of_twelve_ways,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_cache_partition_fits_a_ptrchase_working_set,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_cache_partition_writes_every_domain, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_cache_partition_avoids_shareable_bits, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_cache_partition_apply_then_restore_is_byte_identical,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_cache_partition_mounts_and_unmounts_only_its_own,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_cache_partition_restore_after_a_crash_half_way,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_cache_partition_refusals_name_the_reason,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_cache_partition_refuses_domains_that_disagree,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_cache_partition_unsupported_is_a_note, temp_tree_setup,
                                        temp_tree_teardown),
        cmocka_unit_test_setup_teardown(test_journal_ops_load_and_unsafe_ones_are_refused,
                                        temp_tree_setup, temp_tree_teardown),
        cmocka_unit_test(test_schemata_matches_what_the_kernel_prints),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tune_plan_free(&plan);
    return rc;
}
