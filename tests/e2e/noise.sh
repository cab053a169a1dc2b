#!/bin/sh
# `jitterlab noise` end to end, on CPU 1 (CPU 0 stays for housekeeping):
#   - bad input exits 2 and writes nothing;
#   - known noise: a helper (helpers/spinner.c) at SCHED_FIFO 95 on CPU 1
#     spins 2 ms every 50.3 ms while noise -a 1 -D 5 runs at SCHED_OTHER.
#     Asserted: the gaps of 1.8-2.3 ms number one per injection (+-15%,
#     inj = round(5 s / 50.3 ms) = 99), the noise share is at least the
#     injected 3.9%, and with tracepoints the longest gaps are the helper's
#     thread by comm and pid; every figure agrees with every other (windows
#     add up to the CPU's totals exactly, the histogram to the gap count,
#     the histogram file to the JSON, noise <= measured <= run time, the
#     floor is positive and below the threshold). As in the known-delay
#     test, an attempt during which the host stalled the VM heavily (more
#     than inj/4 gaps above 2.3 ms) is repeated, up to three attempts;
#   - SIGINT ends a 30 s measurement early with a complete document;
#   - --policy fifo runs in slices and says how long it slept;
#   - without tracepoints (--no-trace, and as nobody) the window method.
# Every run is bounded by -D and by timeout. ~20 s.
. "$(dirname "$0")/lib.sh"

BAD_SUBCOMMAND=noise
bad "threshold 0" "--threshold 0: must be greater than 0" -a 1 --threshold 0 --json @OUT@
bad "negative threshold" "--threshold -5us: must not be negative" -a 1 --threshold -5us --json @OUT@
bad "runtime > period" "--runtime 2s: must not be longer than --period \(1s\)" -a 1 --policy fifo --runtime 2s --json @OUT@
bad "unknown policy" "--policy rr: must be fifo or other" -a 1 --policy rr --json @OUT@
bad "runtime without fifo" "--runtime: has no meaning with --policy other" -a 1 --runtime 10ms --json @OUT@
bad "offline CPU" "--cpus 4095" -a 4095 --json @OUT@
bad "json into a missing directory" "--json" -a 1 -D 1 --json @DIR@/no/such/dir/x.json
bad "json and histogram file one file" "--histogram-file" -a 1 -D 1 --json @OUT@ --histogram-file @OUT@

if [ "$(nproc)" -lt 2 ]; then
    ok "noise on CPU 1 # SKIP fewer than two CPUs"
    exit 0
fi

SPIN=$JL_BUILD/tests/spinner
J=$T/n.json H=$T/n.hist
spin_rc=0
if is_root && [ -x "$SPIN" ]; then
    attempt=1
    while :; do
        # bounded by itself (40 s, hard stop at 41 s) and stopped once the
        # measurement is over, so that it covers all of it however long the
        # start takes (seconds under ASan); its pid is the one the
        # tracepoints must name
        "$SPIN" 1 95 2000 50300 40 >"$T/spin.out" 2>"$T/spin.err" &
        spin_pid=$!
        kill_on_exit "$spin_pid"
        echo "$spin_pid" >"$T/spin.pid"
        timeout -s KILL 60 "$JL" noise -a 1 -D 5 --histogram-file "$H" --histogram-max 3000 \
            --largest 20 --json "$J" >"$T/out" 2>"$T/err"
        rc=$?
        if kill -0 "$spin_pid" 2>/dev/null; then
            kill -TERM "$spin_pid"
            wait "$spin_pid"
            spin_rc=0
        else
            wait "$spin_pid"
            spin_rc=$?
        fi
        [ "$rc" -eq 0 ] && [ "$spin_rc" -eq 0 ] && [ "$attempt" -lt 3 ] || break
        above=$(jget "$J" 'sum(b[2] for b in d["cpus"][0]["histogram"]["bins"] if b[0] > 2300000)')
        [ "$above" -gt $((99 / 4)) ] || break
        echo "# attempt $attempt: $above gaps above 2.3 ms, the host stalled this VM; measuring again"
        attempt=$((attempt + 1))
    done
    if [ "$spin_rc" -eq 77 ]; then
        ok "known noise # SKIP SCHED_FIFO not permitted here"
    else
        rc_is "known noise: noise -a 1 -D 5 beside the spinner exits 0" 0 "$rc"
        if [ "$spin_rc" -eq 0 ]; then ok "spinner ran"; else not_ok "spinner ran" "exit $spin_rc" "$(cat "$T/spin.err")"; fi
        pyt "$J" hist="$H" out="$T/out" spinner_pid="$(cat "$T/spin.pid")" <<'EOF'
