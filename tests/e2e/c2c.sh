#!/bin/sh
# jitterlab c2c, end to end through the binary: the live machine's matrix
# (the JSON document's header and config, a square matrix over the chosen
# CPUs with a null diagonal and positive finite latencies, the pairs, the
# groups recomputed from the pairs, the CSV and the text table agreeing
# with the JSON to the 0.1 ns); --mode cas; CPU 1 kept busy by a FIFO 95
# hog for ~1 s of the measurement (c2c ends in bounded time, exit 0, every
# round either done or a timeout, timeouts > 0 or latencies); CPU 1 held
# for good (the pairs unstarted after the 2 s start time, the reason
# printed, exit 1); the report's heat maps of both documents; SIGINT
# mid-run (exit 0, interrupted true, the pairs so far); -q; a synthetic
# sysroot (SMT siblings sharing an L3, no invariant TSC: the groups and
# topology from the tree, CLOCK_MONOTONIC); --policy other
# and an unprivileged run (SCHED_FIFO refused: realtime false, one notice);
# bad options (exit 2, the option named, no file). About 13 s.
. "$(dirname "$0")/lib.sh"
SPINNER=$JL_BUILD/tests/spinner
ncpu=$(getconf _NPROCESSORS_ONLN)
if [ "$ncpu" -lt 2 ]; then
    ok "c2c # SKIP needs at least two CPUs"
    exit 0
