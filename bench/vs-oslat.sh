#!/bin/sh
# Benchmark: jitterlab noise against oslat (rt-tests) on the same CPU and
# policy. Not a test: it prints ratios jitterlab/oslat.
#
#   bench/vs-oslat.sh [CPU] [ROUNDS] [ROUND_SECONDS]
#   (defaults 1, 10, 2; also CPU=, ROUNDS=, ROUND_SECONDS= in the environment;
#   POLICY=fifo PRIO=N for SCHED_FIFO, default SCHED_OTHER for both, which is
#   also oslat's default; NOISE_OPTS= replaces the extra options of
#   jitterlab noise, default --no-trace; LOCK_WAIT= seconds to wait for the
#   CPU's lock, default 600; JL=path/to/jitterlab to measure another build)
#
# Both tools spin on CPU, reading the TSC, and take every step between two
# reads as a sample; CPU 0 (or the first other online CPU) keeps oslat's
# main thread and jitterlab's collector. They alternate for ROUNDS rounds of
# ROUND_SECONDS each, the order swapped every round, each run holding
# /tmp/jitterlab-cpuCPU.lock (flock) so that no other measurement shares the
# CPU, and each under timeout.
#
# One grid, whole microseconds truncated: oslat puts a step of c cycles in
# bucket "k (us)" with k = c / MHz + 1 (integer MHz, -b 1024: buckets up to
# 1023 us, the last one holds the overflow too), so bucket k holds steps of
# [k-1, k) us. jitterlab counts a step above --threshold (1 us) as a gap and
# its --histogram-file row k holds gaps of [k, k+1) us (ns / 1000). "Gaps of
# 10 us and more" are oslat's buckets 11.. and jitterlab's rows 10.. plus
# its overflow (the JSON bins of jitterlab are log-linear and one of them
# straddles 10 us, so they only bracket that count; the script checks the
# 1 us count lies inside). The max is compared the same way: oslat prints
# k for [k-1, k) us, so k - 1 against jitterlab's max_ns / 1000.
# The floor is what a loop iteration costs, the tool's own measurement:
# jitterlab reports its shortest step (floor_ns), oslat only a minimum in
# whole us ("1" means under 1 us), so the comparable figure is the mean
# quiet step: the time outside steps of 1 us and more over the number of
# steps under 1 us. jitterlab gives it exactly ((measured_ns - noise_ns) /
# (iterations - gaps)); for oslat the time in those steps is its average
# times its steps (the JSON's avg and histogram, overflow included) with
# each step of bucket k taken as k - 0.5 us.
# Needs root (oslat asks for it; both lock their memory).
set -eu
cpu=${1:-${CPU:-1}}
rounds=${2:-${ROUNDS:-10}}
round_s=${3:-${ROUND_SECONDS:-2}}
top=$(cd "$(dirname "$0")/.." && pwd)
jl=${JL:-$top/build/jitterlab}
[ -x "$jl" ] || { echo "vs-oslat: $jl: not built (make, or JL=path/to/jitterlab)" >&2; exit 1; }
command -v oslat >/dev/null || { echo "vs-oslat: needs oslat: apt-get install rt-tests" >&2; exit 1; }
for t in flock timeout python3; do
    command -v $t >/dev/null || { echo "vs-oslat: needs $t" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "vs-oslat: needs root (oslat, locked memory)" >&2; exit 1; }
exec python3 - "$jl" "$cpu" "$rounds" "$round_s" "${POLICY:-other}" "${PRIO:-10}" \
    "${NOISE_OPTS---no-trace}" "${LOCK_WAIT:-600}" <<'PY'
import json, os, signal, subprocess, sys, tempfile

jl, cpu, rounds, round_s, policy, prio, noise_opts, lock_wait = sys.argv[1:9]
rounds, round_s = int(rounds), int(round_s)
if policy not in ("other", "fifo"):
    sys.exit("vs-oslat: POLICY=%s: other or fifo" % policy)
