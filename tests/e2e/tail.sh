#!/bin/sh
# runs beside others
# jitterlab tail end to end on synthetic run documents (helpers/mkrun.py:
# a generalized Pareto tail, a trend, report windows as intervals[] or
# telemetry[], the matching samples file): the tail document holds every
# member of the schema with values of the right kinds, the text says what
# the document says, the samples file makes the fit exact and runs the
# clustering and split-half checks, a trend cannot be estimated and says
# so, several results merge per CPU, and every bad input exits 2 with its
# message and no output file. Paths with control bytes are printed safely.
. "$(dirname "$0")/lib.sh"

MK="python3 $JL_TOP/tests/e2e/helpers/mkrun.py"
D=$T/docs
mkdir "$D"
{
    echo "$D/gpd.json --cpus 1,2 --n 20000 --seed 3 --windows 40 --gpd 0.02:0.1:20000 --budget 200000"
    echo "$D/gpd2.json --cpus 1,2 --n 20000 --seed 4 --windows 40 --gpd 0.02:0.1:20000"
    echo "$D/tele.json --cpus 1 --n 20000 --seed 5 --windows 40 --window-kind telemetry --gpd 0.02:0.1:20000"
    echo "$D/exact.json --cpus 1 --n 100000 --seed 6 --windows 50 --gpd 0.02:0.1:20000 --samples-csv $D/exact.csv"
    echo "$D/trend.json --cpus 1 --n 20000 --seed 7 --windows 40 --trend 3"
    echo "$D/onewin.json --cpus 1 --n 2000 --seed 8 --windows 1"
    echo "$D/nowin.json --cpus 1 --n 2000 --seed 9"
    echo "$D/equal.json --cpus 1 --n 2000 --sigma 0 --windows 4"
    echo "$D/slow.json --cpus 1,2 --n 2000 --seed 10 --windows 4 --interval 2000000"
} | $MK --batch

"$JL" tail "$D/gpd.json" --json "$T/t.json" >"$T/out" 2>"$T/err"
rc_is "two CPUs with a GPD tail: exit 0" 0 $?
pyt "$T/t.json" text="$T/out" <<'PY'
t("header: tool, schema 1, kind tail, argv, started_at", 'd["tool"] == "jitterlab" and d["schema"] == 1 and d["kind"] == "tail" and d["argv"][:2] == ["jitterlab", "tail"] and isinstance(d["started_at"], str) and isinstance(d["version"], str)', 'd.get("kind")')
t("inputs: the result's path", 'len(d["inputs"]) == 1 and d["inputs"][0].endswith("/gpd.json")', 'd["inputs"]')
t("object: confidence, probabilities, budget (the result's), threshold, interval, samples_file", 'd["confidence"] == 0.95 and d["probabilities"] == [1e-6, 1e-9, 1e-12] and d["budget_ns"] == 200000 and d["threshold_ns"] is None and d["interval_ns"] == 1000000 and d["samples_file"] is None', '[d.get(k) for k in ("confidence", "probabilities", "budget_ns", "threshold_ns", "interval_ns", "samples_file")]')
t("one entry per CPU and all", '[e["cpu"] for e in d["cpus"]] == [1, 2] and d["all"]["cpu"] == "all"', '[e["cpu"] for e in d["cpus"]]')
num = (int, float)
def vi(x):  # {value, ci: [lo|null, hi|null]}
    return isinstance(x, dict) and isinstance(x["value"], num) and len(x["ci"]) == 2 and all(b is None or isinstance(b, num) for b in x["ci"])
def vi_or_null(x):
    return x is None or vi(x)
