#!/bin/sh
# jitterlab rendezvous, end to end through the binary: -n 300 on every online
# CPU (the document's header and config, every layout with its counts, each
# CPU's loop-exit and total statistics present, whole and ordered, loop-exit
# <= total, the medians over CPUs, the ratio null for packed and present with
# its interval for the others, the CSV row for row against the JSON, the text
# table); --layout padded alone (no ratio); a sysroot without an invariant
# TSC (CLOCK_MONOTONIC, ns under the same keys); a FIFO hog on CPU 1
# (timeouts counted, the protocol recovers, bounded wall time, exit 0);
# SIGINT mid-run (exit 0, interrupted, what was measured); bad options and
# machines (exit 2, the option named, no file). About 6 s.
. "$(dirname "$0")/lib.sh"

online=$(cat /sys/devices/system/cpu/online)

# --- all three layouts ----------------------------------------------------------
J=$T/all.json C=$T/all.csv
"$JL" rendezvous -n 300 --json "$J" --csv "$C" >"$T/all.out" 2>"$T/all.err"
rc_is "rendezvous -n 300 exits 0" 0 $?
root=0; is_root && root=1
pyt "$J" csv="$C" out="$T/all.out" online="$online" root=$root <<'PY'
def cpulist(text):
    out = []
    for part in text.strip().split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out
cpus = cpulist(str(v["online"]))
t("header: tool, schema 1, kind rendezvous", 'd["tool"] == "jitterlab" and d["schema"] == 1 and d["kind"] == "rendezvous"', '[d.get("tool"), d.get("schema"), d.get("kind")]')
t("header: argv is the command line", 'd["argv"][1:4] == ["rendezvous", "-n", "300"]', 'd.get("argv")')
t("header: started_at is RFC 3339 UTC", 're.fullmatch(r"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z", d["started_at"])', 'd.get("started_at")')
t("header: system describes the machine", 'd["system"]["cpus_online"] == v["online"]', 'd.get("system", {}).get("cpus_online")')
c = d["config"]
t("config: every online CPU, 300 rendezvous of 5 iterations, 10 batches", 'c["cpus"] == cpus and c["rendezvous"] == 300 and c["iterations"] == 5 and c["batches"] == 10', 'c')
t("config: the three layouts in order", 'c["layouts"] == ["packed", "padded", "local-copy"]', 'c["layouts"]')
t("config: fifo at priority 10, master is the first CPU", 'c["policy"] == "fifo" and c["priority"] == 10 and c["master_cpu"] == cpus[0]', 'c')
t("clock: tsc with its rate, or monotonic without", '(d["clock"] == "tsc" and d["tsc_hz"] > 1e8) or (d["clock"] == "monotonic" and d["tsc_hz"] is None)', '(d.get("clock"), d.get("tsc_hz"))')
t("realtime as root (SCHED_OTHER otherwise), not interrupted", 'd["realtime"] is (v["root"] == 1) and d["interrupted"] is False', '(d.get("realtime"), d.get("interrupted"))')
t("ratio_ci names the method", 'd["ratio_ci"]["method"] == "bootstrap-percentile" and d["ratio_ci"]["level"] == 0.95', 'd.get("ratio_ci")')
L = d["layouts"]
t("one entry per layout, in order", '[l["layout"] for l in L] == ["packed", "padded", "local-copy"]', '[l.get("layout") for l in L]')
t("each layout: 100 rendezvous, done + timeouts", 'all(l["rendezvous_done"] + l["timeouts"] == 100 and l["rendezvous_done"] > 0 for l in L)', '[(l["rendezvous_done"], l["timeouts"]) for l in L]')
t("timeouts at the start are part of the timeouts", 'all(0 <= l["timeouts_at_start"] <= l["timeouts"] for l in L)')
t("each layout lists every CPU", 'all([x["cpu"] for x in l["cpus"]] == cpus for l in L)')
keys = ["min", "median", "p99", "max"]
stats = [(l["layout"], x["cpu"], m, x[m]) for l in L for x in l["cpus"] for m in ("loop_exit_cycles", "total_cycles")]
t("every statistic is present with whole finite values", 'all(isinstance(s, dict) and sorted(s) == sorted(keys) and all(isinstance(s[k], int) and s[k] >= 0 for k in keys) for _, _, _, s in stats)', 'stats[:2]')
t("min <= median <= p99 <= max", 'all(s["min"] <= s["median"] <= s["p99"] <= s["max"] for _, _, _, s in stats)', '[x for x in stats if not (x[3]["min"] <= x[3]["median"] <= x[3]["p99"] <= x[3]["max"])][:2]')
t("loop-exit <= total, figure by figure", 'all(x["loop_exit_cycles"][k] <= x["total_cycles"][k] for l in L for x in l["cpus"] for k in keys)')
t("tsc_hz is a whole number of Hz", 'd["tsc_hz"] is None or isinstance(d["tsc_hz"], int)', 'd.get("tsc_hz")')
t("the run's rendezvous are shorter than the deadline", 'all(x["total_cycles"]["max"] <= c["deadline_ns"] * (d["tsc_hz"] or 1e9) / 1e9 * 1.001 for l in L for x in l["cpus"])')
def mid(xs):
    xs = sorted(xs); n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
