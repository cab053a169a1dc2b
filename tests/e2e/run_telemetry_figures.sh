#!/bin/sh
# What run's telemetry figures say they are, end to end. Checked:
#   --pm-qos 0 on a tree without a cpuidle driver (current_driver absent,
#     or "none") says the hold changes nothing now; with a driver it does
#     not;
#   the telemetry summary names its windows (--report-every 500ms: "over N
#     windows of 500 ms");
#   tune hold --only pm-qos says the same, in the same words;
#   busy: a spin of 100 us every 250 us (40% of the CPU) reads as busy, at
#     least 25%, although the loop's period divides the scheduler tick.
# About 5 s.
. "$(dirname "$0")/lib.sh"

tree() { # tree DIR [DRIVER]: online CPUs 0-1, a PM QoS file, maybe a driver
    mkdir -p "$1/sys/devices/system/cpu" "$1/dev"
    echo 0-1 >"$1/sys/devices/system/cpu/online"
    printf '\000\000\000\000' >"$1/dev/cpu_dma_latency"
    if [ -n "$2" ]; then
        mkdir -p "$1/sys/devices/system/cpu/cpuidle"
        echo "$2" >"$1/sys/devices/system/cpu/cpuidle/current_driver"
    fi
}
tree "$T/nodrv"
tree "$T/none" none
tree "$T/drv" intel_idle
for t in nodrv none drv; do
    "$JL" run --sysroot "$T/$t" -a 1 -i 1ms -D 500ms --pm-qos 0 --report-every 250ms >"$T/$t.out" 2>"$T/err"
    rc_is "--pm-qos 0 on a tree ($t): exit 0" 0 $?
done
check "--pm-qos 0, no current_driver: changes nothing now" grep -q "^PM QoS: holding .* at 0 µs for the run; it changes nothing now: no cpuidle driver (.*current_driver absent)" "$T/nodrv.out"
check "--pm-qos 0, current_driver none: changes nothing now" grep -q "^PM QoS: holding .* at 0 µs for the run; it changes nothing now: no cpuidle driver (current_driver: none)" "$T/none.out"
check "--pm-qos 0 with a driver: a plain hold" grep -qx "PM QoS: holding /dev/cpu_dma_latency at 0 µs for the run" "$T/drv.out"
# tune hold says the same of its hold, in the same words
"$JL" tune hold --sysroot "$T/nodrv" --state "$T/nodrv.state" -a 1 --only pm-qos -D 200ms >"$T/tune-nodrv.out" 2>"$T/err"
rc_is "tune hold --only pm-qos on a tree without a driver: exit 0" 0 $?
check "tune hold, no cpuidle driver: changes nothing now" grep -q "^PM QoS: holding /dev/cpu_dma_latency at [0-9]* µs until tune ends; it changes nothing now: no cpuidle driver (.*current_driver absent) (held in case one loads)" "$T/tune-nodrv.out"
"$JL" tune hold --sysroot "$T/drv" --state "$T/drv.state" -a 1 --only pm-qos -D 200ms >"$T/tune-drv.out" 2>"$T/err"
check "tune hold with a driver: a plain hold" grep -qx "PM QoS: holding /dev/cpu_dma_latency at [0-9]* µs until tune ends" "$T/tune-drv.out"
# 500 ms in windows of 250 ms: two whole windows, and the run's end a
# fraction of a window after the last boundary, counted apart
check "the summary names its windows: 2 of 250 ms, a short last one apart" grep -Eq "^Telemetry over 2 windows of 250 ms( and a last one of [0-9.]+ (us|µs|ms|s))?, averaged by time; rates per second" "$T/drv.out"

# --- busy: a spin of 100 us every 250 us is 40% of the CPU ---------------------
# What a window can justify is what its thread ran: each sample is one
# 100 us spin, so busy is at least samples x 100 us / the window's length
# (80% of it: a spin calibrated at the fastest rate may run a little
# faster later). On a loaded machine the thread may run few cycles and read
# low busy rightly; where it ran nearly every cycle, busy is at least 25%.
# Every window with samples has a figure, the last one too (its snapshot is
# taken after the thread exited).
"$JL" run -a 1 -i 250us --workload spin:100us -D 2s --report-every 500ms -q --json "$T/spin.json" 2>"$T/err"
rc_is "run -i 250us --workload spin:100us: exit 0" 0 $?
check "busy of the spinning CPU: at least what its cycles ran, in every window" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
src = d["telemetry_sources"]["busy_pct"]["source"]
if src not in ("schedstat", "thread-schedstat", "perf-msr", "msr"):
    sys.exit("busy from %s, not a run-time source" % src)
start, bad, full = 0.0, [], 0
for w in d["telemetry"]:
    length, start = w["t_s"] - start, w["t_s"]
    if w["samples"] == 0:
        continue
    spun = 100.0 * w["samples"] * 100e-6 / length
    busy = w["busy_pct"]
    print("window to %.3f s: %d samples, ran %.1f%% spinning, busy %s" % (w["t_s"], w["samples"], spun, busy))
    if busy is None or busy < 0.8 * spun or (w["samples"] >= 0.9 * length / 250e-6 and busy < 25):
        bad.append(w["t_s"])
sys.exit("windows %s" % bad if bad else 0)' "$T/spin.json"
