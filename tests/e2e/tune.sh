#!/bin/sh
# Reversible tuning. On writable copies of fixture trees: apply changes
# exactly the expected files, restore leaves the tree byte-identical, a
# dry run changes nothing, an apply killed with SIGKILL half-way is warned
# about and recovered by restore, a second apply keeps the first snapshot,
# a failed restore exits 1 naming what stayed, a crafted journal writes
# nothing outside the allow-list or the tree, a 456-character IRQ list comes
# back whole, a second session is refused, SIGHUP restores, run --tune
# records config.tune, inspect counts the IRQs tune moves, a refused change
# exits 1 and stays out of the journal and status (run --tune goes on). On
# this machine (root): tune apply / restore of CPU 1,
# nothing held after exit, and run --tune restoring after SIGINT, each
# checked against the script's own snapshot, which an EXIT trap writes back
# with the shell. Bad input exits 2. About 25 s.
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
check "apply prints the boot parameters it cannot apply" grep -q 'isolcpus=managed_irq,domain,3 rcu_nocbs=3' "$T/out"
check "... without nohz_full=, which this kernel (CONFIG_NO_HZ_IDLE) ignores" grep -q '^  left out: nohz_full=3 (this kernel lacks CONFIG_NO_HZ_FULL' "$T/out"
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
# the boot proposal holds only what the kernel takes; on a VM the firmware is the host's
fresh vm-haltpoll
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 1 --dry-run >"$T/out" 2>"$T/err"
rc_is "dry run on the VM tree exits 0" 0 $?
check "VM: no nohz_full= on the proposed command line (no CONFIG_NO_HZ_FULL)" sh -c '! grep "^  kernel command line:.*nohz_full" "$1" && grep -q "^  kernel command line: isolcpus=managed_irq,domain,1 rcu_nocbs=1 " "$1"' sh "$T/out"
check "VM: nohz_full=1 listed as left out, with the option the kernel lacks" grep -q '^  left out: nohz_full=1 (this kernel lacks CONFIG_NO_HZ_FULL' "$T/out"
check "VM: the firmware is the host's, no checklist for the guest" sh -c 'grep -q "^  firmware: this is a virtual machine (hypervisor unknown): .* the host.s firmware settings" "$1" && ! grep -q "disable SMT on the real-time cores" "$1"' sh "$T/out"

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
check "the next invocation warns about the unrestored settings" grep -q 'tune apply. that did not finish .*ended without putting back.*Running .jitterlab tune restore' "$T/err"
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

# --- a crafted journal: nothing outside the allow-list or the tree is written ----
fresh intel-ipc-untuned
mkdir -p "$T/st" && chmod 700 "$T/st"
printf 'precious\n' >"$T/outside"
craft() { # sysroot action path
    printf '{"tool":"jitterlab","schema":1,"kind":"tune-state","mode":"apply","pid":1,"complete":true,"sysroot":"%s","changes":[{"action":"%s","path":"%s","old":"evil","new":"0"}]}\n' "$1" "$2" "$3" >"$T/st/crafted.json"
    chmod 600 "$T/st/crafted.json"
}
craft "$T/tree" timer-migration /proc/sys/kernel/../../../outside
"$JL" tune restore --state "$T/st/crafted.json" >"$T/out" 2>"$T/err"
rc_is "restore of a journal with a '..' path exits 1" 1 $?
check "... says why" grep -q "'\.\.' component" "$T/err"
craft "$T/tree" timer-migration /etc/hostname
"$JL" tune restore --state "$T/st/crafted.json" >"$T/out" 2>"$T/err"
rc_is "restore of a path outside the allow-list exits 1" 1 $?
check "... says why" grep -q 'outside what this action writes' "$T/err"
rm "$T/tree/proc/sys/kernel/nmi_watchdog" && ln -s "$T/outside" "$T/tree/proc/sys/kernel/nmi_watchdog"
craft "$T/tree" nmi-watchdog /proc/sys/kernel/nmi_watchdog
"$JL" tune restore --state "$T/st/crafted.json" >"$T/out" 2>"$T/err"
rc_is "restore through a symlink in the tree exits 1" 1 $?
check "... names the file it could not restore" grep -q '/proc/sys/kernel/nmi_watchdog' "$T/err"
check "no crafted journal modified the file outside" grep -qx precious "$T/outside"
craft "$T/tree" timer-migration /proc/sys/kernel/timer_migration
chmod 666 "$T/st/crafted.json"
"$JL" tune restore --state "$T/st/crafted.json" >"$T/out" 2>"$T/err"
rc_is "a world-writable journal is refused (exit 1)" 1 $?
check "... and the tree is untouched" diff -r -x nmi_watchdog "$FIX/intel-ipc-untuned/proc" "$T/tree/proc"
rm -f "$T/st/crafted.json"

