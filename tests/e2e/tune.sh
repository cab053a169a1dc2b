#!/bin/sh
# Reversible tuning. On writable copies of fixture trees: apply changes
# exactly the expected files, restore leaves the tree byte-identical, a
# dry run changes nothing, an apply killed with SIGKILL half-way is warned
# about and recovered by restore, a second apply keeps the first snapshot,
# a failed restore exits 1 naming what stayed. On this machine (root): tune
# apply / restore of CPU 1, nothing held after exit, and run --tune restoring
# after SIGINT. Bad input exits 2. About 15 s.
. "$(dirname "$0")/lib.sh"
FIX=$JL_TOP/tests/fixtures
export JITTERLAB_TUNE_STATE="$T/default-state.json" # never the machine's /run file

fresh() { rm -rf "$T/tree" && cp -a "$FIX/$1" "$T/tree"; }
changed_files() { diff -rq "$FIX/$1" "$T/tree" | sed "s|^Files $FIX/$1/||; s| and .*||" | sort; }

# --- apply changes exactly the expected files; restore is byte-identical --------
fresh intel-ipc-untuned
S=$T/state.json
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 3 --profile realtime >"$T/out" 2>"$T/err"
rc_is "apply (realtime, CPU 3, 50 us) on the untuned Intel tree exits 0" 0 $?
changed_files intel-ipc-untuned >"$T/changed"
cat >"$T/expected" <<'EOF'
proc/irq/122/smp_affinity_list
proc/irq/127/smp_affinity_list
proc/irq/129/smp_affinity_list
proc/irq/9/smp_affinity_list
proc/sys/kernel/timer_migration
sys/devices/system/cpu/cpu3/cpuidle/state3/disable
sys/devices/system/cpu/cpu3/cpuidle/state4/disable
sys/devices/system/cpu/cpu3/cpuidle/state5/disable
sys/devices/system/cpu/cpu3/power/pm_qos_resume_latency_us
sys/devices/system/cpu/cpufreq/policy3/energy_performance_preference
sys/devices/system/cpu/cpufreq/policy3/scaling_governor
sys/devices/system/cpu/cpufreq/policy3/scaling_min_freq
EOF
sort -o "$T/expected" "$T/expected"
if cmp -s "$T/changed" "$T/expected"; then ok "apply changed exactly the expected 12 files"; else not_ok "apply changed exactly the expected 12 files" "$(diff "$T/expected" "$T/changed" | tr '\n' ' ')"; fi
check "C6 (195 us) disabled on CPU 3" grep -qx 1 "$T/tree/sys/devices/system/cpu/cpu3/cpuidle/state3/disable"
check "C1E (10 us) left alone" grep -qx 0 "$T/tree/sys/devices/system/cpu/cpu3/cpuidle/state2/disable"
check "governor is performance" grep -qx performance "$T/tree/sys/devices/system/cpu/cpufreq/policy3/scaling_governor"
check "the snapshot file exists" test -s "$S"
check "apply prints the boot parameters it cannot apply" grep -q 'isolcpus=managed_irq,domain,3 nohz_full=3 rcu_nocbs=3' "$T/out"
"$JL" tune status --state "$S" >"$T/status"
check "status lists every change as tuned" test "$(grep -c '\[tuned\]' "$T/status")" -eq 12
"$JL" tune restore --state "$S" >"$T/out" 2>"$T/err"
rc_is "restore exits 0" 0 $?
check "restore leaves the tree byte-identical (diff -r)" diff -r "$FIX/intel-ipc-untuned" "$T/tree"
check "restore removes the snapshot" test ! -e "$S"
"$JL" tune restore --state "$S" >"$T/out" 2>"$T/err"
rc_is "restore without a snapshot exits 2" 2 $?
check "... and says there is nothing to restore" grep -q 'no snapshot' "$T/err"

# --- dry run -----------------------------------------------------------------
fresh intel-ipc-untuned
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 3 --dry-run >"$T/out" 2>"$T/err"
rc_is "dry run exits 0" 0 $?
check "dry run changes nothing" diff -r "$FIX/intel-ipc-untuned" "$T/tree"
check "dry run writes no snapshot" test ! -e "$S"
check "dry run prints shell commands" grep -q "^echo 1 > $T/tree/sys/devices/system/cpu/cpu3/cpuidle/state5/disable" "$T/out"

