#!/bin/sh
# Best-effort loads, standalone (jitterlab load) and beside a run (--load):
# the duty cycle a pulse achieves (from jitterlab's own accounting and from
# the kernel's, via wait4), loads only on the CPUs asked for and never
# real-time, a pulsed command started and stopped the expected number of
# times (without a page fault in the measured thread), no child left after
# SIGTERM or SIGKILL of jitterlab, the load in the run result, a command
# that fails (at once: exit 2 before measuring; later: counted and warned
# about), and bad load specs refused with exit 2. About 27 s.
. "$(dirname "$0")/lib.sh"

# --- pulse:50ms:50ms for 3 s uses 40-60% of one CPU ------------------------
J=$T/pulse.json
python3 - "$JL" "$J" >"$T/rusage" <<'EOF'
import os, subprocess, sys
p = subprocess.Popen([sys.argv[1], "load", "pulse:50ms:50ms", "-a", "1", "-D", "3", "-q",
                      "--json", sys.argv[2]])
_, status, ru = os.wait4(p.pid, 0)
print(os.waitstatus_to_exitcode(status), ru.ru_utime + ru.ru_stime)
EOF
read -r rc cpu_s <"$T/rusage"
rc_is "load pulse:50ms:50ms -D 3 exits 0" 0 "$rc"
pyt "$J" cpu_s="$cpu_s" <<'EOF'
l = d["loads"][0]
note("duty from jitterlab: %s; process CPU time from wait4: %s s" % (l["duty"], v["cpu_s"]))
t("load document kind", 'd["kind"] == "load" and d["schema"] == 1')
t("pulse described", 'l["pulse"] == {"on_ns": 50000000, "off_ns": 50000000} and l["cpus"] == [1]')
t("duty (jitterlab) 40..60%", '0.40 <= l["duty"][0]["duty"] <= 0.60', 'l["duty"]')
t("duty (kernel, wait4) 40..60% of 3 s", '0.40 <= float(v["cpu_s"]) / 3 <= 0.60', 'v["cpu_s"]')
EOF

# --- loads run only on the CPUs asked for, never real-time -----------------
# tasks_of PID: "TID POLICY CPUS_ALLOWED" for each load thread of PID
tasks_of() {
    for t in /proc/"$1"/task/*; do
        grep -q '^jl-load' "$t/comm" 2>/dev/null || continue
        pol=$(awk '{print $41}' "$t/stat" 2>/dev/null)
        cpus=$(awk '/^Cpus_allowed_list/ {print $2}' "$t/status" 2>/dev/null)
        echo "${t##*/} $pol $cpus"
    done
}
for case in "other 0" "batch 3" "idle 5"; do
    set -- $case
    "$JL" load cache:1MiB -a 1 -D 2 -q --policy "$1" &
    pid=$!
    sleep 0.8
    tasks_of $pid >"$T/tasks"
    wait $pid
    n=$(wc -l <"$T/tasks")
    wrong=$(awk -v pol="$2" '$2 != pol || $3 != "1"' "$T/tasks")
    if [ "$n" -eq 1 ] && [ -z "$wrong" ]; then
        ok "--policy $1: one load thread, policy $2, pinned to CPU 1"
    else
        not_ok "--policy $1: one load thread, policy $2, pinned to CPU 1" "$(cat "$T/tasks")"
    fi
done
"$JL" load cpu -a 0-1 -D 2 -q &
pid=$!
sleep 0.8
tasks_of $pid | awk '{print $3}' | sort >"$T/tasks"
wait $pid
if [ "$(tr '\n' ' ' <"$T/tasks")" = "0 1 " ]; then ok "cpu on 0-1: one thread per CPU, each pinned"; else not_ok "cpu on 0-1: one thread per CPU, each pinned" "$(cat "$T/tasks")"; fi

"$JL" load 'cmd:exec sleep 31' -a 1 -D 2 -q &
pid=$!
sleep 0.8
child=$(pgrep -f '^sleep 31' | head -1)
aff=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/"$child"/status 2>/dev/null)
pol=$(awk '{print $41}' /proc/"$child"/stat 2>/dev/null)
pgid=$(awk '{print $5}' /proc/"$child"/stat 2>/dev/null)
wait $pid
if [ "$aff" = 1 ] && [ "$pol" = 0 ] && [ "$pgid" = "$child" ]; then
    ok "cmd child: pinned to CPU 1, SCHED_OTHER, leads its own process group"
else
    not_ok "cmd child: pinned to CPU 1, SCHED_OTHER, leads its own process group" "affinity=$aff policy=$pol pgid=$pgid child=$child"
fi