# --- an IRQ affinity list of 456 characters (a 256-CPU machine) restores whole ----
fresh intel-ipc-untuned
long=$(seq -s, 1 2 255)
echo "$long" >"$T/tree/proc/irq/9/smp_affinity_list"
cp -a "$T/tree" "$T/tree.orig"
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 3 -q --only irq-affinity
check "the 456-character list lost CPU 3" test "$(cat "$T/tree/proc/irq/9/smp_affinity_list")" = "$(echo "$long" | sed 's/^1,3,/1,/')"
"$JL" tune restore --state "$S" -q
check "restore writes the 456-character list back whole" test "$(cat "$T/tree/proc/irq/9/smp_affinity_list")" = "$long"
check "... and the tree is as before" diff -r "$T/tree.orig" "$T/tree"
rm -rf "$T/tree.orig"

# --- two sessions: the second is refused; an apply meanwhile too; end state = start --
fresh intel-ipc-untuned
"$JL" tune hold --sysroot "$T/tree" --state "$S" -a 3 -q --only timer-migration,idle-states -D 4 2>"$T/err1" &
hold=$!
sleep 1
"$JL" tune hold --sysroot "$T/tree" --state "$S" -a 2 -q --only timer-migration,resume-latency -D 1 >"$T/out" 2>"$T/err"
rc_is "a second tune hold on the same journal exits 1" 1 $?
check "... naming the pid that holds it" grep -q "in use by jitterlab pid $hold (hold)" "$T/err"
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 2 -q --only resume-latency >"$T/out" 2>"$T/err"
rc_is "a tune apply during the hold exits 1" 1 $?
"$JL" tune restore --state "$S" >"$T/out" 2>"$T/err"
rc_is "a tune restore during the hold exits 1" 1 $?
check "the hold's journal still holds its own changes" test "$(jget "$S" 'len(d["changes"])')" -eq 4
wait $hold
rc_is "the first hold ends normally" 0 $?
check "after both: the tree is byte-identical" diff -r "$FIX/intel-ipc-untuned" "$T/tree"
check "... and no snapshot is left" test ! -e "$S"
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 3 -q --only timer-migration
"$JL" tune hold --sysroot "$T/tree" --state "$S" -a 3 -q --only idle-states -D 1 >"$T/out" 2>"$T/err"
rc_is "a hold over the journal of an apply exits 1" 1 $?
check "... and says to restore first" grep -q 'tune restore.*first' "$T/err"
"$JL" tune restore --state "$S" -q
check "... the apply is then restored as usual" diff -r "$FIX/intel-ipc-untuned" "$T/tree"

# --- SIGHUP (a dropped ssh session) during tune hold restores --------------------
fresh intel-ipc-untuned
"$JL" tune hold --sysroot "$T/tree" --state "$S" -a 3 -q --only timer-migration,idle-states -D 30 2>"$T/err" &
hold=$!
sleep 1
check "hold: the tree is tuned before SIGHUP" grep -qx 0 "$T/tree/proc/sys/kernel/timer_migration"
kill -HUP $hold
wait $hold
rc_is "tune hold ended by SIGHUP exits 0" 0 $?
check "... restored: the tree is byte-identical" diff -r "$FIX/intel-ipc-untuned" "$T/tree"
check "... and the journal is gone" test ! -e "$S"