inj = round(5 / 0.0503)
c = d["cpus"][0]
a = d["all"]
band = sum(b[2] for b in c["histogram"]["bins"] if b[0] >= 1800000 and b[1] <= 2300000)
note("gaps %d, noise %.3f%% (%d ns of %d ns measured), floor %s ns, max %s ns, method %s"
     % (c["gaps"], c["noise_pct"], c["noise_ns"], c["measured_ns"], c["floor_ns"], c["gap_ns"]["max"], d["explain"]["method"]))
note("gaps in [1.8 ms, 2.3 ms]: %d (want %d..%d); causes: %s"
     % (band, math.ceil(0.85 * inj), math.floor(1.15 * inj),
        [(x["kind"], x["name"], x.get("pid"), round(x["share"], 3)) for x in c["causes"][:4]]))
t("kind noise, schema 1", 'd["kind"] == "noise" and d["schema"] == 1 and d["tool"] == "jitterlab"')
t("not interrupted, 5 s", 'd["interrupted"] is False and abs(d["duration_s"] - 5) < 0.05', 'd["duration_s"]')
t("config as given", 'd["config"]["cpus"] == [1] and d["config"]["threshold_ns"] == 1000 and d["config"]["policy"] == "other" and d["config"]["duration_ns"] == 5000000000')
t("known noise: gaps of 1.8-2.3 ms == inj +- 15%", '0.85 * inj <= band <= 1.15 * inj', '(band, inj)')
t("known noise: share >= the injected 3.9%", 'c["noise_pct"] >= 3.9', 'c["noise_pct"]')
# the loop stops at its first step past the end: a gap across it counts whole
t("noise <= measured <= run time + the last step", '0 < c["noise_ns"] <= c["measured_ns"] <= d["config"]["duration_ns"] + c["gap_ns"]["max"] + 1000000', '(c["noise_ns"], c["measured_ns"])')
# at SCHED_OTHER the first wake-up waits for whatever else CPU 1 runs (a
# busy machine has delayed it by 51 ms): the loop measures from when it
# runs, and the run's end is not moved, so the span is a little short
t("the loop spun almost all the run (>= 95%)", 'c["measured_ns"] >= 0.95 * 5e9', 'c["measured_ns"]')
t("floor: positive and below the threshold", '0 < c["floor_ns"] < d["config"]["threshold_ns"]', 'c["floor_ns"]')
t("the mean quiet step: between the floor and the threshold", 'c["floor_ns"] <= c["step_mean_ns"] < d["config"]["threshold_ns"]', '(c["floor_ns"], c["step_mean_ns"])')
t("every gap is above the threshold", 'c["gap_ns"]["min"] > d["config"]["threshold_ns"]', 'c["gap_ns"]["min"]')
t("histogram holds every gap", 'sum(b[2] for b in c["histogram"]["bins"]) + c["histogram"]["overflow"] == c["gaps"]', '(sum(b[2] for b in c["histogram"]["bins"]), c["gaps"])')
t("percentiles in order", 'c["gap_ns"]["min"] <= c["gap_ns"]["p50"] <= c["gap_ns"]["p99"] <= c["gap_ns"]["p9999"] <= c["gap_ns"]["max"]', 'c["gap_ns"]')
t("gaps * min <= noise <= gaps * max", 'c["gaps"] * c["gap_ns"]["min"] <= c["noise_ns"] <= c["gaps"] * c["gap_ns"]["max"]')
W = c["windows"]
t("five 1 s windows", 'len(W) == 5 and all(abs(w["duration_ns"] - 1e9) < 1 for w in W)', '[w["duration_ns"] for w in W]')
t("windows add up to the CPU's noise exactly", 'sum(w["noise_ns"] for w in W) == c["noise_ns"]', '(sum(w["noise_ns"] for w in W), c["noise_ns"])')
t("windows add up to the CPU's gaps", 'sum(w["gaps"] for w in W) == c["gaps"]', '(sum(w["gaps"] for w in W), c["gaps"])')
t("the longest window max is the CPU's max", 'max(w["max_ns"] for w in W) == c["gap_ns"]["max"]')
t("no ring drops", 'c["ring_drops"] == 0 and c["windows_dropped"] == 0')
t("all = the one CPU", 'a["gaps"] == c["gaps"] and a["noise_ns"] == c["noise_ns"] and a["gap_ns"]["max"] == c["gap_ns"]["max"]')
L = c["largest"]
t("largest: 20 kept, longest first", 'len(L) == min(20, c["gaps"]) and all(L[i]["gap_ns"] >= L[i + 1]["gap_ns"] for i in range(len(L) - 1))', '[g["gap_ns"] for g in L]')
t("largest: the first is the max", 'L[0]["gap_ns"] == c["gap_ns"]["max"]')
t("largest: times within the run", 'all(0 < g["t_s"] <= d["duration_s"] + 0.01 for g in L)', '[g["t_s"] for g in L]')
# the live lines: one per window
lines = [l for l in open(v["out"]) if re.match(r"t=\d+\.\ds cpu=1 noise_pct=\d+\.\d{4} gaps=\d+ max=\d+\.\d{3}us$", l)]
t("one live line per window", 'len(lines) == len(W)', 'len(lines)')
t("the summary names CPU 1", 'any(re.match(r"^1\\s+\\S+ \\S+\\s+\\d+\\.\\d+%", l) for l in open(v["out"]))')
# the histogram file agrees with the JSON
rows = [l.split() for l in open(v["hist"]) if re.match(r"^\d{6} ", l)]
over = [l for l in open(v["hist"]) if l.startswith("# Histogram Overflows:")]
total = sum(int(r[1]) for r in rows)
t("histogram file: 3000 rows", 'len(rows) == 3000', 'len(rows)')
t("histogram file: rows + overflows == gaps", 'total + int(over[0].split()[-1]) == c["gaps"]', '(total, over, c["gaps"])')
t("histogram file: the 2 ms rows hold the injections", 'sum(int(r[1]) for r in rows[1800:2300]) >= 0.85 * inj', 'sum(int(r[1]) for r in rows[1800:2300])')
if d["explain"]["method"] == "tracepoints":
    pid = int(v["spinner_pid"])
    inband = [g for g in L if 1800000 <= g["gap_ns"] <= 2300000]
    by_spinner = [g for g in inband if g["dominant"] and g["dominant"]["kind"] == "thread" and g["dominant"]["name"] == "spinner" and g["dominant"].get("pid") == pid]
    note("largest in band: %d, dominated by spinner/%d: %d; events %d, lost %d" % (len(inband), pid, len(by_spinner), d["explain"]["events"], d["explain"]["events_lost"]))
    # a gap of the machine's own (a VM's stall, a long timer softirq) can fall
    # into the band too, and longer stalls take places among the 20 largest
    # (a noisy VM has had 16 of them in 5 s): the ~99 injections fill every
    # place the longer gaps leave, up to 5 asked for, and most, not all, of
    # what is in the band is the spinner (its whole time is checked below)
    longer = sum(1 for g in L if g["gap_ns"] > 2300000)
    t("tracepoints: the injected gaps are the spinner thread by comm and pid", 'len(inband) >= min(5, len(L) - longer) and len(by_spinner) >= 0.75 * len(inband)', '(len(inband), longer, [(g["gap_ns"], g["dominant"]) for g in inband if g not in by_spinner][:5])')
    t("tracepoints: each gap's causes add up to it", 'all(sum(x["ns"] for x in g["causes"]) == g["gap_ns"] for g in L)')
    row = [x for x in c["causes"] if x["kind"] == "thread" and x["name"] == "spinner"]
    t("tracepoints: the causes name spinner with its pid, SCHED_FIFO 95", 'row and row[0]["pid"] == pid and row[0]["policy"] == "SCHED_FIFO" and row[0]["priority"] == 95', 'row or c["causes"][:3]')
    t("tracepoints: spinner's time is the injected time (>= 1.8 ms per band gap)", 'row and row[0]["ns"] >= 1.8e6 * 0.85 * inj and row[0]["gaps"] >= 0.85 * inj', 'row')
    t("tracepoints: the causes add up to the attributed noise", 'abs(sum(x["ns"] for x in c["causes"]) - c["noise_ns"]) <= 0.001 * c["noise_ns"] or c["gaps_attributed"] < c["gaps"]', '(sum(x["ns"] for x in c["causes"]), c["noise_ns"], c["gaps_attributed"], c["gaps"])')
    t("tracepoints: every gap attributed", 'c["gaps_attributed"] == c["gaps"]', '(c["gaps_attributed"], c["gaps"])')
