#!/bin/sh
# runs beside others
# jitterlab compare end to end. Synthetic run documents of known
# distributions (helpers/mkrun.py: log-normal latencies in the run's own
# histogram, seeded) give verdicts that must come out: the same distribution
# is no-difference, a 10% shift is worse (and better the other way), a
# change of the tail only makes the tail worse and leaves p50 alone, and
# --fail-if-worse turns a worse percentile into exit 3. Repeated runs
# (--group) are decided between runs. A zero baseline can be worse, no
# spread is no evidence, a percentile beyond the data is not compared, and
# the gate says how many comparisons it covered. Bad input exits 2, names
# the file or option and writes nothing. Two real short runs compare too.
. "$(dirname "$0")/lib.sh"

MK="python3 $JL_TOP/tests/e2e/helpers/mkrun.py"
D=$T/docs
mkdir "$D"
{
    for s in 1 2 3 4; do echo "$D/base$s.json --seed $s"; done
    echo "$D/slow.json --seed 11 --scale 1.1"
    echo "$D/fast.json --seed 12 --scale 0.909"
    echo "$D/tail.json --seed 13 --tail 0.005:5"
    for s in 1 2 3 4 5 6 7 8; do
        echo "$D/A-$s.json --seed $((20 + s)) --scale 1.0$s --n 5000"
        echo "$D/B-$s.json --seed $((30 + s)) --scale 1.0$((9 - s)) --n 5000"
        echo "$D/C-$s.json --seed $((40 + s)) --scale 1.5$s --n 5000"
    done
    echo "$D/missed0.json --seed 51 --n 50000"
    echo "$D/missed3000.json --seed 52 --n 50000 --missed 3000"
    echo "$D/p99a.json --seed 53 --n 2000"
    echo "$D/p99b.json --seed 54 --n 2000"
} | $MK --batch

# verdict FILE LABEL [CPU METRIC]: the verdict of LABEL (overall, or of one metric)
verdict() {
    python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = [x for x in d["comparisons"] if x["label"] == sys.argv[2]][0]
if len(sys.argv) == 3:
    print(c["verdict"])
else:
    e = [x for x in c["cpus"] if str(x["cpu"]) == sys.argv[3]][0]
    print([m for m in e["metrics"] if m["metric"] == sys.argv[4]][0]["verdict"])
PY
}

"$JL" compare "$D/base1.json" "$D/base2.json" "$D/slow.json" "$D/fast.json" "$D/tail.json" \
    --json "$T/c.json" >"$T/out" 2>"$T/err"
rc_is "compare of five documents exits 0" 0 $?
check "same distribution: no-difference" test "$(verdict "$T/c.json" base2)" = no-difference
check "10% slower: worse" test "$(verdict "$T/c.json" slow)" = worse
check "10% slower: p50 worse" test "$(verdict "$T/c.json" slow all p50)" = worse
check "10% faster: better" test "$(verdict "$T/c.json" fast)" = better
check "10% faster: p50 better" test "$(verdict "$T/c.json" fast all p50)" = better
check "tail only: worse" test "$(verdict "$T/c.json" tail)" = worse
check "tail only: p99.9 worse" test "$(verdict "$T/c.json" tail all p999)" = worse
check "tail only: exceedances of the baseline's p99.9 worse" test "$(verdict "$T/c.json" tail all exceed_p999)" = worse
check "tail only: p50 no-difference" test "$(verdict "$T/c.json" tail all p50)" = no-difference
check "per-CPU entries too" test "$(verdict "$T/c.json" slow 1 p50)" = worse
check "the text names the baseline" grep -q "baseline base1 (1 run)" "$T/out"
check "the text says the level every verdict was taken at" grep -Eq "each verdict is taken at" "$T/out"
check "the text labels the pooled rank test descriptive" grep -q "pooled rank test (descriptive" "$T/out"
check "the text warns that one run says nothing of the drift" grep -q "not the drift between runs" "$T/out"
pyt "$T/c.json" <<'PY'
t("kind compare, schema 1", 'd["tool"] == "jitterlab" and d["schema"] == 1 and d["kind"] == "compare"', '')
t("header: version, argv, started_at", 'd["version"] and d["argv"][:2] == ["jitterlab", "compare"] and d["started_at"].endswith("Z")', '')
t("labels from the file names", '[i["label"] for i in d["inputs"]] == ["base1", "base2", "slow", "fast", "tail"]', 'd["inputs"]')
t("baseline is the first", 'd["baseline"] == "base1" and len(d["comparisons"]) == 4', '')
ms = [m for c in d["comparisons"] for e in c["cpus"] for m in e["metrics"]]
t("every metric has its fields", 'all(set(m) >= {"metric", "unit", "baseline", "value", "ratio", "ci", "p_value", "test", "verdict"} for m in ms)', '')
t("ratios are value / baseline", 'all(m["ratio"] is None or abs(m["ratio"] * m["baseline"] - m["value"]) <= 1e-6 * max(1, m["value"]) for m in ms)', '')
t("intervals hold their ratio", 'all(m["ci"] is None or m["ci"][0] <= m["ratio"] * 1.000001 and m["ratio"] <= m["ci"][1] * 1.000001 for m in ms)', '[m for m in ms if m["ci"] and not (m["ci"][0] <= m["ratio"] <= m["ci"][1])][:3]')
t("CPU entries are 1 and all", 'all([e["cpu"] for e in c["cpus"]] == [1, "all"] for c in d["comparisons"])', '')
f = d["family"]
t("the family: Tarone's K, its level alpha / K", 'f["method"] == "tarone" and 1 <= f["tests"] <= f["candidates"] and abs(f["level"] - d["alpha"] / f["tests"]) < 1e-12', 'f')
t("every entry decided at the family's level", 'all(abs(e["metric_alpha"] - f["level"]) < 1e-12 for c in d["comparisons"] for e in c["cpus"])', '')
t("one CPU a run: its entry is the all entry, tested once", 'all(c["cpus"][0].get("same_as") == "all" for c in d["comparisons"])', '')
t("p values also as log10", 'all(m["p_value"] is None or m["log10_p"] is not None for m in ms)', '')
t("p99.99 of 20000 values is not compared", 'all([m for m in e["metrics"] if m["metric"] == "p9999"][0]["verdict"] == "insufficient-data" for c in d["comparisons"] for e in c["cpus"])', '')
t("the rank test of a slower arm says B > A", '[c for c in d["comparisons"] if c["label"] == "slow"][0]["cpus"][1]["rank_test"]["p_greater"] > 0.6', '')
PY