# --- a pulsed command: started at each ON, killed at each OFF ---------------
F=$T/starts
# KIND between options: the document's argv keeps the order as typed
"$JL" load -a 1 "pulse:200ms:200ms:cmd:echo x >> $F; exec sleep 100" -D 2 -q --json "$T/cmd.json"
rc_is "pulsed cmd exits 0" 0 $?
starts=$(wc -l <"$F")
pyt "$T/cmd.json" starts="$starts" F="$F" J="$T/cmd.json" <<'EOF'
l = d["loads"][0]
typed = ["jitterlab", "load", "-a", "1", "pulse:200ms:200ms:cmd:echo x >> %s; exec sleep 100" % v["F"], "-D", "2", "-q", "--json", v["J"]]
t("load --json: argv is the command line as typed (not reordered by parsing)", 'd["argv"] == typed', '(d["argv"], typed)')
note("command started %s times (JSON: %s)" % (v["starts"], l["starts"]))
t("pulsed cmd started 5 times in 2 s (one per ON)", 'int(v["starts"]) == 5', 'v["starts"]')
t("JSON counts the same starts", 'l["starts"] == int(v["starts"])', '(l["starts"], v["starts"])')
t("cmd duty is one entry for the whole command", 'len(l["duty"]) == 1 and l["duty"][0]["cpu"] is None')
EOF
if pgrep -f '^sleep 100' >/dev/null; then not_ok "no pulsed command left after the load" "$(pgrep -af '^sleep 100')"; else ok "no pulsed command left after the load"; fi

# --- a command load does not fault the measured thread ----------------------
# Starting a command must not write-protect the memory-locked process's pages
# (fork would: copy-on-write); the measured thread, writing its stack and
# buffers in every cycle of the workload, must then take no page fault at all.
J=$T/spawn.json
"$JL" run -a 1 -i 1ms -D 2 -q --workload spin:20us --load pulse:20ms:20ms:cmd:true@0 \
    --counters page-faults --json "$J" 2>"$T/err"
rc_is "run with a pulsed cmd:true load exits 0" 0 $?
pyt "$J" <<'EOF2'
l = d["config"]["load"][0]
pf = d["cpus"][0]["counters"]["page_faults"]
note("command started %s times; measured thread page faults: %s" % (l["starts"], pf))
t("the command was started many times", 'l["starts"] >= 25', 'l["starts"]')
t("no page fault in the measured thread while commands start", 'pf["total"] == 0', 'pf')
EOF2

# --- no child process remains after SIGTERM or SIGKILL of jitterlab ------------
"$JL" load 'cmd:sleep 123 & sleep 123; wait' -a 1 -D 30 -q --json "$T/term.json" &
pid=$!
sleep 0.8
kill -TERM $pid
wait $pid
rc_is "SIGTERM: load exits 0" 0 $?
sleep 0.2
if pgrep -f '^sleep 123' >/dev/null; then not_ok "SIGTERM: no child process remains" "$(pgrep -af '^sleep 123')"; else ok "SIGTERM: no child process remains"; fi
pyt "$T/term.json" <<'EOF'
t("SIGTERM: the document says interrupted", 'd["interrupted"] is True')
EOF
"$JL" load 'cmd:exec sleep 124' -a 1 -D 30 -q &
pid=$!
sleep 0.8
kill -KILL $pid
wait $pid 2>/dev/null
sleep 0.3
if pgrep -f '^sleep 124' >/dev/null; then not_ok "SIGKILL: the command dies with jitterlab" "$(pgrep -af '^sleep 124')"; pkill -f '^sleep 124'; else ok "SIGKILL: the command dies with jitterlab"; fi

# --- run --load: the load runs beside the measurement and is recorded -------
J=$T/run.json
"$JL" run -a 1 -D 2 -q --load pulse:50ms:50ms --load cache:4MiB@0 --json "$J" 2>"$T/err"
rc_is "run --load exits 0" 0 $?
pyt "$J" <<'EOF'
ls = d["config"]["load"]
note("loads: %s" % [(l["spec"], l["duty"]) for l in ls])
t("two loads recorded", 'len(ls) == 2')
t("default load CPUs: the online CPUs not measured", 'ls[0]["cpus"] == [0]')
t("@CPUS taken", 'ls[1]["spec"] == "cache:4MiB" and ls[1]["cpus"] == [0] and ls[1]["size_bytes"] == 4194304')
t("duty per load CPU recorded", 'all(len(l["duty"]) == 1 and l["duty"][0]["cpu"] == 0 and 0 < l["duty"][0]["duty"] <= 1 for l in ls)')
t("the pulse got at most its ON share", 'ls[0]["duty"][0]["duty"] <= 0.6')
t("the measurement ran as usual", 'abs(d["all"]["samples"] + d["all"]["missed"] - 2000) <= 20')
EOF

