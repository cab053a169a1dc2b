#!/bin/sh
# run --wake MECH: the application's wake paths measured by the engine. CPU 1
# is measured at 1 ms, the waker on CPU 0 (the default, the housekeeping CPU).
#   each mechanism, 1 s: samples + missed == the 1000 planned wakes exactly,
#     min >= 0, config.wake recorded, the waker's lateness present (one per
#     wake issued, on CPU 0), wakes issued + skipped == 1000 (how many the
#     thread waited for depends on the machine: a halted vCPU wakes late);
#   Ctrl-C during a wait ends the run at once, with a result (no hang);
#   a delay on the measured CPU (helpers/spinner.c on CPU 1 at FIFO 95,
#     2 ms every 50.3 ms, as run_known_delay.sh) is seen in the path latency
#     with its size (>= 1.7 ms);
#   a delay on the waker's CPU (the spinner on CPU 0 at FIFO 95, above the
#     waker's 91, 1 ms every 20.3 ms, sweeping the phases, for 2 s only: bounded) shows in the
#     waker's lateness and not in the path latency, which is measured from
#     the waker's stamp after its wake-up: the samples whose stamp lies
#     >= 0.5 ms into their period (a held waker) have ordinary latencies.
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
t(m + ": wakes were waited for", 'c["samples"] >= 1', 'c["samples"]')
t(m + ": min >= 0 (the waker's stamp precedes the run)", 'c["latency_ns"]["min"] >= 0', 'c["latency_ns"]["min"]')
t(m + ": config.wake, waker_cpu, waker_priority", 'd["config"]["wake"] == m and d["config"]["waker_cpu"] == 0 and d["config"]["waker_priority"] == 91', 'd["config"]')
t(m + ": the waker's lateness: one per wake, on CPU 0", 'w["cpu"] == 0 and w["lateness_ns"]["count"] == w["wakes"] >= 1 and w["lateness_ns"]["min"] >= 0', 'w')
t(m + ": every planned wake issued or skipped (the waker woke after its time had passed)", 'w["wakes"] + w["skipped"] == 1000', 'w')
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
# A sample's stamp is its wake time minus its latency, counted from the
# planned time of cycle 0: its offset into the 1 ms period is how late the
# waker issued that wake. The samples whose waker was held >= 0.5 ms (by
# the spinner, or by the host) must not carry it in their path latency.
off = [((r[1] - r[2]) % 1000000, r[2]) for r in rows]
held = [lat for o, lat in off if o >= 500000]
held_late = sum(1 for lat in held if lat >= 500000)
others_late = sum(1 for o, lat in off if o < 500000 and lat >= 500000)
note("waker-CPU spinner: %d samples with the waker held >= 0.5 ms, %d of them with a path latency >= 0.5 ms (others: %d of %d); waker max %s, path max %s"
     % (len(held), held_late, others_late, len(off) - len(held), w["lateness_ns"]["max"], c["latency_ns"]["max"]))
t("waker-CPU delay: the waker's lateness shows it (max >= 0.7 ms)", 'w["lateness_ns"]["max"] >= 700000', 'w["lateness_ns"]')
t("waker-CPU delay: at least 10 samples issued by a held waker", 'len(held) >= 10', 'len(held)')
t("waker-CPU delay: not in their path latency (fewer than a third >= 0.5 ms)", 'held_late * 3 < len(held)', '(held_late, len(held))')
t("waker-CPU delay: samples + missed == 2000", 'c["samples"] + c["missed"] == 2000', '(c["samples"], c["missed"])')
EOF
