#!/bin/sh
# runs beside others
# jitterlab experiment end to end. A two-step, two-repeat experiment of 1 s
# runs goes in the interleaved order (experiment.json and the results' own
# start times say so) and writes every file; SIGINT during the second run
# keeps the finished run, leaves no file for the interrupted one, still runs
# its after, and --resume completes the rest in the same order, keeping the
# history. Bad experiment files (unknown key, missing run, bad option inside
# run, duplicate step) exit 2 before anything runs, naming the line, and
# create no directory; an existing -o directory is refused; every example in
# examples/ passes --dry-run. About 20 s.
. "$(dirname "$0")/lib.sh"

# A non-interactive shell starts background commands with SIGINT ignored;
# give the experiment the default disposition, as a terminal would.
defsig=""
env --default-signal=INT,TERM true 2>/dev/null && defsig="env --default-signal=INT,TERM"
W=$T/cwd
mkdir "$W"
cd "$W" || exit 1

# experiment NAME STEP_B_RUN [STEP_B_LINE]: an experiment file of steps a and
# b, 1 s runs, whose before and after leave marker files in $T.
experiment() {
    cat >"$T/$1.ini" <<EOF
; $1: two steps, two repeats
[experiment]
name = $1
repeat = ${REPEAT:-2}
settle = 0

[step a]
run = -a 1 -D 1s -q
before = touch "$T/$1.before-\$JITTERLAB_STEP-\$JITTERLAB_REPEAT"
after = touch "$T/$1.after-\$JITTERLAB_STEP-\$JITTERLAB_REPEAT"

[step b]
run = $2
before = touch "$T/$1.before-\$JITTERLAB_STEP-\$JITTERLAB_REPEAT"
after = touch "$T/$1.after-\$JITTERLAB_STEP-\$JITTERLAB_REPEAT"
${3:-}
EOF
}