# --- apply --budget 500us then --budget 50us: restore returns the very first values --
fresh intel-ipc-untuned
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 3 -q --budget 500us
check "500 us: resume latency limit 250" grep -qx 250 "$T/tree/sys/devices/system/cpu/cpu3/power/pm_qos_resume_latency_us"
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 3 -q --budget 50us
check "50 us: resume latency limit 25" grep -qx 25 "$T/tree/sys/devices/system/cpu/cpu3/power/pm_qos_resume_latency_us"
pyt "$S" <<'EOF'
c = {x["path"]: x for x in d["changes"]}
t("the journal keeps the resume latency from before the first apply", 'c["/sys/devices/system/cpu/cpu3/power/pm_qos_resume_latency_us"]["old"] == "0"')
EOF
"$JL" tune restore --state "$S" -q
check "restore after 500 us then 50 us: tree byte-identical to the original" diff -r "$FIX/intel-ipc-untuned" "$T/tree"

# --- run --tune --json records config.tune and the tuned system ---------------------
fresh intel-ipc-untuned
JITTERLAB_TUNE_STATE=$S "$JL" run --sysroot "$T/tree" -a 1 -D 1 -q --tune --json "$T/tuned.json" >"$T/out" 2>"$T/err"
rc_is "run --tune against a fixture copy exits 0" 0 $?
pyt "$T/tuned.json" <<'EOF'
tu = d["config"]["tune"]
c = {x["path"]: x for x in tu["changes"]}
t("config.tune names the profile and budget", 'tu["profile"] == "latency" and tu["budget_ns"] == 50000')
t("config.tune.changes lists timer migration 1 -> 0", 'c["/proc/sys/kernel/timer_migration"] == {"action": "timer-migration", "path": "/proc/sys/kernel/timer_migration", "old": "1", "new": "0", "state": "applied"}')
t("system shows the tuned timer migration", 'd["system"]["sched"]["timer_migration"] == 0')
EOF
check "run --tune restored the tree" diff -r "$FIX/intel-ipc-untuned/proc" "$T/tree/proc"
"$JL" run --sysroot "$T/tree" -a 1 -D 1 -q --json "$T/plain.json" >"$T/out" 2>"$T/err"
check "without --tune config.tune is null" test "$(jget "$T/plain.json" 'd["config"]["tune"]')" = None