bad_med = [(l["layout"], m) for l in L for m in ("loop_exit", "total") if abs(l[m + "_median_cycles"] - mid([x[m + "_cycles"]["median"] for x in l["cpus"]])) > 0.5]
t("layout medians: the median over CPUs of the per-CPU medians", 'not bad_med', 'bad_med')
t("ratio_to_packed: null for packed", 'L[0]["ratio_to_packed"] is None')
rk = ["median", "ci_low", "ci_high", "batch_min", "batch_max"]
rs = [(l["layout"], m, l["ratio_to_packed"][m]) for l in L[1:] for m in ("loop_exit", "total")]
t("ratio_to_packed: present for padded and local-copy", 'all(isinstance(r, dict) and all(isinstance(r[k], float) and math.isfinite(r[k]) and r[k] > 0 for k in rk) for _, _, r in rs)', 'rs')
t("ratio: batch_min <= ci_low <= median <= ci_high <= batch_max", 'all(r["batch_min"] <= r["ci_low"] <= r["median"] <= r["ci_high"] <= r["batch_max"] for _, _, r in rs)', 'rs')
t("ratio: over 1..10 batches", 'all(1 <= r["batches"] <= 10 for _, _, r in rs)', '[r["batches"] for _, _, r in rs]')
want = lambda r: "none" if r["batches"] < 2 else "faster" if r["ci_high"] < 1 else "slower" if r["ci_low"] > 1 else "no-difference"
out = open(v["out"]).read()
t("text: a conclusion line under each layout's ratios", 'all(("  so %s: total " % l) in out for l, m, _ in rs)', '[x for x in out.splitlines() if x.startswith("  so ")]')
t("ratio: the conclusion is the interval's against 1", 'all(r.get("conclusion") == want(r) for _, _, r in rs)', '[(r.get("conclusion"), r["ci_low"], r["ci_high"]) for _, _, r in rs]')
# the CSV, row for row
lines = open(v["csv"]).read().splitlines()
hdr = lines[0].split(",")
num = lambda x: None if x == "" else (int(x) if re.fullmatch(r"-?\d+", x) else x)
rows = [[num(x) for x in l.split(",")] for l in lines[1:]]
want_hdr = ["layout", "cpu", "rendezvous_done", "timeouts"] + ["%s_%s_cycles" % (m, k) for m in ("loop_exit", "total") for k in keys]
t("CSV header", 'hdr == want_hdr', 'hdr')
t("CSV: one row per layout and CPU", 'len(rows) == len(L) * len(cpus)', 'len(rows)')
want = [[l["layout"], x["cpu"], l["rendezvous_done"], l["timeouts"]] + [x[m][k] for m in ("loop_exit_cycles", "total_cycles") for k in keys] for l in L for x in l["cpus"]]
t("CSV rows match the JSON", 'rows == want', '(rows[:2], want[:2])')
out = open(v["out"]).read()
t("text: a row per layout and CPU", 'all(re.search(r"^%s +%d +\\d+" % (l, cpu), out, re.M) for l in c["layouts"] for cpu in cpus)', 'out[:600]')
t("text: the ratio lines with their interval", 're.search(r"^padded / packed: +loop-exit [\\d.]+ \\(95% CI [\\d.]+-[\\d.]+;", out, re.M) and re.search(r"^local-copy / packed: +loop-exit [\\d.]+ .*, total [\\d.]+", out, re.M)', 'out[-400:]')
PY

