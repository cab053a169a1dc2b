#!/bin/sh
# runs beside others
# A big machine through --sysroot: the 256-CPU, 2-socket SMT tree that
# tests/fixtures/gen-big-smp.py writes (CPU n and n+128 siblings, 2-63 and
# 130-191 isolated, ~300 IRQs, lists of 450+ characters) and its sparse
# variant (CPUs 0-3,1100-1103 of 0-2047). inspect: the document lists 256
# CPUs, 128 cores, SMT on, the isolated CPUs as targets and in the findings,
# long affinity lists read whole and shown cut at an element; -a; tune apply
# --profile realtime moves every IRQ with the full list, restore leaves the
# tree byte-identical, --dry-run prints the long lists whole; stat reads 256
# CPUs; on the sparse tree every list prints as the kernel's ("1100-1103").
# Prints how long inspect and tune take. About 8 s.
. "$(dirname "$0")/lib.sh"
GEN=$JL_TOP/tests/fixtures/gen-big-smp.py
export JITTERLAB_TUNE_STATE="$T/default-state.json" # never the machine's /run file
S=$T/state.json
# eq NAME WANT GOT: a value check that says both sides when it fails
eq() { if [ "$3" = "$2" ]; then ok "$1"; else not_ok "$1" "got:  $(printf %s "$3" | cut -c1-400)" "want: $(printf %s "$2" | cut -c1-400)"; fi; }
ms() { python3 -c 'import time; print(int(time.monotonic() * 1000))'; }
# timed NAME COMMAND...: runs it, stdout to $T/out, stderr to $T/err; $rc, $took (ms)
timed() {
    _t0=$(ms)
    shift
    "$@" >"$T/out" 2>"$T/err"
    rc=$?
    took=$(($(ms) - _t0))
}

# The trees (17000 files) go to a tmpfs when there is one: writing them on
# the VM's ext4 takes 3-7 s instead of 1 s. This script starts no process of
# its own, so its exit trap only has the directories to remove.
W=$T
if [ -d /dev/shm ] && [ -w /dev/shm ] && W=$(mktemp -d /dev/shm/jl-big-smp.XXXXXX 2>/dev/null); then
    trap 'rm -rf "$T" "$W"' EXIT
else
    W=$T
fi
# sums FILE: a checksum list of the big tree's files (symlinks not followed)
sums() { (cd "$B" && find . -type f | LC_ALL=C sort | xargs md5sum) >"$1"; }
# changed_files SUMS: the files of the big tree that differ from the list
changed_files() { (cd "$B" && md5sum -c --quiet "$1" 2>/dev/null) | sed 's/: FAILED$//'; }

# --- the generator ---------------------------------------------------------------
B=$W/big
t0=$(ms)
python3 "$GEN" "$B" >"$T/gen.out" 2>"$T/err"
rc_is "gen-big-smp.py writes the 256-CPU tree" 0 $?
echo "# generator: $(cat "$T/gen.out") in $(($(ms) - t0)) ms"
python3 "$GEN" --sparse "$W/sparse" >"$T/gen.out" 2>"$T/err"
rc_is "gen-big-smp.py --sparse writes the sparse tree" 0 $?
python3 "$GEN" "$B" >"$T/out" 2>"$T/err"
rc_is "the generator refuses a directory that is not empty" 1 $?
pyt - B="$B" <<'PY'
import os
cpu = v["B"] + "/sys/devices/system/cpu/"
rd = lambda p: open(cpu + p).read().strip()
pkg = {c: rd("cpu%d/topology/physical_package_id" % c) for c in range(256)}
core = {(pkg[c], rd("cpu%d/topology/core_id" % c)) for c in range(256)}
t("the tree: 2 packages", 'sorted(set(pkg.values())) == ["0", "1"]', 'set(pkg.values())')
t("the tree: package 0 holds CPUs 0-63 and 128-191", '[c for c in range(256) if pkg[c] == "0"] == list(range(64)) + list(range(128, 192))')
t("the tree: 128 cores", 'len(core) == 128', 'len(core)')
t("the tree: one L3 per package", 'rd("cpu5/cache/index3/shared_cpu_list") == "0-63,128-191" and rd("cpu200/cache/index3/shared_cpu_list") == "64-127,192-255"')
t("the tree: online, present, possible 0-255; isolated and nohz_full 2-63,130-191", '[rd(f) for f in ("online", "present", "possible", "isolated", "nohz_full")] == ["0-255"] * 3 + ["2-63,130-191"] * 2')
PY

