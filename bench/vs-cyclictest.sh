#!/bin/sh
# Benchmark: jitterlab run against cyclictest (rt-tests) on the same CPU,
# interval and priority. Not a test: it prints ratios jitterlab/cyclictest.
#
#   bench/vs-cyclictest.sh [-c CPU] [-i US[,US...]] [-n PAIRS] [-r SECONDS]
#                          [-R REPEATS] [-C PAIRS] [-b BINARY] [-x 'RUN OPTIONS']
#                          [-y 'CYCLICTEST OPTIONS'] [-A]
#
#   -c CPU      the measured CPU (default 1; CPU 0 stays for housekeeping)
#   -i US,...   intervals in microseconds (default 1000,500,100)
#   -n PAIRS    rounds per tool and interval (default 40)
#   -r SECONDS  length of one round (default 0.5)
#   -R REPEATS  complete runs of the whole method, for its spread (default 1)
#   -C PAIRS    pairs of runs for CPU time and RSS per interval (default 5)
#   -b BINARY   the jitterlab binary (default build/jitterlab; a loop variant
#               built by `make loop-variants` lives in build/variant-N/)
#   -x OPTIONS  more options for jitterlab run (e.g. '--clock tsc')
#   -y OPTIONS  more options for cyclictest (e.g. '--mainaffinity=0': its
#               main thread on CPU 0, where jitterlab keeps its collector;
#               by default cyclictest runs it on the measured CPU)
#   -A          A/A: cyclictest against itself, to show what the method's own
#               spread is on this machine; with -y, only the first side (A)
#               gets those options, so that their effect is what is measured
#
# Latency, paired on one grid. The tools alternate, PAIRS rounds each, with
# the same number of cycles per round (--loops / -l); round 2k and 2k+1 form
# a pair, and the tool that goes first alternates from pair to pair so that
# neither always runs right after the other. Both write cyclictest's -h
# histogram of truncated microseconds, so both are read on the same 1 us
# grid, and a percentile is interpolated inside its 1 us row (the values of
# row k lie in [k, k+1) us) so that a ratio of two medians is not a ratio of
# two integers. Per pair the ratio of the two p50s is taken; their median
# over the pairs is "paired p50", which cancels the VM's drift from round to
# round. p99 and max come from each tool's rounds merged into one histogram.
#
# CPU time per cycle, per thread: in -C pairs of runs of COST_SECONDS each
# (no histogram: each tool at its normal options; the tool that goes first
# alternates from pair to pair), the measuring thread's and the rest of the
# process's CPU time are read from /proc/PID/task/TID/schedstat at two
# moments inside the run; the difference over the cycles in between is the
# cost per cycle. The ratio of the two measuring threads is taken per pair
# and its median over the pairs kept, with its quartiles, as for p50. Peak
# RSS is the process's VmHWM during those runs.
#
# cyclictest holds /dev/cpu_dma_latency at 0 by default; jitterlab runs with
# --pm-qos 0 so that both see the same idle-state policy.
# Needs root (SCHED_FIFO, mlockall) and rt-tests; run on a quiet machine.
set -eu
cpu=1 intervals=1000,500,100 pairs=40 round_s=0.5 repeats=1 extra= ct_extra= aa=0
top=$(cd "$(dirname "$0")/.." && pwd)
jl="$top/build/jitterlab"
cost_pairs=5
while getopts c:i:n:r:R:C:b:x:y:A opt; do
    case $opt in
    c) cpu=$OPTARG ;;
    i) intervals=$OPTARG ;;
    n) pairs=$OPTARG ;;
    r) round_s=$OPTARG ;;
    R) repeats=$OPTARG ;;
    C) cost_pairs=$OPTARG ;;
    b) jl=$OPTARG ;;
    x) extra=$OPTARG ;;
    y) ct_extra=$OPTARG ;;
    A) aa=1 ;;
    *) sed -n '4,23p' "$0" >&2; exit 2 ;;
    esac
done
[ -x "$jl" ] || { echo "build first: make" >&2; exit 1; }
command -v cyclictest >/dev/null || { echo "needs cyclictest: apt-get install rt-tests" >&2; exit 1; }
JL_BENCH="$top/bench" exec python3 - "$jl" "$cpu" "$intervals" "$pairs" "$round_s" \
    "$repeats" "$extra" "$aa" "$cost_pairs" "$ct_extra" <<'PY'
import os, shlex, subprocess, sys, tempfile, time

sys.path.insert(0, os.environ["JL_BENCH"])
import histogram