"$JL" compare "$D/base1.json" "$D/slow.json" --fail-if-worse 5 -q 2>"$T/err"
rc_is "--fail-if-worse 5 with a 10% slower p50 exits 3" 3 $?
check "... and says why" grep -q "worse by more than --fail-if-worse 5%" "$T/err"
"$JL" compare "$D/base1.json" "$D/slow.json" --fail-if-worse 20 -q
rc_is "--fail-if-worse 20 exits 0" 0 $?
"$JL" compare "$D/base1.json" "$D/base2.json" --fail-if-worse 0 >"$T/out"
rc_is "--fail-if-worse 0 on the same distribution exits 0" 0 $?
check "the gate says how many comparisons it covered" grep -Eq "^--fail-if-worse 0%: 0 of the [0-9]+ percentile comparisons" "$T/out"

"$JL" compare "$D/missed0.json" "$D/missed3000.json" --fail-if-worse 10 --json "$T/z.json" >"$T/out" 2>"$T/err"
rc_is "0 -> 3000 missed periods: compare exits 0 (missed is no percentile)" 0 $?
check "0 -> 3000 missed periods: worse" test "$(verdict "$T/z.json" missed3000 all missed)" = worse
check "0 -> 3000 missed periods: the arm is worse" test "$(verdict "$T/z.json" missed3000)" = worse
check "the ratio over a zero baseline is unbounded" test "$(jget "$T/z.json" '[m for m in d["comparisons"][0]["cpus"][-1]["metrics"] if m["metric"] == "missed"][0].get("ratio_unbounded")')" = True
check "the table prints it as inf" grep -Eq "missed .* inf " "$T/out"

# two runs a side whose p99 coincide within each arm, one bucket apart
# (106496..107007 and 107008..107519): no spread is no evidence
for f in p99a p99b; do
    for r in 1 2; do
        python3 - "$D/$f.json" "$D/$f-$r.json" "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = 106751 if sys.argv[3] == "p99a" else 107263
for e in d["cpus"] + [d["all"]]:
    e["latency_ns"]["p99"] = v
json.dump(d, open(sys.argv[2], "w"))
PY
    done
done
"$JL" compare --group "$D/p99a-1.json,$D/p99a-2.json" --group "$D/p99b-1.json,$D/p99b-2.json" \
    --fail-if-worse 0 --json "$T/s.json" >"$T/out" 2>"$T/err"
rc_is "one bucket apart without spread, two runs a side: not worse (exit 0)" 0 $?
check "... p99 insufficient data: too few runs" test "$(verdict "$T/s.json" p99b all p99)" = insufficient-data
check "... and the table says why" grep -q "too few runs" "$T/out"