# --- a whole experiment -------------------------------------------------------
experiment ab "-a 1 -D 1s -q -i 500us --report-every 250ms" "save = samples histogram intervals"
"$JL" experiment "$T/ab.ini" -o "$T/ab" >"$T/ab.out" 2>"$T/err"
rc_is "experiment of 2 steps x 2 repeats exits 0" 0 $?
check "experiment.ini is the file as given" cmp "$T/ab.ini" "$T/ab/experiment.ini"
check "the end says 4 of 4 runs finished" grep -q "^experiment ab: 4 of 4 runs finished; results in $T/ab" "$T/ab.out"
left=$(ls -A "$T/ab" | grep '\.part$\|^\.')
if [ -z "$left" ]; then ok "no .part or temporary file is left"; else not_ok "no .part or temporary file is left" "$left"; fi
pyt "$T/ab/experiment.json" dir="$T/ab" t="$T" <<'EOF'
import os
t("kind experiment with the common header", 'd["tool"] == "jitterlab" and d["schema"] == 1 and d["kind"] == "experiment" and d["version"] and d["argv"][:2] == ["jitterlab", "experiment"] and d["started_at"].endswith("Z") and d["system"]["hostname"]', '{k: d.get(k) for k in ("tool", "schema", "kind", "argv", "started_at")}')
t("not interrupted", 'd["interrupted"] is False')
p = d["plan"]
t("the plan: interleaved, 2 repeats, settle 0, steps a and b", 'p["order"] == "interleaved" and p["repeat"] == 2 and p["settle_ns"] == 0 and [s["name"] for s in p["steps"]] == ["a", "b"]', 'p')
t("the plan keeps each step's run argv", 'p["steps"][1]["argv"] == ["run", "-a", "1", "-D", "1s", "-q", "-i", "500us", "--report-every", "250ms"] and p["steps"][1]["save"] == "samples histogram intervals"', 'p["steps"][1]')
runs = d["runs"]
t("runs in the interleaved order a1 b1 a2 b2", '[(r["order"], r["step"], r["repeat"]) for r in runs] == [(1, "a", 1), (2, "b", 1), (3, "a", 2), (4, "b", 2)]', 'runs')
t("every run done with its file", 'all(r["status"] == "done" and r["file"] == "%s-%d.json" % (r["step"], r["repeat"]) and r["why"] is None and r["exit_status"] == 0 for r in runs)', 'runs')
t("every run has a start time and a duration of about 1 s", 'all(r["started_at"].endswith("Z") and 0.9 < r["duration_s"] < 30 for r in runs)', '[(r["started_at"], r["duration_s"]) for r in runs]')
t("start times increase in run order", 'all(a["started_at"] < b["started_at"] for a, b in zip(runs, runs[1:]))', '[r["started_at"] for r in runs]')
docs = [json.load(open(os.path.join(v["dir"], r["file"]))) for r in runs]
t("each file is a finished run result", 'all(x["kind"] == "run" and x["interrupted"] is False for x in docs)')
t("the files' own start times increase in run order too", 'all(a["started_at"] < b["started_at"] for a, b in zip(docs, docs[1:]))', '[x["started_at"] for x in docs]')
t("each file started after its entry's start time", 'all(x["started_at"] >= r["started_at"] for x, r in zip(docs, runs))', '[(x["started_at"], r["started_at"]) for x, r in zip(docs, runs)]')
saved = lambda r, suffix: os.path.join(v["dir"], "%s-%d.%s" % (r["step"], r["repeat"], suffix))
rows = lambda path: len(open(path).read().splitlines()) if os.path.exists(path) else -1
b = [(r, x) for r, x in zip(runs, docs) if r["step"] == "b"]
t("save: every sample of every run of b is kept, one file a run", 'all(rows(saved(r, "samples.csv")) - 1 == x["all"]["samples"] > 0 for r, x in b)', '[(rows(saved(r, "samples.csv")), x["all"]["samples"]) for r, x in b]')
t("save: a histogram and the intervals of every run of b", 'all(rows(saved(r, "histogram.txt")) > 0 and rows(saved(r, "intervals.csv")) > 1 for r, x in b)', 'os.listdir(v["dir"])')
t("save: nothing saved for a, which did not ask", 'not [f for f in os.listdir(v["dir"]) if f.startswith("a-") and not f.endswith(".json")]', 'os.listdir(v["dir"])')
t("step b's runs got -i 500us", 'docs[1]["config"]["interval_ns"] == 500000 and docs[0]["config"]["interval_ns"] == 1000000')
t("before and after recorded with status 0", 'all(r["before"]["exit_status"] == 0 and r["after"]["exit_status"] == 0 for r in runs)', '[(r["before"], r["after"]) for r in runs]')
t("before and after ran once per run", 'all(os.path.exists("%s/ab.%s-%s-%d" % (v["t"], w, r["step"], r["repeat"])) for r in runs for w in ("before", "after"))')
t("the history holds the 4 attempts, one session", 'len(d["history"]) == 4 and len(d["sessions"]) == 1 and d["sessions"][0]["runs_made"] == 4', '(len(d["history"]), d["sessions"])')
t("summary: 4 planned, 4 done", 'd["summary"]["planned"] == 4 and d["summary"]["done"] == 4', 'd["summary"]')
c = d["compare"]
t("compare.json done, grouped by step, the first the baseline", 'c["status"] == "done" and c["file"] == "compare.json" and c["command"][:9] == ["jitterlab", "compare", "--group", "a-1.json,a-2.json", "--group", "b-1.json,b-2.json", "--label", "a", "--label"]', 'c')
cj = json.load(open(os.path.join(v["dir"], "compare.json")))
t("compare.json is a compare document with baseline a, both runs each", 'cj["kind"] == "compare" and cj["baseline"] == "a" and [i["runs"] for i in cj["inputs"]] == [2, 2]', '{k: cj.get(k) for k in ("kind", "baseline", "inputs")}')
r = d["report"]
t("report.html done, every run of a step as one result in its name, with the verdicts", 'r["status"] == "done" and r["file"] == "report.html" and r["command"][2:10] == ["--label", "a", "--group", "a-1.json,a-2.json", "--label", "b", "--group", "b-1.json,b-2.json"] and "compare.json" in r["command"]', 'r')
html = open(os.path.join(v["dir"], "report.html")).read()
t("report.html is a page", '"<html" in html[:2000].lower() and "</html>" in html[-200:].lower()')
EOF
check "the comparison table is printed" grep -q "b against a" "$T/ab.out"