else:
    note("tracepoints unavailable here: %s" % d["explain"]["reason"])
EOF
    fi
else
    ok "known noise # SKIP needs root and the spinner helper"
fi

# --- SIGINT: a complete document of what was measured --------------------------
timeout -s KILL 40 "$JL" noise -a 1 -D 30 --no-trace --json "$T/int.json" >"$T/int.out" 2>"$T/int.err" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
rc_is "SIGINT: exits 0" 0 $rc
pyt "$T/int.json" <<'EOF'
c = d["cpus"][0]
t("SIGINT: interrupted, well before 30 s", 'd["interrupted"] is True and 0.5 < d["duration_s"] < 5', '(d["interrupted"], d["duration_s"])')
t("SIGINT: measured within the run", '0 < c["measured_ns"] <= d["duration_s"] * 1e9 + 1e6', '(c["measured_ns"], d["duration_s"])')
t("SIGINT: windows up to the stop, the last one cut short", 'len(c["windows"]) >= 1 and c["windows"][-1]["t_s"] <= d["duration_s"] + 0.011', '[w["t_s"] for w in c["windows"]]')
t("SIGINT: windows add up to the noise", 'sum(w["noise_ns"] for w in c["windows"]) == c["noise_ns"]')
EOF

# --- --policy fifo: slices of 200 ms every 250 ms ------------------------------
timeout -s KILL 20 "$JL" noise -a 1 -D 1 --policy fifo -p 20 --runtime 200ms --period 250ms -q --json "$T/fifo.json" 2>"$T/err"
rc_is "fifo slices: exits 0" 0 $?
pyt "$T/fifo.json" <<'EOF'
c = d["cpus"][0]
note("realtime %s, slices %d, off %d ns, measured %d ns" % (d["realtime"], c["slices"], c["off_ns"], c["measured_ns"]))
t("fifo slices: four slices", 'c["slices"] == 4', 'c["slices"]')
t("fifo slices: spun at most 4 x 200 ms", '0 < c["measured_ns"] <= 4 * 200e6 + 1e6', 'c["measured_ns"]')
t("fifo slices: slept about 3 x 50 ms between them", '3 * 45e6 <= c["off_ns"] <= 3 * 50e6 + 30e6', 'c["off_ns"]')
t("fifo slices: the config says so", 'd["config"]["policy"] == "fifo" and d["config"]["priority"] == 20 and d["config"]["runtime_ns"] == 200000000')
if d["explain"]["method"] == "tracepoints":
    t("fifo slices: what ran while it slept, adding up to the time slept", 'c["off_causes"] and sum(x["ns"] for x in c["off_causes"]) == c["off_ns"]', '(c["off_causes"][:3], c["off_ns"])')
