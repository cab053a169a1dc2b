#!/bin/sh
# What run's telemetry figures say they are, end to end. Checked:
#   --pm-qos 0 on a tree without a cpuidle driver (current_driver absent,
#     or "none") says the hold changes nothing now; with a driver it does
#     not;
#   the telemetry summary names its windows (--report-every 500ms: "over N
#     windows of 500 ms");
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
check "the summary names its windows (250 ms)" grep -Eq "^Telemetry over [0-9]+ windows of 250 ms, averaged; rates per second" "$T/drv.out"

# --- busy: a spin of 100 us every 250 us is 40% of the CPU ---------------------
"$JL" run -a 1 -i 250us --workload spin:100us -D 2s --report-every 500ms -q --json "$T/spin.json" 2>"$T/err"
rc_is "run -i 250us --workload spin:100us: exit 0" 0 $?
check "busy of the spinning CPU at least 25% in its full windows" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
src = d["telemetry_sources"]["busy_pct"]["source"]
busy = [w["busy_pct"] for w in d["telemetry"] if w["busy_pct"] is not None and w["samples"] > 0]
print(src, busy)
sys.exit(0 if src in ("schedstat", "thread-schedstat", "perf-msr", "msr") and busy and min(busy) >= 25 else 1)' "$T/spin.json"