# --- inspect on 256 CPUs ------------------------------------------------------------
J=$T/big.json
timed inspect "$JL" inspect --sysroot "$B" --json "$J"
rc_is "inspect on the 256-CPU tree exits 0" 0 $rc
echo "# inspect, 256 CPUs, 295 /proc/interrupts rows, 518 threads: $took ms"
check "the report names the isolated CPUs as targets" grep -qx 'jitterlab inspect: CPUs 2-63,130-191, budget 50 µs' "$T/out"
cp "$T/out" "$T/big.out"
check "the report ends with the verdict" grep -q '^verdict: NOT READY' "$T/big.out"
check "the C-state finding names CPUs 2-63,130-191" grep -q 'C6 exit latency 290 µs exceeds the 50 µs budget on CPUs 2-63,130-191' "$T/big.out"
pyt "$J" <<'PY'
s = d["system"]
iso = list(range(2, 64)) + list(range(130, 192))
f = {x["id"]: x for x in d["findings"]}
t("JSON: the targets are the 124 isolated CPUs", 'd["cpus"] == iso', 'd["cpus"]')
t("JSON: online 0-255, isolated and nohz_full 2-63,130-191", '(s["cpus_online"], s["isolated"], s["nohz_full"]) == ("0-255", "2-63,130-191", "2-63,130-191")', '(s["cpus_online"], s["isolated"], s["nohz_full"])')
sib = s["smt"]["thread_siblings"]
t("JSON: SMT on and active", 's["smt"]["control"] == "on" and s["smt"]["active"] == 1', 's["smt"]')
t("JSON: thread siblings of all 256 CPUs", 'sorted(map(int, sib)) == list(range(256))', 'len(sib)')
t("JSON: 128 cores, CPU n with n+128", 'len(set(sib.values())) == 128 and all(sib[str(c)] == "%d,%d" % (c % 128, c % 128 + 128) for c in range(256))')
t("JSON: idle states POLL, C1, C1E, C6 on 256 CPUs", '[c["cpu"] for c in s["cpuidle"]["cpus"]] == list(range(256)) and all([x["name"] for x in c["states"]] == ["POLL", "C1", "C1E", "C6"] for c in s["cpuidle"]["cpus"])')
t("JSON: 256 cpufreq policies, intel_pstate", 'len(s["cpufreq"]["policies"]) == 256 and {p["driver"] for p in s["cpufreq"]["policies"]} == {"intel_pstate"}')
t("JSON: nothing unreadable (long lists parsed whole)", 's["unreadable"] == []', 's["unreadable"]')
t("JSON: every /proc/interrupts row", 's["irq_counts"]["total"] == 295 and len(s["irqs"]) == 295', 's["irq_counts"]')
irq = {x["irq"]: x for x in s["irqs"]}
t("JSON: IRQ 0 on 0-255, dmar0 on package 0", 'irq["0"]["smp_affinity_list"] == "0-255" and irq["24"]["smp_affinity_list"] == "0-63,128-191"', '(irq["0"], irq["24"])')
evens = ",".join(str(c) for c in range(0, 256, 2))
pairs = ",".join("%d-%d" % (c, c + 1) for c in range(1, 256, 4))
for n, full in (("27", evens), ("17", pairs)):
    a = irq[n]["smp_affinity_list"]
    t("JSON: IRQ %s's 456-character list is cut after a whole element" % n, 'a.endswith(",...") and full.startswith(a[:-3]) and len(a) < 256', 'a')
t("JSON: isolated cores: no-isolation, nohz-full and rcu-nocbs ok", 'all(f[k]["severity"] == "ok" for k in ("no-isolation", "nohz-full-missing", "rcu-nocbs-missing"))')
t("JSON: cstate-exit-latency critical on the targets", 'f["cstate-exit-latency"]["severity"] == "critical" and f["cstate-exit-latency"]["cpus"] == iso', 'f["cstate-exit-latency"]')
t("JSON: smt-sibling-shared info only (both threads are targets)", 'f["smt-sibling-shared"]["severity"] == "info" and f["smt-sibling-shared"]["cpus"] == iso', 'f["smt-sibling-shared"]["severity"]')
t("JSON: irq-on-rt-cpu counts the 142 IRQs allowed on the targets", 'f["irq-on-rt-cpu"]["severity"] == "warning" and "142 device interrupts" in f["irq-on-rt-cpu"]["effect"]', 'f["irq-on-rt-cpu"]["effect"]')
th = {x["comm"]: x for x in s["threads"]["touching_targets"]}
t("JSON: 518 threads scanned, none dropped", 's["threads"]["scanned"] == 518 and not s["threads"]["truncated"]', 's["threads"]["scanned"]')
t("JSON: the thread pinned to 1-2,5-6,... (456 characters) is on the targets", '"mon-agent" in th and th["mon-agent"]["cpus_allowed"].startswith("1-2,5-6,") and th["mon-agent"]["cpus_allowed"].endswith(",...")', 'sorted(th)')
PY

