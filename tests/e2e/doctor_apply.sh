#!/bin/sh
# jitterlab doctor --apply end to end, about 25 s of 0.5 s runs on CPU 1
# (CPU 0 left to housekeeping). The promise checked after every case: the
# journal (a state file of the test's own) holds only the changes whose A/B
# said better, and `tune restore` brings every value back byte-identical.
# On a copy of a fixture tree (--sysroot: the tune actions act on the tree,
# the runs measure this machine): idle-states really changes a file, and
# cpufreq, whose frequency file never moves in a tree, is found not to take
# effect and is put back. The same after SIGINT in the baseline, SIGTERM in
# a treatment's A/B and SIGHUP in the conclusion (each phase found by the
# result file its child run writes). On this machine (root): irq-affinity and
# rt-throttling, every IRQ's affinity and the RT runtime compared before and after.
. "$(dirname "$0")/lib.sh"

FIX=$JL_TOP/tests/fixtures
S=$T/state.json
JITTERLAB_TUNE_STATE=$S
export JITTERLAB_TUNE_STATE

"$JL" doctor -a 1 --budget 1ms --repeat 6 >/dev/null 2>"$T/bad.err"
rc=$?
check "doctor: --repeat without --apply exits 2 and says why" \
    sh -c "[ $rc -eq 2 ] && grep -q -- '--repeat: sets the treatment: give --apply too' '$T/bad.err'"
"$JL" doctor -a 1 --budget 1ms --apply --only bogus -o "$T/bad" >/dev/null 2>"$T/bad.err"
rc=$?
check "doctor: --only with an unknown action exits 2, nothing written" \
    sh -c "[ $rc -eq 2 ] && grep -q -- '--only bogus' '$T/bad.err' && [ ! -e '$T/bad' ]"

if ! is_root; then
    ok "doctor --apply # SKIP not root"
    exit 0
fi

