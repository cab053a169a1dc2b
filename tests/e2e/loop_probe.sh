#!/bin/sh
# The loop's probe (src/engine/loop_probe.h, bench/loop-probe.sh), end to
# end: the build with the probe compiled in prints, once the loop ends, its
# four sections with one counted cycle per sleep that followed a recorded
# one (200 samples: 199 cycles), each mean, median and trimmed mean positive
# and no larger than the time the run took; the product prints none. Also
# the loop variants of the overhead experiment still compile (make
# loop-variants-syntax: -fsyntax-only with the build's flags). About 8 s.
. "$(dirname "$0")/lib.sh"
PROBE=$JL_BUILD/probe-check/jitterlab
cpu=0
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] && cpu=1

if [ ! -x "$PROBE" ]; then
    not_ok "the probe build exists" "no $PROBE: make tests builds it"
else
    ok "the probe build exists"
    "$PROBE" run -a $cpu -i 1000 -l 200 -q --json "$T/p.json" >"$T/p.out" 2>"$T/p.err"
    rc_is "probe build: run -l 200 exits 0" 0 $?
    python3 - "$T/p.err" "$T/p.json" >"$T/lines" <<'PY'
import json, sys
got = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[:1] == ["loop-probe"]:
        got[f[3]] = {f[i]: float(f[i + 1]) for i in range(4, len(f) - 1, 2)}
d = json.load(open(sys.argv[2]))
span_ns = d["duration_s"] * 1e9
def t(name, cond, why=""):
    print("%s\t%s\t%s" % ("ok" if cond else "fail", name, why))
names = ["wake-clock", "to-record", "record", "to-sleep"]
t("four sections, named", sorted(got) == sorted(names), str(sorted(got)))
t("199 cycles in each (one per sleep after a recorded cycle)",
  all(got.get(s, {}).get("cycles") == 199 for s in names), str({s: got.get(s, {}).get("cycles") for s in got}))
t("every figure positive and below the run's length",
  all(0 < got[s][k] < span_ns for s in got for k in ("mean_ns", "median_ns", "mean99_ns")), str(got))
t("the result itself is complete (200 samples)", d["all"]["samples"] == 200, str(d["all"]["samples"]))
PY
    tap_lines "$T/lines"
fi

"$JL" run -a $cpu -i 1000 -l 50 -q >"$T/q.out" 2>"$T/q.err"
rc_is "product: run -l 50 exits 0" 0 $?
if grep -q loop-probe "$T/q.err" "$T/q.out"; then
    not_ok "the product prints no probe" "$(grep loop-probe "$T/q.err" | head -2)"
else
    ok "the product prints no probe"
fi

# Every variant and the probe with each, with the build's own flags (the
# Makefile's): the bench builds must not rot.
if make -s --no-print-directory -C "$JL_TOP" BUILD="$JL_BUILD" loop-variants-syntax >"$T/cc.out" 2>&1; then
    ok "loop variants 0-7 compile, with and without the probe"
else
    not_ok "loop variants 0-7 compile, with and without the probe" "$(grep -m3 -E 'error|does not compile' "$T/cc.out")"
fi
