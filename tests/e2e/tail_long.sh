#!/bin/sh
# runs beside others
# The tail of a real minute: `run --tail` on CPU 1 for 60 s at 500 us
# (120 000 samples) with its samples file, then `jitterlab tail` on the
# result and that file, where the split-half check has the 50 000 samples
# per half it needs. Asserted only what holds on any machine, loaded or
# not: the checks ran (split-half with its statistic and p value, or the
# reason its first half could not be fitted; the extremal index from the
# sequence), the answer is an estimate with its
# intervals ordered or a refusal with a reason and advice, and the run's
# own tail (fitted on its samples file) agrees with the command's. It runs beside
# other scripts: nothing it asserts depends on the latencies measured.
. "$(dirname "$0")/lib.sh"

J=$T/r.json
timeout -s KILL 120 "$JL" run -a 1 -i 500us -D 60 -q --tail --samples "$T/r.csv" --json "$J" 2>"$T/err"
rc_is "a 60 s run with --tail: exit 0" 0 $?
"$JL" tail "$J" --json "$T/h.json" >"$T/h.out" 2>"$T/err"
rc_is "tail of it on the histogram: exit 0" 0 $?
"$JL" tail "$J" --samples "$T/r.csv" --json "$T/s.json" >"$T/s.out" 2>"$T/err"
rc_is "tail of it on its samples: exit 0" 0 $?
pyt "$T/s.json" h="$T/h.json" r="$J" <<'EOF'
h = json.load(open(v["h"]))
r = json.load(open(v["r"]))
e = d["cpus"][0]
c = {x["name"]: x for x in e["checks"]}
note("samples %d: %s %s" % (e["samples"], e["verdict"], e["reason"] or ""))
for x in e["checks"]:
    note("  %s: %s stat %s p %s (%s)" % (x["name"], x["passed"], x["statistic"], x["p_value"], x["why"]))
t("about 120 000 samples", 'e["samples"] >= 100000', 'e["samples"]')
sh = c["split-half"]
t("split-half ran, with its statistic and p value, or its first half could not be fitted and it says so",
  '(sh["passed"] is not None and sh["statistic"] is not None and 0 <= sh["p_value"] <= 1) or (sh["passed"] is None and "first half" in sh["why"])', 'sh')
t("the extremal index ran on the sequence", 'c["extremal-index"]["passed"] is not None and e["extremal_index"]["value"] > 0', 'c["extremal-index"]')
t("Mann-Kendall ran on the telemetry windows' maxima", 'c["mann-kendall"]["passed"] is not None', 'c["mann-kendall"]')
def sound(x):
    if x["verdict"] == "cannot-estimate":
        return bool(x["reason"]) and bool(x["advice"]) and all(q["latency_ns"] is None for q in x["estimates"])
    ok = [q for q in x["estimates"] if q["latency_ns"] is not None]
    return len(ok) == len(x["estimates"]) and all(
        (q["ci"][0] is None or q["ci"][0] <= q["latency_ns"]) and (q["ci"][1] is None or q["latency_ns"] <= q["ci"][1])
        for q in ok) and all(a["latency_ns"] <= b["latency_ns"] for a, b in zip(ok, ok[1:]))
t("on the samples: an estimate with ordered intervals, or a refusal with reason and advice", 'sound(e)', 'e')
t("on the histogram: the same", 'sound(h["cpus"][0])', 'h["cpus"][0]')
rt = r["tail"]["cpus"][0]
t("the run's own tail fitted its samples file", 'rt["data"] == "samples" and r["tail"]["samples_file"] is not None', '(rt["data"], r["tail"].get("samples_file"))')
t("and is the command's on the same samples",
  'rt["verdict"] == e["verdict"] and rt["threshold_ns"] == e["threshold_ns"] and rt["exceedances"] == e["exceedances"]',
  '(rt["verdict"], e["verdict"], rt["threshold_ns"], e["threshold_ns"])')
EOF
