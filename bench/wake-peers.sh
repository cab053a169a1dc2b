#!/bin/sh
# Benchmark: the wake paths of `jitterlab run --wake MECH` against their
# rt-tests peers, on the same CPUs, priority and interval. Not a test: it
# prints ratios jitterlab/peer, never judges them.
#
#   bench/wake-peers.sh [-c CPU] [-w CPU] [-i US] [-p PRIO] [-n ROUNDS]
#                       [-r SECONDS] [-m MECH,...] [-P cross,same] [-W PRIO]
#                       [-b BINARY]
#
#   -c CPU      the measured CPU: jitterlab's measuring thread, the peer's
#               receiver (default 1)
#   -w CPU      the waker's CPU in the cross pairing: jitterlab's waker, the
#               peer's sender and main thread (default 0)
#   -i US       interval in microseconds (default 1000)
#   -p PRIO     SCHED_FIFO priority of both threads of both tools (default 90;
#               jitterlab's waker gets the same with --waker-priority, as the
#               peers give their sender the receiver's)
#   -n ROUNDS   rounds per tool, mechanism and pairing (default 10)
#   -r SECONDS  length of one round, whole seconds (-D of both tools; default 3)
#   -m MECHS    of futex, signal, mq, sem (default all four)
#   -P PAIRINGS cross (waker on -w, measured on -c), same (both on -c); default both
#   -W PRIO     jitterlab's waker priority alone (default -p). Below -p the
#               thread preempts the waker in its wake call, so a same-CPU
#               sample leaves out the rest of the waker's cycle (its record
#               and its next clock_nanosleep, which arms a timer: on a VM a
#               trap to the host), which the peer's sender does not have: it
#               blocks in its next wait at once
#   -b BINARY   the jitterlab binary (default build/jitterlab)
#
# The peers and what each one measures. Each has a receiver thread that
# blocks, and a sender that takes gettimeofday() and then wakes it; the
# receiver takes gettimeofday() as soon as its wait returns, and the sample is
# the difference in whole microseconds. That is jitterlab's definition of a
# wake sample (the thread's clock read after the wait minus the waker's stamp
# before its call), read by a coarser clock.
#   futex   ptsematest: the receiver blocks in pthread_mutex_lock() on a
#           mutex the sender unlocks (glibc: FUTEX_WAIT_PRIVATE and
#           FUTEX_WAKE_PRIVATE, the kernel path of --wake futex).
#   signal  sigwaittest: pthread_kill(SIGUSR2) (tgkill) into sigwait()
#           (rt_sigtimedwait); jitterlab queues an RT signal with a value
#           (rt_tgsigqueueinfo) into sigtimedwait(): the same wake-up, a
#           different send call.
#   mq      pmqtest: mq_send() of 8 bytes into mq_receive() on a queue of one
#           message; jitterlab sends 16 bytes ({seq, stamp}) without ever
#           blocking into mq_timedreceive(): the same kernel path.
#   sem     svsematest: a System V semaphore (semop(), ipc/sem.c, woken
#           through its own queue), the closest peer of --wake sem, which is
#           a POSIX semaphore (glibc's atomic, then a shared futex). Not the
#           same kernel path: read its ratio as two mechanisms compared.
#
# What differs in every pair, besides the mechanism's details:
# - The peers report min, average and max only (their --json: avg with two
#   decimals, min and max in whole us), no percentiles. So the ratio is of
#   means: jitterlab's exact mean against the peer's average. A mean follows
#   the tail, so one VM stall moves a round's ratio; the median over rounds
#   is what is printed as the result. jitterlab's p50 is printed beside it,
#   for reading, and the peer's min in whole us.
# - Cadence. jitterlab's waker sleeps to absolute planned times and wakes the
#   thread once per interval. A peer's receiver sleeps a relative interval
#   after each sample and then wakes the sender back through the same kind
#   of mechanism (a second wake per cycle, not measured), so its period is
#   the interval plus both wakes.
# - Idle. The peer's sender runs because the receiver has just woken it, so
#   in the cross pairing the receiver's CPU went idle only a few us before
#   the measured wake; jitterlab's measured CPU has idled for nearly the
#   whole interval. A CPU idle for longer may sit in a deeper state, and on a
#   VM the host stops polling a halted vCPU after a while (halt_poll_ns): the
#   peer is spared part of the idle exit that jitterlab measures.
# - The rest of the waker's cycle. In the same pairing at equal priorities
#   the woken thread runs when the waker blocks. The peer's sender blocks in
#   its next wait right after the post; jitterlab's waker first records its
#   lateness and enters clock_nanosleep, which arms its next timer, and that
#   is in the sample (docs/wake-paths.md, "Same CPU and cross CPU"). -W below
#   -p takes it out.
# - Pairing. The peers have no option to put the sender on another CPU than
#   its receiver: -a N pins both to N, no -a leaves both unpinned. The same
#   pairing is the peer's own (-a CPU; jitterlab --waker-cpu CPU). For the
#   cross pairing the peer runs without -a under taskset -c WAKER_CPU (its
#   main thread stays there, as jitterlab's collector does) and the script
#   moves the receiver (the first thread the peer creates) to CPU as soon as
#   the sender exists; the peer's JSON, which then holds the CPU each thread
#   last ran on, must say receiver on CPU and sender on WAKER_CPU, else the
#   script stops. The cycles before the move (its time is printed, a few ms)
#   were same-CPU ones.
#
# Rounds alternate jitterlab and the peer, the one that goes first swapped
# every round. Per round: both means and their ratio. Per mechanism and
# pairing: the median of the ratios with a distribution-free interval for it,
# the order statistics [x(k), x(n+1-k)] with the largest k whose binomial
# coverage is at least 95 % (below 6 rounds no k reaches 95 %: [min, max] is
# printed with its own coverage, 75 % for 3 rounds, 94 % for 5).
# Each run holds /tmp/jitterlab-cpuCPU.lock (as the tests do) so that no other
# measurement shares the measured CPU, and is killed after SECONDS + 30 s.
# Needs root and rt-tests (ptsematest, sigwaittest, pmqtest, svsematest).
set -eu
cpu=1 waker=0 interval=1000 prio=90 rounds=10 round_s=3 mechs=futex,signal,mq,sem
pairings=cross,same wprio=
top=$(cd "$(dirname "$0")/.." && pwd)
jl="$top/build/jitterlab"
while getopts c:w:i:p:n:r:m:P:W:b: opt; do
    case $opt in
    c) cpu=$OPTARG ;;
    w) waker=$OPTARG ;;
    i) interval=$OPTARG ;;
    p) prio=$OPTARG ;;
    n) rounds=$OPTARG ;;
    r) round_s=$OPTARG ;;
    m) mechs=$OPTARG ;;
    P) pairings=$OPTARG ;;
    W) wprio=$OPTARG ;;
    b) jl=$OPTARG ;;
    *) sed -n '6,29p' "$0" >&2; exit 2 ;;
    esac
