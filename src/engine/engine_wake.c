/*
 * The measuring thread's loop of a run woken by a waker (`run --wake MECH`;
 * the waker is waker.c, the mechanisms wake.c). It mirrors the timer loop
 * of engine_threads.c: in the loop, only the blocking wait, the clock read
 * and the record. A sample's latency is the moment the thread runs after
 * its wait returned minus the waker's timestamp taken just before its wake
 * call, in the engine's clock; that timestamp is the sample's planned
 * wake-up (wake time - latency), so --explain's window opens at the
 * waker's call.
 *
 * Missed periods follow the timer loop's rule: a wake whose timestamp lies
 * before the end of the thread's previous cycle was not waited for (the
 * thread was busy or late) and is counted missed, not measured; a wake
 * the thread never received on its own (futex words and eventfd counters
 * coalesce, a full pipe or queue loses one, the waker skips a planned time
 * already past) is a gap in the sequence numbers, counted missed as well.
 * Of several wakes that arrived while the thread waited, the first is the
 * sample (it made the thread runnable: a delayed thread shows the whole
 * delay, as in the timer loop), the later ones are missed.
 * So samples + missed = the waker's planned wakes, exactly.
 */
#include "engine/engine_internal.h"

#include "common/clock.h"
#include "engine/cycle_clock.h"
#include "engine/waker.h"

#include <errno.h>
#include <sys/resource.h>

/* How long a wait may block before the thread checks the run's state: a
 * waker that has died, or ended without its final wake, cannot hold it
 * longer. A few intervals, at least 10 ms, at most 1 s. */
static int64_t wait_grace_ns(int64_t interval_ns)
{
    int64_t g = 4 * interval_ns;
    if (g < 10 * 1000 * 1000)
        g = 10 * 1000 * 1000;
    return g > 1000 * 1000 * 1000 ? 1000 * 1000 * 1000 : g;
}

/* A futex word or an eventfd count gives the newest of several wakes: the
 * sample belongs to the first of them issued while the thread waited (the
 * one that made it runnable; the others found it runnable already and
 * are missed periods, as the timer loop counts the planned times that
 * pass while a cycle is late). Its stamp, or the newest's when none of
 * the older ones is known. Only after a gap: never on the common path. */
static int64_t first_waited_stamp(const struct wake_channel *ch, uint64_t expected,
                                  const struct wake_got *got, int64_t cycle_end)
{
    for (uint64_t j = expected; j < got->seq && j - expected < WAKE_STAMPS; j++) {
        int64_t ts = wake_stamp_of(ch, j);
        if (ts >= 0 && ts >= cycle_end)
            return ts;
    }
    return got->ts_ns;
}

