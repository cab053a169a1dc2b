#!/bin/sh
# jitterlab run --policy deadline, end to end. Checked:
#   an admissible reservation (runtime 100us every 1ms, -D 2) runs: exit 0,
#     the header names the reservation, samples counted, latency min >= 0,
#     config.policy/runtime_ns/deadline_ns/period_ns recorded, the thread is
#     SCHED_DEADLINE while it runs (/proc/PID/task/TID/sched policy 6) and
#     the result holds the kernel's read-back of the reservation; all.* sums
#     the CPUs; the run's invariants (helpers/invariants.py);
#   a reservation beyond the bandwidth (runtime = period on every online
#     CPU, more than sched_rt_runtime_us allows): exit 2 naming EBUSY, no
#     output file;
#   a workload longer than the runtime (spin 3ms against 2ms every 10ms):
#     dl_overruns > 0 and deadline misses.
# Only properties that hold on any machine are asserted. About 6 s.
. "$(dirname "$0")/lib.sh"

if ! is_root; then
    bad "without privilege" "needs root or CAP_SYS_NICE" --policy deadline --runtime 100us -D 1 --json @OUT@
    echo "1..$n"
    exit 0
fi

# admissible: watched while it runs
timeout -s KILL 30 "$JL" run --policy deadline --runtime 100us -D 2 --no-telemetry \
    --json "$T/ok.json" --samples "$T/ok.csv" >"$T/ok.out" 2>"$T/err" &
pid=$!
kill_on_exit $pid
policy=none
if wait_measuring "$T/ok.out" $pid; then
    jpid=$(pgrep -P $pid | head -1) # timeout's child: the run
    for f in /proc/$jpid/task/*/sched; do
        case $(head -1 "$f" 2>/dev/null) in
        jitterlab/*) policy=$(awk '$1 == "policy" {print $3}' "$f") ;;
        esac
    done
fi
wait $pid
rc_is "admissible reservation: exit 0" 0 $?
check "the measuring thread runs SCHED_DEADLINE (policy 6)" test "$policy" = 6 || echo "policy $policy, jpid $jpid"
check "the header names the reservation" grep -q "SCHED_DEADLINE runtime 100 us deadline 1 ms period 1 ms" "$T/ok.out"
check "the summary counts the overruns" grep -q "^SCHED_DEADLINE: [0-9]* runtime overrun" "$T/ok.out"
pyt "$T/ok.json" <<'PY'
c = d["config"]
t("config.policy is deadline, priority 0", 'c["policy"] == "deadline" and c["priority"] == 0 and c["realtime"]', c)
t("config holds the reservation", '(c["runtime_ns"], c["deadline_ns"], c["period_ns"], c["interval_ns"]) == (100000, 1000000, 1000000, 1000000)', c)
for x in d["cpus"]:
    t("cpu %d: samples counted, min >= 0" % x["cpu"], 'x["samples"] > 0 and x["latency_ns"]["min"] >= 0', x["samples"])
    t("cpu %d: the kernel's read-back is the reservation" % x["cpu"],
      'x["sched"] == {"policy": "deadline", "priority": 0, "runtime_ns": 100000, "deadline_ns": 1000000, "period_ns": 1000000}', x["sched"])
    t("cpu %d: dl_overruns and dl_elsewhere are counts" % x["cpu"],
      'type(x["dl_overruns"]) is int and 0 <= x["dl_elsewhere"] <= x["samples"]', x)
t("all.dl_overruns and all.dl_elsewhere sum the CPUs",
  'd["all"]["dl_overruns"] == sum(x["dl_overruns"] for x in d["cpus"]) and d["all"]["dl_elsewhere"] == sum(x["dl_elsewhere"] for x in d["cpus"])')
PY
inv deadline "$T/ok.json" --samples "$T/ok.csv" --text "$T/ok.out"

# inadmissible: every online CPU at 100 %, beyond sched_rt_runtime_us
online=$(cat /sys/devices/system/cpu/online)
if [ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" -ge 0 ] &&
    [ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" -lt "$(cat /proc/sys/kernel/sched_rt_period_us)" ]; then
    bad "runtime = period on every CPU" "--policy deadline: the kernel refused the reservation .*EBUSY.*sched_rt_runtime_us" \
        --policy deadline --runtime 1ms -a "$online" -D 1 --json @OUT@ --samples @DIR@/s.csv
else
    echo "# sched_rt_runtime_us leaves the whole CPU to deadline tasks: no refusal to provoke"
fi

# overruns: 3 ms of work against 2 ms of runtime every 10 ms
timeout -s KILL 30 "$JL" run --policy deadline --runtime 2ms -i 10ms -D 1.5 --workload spin:3ms \
    --no-telemetry -q --json "$T/over.json" 2>"$T/err"
rc_is "overrunning workload: exit 0" 0 $?
pyt "$T/over.json" <<'PY'
t("a workload beyond the runtime is signalled: all.dl_overruns > 0", 'd["all"]["dl_overruns"] > 0', d["all"])
t("and its cycles miss the deadline", 'd["all"]["deadline_misses"] > 0', d["all"]["deadline_misses"])
PY
echo "1..$n"