members = ["cpu", "verdict", "reason", "advice", "data", "samples", "threshold_ns", "threshold_rule", "exceedances", "fitted", "exceedance_rate", "shape", "scale", "ci_method", "confidence", "shape_meaning", "upper_endpoint_ns", "estimates", "budget_exceedance", "empirical_max_ns", "more_hours_1e-9", "gev", "extremal_index", "checks", "ladder", "curve"]
names = ["goodness-of-fit", "ljung-box", "mann-kendall", "extremal-index", "split-half", "gev-agreement"]
for e in d["cpus"] + [d["all"]]:
    w = "entry %s: " % e["cpu"]
    check(w + "every member of the schema", all(k in e for k in members), [k for k in members if k not in e])
    check(w + "verdict and its reason", (e["verdict"] == "estimate" and e["reason"] is None) or (e["verdict"] == "cannot-estimate" and isinstance(e["reason"], str) and isinstance(e["advice"], str)), e["verdict"])
    check(w + "data histogram, samples 20000 per CPU", e["data"] == "histogram" and e["samples"] == (40000 if e["cpu"] == "all" else 20000), e["samples"])
    check(w + "threshold, its rule, exceedances", isinstance(e["threshold_ns"], int) and e["threshold_rule"] == "ladder" and isinstance(e["exceedances"], int) and 0 < e["fitted"] <= e["exceedances"] <= e["samples"] and 0 < e["exceedance_rate"] < 1, [e["threshold_ns"], e["exceedances"], e["fitted"]])
    check(w + "shape and scale with intervals", vi_or_null(e["shape"]) and vi_or_null(e["scale"]) and e["ci_method"] == "profile-likelihood" and e["confidence"] == 0.95, [e["shape"], e["scale"]])
    check(w + "estimates at the three probabilities", [x["probability"] for x in e["estimates"]] == [1e-6, 1e-9, 1e-12] and all((x["latency_ns"] is None or isinstance(x["latency_ns"], num)) and len(x["ci"]) == 2 for x in e["estimates"]), e["estimates"])
    b = e["budget_exceedance"]
    check(w + "budget exceedance per cycle, hour, year", b["budget_ns"] == 200000 and all(b[k] is None or 0 <= b[k] <= 1 for k in ("per_cycle", "per_hour", "per_year")) and len(b["ci"]) == 2, b)
    check(w + "empirical max, more hours", isinstance(e["empirical_max_ns"], num) and (e["more_hours_1e-9"] is None or isinstance(e["more_hours_1e-9"], num)), [e["empirical_max_ns"], e["more_hours_1e-9"]])
    g = e["gev"]
    check(w + "GEV on the 40 windows", g is None or (g["blocks"] == 40 and all(vi_or_null(g[k]) for k in ("shape", "location", "scale", "level_1e-9"))), g)
    check(w + "no extremal index without the samples", e["extremal_index"] is None, e["extremal_index"])
    check(w + "the six checks in order, passed true/false/null with why", [c["name"] for c in e["checks"]] == names and all(c["passed"] in (True, False, None) and isinstance(c["why"], str) and isinstance(c["method"], str) and isinstance(c["level"], num) for c in e["checks"]), e["checks"])
    check(w + "split-half and extremal index did not run (no samples file)", all(c["passed"] is None for c in e["checks"] if c["name"] in ("extremal-index", "split-half")), e["checks"])
    check(w + "ladder and curve", all(isinstance(r["threshold_ns"], int) and vi_or_null(r["shape"]) for r in e["ladder"]) and all(isinstance(c["probability"], num) and len(c["ci"]) == 2 for c in e["curve"]), e["ladder"][:2])
text = open(v["text"]).read()
blocks = text.split("\n\n")[1:]
check("text: one block per entry, in order", [b.split(":")[0] for b in blocks] == ["CPU 1", "CPU 2", "all CPUs"], [b[:20] for b in blocks])
for e, b in zip(d["cpus"] + [d["all"]], blocks):
    w = "text of entry %s: " % e["cpu"]
    check(w + "samples as in the document", ("%d samples" % e["samples"]) in b, b[:80])
    check(w + "the verdict as in the document", ("cannot estimate: " + e["reason"] in b) if e["reason"] else ("  estimate\n" in b), b[:200])
    check(w + "every check's why as in the document", all(c["why"] in b for c in e["checks"]), [c["why"] for c in e["checks"] if c["why"] not in b])
    check(w + "a row per probability when an estimate", e["verdict"] != "estimate" or all(re.search(r"^  %-22.3g \|" % x["probability"], b, re.M) for x in e["estimates"]), b)
PY

# -q prints nothing; the document is the same without text
"$JL" tail -q "$D/gpd.json" --json "$T/q.json" >"$T/out" 2>"$T/err"
rc_is "-q: exit 0" 0 $?
check "-q: nothing printed" test ! -s "$T/out" -a ! -s "$T/err"

# options land in the document; -a picks one CPU (no all entry)
"$JL" tail "$D/gpd.json" -a 2 --budget 1ms --probability 1e-4 --probability 1e-7 --confidence 0.9 \
    --threshold 80us --json "$T/o.json" >"$T/out" 2>"$T/err"
rc_is "options: exit 0" 0 $?
pyt "$T/o.json" <<'PY'
t("-a 2: one entry, no all", '[e["cpu"] for e in d["cpus"]] == [2] and d["all"] is None')
t("--probability twice: the estimates", 'd["probabilities"] == [1e-4, 1e-7] and [x["probability"] for x in d["cpus"][0]["estimates"]] == [1e-4, 1e-7]')
t("--budget 1ms over the result's", 'd["budget_ns"] == 1000000 and d["cpus"][0]["budget_exceedance"]["budget_ns"] == 1000000')
t("--confidence 0.9", 'd["confidence"] == 0.9 and d["cpus"][0]["confidence"] == 0.9')
t("--threshold 80us given (the entry's on a bucket edge within 1 %)", 'd["threshold_ns"] == 80000 and abs(d["cpus"][0]["threshold_ns"] - 80000) <= 800 and d["cpus"][0]["threshold_rule"] == "given"', 'd["cpus"][0]["threshold_ns"]')
PY

