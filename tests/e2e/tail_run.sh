#!/bin/sh
# jitterlab tail on a real short run (20 s at 1 ms on CPU 1, its telemetry
# windows as the block maxima): the run's own result and samples file are
# taken as they are written, and the analysis answers (an estimate or a
# reasoned "cannot estimate"), fitted on the exact samples. Nothing here
# judges the latencies; the script runs alone because the run occupies CPU 1.
. "$(dirname "$0")/lib.sh"

"$JL" run -a 1 -i 1ms -D 20s -q --json "$T/r.json" --samples "$T/r.csv" >"$T/run.out" 2>"$T/err"
rc_is "a 20 s run: exit 0" 0 $?
"$JL" tail "$T/r.json" --json "$T/t.json" >"$T/out" 2>"$T/err"
rc_is "tail of the run: exit 0" 0 $?
"$JL" tail "$T/r.json" --samples "$T/r.csv" --json "$T/s.json" >"$T/out" 2>"$T/err"
rc_is "tail of the run with its samples file: exit 0" 0 $?
pyt "$T/s.json" h="$T/t.json" <<'PY'
h = json.load(open(v["h"]))
t("tail of the run: one CPU entry, kind tail", 'd["kind"] == "tail" and [e["cpu"] for e in d["cpus"]] == [1] and d["all"] is None')
t("with the samples file: fitted on the samples", 'd["cpus"][0]["data"] == "samples"')
check("without it: on the histogram", h["cpus"][0]["data"] == "histogram")
t("an answer: an estimate or a reason", 'all(e["verdict"] == "estimate" or e["reason"] for e in d["cpus"])', '[e["reason"] for e in d["cpus"]]')
PY
