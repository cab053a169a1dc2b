#!/bin/sh
# Benchmark: one cycle of the measuring thread taken apart with kernel
# tracepoints, jitterlab run against cyclictest (rt-tests) on the same CPU,
# interval and priority. Not a test: it prints where each tool's cycle
# spends its time and the ratios jitterlab/cyclictest per part.
#
#   bench/cycle-anatomy.sh [-c CPU] [-i US] [-R ROUNDS] [-r SECONDS]
#                          [-b BINARY] [-A] [-x OPTIONS]
#
#   -c CPU      the measured CPU (default 1; CPU 0 stays for housekeeping)
#   -i US       interval in microseconds (default 1000)
#   -R ROUNDS   rounds; each traces both tools once (default 20)
#   -r SECONDS  traced time per tool and round (default 0.5)
#   -b BINARY   the jitterlab binary (default build/jitterlab)
#   -A          A/A: cyclictest against itself, for the method's own spread
#   -x OPTIONS  jitterlab run with OPTIONS (one word list, e.g. "--explain")
#               against jitterlab run without them, instead of cyclictest:
#               what the options cost each part of the cycle
#
# A tracefs instance of its own records, on the measured CPU only, the
# local timer interrupt (entry, exit), clock_nanosleep's entry and exit and
# sched_switch, time-stamped with the x86-tsc trace clock (ftrace prints
# ns clocks in microseconds only). A cycle of the measuring thread is cut
# into: timer-irq (the interrupt that wakes it), wake-up (interrupt exit to
# the return of clock_nanosleep: the switch in and the way out of the
# sleep), user (return of one clock_nanosleep to the entry of the next: the
# tool's own code with the kernel's exit to and entry from user space),
# sleep (entry of clock_nanosleep to the switch out: the timer armed, the
# switch to idle), and cycle (all of it). A cycle in which anything else
# ran on the CPU is left out. Trace ticks become ns by the cycles' own
# period, whose median is the interval. The tools alternate, the one going
# first changing from round to round; each part's ratio is taken per round
# and its median over the rounds printed with the quartiles, as in
# bench/vs-cyclictest.sh. Every tracepoint costs time, so the parts are
# longer than untraced ones, the same for both tools. With -x --explain the
# run's own tracepoints (perf) record beside this instance's; to see what
# one group of them costs, JITTERLAB_TRACE_EVENTS=GROUP (explain.md) opens
# only that one, e.g. JITTERLAB_TRACE_EVENTS=irq_vectors ... -x --explain.
# Needs root, x86-64, tracefs, rt-tests; run on a quiet machine.
set -eu
cpu=1 iv=1000 rounds=20 secs=0.5 aa=0 xopts= xset=0
top=$(cd "$(dirname "$0")/.." && pwd)
jl="$top/build/jitterlab"
while getopts c:i:R:r:b:Ax: opt; do
    case $opt in
    c) cpu=$OPTARG ;;
    i) iv=$OPTARG ;;
    R) rounds=$OPTARG ;;
    r) secs=$OPTARG ;;
    b) jl=$OPTARG ;;
    A) aa=1 ;;
    x) xopts=$OPTARG xset=1 ;;
    *) sed -n '7,18p' "$0" >&2; exit 2 ;;
    esac
done
if [ "$xset" = 1 ] && [ "$aa" = 1 ]; then
    echo "cycle-anatomy: -x and -A: choose one (-x compares jitterlab with and without OPTIONS)" >&2
    exit 2
fi
if [ "$xset" = 1 ] && [ -z "$(echo $xopts)" ]; then
    echo "cycle-anatomy: -x: no options given (e.g. -x --explain)" >&2
    exit 2
fi
[ -x "$jl" ] || { echo "build first: make" >&2; exit 1; }
[ "$xset" = 1 ] || command -v cyclictest >/dev/null || { echo "needs cyclictest: apt-get install rt-tests" >&2; exit 1; }
[ "$(uname -m)" = x86_64 ] || { echo "needs x86-64 (the x86-tsc trace clock)" >&2; exit 1; }
tracefs=/sys/kernel/tracing
[ -d "$tracefs/instances" ] || mount -t tracefs nodev "$tracefs" 2>/dev/null ||
    { echo "needs tracefs at $tracefs" >&2; exit 1; }
exec python3 - "$tracefs" "$jl" "$cpu" "$iv" "$rounds" "$secs" "$aa" "$xset" "$xopts" <<'PY'
import os, re, signal, statistics as st, subprocess, sys, time

tracefs, jl, cpu, iv, rounds, secs, aa, xset, xopts = sys.argv[1:10]
cpu, iv, rounds, secs, aa = int(cpu), int(iv), int(rounds), float(secs), aa == "1"
xopts = xopts.split() if xset == "1" else None
NR_CLOCK_NANOSLEEP = 230  # x86-64
EVENTS = ("irq_vectors/local_timer_entry", "irq_vectors/local_timer_exit",
          "raw_syscalls/sys_enter", "raw_syscalls/sys_exit", "sched/sched_switch")
PARTS = ("timer-irq", "wake-up", "user", "sleep", "cycle")
inst = os.path.join(tracefs, "instances", "jitterlab-anatomy.%d" % os.getpid())
A, B = ("cyclictest-A", "cyclictest-B") if aa else ("jitterlab", "cyclictest")
if xopts is not None:
    A, B = "jl " + " ".join(xopts), "jitterlab"