# two results of one loop merge per CPU; telemetry windows serve as well
"$JL" tail "$D/gpd.json" "$D/gpd2.json" --json "$T/m.json" >"$T/out" 2>"$T/err"
rc_is "two results merge: exit 0" 0 $?
pyt "$T/m.json" <<'PY'
t("merged: samples added per CPU, inputs both", '[e["samples"] for e in d["cpus"]] == [40000, 40000] and d["all"]["samples"] == 80000 and len(d["inputs"]) == 2')
t("merged: windows concatenated (80 blocks)", 'all(e["gev"] is None or e["gev"]["blocks"] == 80 for e in d["cpus"])', '[e["gev"] for e in d["cpus"]]')
PY
"$JL" tail "$D/tele.json" --json "$T/w.json" >"$T/out" 2>"$T/err"
rc_is "telemetry windows: exit 0" 0 $?
pyt "$T/w.json" <<'PY'
t("telemetry windows: the window checks ran", '[c["passed"] is not None for c in d["cpus"][0]["checks"] if c["name"] in ("ljung-box", "mann-kendall")] == [True, True]', 'd["cpus"][0]["checks"]')
PY

# the exact samples: data "samples", the clustering and split-half checks ran
"$JL" tail "$D/exact.json" --samples "$D/exact.csv" --json "$T/x.json" >"$T/out" 2>"$T/err"
rc_is "--samples: exit 0" 0 $?
pyt "$T/x.json" <<'PY'
e = d["cpus"][0]
t("--samples: fitted on the samples", 'd["samples_file"].endswith("/exact.csv") and d["cpus"][0]["data"] == "samples"')
t("--samples: the extremal index and split-half checks ran", '[c["passed"] is not None for c in d["cpus"][0]["checks"] if c["name"] in ("extremal-index", "split-half")] == [True, True]', 'd["cpus"][0]["checks"]')
t("--samples: the extremal index", 'd["cpus"][0]["extremal_index"] is not None and 0 < d["cpus"][0]["extremal_index"]["value"] <= 1', 'd["cpus"][0]["extremal_index"]')
PY

# a trend: cannot estimate, and the reason names it (exit 0: an answer)
"$JL" tail "$D/trend.json" --json "$T/tr.json" >"$T/out" 2>"$T/err"
rc_is "a trend: exit 0" 0 $?
pyt "$T/tr.json" text="$T/out" <<'PY'
e = d["cpus"][0]
t("a trend: cannot-estimate naming the trend", 'd["cpus"][0]["verdict"] == "cannot-estimate" and "trend" in d["cpus"][0]["reason"] and d["cpus"][0]["advice"]', 'd["cpus"][0]["reason"]')
t("a trend: mann-kendall failed", '[c["passed"] for c in d["cpus"][0]["checks"] if c["name"] == "mann-kendall"] == [False]')
t("a trend: no number the checks reject", 'all(x["latency_ns"] is None for x in d["cpus"][0]["estimates"])', 'd["cpus"][0]["estimates"]')
check("a trend: the text says cannot estimate and what to do", "cannot estimate: " + e["reason"] in open(v["text"]).read() and "what to do: " in open(v["text"]).read())
PY

# --- outputs that cannot be written: nothing analysed, no file ---------------
mkdir "$T/outdir"
BAD_SUBCOMMAND=tail
bad "--json a directory" "--json .*: is a directory" "$D/gpd.json" --json @DIR@
bad "--json in a missing directory" "--json .*/missing/t.json: " "$D/gpd.json" --json @DIR@/missing/t.json
"$JL" tail "$D/gpd.json" -q --json /dev/full >"$T/out" 2>"$T/err"
rc_is "--json /dev/full: exit 1 (a write that failed)" 1 $?
check "--json /dev/full: says so" grep -q -- "--json /dev/full: No space left on device" "$T/err"