jl, cpu = sys.argv[1], sys.argv[2]
intervals = [int(x) for x in sys.argv[3].split(",")]
pairs, round_s, repeats = int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
extra, aa = shlex.split(sys.argv[7]), sys.argv[8] == "1"
COST_PAIRS, COST_SECONDS = int(sys.argv[9]), 4.0
ct_extra = shlex.split(sys.argv[10])
ROWS = 20000  # 20 ms of 1 us rows: beyond it a value counts as overflow
tmp = tempfile.mkdtemp(prefix="jl-bench.")
A, B = ("cyclictest-A", "cyclictest-B") if aa else ("jitterlab", "cyclictest")


def status_kib(pid, key):
    try:
        for line in open("/proc/%d/status" % pid):
            if line.startswith(key):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def thread_cpu_ns(pid):
    """{tid: (comm, CPU ns)} of every thread of pid, from schedstat."""
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for tid in tids:
        try:
            ns = int(open("/proc/%d/task/%s/schedstat" % (pid, tid)).read().split()[0])
            comm = open("/proc/%d/task/%s/comm" % (pid, tid)).read().strip()
        except (OSError, ValueError, IndexError):
            continue
        out[int(tid)] = (comm, ns)
    return out


def run(cmd, probes=()):
    """Runs cmd to its end. Returns (peak RSS KiB, [thread CPU at each probe
    time], pid). The peak is the child's own VmHWM, polled while it runs."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak, seen, todo = 0, [], list(probes)
    while p.poll() is None:
        peak = max(peak, status_kib(p.pid, "VmHWM:"))
        if todo and time.monotonic() - t0 >= todo[0]:
            seen.append((time.monotonic(), thread_cpu_ns(p.pid)))
            todo.pop(0)
        time.sleep(0.01 if todo else 0.05)
    err = p.stderr.read().decode(errors="replace")
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), err))
    return peak, seen, p.pid


def jitterlab_cmd(interval, loops, hist):
    cmd = [jl, "run", "-a", cpu, "-p", "90", "-i", str(interval), "-l", str(loops), "-q",
           "--pm-qos", "0"] + extra
    if hist:
        cmd += ["--histogram-file", hist, "--histogram-max", "%dus" % ROWS]
    return cmd


def cyclictest_cmd(interval, loops, hist, more=()):
    cmd = ["cyclictest"] + list(more) + ["-m", "-a", cpu, "-t", "1", "-p", "90",
                                         "-i", str(interval), "-l", str(loops), "-q"]
    if hist:
        cmd = ["sh", "-c", 'exec "$@" > %s' % shlex.quote(hist), "sh"] + cmd + ["-h", str(ROWS)]
    return cmd


def measuring_thread(tool, pid, before, after):
    """The measuring thread's tid: jitterlab names it jitterlab/CPU;
    cyclictest's is the thread that is not the main one (tid != pid)."""
    for tid, (comm, _) in after.items():
        if tool == "jitterlab" and comm.startswith("jitterlab/"):
            return tid
    cands = [t for t in after if t in before and t != pid]
    return cands[0] if cands else None


def with_more(interval, loops, hist):
    return cyclictest_cmd(interval, loops, hist, ct_extra)


# -y goes to the cyclictest that is compared: the only one against
# jitterlab, side A in an A/A run.
CMDS = {"jitterlab": jitterlab_cmd, "cyclictest": with_more,
        "cyclictest-A": with_more, "cyclictest-B": cyclictest_cmd}


def one_round(tool, interval, loops):
    f = os.path.join(tmp, tool + ".hist")
    run(CMDS[tool](interval, loops, f))
    return histogram.parse(open(f).read())


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def latency(interval):
    loops = max(1, int(round_s * 1e6 / interval))
    merged = {A: histogram.empty(), B: histogram.empty()}
    ratios = []
    for k in range(pairs):
        order = (A, B) if k % 2 == 0 else (B, A)
        got = {}
        for t in order:
            got[t] = one_round(t, interval, loops)
            histogram.merge(merged[t], got[t])
        a, b = histogram.pct_interp(got[A], 50), histogram.pct_interp(got[B], 50)
        ratios.append(a / b if b > 0 else float("nan"))
    return ratios, merged


