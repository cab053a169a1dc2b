#!/bin/sh
# Benchmark: what telemetry costs a run, and what counting context switches
# costs each switch. Not a test: it prints ratios with/without.
#
#   bench/telemetry-overhead.sh [CPU] [ROUNDS] [ROUND_SECONDS]
#
# 1. `run` with its default telemetry against `run --no-telemetry`,
#    alternating paired rounds (bench/option-overhead.sh): p50 and CPU time
#    per cycle. The snapshot runs on the collector's housekeeping CPU once a
#    second; the measured CPU pays for the context-switch ring (a record per
#    switch, written by the kernel on that CPU).
# 2. That per-switch price on its own: `perf bench sched pipe` (two tasks
#    ping-ponging through a pipe, two context switches per operation) pinned
#    to CPU, alternately with and without `jitterlab stat -a CPU` holding the
#    context-switch ring of that CPU, SWITCH_ROUNDS rounds each; the median
#    of the per-round differences, per switch.
# Needs root and perf (linux-perf).
set -eu
cpu=${1:-1}
top=$(cd "$(dirname "$0")/.." && pwd)
jl=${JL:-$top/build/jitterlab}
WITH= WITHOUT=--no-telemetry "$top/bench/option-overhead.sh" "$@"
command -v perf >/dev/null || { echo "part 2 needs perf: apt-get install linux-perf" >&2; exit 1; }
exec python3 - "$jl" "$cpu" "${SWITCH_ROUNDS:-10}" <<'PY'
import re, subprocess, sys, time

jl, cpu, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
LOOPS = 50000

def pipe_us_per_op():
    out = subprocess.run(["taskset", "-c", cpu, "perf", "bench", "sched", "pipe", "-l",
                          str(LOOPS)], capture_output=True, text=True, check=True).stdout
    return float(re.search(r"([\d.]+) usecs/op", out).group(1))

diffs, base, held = [], [], []
for r in range(rounds):
    order = (False, True) if r % 2 == 0 else (True, False)
    got = {}
    for with_ring in order:
        stat = None
        if with_ring:
            stat = subprocess.Popen([jl, "stat", "-a", cpu, "-q", "-i", "1s", "-D", "60s"])
            time.sleep(0.5)  # the rings are open once the first snapshot is taken
        got[with_ring] = pipe_us_per_op()
        if stat:
            stat.terminate()
            stat.wait()
    base.append(got[False])
    held.append(got[True])
    diffs.append((got[True] - got[False]) / 2 * 1000)
    print("round %d pipe op: without %.3f us, with the switch ring %.3f us" %
          (r + 1, got[False], got[True]), flush=True)

med = lambda xs: sorted(xs)[len(xs) // 2]
print()
print("context switch, pipe ping-pong on CPU %s: %.3f us/op without, %.3f us/op with the ring "
      "(ratio %.3f)" % (cpu, med(base), med(held), med(held) / med(base)))
print("per switch: median %+.0f ns (min %+.0f .. max %+.0f ns over %d rounds)" %
      (med(diffs), min(diffs), max(diffs), rounds))
PY