# --- SIGINT during the second run, then --resume ------------------------------
experiment int "-a 1 -D 1s -q"
rm -f "$T/done"
$defsig "$JL" experiment "$T/int.ini" -o "$T/int" >"$T/int.out" 2>"$T/int.err" &
pid=$!
(
    k=0
    while [ $k -lt 600 ] && [ ! -e "$T/done" ]; do sleep 0.1; k=$((k + 1)); done
    [ -e "$T/done" ] || kill -KILL "$pid" 2>/dev/null
) &
wd=$!
k=0
while [ ! -e "$T/int.before-b-1" ] && [ $k -lt 600 ]; do sleep 0.05; k=$((k + 1)); done
sleep 0.5 # b-1 measures for 1 s after its before
kill -INT "$pid"
wait "$pid"
rc=$?
touch "$T/done"
wait "$wd"
if [ "$rc" -eq 0 ]; then ok "SIGINT: exit status 0"; else not_ok "SIGINT: exit status 0" "exit status $rc" "$(tail -3 "$T/int.err")"; fi
check "SIGINT: the finished run stays" test -f "$T/int/a-1.json"
check "SIGINT: the interrupted run has no file" test ! -e "$T/int/b-1.json"
check "SIGINT: and no .part" test ! -e "$T/int/.b-1.json.part"
check "SIGINT: the interrupted run's after ran" test -e "$T/int.after-b-1"
check "SIGINT: nothing ran after it" test ! -e "$T/int.before-a-2"
check "SIGINT: says how to continue" grep -q "jitterlab experiment --resume $T/int" "$T/int.out"
check "SIGINT: names the interrupted run" grep -q "b-1: interrupted" "$T/int.err"
pyt "$T/int/experiment.json" <<'EOF'
t("SIGINT: experiment.json says interrupted", 'd["interrupted"] is True and d["sessions"][0]["interrupted"] is True')
t("SIGINT: a-1 done, b-1 interrupted, a-2 and b-2 not run", '[r["status"] for r in d["runs"]] == ["done", "interrupted", "not-run", "not-run"]', '[r["status"] for r in d["runs"]]')
t("SIGINT: why b-1 has no file", 'd["runs"][1]["file"] is None and "interrupted" in d["runs"][1]["why"] and d["runs"][1]["after"]["exit_status"] == 0', 'd["runs"][1]')
t("SIGINT: compare and report wait for --resume", 'd["compare"]["status"] == "not-run" and "--resume" in d["compare"]["why"] and d["report"]["status"] == "not-run"', '(d["compare"], d["report"])')
EOF
cp "$T/int/experiment.json" "$T/int.first.json"
"$JL" experiment --resume "$T/int" >"$T/resume.out" 2>"$T/err"
rc_is "--resume exits 0" 0 $?
check "--resume makes only what is missing" test "$(grep -c '^\[[0-9]/4\]' "$T/resume.out")" = 3
check "--resume: every run's file is there" test -f "$T/int/a-1.json" -a -f "$T/int/b-1.json" -a -f "$T/int/a-2.json" -a -f "$T/int/b-2.json"
pyt "$T/int/experiment.json" first="$T/int.first.json" <<'EOF'
first = json.load(open(v["first"]))
t("--resume: every run done", '[r["status"] for r in d["runs"]] == ["done"] * 4 and d["interrupted"] is False', '[r["status"] for r in d["runs"]]')
t("--resume: the finished run's entry is kept as it was", 'd["runs"][0] == first["runs"][0]', '(d["runs"][0], first["runs"][0])')
t("--resume: two sessions, the second a resume", 'len(d["sessions"]) == 2 and d["sessions"][0] == first["sessions"][0] and d["sessions"][1]["resume"] is True and d["sessions"][1]["runs_made"] == 3', 'd["sessions"]')
h = d["history"]
t("--resume: the history keeps the interrupted attempt, then b-1 a-2 b-2 in order", '[(x["step"], x["repeat"], x["status"], x["session"]) for x in h] == [("a", 1, "done", 1), ("b", 1, "interrupted", 1), ("b", 1, "done", 2), ("a", 2, "done", 2), ("b", 2, "done", 2)]', '[(x["step"], x["repeat"], x["status"], x["session"]) for x in h]')
t("--resume: start times increase in history order", 'all(a["started_at"] < b["started_at"] for a, b in zip(h, h[1:]))')
t("--resume: compare.json and report.html written", 'd["compare"]["status"] == "done" and d["report"]["status"] == "done"', '(d["compare"], d["report"])')
EOF
check "--resume: compare.json exists" test -f "$T/int/compare.json"
check "--resume: report.html exists" test -f "$T/int/report.html"