# --- SIGKILL in the middle of apply; later invocations warn; restore recovers ----
fresh intel-ipc-untuned
JITTERLAB_TUNE_WRITE_DELAY_MS=250 "$JL" tune apply --sysroot "$T/tree" --state "$S" -a 3 -q --profile realtime &
pid=$!
sleep 1.2
kill -KILL $pid
wait $pid 2>/dev/null
n_changed=$(changed_files intel-ipc-untuned | wc -l)
if [ "$n_changed" -gt 0 ] && [ "$n_changed" -lt 12 ]; then ok "apply killed half-way ($n_changed of 12 files changed)"; else not_ok "apply killed half-way" "$n_changed files changed"; fi
JITTERLAB_TUNE_STATE=$S "$JL" run --help >/dev/null 2>"$T/err"
check "the next invocation warns about the unrestored settings" grep -q 'never restored.*jitterlab tune restore' "$T/err"
"$JL" tune restore --state "$S" >"$T/out" 2>"$T/err"
rc_is "restore after SIGKILL exits 0" 0 $?
check "restore after SIGKILL: tree byte-identical" diff -r "$FIX/intel-ipc-untuned" "$T/tree"

# --- a second apply extends the snapshot, keeping the original values ----------
fresh intel-ipc-untuned
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 3 -q --only idle-states --budget 500us
check "first apply (500 us) disables C8 and C10" test "$(changed_files intel-ipc-untuned | wc -l)" -eq 2
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 3 -q --only idle-states,timer-migration --budget 50us
check "second apply (50 us) adds C6, C8 and timer migration" test "$(changed_files intel-ipc-untuned | wc -l)" -eq 4
pyt "$S" <<'EOF'
c = {x["path"]: x for x in d["changes"]}
t("the journal holds all four changes", 'len(c) == 4')
t("C10 keeps its original value 0", 'c["/sys/devices/system/cpu/cpu3/cpuidle/state5/disable"]["old"] == "0"')
t("the journal is fsynced complete", 'd["complete"] is True and d["mode"] == "apply"')
EOF
"$JL" tune restore --state "$S" -q
check "restore after two applies: tree byte-identical" diff -r "$FIX/intel-ipc-untuned" "$T/tree"

# --- a restore that fails: exit 1, what stayed is listed, snapshot kept -----------
fresh intel-ipc-untuned
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 3 -q --only timer-migration,idle-states
f=$T/tree/proc/sys/kernel/timer_migration
rm "$f" && mkdir "$f" # nothing can be written there now
"$JL" tune restore --state "$S" >"$T/out" 2>"$T/err"
rc_is "a failed restore exits 1" 1 $?
check "... names the setting it could not restore" grep -q '/proc/sys/kernel/timer_migration' "$T/err"
check "... keeps the snapshot" test -e "$S"
check "... restores the others" grep -qx 0 "$T/tree/sys/devices/system/cpu/cpu3/cpuidle/state3/disable"
rm -f "$S"

# --- bad input -----------------------------------------------------------------
BAD_SUBCOMMAND="tune apply --state $T/bad-state.json --sysroot $FIX/intel-ipc-untuned"
bad "--budget 0" '--budget 0: must be greater than 0' --budget 0
bad "--budget -5" '--budget' --budget -5
bad "unknown action" "unknown action 'turbo'.*idle-states" --only turbo
bad "unknown profile" '--profile' --profile fastest
bad "--boost maybe" '--boost' --boost maybe
bad "CPU not online" '--cpus.*not online' -a 64
BAD_SUBCOMMAND=tune
bad "unknown verb" "unknown verb" fix
BAD_SUBCOMMAND=run
bad "run --tune=fastest" '--tune' -a 1 -D 1 --tune=fastest --json @OUT@

# --- this machine -----------------------------------------------------------------
if ! is_root; then
    ok "on this machine # SKIP not root"
    exit 0