t("fifo slices: windows count only the spinning time", 'all(w["measured_ns"] <= w["duration_ns"] for w in c["windows"]) and sum(w["measured_ns"] for w in c["windows"]) == 800000000', '[w["measured_ns"] for w in c["windows"]]')
EOF

# --- without tracepoints: the window method -------------------------------------
timeout -s KILL 20 "$JL" noise -a 1 -D 1 --no-trace --report-every 200ms --json "$T/nt.json" >"$T/nt.out" 2>"$T/err"
rc_is "--no-trace: exits 0" 0 $?
pyt "$T/nt.json" <<'EOF'
c = d["cpus"][0]
t("--no-trace: the window method, said so", 'd["explain"]["method"] == "window" and d["explain"]["reason"] == "--no-trace" and c["causes"] == []')
t("--no-trace: five 200 ms windows", 'len(c["windows"]) == 5', 'len(c["windows"])')
t("--no-trace: the longest gaps still kept, without causes", 'len(c["largest"]) == min(10, c["gaps"]) and all(g["causes"] == [] for g in c["largest"])')
t("--no-trace: the window summary is present", '"spike_summary" in d and d["spike_summary"]["method"] == "window"')
EOF
if is_root && command -v setpriv >/dev/null; then
    mkdir "$T/np" && chmod 777 "$T/np" && chmod 711 "$T"
    timeout -s KILL 20 setpriv --reuid=nobody --regid=nogroup --clear-groups "$JL" noise -a 1 -D 1 \
        --policy fifo --json "$T/np/np.json" >/dev/null 2>"$T/np.err"
    rc_is "as nobody: exits 0" 0 $?
    pyt "$T/np/np.json" err="$T/np.err" <<'EOF'
