#!/bin/sh
# What a run reports must be physically possible and must not disturb what it
# measures: TSC latencies never below zero (also beside a known delay), the
# measuring threads' timer slack at 1 ns, durations that cannot overflow, no
# budget verdict without samples, windows streamed and bounded in memory,
# interval lines only when asked and flushed through a pipe, periods that
# span missed cycles kept apart, default CPUs that can really be used, small
# intervals without privileges, and a prompt stop. CPU 0 stays housekeeping.
. "$(dirname "$0")/lib.sh"
SPIN=$JL_BUILD/tests/spinner

# --- --clock tsc: never below zero, agrees with monotonic ----------------------
if grep -qw constant_tsc /proc/cpuinfo && grep -qw nonstop_tsc /proc/cpuinfo; then
    spin_pid=""
    if is_root && [ -x "$SPIN" ]; then
        timeout -s KILL 20 "$SPIN" 1 95 300 20300 3 >/dev/null 2>&1 &
        spin_pid=$!
    fi
    # the kernel's verdicts from a clean fixture log, not from whatever this
    # host's log holds (tsc.sh and kmsg_user_records.sh judge the live one)
    timeout -s KILL 30 "$JL" run -a 1 -i 500us -D 2 --clock tsc -q --samples "$T/tsc.csv" \
        --sysroot "$JL_TOP/tests/fixtures/tsc-invariant-clean" --json "$T/tsc.json" 2>"$T/err"
    rc=$?
    rc_is "tsc run exits 0" 0 $rc
    inv "--clock tsc" "$T/tsc.json" --samples "$T/tsc.csv" --exit-code $rc
    [ -n "$spin_pid" ] && wait "$spin_pid"
    timeout -s KILL 30 "$JL" run -a 1 -i 500us -D 2 -q --json "$T/mono.json" 2>"$T/err"
    pyt "$T/tsc.json" csv="$T/tsc.csv" mono="$T/mono.json" spun="${spin_pid:+yes}" <<'PY'
import csv
rows = list(csv.DictReader(open(kw["csv"])))
lat = [int(r["latency_ns"]) for r in rows]
c = d["cpus"][0]
check("tsc: samples taken", len(lat) > 1000, len(lat))
check("tsc: no latency below zero in the samples file", min(lat) >= 0, min(lat))
check("tsc: min latency in the JSON >= 0", c["latency_ns"]["min"] >= 0, c["latency_ns"]["min"])
check("tsc: the clock pair uncertainty is recorded", c.get("tsc_pair_max_ns", -1) >= 0, c.get("tsc_pair_max_ns"))
if kw["spun"]:
    check("tsc: the known 300 us injection is seen", max(lat) >= 250000, max(lat))
    check("tsc: exec never negative", c["exec_ns"]["min"] >= 0, c["exec_ns"]["min"])
m = json.load(open(kw["mono"]))["cpus"][0]["latency_ns"]["p50"]
t = c["latency_ns"]["p50"]
# Same machine, one after the other: medians within a factor of 3 (plus 20 us),
# where a wrong tick scale gives a negative or doubled median.
check("tsc: p50 agrees with a monotonic run", t > 0 and t <= 3 * m + 20000 and m <= 3 * t + 20000, (t, m))
PY
else
    ok "tsc checks # SKIP no invariant TSC"
fi

# --- timer slack of the measuring threads --------------------------------------
"$JL" run -a 1 -i 1ms -D 3 --policy other -q --json "$T/slack.json" 2>"$T/err" &
pid=$!
slack=""
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    sleep 0.1
    for t in /proc/$pid/task/*; do
        [ "$(cat "$t/comm" 2>/dev/null)" = "jitterlab/1" ] && slack=$(cat "/proc/${t##*/}/timerslack_ns" 2>/dev/null)
    done
    [ -n "$slack" ] && break
done
wait "$pid"
rc_is "policy other run exits 0" 0 $?
if [ "$slack" = 1 ]; then ok "measuring thread's timer slack is 1 ns (kernel view)"; else not_ok "measuring thread's timer slack is 1 ns (kernel view)" "timerslack_ns=$slack"; fi
pyt "$T/slack.json" <<'PY'
check("result records timer_slack_ns = 1", d["cpus"][0]["timer_slack_ns"] == 1, d["cpus"][0].get("timer_slack_ns"))
PY

# --- bounds -------------------------------------------------------------------
bad "-D beyond a year" "--duration.*at most" -a 1 -D 9223372036854775807ns --budget 1ms --json @OUT@
bad "-l x -i beyond a year" "--loops.*at most" -a 1 -i 1h -l 100000 --json @OUT@
bad "--keep-windows too many" "--keep-windows" -a 1 --report-every 1 --keep-windows 100000000 --json @OUT@
bad "--intervals without --report-every" "--intervals.*--report-every" -a 1 -D 1 --intervals @OUT@