"$JL" inspect --sysroot "$B" -a 2-63 -q --json "$T/a.json" 2>"$T/err"
rc_is "inspect -a 2-63 exits 0" 0 $?
pyt "$T/a.json" <<'PY'
f = {x["id"]: x for x in d["findings"]}
t("-a 2-63: 62 targets", 'd["cpus"] == list(range(2, 64))', 'd["cpus"]')
t("-a 2-63: the siblings 130-191 outside the targets are a warning", 'f["smt-sibling-shared"]["severity"] == "warning" and f["smt-sibling-shared"]["cpus"] == list(range(2, 64))', 'f["smt-sibling-shared"]')
PY
"$JL" inspect --sysroot "$B" -a 0-1,64-129,192-255 -q --json "$T/h.json" 2>"$T/err"
rc_is "inspect -a on the housekeeping CPUs exits 0" 0 $?
eq "-a 0-1,64-129,192-255: not isolated is a finding" True "$(jget "$T/h.json" 'len(d["cpus"]) == 132 and [f["severity"] for f in d["findings"] if f["id"] == "no-isolation"] != ["ok"]')"
"$JL" inspect --sysroot "$B" -a 255 -q --json "$T/l.json" 2>"$T/err"
rc_is "inspect -a 255 (the last CPU) exits 0" 0 $?
BAD_SUBCOMMAND=inspect
bad "-a 256 on the 256-CPU tree" '--cpus 256: CPU 256 is not online \(online: 0-255\)' --sysroot "$B" --json @OUT@ -a 256

# --- tune on 256 CPUs: apply, status, restore byte-identical; dry run ---------------
sums "$T/pristine.sums"
find "$B" | LC_ALL=C sort >"$T/pristine.list"
timed apply "$JL" tune apply --sysroot "$B" --state "$S" --profile realtime
rc_is "tune apply --profile realtime on the 256-CPU tree exits 0" 0 $rc
echo "# tune apply, 763 changes: $took ms"
eq "apply changed 763 files (124 C6, 124 resume latencies, 3 x 124 cpufreq, 142 IRQs, timer migration)" 763 "$(changed_files "$T/pristine.sums" | wc -l)"
P=$B/proc/irq
eq "IRQ 0: 0-255 becomes the housekeeping CPUs" 0-1,64-129,192-255 "$(cat "$P/0/smp_affinity_list")"
eq "dmar0: 0-63,128-191 becomes 0-1,128-129" 0-1,128-129 "$(cat "$P/24/smp_affinity_list")"
eq "ens1f0-TxRx-5 on CPU 5 moves to the housekeeping CPUs" 0-1,64-129,192-255 "$(cat "$P/199/smp_affinity_list")"
evens_kept=$(python3 -c 'print(",".join(str(c) for c in [0] + list(range(64, 130, 2)) + list(range(192, 256, 2))))')
eq "ipmi_si: every second CPU loses the targets, written whole" "$evens_kept" "$(cat "$P/27/smp_affinity_list")"
pairs_kept=$(python3 -c 'print(",".join(["1"] + ["%d-%d" % (c, c + 1) for c in range(65, 129, 4)] + ["129"] + ["%d-%d" % (c, c + 1) for c in range(193, 256, 4)]))')
eq "megasas: 1-2,5-6,... (its cut copy does not parse) is moved too" "$pairs_kept" "$(cat "$P/17/smp_affinity_list")"
eq "ens1f1-TxRx-0 on CPU 64 (housekeeping) stays" 64 "$(cat "$P/259/smp_affinity_list")"
check "CPU 191's C6 disabled, CPU 192's left" sh -c 'grep -qx 1 "$1/cpu191/cpuidle/state3/disable" && grep -qx 0 "$1/cpu192/cpuidle/state3/disable"' sh "$B/sys/devices/system/cpu"
timed status "$JL" tune status --state "$S"
rc_is "tune status exits 0" 0 $rc
echo "# tune status: $took ms"
eq "status lists 763 changes as tuned" 763 "$(grep -c '\[tuned\]' "$T/out")"
timed restore "$JL" tune restore --state "$S"
rc_is "tune restore exits 0" 0 $rc
echo "# tune restore, 763 values: $took ms"
check "restore says 763 values restored" grep -q '763 values restored and verified' "$T/out"
check "restore leaves the 256-CPU tree byte-identical (checksums)" test -z "$(changed_files "$T/pristine.sums")"
check "... with no file added or removed" sh -c 'find "$1" | LC_ALL=C sort | cmp -s - "$2"' sh "$B" "$T/pristine.list"
check "restore removes the snapshot" test ! -e "$S"

