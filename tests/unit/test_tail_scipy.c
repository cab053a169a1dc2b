/*
 * The tail analysis against a reference peer (scipy, one /usr/bin/python3
 * start, tests/unit/tail_scipy_peer.py): on the same exact excesses over a
 * given threshold, scipy.stats.genpareto.fit(x, floc=0) lands inside our
 * profile intervals of xi and sigma; on the same window maxima,
 * scipy.stats.genextreme.fit lands inside our intervals of the GEV's shape,
 * location and scale. Skipped (and said so) without python3 and scipy.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/histogram.h"
#include "stats/tail.h"
#include "tail_gen.h"

#define N       40000
#define BLOCKS  80
#define BASE_NS 20000

static int inside(struct tail_value v, double x)
{
    return v.lo <= x && x <= v.hi;
}

static void test_scipy_lands_inside_our_intervals(void **state)
{
    (void)state;
    if (access("/usr/bin/python3", X_OK) != 0 ||
        system("/usr/bin/python3 -c 'import scipy' 2>/dev/null") != 0) {
        printf("# skipped: no /usr/bin/python3 with scipy\n");
        skip();
    }
    static struct latency_hist h;
    static struct tail_bin bins[LATENCY_HIST_BUCKETS];
    int64_t *seq = malloc(N * sizeof(*seq));
    assert_non_null(seq);
    latency_hist_init(&h);
    uint64_t rng = 0xC0FFEE;
    for (size_t i = 0; i < N; i++) {
        seq[i] = gen_gpd_value(&rng, BASE_NS, 0.2, 8000);
        latency_hist_add(&h, seq[i]);
    }
    int64_t bm[BLOCKS];
    for (int i = 0; i < BLOCKS; i++) /* GEV(0.2, 300 us, 40 us) */
        bm[i] = (int64_t)(300000 + 40000 * expm1(-0.2 * log(-log(rng_unit(&rng)))) / 0.2);
    size_t nb = gen_bins(&h, bins);
    struct tail_input in = {.bins = bins,
                            .nbins = nb,
                            .max_ns = h.max_ns,
                            .seq = seq,
                            .nseq = N,
                            .block_max = bm,
                            .nblock = BLOCKS,
                            .block_cycles = (double)N / BLOCKS,
                            .interval_ns = 1000000,
                            .budget_ns = -1,
                            .threshold_ns = BASE_NS + 15000};
    struct tail_result r;
    char err[160];
    assert_int_equal(tail_analyse(&in, &r, err, sizeof(err)), 0);
    assert_false(r.declustered);
    assert_true(r.gev_fitted);

    char xf[] = "/tmp/tail_scipy_x.XXXXXX", mf[] = "/tmp/tail_scipy_m.XXXXXX";
    int xfd = mkstemp(xf), mfd = mkstemp(mf);
    assert_true(xfd >= 0 && mfd >= 0);
    FILE *fx = fdopen(xfd, "w"), *fm = fdopen(mfd, "w");
    /* An exact sample is the nanosecond [v, v + 1): its middle for scipy. */
    for (size_t i = 0; i < N; i++)
        if (seq[i] >= r.threshold_ns)
            fprintf(fx, "%.1f\n", (double)(seq[i] - r.threshold_ns) + 0.5);
    for (int i = 0; i < BLOCKS; i++)
        fprintf(fm, "%lld\n", (long long)bm[i]);
    fclose(fx);
    fclose(fm);
    const char *top = getenv("JL_TOP");
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/tests/unit/tail_scipy_peer.py %s %s",
             top ? top : ".", xf, mf);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    double gx = NAN, gs = NAN, ex = NAN, em = NAN, es = NAN;
    char line[256];
    while (fgets(line, sizeof(line), p)) {
        sscanf(line, "gpd %lf %lf", &gx, &gs);
        sscanf(line, "gev %lf %lf %lf", &ex, &em, &es);
    }
    int rc = pclose(p);
    unlink(xf);
    unlink(mf);
    assert_int_equal(rc, 0);
    printf("# GPD: ours xi %.4f [%.4f, %.4f] sigma %.0f [%.0f, %.0f]; scipy xi %.4f sigma %.0f\n",
           r.shape.value, r.shape.lo, r.shape.hi, r.scale.value, r.scale.lo, r.scale.hi, gx, gs);
    printf("# GEV: ours xi %.4f [%.4f, %.4f] mu %.0f sigma %.0f; scipy xi %.4f mu %.0f sigma "
           "%.0f\n",
           r.gev_shape.value, r.gev_shape.lo, r.gev_shape.hi, r.gev_location.value,
           r.gev_scale.value, ex, em, es);
    assert_true(inside(r.shape, gx));
    assert_true(inside(r.scale, gs));
    assert_true(inside(r.gev_shape, ex));
    assert_true(inside(r.gev_location, em));
    assert_true(inside(r.gev_scale, es));
    /* Two maximisers of the same likelihood: far closer than the intervals. */
    assert_true(fabs(r.shape.value - gx) < 0.1 * (r.shape.hi - r.shape.lo));
    assert_true(fabs(r.gev_shape.value - ex) < 0.1 * (r.gev_shape.hi - r.gev_shape.lo));
    free(seq);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scipy_lands_inside_our_intervals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