# 32 CPUs, both arms from one distribution: the gate covers them all
$MK "$D/wide1.json" --seed 61 --n 2000 --cpus "$(seq -s, 0 31)"
$MK "$D/wide2.json" --seed 62 --n 2000 --cpus "$(seq -s, 0 31)"
"$JL" compare "$D/wide1.json" "$D/wide2.json" --fail-if-worse 0 --json "$T/w.json" >"$T/out" 2>"$T/err"
rc_is "32 CPUs of one distribution: --fail-if-worse 0 exits 0" 0 $?
check "... the family spans every CPU entry" test "$(jget "$T/w.json" 'd["family"]["candidates"] > 33 * 3')" = True

"$JL" compare --group "$D/A-1.json,$D/A-2.json,$D/A-3.json" --group "$D/B-1.json,$D/B-2.json,$D/B-3.json" \
    --group "$D/C-1.json,$D/C-2.json,$D/C-3.json" --json "$T/g3.json" >"$T/out" 2>"$T/err"
rc_is "compare --group of three runs exits 0" 0 $?
check "three runs a side: the permutation test cannot reach the level" test "$(verdict "$T/g3.json" C all p50)" = insufficient-data
GA=$(echo "$D"/A-?.json | tr ' ' ,) GB=$(echo "$D"/B-?.json | tr ' ' ,) GC=$(echo "$D"/C-?.json | tr ' ' ,)
"$JL" compare --group "$GA" --group "$GB" --group "$GC" --json "$T/g.json" >"$T/out" 2>"$T/err"
rc_is "compare --group exits 0" 0 $?
check "group labels from the first file without -N" test "$(jget "$T/g.json" '[i["label"] for i in d["inputs"]]')" = "['A', 'B', 'C']"
check "runs up to 8% apart, interleaved: no-difference between runs" test "$(verdict "$T/g.json" B)" = no-difference
check "runs 50% slower: worse between runs" test "$(verdict "$T/g.json" C)" = worse
check "p50 of the interleaved arms: no-difference" test "$(verdict "$T/g.json" B all p50)" = no-difference
pyt "$T/g.json" <<'PY'
t("between_runs is set", 'all(c["between_runs"] for c in d["comparisons"])', '')
p50 = [m for m in d["comparisons"][0]["cpus"][1]["metrics"] if m["metric"] == "p50"][0]
t("p50 decided between runs", 'p50["test"] == "permutation"', 'p50')
t("inputs list 8 runs each", 'all(i["runs"] == 8 for i in d["inputs"])', '')
PY
"$JL" compare --label base --label other "$D/base1.json" "$D/slow.json" --json "$T/l.json" -q
check "--label names the arms" test "$(jget "$T/l.json" '[i["label"] for i in d["inputs"]]')" = "['base', 'other']"
check "argv is the command line as typed (files among the options)" test "$(jget "$T/l.json" 'd["argv"][1:5] == ["compare", "--label", "base", "--label"] and d["argv"][-2:] == ["'"$T/l.json"'", "-q"]')" = True

# bad input: exit 2, the file or option named, nothing written
printf '{"tool": "jitterlab", "schema": 1, "kind": "run", "cpus": [' >"$D/truncated.json"
echo 'not json' >"$D/garbage.json"
echo '{"tool": "jitterlab", "schema": 1, "kind": "stat", "samples": []}' >"$D/stat.json"
echo '{"tool": "cyclictest", "schema": 1, "kind": "run"}' >"$D/foreign.json"
bad_compare() { # NAME WANT ARGS...
    name=$1 want=$2; shift 2
    rm -f "$T/bad.json"
    timeout -s KILL 10 "$JL" compare "$@" --json "$T/bad.json" >"$T/out" 2>"$T/err"
    rc=$?
    if [ $rc -eq 2 ] && grep -Eq -- "$want" "$T/err" && [ ! -e "$T/bad.json" ]; then ok "$name"; else not_ok "$name" "exit $rc" "$(cat "$T/err")"; fi
}
bad_compare "a missing file exits 2" "compare $D/nope.json: No such file" "$D/base1.json" "$D/nope.json"
mkfifo "$T/fifo.json"
bad_compare "a FIFO exits 2 at once, not waiting for a writer" "compare $T/fifo.json: not a regular file" "$D/base1.json" "$T/fifo.json"
bad_compare "a truncated file exits 2" "truncated.json: document: not JSON" "$D/base1.json" "$D/truncated.json"
bad_compare "a file that is not JSON exits 2" "garbage.json: document: not JSON" "$D/base1.json" "$D/garbage.json"
bad_compare "a stat document exits 2" "stat.json: a stat document, not a run result" "$D/base1.json" "$D/stat.json"
bad_compare "another tool's document exits 2" "foreign.json: tool: not \"jitterlab\"" "$D/base1.json" "$D/foreign.json"
bad_compare "one result exits 2" "needs two results" "$D/base1.json"
bad_compare "--alpha 0.7 exits 2" "--alpha 0.7: must be a number above 0 and below 0.5" --alpha 0.7 "$D/base1.json" "$D/base2.json"
bad_compare "--reps 10 exits 2" "--reps 10" --reps 10 "$D/base1.json" "$D/base2.json"
bad_compare "--group mixed with files exits 2" "--group: and file arguments cannot be mixed" --group "$D/A-1.json" "$D/base1.json"
bad_compare "a label twice exits 2" "--label x: given twice" --label x --label x "$D/base1.json" "$D/base2.json"
bad_compare "two arms of one name exit 2" "two results named base1" "$D/base1.json" "$D/base1.json"
mkdir "$T/dir"
"$JL" compare "$D/base1.json" "$D/base2.json" --json "$T/dir" >"$T/out" 2>"$T/err"
rc_is "--json naming a directory exits 2" 2 $?

