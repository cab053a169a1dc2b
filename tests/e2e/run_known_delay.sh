#!/bin/sh
# The known-delay test: a helper (helpers/spinner.c) on CPU 1 at SCHED_FIFO
# 95 busy-spins 2000 us every 50.3 ms; jitterlab measures CPU 1 at priority
# 90, 1 ms interval, for 10 s. Every injection holds the measuring thread off
# the CPU for 2 ms, so each one must show up as one sample with a latency
# between 1 ms and 2 ms (plus the machine's ordinary wake-up latency) and at
# least one missed period (the next planned wake-up passes during the spin).
# 50.3 ms is not a multiple of the 1 ms interval, so the injections sweep
# every phase of the cycle. Asserted, with inj = round(10 s / 50.3 ms) = 199:
#   samples with 1 ms <= latency <= 2.2 ms at the injections' phase of the
#     50.3 ms period: inj +- 15%, at most one per period (host stalls aside)
#   the largest of them >= 1.7 ms
#   all.missed >= 0.9 * inj, and from above: a cycle can only miss the
#     periods that passed while it was late or running, so missed <= the
#     sum over samples of (latency + exec) // interval, +1 after the last
#     (each injection costs exactly one: the thread wakes 1..2 ms late),
#     and every period skipped had passed when the cycle before it ended;
#   --budget 1ms exits 3 (the max is >= 1.7 ms), and the cross-output
#     invariants (inv) hold, with exec_ns in the CSV (--counters
#     context-switches) so that every missed period is checked exactly.
# A second, 2 s run beside the same spinner checks the other side of the
# budget: --budget 10s exits 0, and --budget 10ms exits as its max decides.
# Nothing is asserted about values above 2.2 ms (ordinary VM noise). ~14 s.
# When the host itself stalls the VM heavily during the run (more than
# inj/4 samples above 2.2 ms, where a quiet run has fewer than ten), those
# stalls also land in the band and the attempt says nothing about jitterlab:
# it is repeated, up to five attempts (a VM whose host is busy
# for minutes has stalled three in a row), and the last one is asserted.
. "$(dirname "$0")/lib.sh"
: "${JL_TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${JL_BUILD:=$(dirname "$JL")}"


if ! is_root; then
    ok "known delay # SKIP not root"
    exit 0
fi
SPIN=$JL_BUILD/tests/spinner
if [ ! -x "$SPIN" ]; then
    not_ok "known delay: spinner helper is built" "$SPIN missing: run make tests"
    exit 0
fi

J=$T/kd.json S=$T/kd.csv
attempt=1
while :; do
    # Both are bounded by themselves (spinner: 11 s, hard stop at 12 s; run:
    # 10 s); timeout only guards against a hang.
    timeout -s KILL 30 "$SPIN" 1 95 2000 50300 11 >"$T/spin.out" 2>"$T/spin.err" &
    spin_pid=$!
    timeout -s KILL 30 "$JL" run -a 1 -p 90 -i 1ms -D 10 -q --budget 1ms --counters context-switches --report-every 1s \
        --samples "$S" --json "$J" 2>"$T/err"
    jl_rc=$?
    wait "$spin_pid"
    spin_rc=$?
    [ "$jl_rc" -eq 3 ] && [ "$spin_rc" -eq 0 ] && [ "$attempt" -lt 5 ] || break
    above=$(python3 -c 'import csv,sys; print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if int(r["latency_ns"]) > 2200000))' "$S")
    [ "$above" -gt $((199 / 4)) ] || break
    echo "# attempt $attempt: $above samples above 2.2 ms, the host stalled this VM; measuring again"
    attempt=$((attempt + 1))
done

if [ "$spin_rc" -eq 77 ]; then
    ok "known delay # SKIP SCHED_FIFO not permitted here"
    exit 0
fi
if [ "$spin_rc" -eq 0 ]; then ok "spinner ran ($(cat "$T/spin.out") injections)"; else not_ok "spinner ran" "exit status $spin_rc" "$(tail -3 "$T/spin.err")"; fi
if [ "$jl_rc" -eq 3 ]; then ok "jitterlab run --budget 1ms beside the spinner exits 3"; else not_ok "jitterlab run --budget 1ms beside the spinner exits 3" "exit status $jl_rc" "$(tail -3 "$T/err")"; fi
inv "known delay" "$J" --samples "$S" --budget-ns 1000000 --exit-code "$jl_rc"

pyt "$J" csv="$S" injected="$(cat "$T/spin.out")" <<'EOF'
inj = round(10 / 0.0503)
hdr, rows = read_csv(v["csv"])
lat = [r[2] for r in rows]
band = [x for x in lat if 1000000 <= x <= 2200000]
a = d["all"]
note("inj (expected in 10 s) = %d, spinner injections in 11 s = %s" % (inj, v["injected"]))
note("samples = %d, missed = %d, ring_drops = %s, p50 = %s ns, max = %s ns"
     % (a["samples"], a["missed"], a.get("ring_drops"), a["latency_ns"]["p50"], a["latency_ns"]["max"]))
note("samples in [1 ms, 2.2 ms] = %d (want %d..%d), largest = %s ns (want >= 1700000)"
     % (len(band), math.ceil(0.85 * inj), math.floor(1.15 * inj), max(band) if band else None))
note("samples in (2.2 ms, inf) = %d (not asserted); in [0.5 ms, 1 ms) = %d"
     % (sum(1 for x in lat if x > 2200000), sum(1 for x in lat if 500000 <= x < 1000000)))
