#!/bin/sh
# runs beside others
# jitterlab inspect, end to end: the binary on every fixture tree
# (--sysroot) with the JSON document's shape, the verdict and the finding
# ids per machine and budget, --strict (exit 3 when not ready), --cpus,
# JITTERLAB_SYSROOT, bad input (exit 2, the option named, no file written),
# the unverified verdict (exit 4 with --strict), and on the live machine
# (exit 0, valid JSON; --measure folded into the verdict, also when
# interrupted). About 4 s.
. "$(dirname "$0")/lib.sh"
FX=$JL_TOP/tests/fixtures

# --- every fixture: exit 0, a valid document of the fixed shape -----------
for fx in vm-haltpoll intel-ipc-untuned intel-ipc-tuned core2-quad amd-epyc rt-tuned-minimal; do
    J=$T/$fx.json
    "$JL" inspect --sysroot "$FX/$fx" --json "$J" >"$T/$fx.out" 2>"$T/err"
    rc_is "$fx: exits 0 without --strict" 0 $?
    check "$fx: report ends with the verdict" grep -q '^verdict: ' "$T/$fx.out"
    pyt "$J" <<'PY'
t("tool/schema/kind", 'd["tool"] == "jitterlab" and d["schema"] == 1 and d["kind"] == "inspect"', '[d.get("tool"), d.get("schema"), d.get("kind")]')
t("budget_ns is 50000 by default", 'd["budget_ns"] == 50000', 'd.get("budget_ns")')
t("cpus is a list of integers", 'isinstance(d["cpus"], list) and d["cpus"] and all(type(c) is int for c in d["cpus"])', 'd.get("cpus")')
t("verdict is ready, unverified or not-ready", 'd["verdict"] in ("ready", "unverified", "not-ready")', 'd.get("verdict")')
t("unverified exactly when nothing is critical and a finding is unbounded", '(d["verdict"] == "unverified") == (not any(f["severity"] == "critical" for f in d["findings"]) and any(f["unbounded"] for f in d["findings"]))')
t("no measurement without --measure", 'd["measurement"] is None')
fk = ["id", "area", "severity", "cpus", "evidence", "effect", "fix", "unbounded"]
t("findings have the fixed fields", 'all(all(k in f for k in fk) for f in d["findings"])', '[f.get("id") for f in d["findings"] if not all(k in f for k in fk)]')
t("severities are known", 'all(f["severity"] in ("critical", "warning", "info", "ok") for f in d["findings"])')
t("evidence holds values with paths", 'all(all(e["path"].startswith("/") and "value" in e for e in f["evidence"]) for f in d["findings"])')
t("not-ready exactly when a finding is critical", '(d["verdict"] == "not-ready") == any(f["severity"] == "critical" for f in d["findings"])')
sysk = ["hostname", "kernel", "preempt_model", "cmdline", "cpu_model", "cpus_online", "isolated", "nohz_full", "clocksource", "hypervisor", "cpuidle", "cpufreq", "cmdline_params", "sched", "memory", "irqs", "threads", "smt", "unreadable"]
t("system holds the run keys and everything read", 'not [k for k in sysk if k not in d["system"]]', '[k for k in sysk if k not in d["system"]]')
PY
done

ids() { jget "$1" '" ".join(sorted(f["id"] + ":" + f["severity"] for f in d["findings"] if f["severity"] != "ok"))'; }

# --- pinned verdicts and findings -------------------------------------------
J=$T/intel-ipc-untuned.json
check "untuned Intel at 50 us: not-ready" test "$(jget "$J" 'd["verdict"]')" = not-ready
check "untuned Intel: cstate-exit-latency critical on CPUs 1-3" test "$(jget "$J" '[(f["severity"], f["cpus"]) for f in d["findings"] if f["id"] == "cstate-exit-latency"]')" = "[('critical', [1, 2, 3])]"
for want in not-preempt-rt:critical cpufreq-governor:warning epp-not-performance:warning no-isolation:warning pm-qos-unset:warning; do
    case " $(ids "$J") " in *" $want "*) ok "untuned Intel: $want" ;; *) not_ok "untuned Intel: $want" "$(ids "$J")" ;; esac
done
check "untuned Intel: the C-state cause is named" grep -q 'C10 exit latency 660 µs exceeds the 50 µs budget' "$T/intel-ipc-untuned.out"
check "tuned Intel at 50 us: ready, nothing above info" test "$(jget "$T/intel-ipc-tuned.json" 'd["verdict"] + " " + str(d["cpus"]) + " " + str([f["id"] for f in d["findings"] if f["severity"] in ("critical", "warning")])')" = "ready [3] []"
check "Core 2: cpufreq-governor critical" test "$(jget "$T/core2-quad.json" '[f["severity"] for f in d["findings"] if f["id"] == "cpufreq-governor"]')" = "['critical']"
check "EPYC: targets are the isolated 3,7" test "$(jget "$T/amd-epyc.json" 'd["cpus"]')" = "[3, 7]"
check "VM: hypervisor warning" test "$(jget "$T/vm-haltpoll.json" '[f["severity"] for f in d["findings"] if f["id"] == "hypervisor"]')" = "['warning']"