timed dry "$JL" tune apply --sysroot "$B" --state "$S" --profile realtime --dry-run
rc_is "tune apply --dry-run exits 0" 0 $rc
echo "# tune apply --dry-run: $took ms"
cp "$T/out" "$T/dry.out"
check "dry run: 763 changes, nothing written" grep -qx '# jitterlab tune apply --dry-run: 763 changes, nothing written' "$T/dry.out"
check "dry run changes nothing" test -z "$(changed_files "$T/pristine.sums")"
check "dry run writes no snapshot" test ! -e "$S"
check "dry run: IRQ 0 from 0-255 to the housekeeping CPUs" grep -q "^echo 0-1,64-129,192-255 > $P/0/smp_affinity_list .*(now 0-255)\$" "$T/dry.out"
check "dry run: dmar0 (now 0-63,128-191)" grep -q "^echo 0-1,128-129 > $P/24/smp_affinity_list .*(now 0-63,128-191)\$" "$T/dry.out"
evens=$(seq -s, 0 2 255)
check "dry run: ipmi_si's 457-character list, old and new, whole" grep -qF "echo $evens_kept > $P/27/smp_affinity_list    # irq-affinity: IRQ 27 (IR-PCI-MSI-0000:00:1f.5 0-edge ipmi_si) off the target CPUs (now $evens)" "$T/dry.out"
pairs=$(python3 -c 'print(",".join("%d-%d" % (c, c + 1) for c in range(1, 256, 4)))')
check "dry run: megasas's 456-character list, old and new, whole" grep -qF "echo $pairs_kept > $P/17/smp_affinity_list    # irq-affinity: IRQ 17 (IR-IO-APIC 17-fasteoi megasas) off the target CPUs (now $pairs)" "$T/dry.out"
check "dry run: the boot parameters for the housekeeping CPUs" grep -q 'irqaffinity=0-1,64-129,192-255' "$T/dry.out"

# --- stat reads 256 CPUs ----------------------------------------------------------------
timed stat "$JL" stat --sysroot "$B" -i 10ms -D 30ms -q --json "$T/stat.json"
rc_is "stat -D 30ms on the 256-CPU tree exits 0" 0 $rc
echo "# stat -i 10ms -D 30ms, 256 CPUs: $took ms"
eq "stat: 256 CPUs in its config" True "$(jget "$T/stat.json" 'd["config"]["cpus"] == list(range(256))')"