err = open(v["err"]).read()
note("stderr: %s" % err.strip().replace("\n", " | "))
t("as nobody: SCHED_FIFO refused, said so", 'd["realtime"] is False and "SCHED_FIFO is not permitted" in err')
t("as nobody: no tracepoints, the window method", 'd["explain"]["method"] == "window" and "tracepoints unavailable" in err')
t("as nobody: measured", 'd["cpus"][0]["measured_ns"] > 0.9e9')
EOF
fi
# A thread kept off its CPU past the run's end: noise at SCHED_OTHER (the
# default) beside a SCHED_FIFO 95 shell loop on CPU 1 from 0.5 s after the
# start for 1.2 s (killed by timeout: bounded). The long gap that reaches
# past the end counts up to the end: no window is noisier than it is long
# (it was moved back whole to end at the run's end, over the gaps before
# it: windows of 253 and 256 ms in 250), the CPU measured no more than the
# run, and the result reads back (compare refused it).
if is_root && command -v chrt >/dev/null && command -v taskset >/dev/null; then
    timeout -s KILL 20 "$JL" noise -a 1 -D 1 -q --no-trace --report-every 250ms --json "$T/starved.json" 2>"$T/err" &
    n_pid=$!
    sleep 0.5
    timeout -s KILL 1.2 chrt -f 95 taskset -c 1 sh -c 'while :; do :; done' 2>/dev/null
    wait "$n_pid"
    rc_is "kept off its CPU: noise exits 0" 0 $?
    pyt "$T/starved.json" <<'EOF2'
c = d["cpus"][0]
w = c["windows"]
note("kept off its CPU: noise %.1f%%, measured %d ns, windows %s, longest gap %d ns" % (c["noise_pct"], c["measured_ns"], [x["noise_ns"] for x in w], c["gap_ns"]["max"]))
t("kept off its CPU: the last window is mostly noise", 'w and w[-1]["noise_ns"] > 0.5 * w[-1]["duration_ns"]', 'w')
t("kept off its CPU: no window is noisier than it is long", 'all(x["noise_ns"] <= x["measured_ns"] <= x["duration_ns"] for x in w)', 'w')
t("kept off its CPU: measured no more than the run", 'c["noise_ns"] <= c["measured_ns"] <= d["config"]["duration_ns"]', '(c["noise_ns"], c["measured_ns"])')
t("kept off its CPU: windows add up to the CPU's noise", 'sum(x["noise_ns"] for x in w) == c["noise_ns"]', '(sum(x["noise_ns"] for x in w), c["noise_ns"])')
EOF2
    cp "$T/starved.json" "$T/starved2.json"
    "$JL" compare "$T/starved.json" "$T/starved2.json" --label a,b >/dev/null 2>"$T/err"
    rc_is "kept off its CPU: the result reads back (compare with itself)" 0 $?
fi