fi
# the first two online CPUs, so that the run stays short on a big machine
cpus=$(python3 -c '
import sys
out = []
for part in open("/sys/devices/system/cpu/online").read().strip().split(","):
    a, _, b = part.partition("-")
    out += range(int(a), int(b or a) + 1)
print("%d,%d" % (out[0], out[1]))')

# checks shared by every live run: KEY=VALUE args: csv, out (stdout), mode, rounds
checks='
cpus = [int(x) for x in str(v["cpus"]).split(",")]
n = len(cpus)
t("header: tool, schema 1, kind c2c", "d[\"tool\"] == \"jitterlab\" and d[\"schema\"] == 1 and d[\"kind\"] == \"c2c\"", "[d.get(\"tool\"), d.get(\"kind\")]")
c = d["config"]
t("config: cpus, mode, round trips, rounds, policy, priority", "c[\"cpus\"] == cpus and c[\"mode\"] == v[\"mode\"] and c[\"round_trips\"] == v[\"n\"] and c[\"rounds\"] == v[\"rounds\"] and c[\"policy\"] == \"fifo\" and c[\"priority\"] == 10", "c")
t("clock tsc with tsc_hz, or monotonic with null", "(d[\"clock\"] == \"tsc\" and d[\"tsc_hz\"] > 1e8) or (d[\"clock\"] == \"monotonic\" and d[\"tsc_hz\"] is None)", "(d[\"clock\"], d[\"tsc_hz\"])")
t("realtime true (root), not interrupted", "d[\"realtime\"] is True and d[\"interrupted\"] is False and d[\"duration_s\"] > 0")
m = d["matrix"]
t("matrix: square over the CPUs", "m[\"cpus\"] == cpus and len(m[\"median_ns\"]) == n and all(len(r) == n for r in m[\"median_ns\"]) and len(m[\"min_ns\"]) == n and all(len(r) == n for r in m[\"min_ns\"])", "m")
t("matrix: null diagonal", "all(m[k][i][i] is None for k in (\"median_ns\", \"min_ns\") for i in range(n))", "m")
off = [(i, k) for i in range(n) for k in range(n) if i != k]
t("matrix: positive finite latencies off the diagonal", "all(isinstance(m[x][i][k], (int, float)) and 0 < m[x][i][k] < 1e7 for x in (\"median_ns\", \"min_ns\") for i, k in off)", "m")
t("matrix: min <= median", "all(m[\"min_ns\"][i][k] <= m[\"median_ns\"][i][k] for i, k in off)", "m")
p = d["pairs"]
t("pairs: one per ordered pair, row-major", "[(e[\"from\"], e[\"to\"]) for e in p] == [(cpus[i], cpus[k]) for i, k in off]", "p")
t("pairs: every round done, no timeout", "all(e[\"rounds_done\"] == v[\"rounds\"] and e[\"timeouts\"] == 0 for e in p)", "p")
t("pairs: the matrix cells", "all(e[\"median_ns\"] == m[\"median_ns\"][i][k] and e[\"min_ns\"] == m[\"min_ns\"][i][k] for e, (i, k) in zip(p, off))", "p")
names = ["smt-sibling", "same-llc", "other-llc", "same-package", "other-package", "unknown"]
t("pairs: a known group each", "all(e[\"group\"] in names for e in p)", "[e[\"group\"] for e in p]")
topo = d["topology"]
t("topology: one entry per CPU with its keys", "[e[\"cpu\"] for e in topo] == cpus and all(set(e) == {\"cpu\", \"core_id\", \"package_id\", \"llc_id\", \"llc_level\", \"thread_siblings\"} for e in topo)", "topo")
import os
nocache = not os.path.isdir("/sys/devices/system/cpu/cpu%d/cache" % cpus[0])
if nocache:
    t("no cache/ in sysfs: llc null, same package pairs are same-package", "all(e[\"llc_id\"] is None for e in topo) and all(e[\"group\"] in (\"same-package\", \"smt-sibling\", \"other-package\") for e in p)", "(topo, p)")
gs = d["groups"]
want = {}
for e in p:
    want.setdefault(e["group"], []).append(e)
def med(xs):
    xs = sorted(xs)
    return xs[(len(xs) + 1) // 2 - 1]
t("groups: those of the pairs, closest first", "[g[\"group\"] for g in gs] == [x for x in names if x in want]", "gs")
t("groups: pairs, min, median, max, best_min from the pairs", "all(g[\"pairs\"] == len(want[g[\"group\"]]) and g[\"min_ns\"] == min(e[\"median_ns\"] for e in want[g[\"group\"]]) and g[\"max_ns\"] == max(e[\"median_ns\"] for e in want[g[\"group\"]]) and g[\"median_ns\"] == med([e[\"median_ns\"] for e in want[g[\"group\"]]]) and g[\"best_min_ns\"] == min(e[\"min_ns\"] for e in want[g[\"group\"]]) for g in gs)", "gs")
lines = open(v["csv"]).read().splitlines()
rows = [l.split(",") for l in lines[1:]]
t("CSV: header", "lines[0] == \"from,to,group,min_ns,median_ns,timeouts\"", "lines[:1]")
t("CSV: the pairs, row for row", "len(rows) == len(p) and all(int(r[0]) == e[\"from\"] and int(r[1]) == e[\"to\"] and r[2] == e[\"group\"] and float(r[3]) == e[\"min_ns\"] and float(r[4]) == e[\"median_ns\"] and int(r[5]) == e[\"timeouts\"] for r, e in zip(rows, p))", "rows")
out = open(v["out"]).read().splitlines()
hdr = [i for i, l in enumerate(out) if l.lstrip().startswith("from\\to")]
cells = []
if hdr:
    for l in out[hdr[0] + 1:hdr[0] + 1 + n]:
        cells.append(l.split("|")[0].split())
t("text: a row per CPU, - on the diagonal", "len(cells) == n and all(r[0] == str(cpus[i]) and r[1 + i] == \"-\" for i, r in enumerate(cells))", "out[:12]")
t("text: the cells are the JSON medians", "all(cells[i][1 + k] == \"%.1f\" % m[\"median_ns\"][i][k] for i, k in off)", "(cells, m[\"median_ns\"])")
t("text: a line per group present", "all(any(l.startswith(g[\"group\"] + \" \") for l in out) for g in gs)", "out")
t("text: no colour in a pipe", "not any(\"\\033[\" in l for l in out)")
'

# --- the live machine, load-store (the default) ---------------------------------
J=$T/ls.json C=$T/ls.csv
"$JL" c2c -a "$cpus" -n 2000 --rounds 2 --json "$J" --csv "$C" >"$T/ls.out" 2>"$T/ls.err"
rc_is "c2c -n 2000 --rounds 2 exits 0" 0 $?
check "nothing on stderr in a pipe" test ! -s "$T/ls.err"
printf "%s\n" "$checks" | pyt "$J" cpus="$cpus" csv="$C" out="$T/ls.out" mode=load-store n=2000 rounds=2

# --- cas ---------------------------------------------------------------------------
J=$T/cas.json C=$T/cas.csv
"$JL" c2c -a "$cpus" --mode cas -n 2000 --rounds 2 --json "$J" --csv "$C" >"$T/cas.out" 2>"$T/cas.err"
rc_is "c2c --mode cas exits 0" 0 $?
printf "%s\n" "$checks" | sed 's/^t("/t("cas: /' | pyt "$J" cpus="$cpus" csv="$C" out="$T/cas.out" mode=cas n=2000 rounds=2

# --- -q: nothing printed ----------------------------------------------------------------
"$JL" c2c -a "$cpus" -n 200 --rounds 1 -q >"$T/q.out" 2>"$T/q.err"
rc_is "-q exits 0" 0 $?
check "-q: nothing on stdout or stderr" test ! -s "$T/q.out" -a ! -s "$T/q.err"

# --- CPU 1 kept busy by a FIFO 95 hog ------------------------------------------------
# The spinner sleeps its first period, then spins 0.9 s on CPU 1 from t = 1 s,
# 0.5 s into this measurement of 1 to 2 s (400 rounds of 2000 round trips
# per pair: at least 1 ms of rest per round, however fast the round trips),
# while CPU 1 answers CPU 0. The thread on CPU 1 is starved meanwhile; every
# wait must end at its deadline and the run go on.
"$SPINNER" 1 95 900000 1000000 2 >"$T/spin.out" 2>"$T/spin.err" &
spid=$!
kill_on_exit $spid
sleep 0.5
J=$T/hog.json
start=$(date +%s%N)
timeout -s KILL 20 "$JL" c2c -a 0,1 -n 2000 --rounds 400 -q --json "$J" >"$T/hog.out" 2>"$T/hog.err"
hrc=$?
end=$(date +%s%N)
wait $spid
src=$?
if [ "$src" -eq 77 ]; then
    ok "hog on CPU 1 # SKIP SCHED_FIFO not permitted for the spinner"
else
    rc_is "hog on CPU 1: c2c exits 0" 0 $hrc
    elapsed_ms=$(( (end - start) / 1000000 ))
    pyt "$J" elapsed_ms=$elapsed_ms spinner_rc=$src <<'PY'
p = d["pairs"]
t("hog: the spinner ran", 'v["spinner_rc"] == 0', 'v["spinner_rc"]')
t("hog: c2c ended in bounded time (< 10 s)", 'v["elapsed_ms"] < 10000', 'v["elapsed_ms"]')
t("hog: both pairs measured, not interrupted", 'len(p) == 2 and d["pairs_done"] == 2 and d["interrupted"] is False', 'p')
t("hog: every round done or timed out", 'all(e["rounds_done"] + e["timeouts"] == 400 for e in p)', 'p')
t("hog: timeouts > 0 or latencies for every pair", 'all(e["timeouts"] > 0 or (e["median_ns"] or 0) > 0 for e in p)', 'p')
t("hog: timeouts add up", 'd["timeouts"] == sum(e["timeouts"] for e in p) == sum(g["timeouts"] for g in d["groups"])', '(d["timeouts"], p)')
t("hog: a pair with a done round has a latency, else null", 'all((e["rounds_done"] > 0) == (e["median_ns"] is not None) for e in p)', 'p')
note("hog: timeouts %s, medians %s ns, %d ms" % ([e["timeouts"] for e in p], [e["median_ns"] for e in p], v["elapsed_ms"]))
PY
fi

# --- CPU 1 held for good: the pair's threads cannot start ------------------------------
# The spinner spins 2.9 s from t = 0.3 s: the thread for CPU 1 never runs, the
# team is called off after its 2 s start time, both pairs stay unmeasured,
# and c2c says why and exits 1 (nothing measured) in bounded time.
"$SPINNER" 1 95 2900000 300000 3 >"$T/held.spin" 2>&1 &
spid=$!
kill_on_exit $spid
sleep 0.4
J=$T/held.json
start=$(date +%s%N)
timeout -s KILL 20 "$JL" c2c -a 0,1 -n 1000 -q --json "$J" >"$T/held.out" 2>"$T/held.err"
hrc=$?
end=$(date +%s%N)
wait $spid
if [ $? -eq 77 ]; then
    ok "CPU 1 held # SKIP SCHED_FIFO not permitted for the spinner"
else
    rc_is "CPU 1 held: c2c exits 1" 1 $hrc
    check "CPU 1 held: the reason names CPU 1" grep -q "2 pairs not measured: the thread for CPU 1 did not run within 2 s" "$T/held.err"
    pyt "$J" elapsed_ms=$(( (end - start) / 1000000 )) <<'PY'
t("CPU 1 held: ended within 5 s (one start time, the second pair skipped)", 'v["elapsed_ms"] < 5000', 'v["elapsed_ms"]')
t("CPU 1 held: 2 pairs unstarted, 0 done, the reason kept", 'd["pairs_unstarted"] == 2 and d["pairs_done"] == 0 and "CPU 1" in d["start_error"]', '(d["pairs_unstarted"], d["pairs_done"], d["start_error"])')
t("CPU 1 held: the matrix is all null", 'all(x is None for row in d["matrix"]["median_ns"] for x in row)', 'd["matrix"]')
PY
fi

# --- SIGINT mid-run ---------------------------------------------------------------------
defsig=""
env --default-signal=INT true 2>/dev/null && defsig="env --default-signal=INT"
J=$T/int.json
$defsig "$JL" c2c -a "$cpus" -n 5000 --rounds 1000 --json "$J" >"$T/int.out" 2>"$T/int.err" &
pid=$!
kill_on_exit $pid
sleep 0.8
start=$(date +%s%N)
kill -INT "$pid"
wait "$pid"
rc=$?
end=$(date +%s%N)
rc_is "SIGINT: exit 0" 0 "$rc"
check "SIGINT: says it was interrupted" grep -q "interrupted" "$T/int.err"
pyt "$J" stop_ms=$(( (end - start) / 1000000 )) <<'PY'
p = d["pairs"]
t("SIGINT: interrupted is true", 'd["interrupted"] is True', 'd.get("interrupted")')
t("SIGINT: stopped within 0.5 s", 'v["stop_ms"] < 500', 'v["stop_ms"]')
t("SIGINT: the pairs so far (fewer than 1000 rounds each)", 'len(p) == 2 and d["pairs_done"] >= 1 and all(e["rounds_done"] < 1000 for e in p)', 'p')
t("SIGINT: a latency where a round was done, null elsewhere", 'all((e["rounds_done"] > 0) == (e["median_ns"] is not None) for e in p) and d["matrix"]["median_ns"][0][0] is None', 'p')
PY

# --- a synthetic sysroot: CPUs 0 and 1 as SMT siblings sharing an L3 ----------
# (the live CPUs are measured; the topology and the CPU flags come from the
# tree: no /proc/cpuinfo, so no invariant TSC and CLOCK_MONOTONIC instead)
S=$T/sys
for c in 0 1; do
    d=$S/sys/devices/system/cpu/cpu$c
    mkdir -p "$d/topology" "$d/cache/index3"
    echo 0-1 >"$d/topology/thread_siblings_list"
    echo 0 >"$d/topology/core_id"
    echo 0 >"$d/topology/physical_package_id"
    echo 3 >"$d/cache/index3/level"
    echo Unified >"$d/cache/index3/type"
    echo 0-1 >"$d/cache/index3/shared_cpu_list"
    echo 7 >"$d/cache/index3/id"
done
echo 0-1 >"$S/sys/devices/system/cpu/online"
J=$T/sr.json
"$JL" c2c --sysroot "$S" -n 500 --rounds 1 --json "$J" >"$T/sr.out" 2>"$T/sr.err"
rc_is "--sysroot: exits 0" 0 $?
check "--sysroot: the text shows core, llc, pkg and siblings" grep -Eq '^ +0 +- +[0-9.]+ +\| +0 +7 +0 +0-1$' "$T/sr.out"
pyt "$J" <<'PY'
t("--sysroot: clock monotonic without an invariant TSC, tsc_hz null", 'd["clock"] == "monotonic" and d["tsc_hz"] is None', '(d["clock"], d["tsc_hz"])')
t("--sysroot: both pairs smt-sibling", '[e["group"] for e in d["pairs"]] == ["smt-sibling"] * 2', 'd["pairs"]')
t("--sysroot: topology from the tree", 'd["topology"] == [{"cpu": c, "core_id": 0, "package_id": 0, "llc_id": 7, "llc_level": 3, "thread_siblings": "0-1"} for c in (0, 1)]', 'd["topology"]')
t("--sysroot: one group, smt-sibling, measured", '[g["group"] for g in d["groups"]] == ["smt-sibling"] and d["groups"][0]["pairs"] == 2 and all(e["median_ns"] > 0 for e in d["pairs"])', '(d["groups"], d["pairs"])')
PY

# --- --policy other; unprivileged: SCHED_FIFO refused, said once ----------------
J=$T/other.json
"$JL" c2c -a "$cpus" -n 200 --rounds 1 --policy other --json "$J" >"$T/other.out" 2>"$T/other.err"
rc_is "--policy other exits 0" 0 $?
check "--policy other: no notice" test ! -s "$T/other.err"
pyt "$J" <<'PY'
t("--policy other: config policy other, priority 0, realtime false", 'd["config"]["policy"] == "other" and d["config"]["priority"] == 0 and d["realtime"] is False', '(d["config"], d["realtime"])')
t("--policy other: measured", 'all(e["median_ns"] is not None or e["timeouts"] > 0 for e in d["pairs"])', 'd["pairs"]')
PY
if is_root && command -v setpriv >/dev/null; then
    chmod 711 "$T" && mkdir -m 777 "$T/nobody"
    J=$T/nobody/c.json
    setpriv --reuid=65534 --regid=65534 --clear-groups "$JL" c2c -a "$cpus" -n 200 --rounds 1 \
        --json "$J" >"$T/nobody.out" 2>"$T/nobody.err"
    rc_is "unprivileged c2c exits 0" 0 $?
    check "unprivileged: the notice, once" test "$(grep -c 'SCHED_FIFO is not permitted; measuring at SCHED_OTHER' "$T/nobody.err")" = 1
    check "unprivileged: the text says SCHED_OTHER" grep -q "SCHED_OTHER (not real-time)" "$T/nobody.out"
    pyt "$J" <<'PY'
t("unprivileged: policy fifo asked, realtime false", 'd["config"]["policy"] == "fifo" and d["realtime"] is False', '(d["config"], d["realtime"])')
t("unprivileged: both pairs measured", 'd["pairs_done"] == 2', 'd["pairs"]')
PY
else
    ok "unprivileged c2c # SKIP needs root (to drop privileges) and setpriv"
fi

# --- the report draws the live matrix and the held one --------------------------------
"$JL" report --c2c "$T/ls.json" --c2c "$T/held.json" -o "$T/c2c.html" --svg "$T/svg" -q
rc_is "report --c2c of two c2c documents exits 0" 0 $?
pyt "$T/ls.json" html="$T/c2c.html" svg="$T/svg" <<'PY'
import os
page = open(v["html"]).read()
n = len(d["matrix"]["cpus"])
t("report: one heat map per document", 'page.count(\'data-plot="c2c-heatmap"\') == 2', 'page.count("c2c-heatmap")')
t("report: a tooltip per ordered pair and diagonal cell, both maps", 'page.count("<title>CPU ") == 2 * n * n', 'page.count("<title>CPU ")')
t("report: the live pair's median in its tooltip", '"CPU 0 \u2192 CPU 1: " in page', 'None')
t("report: the held document's cells say not measured", 'page.count("not measured") >= n * (n - 1)', 'page.count("not measured")')
t("report: the heat maps kept as SVG files", 'sorted(os.listdir(v["svg"])) == ["c2c0-heatmap.svg", "c2c1-heatmap.svg"]', 'os.listdir(v["svg"])')
PY
"$JL" report "$T/ls.json" -o "$T/bad.html" 2>"$T/bad.err"
rc_is "report with a c2c document as a run result exits 2" 2 $?
check "report: the message points to --c2c" grep -q 'not a run result (give it with --c2c)' "$T/bad.err"
check "report: no page written" test ! -e "$T/bad.html"

# --- bad input: exit 2, the option named, nothing written --------------------------
BAD_SUBCOMMAND=c2c
bad "one CPU" '--cpus 0: needs at least two CPUs' --json @OUT@ --csv @DIR@/m.csv -a 0
bad "unknown mode" '--mode store: must be load-store or cas' --json @OUT@ --csv @DIR@/m.csv --mode store
bad "-n 0" '--round-trips 0: must be a whole number from 1 to 1000000' --json @OUT@ --csv @DIR@/m.csv -n 0
bad "--rounds 0" '--rounds 0: must be a whole number from 1 to 1000' --json @OUT@ --csv @DIR@/m.csv --rounds 0
bad "--policy rr" '--policy rr: must be fifo or other' --json @OUT@ --policy rr
bad "--cpus 0,99" '--cpus 0,99: CPU 99 is not online' --json @OUT@ --csv @DIR@/m.csv --cpus 0,99
bad "--csv into a missing directory" '--csv /nonexistent-dir/m.csv' --json @OUT@ --csv /nonexistent-dir/m.csv
bad "unknown option" "unknown option '--bogus'" --json @OUT@ --bogus