# --- budget, --cpus, --strict, -q, JITTERLAB_SYSROOT --------------------------
"$JL" inspect --sysroot "$FX/intel-ipc-untuned" --budget 1ms -q --json "$T/b.json" >"$T/out" 2>"$T/err"
rc_is "--budget 1ms: exits 0" 0 $?
check "-q prints nothing" test ! -s "$T/out"
check "--budget 1ms: untuned Intel is ready" test "$(jget "$T/b.json" 'd["verdict"] + " " + str(d["budget_ns"])')" = "ready 1000000"
"$JL" inspect --sysroot "$FX/intel-ipc-tuned" --budget 1 -q --json "$T/b1.json" 2>"$T/err"
rc_is "--budget 1 (bare: µs): exits 0" 0 $?
check "--budget 1: tuned Intel fails on C1E" test "$(jget "$T/b1.json" 'd["verdict"] + " " + str(d["budget_ns"])')" = "not-ready 1000"
"$JL" inspect --sysroot "$FX/intel-ipc-untuned" --strict -q 2>"$T/err"
rc_is "--strict on a not-ready machine exits 3" 3 $?
"$JL" inspect --sysroot "$FX/intel-ipc-tuned" --strict -q 2>"$T/err"
rc_is "--strict on a ready machine exits 0" 0 $?
"$JL" inspect --sysroot "$FX/amd-epyc" -a 3 -q --json "$T/c.json" 2>"$T/err"
rc_is "-a 3 exits 0" 0 $?
check "-a 3: the sibling 7 outside the targets is a warning" test "$(jget "$T/c.json" 'str(d["cpus"]) + " " + str([f["severity"] for f in d["findings"] if f["id"] == "smt-sibling-shared"])')" = "[3] ['warning']"
JITTERLAB_SYSROOT=$FX/intel-ipc-tuned "$JL" inspect -q --json "$T/env.json" 2>"$T/err"
rc_is "JITTERLAB_SYSROOT: exits 0" 0 $?
check "JITTERLAB_SYSROOT: reads the fixture" test "$(jget "$T/env.json" 'd["system"]["hostname"]')" = ipc-line3-rt
check "--help documents --budget and --strict" sh -c '"$1" inspect --help | grep -q -- "--strict" && "$1" help inspect | grep -q -- "--budget"' sh "$JL"

# --- unverified: nothing critical, but a hypervisor ----------------------------
"$JL" inspect --sysroot "$FX/vm-haltpoll" --budget 10s --json "$T/u.json" >"$T/u.out" 2>"$T/err"
rc_is "VM at 10 s: exits 0 without --strict" 0 $?
check "VM at 10 s: unverified, naming the hypervisor and the way to measure" test "$(jget "$T/u.json" 'd["verdict"] + " " + str("[hypervisor]" in d["verdict_reason"] and "--measure" in d["verdict_reason"])')" = "unverified True"
check "VM at 10 s: the report says UNVERIFIED" grep -q '^verdict: UNVERIFIED' "$T/u.out"
check "header names the preempt model as preempt=MODEL, never a bare (none)" grep -q '^kernel .* (preempt=none), cpuidle' "$T/u.out"
JITTERLAB_SYSROOT=$FX/intel-ipc-tuned "$JL" inspect >"$T/rt.out" 2>"$T/err"
check "header of a PREEMPT_RT kernel: preempt=PREEMPT_RT, the JSON's word" grep -q '^kernel .* (preempt=PREEMPT_RT), cpuidle' "$T/rt.out"
"$JL" inspect --sysroot "$FX/vm-haltpoll" --budget 10s --strict -q 2>"$T/err"
rc_is "--strict on an unverified machine exits 4" 4 $?

