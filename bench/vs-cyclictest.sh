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
# start-up cost. Peak RSS of both runs shows whether memory grows with time.
# Needs root (SCHED_FIFO, mlockall) and rt-tests; run on a quiet machine.
set -eu
cpu=${1:-1}
rounds=${2:-6}
round_s=${3:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
jl="$top/build/jitterlab"
[ -x "$jl" ] || { echo "build first: make" >&2; exit 1; }
command -v cyclictest >/dev/null || { echo "needs cyclictest: apt-get install rt-tests" >&2; exit 1; }
exec python3 - "$jl" "$cpu" "$rounds" "$round_s" <<'PY'
import os, re, subprocess, sys, tempfile

jl, cpu, rounds, round_s = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
ROWS = 20000  # 20 ms of 1 us rows: beyond it a value counts as overflow
tmp = tempfile.mkdtemp(prefix="jl-bench.")

def run(cmd):
    """Runs cmd; returns (stdout, cpu seconds, peak RSS KiB) of the child."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("failed (%d): %s" % (p.returncode, " ".join(cmd)))
    return out, ru.ru_utime + ru.ru_stime, ru.ru_maxrss

def parse_hist(text):
    rows, overflow, maxv = {}, 0, 0
    for line in text.splitlines():
        m = re.match(r"^(\d+) (\d+)", line)
        if m:
            rows[int(m.group(1))] = rows.get(int(m.group(1)), 0) + int(m.group(2))
        elif line.startswith("# Histogram Overflows:"):
            overflow = int(line.split(":")[1].split()[0])
        elif line.startswith("# Max Latencies:"):
            maxv = int(line.split(":")[1].split()[0])
    return rows, overflow, maxv

def jitterlab(seconds):
    f = os.path.join(tmp, "jl.hist")
    _, cpu_s, rss = run([jl, "run", "-a", cpu, "-p", "90", "-i", "1000", "-D", str(seconds),
                         "-q", "--histogram-file", f, "--histogram-max", "%dus" % ROWS])
    return parse_hist(open(f).read()), cpu_s, rss

def cyclictest(seconds):
    out, cpu_s, rss = run(["cyclictest", "-m", "-a", cpu, "-t", "1", "-p", "90", "-i", "1000",
                           "-D", str(seconds), "-q", "-h", str(ROWS)])
    return parse_hist(out), cpu_s, rss

def merge(into, h):
    rows, overflow, maxv = h
    for k, v in rows.items():
        into[0][k] = into[0].get(k, 0) + v
    into[1] += overflow
    into[2] = max(into[2], maxv)

def pct(merged, p):
    rows, overflow, _ = merged
    total = sum(rows.values()) + overflow
    rank = max(1, -(-int(p * total) // 100)) if p < 100 else total
    seen = 0
    for k in sorted(rows):
        seen += rows[k]
        if seen >= rank:
            return k
    return merged[2]

def count(h):
    return sum(h[0].values()) + h[1]

tools = {"jitterlab": jitterlab, "cyclictest": cyclictest}
merged = {t: [{}, 0, 0] for t in tools}
for r in range(rounds):
    for t, fn in tools.items():
        h, _, _ = fn(round_s)
        merge(merged[t], h)
        print("round %d %-10s p50 %4d us  p99 %4d us  max %5d us" %
              (r + 1, t, pct([h[0], h[1], h[2]], 50), pct([h[0], h[1], h[2]], 99), h[2]),
              flush=True)

short_s, long_s = 2, 2 + 4 * round_s
cost = {}
for t, fn in tools.items():
    hs, cs, rss_s = fn(short_s)
    hl, cl, rss_l = fn(long_s)
    per_cycle_us = (cl - cs) / (count(hl) - count(hs)) * 1e6
    cost[t] = (per_cycle_us, rss_s, rss_l)

print()
print("%-22s %12s %12s %8s" % ("", "jitterlab", "cyclictest", "ratio"))
for name, p in (("p50 latency (us)", 50), ("p99 latency (us)", 99)):
    a, b = pct(merged["jitterlab"], p), pct(merged["cyclictest"], p)
    print("%-22s %12d %12d %8.2f" % (name, a, b, a / b if b else float("nan")))
a, b = merged["jitterlab"][2], merged["cyclictest"][2]
print("%-22s %12d %12d %8.2f" % ("max latency (us)", a, b, a / b if b else float("nan")))
a, b = cost["jitterlab"][0], cost["cyclictest"][0]
print("%-22s %12.3f %12.3f %8.2f" % ("CPU time/cycle (us)", a, b, a / b if b else float("nan")))
for i, label in ((1, "peak RSS %ds (KiB)" % short_s), (2, "peak RSS %ds (KiB)" % long_s)):
    a, b = cost["jitterlab"][i], cost["cyclictest"][i]
    print("%-22s %12d %12d %8.2f" % (label, a, b, a / b))
print("samples merged: jitterlab %d, cyclictest %d" %
      (count(merged["jitterlab"]), count(merged["cyclictest"])))
PY