# --- one layout: no ratio -------------------------------------------------------
J=$T/padded.json
"$JL" rendezvous --layout padded -n 60 --batches 3 --json "$J" >"$T/padded.out" 2>"$T/padded.err"
rc_is "--layout padded exits 0" 0 $?
pyt "$J" out="$T/padded.out" <<'PY'
L = d["layouts"]
t("--layout padded: one layout, in the config too", '[l["layout"] for l in L] == ["padded"] and d["config"]["layouts"] == ["padded"]', 'd.get("config")')
t("--layout padded: 60 rendezvous", 'L[0]["rendezvous_done"] + L[0]["timeouts"] == 60 and L[0]["rendezvous_done"] > 0', 'L[0]')
t("--layout padded: ratio_to_packed is null", 'L[0]["ratio_to_packed"] is None', 'L[0].get("ratio_to_packed")')
t("--layout padded: the figures are there", 'all(x["loop_exit_cycles"]["median"] <= x["total_cycles"]["median"] for x in L[0]["cpus"]) and isinstance(L[0]["loop_exit_median_cycles"], int)', 'L[0]')
t("--layout padded: the text says why there is no ratio", '"no ratios: packed was not measured" in open(v["out"]).read()')
PY

# --- no invariant TSC: CLOCK_MONOTONIC, ticks are ns ---------------------------------
# A sysroot of our own whose CPU flags lack constant_tsc and nonstop_tsc (the
# threads still run on the real CPUs 0 and 1).
R=$T/no-invariant-tsc
mkdir -p "$R/proc" "$R/sys/devices/system/cpu"
printf 'processor\t: 0\nflags\t\t: fpu tsc msr\n\nprocessor\t: 1\nflags\t\t: fpu tsc msr\n' >"$R/proc/cpuinfo"
echo 0-1 >"$R/sys/devices/system/cpu/online"
J=$T/mono.json C=$T/mono.csv
"$JL" rendezvous --sysroot "$R" -n 60 --batches 5 --json "$J" --csv "$C" >"$T/mono.out" 2>"$T/mono.err"
rc_is "no invariant TSC: exits 0" 0 $?
check "no invariant TSC: stderr says CLOCK_MONOTONIC, ns" grep -q "CLOCK_MONOTONIC.*figures are ns" "$T/mono.err"
check "no invariant TSC: the text says ticks are ns" grep -q "ticks are ns" "$T/mono.out"
pyt "$J" csv="$C" <<'PY'
t("no invariant TSC: clock monotonic, tsc_hz null", 'd["clock"] == "monotonic" and d["tsc_hz"] is None', '(d.get("clock"), d.get("tsc_hz"))')
t("no invariant TSC: the keys stay _cycles, the figures whole", 'all(isinstance(x["loop_exit_cycles"]["median"], int) and x["loop_exit_cycles"]["median"] <= x["total_cycles"]["median"] for l in d["layouts"] for x in l["cpus"])')
t("no invariant TSC: totals within the deadline in ns", 'all(x["total_cycles"]["max"] <= d["config"]["deadline_ns"] for l in d["layouts"] for x in l["cpus"])')
t("no invariant TSC: the CSV keeps the _cycles names", 'open(v["csv"]).readline().startswith("layout,cpu,rendezvous_done,timeouts,loop_exit_min_cycles,")')
PY

# --- a FIFO hog on CPU 1: timeouts, bounded, exit 0 -------------------------------
# The hog spins 90 ms of every 100 ms at FIFO 95, above the rendezvous'
# threads (FIFO 10): while it spins the thread on CPU 1 never runs, so
# rendezvous and start barriers time out; between its bursts the run goes on.
# The free 10 ms are shorter than the run (a run that fitted into a free
# stretch of a 50/50 hog once saw no timeout at all).
SP=$JL_BUILD/tests/spinner
"$SP" 1 95 90000 100000 6 >"$T/spin.out" 2>"$T/spin.err" &
sp=$!
kill_on_exit $sp
sleep 0.3
if ! kill -0 $sp 2>/dev/null; then
    wait $sp
    if [ $? -eq 77 ]; then
        ok "hog: timeouts counted # SKIP SCHED_FIFO not permitted"
    else
        not_ok "hog: the spinner runs" "$(cat "$T/spin.err")"
    fi
else
    J=$T/hog.json
    t0=$(date +%s%N)
    timeout -s KILL 20 "$JL" rendezvous -a 0,1 -n 30000 -q --json "$J" >"$T/hog.out" 2>"$T/hog.err"
    rc=$?
    t1=$(date +%s%N)
    kill $sp 2>/dev/null
    wait $sp 2>/dev/null
    rc_is "hog: exits 0" 0 "$rc"
    check "hog: -q prints nothing on stdout" test ! -s "$T/hog.out"
    pyt "$J" wall_ms=$(((t1 - t0) / 1000000)) <<'PY'