done
[ -x "$jl" ] || { echo "wake-peers: $jl: not built (make)" >&2; exit 1; }
for t in ptsematest sigwaittest pmqtest svsematest taskset python3; do
    command -v $t >/dev/null || { echo "wake-peers: needs $t (apt-get install rt-tests)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "wake-peers: needs root (SCHED_FIFO, locked memory)" >&2; exit 1; }
exec python3 - "$jl" "$cpu" "$waker" "$interval" "$prio" "$rounds" "$round_s" "$mechs" \
    "$pairings" "${wprio:-$prio}" <<'PY'
import fcntl, json, math, os, shutil, signal, subprocess, sys, tempfile, time

jl, cpu, waker, interval, prio, rounds, round_s, mechs, pairings, wprio = sys.argv[1:11]
interval, rounds, round_s = int(interval), int(rounds), int(round_s)
PEERS = {"futex": "ptsematest", "signal": "sigwaittest", "mq": "pmqtest", "sem": "svsematest"}
mechs, pairings = mechs.split(","), pairings.split(",")
for m in mechs:
    if m not in PEERS:
        sys.exit("wake-peers: -m %s: one of %s" % (m, ", ".join(PEERS)))
for p in pairings:
    if p not in ("cross", "same"):
        sys.exit("wake-peers: -P %s: cross or same" % p)
if cpu == waker and "cross" in pairings:
    sys.exit("wake-peers: -w %s: the cross pairing needs a waker CPU other than -c" % waker)
if rounds < 1 or round_s < 1:
    sys.exit("wake-peers: -n and -r: at least 1")
LIMIT_S = round_s + 30
LOCK = "/tmp/jitterlab-cpu%s.lock" % cpu
LOCK_WAIT_S = 600


class Locked:
    """flock(2) on the measured CPU's lock, as flock(1) in the tests."""

    def __enter__(self):
        self.f = open(LOCK, "a")
        t0 = time.monotonic()
        while True:
            try:
                fcntl.flock(self.f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except BlockingIOError:
                if time.monotonic() - t0 > LOCK_WAIT_S:
                    sys.exit("wake-peers: %s busy for %d s" % (LOCK, LOCK_WAIT_S))
                time.sleep(0.2)

    def __exit__(self, *exc):
        self.f.close()


def finish(p, cmd):
    try:
        _, err = p.communicate(timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        sys.exit("wake-peers: killed after %d s: %s" % (LIMIT_S, " ".join(cmd)))
    if p.returncode != 0:
        sys.exit("wake-peers: failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), err))


def jitterlab(mech, pairing, tmp):
    """(mean us, p50 us, min us, samples, missed, note)."""
    out = os.path.join(tmp, "jl.json")
    cmd = [jl, "run", "-a", cpu, "-p", prio, "-i", "%dus" % interval, "-D", "%ds" % round_s,
           "-q", "--no-telemetry", "--wake", mech,
           "--waker-cpu", waker if pairing == "cross" else cpu, "--waker-priority", wprio,
           "--json", out]
    with Locked():
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        finish(p, cmd)
    c = json.load(open(out))["cpus"][0]
    lat = c["latency_ns"]
    return (lat["mean"] / 1e3, lat["p50"] / 1e3, lat["min"] / 1e3, c["samples"], c["missed"], "")


def threads(pid):
    try:
        return sorted(int(t) for t in os.listdir("/proc/%d/task" % pid))
    except OSError:
        return []


def peer(mech, pairing, tmp):
    """(avg us, None, min us, samples, None, note)."""
    tool = PEERS[mech]
    out = os.path.join(tmp, "peer.json")
    if os.path.exists(out):
        os.unlink(out)
    cmd = ["taskset", "-c", waker, tool, "-p", prio, "-i", str(interval), "-D", str(round_s),
           "-q", "--json=" + out]
    if pairing == "same":
        cmd[4:4] = ["-a", cpu]
    # svsematest derives its semaphore key from $_ (ftok): a file that exists
    env = dict(os.environ, _=shutil.which(tool))
    note = ""
    with Locked():
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             env=env)
        if pairing == "cross":
            # taskset execs the peer: same pid. Main, receiver, sender.
            while len(threads(p.pid)) < 3:
                if p.poll() is not None or time.monotonic() - t0 > 5:
                    p.kill()
                    finish(p, cmd)
                    sys.exit("wake-peers: %s did not start its two threads" % tool)
                time.sleep(0.0005)
            receiver = threads(p.pid)[1]
            os.sched_setaffinity(receiver, {int(cpu)})
            note = "receiver moved %.0f ms after start" % ((time.monotonic() - t0) * 1e3)
        finish(p, cmd)
    t = json.load(open(out))["thread"]["0"]
    rcv, snd = t["receiver"], t["sender"]
    want = (int(cpu), int(waker) if pairing == "cross" else int(cpu))
    if (rcv["cpu"], snd["cpu"]) != want:
        sys.exit("wake-peers: %s ran its receiver on CPU %s and its sender on CPU %s, not %s"
                 % (tool, rcv["cpu"], snd["cpu"], want))
    return (rcv["avg"], None, float(rcv["min"]), snd["samples"], None, note)


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def median_interval(xs):
    """Distribution-free interval for the median: (lo, hi, coverage)."""
    s, n = sorted(xs), len(xs)
    below = lambda k: sum(math.comb(n, i) for i in range(k)) / 2 ** n  # P(Bin(n, 1/2) < k)
    k = 1
    while k + 1 <= (n + 1) // 2 and 1 - 2 * below(k + 1) >= 0.95:
        k += 1
    return s[k - 1], s[n - k], 1 - 2 * below(k)


def fmt(x, width=7):
    return "%*s" % (width, "-") if x is None else "%*.2f" % (width, x)


def main(tmp):
    print("measured CPU %s, waker CPU %s (cross) or %s (same), SCHED_FIFO %s for both threads%s, "
          "interval %d us, %d rounds of %d s per tool"
          % (cpu, waker, cpu, prio, "" if wprio == prio else " (jitterlab's waker %s)" % wprio,
             interval, rounds, round_s), flush=True)
    print("ratio = jitterlab mean / peer average (the peers print no percentile)", flush=True)
    rows = []
    for mech in mechs:
        for pairing in pairings:
            tool = PEERS[mech]
            print("\n--wake %s against %s, %s CPU" % (mech, tool, pairing), flush=True)
            print("  round  jitterlab: mean    p50    min  samples missed   %s: avg    min "
                  "samples   ratio" % tool, flush=True)
            ratios, jm, pm = [], [], []
            for r in range(rounds):
                got = {}
                for who in (("jl", "peer") if r % 2 == 0 else ("peer", "jl")):
                    got[who] = (jitterlab if who == "jl" else peer)(mech, pairing, tmp)
                a, b = got["jl"], got["peer"]
                ratio = a[0] / b[0] if b[0] > 0 else float("nan")
                ratios.append(ratio)
                jm.append(a[0])
                pm.append(b[0])
                print("  %5d  %15s %6s %6s %8d %6d   %*s %6s %7d  %6.3f  %s"
                      % (r + 1, fmt(a[0]), fmt(a[1], 6), fmt(a[2], 6), a[3], a[4],
                         len(tool) + 5, fmt(b[0]), fmt(b[2], 6), b[3], ratio, b[5]), flush=True)
            lo, hi, cover = median_interval(ratios)
            rows.append((mech, tool, pairing, median(jm), median(pm), median(ratios), lo, hi,
                         cover))
            print("  median ratio %.3f, %.0f %% interval %.3f .. %.3f over %d rounds"
                  % (median(ratios), cover * 100, lo, hi, len(ratios)), flush=True)
    print("\nsummary (us; medians over rounds; ratio jitterlab / peer with its "
          "distribution-free interval)")
    print("%-7s %-12s %-6s %10s %10s %7s  %s" % ("wake", "peer", "CPUs", "jitterlab", "peer",
                                                  "ratio", "interval"))
    for mech, tool, pairing, a, b, r, lo, hi, cover in rows:
        print("%-7s %-12s %-6s %10.2f %10.2f %7.3f  %.3f .. %.3f (%.0f %%)"
              % (mech, tool, pairing, a, b, r, lo, hi, cover * 100))
    if "sem" in mechs:
        print("(sem: svsematest is a System V semaphore, jitterlab's a POSIX one: not the same "
              "kernel path)")
    if "cross" in pairings:
        print("(cross: the peer's receiver CPU went idle a few us before each wake, "
              "jitterlab's about an interval before)")


def on_signal(signum, frame):
    sys.exit("wake-peers: stopped by signal %d" % signum)


signal.signal(signal.SIGTERM, on_signal)
signal.signal(signal.SIGHUP, on_signal)
with tempfile.TemporaryDirectory(prefix="jl-bench.") as tmp:
    main(tmp)
PY