# --- no budget verdict without samples: a stop during the setup ----------------
"$JL" run -a 1 -D 5 --workload ptrchase:1GiB --budget 10s -q --json "$T/empty.json" 2>"$T/err" &
pid=$!
sleep 0.3
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then ok "stopped before the first cycle with --budget: not exit 0 (got $rc)"; else not_ok "stopped before the first cycle with --budget: not exit 0" "exit $rc" "$(cat "$T/err")"; fi
if grep -q "no sample" "$T/err"; then ok "says no sample was taken"; else not_ok "says no sample was taken" "$(cat "$T/err")"; fi
pyt "$T/empty.json" <<'PY'
check("empty run: document written, interrupted", d["interrupted"] is True and d["all"]["samples"] == 0, (d["interrupted"], d["all"]["samples"]))
PY

# --- windows: streamed to a file, bounded in the result -------------------------
timeout -s KILL 30 "$JL" run -a 1 -i 1ms -D 2 --report-every 100samples --keep-windows 5 \
    --intervals "$T/iv.csv" --samples "$T/iv.samples.csv" --json "$T/iv.json" >"$T/iv.out" 2>"$T/err"
rc=$?
rc_is "windows run exits 0" 0 $rc
inv "--keep-windows 5" "$T/iv.json" --samples "$T/iv.samples.csv" --exit-code $rc
pyt "$T/iv.json" csv="$T/iv.csv" out="$T/iv.out" <<'PY'
import csv
rows = list(csv.DictReader(open(kw["csv"])))
ivs = d["intervals"]
check("windows: --intervals holds every window", len(rows) >= 19, len(rows))
check("windows: the file's samples add up to the run's", sum(int(r["samples"]) for r in rows) == d["all"]["samples"], (sum(int(r["samples"]) for r in rows), d["all"]["samples"]))
check("windows: the file's missed add up to the run's", sum(int(r["missed"]) for r in rows) == d["all"]["missed"])
check("windows: the result keeps 5", len(ivs) == 5, len(ivs))
check("windows: the dropped ones are counted", d["intervals_dropped"] == len(rows) - 5, (d["intervals_dropped"], len(rows)))
check("windows: the newest are kept, oldest first", [iv["t_s"] for iv in ivs] == sorted(iv["t_s"] for iv in ivs) and abs(ivs[-1]["t_s"] * 1e9 - int(rows[-1]["t_ns"])) < 1000, [iv["t_s"] for iv in ivs])
check("windows: keep_windows in config", d["config"]["keep_windows"] == 5)
out = open(kw["out"], encoding="utf-8").read().splitlines()
lines = [l for l in out if re.match(r"^ *\d+\.\d{3} +\d+ +\d+ +\d+ \|", l)]
head = [l for l in out if "lat-min" in l]
check("windows: one printed line per window", len(lines) == len(rows), (len(lines), len(rows)))
check("windows: header and lines fit 100 columns", head and max(len(l) for l in lines + head) <= 100, max(len(l) for l in lines + head))
PY
timeout -s KILL 30 "$JL" run -a 1 -i 1ms -D 1 --report-every 200samples --wide >"$T/wide.out" 2>"$T/err"
if grep -q "per-sd" "$T/wide.out"; then ok "--wide prints every column"; else not_ok "--wide prints every column" "$(head -3 "$T/wide.out")"; fi

# --- no interval line without --report-every ------------------------------------
timeout -s KILL 30 "$JL" run -a 1 -i 1ms -D 98ms --workload spin:2ms >"$T/nowin.out" 2>"$T/err"
if grep -q "lat-min" "$T/nowin.out"; then not_ok "no interval line without --report-every" "$(grep -A1 lat-min "$T/nowin.out")"; else ok "no interval line without --report-every"; fi
# the same run: a spin longer than the interval is warned about, once, with both values
n=$(grep -c 'warning: --workload spin:2ms spins 2 ms per cycle, no less than the interval (1 ms): most periods will be missed' "$T/err")
if [ "$n" -eq 1 ]; then ok "spin:2ms at -i 1ms: one warning naming both"; else not_ok "spin:2ms at -i 1ms: one warning naming both" "$n matching lines" "$(head -5 "$T/err")"; fi

# --- window lines flushed through a pipe ----------------------------------------
python3 - "$JL" >"$T/pipe.out" <<'PY'
import subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "run", "-a", "1", "-i", "1ms", "-D", "3", "--report-every", "1s"],
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
first = None
for line in p.stdout:
    if first is None and line.strip().startswith("1.000"):
        first = time.monotonic()