L = d["layouts"]
t("hog: timeouts counted", 'sum(l["timeouts"] for l in L) > 0', '[(l["layout"], l["timeouts"], l["timeouts_at_start"]) for l in L]')
t("hog: every rendezvous done or timed out", 'sum(l["rendezvous_done"] + l["timeouts"] for l in L) == 30000', '[(l["rendezvous_done"], l["timeouts"]) for l in L]')
t("hog: the protocol recovered (rendezvous done after timeouts, in every layout)", 'all(l["rendezvous_done"] > 1000 for l in L)', '[l["rendezvous_done"] for l in L]')
t("hog: the timed-out ones are excluded (no figure beyond the deadline)", 'all(x["total_cycles"]["max"] <= d["config"]["deadline_ns"] * (d["tsc_hz"] or 1e9) / 1e9 * 1.001 for l in L for x in l["cpus"])')
t("hog: bounded wall time (< 10 s)", 'v["wall_ms"] < 10000', 'v["wall_ms"]')
PY
fi

# --- SIGINT mid-run -----------------------------------------------------------------
defsig=""
env --default-signal=INT true 2>/dev/null && defsig="env --default-signal=INT"
J=$T/int.json
$defsig "$JL" rendezvous -n 1000000 --json "$J" >"$T/int.out" 2>"$T/int.err" &
pid=$!
( sleep 15; kill -KILL "$pid" 2>/dev/null ) &
wd=$!
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
kill "$wd" 2>/dev/null
rc_is "SIGINT: exit 0" 0 "$rc"
check "SIGINT: says it was interrupted" grep -q "interrupted" "$T/int.err"
pyt "$J" <<'PY'
L = d["layouts"]
n = [l["rendezvous_done"] + l["timeouts"] for l in L]
t("SIGINT: interrupted is true", 'd["interrupted"] is True', 'd.get("interrupted")')
t("SIGINT: some rendezvous measured, not all", 'all(x > 0 for x in n) and sum(n) < 1000000', 'n')
t("SIGINT: the layouts took turns (counts within 1)", 'max(n) - min(n) <= 1', 'n')
t("SIGINT: the statistics of what was measured", 'all(l["loop_exit_median_cycles"] is not None for l in L) and L[1]["ratio_to_packed"]["loop_exit"]["median"] > 0')
PY

# --- bad options: exit 2, the option named, nothing written -------------------------
BAD_SUBCOMMAND=rendezvous
bad "unknown layout" "--layout foo: unknown layout 'foo'" --json @OUT@ --csv @DIR@/r.csv --layout foo
bad "duplicate layout" '--layout packed,padded,packed: packed is named twice' --json @OUT@ --csv @DIR@/r.csv --layout packed,padded,packed
bad "-n 0" '--rendezvous 0: must be a whole number' --json @OUT@ --csv @DIR@/r.csv -n 0
bad "--iterations 0" '--iterations 0: must be a whole number' --json @OUT@ --csv @DIR@/r.csv --iterations 0
bad "--batches 0" '--batches 0: must be a whole number' --json @OUT@ --csv @DIR@/r.csv --batches 0
bad "more batches than rendezvous" '--batches 20: more batches than rendezvous' --json @OUT@ --csv @DIR@/r.csv -n 10 --batches 20
bad "one CPU" '--cpus 0: a rendezvous needs at least 2 CPUs' --json @OUT@ --csv @DIR@/r.csv -a 0
bad "--cpus 99" '--cpus 0,99: CPU 99 is not online' --json @OUT@ --csv @DIR@/r.csv --cpus 0,99
bad "--csv into a missing directory" '--csv /nonexistent-dir/x.csv' --json @OUT@ --csv /nonexistent-dir/x.csv
bad "--policy rr" '--policy rr: must be fifo or other' --json @OUT@ --policy rr
mkdir -p "$T/one-cpu/sys/devices/system/cpu" "$T/64-cpus/sys/devices/system/cpu"
echo 0 >"$T/one-cpu/sys/devices/system/cpu/online"
echo 0-63 >"$T/64-cpus/sys/devices/system/cpu/online"
bad "a machine with one CPU" '--cpus: a rendezvous needs at least 2 CPUs \(online: 0\)' --sysroot "$T/one-cpu" --json @OUT@ -n 10 --batches 1
bad "records beyond the memory bound" '--rendezvous 400000: at most 312500 rendezvous on 64 CPUs' --sysroot "$T/64-cpus" --json @OUT@ -n 400000
