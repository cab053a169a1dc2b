#!/bin/sh
# Benchmark: jitterlab run against cyclictest (rt-tests) on the same CPU,
# interval and priority. Not a test: it prints ratios jitterlab/cyclictest.
#
#   bench/vs-cyclictest.sh [CPU] [ROUNDS] [ROUND_SECONDS]
#
# Latency: the tools alternate for ROUNDS rounds of ROUND_SECONDS each; each
# tool's rounds are merged into one 1 us histogram (both write cyclictest's
# -h format) and p50/p99/max come from the merged histograms, so that
# round-to-round noise of a VM averages out.
# CPU time per cycle: user+system CPU time of a short and a long run of each
# tool; the slope (long - short) / (cycles long - cycles short) cancels the
# start-up cost. It is measured COST_PAIRS times, alternating, and the median
# slope is kept (one slope on a VM varies by +-15%). Peak RSS of the short
# and long runs shows whether memory grows with run length.
# cyclictest holds /dev/cpu_dma_latency at 0 by default; jitterlab runs with
# --pm-qos 0 so that both see the same idle-state policy.
# Needs root (SCHED_FIFO, mlockall) and rt-tests; run on a quiet machine.
set -eu
cpu=${1:-1}
rounds=${2:-6}
round_s=${3:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
jl="$top/build/jitterlab"
[ -x "$jl" ] || { echo "build first: make" >&2; exit 1; }
command -v cyclictest >/dev/null || { echo "needs cyclictest: apt-get install rt-tests" >&2; exit 1; }
JL_BENCH="$top/bench" exec python3 - "$jl" "$cpu" "$rounds" "$round_s" <<'PY'
import os, re, subprocess, sys, tempfile, time

sys.path.insert(0, os.environ["JL_BENCH"])
import histogram

jl, cpu, rounds, round_s = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
COST_PAIRS = 3
ROWS = 20000  # 20 ms of 1 us rows: beyond it a value counts as overflow
tmp = tempfile.mkdtemp(prefix="jl-bench.")

def vm_hwm_kib(pid):
    try:
        for line in open("/proc/%d/status" % pid):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0

def run(cmd):
    """Runs cmd; returns (stdout, CPU seconds, peak RSS KiB) of the child.
    Peak RSS is the child's own VmHWM, polled while it runs: getrusage's
    ru_maxrss would include the memory of this Python process it forked from."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    peak = 0
    out_chunks = []
    os.set_blocking(p.stdout.fileno(), False)
    while True:
        peak = max(peak, vm_hwm_kib(p.pid))
        chunk = p.stdout.read()
        if chunk:
            out_chunks.append(chunk)
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        time.sleep(0.2)
    chunk = p.stdout.read()
    if chunk:
        out_chunks.append(chunk)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("failed (%d): %s" % (p.returncode, " ".join(cmd)))
    return b"".join(out_chunks).decode(), ru.ru_utime + ru.ru_stime, peak


def jitterlab(seconds):
    f = os.path.join(tmp, "jl.hist")
    _, cpu_s, rss = run([jl, "run", "-a", cpu, "-p", "90", "-i", "1000", "-D", str(seconds),
                         "-q", "--pm-qos", "0", "--histogram-file", f,
                         "--histogram-max", "%dus" % ROWS])
    return histogram.parse(open(f).read()), cpu_s, rss

def cyclictest(seconds):
    out, cpu_s, rss = run(["cyclictest", "-m", "-a", cpu, "-t", "1", "-p", "90", "-i", "1000",
                           "-D", str(seconds), "-q", "-h", str(ROWS)])
    return histogram.parse(out), cpu_s, rss


tools = {"jitterlab": jitterlab, "cyclictest": cyclictest}
merged = {t: histogram.empty() for t in tools}
for r in range(rounds):
    for t, fn in tools.items():
        h, _, _ = fn(round_s)
        histogram.merge(merged[t], h)
        print("round %d %-10s p50 %4d us  p99 %4d us  max %5d us" %
              (r + 1, t, histogram.pct(h, 50), histogram.pct(h, 99), h[2]),
              flush=True)

short_s, long_s = 2, 2 + 3 * round_s
slopes = {t: [] for t in tools}
rss = {t: [0, 0] for t in tools}
for pair in range(COST_PAIRS):
    for t, fn in tools.items():
        hs, cs, rss_s = fn(short_s)
        hl, cl, rss_l = fn(long_s)
        slopes[t].append((cl - cs) / (histogram.count(hl) - histogram.count(hs)) * 1e6)
        rss[t] = [max(rss[t][0], rss_s), max(rss[t][1], rss_l)]
        print("cost %d %-10s %.3f us/cycle  RSS %d / %d KiB" %
              (pair + 1, t, slopes[t][-1], rss_s, rss_l), flush=True)
cost = {t: (sorted(slopes[t])[len(slopes[t]) // 2], rss[t][0], rss[t][1]) for t in tools}

print()
print("%-22s %12s %12s %8s" % ("", "jitterlab", "cyclictest", "ratio"))
for name, p in (("p50 latency (us)", 50), ("p99 latency (us)", 99)):
    a, b = histogram.pct(merged["jitterlab"], p), histogram.pct(merged["cyclictest"], p)
    print("%-22s %12d %12d %8.2f" % (name, a, b, a / b if b else float("nan")))
a, b = merged["jitterlab"][2], merged["cyclictest"][2]
print("%-22s %12d %12d %8.2f" % ("max latency (us)", a, b, a / b if b else float("nan")))
a, b = cost["jitterlab"][0], cost["cyclictest"][0]
print("%-22s %12.3f %12.3f %8.2f" % ("CPU time/cycle (us)", a, b, a / b if b else float("nan")))
for i, label in ((1, "peak RSS %ds (KiB)" % short_s), (2, "peak RSS %ds (KiB)" % long_s)):
    a, b = cost["jitterlab"][i], cost["cyclictest"][i]
    print("%-22s %12d %12d %8.2f" % (label, a, b, a / b))
print("samples merged: jitterlab %d, cyclictest %d" %
      (histogram.count(merged["jitterlab"]), histogram.count(merged["cyclictest"])))
PY