# --- bad input: exit 2, the message, no file ------------------------------
cp "$T/t.json" "$D/tail-doc.json"
printf 'not json' >"$D/garbage.json"
/usr/bin/python3 - "$D" <<'PY'
import json, sys
D = sys.argv[1]
d = json.load(open(D + "/gpd.json"))
z = json.loads(json.dumps(d))
c = z["cpus"][1]
c["samples"] = 0
c["latency_ns"] = {k: None for k in c["latency_ns"]}
c["histogram"]["bins"] = []
z["all"]["samples"] = d["cpus"][0]["samples"]
z["all"]["histogram"] = d["cpus"][0]["histogram"]
z["intervals"] = [w for w in z["intervals"] if w["cpu"] == 1]
json.dump(z, open(D + "/zero.json", "w"))
o = json.loads(json.dumps(d))
o["intervals"][0], o["intervals"][2] = o["intervals"][2], o["intervals"][0]
json.dump(o, open(D + "/unordered.json", "w"))
n = json.loads(json.dumps(d))
del n["cpus"][0]["histogram"]
json.dump(n, open(D + "/nohist.json", "w"))
PY
bad "unreadable" "tail .*/none.json: " "$D/none.json" --json @OUT@
bad "not JSON" "tail .*/garbage.json: " "$D/garbage.json" --json @OUT@
bad "wrong kind" "tail .*/tail-doc.json: a tail document, not a run result" "$D/tail-doc.json" --json @OUT@
bad "no histogram" "tail .*/nohist.json: cpus\[0\]: histogram: missing" "$D/nohist.json" --json @OUT@
bad "a CPU with zero samples" "tail .*/zero.json: CPU 2: no samples" "$D/zero.json" --json @OUT@
bad "all samples equal" "tail .*/equal.json: CPU 1: all 2000 samples are equal \(60000 ns\): there is no tail to fit" "$D/equal.json" --json @OUT@
bad "one window" "tail .*/onewin.json: CPU 1: 1 report window with samples, fewer than 2: run longer or with --report-every" "$D/onewin.json" --json @OUT@
bad "no windows" "tail .*/nowin.json: CPU 1: 0 report windows with samples, fewer than 2: run longer or with --report-every" "$D/nowin.json" --json @OUT@
bad "windows out of time order" "tail .*/unordered.json: intervals\[2\]: not in time order for CPU 1" "$D/unordered.json" --json @OUT@
bad "mixed intervals" "tail .*/slow.json: interval 2 ms, and .*/gpd.json has 1 ms: merge results of one loop only" "$D/gpd.json" "$D/slow.json" --json @OUT@
bad "-a a CPU not in the result" "--cpus 5: CPU 5 is not in the result" "$D/gpd.json" -a 5 --json @OUT@
bad "--samples with two results" "--samples .*: belongs to one result, and 2 are given" "$D/gpd.json" "$D/gpd2.json" --samples "$D/exact.csv" --json @OUT@
bad "--samples missing" "--samples .*/none.csv: " "$D/exact.json" --samples "$D/none.csv" --json @OUT@
printf 'cpu,t,latency\n' >"$D/badhead.csv"
bad "--samples bad header" "--samples .*: line 1: not the header" "$D/exact.json" --samples "$D/badhead.csv" --json @OUT@
{ head -3 "$D/exact.csv"; echo "1,99999999999,-5"; } >"$D/badline.csv"
bad "--samples bad line" "--samples .*: line 4: latency_ns: negative" "$D/exact.json" --samples "$D/badline.csv" --json @OUT@
{ head -1 "$D/exact.csv"; echo "4,1000,1000"; } >"$D/foreign.csv"
bad "--samples a CPU not in the result" "--samples .*: line 2: CPU 4 is not a CPU of the result" "$D/exact.json" --samples "$D/foreign.csv" --json @OUT@
head -1000 "$D/exact.csv" >"$D/short.csv"
bad "--samples of another run" "--samples .*: CPU 1 has 999 rows, the result 100000 samples" "$D/exact.json" --samples "$D/short.csv" --json @OUT@
bad "--probability 2" "--probability 2: must be a probability above 0 and below 1" "$D/gpd.json" --probability 2 --json @OUT@

# --- hostile bytes in paths: printed in their escaped form ----------------
esc=$(printf '\033')
hp="$D/r${esc}[31m.json"
cp "$D/exact.json" "$hp"
cp "$D/exact.csv" "$D/s${esc}[2J.csv"
"$JL" tail "$D/missing${esc}[31m.json" >"$T/out" 2>"$T/err"
rc_is "hostile path, missing: exit 2" 2 $?
check "hostile path: stderr escapes the control byte" grep -q 'missing\\x1b\[31m.json' "$T/err"
check "hostile path: no raw escape on stderr" sh -c "! grep -q '$esc' '$T/err'"
"$JL" tail "$hp" --samples "$D/s${esc}[2J.csv" --json "$T/h.json" >"$T/out" 2>"$T/err"
rc_is "hostile paths, readable: exit 0" 0 $?
check "hostile paths: stdout names the samples file escaped" grep -q 's\\x1b\[2J.csv' "$T/out"
check "hostile paths: no raw escape on stdout" sh -c "! grep -q '$esc' '$T/out'"
pyt "$T/h.json" <<'PY'
t("hostile paths: the document keeps them in their text form", 'd["samples_file"].endswith("s\x1b[2J.csv") and d["inputs"][0].endswith("r\x1b[31m.json")', '[d["samples_file"], d["inputs"]]')
PY
