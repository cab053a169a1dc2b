/*
 * `jitterlab noise` for people: the header, one line per CPU and report
 * window while it runs, and the summary (per CPU noise, percentiles, floor;
 * the causes; the longest gaps).
 */
#ifndef JITTERLAB_OUT_TEXT_NOISE_H
#define JITTERLAB_OUT_TEXT_NOISE_H

#include <stdint.h>
#include <stdio.h>

#include "out/noise_report.h"

void text_noise_header(FILE *out, const struct noise_config *cfg, const struct timebase *tb,
                       const char *method, const char *method_reason);
/* One line per CPU and closed report window, for pipes and logs, in the
 * key=value form of run's plain lines:
 * "t=1.0s cpu=1 noise_pct=2.0277 gaps=1345 max=93.294us". */
void text_noise_window(FILE *out, const struct noise_window *w);

/* What the terminal view shows of one CPU while the run goes on. */
struct noise_live_cpu {
    int cpu;
    uint64_t gaps;
    int64_t noise_ns, max_ns;
    double last_window_pct; /* NAN before the first window closed */
};
/* Redraws the terminal view over the prev_lines drawn before (a progress
 * bar, then one row per CPU); measured_ns is the time every CPU's loop has
 * spun so far. Returns the lines drawn now. */
int text_noise_live(FILE *out, const struct noise_live_cpu *c, int n, int64_t elapsed_ns,
                    int64_t measured_ns, int64_t duration_ns, int prev_lines);
void text_noise_summary(FILE *out, const struct noise_report *rep);
/* "41% timer local_timer, 22% irq virtio1-req.0, 37% unexplained no event":
 * the causes of one CPU, largest first, at most max of them. */
void text_noise_causes_line(const struct noise_report_cpu *c, size_t max, char *buf, size_t len);

#endif