# --- --resume makes again a result that is not a finished run's ---------------
: >"$T/int/a-2.json"
"$JL" experiment --resume "$T/int" >"$T/resume2.out" 2>"$T/err"
rc_is "--resume over an empty result: exits 0" 0 $?
check "--resume over an empty result: says it makes the run again" grep -q "^jitterlab: experiment: $T/int/a-2.json: not a finished run's result" "$T/err"
check "--resume over an empty result: makes that run only" test "$(grep -c '^\[[0-9]/4\] a-2: ' "$T/resume2.out")" = 1 -a "$(grep -c '^\[[0-9]/4\]' "$T/resume2.out")" = 1
pyt "$T/int/a-2.json" <<'EOF'
t("--resume over an empty result: a-2.json is a finished run again", 'd["kind"] == "run" and d["interrupted"] is False')
EOF
pyt "$T/int/experiment.json" <<'EOF'
t("--resume over an empty result: compare and report written", 'd["compare"]["status"] == "done" and d["report"]["status"] == "done" and [r["status"] for r in d["runs"]] == ["done"] * 4', '(d["compare"], d["runs"])')
EOF

# --- a run stopped by its time limit fails ------------------------------------
# (the limit, 120 s past the run's duration, shortened for the test)
REPEAT=1 experiment lim "-a 1 -D 5s -q"
JITTERLAB_EXPERIMENT_RUN_LIMIT_MS=300 "$JL" experiment "$T/lim.ini" -o "$T/lim" >"$T/lim.out" 2>"$T/err"
rc_is "a run stopped at its time limit: exit 1" 1 $?
check "a run stopped at its time limit: says so" grep -q "^jitterlab: experiment: b-1: stopped at its time limit of 300 ms" "$T/err"
pyt "$T/lim/experiment.json" <<'EOF'
t("time limit: the runs failed, not interrupted, and have no file", '[(r["status"], r["file"]) for r in d["runs"]] == [("failed", None)] * 2 and d["interrupted"] is False', 'd["runs"]')
t("time limit: why names the limit", 'all("time limit" in r["why"] for r in d["runs"])', '[r["why"] for r in d["runs"]]')
EOF

# --- bad experiment files -----------------------------------------------------
# badfile NAME LINE WANT(ERE) < FILE: exit 2, WANT on stderr naming FILE:LINE,
# no directory (neither -o nor the default one) and nothing ran.
badfile() {
    cat >"$T/$1.ini"
    "$JL" experiment "$T/$1.ini" -o "$T/$1.dir" >"$T/$1.out" 2>"$T/$1.err"
    rc=$?
    if [ "$rc" -eq 2 ]; then ok "$1: exits 2"; else not_ok "$1: exits 2" "exit status $rc" "$(head -3 "$T/$1.err")"; fi
    if grep -Eq -e "^jitterlab: $T/$1.ini:$2: $3" "$T/$1.err"; then ok "$1: names line $2"; else not_ok "$1: names line $2" "stderr: $(head -3 "$T/$1.err")"; fi
    "$JL" experiment "$T/$1.ini" >/dev/null 2>&1
    left=$(ls -A "$W")
    if [ ! -e "$T/$1.dir" ] && [ -z "$left" ]; then ok "$1: no directory created"; else not_ok "$1: no directory created" "$left"; fi
    if [ ! -e "$T/$1.ran" ]; then ok "$1: nothing ran"; else not_ok "$1: nothing ran"; fi
}
badfile unknown-key 4 '\[experiment\] repeats: unknown key' <<EOF
[experiment]
name = bad
; a comment
repeats = 2
[step a]
run = -a 1 -D 1s
before = touch $T/unknown-key.ran
[step b]
run = -a 1 -D 1s
EOF
badfile missing-run 6 '\[step b\]: run is required' <<EOF
[experiment]
name = bad
[step a]
run = -a 1 -D 1s
before = touch $T/missing-run.ran
[step b]
load = cpu@0
EOF
badfile bad-option 8 '\[step b\] run: not accepted by jitterlab run' <<EOF
[experiment]
name = bad
[step a]
run = -a 1 -D 1s
before = touch $T/bad-option.ran

