/*
 * Replaying a telemetry snapshot pair (tests/fixtures/stat/MACHINE/{t0,t1})
 * for the telemetry unit tests: t0 is copied into a temporary sysroot and
 * telemetry is opened on it with an injected clock; replay_step copies t1
 * over the same tree, moves the clock exactly one second on and takes a
 * snapshot, so every rate is exact. Include after <cmocka.h> and
 * test_tree.h.
 */
#ifndef JITTERLAB_TEST_REPLAY_H
#define JITTERLAB_TEST_REPLAY_H

#include <ftw.h>
#include <math.h>

#include "common/units.h"
#include "telemetry/telemetry.h"

struct replay {
    char root[PATH_MAX];
    struct sysroot sr;
    struct cpulist cpus;
    int64_t now_ns;
    struct telemetry *t;
};

static inline int64_t replay_clock(void *ctx)
{
    return ((const struct replay *)ctx)->now_ns;
}

static char replay_copy_to[PATH_MAX];
static size_t replay_copy_from_len;

static inline int replay_copy_entry(const char *path, const struct stat *st, int flag,
                                    struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    char dst[PATH_MAX + 64];
    snprintf(dst, sizeof dst, "%s%s", replay_copy_to, path + replay_copy_from_len);
    if (flag == FTW_D) {
        if (mkdir(dst, 0755) != 0 && errno != EEXIST)
            fail_msg("mkdir %s: %s", dst, strerror(errno));
        return 0;
    }
    if (flag != FTW_F)
        fail_msg("%s: not a plain file or directory (fixtures hold no symlinks)", path);
    FILE *in = fopen(path, "rb");
    FILE *out = fopen(dst, "wb");
    if (!in || !out)
        fail_msg("copy %s to %s: %s", path, dst, strerror(errno));
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
    return 0;
}

/* Copies tests/fixtures/stat/MACHINE/SNAP over the tree at root. */
static inline void replay_copy(const char *root, const char *machine, const char *snap)
{
    const char *top = getenv("JL_TOP");
    char from[PATH_MAX];
    snprintf(from, sizeof from, "%s/tests/fixtures/stat/%s/%s", top && *top ? top : ".", machine,
             snap);
    struct stat st;
    if (stat(from, &st) != 0 || !S_ISDIR(st.st_mode))
        fail_msg("fixture %s not found (set JL_TOP to the repository root)", from);
    snprintf(replay_copy_to, sizeof replay_copy_to, "%s", root);
    replay_copy_from_len = strlen(from);
    assert_int_equal(nftw(from, replay_copy_entry, 16, FTW_PHYS), 0);
}

/* A copy of MACHINE/t0 in root and the CPUs of cpus, telemetry not yet
 * opened (a test may change the tree first). */
static inline void replay_prepare(struct replay *r, const char *root, const char *machine,
                                  const char *cpus)
{
    memset(r, 0, sizeof *r);
    snprintf(r->root, sizeof r->root, "%s", root);
    replay_copy(root, machine, "t0");
    sysroot_init(&r->sr, root);
    const char *why = NULL;
    if (cpulist_parse(cpus, &r->cpus, &why) != 0)
        fail_msg("cpus %s: %s", cpus, why);
    r->now_ns = 5 * NS_PER_S;
}

/* Telemetry opened on the prepared tree, with the injected clock. */
static inline struct telemetry *replay_start(struct replay *r, bool quiet, const char *kernel)
{
    struct telemetry_config cfg = {.sr = &r->sr,
                                   .cpus = &r->cpus,
                                   .quiet = quiet,
                                   .kernel_release = kernel,
                                   .now_ns = replay_clock,
                                   .now_ctx = r};
    char err[128] = "";
    r->t = telemetry_open(&cfg, err, sizeof err);
    if (!r->t)
        fail_msg("telemetry_open: %s", err);
    return r->t;
}

/* Telemetry opened on a copy of MACHINE/t0 in root, for the CPUs of cpus. */
static inline struct telemetry *replay_open(struct replay *r, const char *root, const char *machine,
                                            const char *cpus, bool quiet, const char *kernel)
{
    replay_prepare(r, root, machine, cpus);
    return replay_start(r, quiet, kernel);
}

/* MACHINE/SNAP copied over the tree, the clock one second on, a snapshot. */
static inline void replay_step(struct replay *r, const char *machine, const char *snap)
{
    replay_copy(r->root, machine, snap);
    r->now_ns += NS_PER_S;
    telemetry_snapshot(r->t);
}

/* want NAN: got must be NAN; else equal within 1e-9 relative (1e-12 absolute
 * around 0). */
#define assert_figure(got, want, what, cpu)                                                        \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        bool ok_ = isnan(w_) ? isnan(g_) : fabs(g_ - w_) <= fmax(1e-12, 1e-9 * fabs(w_));          \
        if (!ok_)                                                                                  \
            fail_msg("CPU %d %s: got %.12g, want %.12g", (int)(cpu), what, g_, w_);                \
    } while (0)

static inline void assert_source(const struct telemetry *t, enum telemetry_figure f,
                                 const char *name)
{
    const struct telemetry_source *s = telemetry_source(t, f);
    if (!s->name || strcmp(s->name, name) != 0)
        fail_msg("%s: source %s (%s), want %s", telemetry_figure_key[f],
                 s->name ? s->name : "absent", s->why, name);
}

static inline void assert_absent(const struct telemetry *t, enum telemetry_figure f,
                                 const char *why)
{
    const struct telemetry_source *s = telemetry_source(t, f);
    if (s->name || strcmp(s->why, why) != 0)
        fail_msg("%s: source %s, why '%s', want absent with '%s'", telemetry_figure_key[f],
                 s->name ? s->name : "absent", s->why, why);
}

#endif
