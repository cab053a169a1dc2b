#!/bin/sh
# Benchmark: where the measuring loop's own time goes, section by section,
# for the builds of `make loop-probes` (the product and loop variants with
# the in-loop TSC probe of src/engine/loop_probe.h). Not a test.
#
#   bench/loop-probe.sh [-c CPU] [-i US] [-R ROUNDS] [-r SECONDS] [-v 'N N ...']
#
#   -c CPU      the measured CPU (default 1; CPU 0 stays for housekeeping)
#   -i US       interval in microseconds (default 1000)
#   -R ROUNDS   rounds; each runs every build once, in turn (default 8)
#   -r SECONDS  length of one run (default 2)
#   -v 'N ...'  the builds, build/probe-N (default '0 3 4 5 7'; 0: the product)
#
# A section's figure is its mean over the run's cycles up to the 99th
# percentile (a section an interrupt or a VM stall lands in is not the
# loop's cost), and each build's figure the median over the rounds, with
# its quartiles. "own" is the sum of the three sections after the wake-up
# clock read: what the loop does that a minimal loop (cyclictest's) reads
# the clock for too is "wake-clock"; the rest is the loop's own work.
# "vs 0" is the median over the rounds of own(N) - own(0), paired by round
# so that the VM's drift from round to round cancels.
# Needs root (SCHED_FIFO, mlockall) and an x86 TSC.
set -eu
cpu=1 iv=1000 rounds=8 secs=2 variants="0 3 4 5 7"
top=$(cd "$(dirname "$0")/.." && pwd)
while getopts c:i:R:r:v: opt; do
    case $opt in
    c) cpu=$OPTARG ;;
    i) iv=$OPTARG ;;
    R) rounds=$OPTARG ;;
    r) secs=$OPTARG ;;
    v) variants=$OPTARG ;;
    *) sed -n '6,12p' "$0" >&2; exit 2 ;;
    esac
done
for v in $variants; do
    [ -x "$top/build/probe-$v/jitterlab" ] || { echo "build first: make loop-probes" >&2; exit 1; }
done
exec python3 - "$top" "$cpu" "$iv" "$rounds" "$secs" $variants <<'PY'
import statistics as st, subprocess, sys

top, cpu, iv, rounds, secs = sys.argv[1:6]
variants = sys.argv[6:]
SECTIONS = ("wake-clock", "to-record", "record", "to-sleep")
res = {v: [] for v in variants}
for r in range(int(rounds)):
    # the order turns from round to round: none always runs first
    order = variants[r % len(variants):] + variants[:r % len(variants)]
    for v in order:
        p = subprocess.run(["%s/build/probe-%s/jitterlab" % (top, v), "run", "-a", cpu, "-p", "90",
                            "-i", iv, "-D", secs, "-q", "--pm-qos", "0"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            sys.exit("probe-%s failed (%d):\n%s" % (v, p.returncode, p.stderr))
        got = {}
        for line in p.stderr.splitlines():
            f = line.split()
            if f[:1] == ["loop-probe"]:
                got[f[3]] = float(f[f.index("mean99_ns") + 1])
        if set(got) != set(SECTIONS):
            sys.exit("probe-%s printed no probe: was it built by make loop-probes?" % v)
        got["own"] = got["to-record"] + got["record"] + got["to-sleep"]
        res[v].append(got)

def spread(xs):
    xs = sorted(xs)
    n = len(xs)
    return "%6.0f [%4.0f..%4.0f]" % (st.median(xs), xs[n // 4], xs[(3 * n) // 4])

print("interval %s us, %s rounds of %s s; ns per cycle, median over rounds [quartiles]" % (iv, rounds, secs))
print("%-8s" % "build" + "".join("%-19s" % s for s in SECTIONS + ("own",)) + "own vs 0")
for v in variants:
    row = "probe-%-2s" % v + "".join("%-19s" % spread(x[s] for x in res[v]) for s in SECTIONS + ("own",))
    if "0" in res and v != "0":
        row += spread(a["own"] - b["own"] for a, b in zip(res[v], res["0"]))
    print(row)
PY