def cost(interval):
    loops = int(COST_SECONDS * 1e6 / interval)
    t1, t2 = 1.0, COST_SECONDS - 0.8
    per = {A: [], B: []}
    rss = {A: 0, B: 0}
    ratios = []
    for k in range(COST_PAIRS):
        got = {}
        for t in ((A, B) if k % 2 == 0 else (B, A)):
            tool = "jitterlab" if t == "jitterlab" else "cyclictest"
            peak, seen, pid = run(CMDS[t](interval, loops, None), (t1, t2))
            rss[t] = max(rss[t], peak)
            if len(seen) < 2:
                continue
            (w1, s1), (w2, s2) = seen
            tid = measuring_thread(tool, pid, s1, s2)
            if tid is None:
                continue
            cycles = (w2 - w1) * 1e6 / interval
            meas = (s2[tid][1] - s1[tid][1]) / cycles
            rest = sum(s2[x][1] - s1[x][1] for x in s2 if x in s1 and x != tid) / cycles
            per[t].append((meas, rest))
            got[t] = meas
        if len(got) == 2 and got[B] > 0:
            ratios.append(got[A] / got[B])
    out = {"ratios": ratios}
    for t in (A, B):
        out[t] = (median([m for m, _ in per[t]]) if per[t] else float("nan"),
                  median([r for _, r in per[t]]) if per[t] else float("nan"), rss[t])
    return out


def fmt_ratio(a, b):
    return "%.3f" % (a / b) if b else "nan"


summary = {iv: [] for iv in intervals}
for rep in range(repeats):
    for iv in intervals:
        ratios, merged = latency(iv)
        c = cost(iv)
        p50 = median(ratios)
        q = sorted(ratios)
        lo, hi = q[len(q) // 4], q[(3 * len(q)) // 4]
        p99 = [histogram.pct_interp(merged[t], 99) for t in (A, B)]
        mx = [merged[t][2] for t in (A, B)]
        mp50 = [histogram.pct_interp(merged[t], 50) for t in (A, B)]
        cr = sorted(c["ratios"])
        cpu_ratio = median(cr) if cr else float("nan")
        row = {"p50": p50, "p99": p99[0] / p99[1], "cpu": cpu_ratio, "rss": c[A][2] / c[B][2]}
        summary[iv].append(row)
        print("run %d, interval %d us, %d pairs of %d cycles (%s / %s)" %
              (rep + 1, iv, pairs, max(1, int(round_s * 1e6 / iv)), A, B))
        print("  paired p50 ratio   median %.3f  (quartiles %.3f-%.3f over %d pairs)" %
              (p50, lo, hi, len(ratios)))
        print("  merged p50 (us)    %8.2f %8.2f  ratio %s" % (mp50[0], mp50[1], fmt_ratio(*mp50)))
        print("  merged p99 (us)    %8.2f %8.2f  ratio %s" % (p99[0], p99[1], fmt_ratio(*p99)))
        print("  max (us)           %8d %8d" % (mx[0], mx[1]))
        print("  measuring thread   %8.3f %8.3f  us CPU/cycle (medians)" %
              (c[A][0] / 1e3, c[B][0] / 1e3))
        if cr:
            print("  thread CPU ratio   median %.3f  (quartiles %.3f-%.3f over %d pairs)" %
                  (cpu_ratio, cr[len(cr) // 4], cr[(3 * len(cr)) // 4], len(cr)))
        print("  rest of process    %8.3f %8.3f  us CPU/cycle" % (c[A][1] / 1e3, c[B][1] / 1e3))
        print("  peak RSS (KiB)     %8d %8d  ratio %s" % (c[A][2], c[B][2], fmt_ratio(c[A][2], c[B][2])))
        print("  samples merged     %8d %8d" % tuple(histogram.count(merged[t]) for t in (A, B)),
              flush=True)

print()
print("spread over %d run(s), %s / %s:" % (repeats, A, B))
print("%-10s %-22s %-22s %-22s %-22s" % ("interval", "paired p50", "merged p99",
                                          "thread CPU/cycle", "peak RSS"))
for iv in intervals:
    rows = summary[iv]
    cells = []
    for key in ("p50", "p99", "cpu", "rss"):
        v = [r[key] for r in rows]
        cells.append("%.3f (%.3f-%.3f)" % (median(v), min(v), max(v)))
    print("%-10s %-22s %-22s %-22s %-22s" % ("%d us" % iv, *cells))
if not aa:
    print()
    print("targets: paired p50 <= 1.01, merged p99 <= 1.05 (each run), thread CPU <= 1.00, RSS <= 1.50")
    for iv in intervals:
        rows = summary[iv]
        met = [sum(1 for r in rows if r[k] <= lim) for k, lim in
               (("p50", 1.01), ("p99", 1.05), ("cpu", 1.0), ("rss", 1.5))]
        print("%-10s p50 %d/%d  p99 %d/%d  CPU %d/%d  RSS %d/%d runs" %
              ("%d us" % iv, met[0], len(rows), met[1], len(rows), met[2], len(rows),
               met[3], len(rows)))
    if not any(o.startswith("--mainaffinity") for o in ct_extra):
        print("(cyclictest's main thread ran on CPU %s beside its measuring thread, jitterlab's"
              " collector on another; -y --mainaffinity=0 places both alike)" % cpu)
PY