# --- the sparse tree: CPU ids beyond 1024 -------------------------------------------------
SP=$W/sparse
"$JL" inspect --sysroot "$SP" --json "$T/sp.json" >"$T/sp.out" 2>"$T/err"
rc_is "inspect on the sparse tree (0-3,1100-1103) exits 0" 0 $?
check "sparse: the report names CPUs 2-3,1102-1103" grep -qx 'jitterlab inspect: CPUs 2-3,1102-1103, budget 50 µs' "$T/sp.out"
check "sparse: the C-state finding prints 2-3,1102-1103" grep -q 'on CPUs 2-3,1102-1103 (reachable states' "$T/sp.out"
pyt "$T/sp.json" <<'PY'
s = d["system"]
irq = {x["irq"]: x for x in s["irqs"]}
t("sparse JSON: targets 2, 3, 1102, 1103", 'd["cpus"] == [2, 3, 1102, 1103]', 'd["cpus"]')
t("sparse JSON: online 0-3,1100-1103, isolated 2-3,1102-1103", '(s["cpus_online"], s["isolated"], s["nohz_full"]) == ("0-3,1100-1103", "2-3,1102-1103", "2-3,1102-1103")', '(s["cpus_online"], s["isolated"])')
t("sparse JSON: idle states of all 8 CPUs", '[c["cpu"] for c in s["cpuidle"]["cpus"]] == [0, 1, 2, 3, 1100, 1101, 1102, 1103]')
t("sparse JSON: IRQ 0 on 0-3,1100-1103", 'irq["0"]["smp_affinity_list"] == "0-3,1100-1103"', 'irq["0"]')
t("sparse JSON: an NVMe queue on CPU 1103", '[x["smp_affinity_list"] for x in s["irqs"] if (x["desc"] or "").endswith(" nvme0q8")] == ["1103"]')
t("sparse JSON: per-CPU counts of CPU 1102 (a /proc/interrupts column beyond 1024)", 'all("1102" in x["target_counts"] for x in s["irqs"]) and sum(x["target_counts"]["1102"] or 0 for x in s["irqs"]) > 0')
t("sparse JSON: nothing unreadable", 's["unreadable"] == []', 's["unreadable"]')
PY
"$JL" inspect --sysroot "$SP" -a 1100-1103 -q --json "$T/sp2.json" 2>"$T/err"
rc_is "sparse: -a 1100-1103 exits 0" 0 $?
eq "sparse: -a 1100-1103 targets them" "[1100, 1101, 1102, 1103]" "$(jget "$T/sp2.json" 'd["cpus"]')"
bad "sparse: -a 1104" '--cpus 1104: CPU 1104 is not online \(online: 0-3,1100-1103\)' --sysroot "$SP" --json @OUT@ -a 1104
bad "sparse: -a 4096" '--cpus 4096' --sysroot "$SP" --json @OUT@ -a 4096
cp -a "$SP" "$W/sptree"
"$JL" tune apply --sysroot "$W/sptree" --state "$S" --profile realtime --dry-run >"$T/out" 2>"$T/err"
rc_is "sparse: tune apply --dry-run exits 0" 0 $?
check "sparse: dry run moves IRQ 0 to 0-1,1100-1101" grep -q "^echo 0-1,1100-1101 > $W/sptree/proc/irq/0/smp_affinity_list .*(now 0-3,1100-1103)\$" "$T/out"
check "sparse: dry run disables C6 of CPU 1103" grep -q "^echo 1 > $W/sptree/sys/devices/system/cpu/cpu1103/cpuidle/state3/disable" "$T/out"
"$JL" tune apply --sysroot "$W/sptree" --state "$S" --profile realtime -q 2>"$T/err"
rc_is "sparse: tune apply exits 0" 0 $?
check "sparse: cpufreq of policy1102 is performance" grep -qx performance "$W/sptree/sys/devices/system/cpu/cpufreq/policy1102/scaling_governor"
"$JL" tune restore --state "$S" -q 2>"$T/err"
rc_is "sparse: tune restore exits 0" 0 $?
check "sparse: restore leaves the tree byte-identical" diff -r "$SP" "$W/sptree"

# --- telemetry over 256 CPUs: frequencies from /proc/cpuinfo ------------------
# Without cpufreq the frequency comes from the 256 blocks of /proc/cpuinfo
# (600 KB); one snapshot once took a scan per CPU with sscanf's strlen of
# the rest on every line: 33 s of CPU for one 25 ms interval here. 500 ms
# of 25 ms intervals: two samples at least even beside the other tests (a
# 50 ms run took one there).
cp -a "$B" "$W/nofreq"
rm -rf "$W/nofreq/sys/devices/system/cpu/cpufreq" "$W/nofreq"/sys/devices/system/cpu/cpu*/cpufreq
timeout 20 "$JL" stat --sysroot "$W/nofreq" -D 500ms -i 25ms --json "$T/st.json" >"$T/out" 2>"$T/err"
rc_is "stat over 256 CPUs with cpuinfo frequencies ends (timeout 20 s)" 0 $?
pyt "$T/st.json" info="$W/nofreq/proc/cpuinfo" <<'PY'
want, cur = {}, None
for l in open(v["info"]):
    k, _, val = l.partition(":")
    if k.strip() == "processor":
        cur = int(val)
    elif k.strip() == "cpu MHz":
        want[cur] = round(float(val))
got = [(c["cpu"], c.get("avg_mhz")) for x in d["samples"] for c in x["cpus"]]
t("cpuinfo frequencies: the source is cpuinfo", 'd["sources"]["avg_mhz"]["source"] == "cpuinfo"', 'd.get("sources", {}).get("avg_mhz")')
t("cpuinfo frequencies: 256 CPUs in every sample", 'len(d["samples"]) >= 2 and all(len(x["cpus"]) == 256 for x in d["samples"])', '[len(x["cpus"]) for x in d["samples"]]')
t("cpuinfo frequencies: each CPU's is its own block's cpu MHz", 'all(m is not None and abs(m - want[c]) <= 1 for c, m in got)', '[(c, m, want.get(c)) for c, m in got if m is None or abs(m - want.get(c, -9)) > 1][:5]')
PY

echo "1..$n"