void engine_wake_loop(struct cpu_slot *s)
{
    struct engine *e = s->engine;
    const struct engine_config *cfg = &e->cfg;
    struct cpu_result *r = &s->result;
    struct wake_channel *ch = &s->waker->ch;
    const int64_t start = e->start_ns;
    const int64_t interval = cfg->interval_ns;
    const int64_t k_max = (INT64_MAX - start) / interval;
    const int64_t end = cfg->duration_ns > 0 && cfg->duration_ns < INT64_MAX - start
                            ? start + cfg->duration_ns
                            : start + k_max * interval;
    const uint64_t planned_wakes = waker_planned_wakes(interval, cfg->duration_ns);
    const int64_t grace = wait_grace_ns(interval);
    /* with --clock tsc the anchor is taken once: the waker's stamps are
     * converted from anchors of its own, both to CLOCK_MONOTONIC ns */
    struct cycle_clock clk = {.use_tsc = cfg->clock == ENGINE_CLOCK_TSC,
                              .ns_per_tick = e->ns_per_tick};
    const bool counting = r->counters_open_mask != 0;
    const struct record_rules rules = record_rules_of(cfg);
    const uint64_t loops = cfg->loops;
    struct workload *const work = s->workload;
    uint64_t before[COUNTER_COUNT] = {0};
    uint64_t after[COUNTER_COUNT] = {0};
    uint64_t expected = 0;         /* the next wake's sequence number */
    int64_t cycle_end = INT64_MIN; /* a wake stamped before this was not waited for */
    int64_t wait_from = start;     /* the last clock reading: the wait's timeout is after it */
    int64_t prev_wake = -1;
    uint32_t missed_before = 0;
    const int64_t faults_before = thread_page_faults();
    for (;;) {
        if (expected >= planned_wakes || atomic_load_explicit(&s->stop, memory_order_relaxed))
            break;
        if (clk.use_tsc) {
            int64_t err_ns = tsc_pair(3, &clk.anchor_mono, &clk.anchor_tsc);
            if (err_ns > r->tsc_anchor_max_ns)
                r->tsc_anchor_max_ns = err_ns;
        }
        struct wake_got got;
        int rc = wake_wait(ch, expected, wait_from, grace, &got);
        int64_t wake = cycle_clock_now(&clk);
        wait_from = wake;
        if (rc == EAGAIN)
            continue;
        if (rc == EINTR || rc == ETIMEDOUT) {
            if (atomic_load_explicit(&s->stop, memory_order_relaxed))
                break;
            uint64_t ended = atomic_load_explicit(&ch->end_seq, memory_order_acquire);
            if (ended < planned_wakes || wake - grace > end) {
                /* the waker ended early or is gone: what it never issued
                 * is missed */
                uint64_t last = ended < planned_wakes ? ended : planned_wakes;
                if (last > expected && last != UINT64_MAX)
                    r->missed += last - expected;
                break;
            }
            continue;
        }
        if (rc != 0) {
            s->sleep_error = rc;
            break;
        }
        if (got.seq < expected)
            continue; /* a wake counted already (cannot happen; never counted twice) */
        uint64_t end_seq = atomic_load_explicit(&ch->end_seq, memory_order_acquire);
        if (got.seq >= end_seq || got.seq >= planned_wakes) {
            uint64_t last = end_seq < planned_wakes ? end_seq : planned_wakes;
            if (last > expected && last != UINT64_MAX)
                r->missed += last - expected; /* the final wake: issued up to here */
            break;
        }
        uint64_t gap = got.seq - expected;
        if (gap)
            got.ts_ns = first_waited_stamp(ch, expected, &got, cycle_end);
        expected = got.seq + 1;
        if (got.ts_ns < 0 || got.ts_ns < cycle_end) {
            /* not waited for: counted missed, with the gap before it */
            gap++;
            r->missed += gap;
            if (missed_before == 0)
                r->missed_events++;
            missed_before =
                (uint32_t)(missed_before + gap < UINT32_MAX ? missed_before + gap : UINT32_MAX);
            continue;
        }
        if (gap) {
            r->missed += gap;
            if (missed_before == 0)
                r->missed_events++;
            missed_before =
                (uint32_t)(missed_before + gap < UINT32_MAX ? missed_before + gap : UINT32_MAX);
        }

        int64_t work_start = wake;
        if (counting) {
            counters_read(&s->counters, before);
            work_start = cycle_clock_now(&clk);
        }
        if (work)
            workload_run_cycle(work);
        int64_t work_end = cycle_clock_now(&clk);
        cycle_end = work_end;
        if (counting) {
            counters_read(&s->counters, after);
            cycle_end = cycle_clock_now(&clk);
        }
        wait_from = cycle_end;
        struct cycle_measure m = {
            .k = got.seq,
            .wake_rel = wake - start,
            .latency = wake - got.ts_ns,
            .period = prev_wake >= 0 && missed_before == 0 ? wake - prev_wake : 0,
            .exec = work_end - work_start,
            .missed_before = missed_before,
            .counters_before = before,
            .counters_after = after,
        };
        engine_record_cycle(s, &rules, &m, counting);
        prev_wake = wake;
        missed_before = 0;
        if (loops && r->samples >= loops)
            break;
    }
    int64_t faults_after = thread_page_faults();
    if (faults_before >= 0 && faults_after >= 0)
        r->page_faults = faults_after - faults_before;
}