# two real runs
if is_root; then
    flock /tmp/jitterlab-cpu1.lock sh -c "'$JL' run -a 1 -D 1s -q --workload spin:50us --json '$T/r1.json' && '$JL' run -a 1 -D 1s -q --workload spin:100us --json '$T/r2.json'"
    "$JL" compare "$T/r1.json" "$T/r2.json" --json "$T/r.json" >"$T/out" 2>"$T/err"
    rc_is "two real runs compare" 0 $?
    pyt "$T/r.json" <<'PY'
e = d["comparisons"][0]["cpus"][-1]
keys = [m["metric"] for m in e["metrics"]]
t("exec and response times compared", '"exec_p50" in keys and "response_p99" in keys', 'keys')
t("a 100 us workload against a 50 us one makes exec p50 worse", '[m for m in e["metrics"] if m["metric"] == "exec_p50"][0]["verdict"] == "worse"', 'e["metrics"]')
PY
else
    ok "two real runs # SKIP not root"
fi

# two real noise runs: noise compares with noise, not with runs
flock /tmp/jitterlab-cpu1.lock sh -c "timeout -s KILL 20 '$JL' noise -a 1 -D 1 -q --no-trace --report-every 250ms --json '$T/n1.json' && timeout -s KILL 20 '$JL' noise -a 1 -D 1 -q --no-trace --report-every 250ms --json '$T/n2.json'" >"$T/out" 2>"$T/err"
rc_is "two noise runs exit 0" 0 $?
"$JL" compare "$T/n1.json" "$T/n2.json" --json "$T/n.json" >"$T/n.out" 2>"$T/err"
rc_is "two noise results compare" 0 $?
pyt "$T/n.json" out="$T/n.out" <<'PY'
t("the document says noise was compared", 'd["kind"] == "compare" and d["input_kind"] == "noise"', 'd.get("input_kind")')
c = d["comparisons"][0]
t("a verdict of the comparison", 'c["verdict"] in ("better", "worse", "no-difference")', 'c["verdict"]')
t("CPU 1 and all compared", '[e["cpu"] for e in c["cpus"]] == [1, "all"]', '[e["cpu"] for e in c["cpus"]]')
e = c["cpus"][-1]
keys = [m["metric"] for m in e["metrics"]]
t("the noise metrics, and no run metrics", 'sorted(keys) == sorted(["noise_share", "gaps_per_s", "p50", "p99", "p9999", "max"])', 'keys')
m = {x["metric"]: x for x in e["metrics"]}
t("noise share by windows, gap rate by the rate test", 'm["noise_share"]["test"] in ("windows", "none") and m["gaps_per_s"]["test"] == "poisson"', '(m["noise_share"]["test"], m["gaps_per_s"]["test"])')
t("the noise share is a rate, gaps per second per_s", 'm["noise_share"]["unit"] == "rate" and 0 <= m["noise_share"]["baseline"] <= 1 and m["gaps_per_s"]["unit"] == "per_s"', 'm["noise_share"]')
t("every metric has a verdict", 'all(x["verdict"] in ("better", "worse", "no-difference", "n/a", "insufficient-data") for x in e["metrics"])', 'e["metrics"]')
t("the table names the noise share", '"noise share" in open(v["out"]).read()', '')
PY
bad_compare "a run against noise exits 2" "compare $T/n1.json: a noise result, and the baseline $D/base1.json is a run result" "$D/base1.json" "$T/n1.json"
bad_compare "noise against a run exits 2" "compare $D/base1.json: a run result, and the baseline $T/n1.json is a noise result" "$T/n1.json" "$D/base1.json"