t("samples CSV is complete (rows == samples)", 'len(rows) == a["samples"]', '(len(rows), a["samples"], a.get("ring_drops"))')
# The injections recur every 50.3 ms, so the samples they delay wake at one
# phase of that period (the end of a spin, plus wake-up latency); a host stall
# lands at any phase. The 1 ms window of phases holding the most band samples
# is the injections'; every injection in the run gives exactly one sample
# there (one per period k), and only those are counted against inj. A window
# of 1 ms also absorbs a drift of the calibrated clock of up to 100 ppm.
T = 50300000
wake = [r[1] for r in rows if 1000000 <= r[2] <= 2200000]
bins = [0] * (T // 250000 + 1)
for w in wake:
    bins[(w % T) // 250000] += 1
nb = len(bins)
best = max(range(nb), key=lambda i: sum(bins[(i + j) % nb] for j in range(4)))
centre = (best * 250000 + 500000) % T
def off(w):
    x = (w - centre) % T
    return x - T if x > T // 2 else x
matched = [w for w in wake if abs(off(w)) <= 500000]
periods = {(w - off(w)) // T for w in matched}
note("band samples at the injections' phase: %d in %d periods (want %d..%d); elsewhere: %d"
     % (len(matched), len(periods), math.ceil(0.85 * inj), math.floor(1.15 * inj), len(wake) - len(matched)))
t("known delay: band samples at the injections' phase == inj +- 15%", '0.85 * inj <= len(matched) <= 1.15 * inj', '(len(matched), len(periods), inj)')
t("known delay: at most one sample per injection period, but for host stalls", 'len(matched) - len(periods) <= inj // 20', '(len(matched), len(periods))')
t("known delay: the largest of them >= 1.7 ms", 'band and max(band) >= 1700000', 'max(band) if band else None')
t("known delay: all.missed >= 0.9 * inj", 'a["missed"] >= 0.9 * inj', '(a["missed"], inj)')
# From the CSV alone: the planned cycle of each sample is (t_ns - latency_ns) / interval;
# the cycles between two samples' planned cycles, and those after the last one
# up to the end of the 10 s, are all the periods that can have been missed.
# (With --counters the cycle ends after the second counter read, so latency +
# exec is no upper bound of the cycle's end.)
ks = [(r[1] - r[2]) // 1000000 for r in rows]
room = sum(b - a - 1 for a, b in zip(ks, ks[1:])) + (10000 - 1 - ks[-1])
t("known delay: all.missed <= the planned cycles without a sample", 'a["missed"] <= room', '(a["missed"], room, inj)')
t("known delay: samples + missed == the 10 000 planned cycles", 'a["samples"] + a["missed"] == 10000', '(a["samples"], a["missed"])')
# A period counts as missed only when it has passed by the end of the cycle
# before it: the last planned wake-up skipped after sample i lies before
# that cycle's end, t_ns + exec_ns plus the second counter read (allowed
# 200 us here; a spin or a host stall that lands in that read makes the
# cycle end later than the CSV shows, a few times in a run at most).
# Skipping one period too many keeps every count above consistent, but
# not this.
ex = hdr.index("exec_ns")
early = [(i, (b - 1) * 1000000 - rows[i][1] - rows[i][ex]) for i, (a_, b) in enumerate(zip(ks, ks[1:]))
         if b - a_ > 1 and (b - 1) * 1000000 > rows[i][1] + rows[i][ex] + 200000]
note("gaps whose last skipped wake-up lies after the cycle's end (+200 us): %d, e.g. %s" % (len(early), early[:3]))
t("known delay: no period counted missed before it had passed, but for host stalls", 'len(early) <= inj // 20', '(len(early), early[:3])')
t("known delay: max >= 1.7 ms, so --budget 1ms is exceeded", 'a["latency_ns"]["max"] >= 1700000', 'a["latency_ns"]["max"]')
EOF

# --- the tail of the same run: it must see the 2 ms mode, or refuse ----------
# 1 in 50 samples is delayed 1-2 ms by the spinner: the latency exceeded
# with probability 1e-6 per cycle lies above that mode whatever the fit
# does, so an estimate below 1.7 ms would be a tail that missed it.
"$JL" tail "$J" --samples "$S" --json "$T/kdt.json" >"$T/kdt.out" 2>"$T/err"
rc_is "tail of the known-delay run: exit 0" 0 $?
pyt "$T/kdt.json" <<'EOF'
e = d["cpus"][0]
est = {x["probability"]: x for x in e["estimates"]}
note("tail: %s %s; 1e-6 level %s" % (e["verdict"], e["reason"], est.get(1e-6)))
t("tail: fitted on the samples", 'e["data"] == "samples"')
t("tail: the 2 ms mode is seen (1e-6 level >= 1.7 ms) or the estimate refused",
  '(e["verdict"] == "cannot-estimate" and e["reason"]) or est[1e-6]["latency_ns"] >= 1700000', '(e["verdict"], est.get(1e-6))')
EOF

# --- the other side of the budget, beside the same injections -----------------
for budcase in "10s 10000000000" "10ms 10000000"; do
    set -- $budcase
    timeout -s KILL 10 "$SPIN" 1 95 2000 50300 3 >"$T/spin.out" 2>"$T/spin.err" &
    spin_pid=$!
    timeout -s KILL 10 "$JL" run -a 1 -p 90 -i 1ms -D 2 -q --budget "$1" --samples "$T/b.csv" --json "$T/b.json" 2>"$T/err"
    rc=$?
    wait "$spin_pid"
    [ "$1" = 10s ] && rc_is "--budget 10s beside the spinner exits 0" 0 $rc
    inv "known delay, --budget $1" "$T/b.json" --samples "$T/b.csv" --budget-ns "$2" --exit-code $rc
    pyt "$T/b.json" <<'EOF'
t("2 s beside the spinner: the injections show (max >= 1 ms)", 'd["all"]["latency_ns"]["max"] >= 1000000', 'd["all"]["latency_ns"]["max"]')
EOF
done