fi
tm_before=$(cat /proc/sys/kernel/timer_migration)
irq_before=$(cat /proc/irq/*/smp_affinity_list 2>/dev/null | tr '\n' ' ')
rl_before=$(cat /sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us 2>/dev/null)
S=$T/machine.json
"$JL" tune apply --cpus 1 --budget 500ns --profile realtime --state "$S" >"$T/out" 2>"$T/err"
rc_is "tune apply --cpus 1 --budget 500ns on this machine exits 0" 0 $?
check "timer migration is off while tuned" grep -qx 0 /proc/sys/kernel/timer_migration
if [ -d /sys/devices/system/cpu/cpu1/cpuidle ]; then
    deep=$(for s in /sys/devices/system/cpu/cpu1/cpuidle/state*; do [ "$(cat "$s/latency")" -ge 1 ] && cat "$s/disable"; done | sort -u | tr '\n' ' ')
    check "idle states of CPU 1 exiting in >= 1 us are disabled" test "$deep" = "1 "
else
    check "no cpuidle states here: said, nothing changed for them" grep -q 'idle-states: no idle state' "$T/out"
fi
check "nothing is held after apply exits (PM QoS back to no request)" test "$(head -c 4 /dev/cpu_dma_latency | od -An -td4 | tr -d ' ')" = 2000000000
"$JL" tune restore --state "$S" >"$T/out" 2>"$T/err"
rc_is "tune restore on this machine exits 0" 0 $?
check "timer migration restored" test "$(cat /proc/sys/kernel/timer_migration)" = "$tm_before"
check "IRQ affinities restored" test "$(cat /proc/irq/*/smp_affinity_list 2>/dev/null | tr '\n' ' ')" = "$irq_before"
check "resume latency restored" test "$(cat /sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us 2>/dev/null)" = "$rl_before"

S=$T/hold-state.json
"$JL" tune hold --cpus 1 --only pm-qos,timer-migration -D 2 --state "$S" -q &
pid=$!
sleep 1
tm_during=$(cat /proc/sys/kernel/timer_migration)
pm_during=$(head -c 4 /dev/cpu_dma_latency | od -An -td4 | tr -d ' ')
wait $pid
rc_is "tune hold -D 2 exits 0" 0 $?
check "hold: timer migration off while holding" test "$tm_during" = 0
check "hold: PM QoS held at half the 50 us budget" test "$pm_during" = 25
check "hold: timer migration restored at the end" test "$(cat /proc/sys/kernel/timer_migration)" = "$tm_before"
check "hold: PM QoS released at the end" test "$(head -c 4 /dev/cpu_dma_latency | od -An -td4 | tr -d ' ')" = 2000000000
check "hold: no snapshot left" test ! -e "$S"

S=$T/run-state.json
JITTERLAB_TUNE_STATE=$S "$JL" run -a 1 -D 20 -q --tune=realtime --json "$T/run.json" 2>"$T/err" &
pid=$!
sleep 1.5
tm_during=$(cat /proc/sys/kernel/timer_migration)
pm_during=$(head -c 4 /dev/cpu_dma_latency | od -An -td4 | tr -d ' ')
kill -INT $pid
wait $pid
rc_is "run --tune interrupted with SIGINT exits 0" 0 $?
check "run --tune: timer migration off during the run" test "$tm_during" = 0
check "run --tune: PM QoS held at half the budget during the run" test "$pm_during" = 25
check "run --tune: timer migration restored after SIGINT" test "$(cat /proc/sys/kernel/timer_migration)" = "$tm_before"
check "run --tune: IRQ affinities restored after SIGINT" test "$(cat /proc/irq/*/smp_affinity_list 2>/dev/null | tr '\n' ' ')" = "$irq_before"
check "run --tune: no snapshot left" test ! -e "$S"
pyt "$T/run.json" <<'EOF'
t("run --tune: the document is complete and interrupted", 'd["interrupted"] is True and d["all"]["samples"] > 0')
EOF
S=$T/killed-state.json
JITTERLAB_TUNE_STATE=$S "$JL" run -a 1 -D 20 -q --tune --only-not-an-option 2>/dev/null # (usage error: nothing applied)
check "a refused run --tune leaves no snapshot" test ! -e "$S"
JITTERLAB_TUNE_STATE=$S "$JL" run -a 1 -D 20 -q --tune 2>"$T/err" &
pid=$!
sleep 1.5
kill -KILL $pid
wait $pid 2>/dev/null
check "run --tune killed with SIGKILL leaves its snapshot" test -s "$S"
JITTERLAB_TUNE_STATE=$S "$JL" load --help >/dev/null 2>"$T/err"
check "... and the next invocation warns about it" grep -q 'WARNING: settings changed by jitterlab (run' "$T/err"
"$JL" tune restore --state "$S" >"$T/out" 2>"$T/err"
rc_is "... and tune restore recovers it" 0 $?
check "... timer migration back" test "$(cat /proc/sys/kernel/timer_migration)" = "$tm_before"

# leave the machine as found, whatever happened above
"$JL" tune restore --state "$T/machine.json" -q 2>/dev/null
"$JL" tune restore --state "$S" -q 2>/dev/null
true