# Each run is told to end by itself shortly after its trace (and is stopped
# with SIGINT as soon as the trace is taken): a run is never left behind.
life = str(int(secs + 5))
ct = ["cyclictest", "-m", "-a", str(cpu), "-t", "1", "-p", "90", "-i", str(iv), "-q", "-D", life]
jlrun = [jl, "run", "-a", str(cpu), "-p", "90", "-i", str(iv), "-D", life, "-q", "--pm-qos", "0"]
CMDS = {A: ct if aa else jlrun + (xopts or []), B: jlrun if xopts is not None else ct}
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # the instance is removed
    signal.signal(sig, signal.default_int_handler)

def put(name, value):
    with open(os.path.join(inst, name), "w") as f:
        f.write(value)

LINE = re.compile(r"^\s*.*-(\d+)\s+\[\d+\]\s+\S+\s+(\d+):\s+(\w+):\s*(.*)$")

def cycles(text):
    """The measuring thread's undisturbed cycles: per part the median (ns),
    and "n" their number; None when fewer than 10 were found."""
    ev = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            ev.append((int(m.group(2)), int(m.group(1)), m.group(3), m.group(4)))
    exits = {}
    for t, pid, name, _ in ev:
        if name == "sys_exit":
            exits[pid] = exits.get(pid, 0) + 1
    if not exits:
        return None
    tid = max(exits, key=exits.get)  # the thread that sleeps most often
    out = {p: [] for p in PARTS}
    starts = []
    mark, clean = {}, False
    for t, pid, name, f in ev:
        if name == "local_timer_entry" and "user" not in mark:
            mark, clean = {"entry": t}, True
        elif not mark:
            continue
        elif name == "local_timer_exit" and "exit" not in mark:
            mark["exit"] = t
        elif name == "sys_exit" and pid == tid and "exit" in mark and "ret" not in mark:
            mark["ret"] = t
        elif name == "sys_enter" and pid == tid and "ret" in mark:
            mark["user"] = t
        elif name == "sched_switch" and "prev_pid=%d " % tid in f and "user" in mark:
            if clean:
                out["timer-irq"].append(mark["exit"] - mark["entry"])
                out["wake-up"].append(mark["ret"] - mark["exit"])
                out["user"].append(mark["user"] - mark["ret"])
                out["sleep"].append(t - mark["user"])
                out["cycle"].append(t - mark["entry"])
                starts.append(mark["entry"])
            mark = {}
        elif name == "sched_switch" or pid != tid:
            clean = False  # another task, or another sleep, in this cycle
    if len(starts) < 10:
        return None
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    ticks_per_ns = st.median(gaps) / (iv * 1000.0)
    return {p: st.median(v) / ticks_per_ns for p, v in out.items()} | {"n": len(starts)}

def trace(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        time.sleep(0.7 if xopts is None else 2.0)  # started, locked, settled (--explain opens ~50 tracepoints)
        if p.poll() is not None:
            sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr.read().decode()))
        put("trace", "")
        put("tracing_on", "1")
        time.sleep(secs)
        put("tracing_on", "0")
    finally:
        p.send_signal(signal.SIGINT)
        p.wait()
    with open(os.path.join(inst, "trace")) as f:
        got = cycles(f.read())
    if got is None:
        sys.exit("no cycle of %s in the trace" % cmd[0])
    return got

os.mkdir(inst)
try:
    put("trace_clock", "x86-tsc")
    put("tracing_cpumask", "%x" % (1 << cpu))
    put("buffer_size_kb", "16384")
    for e in EVENTS:
        if not os.path.exists(os.path.join(inst, "events", e)):
            sys.exit("the kernel has no tracepoint %s" % e)
        put("events/%s/enable" % e, "1")
    for e in ("raw_syscalls/sys_enter", "raw_syscalls/sys_exit"):
        put("events/%s/filter" % e, "id == %d" % NR_CLOCK_NANOSLEEP)
    res = {A: [], B: []}
    for r in range(rounds):
        for tool in ((A, B) if r % 2 == 0 else (B, A)):
            res[tool].append(trace(CMDS[tool]))
except KeyboardInterrupt:
    sys.exit("interrupted")
finally:
    put("tracing_on", "0")
    for e in EVENTS:
        put("events/%s/enable" % e, "0")
    os.rmdir(inst)

print("interval %d us, CPU %d, %d rounds of %.1f s; median ns per cycle (traced)" % (iv, cpu, rounds, secs))
print("%-10s %9s %9s   %s/%s per round: median [quartiles]" % ("part", A[:9], B[:9], A, B))
for p in PARTS:
    ratios = sorted(a[p] / b[p] for a, b in zip(res[A], res[B]))
    n = len(ratios)
    print("%-10s %9.0f %9.0f   %.3f [%.3f..%.3f]" % (p, st.median(a[p] for a in res[A]),
          st.median(b[p] for b in res[B]), st.median(ratios), ratios[n // 4], ratios[(3 * n) // 4]))
print("cycles kept per round: %s %d..%d, %s %d..%d" % (A, min(a["n"] for a in res[A]),
      max(a["n"] for a in res[A]), B, min(b["n"] for b in res[B]), max(b["n"] for b in res[B])))
PY