# --- a failing command -------------------------------------------------------
# One that fails in its first ON phase ends the run before it measures (exit
# 2, with the command's own stderr, nothing written); one that fails later
# is counted in the result and warned about, and the run goes on.
BAD_SUBCOMMAND=run
bad "run --load cmd:nonexistent" '^jitterlab: --load cmd:nonexistent-jl-cmd: the command failed: .*nonexistent-jl-cmd.*not found.*exit status 127' -a 1 -D 1 --json @OUT@ --load cmd:nonexistent-jl-cmd@0
bad "run --load cmd that exits 3" '^jitterlab: --load cmd:sh -c "echo oops >&2; exit 3": the command failed: oops \(exit status 3\)' -a 1 -D 1 --json @OUT@ --load 'cmd:sh -c "echo oops >&2; exit 3"@0'
BAD_SUBCOMMAND=load
bad "load pulse:...:cmd:nonexistent" '^jitterlab: load pulse:100ms:100ms:cmd:nonexistent-jl-cmd: the command failed: .*not found' -a 0 -D 1 --json @OUT@ pulse:100ms:100ms:cmd:nonexistent-jl-cmd
FLAG=$T/flag
J=$T/fails.json
(sleep 0.6; : >"$FLAG") &
"$JL" run -a 1 -D 1.5 -q --load "pulse:200ms:200ms:cmd:test -e $FLAG && { echo flagged >&2; exit 4; }; exec sleep 10@0" \
    --json "$J" 2>"$T/err"
rc_is "run with a command that fails after its first start exits 0" 0 $?
if grep -Eq '^jitterlab: load pulse:200ms:200ms:cmd:.*: [0-9]+ of [0-9]+ starts failed, the last one: flagged \(exit status 4\)' "$T/err"; then
    ok "the failed starts are warned about"
else
    not_ok "the failed starts are warned about" "stderr: $(head -3 "$T/err")"
fi
pyt "$J" <<'EOF'
l = d["config"]["load"][0]
note("starts %s, failures %s, last failure %s" % (l["starts"], l["failures"], l["last_failure"]))
t("failures counted, the first start not among them", '0 < l["failures"] < l["starts"]', '(l["failures"], l["starts"])')
t("last_failure: exit status and stderr tail", 'l["last_failure"] == {"exit_status": 4, "signal": None, "stderr_tail": "flagged\\n"}', 'l["last_failure"]')
EOF
pyt "$T/cmd.json" <<'EOF'
l = d["loads"][0]
t("a pulsed command killed at every OFF has no failure", 'l["failures"] == 0 and l["last_failure"] is None and l["finished"] == 0', 'l')
EOF

# --- bad specs ---------------------------------------------------------------
BAD_SUBCOMMAND=load
bad "load pulse:0:0" 'pulse' -a 1 -D 1 --json @OUT@ pulse:0:0
bad "load bogus" "unknown load kind 'bogus'" -a 1 -D 1 --json @OUT@ bogus
bad "load cmd: (empty)" 'cmd needs a command' -a 1 -D 1 --json @OUT@ cmd:
bad "load --policy fifo" '--policy' -a 1 -D 1 --json @OUT@ --policy fifo cpu
bad "load --nice 20" '--nice' -a 1 -D 1 --json @OUT@ --nice 20 cpu
bad "load -a 9" '--cpus.*not online' -a 9 -D 1 --json @OUT@ cpu
bad "load without a kind" 'which load' -a 1 -D 1 --json @OUT@
# Durations are bounded (at most 8784h), so that start + duration and
# ON + OFF can never overflow.
bad "load -D INT64_MAX ns" '^jitterlab: --duration 9223372036854775807ns: must be at most 8784h' -a 1 -D 9223372036854775807ns --json @OUT@ cpu
bad "load -D 8785h" '^jitterlab: --duration 8785h: must be at most 8784h' -a 1 -D 8785h --json @OUT@ cpu
bad "load pulse ON INT64_MAX ns" 'pulse ON/OFF: must be at most 8784h' -a 1 -D 1 --json @OUT@ pulse:9223372036854775807ns:1ms
bad "load pulse OFF 8785h" 'pulse ON/OFF: must be at most 8784h' -a 1 -D 1 --json @OUT@ pulse:1ms:8785h:cmd:true
BAD_SUBCOMMAND=run
bad "run --load cpu@1 -a 1 (every measured CPU)" 'every measured CPU' -a 1 -D 1 --json @OUT@ --load cpu@1
bad "run --load cpu -a 0-1 (no CPU left)" 'no CPU left' -a 0-1 -D 1 --json @OUT@ --load cpu
bad "run --load pulse:0:0" '--load' -a 1 -D 1 --json @OUT@ --load pulse:0:0
bad "run --load cmd:" '--load' -a 1 -D 1 --json @OUT@ --load cmd:
bad "run --load pulse with a huge OFF" '^jitterlab: --load pulse:1ms:9223372036854775807ns@0: pulse ON/OFF: must be at most 8784h' -a 1 -D 1 --json @OUT@ --load pulse:1ms:9223372036854775807ns@0
