#!/bin/sh
# run --wake MECH: the application's wake paths measured by the engine. CPU 1
# is measured at 1 ms, the waker on CPU 0 (the default, the housekeeping CPU).
#   each mechanism, 1 s: samples + missed == the 1000 planned wakes exactly,
#     min >= 0, config.wake recorded, the waker's lateness present (one per
#     wake issued, on CPU 0);
#   Ctrl-C during a wait ends the run at once, with a result (no hang);
#   a delay on the measured CPU (helpers/spinner.c on CPU 1 at FIFO 95,
#     2 ms every 50.3 ms, as run_known_delay.sh) is seen in the path latency
#     with its size (>= 1.7 ms);
#   a delay on the waker's CPU (the spinner on CPU 0 at FIFO 95, above the
#     waker's 91, 1 ms every 20.3 ms, sweeping the phases, for 2 s only: bounded) shows in the
#     waker's lateness and not in the path latency, which is measured from
#     the waker's stamp after its wake-up.
# Nothing is asserted about latencies of an ordinary cycle. ~15 s.
. "$(dirname "$0")/lib.sh"

if ! is_root; then
    ok "wake paths # SKIP not root"
    exit 0
fi
SPIN=$JL_BUILD/tests/spinner

for m in futex eventfd pipe signal mq sem; do
    timeout -s KILL 20 "$JL" run -a 1 -i 1ms -D 1 -q --no-telemetry --wake "$m" --json "$T/$m.json" 2>"$T/err"
    rc_is "--wake $m: exits 0" 0 $?
    pyt "$T/$m.json" mech="$m" <<'EOF'
c = d["cpus"][0]
w = c["waker"]
m = v["mech"]
t(m + ": samples + missed == the 1000 planned wakes", 'c["samples"] + c["missed"] == 1000', '(c["samples"], c["missed"])')
t(m + ": most wakes were waited for", 'c["samples"] >= 900', 'c["samples"]')
t(m + ": min >= 0 (the waker's stamp precedes the run)", 'c["latency_ns"]["min"] >= 0', 'c["latency_ns"]["min"]')
t(m + ": config.wake, waker_cpu, waker_priority", 'd["config"]["wake"] == m and d["config"]["waker_cpu"] == 0 and d["config"]["waker_priority"] == 91', 'd["config"]')
t(m + ": the waker's lateness: one per wake, on CPU 0", 'w["cpu"] == 0 and w["lateness_ns"]["count"] == w["wakes"] >= 900 and w["lateness_ns"]["min"] >= 0', 'w')
t(m + ": all.waker merges it", 'd["all"]["waker"]["wakes"] == w["wakes"]', 'd["all"].get("waker")')
EOF
done

# Ctrl-C while the thread waits: released at once, the result written.
timeout -s KILL 10 "$JL" run -a 1 -i 1ms -D 10 -q --no-telemetry --wake mq --json "$T/int.json" 2>"$T/err" &
pid=$!
sleep 0.5
kill -INT $pid
start=$(date +%s%N)
wait $pid
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
rc_is "--wake mq: Ctrl-C exits 0" 0 $rc
pyt "$T/int.json" ms="$ms" <<'EOF'
t("--wake mq: Ctrl-C ends the run within 1 s", 'v["ms"] < 1000', 'v["ms"]')
t("--wake mq: the interrupted result is written", 'd["interrupted"] and d["cpus"][0]["samples"] > 0', 'd["cpus"][0]["samples"]')
EOF

# A delay on the measured CPU: in the path latency, with its size.
timeout -s KILL 10 "$SPIN" 1 95 2000 50300 3 >"$T/spin.out" 2>"$T/spin.err" &
spin_pid=$!
timeout -s KILL 10 "$JL" run -a 1 -p 90 -i 1ms -D 2 -q --no-telemetry --wake futex --samples "$T/m.csv" --json "$T/m.json" 2>"$T/err"
rc_is "--wake futex beside a spinner on the measured CPU: exits 0" 0 $?
wait "$spin_pid"
spin_rc=$?
if [ "$spin_rc" -eq 77 ]; then
    ok "wake paths, injected delays # SKIP SCHED_FIFO not permitted here"
    exit 0
fi
pyt "$T/m.json" csv="$T/m.csv" <<'EOF'
hdr, rows = read_csv(v["csv"])
band = [r[2] for r in rows if 1000000 <= r[2] <= 2200000]
c = d["cpus"][0]
note("measured-CPU spinner: %d samples in [1 ms, 2.2 ms] (about 40 injections), largest %s" % (len(band), max(band) if band else None))
t("measured-CPU delay: seen in the path latency with its size (>= 1.7 ms)", 'band and max(band) >= 1700000', 'max(band) if band else None')
t("measured-CPU delay: at least half the injections in [1 ms, 2.2 ms]", 'len(band) >= 20', 'len(band)')
t("measured-CPU delay: samples + missed == 2000", 'c["samples"] + c["missed"] == 2000', '(c["samples"], c["missed"])')
EOF

# A delay on the waker's CPU: in its lateness, not in the path latency.
timeout -s KILL 10 "$SPIN" 0 95 1000 20300 2 >"$T/spin.out" 2>"$T/spin.err" &
spin_pid=$!
timeout -s KILL 10 "$JL" run -a 1 -p 90 -i 1ms -D 2 -q --no-telemetry --wake futex --samples "$T/w.csv" --json "$T/w.json" 2>"$T/err"
rc_is "--wake futex beside a spinner on the waker's CPU: exits 0" 0 $?
wait "$spin_pid"
pyt "$T/w.json" csv="$T/w.csv" <<'EOF'
hdr, rows = read_csv(v["csv"])
c = d["cpus"][0]
w = c["waker"]
late_waker = sum(b[2] for b in w["lateness_ns"]["histogram"]["bins"] if b[0] >= 500000) if "histogram" in w["lateness_ns"] else None
late_path = sum(1 for r in rows if r[2] >= 500000)
note("waker-CPU spinner: waker lateness >= 0.5 ms: %s, path latency >= 0.5 ms: %d, waker max %s, path max %s"
     % (late_waker, late_path, w["lateness_ns"]["max"], c["latency_ns"]["max"]))
t("waker-CPU delay: the waker's lateness shows it (max >= 0.7 ms)", 'w["lateness_ns"]["max"] >= 700000', 'w["lateness_ns"]')
t("waker-CPU delay: not in the path latency (few samples >= 0.5 ms)", 'late_waker is not None and late_path * 3 <= late_waker', '(late_path, late_waker)')
t("waker-CPU delay: samples + missed == 2000", 'c["samples"] + c["missed"] == 2000', '(c["samples"], c["missed"])')
EOF
