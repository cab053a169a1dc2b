#!/bin/sh
# Benchmark: how stable `jitterlab c2c` is from one run to the next, and
# what a pair costs. Not a test: runs c2c twice with the same options and
# prints, per ordered pair, the median one-way latency of each run and
# their ratio (second / first), the spread of those ratios, and the time per
# pair: the measurement's duration_s / pairs (rests, slices, sorting and
# starting a team per pair) and the wall time / pairs (with the process
# start and the 100 ms TSC calibration).
#
#   bench/c2c.sh [CPUS] [MODE] [ROUND_TRIPS] [ROUNDS]
#   (defaults: every online CPU, load-store, 10000, 3; JL=path/to/jitterlab
#   to measure another build)
#
# Needs root (SCHED_FIFO); run on a quiet machine.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
jl=${JL:-$top/build/jitterlab}
[ -x "$jl" ] || { echo "build first: make" >&2; exit 1; }
exec python3 - "$jl" "${1:-}" "${2:-load-store}" "${3:-10000}" "${4:-3}" <<'PY'
import json, os, subprocess, sys, tempfile, time

jl, cpus, mode, n, rounds = sys.argv[1:6]
tmp = tempfile.mkdtemp(prefix="jl-bench.")
cmd = [jl, "c2c", "--mode", mode, "-n", n, "--rounds", rounds, "-q"]
if cpus:
    cmd += ["-a", cpus]
print("command: %s --json FILE" % " ".join(cmd[1:]))


def run(k):
    path = os.path.join(tmp, "c2c-%d.json" % k)
    t0 = time.monotonic()
    p = subprocess.run(cmd + ["--json", path], capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr))
    return json.load(open(path)), wall


def spread(xs):
    xs = sorted(xs)
    if not xs:
        return "-"
    return "%.3f (%.3f .. %.3f)" % (xs[(len(xs) + 1) // 2 - 1], xs[0], xs[-1])

docs = [run(k) for k in (1, 2)]
print("clock %s, realtime %s" % (docs[0][0]["clock"], docs[0][0]["realtime"]))
print()
print("%5s %5s %-14s %10s %10s %8s %9s" % ("from", "to", "group", "run 1 ns", "run 2 ns",
                                            "ratio", "timeouts"))
ratios, by_group = [], {}
for a, b in zip(docs[0][0]["pairs"], docs[1][0]["pairs"]):
    ra = None
    if a["median_ns"] and b["median_ns"]:
        ra = b["median_ns"] / a["median_ns"]
        ratios.append(ra)
        by_group.setdefault(a["group"], []).append(ra)
    print("%5d %5d %-14s %10s %10s %8s %9s" % (
        a["from"], a["to"], a["group"], a["median_ns"], b["median_ns"],
        "%.3f" % ra if ra else "-", "%d+%d" % (a["timeouts"], b["timeouts"])))
print()
print("run-to-run ratio of the median one-way latency, median (min .. max) over %d pairs: %s"
      % (len(ratios), spread(ratios)))
for g, rs in by_group.items():
    print("  %-14s %s" % (g, spread(rs)))
for k, (d, wall) in enumerate(docs, 1):
    pairs = len(d["pairs"])
    print("run %d: %d pairs, measurement %.3f s = %.1f ms per pair, wall %.3f s = %.1f ms per pair"
          % (k, pairs, d["duration_s"], d["duration_s"] / pairs * 1e3, wall, wall / pairs * 1e3))
PY