# --- bad input: exit 2, the option named, nothing written --------------------
BAD_SUBCOMMAND=inspect
bad "--budget 0" '--budget 0: must be greater than 0' --sysroot "$FX/vm-haltpoll" --json @OUT@ --budget 0
bad "--budget abc" '--budget abc' --sysroot "$FX/vm-haltpoll" --json @OUT@ --budget abc
bad "--budget -5" '--budget' --sysroot "$FX/vm-haltpoll" --json @OUT@ --budget -5
bad "--cpus 9 (not online)" '--cpus 9: CPU 9 is not online \(online: 0-1\)' --sysroot "$FX/vm-haltpoll" --json @OUT@ --cpus 9
bad "--cpus x" '--cpus x' --sysroot "$FX/vm-haltpoll" --json @OUT@ --cpus x
bad "--json into a missing directory" '--json' --sysroot "$FX/vm-haltpoll" --json @DIR@/no/such/dir/x.json
bad "--sysroot missing" '--sysroot' --sysroot @DIR@/absent --json @OUT@
bad "unknown option" '--bogus' --json @OUT@ --bogus
bad "stray argument" 'stray' --json @OUT@ stray
bad "--budget without a value" '--budget' --json @OUT@ --budget
bad "--measure 0" '--measure 0: must be greater than 0' --json @OUT@ --measure 0
bad "--measure on a --sysroot tree" '--measure: measures this machine' --sysroot "$FX/vm-haltpoll" --json @OUT@ --measure 1s
bad "--interval without --measure" '--interval: sets the --measure run' --json @OUT@ -i 1ms

# --- the live machine -----------------------------------------------------------
"$JL" inspect --json "$T/live.json" >"$T/live.out" 2>"$T/err"
rc_is "live machine: exits 0" 0 $?
check "live machine: valid JSON" python3 -m json.tool "$T/live.json"
check "live machine: kind inspect with a verdict" test "$(jget "$T/live.json" 'd["kind"] + " " + str(d["verdict"] in ("ready", "unverified", "not-ready"))')" = "inspect True"

# --- --measure: a short run on CPU 1 joins the verdict ----------------------------
# Any wake-up is later than 1 ns, so the measurement must make it not-ready.
"$JL" inspect -a 1 --budget 1ns --measure 300ms -i 500us --json "$T/m.json" >"$T/m.out" 2>"$T/err"
rc_is "--measure 300ms: exits 0" 0 $?
pyt "$T/m.json" <<'PY'
m = d["measurement"]
f = [x for x in d["findings"] if x["id"] == "measured-latency"]
t("measurement done with samples", 'm["done"] and m["samples"] > 100 and m["interval_ns"] == 500000', 'm')
t("measurement command names the run", 'm["command"] == "jitterlab run -a 1 -i 500us -D 300ms --budget 1ns"', 'm["command"]')
t("measured max above 1 ns, on CPU 1", 'm["max_ns"] > 1 and m["max_cpu"] == 1 and m["p99_ns"] <= m["max_ns"]', 'm')
t("measured-latency is critical and first", 'f and f[0]["severity"] == "critical" and d["findings"][0]["id"] == "measured-latency"', 'f')
t("verdict not-ready for the measurement", 'd["verdict"] == "not-ready" and "[measured-latency]" in d["verdict_reason"]', 'd["verdict_reason"]')
t("0.3 s measured", '0.25 < m["duration_s"] < 2 and not m["interrupted"]', 'm')
PY
check "--measure: the temporary result is removed" sh -c '! ls -d /tmp/jitterlab-inspect.* 2>/dev/null | grep -q .'
# A generous budget: the measurement decides an otherwise unverified VM.
"$JL" inspect -a 1 --budget 10s --measure 200ms -q --json "$T/m2.json" 2>"$T/err"
rc_is "--measure 200ms at 10 s: exits 0" 0 $?
check "--measure within the budget: not unverified, measured finding not critical" test "$(jget "$T/m2.json" 'd["verdict"] != "unverified" and [f["severity"] for f in d["findings"] if f["id"] == "measured-latency"][0] != "critical"')" = True
# SIGINT during the measurement: the report comes with what was measured.
"$JL" inspect -a 1 --budget 10s --measure 30s -q --json "$T/m3.json" 2>"$T/err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc_is "SIGINT during --measure: exits 0" 0 $?
check "SIGINT during --measure: interrupted measurement with samples" test "$(jget "$T/m3.json" 'd["measurement"]["done"] and d["measurement"]["interrupted"] and d["measurement"]["samples"] > 0 and d["measurement"]["duration_s"] < 10')" = True

# --- jitterlab run embeds the same system object (20 cycles on CPU 1) -----------
"$JL" run -a 1 -i 1ms -l 20 -q --json "$T/run.json" --samples "$T/run.csv" >/dev/null 2>"$T/err"
rc=$?
rc_is "short run exits 0" 0 $rc
inv "short run" "$T/run.json" --samples "$T/run.csv" --exit-code $rc
check "run's system object has inspect's keys" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["system"]; i = json.load(open(sys.argv[2]))["system"]
missing = sorted(set(i) - set(r))
assert not missing, missing
assert r["cpuidle"]["driver"] == i["cpuidle"]["driver"] and r["target_cpus"] == [1]
' "$T/run.json" "$T/live.json"