[step b]
run = -a 1 -D 1s --bogus
EOF
check "bad-option: run's own message comes first" grep -q "unknown option '--bogus'" "$T/bad-option.err"
badfile duplicate-step 7 '\[step a\]: a second step of that name \(the first is at line 3\)' <<EOF
[experiment]
name = bad
[step a]
run = -a 1 -D 1s
before = touch $T/duplicate-step.ran
[step b]
[step a]
run = -a 1 -D 1s
EOF
badfile json-in-run 7 '\[step b\] run: --json is the experiment' <<EOF
[experiment]
name = bad
[step a]
run = -a 1 -D 1s
before = touch $T/json-in-run.ran
[step b]
run = -a 1 -D 1s --json x.json
EOF
badfile dash-step 3 '\[step -h\]: a step name is 1 to 64 letters.*starting with a letter or digit' <<EOF
[experiment]
name = bad
[step -h]
run = -a 1 -D 1s
before = touch $T/dash-step.ran
EOF
# badsteps NAME LINE WANT A_WORDS [B_LINE]: badfile of two steps, a's run
# "-a 1 A_WORDS" on line 4, b's on line 7, B_LINE on line 8.
badsteps() {
    printf '[experiment]\nname = bad\n[step a]\nrun = -a 1 %s\nbefore = touch %s\n[step b]\nrun = -a 1 -D 1s\n%s\n' \
        "$4" "$T/$1.ran" "${5:-}" | badfile "$1" "$2" "$3"
}
for out in "--samples s.csv" "--histogram-file h.txt" "--intervals i.csv"; do
    badsteps "per-run${out%% *}" 4 "\[step a\] run: ${out%% *} would be written over by every run; save = [a-z]* writes one per run" "-D 1s --report-every 250ms $out"
done
badsteps intervals-alone 7 '\[step b\] run: save = intervals needs --report-every' "-D 1s" "save = intervals"
badsteps forever 4 '\[step a\] run: --forever \(or -D 0\) runs until stopped; a step.s run needs an end' --forever
badsteps D0 4 '\[step a\] run: --forever \(or -D 0\) runs until stopped; a step.s run needs an end' "-D 0"

mkdir "$T/exists"
experiment ex "-a 1 -D 1s -q"
"$JL" experiment "$T/ex.ini" -o "$T/exists" >"$T/exists.out" 2>"$T/err"
rc_is "an existing -o directory: exits 2" 2 $?
check "an existing -o directory: says it exists" grep -q "^jitterlab: --output $T/exists: exists" "$T/err"
check "an existing -o directory: left empty" test -z "$(ls -A "$T/exists")"
check "an existing -o directory: nothing ran" test ! -e "$T/ex.before-a-1"

# --- the examples -------------------------------------------------------------
for f in "$JL_TOP"/examples/*.ini; do
    b=$(basename "$f")
    "$JL" experiment --dry-run "$f" >"$T/dry.out" 2>"$T/err"
    rc=$?
    if [ "$rc" -eq 0 ]; then ok "examples/$b: --dry-run exits 0"; else not_ok "examples/$b: --dry-run exits 0" "exit status $rc" "$(head -3 "$T/err")"; fi
    planned=$(sed -n 's/.* = \([0-9]*\) runs,.*/\1/p' "$T/dry.out")
    lines=$(grep -c ' run -a 1 ' "$T/dry.out")
    if [ -n "$planned" ] && [ "$lines" = "$planned" ]; then ok "examples/$b: $planned runs, each on CPU 1"; else not_ok "examples/$b: every run on CPU 1" "planned '$planned', lines $lines"; fi
done
left=$(ls -A "$W")
if [ -z "$left" ]; then ok "--dry-run creates no directory"; else not_ok "--dry-run creates no directory" "$left"; fi
