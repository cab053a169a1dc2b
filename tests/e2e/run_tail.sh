#!/bin/sh
# jitterlab run --tail and --until-confident, end to end on CPU 1: the
# result's top-level tail (one entry per CPU, the shape docs/tail.md
# gives) and its lines at the end of the summary; a width no run reaches
# ends by -D and says so; a reachable one ends either way, and the result,
# the text and the run's length agree on which; Ctrl-C still gives the
# tail of the samples taken; --tail without windows is refused. Only what
# holds on any machine is asserted: never whether the checks accept an
# estimate. The same run's result and samples file, as written, go
# through `jitterlab tail` (fitted on the buckets, then on the exact
# samples). About 12 s.
. "$(dirname "$0")/lib.sh"
: "${JL_TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"

# --- --tail on report windows -----------------------------------------
J=$T/tail.json
"$JL" run -a 1 -i 500us -D 3 --report-every 100ms --tail --budget 10ms --json "$J" --samples "$T/tail.csv" >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ]; then ok "--tail run exits 0 (or 3 over budget)"; else not_ok "--tail run exits 0 (or 3 over budget)" "exit status $rc" "$(tail -3 "$T/err")"; fi
inv "tail run" "$J" --exit-code $rc --budget-ns 10000000
check "--tail: the summary ends with the tail's lines" sh -c "sed -n '/^Histogram, all CPUs/,\$p' '$T/out' | grep -Eiq 'tail|estimate'"
check "--tail: a blank line sets the tail's block apart" sh -c "grep -B1 '^tail of the latency' '$T/out' | head -1 | grep -q '^\$'"
pyt "$J" <<'EOF2'
tl = d.get("tail")
t("tail is an object", 'isinstance(tl, dict)', 'type(tl)')
t("tail has its members", 'all(k in tl for k in ("confidence", "interval_ns", "cpus", "all"))', 'sorted(tl)')
t("tail.interval_ns is the run's", 'tl["interval_ns"] == 500000', 'tl.get("interval_ns")')
t("one entry, CPU 1", '[e["cpu"] for e in tl["cpus"]] == [1]', 'tl["cpus"]')
t("its verdict is an estimate or a refusal", 'tl["cpus"][0]["verdict"] in ("estimate", "cannot-estimate")', 'tl["cpus"][0].get("verdict")')
t("one CPU: no all entry", 'tl["all"] is None', 'tl.get("all")')
t("no until_confident without it", '"until_confident" not in tl and "ended_by" not in tl', 'sorted(tl)')
EOF2

# --- the same result through jitterlab tail -------------------------------
"$JL" tail "$J" --json "$T/t.json" >"$T/tout" 2>"$T/err"
rc_is "tail of the run: exit 0" 0 $?
"$JL" tail "$J" --samples "$T/tail.csv" --json "$T/s.json" >"$T/tout" 2>"$T/err"
rc_is "tail of the run with its samples file: exit 0" 0 $?
pyt "$T/s.json" h="$T/t.json" <<'PY'
h = json.load(open(v["h"]))
t("tail of the run: one CPU entry, kind tail", 'd["kind"] == "tail" and [e["cpu"] for e in d["cpus"]] == [1] and d["all"] is None')
t("with the samples file: fitted on the samples", 'd["cpus"][0]["data"] == "samples"')
check("without it: on the histogram", h["cpus"][0]["data"] == "histogram")
t("an answer: an estimate or a reason", 'all(e["verdict"] == "estimate" or e["reason"] for e in d["cpus"])', '[e["reason"] for e in d["cpus"]]')
PY

# --- --until-confident: a width no run reaches ends by -D ----------------
J=$T/never.json
"$JL" run -a 1 -i 1ms -D 3 --until-confident 1e-9:0.0001% --json "$J" >"$T/never.out" 2>"$T/err"
rc_is "--until-confident (unreachable) exits 0" 0 $?
check "the text says -D ended the run first" grep -q "^-D ended the run before the 1e-9 level was known within 0.0001 %" "$T/never.out"
pyt "$J" <<'EOF2'
tl = d["tail"]
t("ended_by is duration", 'tl["ended_by"] == "duration"', 'tl.get("ended_by")')
t("not interrupted", 'd["interrupted"] is False')
t("the run took its -D", 'd["duration_s"] >= 2.9', 'd["duration_s"]')
u = tl["until_confident"]
t("until_confident names the goal", 'u["probability"] == 1e-9 and abs(u["width_pct"] - 0.0001) < 1e-9', 'u')
t("checks ran each telemetry window", '1 <= u["checks"] <= 3', 'u["checks"]')
lc = u["last_check"]
t("the last check has CPU 1", '[c["cpu"] for c in lc["cpus"]] == [1] and lc["widest_cpu"] == 1', 'lc')
t("and it was not confident", 'lc["cpus"][0]["confident"] is False', 'lc["cpus"][0]')
t("the probabilities hold 1e-9", '1e-9 in tl.get("probabilities", [1e-9])', 'tl.get("probabilities")')
EOF2

# --- a reachable width: either way, told the same everywhere ------------
J=$T/maybe.json
"$JL" run -a 1 -i 1ms -D 4 --until-confident 1e-6:1000% --report-every 250ms --json "$J" >"$T/maybe.out" 2>"$T/err"
rc_is "--until-confident (reachable) exits 0" 0 $?
by=$(jget "$J" 'd["tail"]["ended_by"]')
case $by in
confident)
    check "confident: the text says it stopped" grep -q "^stopped: the 1e-6 level's interval is within 1000 %" "$T/maybe.out"
    pyt "$J" <<'EOF2'
t("confident: ended before -D", 'd["duration_s"] < 3.95', 'd["duration_s"]')
t("confident: not interrupted", 'd["interrupted"] is False')
t("confident: the last check agrees", 'all(c["confident"] for c in d["tail"]["until_confident"]["last_check"]["cpus"])')
EOF2
    ;;
duration)
    check "duration: the text says -D ended it" grep -q "^-D ended the run before the 1e-6 level" "$T/maybe.out"
    check "duration: the run took its -D" jget "$J" 'exit(0 if d["duration_s"] >= 3.9 else 1)'
    ;;
*) not_ok "reachable: ended_by is confident or duration" "ended_by: $by" ;;
esac

# --- Ctrl-C: the tail of the samples taken ----------------------------
defsig=""
env --default-signal=INT,TERM true 2>/dev/null && defsig="env --default-signal=INT,TERM"
J=$T/int.json
$defsig timeout -s KILL 20 "$JL" run -a 1 -D 30 -q --tail --json "$J" >"$T/int.out" 2>"$T/err" &
pid=$!
sleep 1.5
kill -INT "$pid"
wait "$pid"
rc_is "SIGINT with --tail exits 0" 0 $?
pyt "$J" <<'EOF2'
t("SIGINT: interrupted", 'd["interrupted"] is True')
t("SIGINT: the tail of what was taken", '[e["cpu"] for e in d["tail"]["cpus"]] == [1] and d["tail"]["cpus"][0]["samples"] == d["cpus"][0]["samples"]', 'd.get("tail")')
EOF2

# --- refused before anything runs -------------------------------------
bad "--tail without windows" "^jitterlab: --tail: needs windows" -a 1 -D 1 --tail --no-telemetry --json @OUT@
bad "--until-confident without windows" "^jitterlab: --until-confident 1e-9:10%: needs windows" -a 1 -D 1 --until-confident 1e-9:10% --no-telemetry --json @OUT@
bad "--until-confident without a width" "^jitterlab: --until-confident 1e-9: takes P:WIDTH" -a 1 -D 1 --until-confident 1e-9 --json @OUT@
