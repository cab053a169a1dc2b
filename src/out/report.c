/*
 * Derived parts of the run report: the "all CPUs" view merged from the exact
 * per-CPU results (histograms and running statistics merge without loss).
 */
#include "out/report.h"

void run_report_merge(struct run_report *rep)
{
    latency_hist_init(rep->all_hist);
    latency_hist_init(rep->all_exec_hist);
    latency_hist_init(rep->all_response_hist);
    running_stats_init(&rep->all_latency);
    running_stats_init(&rep->all_exec);
    running_stats_init(&rep->all_response);
    rep->all_deadline_misses = 0;
    rep->all_exec_partial = false;
    rep->all_samples = rep->all_missed = rep->all_over_tolerance = rep->all_ring_drops = 0;
    rep->all_samples_lacking = 0;
    rep->all_max_at_ns = 0;
    rep->all_page_faults = rep->ncpu > 0 ? 0 : -1;
    for (int i = 0; i < rep->ncpu; i++) {
        const struct cpu_result *r = rep->cpu[i];
        if (r->samples && (rep->all_latency.count == 0 || r->latency.max > rep->all_latency.max))
            rep->all_max_at_ns = r->max_at_ns;
        running_stats_merge(&rep->all_latency, &r->latency);
        latency_hist_merge(rep->all_hist, &r->hist);
        running_stats_merge(&rep->all_exec, &r->exec);
        running_stats_merge(&rep->all_response, &r->response);
        if (r->exec_hist) {
            latency_hist_merge(rep->all_exec_hist, r->exec_hist);
            latency_hist_merge(rep->all_response_hist, r->response_hist);
        } else {
            rep->all_exec_partial = true;
        }
        rep->all_deadline_misses += r->deadline_misses;
        rep->all_samples += r->samples;
        rep->all_missed += r->missed;
        rep->all_over_tolerance += r->over_tolerance;
        rep->all_ring_drops += r->ring_drops;
        rep->all_samples_lacking += run_report_cpu_lacking(rep, r);
        if (r->page_faults < 0 || rep->all_page_faults < 0)
            rep->all_page_faults = -1;
        else
            rep->all_page_faults += r->page_faults;
    }
}