# --- inspect and tune agree about IRQs; a refused change is reported, not kept ------
# vm-irq-pending: IRQ 24 requested 0-1 (tune moves it), 36 requested 0 but
# effective 1 (the kernel has not moved it yet), 39 on CPU 0 only.
fresh vm-irq-pending
"$JL" inspect --sysroot "$T/tree" -a 1 -q --json "$T/irq.json" >"$T/out" 2>"$T/err"
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 1 --only irq-affinity --dry-run >"$T/dry" 2>"$T/err"
planned=$(grep -c '^echo ' "$T/dry")
pyt "$T/irq.json" <<EOF
f = [x for x in d["findings"] if x["id"] == "irq-on-rt-cpu"][0]
ev = {x["path"]: x["value"] for x in f["evidence"]}
t("inspect counts the IRQs tune plans to move ($planned)", '"tune moves $planned of them" in f["effect"] and "(moves $planned IRQ" in f["fix"]')
t("... the allowed one shows both lists", 'ev["/proc/irq/24/smp_affinity_list"].startswith("requested 0-1, effective 0: tune moves it")')
t("... the pending one says the kernel has not moved it yet", 'ev["/proc/irq/36/effective_affinity_list"].startswith("requested 0, effective 1: kernel has not moved it yet")')
t("... the one on CPU 0 only is not listed", 'not any("/irq/39/" in p for p in ev) and f["severity"] == "warning"')
EOF
check "tune plans exactly IRQ 24" test "$planned" = 1 -a "$(grep -c '/proc/irq/24/smp_affinity_list' "$T/dry")" = 1
cp -a "$T/tree" "$T/tree.orig"
ln "$T/tree/proc/irq/24/smp_affinity_list" "$T/linked" # a file linked elsewhere is never written: refused
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 1 --only irq-affinity,timer-migration >"$T/out" 2>"$T/err"
rc_is "an apply with a refused change exits 1 (as help tune says)" 1 $?
check "... and says 1 applied, 1 refused" grep -q '^1 applied, 1 refused; snapshot in' "$T/out"
check "... naming the refused file on stderr" grep -q 'jitterlab: tune: the kernel refused 1 change .*/proc/irq/24/smp_affinity_list' "$T/err"
check "... keeping the applied change" grep -qx 0 "$T/tree/proc/sys/kernel/timer_migration"
check "... the refused file as it was" grep -qx 0-1 "$T/tree/proc/irq/24/smp_affinity_list"
pyt "$S" <<'EOF'
t("the journal holds the applied change only", '[x["path"] for x in d["changes"]] == ["/proc/sys/kernel/timer_migration"]')
EOF
"$JL" tune status --state "$S" >"$T/status"
check "status counts 1 setting changed" grep -q ': 1 setting changed' "$T/status"
check "... and does not list the refused file" sh -c "! grep -q '/proc/irq/24/' '$T/status'"
"$JL" tune restore --state "$S" -q
rm -f "$T/linked"
check "restore after a refusal: tree as before" diff -r "$T/tree.orig" "$T/tree"
"$JL" help tune >"$T/help" 2>&1
check "help tune documents exit 1 for a refused change" grep -q '1 a change was refused or a restore failed' "$T/help"
ln "$T/tree/proc/irq/24/smp_affinity_list" "$T/linked"
JITTERLAB_TUNE_STATE=$S "$JL" run --sysroot "$T/tree" -a 1 -D 1 -q --tune=realtime --json "$T/refused.json" >"$T/out" 2>"$T/err"
rc_is "run --tune with a refused change still runs (exit 0)" 0 $?
check "... warning on stderr" grep -q 'jitterlab: tune: the kernel refused 1 change' "$T/err"
pyt "$T/refused.json" <<'EOF'
tu = d["config"]["tune"]
t("config.tune.refused holds the IRQ with state refused", '[(x["path"], x["state"]) for x in tu["refused"]] == [("/proc/irq/24/smp_affinity_list", "refused")]')
t("config.tune.changes are all applied", 'tu["changes"] and all(x["state"] == "applied" for x in tu["changes"])')
EOF
rm -f "$T/linked"
check "run --tune restored the tree" diff -r "$T/tree.orig/proc" "$T/tree/proc"
check "... and left no snapshot" test ! -e "$S"
rm -rf "$T/tree.orig"

# --- cache-partition: the plan as commands; unsupported machines -------------------
fresh intel-ipc-untuned
S=$T/cache-state.json
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 3 --only cache-partition --dry-run >"$T/out" 2>"$T/err"
rc_is "cache-partition --dry-run on the untuned Intel tree exits 0" 0 $?
R=$T/tree/sys/fs/resctrl
check "... shrinks the default group first" grep -q "^echo 'L3:0=1ff' > $R/schemata " "$T/out"
check "... makes the group" grep -q "^mkdir $R/jitterlab-rt " "$T/out"
check "... gives it CPU 3" grep -q "^echo 3 > $R/jitterlab-rt/cpus_list " "$T/out"
check "... the top 3 of 12 ways" grep -q "^echo 'L3:0=e00' > $R/jitterlab-rt/schemata " "$T/out"
check "... no exclusive mode where L2 allocation exists (the kernel would refuse it)" sh -c '! grep -q "^echo exclusive" "$1"' sh "$T/out"
check "... in that order" awk '/^echo .L3:0=1ff/{a=NR} /^mkdir/{b=NR} /^echo 3 /{c=NR} /^echo .L3:0=e00/{d=NR} END{exit !(a && a<b && b<c && c<d)}' "$T/out"
check "... and changes nothing" diff -r "$FIX/intel-ipc-untuned" "$T/tree"
check "... nor keeps a snapshot" test ! -e "$S"
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 3 --only cache-partition --dry-run --cache-ways 2 --cache-group rt2 >"$T/out" 2>"$T/err"
check "--cache-ways 2 --cache-group rt2: c00 in rt2" grep -q "^echo 'L3:0=c00' > $R/rt2/schemata " "$T/out"
fresh intel-ipc-tuned
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 3 --only cache-partition >"$T/out" 2>"$T/err"
rc_is "cache-partition on the tuned tree exits 0" 0 $?
check "... nothing to do: the group is there" grep -q 'note: cache-partition: group jitterlab-rt already holds CPUs 3' "$T/out"
check "... no snapshot" test ! -e "$S"
fresh amd-epyc
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 3 --only cache-partition --dry-run >"$T/out" 2>"$T/err"
check "cache-partition on the unmounted AMD tree mounts resctrl first" grep -q "^mount -t resctrl resctrl $T/tree/sys/fs/resctrl " "$T/out"
fresh vm-haltpoll
"$JL" tune apply --sysroot "$T/tree" --state "$S" -a 1 --only cache-partition >"$T/out" 2>"$T/err"
rc_is "cache-partition on the VM tree exits 0" 0 $?
check "... with a note saying why" grep -q 'note: cache-partition: not supported here: .*cat_l3' "$T/out"
check "... changing nothing" diff -r "$FIX/vm-haltpoll" "$T/tree"
check "... no snapshot" test ! -e "$S"
if grep -qw cat_l3 /proc/cpuinfo; then
    ok "cache-partition on this machine # SKIP it has cache allocation"
