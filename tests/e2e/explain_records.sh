#!/bin/sh
# What run --explain records on the measured CPU, end to end, on CPU 1:
# explain.events_by_tracepoint counts every decoded record by tracepoint
# (its sum is explain.events); the thread's own expiry is known by the
# timer its sleep armed (timer:hrtimer_start, filtered in the kernel to the
# measuring thread: one per sleep, about one per sample), so sched_waking,
# which was written inside the timer interrupt, is not recorded at all. A
# SCHED_OTHER thread keeps CPU 1 busy (the disturber helper's `busy`, 3 s)
# so that the CPU records everything (some kernels record nothing in the
# idle task); the expiry is then found in spikes, which shows as a
# timer-irq-late part (the time from the planned wake-up to our timer's
# callback, with a task running). No latency bound. About 4 s.
. "$(dirname "$0")/lib.sh"

if ! is_root; then
    ok "explain records # SKIP needs root"
    exit 0
fi
DIST=$JL_BUILD/tests/disturber
if [ ! -x "$DIST" ]; then
    not_ok "explain records: disturber helper is built" "$DIST missing: run make tests"
    exit 0
fi
J=$T/records.json
timeout -s KILL 60 "$DIST" busy 1 3 >"$T/d.out" 2>"$T/d.err" &
dpid=$!
kill_on_exit "$dpid"
timeout -s KILL 60 "$JL" run -a 1 -i 1ms -D 2s -q --explain=1us --json "$J" 2>"$T/err"
rc_is "--explain=1us beside a busy thread exits 0" 0 $?
wait "$dpid"
pyt "$J" <<'PY'
x = d["explain"]
by = x.get("events_by_tracepoint")
samples = d["cpus"][0]["samples"]
note("records by tracepoint over %d samples: %s" % (samples, by))
t("events_by_tracepoint is an object of counts", 'isinstance(by, dict) and by and all(isinstance(n, int) and n > 0 for n in by.values())', 'by')
t("its counts add up to explain.events", 'sum(by.values()) == x["events"]', '(sum(by.values()), x["events"])')
t("the measured CPU's switches are counted", 'by.get("sched:sched_switch", 0) > 0', 'by')
t("the thread's sleeps are recorded: timer:hrtimer_start", 'by.get("timer:hrtimer_start", 0) > 0', 'by')
t("sched_waking is not recorded", '"sched:sched_waking" not in by', 'by')
t("the thread's own timer armed no more often than it slept (the kernel filter)", 'by.get("timer:hrtimer_start", 0) <= samples + 64', '(by.get("timer:hrtimer_start"), samples)')
late = [s for s in d["spikes"] if any(c["kind"] == "timer-irq-late" for c in s["causes"])]
t("spikes found the thread's expiry (a timer-irq-late part)", 'late', 'd["spikes"][:2]')
PY