BUCKETS = 1024     # oslat -b: 1 us buckets up to 1023 us
ROWS_US = 1024     # jitterlab --histogram-max: the same range
BIG_US = 10        # "gaps of 10 us and more"
lock = "/tmp/jitterlab-cpu%s.lock" % cpu
limit_s = round_s + 30  # start-up, TSC calibration, oslat's 1 s pre-heat


def housekeeping_cpu():
    others = sorted(c for c in os.sched_getaffinity(0) if str(c) != cpu)
    if not others:
        sys.exit("vs-oslat: CPU %s is the only CPU: no room for the main threads" % cpu)
    return str(others[0])


def run(cmd):
    full = ["flock", "-w", lock_wait, "-E", "75", lock,
            "timeout", "-k", "5", str(limit_s)] + cmd
    p = subprocess.run(full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode == 75:
        sys.exit("vs-oslat: %s busy for %s s (another measurement on CPU %s)"
                 % (lock, lock_wait, cpu))
    if p.returncode == 124 or p.returncode == 137:
        sys.exit("vs-oslat: timed out after %d s: %s" % (limit_s, " ".join(cmd)))
    if p.returncode != 0:
        sys.exit("vs-oslat: failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr))


def jitterlab(tmp):
    """Returns gaps >= 1 us, gaps >= BIG_US, max (ns), seconds, steps, floor (ns)."""
    h, j = os.path.join(tmp, "jl.hist"), os.path.join(tmp, "jl.json")
    cmd = [jl, "noise", "-a", cpu, "-D", str(round_s), "-q", "--policy", policy,
           "--histogram-file", h, "--histogram-max", "%dus" % ROWS_US, "--json", j]
    if policy == "fifo":  # spin the whole round, as oslat does
        cmd += ["-p", prio, "--runtime", "%ds" % round_s, "--period", "%ds" % round_s]
    run(cmd + noise_opts.split())
    c = json.load(open(j))["cpus"][0]
    rows, overflow = {}, 0
    for line in open(h):
        f = line.split()
        if len(f) == 2 and f[0].isdigit():
            rows[int(f[0])] = int(f[1])
        elif line.startswith("# Histogram Overflows:"):
            overflow = int(line.split(":")[1])
    big = sum(n for k, n in rows.items() if k >= BIG_US) + overflow
    # the log-linear bins bracket the same count: a check that both agree
    lo = sum(b[2] for b in c["histogram"]["bins"] if b[0] >= BIG_US * 1000)
    hi = sum(b[2] for b in c["histogram"]["bins"] if b[1] >= BIG_US * 1000)
    lo += c["histogram"]["overflow"]
    hi += c["histogram"]["overflow"]
    if not lo <= big <= hi or sum(rows.values()) + overflow != c["gaps"]:
        sys.exit("vs-oslat: jitterlab's histogram file (%d gaps >= %d us, %d in all) and "
                 "JSON (%d..%d, %d) disagree" % (big, BIG_US, sum(rows.values()) + overflow,
                                                 lo, hi, c["gaps"]))
    quiet_ns = c["measured_ns"] - c["noise_ns"]
    return (c["gaps"], big, c["gap_ns"]["max"] or 0, c["measured_ns"] / 1e9,
            c["iterations"], quiet_ns / (c["iterations"] - c["gaps"]), c["floor_ns"])


def oslat(tmp):
    j = os.path.join(tmp, "oslat.json")
    cmd = ["oslat", "-c", cpu, "-C", housekeeping_cpu(), "-D", str(round_s),
           "-b", str(BUCKETS), "-q", "--json=" + j]
    if policy == "fifo":
        cmd += ["-f", prio]
    run(cmd)
    t = json.load(open(j))["thread"]["0"]
    hist = {int(k): n for k, n in t["histogram"].items()}
    steps = sum(hist.values())
    small = sum(n for k, n in hist.items() if k >= 2)
    big = sum(n for k, n in hist.items() if k >= BIG_US + 1)
    # the sum of the bucket labels, plus the overflow's us beyond the last
    # bucket, is avg * steps; a step in bucket k lasted k - 0.5 us on average
    gap_us = t["avg"] * steps - hist.get(1, 0) - 0.5 * small
    quiet_ns = t["duration"] * 1e9 - gap_us * 1000
    # max k means [k-1, k) us; kept in ns as the lower edge
    return (small, big, (t["max"] - 1) * 1000, t["duration"], steps,
            quiet_ns / hist.get(1, 0), None)


def spread(xs):
    xs = sorted(x for x in xs if x == x)
    if not xs:
        return "-"
    return "%.3f (%.3f .. %.3f)" % (xs[(len(xs) + 1) // 2 - 1], xs[0], xs[-1])


def ratio(a, b):
    return a / b if b else float("nan")


def main(tmp):
    tools = {"jitterlab": jitterlab, "oslat": oslat}
    print("CPU %s, SCHED_%s%s, %d rounds of %d s per tool; jitterlab noise %s"
          % (cpu, policy.upper(), " %s" % prio if policy == "fifo" else "", rounds, round_s,
             noise_opts or "(defaults)"), flush=True)
    per = {t: [] for t in tools}
    for r in range(rounds):
        order = list(tools) if r % 2 == 0 else list(tools)[::-1]
        for t in order:
            m = tools[t](tmp)
            per[t].append(m)
            print("round %2d %-9s gaps>=1us %6d  >=%dus %5d (%7.1f/s)  max %8.1f us  "
                  "quiet step %6.2f ns" % (r + 1, t, m[0], BIG_US, m[1], m[1] / m[3],
                                           m[2] / 1e3, m[5]), flush=True)

    def total(t, i):
        return sum(m[i] for m in per[t])

    secs = {t: total(t, 3) for t in tools}
    big = {t: total(t, 1) / secs[t] for t in tools}
    small = {t: total(t, 0) / secs[t] for t in tools}
    mx = {t: max(m[2] for m in per[t]) // 1000 for t in tools}
    # merged: the rounds' quiet steps weighted by their steps
    step = {t: sum(m[5] * m[4] for m in per[t]) / total(t, 4) for t in tools}
    jl_floor = min(m[6] for m in per["jitterlab"])
    pairs = list(zip(per["jitterlab"], per["oslat"]))
    r_big = [ratio(a[1] / a[3], b[1] / b[3]) for a, b in pairs]
    r_max = [ratio(a[2] // 1000, b[2] // 1000) for a, b in pairs]
    r_step = [ratio(a[5], b[5]) for a, b in pairs]

    print()
    print("%-34s %12s %12s %8s   %s" % ("merged over rounds", "jitterlab", "oslat", "ratio",
                                       "per round: median (min .. max)"))
    print("%-34s %12.1f %12.1f %8.3f   %s" % ("gaps >= %d us per second" % BIG_US,
                                               big["jitterlab"], big["oslat"],
                                               ratio(big["jitterlab"], big["oslat"]),
                                               spread(r_big)))
    print("%-34s %12.1f %12.1f %8.3f" % ("gaps >= 1 us per second", small["jitterlab"],
                                         small["oslat"],
                                         ratio(small["jitterlab"], small["oslat"])))
    print("%-34s %12d %12d %8.3f   %s" % ("max gap (us, truncated)", mx["jitterlab"],
                                           mx["oslat"], ratio(mx["jitterlab"], mx["oslat"]),
                                           spread(r_max)))
    print("%-34s %12.2f %12.2f %8.3f   %s" % ("floor: mean quiet step (ns)", step["jitterlab"],
                                              step["oslat"],
                                              ratio(step["jitterlab"], step["oslat"]),
                                              spread(r_step)))
    print("%-34s %12d %12s" % ("floor: shortest step (ns)", jl_floor, "< 1000"))
    print("steps measured: jitterlab %d in %.3f s, oslat %d in %.3f s"
          % (total("jitterlab", 4), secs["jitterlab"], total("oslat", 4), secs["oslat"]))


def on_signal(signum, frame):
    sys.exit("vs-oslat: stopped by signal %d" % signum)


signal.signal(signal.SIGTERM, on_signal)
signal.signal(signal.SIGHUP, on_signal)
with tempfile.TemporaryDirectory(prefix="jl-bench.") as tmp:
    main(tmp)
PY