p.wait()
end = time.monotonic()
print("early" if first is not None and end - first > 0.8 else "late %s %s" % (first, end))
PY
if grep -q early "$T/pipe.out"; then ok "window lines reach a pipe as each window closes"; else not_ok "window lines reach a pipe as each window closes" "$(cat "$T/pipe.out")"; fi

# --- periods that span missed cycles are not periods ----------------------------
timeout -s KILL 30 "$JL" run -a 1 -i 1ms -D 1 --workload spin:2ms -q --samples "$T/miss.csv" --json "$T/miss.json" 2>"$T/err"
inv "spin:2ms at 1 ms" "$T/miss.json" --samples "$T/miss.csv" --exit-code $?
pyt "$T/miss.json" <<'PY'
c = d["cpus"][0]
check("missed: every cycle missed periods", c["missed"] >= c["samples"], (c["missed"], c["samples"]))
check("missed: no period counted across missed cycles", c["period_ns"]["count"] == 0, c["period_ns"])
check("missed: missed_events counted", c["missed_events"] >= c["samples"] - 1, (c["missed_events"], c["samples"]))
PY

# --- default CPUs: isolated ones that cannot be used are dropped, said ----------
FX=$T/fx
cp -r "$JL_TOP/tests/fixtures/rt-tuned-minimal" "$FX"
echo 0-7 >"$FX/sys/devices/system/cpu/online"
echo 1,6-7 >"$FX/sys/devices/system/cpu/isolated"
timeout -s KILL 30 taskset -c 0-1 "$JL" run --sysroot "$FX" -i 1ms -D 200ms --policy other --json "$T/dflt.json" >/dev/null 2>"$T/err"
rc_is "default CPUs outside the affinity: run still works" 0 $?
if grep -q "6-7 dropped" "$T/err"; then ok "says which default CPUs were dropped"; else not_ok "says which default CPUs were dropped" "$(cat "$T/err")"; fi
pyt "$T/dflt.json" <<'PY'
check("measures only the usable isolated CPU", d["config"]["cpus"] == [1], d["config"]["cpus"])
PY
BAD_PREFIX=""
dir=$T/aff; mkdir "$dir"
timeout -s KILL 10 taskset -c 0 "$JL" run -a 1 -D 1 --json "$dir/out.json" >/dev/null 2>"$T/err"
rc_is "--cpus outside the affinity: exit 2" 2 $?
if grep -q "outside this process's CPU affinity" "$T/err" && [ ! -e "$dir/out.json" ]; then ok "--cpus outside the affinity: says why, writes nothing"; else not_ok "--cpus outside the affinity: says why, writes nothing" "$(cat "$T/err")"; fi

# --- small intervals without privileges ------------------------------------------
if is_root && command -v setpriv >/dev/null 2>&1; then
    U=$T/nobody; mkdir "$U"; chmod 777 "$U"; chmod 755 "$T"
    cp "$JL" "$U/jl"; chmod 755 "$U/jl"
    timeout -s KILL 30 sh -c "ulimit -l 8192; exec setpriv --reuid nobody --regid nogroup --clear-groups --inh-caps=-all \"$U/jl\" run -a 1 -i 10us -D 1 -q --json \"$U/np.json\"" 2>"$T/err"
    rc_is "unprivileged run at 10 us under an 8 MiB RLIMIT_MEMLOCK exits 0" 0 $?
    if grep -q "not real-time" "$T/err"; then ok "unprivileged: says the numbers are not real-time"; else not_ok "unprivileged: says the numbers are not real-time" "$(cat "$T/err")"; fi
    pyt "$U/np.json" <<'PY'
check("unprivileged: samples taken", d["all"]["samples"] > 1000, d["all"]["samples"])
check("unprivileged: memory lock reported", d["config"]["memory_lock"] in ("buffers", "none") and d["config"]["memory_locked"] is False, d["config"]["memory_lock"])
PY
else
    ok "unprivileged run # SKIP needs root and setpriv to become nobody"
fi

# --- a stop is prompt even with a long interval ---------------------------------
slow=0
for i in 1 2 3 4 5 6; do
    "$JL" run -a 1 -i 2s -D 20 -q --json "$T/stop$i.json" 2>/dev/null &
    pid=$!
    sleep "0.$((30 + i * 7))"
    t0=$(date +%s%N)
    kill -INT "$pid"
    wait "$pid"
    t1=$(date +%s%N)
    [ $(((t1 - t0) / 1000000)) -gt 1500 ] && slow=$((slow + 1))
done
if [ "$slow" -eq 0 ]; then ok "Ctrl-C ends a 2 s-interval run within 1.5 s, six times"; else not_ok "Ctrl-C ends a 2 s-interval run within 1.5 s, six times" "$slow slow stops"; fi

echo "1..$n"