else
    "$JL" tune apply -a 1 --only cache-partition --state "$T/s.json" >"$T/out" 2>"$T/err"
    rc_is "cache-partition on this machine (no cache allocation) exits 0" 0 $?
    check "... says it is not supported" grep -q 'note: cache-partition: not supported here' "$T/out"
    check "... and leaves no journal" test ! -e "$T/s.json"
fi

# --- bad input -----------------------------------------------------------------
# (on a copy: a binary that took these would tune the tree, or hold it and be killed)
cp -a "$FIX/intel-ipc-untuned" "$T/hold-tree"
BAD_SUBCOMMAND="tune apply --state $T/bad-state.json --sysroot $T/hold-tree"
bad "--budget 0" '--budget 0: must be greater than 0' --budget 0
bad "--budget -5" '--budget' --budget -5
bad "unknown action" "unknown action 'turbo'.*idle-states" --only turbo
bad "unknown profile" '--profile' --profile fastest
bad "--boost maybe" '--boost' --boost maybe
bad "CPU not online" '--cpus.*not online' -a 64
BAD_SUBCOMMAND="tune hold --state $T/bad-state.json --sysroot $T/hold-tree"
bad "hold -D beyond a year" '--duration 9223372036854775807ns: must be at most 8784h' -D 9223372036854775807ns
bad "hold -D beyond 366 days" '--duration 8785h: must be at most 8784h' -D 8785h
BAD_SUBCOMMAND="tune apply --state $T/bad-state.json --sysroot $T/hold-tree -a 3 --only cache-partition"
bad "--cache-ways 0" '^jitterlab: --cache-ways 0: must be a whole number from 1 to 64' --cache-ways 0
bad "--cache-ways 12 of 12" '^jitterlab: --cache-ways 12: more ways than the default group can give \(12 in all, it keeps at least 1' --cache-ways 12
bad "--cache-group info" '^jitterlab: --cache-group info: must be a plain name' --cache-group info
bad "--mba without info/MB" '^jitterlab: --mba 50: this machine has no memory bandwidth allocation' --mba 50
bad "--mba 0" '^jitterlab: --mba 0: must be a whole number from 1 to 100' --mba 0
bad "--cache-ways 12 --dry-run" '^jitterlab: --cache-ways 12: more ways' --cache-ways 12 --dry-run
BAD_SUBCOMMAND="tune apply --state $T/bad-state.json --sysroot $T/hold-tree -a 3"
bad "--cache-ways without cache-partition" '^jitterlab: --cache-ways 3: only with the cache-partition action' --cache-ways 3

# run: a cache load beside CPUs without ways of their own warns once, where
# the machine could partition them (the fixture), not on this VM
"$JL" run -a 1 -D 100ms --load cache:1M@0 --sysroot "$FIX/intel-ipc-untuned" --json "$T/cw.json" >/dev/null 2>"$T/cw.err"
check "run --load cache beside an unpartitioned CPU: one warning naming cache-not-partitioned" test "$(grep -c 'cache-not-partitioned.*--tune=cache-partition' "$T/cw.err")" = 1
"$JL" run -a 1 -D 100ms --load cache:1M@0 --json "$T/cw2.json" >/dev/null 2>"$T/cw2.err"
check "... no such warning without cache allocation (this VM)" sh -c '! grep -q cache-not-partitioned "$1"' sh "$T/cw2.err"
check "... and no snapshot" test ! -e "$T/bad-state.json"
check "the refused holds left the tree alone" diff -r "$FIX/intel-ipc-untuned" "$T/hold-tree"
BAD_SUBCOMMAND=tune
bad "unknown verb" "unknown verb" fix
BAD_SUBCOMMAND=run
bad "run --tune=fastest" '--tune' -a 1 -D 1 --tune=fastest --json @OUT@

