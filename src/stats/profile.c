/*
 * The profile-likelihood interval search the GPD's and the GEV's intervals
 * share (gpd_internal.h; the method is in gpd.c's opening): the bounds
 * where the profile falls to max - chi2_1(confidence) / 2, bracketed from
 * the Wald bound outward, then safeguarded Newton on the profile's slope;
 * several confidences in one search, the wider from the narrower's bound.
 */
#include "stats/gpd_internal.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* One side of the interval: the psi where the profile falls to cut, from
 * psi0 (the fit, above the cut) in direction dir, no further than limit.
 * First guess: psi0 + dir * guess (the Wald bound); then Newton steps on
 * the profile's slope inside the bracket, bisection when one would leave
 * it (a safeguarded Newton). Stops when the bracket is narrower than
 * PROFILE_TOL or the profile within 1e-3 of the cut. NAN with *unbounded
 * when the profile stays above the cut up to limit, NAN alone on failure. */
static double profile_side(struct profile *c, double cut, double psi0, const double nuis0[2],
                           int dir, double guess, double limit, bool *unbounded)
{
    *unbounded = false;
    memcpy(c->warm, nuis0, sizeof c->warm);
    double in = psi0, out = NAN, slope, p = NAN;
    double psi = psi0 + dir * guess;
    /* Bracket: step out until the profile drops below the cut. */
    for (int k = 0; k < 60; k++) {
        bool last = dir > 0 ? psi >= limit : psi <= limit;
        if (last)
            psi = limit;
        p = c->at(c, psi, &slope) - cut;
        if (!(p >= 0) || isnan(p)) {
            if (isnan(p))
                return NAN;
            out = psi;
            break;
        }
        if (last) {
            *unbounded = true;
            return NAN;
        }
        in = psi;
        double next = psi + dir * fabs(psi - psi0);
        /* Newton when it is shorter, but never a crawl: on a profile that
         * flattens out it would creep towards the cut and never cross. */
        if (isfinite(slope) && slope * dir < 0) {
            double newton = psi - p / slope * 1.2, step = fabs(newton - psi);
            if ((newton - psi) * dir > 0 && step < fabs(next - psi))
                next = psi + dir * fmax(step, fabs(next - psi) / 8);
        }
        if (fabs(next - psi) < PROFILE_TOL)
            next = psi + dir * PROFILE_TOL;
        psi = next;
    }
    if (isnan(out))
        return NAN;
    /* Safeguarded Newton inside [in, out], from out: its profile, slope
     * and nuisance are those the bracket's last step left. */
    double x = out;
    for (int k = 0; k < 60 && fabs(out - in) > PROFILE_TOL && fabs(p) > 1e-3; k++) {
        double nx = isfinite(slope) && slope != 0 ? x - p / slope : NAN;
        double lo = fmin(in, out), hi = fmax(in, out);
        if (!(nx > lo && nx < hi))
            nx = (in + out) / 2;
        x = nx;
        p = c->at(c, x, &slope) - cut;
        if (isnan(p))
            return NAN;
        if (p >= 0)
            in = x;
        else
            out = x;
    }
    return x;
}

/* Both sides of the intervals at the nconf confidences conf[] (any
 * order), from the fit (psi0 with log-likelihood ll0 and nuisance nuis0):
 * each side walks out from the narrowest interval's bound to the next,
 * warm, so that a second confidence costs a few more profile points.
 * guess: the first step out at z_ref = sqrt(chi2_1(conf_ref)), scaled for
 * each. lo[] / hi[] in psi; un_lo[] / un_hi[] where the profile stayed
 * above the cut up to the limit. */
static void profile_sides(struct profile *c, double ll0, double psi0, const double nuis0[2],
                          double guess, double z_ref, double l_lo, double l_hi, size_t nconf,
                          const double *conf, double *lo, double *hi, bool *un_lo, bool *un_hi)
{
    size_t order[PROFILE_MAX_CONF];
    for (size_t i = 0; i < nconf; i++) {
        size_t j = i;
        for (; j > 0 && conf[order[j - 1]] > conf[i]; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (int dir = -1; dir <= 1; dir += 2) {
        double limit = dir < 0 ? l_lo : l_hi, *b = dir < 0 ? lo : hi;
        bool *un = dir < 0 ? un_lo : un_hi;
        double from = psi0, warm[2] = {nuis0[0], nuis0[1]}, z_from = 0;
        bool beyond = dir < 0 ? psi0 <= l_lo : psi0 >= l_hi;
        for (size_t k = 0; k < nconf; k++) {
            size_t i = order[k];
            double q = gsl_cdf_chisq_Pinv(conf[i], 1), z = sqrt(q);
            un[i] = beyond;
            b[i] = NAN;
            if (beyond)
                continue;
            /* from the last bound, as far again as the Wald widths differ */
            double step =
                z_from == 0 ? guess * z / z_ref : fabs(from - psi0) * (z - z_from) / z_from;
            if (step <= 0) {
                b[i] = from;
                continue;
            }
            b[i] = profile_side(c, ll0 - 0.5 * q, from, warm, dir, fmax(step, 10 * PROFILE_TOL),
                                limit, &un[i]);
            beyond = un[i];
            if (isnan(b[i]))
                break;
            from = b[i], z_from = z;
            memcpy(warm, c->warm, sizeof warm);
        }
    }
}

void profile_intervals(struct profile *c, double ll0, double psi0, const double nuis0[2],
                       double guess, double z_ref, double l_lo, double l_hi, size_t nconf,
                       const double *conf, bool in_logs, double v_lo, double v_hi, double *lo,
                       double *hi)
{
    double b_lo[PROFILE_MAX_CONF], b_hi[PROFILE_MAX_CONF];
    bool un_lo[PROFILE_MAX_CONF], un_hi[PROFILE_MAX_CONF];
    profile_sides(c, ll0, psi0, nuis0, guess, z_ref, l_lo, l_hi, nconf, conf, b_lo, b_hi, un_lo,
                  un_hi);
    for (size_t i = 0; i < nconf; i++) {
        lo[i] = un_lo[i] ? v_lo : in_logs ? exp(b_lo[i]) : b_lo[i];
        hi[i] = un_hi[i] ? v_hi : in_logs ? exp(b_hi[i]) : b_hi[i];
    }
}