fresh() { rm -rf "$T/tree" && cp -a "$FIX/intel-ipc-untuned" "$T/tree"; }
# the journal's actions, one a line
journaled() {
    [ -f "$S" ] && python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["changes"]: print(c["action"])' "$S" | sort -u
}
# the actions doctor.json says were kept, one a line
kept() { python3 -c 'import json,sys
for t in json.load(open(sys.argv[1]))["treatment"]["items"]:
    if t["status"] == "kept": print(t["action"])' "$1" | sort -u; }
# LABEL DOCTOR_JSON: only kept changes journaled; restore is byte-identical
promise() {
    journaled >"$T/journaled"
    kept "$2" >"$T/kept"
    check "$1: the journal holds only the changes kept" diff "$T/kept" "$T/journaled"
    "$JL" tune restore -q >/dev/null 2>&1
    check "$1: tune restore leaves the tree byte-identical" diff -r "$FIX/intel-ipc-untuned" "$T/tree"
    check "$1: no journal left" test ! -e "$S"
}
# PATTERN PID SIGNAL: the signal to PID once a child run's argv holds PATTERN
signal_at() {
    wait_for 60 pgrep -f -- "$1" || return 1
    sleep 0.3
    kill "-$3" "$2"
}

# --- a fixture tree: one change kept or put back, one without effect ----------
fresh
"$JL" doctor -a 1 --budget 1ms -D 500ms --apply --repeat 1 --only idle-states,cpufreq \
    --sysroot "$T/tree" -o "$T/fx" >"$T/fx.txt" 2>"$T/fx.err"
rc=$?
check "doctor --apply: exit 0 or 3 (the final state met the budget or not)" \
    sh -c "[ $rc -eq 0 ] || [ $rc -eq 3 ]"
pyt "$T/fx/doctor.json" <<'PY'
t = {x["action"]: x for x in d["treatment"]["items"]}
check("doctor --apply: the tune remedies asked for are tried, in rank order",
      [x["action"] for x in d["treatment"]["items"]] == ["idle-states", "cpufreq"], t)
i = t["idle-states"]
check("doctor --apply: idle-states measured A/B and judged by compare",
      i["status"] in ("kept", "put-back") and i["verdict"] in ("better", "no-difference", "worse",
      "insufficient-data") and len(i["before_runs"]) == 1 and len(i["after_runs"]) == 1, i)
check("doctor --apply: kept only when better",
      (i["status"] == "kept") == (i["verdict"] == "better"), i)
c = t["cpufreq"]
check("doctor --apply: a governor whose frequency does not follow took no effect, put back",
      c["status"] == "no-effect" and "kHz" in c["why"] and c["verdict"] is None, c)
check("doctor --apply: the conclusion rests on the final state's run",
      d["conclusion"]["state"] == "final" and d["conclusion"]["samples"] > 0
      and d["treatment"]["final_result"].endswith("/final.json")
      and d["treatment"]["stopped_in"] is None, d["conclusion"])
PY
check "doctor --apply: the text tells the treatment and fits 100 columns" \
    sh -c "grep -q '^Treatment: 2 runtime remedies' '$T/fx.txt' && grep -q '^Kept: ' '$T/fx.txt' \
        && ! awk 'length > 100' '$T/fx.txt' | grep -q ."
check "doctor -o: report.html draws the runs with a doctor section" \
    sh -c "grep -q 'id=\"doctor\"' '$T/fx/report.html' && grep -q 'final' '$T/fx/report.html'"
"$JL" compare "$T/fx/baseline.json" "$T/fx/doctor.json" >"$T/cmp.txt" 2>&1
rc=$?
check "compare takes a doctor.json as an arm: its final state's runs" \
    sh -c "[ $rc -eq 0 ] && grep -q '^doctor against baseline' '$T/cmp.txt'"
promise "doctor --apply" "$T/fx/doctor.json"

# --- a journal another session holds: refused before anything is measured ------
fresh
"$JL" tune hold --sysroot "$T/tree" -a 1 --only timer-migration -D 5s -q >/dev/null 2>&1 &
hold=$!
kill_on_exit "$hold"
wait_for 5 test -e "$S" # its journal: it holds the lock
"$JL" doctor -a 1 --budget 1ms -D 500ms --apply --only idle-states --sysroot "$T/tree" \
    -o "$T/locked" >/dev/null 2>"$T/locked.err"
rc=$?
kill -TERM "$hold"
wait "$hold"
check "doctor --apply: a journal in use exits 1 at once, nothing measured, no -o DIR left" \
    sh -c "[ $rc -eq 1 ] && grep -q 'in use by jitterlab pid' '$T/locked.err' && [ ! -e '$T/locked' ]"

# --- stopped in each phase: the change under test goes back, nothing is lost ---
for case in "baseline.json INT baseline" "treat-1- TERM treatment 1" "final.json HUP conclusion"; do
    set -- $case
    pat=$1 sig=$2
    shift 2
    where=$*
    fresh
    "$JL" doctor -a 1 --budget 1ms -D 500ms --apply --repeat 1 --only idle-states --sysroot "$T/tree" \
        -o "$T/stop-$sig" >"$T/stop.txt" 2>"$T/stop.err" &
    pid=$!
    kill_on_exit "$pid"
    signal_at "$T/stop-$sig/$pat" "$pid" "$sig"
    wait "$pid"
    rc=$?
    check "SIG$sig in the $where: doctor ends as usual (0 or 3)" sh -c "[ $rc -eq 0 ] || [ $rc -eq 3 ]"
    pyt "$T/stop-$sig/doctor.json" where="$where" <<'PY'
check("doctor.json says where it stopped (%s)" % v["where"],
      d["treatment"]["stopped_in"] == v["where"], d["treatment"])
PY
    check "SIG$sig in the $where: the text says where it stopped" \
        grep -q "^  stopped in .*$where: " "$T/stop.txt"
    promise "SIG$sig in the $where" "$T/stop-$sig/doctor.json"
done
"$JL" compare "$T/fx/baseline.json" "$T/stop-INT/doctor.json" >/dev/null 2>"$T/cmp.err"
rc=$?
check "compare refuses a doctor.json stopped before its final state, and says why" \
    sh -c "[ $rc -eq 2 ] && grep -q 'its final state has no run kept' '$T/cmp.err'"

# --- this machine: IRQs moved off CPU 1, RT throttling lifted, each put back or kept --
snap() {
    for f in /proc/irq/*/smp_affinity_list /proc/sys/kernel/sched_rt_runtime_us; do
        printf '%s %s\n' "$f" "$(cat "$f")"
    done
}
snap >"$T/m.before"
"$JL" doctor -a 1 --budget 1ms -D 500ms --apply --repeat 1 --only irq-affinity,rt-throttling \
    -o "$T/m" >"$T/m.txt" 2>"$T/m.err"
rc=$?
check "doctor --apply on this machine: exit 0 or 3" sh -c "[ $rc -eq 0 ] || [ $rc -eq 3 ]"
journaled >"$T/journaled"
kept "$T/m/doctor.json" >"$T/kept"
check "doctor --apply on this machine: only kept changes journaled" diff "$T/kept" "$T/journaled"
"$JL" tune restore -q >/dev/null 2>&1
snap >"$T/m.after"
check "doctor --apply on this machine: every IRQ affinity and the RT runtime back as they were" \
    diff "$T/m.before" "$T/m.after"