# --- this machine -----------------------------------------------------------------
if ! is_root; then
    ok "on this machine # SKIP not root"
    exit 0
fi
# The test's own snapshot of every file tune may change here, put back by the
# shell (never by the binary under test) when the script ends, however it ends.
machine_files() {
    ls /proc/sys/kernel/timer_migration /proc/sys/kernel/sched_rt_runtime_us \
        /proc/irq/*/smp_affinity_list /sys/devices/system/cpu/cpu*/power/pm_qos_resume_latency_us \
        /sys/devices/system/cpu/cpu*/cpuidle/state*/disable \
        /sys/devices/system/cpu/cpufreq/policy*/scaling_governor \
        /sys/devices/system/cpu/cpufreq/policy*/scaling_m??_freq \
        /sys/devices/system/cpu/cpufreq/policy*/energy_performance_preference 2>/dev/null
}
machine_snapshot() { for f in $(machine_files); do printf '%s\t%s\n' "$f" "$(cat "$f")"; done; }
machine_snapshot >"$T/machine.snap"
machine_put_back() {
    tab=$(printf '\t')
    while IFS=$tab read -r f v; do
        [ "$(cat "$f" 2>/dev/null)" = "$v" ] || echo "$v" >"$f" 2>/dev/null
    done <"$T/machine.snap"
}
trap 'machine_put_back; rm -rf "$T"' EXIT
machine_as_snapshot() { # NAME: after a restore, every file equals the snapshot
    machine_snapshot >"$T/machine.now"
    if cmp -s "$T/machine.snap" "$T/machine.now"; then ok "$1"; else not_ok "$1" "$(diff "$T/machine.snap" "$T/machine.now" | grep "^[<>]" | head -8 | tr '\n' ' ')"; fi
}
tm_before=$(cat /proc/sys/kernel/timer_migration)
irq_before=$(cat /proc/irq/*/smp_affinity_list 2>/dev/null | tr '\n' ' ')
rl_before=$(cat /sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us 2>/dev/null)
S=$T/machine.json
"$JL" tune apply --cpus 1 --budget 500ns --profile realtime --state "$S" >"$T/out" 2>"$T/err"
rc=$?
refused=$(sed -n 's/^[0-9]* applied, \([0-9]*\) refused.*/\1/p' "$T/out")
if [ "$refused" = 0 ]; then
    rc_is "tune apply --cpus 1 --budget 500ns on this machine exits 0" 0 $rc
else # managed IRQs refuse a new affinity
    rc_is "tune apply --cpus 1 --budget 500ns on this machine: $refused refused, exits 1" 1 $rc
    pyt "$S" <<EOF
refused = "$(sed -n 's/^jitterlab: tune: the kernel refused .*: //p' "$T/err")".split(", ")
t("... the refused changes are not in the journal", 'refused and not any(x["path"] in refused for x in d["changes"])')
EOF
fi
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
machine_as_snapshot "after tune restore every file equals the test's snapshot"
machine_put_back

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
machine_as_snapshot "after tune hold every file equals the test's snapshot"
machine_put_back

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
machine_as_snapshot "after run --tune every file equals the test's snapshot"
machine_put_back
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
check "... and the next invocation warns about it" grep -q 'WARNING: a .jitterlab run --tune. (pid' "$T/err"
"$JL" tune restore --state "$S" >"$T/out" 2>"$T/err"
rc_is "... and tune restore recovers it" 0 $?
check "... timer migration back" test "$(cat /proc/sys/kernel/timer_migration)" = "$tm_before"
machine_as_snapshot "after the recovery every file equals the test's snapshot"
# the EXIT trap puts the snapshot back, whatever happened above
true
