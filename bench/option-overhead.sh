#!/bin/sh
# Benchmark: what a run option costs. jitterlab runs "with" (WITH, extra
# options) and "without" (WITHOUT) on the same CPU, interval and priority
# (SCHED_FIFO 90, 1 ms, --pm-qos 0), alternating. Not a test: it prints
# the ratios with/without. bench/explain-overhead.sh and
# bench/telemetry-overhead.sh call it.
#
#   WITH="--explain" WITHOUT="" bench/option-overhead.sh [CPU] [ROUNDS] [ROUND_SECONDS]
#   (JL=path/to/jitterlab to measure another build, INTERVAL_US=500 for
#   another interval than 1000, COST_PAIRS=0 to leave out the CPU time)
#
# Latency: ROUNDS paired rounds of ROUND_SECONDS per mode, the order inside
# a pair swapped every round; every sample is read in ns (--samples), each
# mode's rounds are merged and the p50 ratio comes from the merged samples;
# the spread is given by the per-round (paired) p50 ratios: median,
# quartiles and range. (Rows of 1 us would cut a 20 us median into 5 %
# steps, wider than the costs measured here.)
# CPU time per cycle: user+system CPU time of a 2 s and a longer run of each
# mode; the slope (long - short) / (cycles long - cycles short) cancels the
# start-up cost (opening ~50 tracepoints per CPU, the 3 MiB event window).
# COST_PAIRS alternating pairs; the median slope per mode gives the ratio,
# the per-pair ratios give the spread. With --explain the CPU time includes
# the collector's reading and decoding of the trace buffers; the kernel's
# cost of writing the events lands on whatever task an event interrupts.
# With --explain it also prints the records per cycle of each tracepoint
# (the result's explain.events_by_tracepoint over the samples).
# Needs root (SCHED_FIFO, tracepoints); run on a quiet machine.
set -eu
cpu=${1:-1}
rounds=${2:-6}
round_s=${3:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
jl=${JL:-$top/build/jitterlab}
[ -x "$jl" ] || { echo "build first: make" >&2; exit 1; }
INTERVAL_US=${INTERVAL_US:-1000} COST_PAIRS=${COST_PAIRS:-3} exec python3 - "$jl" "$cpu" "$rounds" "$round_s" "${WITH---explain}" "${WITHOUT-}" <<'PY'
import json, os, subprocess, sys, tempfile

jl, cpu, rounds, round_s = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
opts = {True: sys.argv[5].split(), False: sys.argv[6].split()}
print("with: %s   without: %s" % (" ".join(opts[True]) or "(defaults)",
                                  " ".join(opts[False]) or "(defaults)"))
COST_PAIRS = int(os.environ["COST_PAIRS"])
INTERVAL_US = os.environ["INTERVAL_US"]
print("interval %s us" % INTERVAL_US)
tmp = tempfile.mkdtemp(prefix="jl-bench.")

def run(cmd):
    """Runs cmd; returns the child's CPU seconds (user + system)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed (%s): %s\n%s" % (status, " ".join(cmd), err))
    return ru.ru_utime + ru.ru_stime


def jitterlab(with_opt, seconds):
    """Runs one round; returns its latencies (ns, sorted), CPU seconds, result."""
    f = os.path.join(tmp, "jl.csv")
    j = os.path.join(tmp, "jl.json")
    cmd = [jl, "run", "-a", cpu, "-p", "90", "-i", INTERVAL_US, "-D", str(seconds), "-q",
           "--pm-qos", "0", "--samples", f, "--json", j]
    cmd += opts[with_opt]
    cpu_s = run(cmd)
    doc = json.load(open(j))
    if "explain" in doc and doc["explain"]["method"] != "tracepoints":
        sys.exit("--explain did not use the tracepoints: %s" % doc["explain"])
    lat = sorted(int(line.split(",")[2]) for line in open(f) if line[:1].isdigit())
    if not lat:
        sys.exit("no samples in %s" % f)
    return lat, cpu_s, doc


def pct(sorted_ns, p):
    """The p-th percentile (nearest rank) of sorted values."""
    return sorted_ns[min(len(sorted_ns) - 1, max(0, -(-len(sorted_ns) * p // 100) - 1))]


def spread(xs):
    """median [quartiles] (min .. max)"""
    if not xs:
        return "-"
    xs = sorted(xs)
    q = lambda f: xs[min(len(xs) - 1, int(f * (len(xs) - 1) + 0.5))]
    return "%.3f [%.3f %.3f] (%.3f .. %.3f)" % (q(0.5), q(0.25), q(0.75), xs[0], xs[-1])

modes = ((False, "without"), (True, "with"))
merged = {m: [] for _, m in modes}
round_ratio = []
events = spikes = lost = traced_samples = 0
by_tp = {}
for r in range(rounds):
    p50 = {}
    for with_opt, m in (modes if r % 2 == 0 else modes[::-1]):
        h, _, doc = jitterlab(with_opt, round_s)
        merged[m] += h
        p50[m] = pct(h, 50)
        if "explain" in doc:
            events += doc["explain"]["events"]
            spikes += doc["explain"]["spikes"]
            lost += doc["explain"]["events_lost"]
            traced_samples += len(h)
            for tp, n in doc["explain"].get("events_by_tracepoint", {}).items():
                by_tp[tp] = by_tp.get(tp, 0) + n
        print("round %d %-8s p50 %8.3f us  p99 %8.3f us  samples %d" %
              (r + 1, m, p50[m] / 1e3, pct(h, 99) / 1e3, len(h)), flush=True)
    round_ratio.append(p50["with"] / p50["without"])

short_s, long_s = 2, 2 + 2 * round_s
slopes = {m: [] for _, m in modes}
for pair in range(COST_PAIRS):
    for with_opt, m in (modes if pair % 2 == 0 else modes[::-1]):
        hs, cs, _ = jitterlab(with_opt, short_s)
        hl, cl, _ = jitterlab(with_opt, long_s)
        slopes[m].append((cl - cs) / (len(hl) - len(hs)) * 1e6)
        print("cost %d %-8s %.3f us/cycle" % (pair + 1, m, slopes[m][-1]), flush=True)
cost = {m: sorted(s)[len(s) // 2] if s else float("nan") for m, s in slopes.items()}
pair_ratio = [w / o for w, o in zip(slopes["with"], slopes["without"])]

print()
print("%-24s %10s %10s %8s" % ("", "with", "without", "ratio"))
for m in merged.values():
    m.sort()
for name, p in (("p50 latency (us)", 50), ("p99 latency (us)", 99)):
    a, b = pct(merged["with"], p), pct(merged["without"], p)
    print("%-24s %10.3f %10.3f %8.3f" % (name, a / 1e3, b / 1e3, a / b if b else float("nan")))
a, b = cost["with"], cost["without"]
print("%-24s %10.3f %10.3f %8.3f" % ("CPU time/cycle (us)", a, b, a / b if b else float("nan")))
print("p50 ratio per round, median [quartiles] (min .. max): %s" % spread(round_ratio))
print("CPU time ratio per pair, median [quartiles] (min .. max): %s" % spread(pair_ratio))
print("samples merged: with %d, without %d; with --explain: %d events, %d spikes, %d lost" %
      (len(merged["with"]), len(merged["without"]), events, spikes, lost))
if by_tp and traced_samples:
    print("records per cycle (measured CPU) by tracepoint, with --explain: %.2f in all" %
          (sum(by_tp.values()) / traced_samples))
    for tp, n in sorted(by_tp.items(), key=lambda kv: -kv[1]):
        print("  %-44s %7.3f" % (tp, n / traced_samples))
PY
