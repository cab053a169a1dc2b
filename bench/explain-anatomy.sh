#!/bin/sh
# Benchmark: what each group of `--explain`'s tracepoints costs the measured
# wake-up, all groups measured in the same rounds so that a drift of the
# machine between runs cannot pass for a difference between groups. Not a
# test: it prints p50 ratios against runs without --explain.
#
#   bench/explain-anatomy.sh [CPU] [ROUNDS] [ROUND_SECONDS]
#   (INTERVAL_US=500 for another interval than 1000; MODES="NAME=EVENTS ..."
#   for other groups, EVENTS as JITTERLAB_TRACE_EVENTS takes them:
#   comma-separated systems or system:event names)
#
# Each round runs jitterlab once per mode on the same CPU, interval and
# priority (SCHED_FIFO 90, --pm-qos 0), the modes rotated and reversed from
# round to round: "off" without --explain, "all" with it, and one run per
# group with --explain recording only that group's tracepoints. Every
# sample is read in ns (--samples). Per mode: the p50 of all its rounds'
# samples against off's, and the per-round ratios (median [quartiles]).
# Needs root (SCHED_FIFO, tracepoints); run on a quiet machine.
set -eu
cpu=${1:-1}
rounds=${2:-12}
round_s=${3:-3}
top=$(cd "$(dirname "$0")/.." && pwd)
jl=${JL:-$top/build/jitterlab}
[ -x "$jl" ] || { echo "build first: make" >&2; exit 1; }
default_modes="expiry=timer:hrtimer_expire_entry \
expiry+switch=timer:hrtimer_expire_entry,sched:sched_switch \
no-local-timer,no-expiry-exit,no-idle=sched,irq,workqueue,timer:hrtimer_start,timer:hrtimer_expire_entry,irq_vectors:call_function_entry,irq_vectors:call_function_exit,irq_vectors:call_function_single_entry,irq_vectors:call_function_single_exit,irq_vectors:reschedule_entry,irq_vectors:reschedule_exit,irq_vectors:irq_work_entry,irq_vectors:irq_work_exit"
INTERVAL_US=${INTERVAL_US:-1000} exec python3 - "$jl" "$cpu" "$rounds" "$round_s" ${MODES:-$default_modes} <<'PY'
import os, statistics, subprocess, sys, tempfile

jl, cpu, rounds, round_s = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
interval = os.environ["INTERVAL_US"]
modes = [("off", None), ("all", "")]
for m in sys.argv[5:]:
    name, events = m.split("=", 1)
    modes.append((name, events))
tmp = tempfile.mkdtemp(prefix="jl-anatomy.")
samples = os.path.join(tmp, "s.csv")
print("interval %s us, %d rounds of %s s per mode" % (interval, rounds, round_s))
for name, events in modes[2:]:
    print("  %s: %s" % (name, events))


def run(events):
    env = dict(os.environ)
    env.pop("JITTERLAB_TRACE_EVENTS", None)
    cmd = [jl, "run", "-a", cpu, "-p", "90", "-i", interval, "-D", round_s, "-q",
           "--pm-qos", "0", "--samples", samples]
    if events is not None:
        cmd.append("--explain")
        if events:
            env["JITTERLAB_TRACE_EVENTS"] = events
    p = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr.decode()))
    lat = [int(line.split(",")[2]) for line in open(samples) if line[:1].isdigit()]
    if not lat:
        sys.exit("no samples from: %s" % " ".join(cmd))
    return lat


def spread(xs):
    xs = sorted(xs)
    q = lambda f: xs[min(len(xs) - 1, int(f * (len(xs) - 1) + 0.5))]
    return "%.3f [%.3f %.3f]" % (q(0.5), q(0.25), q(0.75))


merged = {name: [] for name, _ in modes}
ratios = {name: [] for name, _ in modes}
for r in range(rounds):
    k = r % len(modes)
    order = modes[k:] + modes[:k]
    if r % 2:
        order = order[::-1]
    p50 = {}
    for name, events in order:
        lat = run(events)
        merged[name] += lat
        p50[name] = statistics.median(lat)
    for name, _ in modes:
        ratios[name].append(p50[name] / p50["off"])
    print("round %2d  " % (r + 1) + "  ".join("%s %.3f" % (n, p50[n] / 1e3) for n, _ in modes),
          flush=True)

off = statistics.median(merged["off"])
print()
print("%-40s %12s %8s  %s" % ("mode", "p50 (us)", "ratio", "per round, median [quartiles]"))
for name, _ in modes:
    p = statistics.median(merged[name])
    print("%-40s %12.3f %8.3f  %s" % (name, p / 1e3, p / off, spread(ratios[name])))
PY
