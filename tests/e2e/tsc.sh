#!/bin/sh
# jitterlab tsc, end to end through the binary: the live machine for 0.5 s
# (no warp with reads on every pair, every JSON field present, the totals
# adding up, the CSV row for row against the JSON, the text's verdict); the
# three fixture trees (the watchdog's and the non-invariant one unsafe, the
# clean one safe, the measurements live); run --clock tsc refused on the
# watchdog's tree; CPU 1 kept busy by a FIFO 95 hog (the warp test still
# ends on time); SIGINT mid-run (exit 0, interrupted JSON); an unprivileged
# run (SCHED_FIFO and the kernel log refused, said so); bad options (exit 2,
# the option named, no file). About 9 s.
. "$(dirname "$0")/lib.sh"
FX=$JL_TOP/tests/fixtures
SPINNER=$JL_BUILD/tests/spinner
ncpu=$(getconf _NPROCESSORS_ONLN)
two="-a 0"
[ "$ncpu" -ge 2 ] && two="-a 0,1"

# --- the live machine ------------------------------------------------------------
J=$T/live.json C=$T/live.csv
"$JL" tsc -D 0.5 $two --json "$J" --csv "$C" >"$T/live.out" 2>"$T/live.err"
rc_is "tsc -D 0.5 exits 0" 0 $?
boot_param=0
# the kernel's own record only (user space can write any text to the log)
dmesg -k -t 2>/dev/null | grep -q "^tsc: Marking TSC unstable due to boot parameter" && boot_param=1
pyt "$J" csv="$C" out="$T/live.out" ncpu=$ncpu boot_param=$boot_param <<'PY'
t("header: tool, schema 1, kind tsc", 'd["tool"] == "jitterlab" and d["schema"] == 1 and d["kind"] == "tsc"', '[d.get("tool"), d.get("schema"), d.get("kind")]')
t("header: argv, started_at, version", 'd["argv"][1] == "tsc" and re.fullmatch(r"\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z", d["started_at"]) and d["version"]', 'd.get("argv")')
keys = ["duration_s", "interrupted", "system", "config", "clock", "tsc_hz", "realtime", "flags", "clocksource", "kernel", "warp", "offsets", "rates", "verdict"]
t("every top-level field", 'all(k in d for k in keys)', '[k for k in keys if k not in d]')
t("not interrupted", 'd["interrupted"] is False', 'd.get("interrupted")')
cfg = d["config"]
cpus = cfg["cpus"]
t("config: cpus, reference, duration, policy, priority", 'cpus == ([0, 1] if v["ncpu"] >= 2 else [0]) and cfg["reference_cpu"] == 0 and cfg["duration_ns"] == 500000000 and cfg["policy"] == "fifo" and cfg["priority"] == 10 and cfg["sysroot"] is None', 'cfg')
t("clock and tsc_hz agree", '(d["clock"] == "tsc" and d["tsc_hz"] > 1e8) or (d["clock"] == "monotonic" and d["tsc_hz"] is None)', '(d["clock"], d["tsc_hz"])')
fl = d["flags"]
t("flags: every one a boolean", 'all(isinstance(fl[k], bool) for k in ["tsc", "constant_tsc", "nonstop_tsc", "tsc_reliable", "tsc_known_freq", "rdtscp", "invariant"])', 'fl')
cs = d["clocksource"]
t("clocksource: current and available[]", 'isinstance(cs["current"], str) and isinstance(cs["available"], list) and cs["current"] in cs["available"]', 'cs')
k = d["kernel"]
t("kernel: log_readable, notes[], detected_mhz", 'isinstance(k["log_readable"], bool) and isinstance(k["notes"], list) and (k["detected_mhz"] is None or k["detected_mhz"] > 0)', 'k')
w = d["warp"]
p = w["pairs"]
t("warp: one pair per pair of CPUs", 'len(p) == (1 if len(cpus) <= 2 else len(cpus) * (len(cpus) - 1) // 2) and w["pairs_tested"] == len(p)', 'p')
t("warp: each pair a, b, reads, warps, max_warp_cycles", 'all(all(x in e for x in ("a", "b", "reads", "warps", "max_warp_cycles")) for e in p)', 'p')
t("warp: reads > 0 on every pair", 'all(e["reads"] > 0 for e in p)', '[e["reads"] for e in p]')
t("warp: 0 warps on this machine", 'w["warps"] == 0 and w["max_warp_cycles"] == 0 and all(e["warps"] == 0 for e in p)', 'w')
t("warp: totals add up", 'w["reads"] == sum(e["reads"] for e in p) and w["warps"] == sum(e["warps"] for e in p)', '(w["reads"], [e["reads"] for e in p])')
t("warp: handoffs <= reads, > 0 across two CPUs", 'all(e["handoffs"] <= e["reads"] and (e["a"] == e["b"] or e["handoffs"] > 0) for e in p)', 'p')
t("warp: about -D long", '0.45 < w["duration_s"] < 1.5', 'w["duration_s"]')
o = d["offsets"]
t("offsets: every CPU but the reference", '[e["cpu"] for e in o] == cpus[1:]', 'o')
t("offsets: cpu, offset_cycles, bound_cycles = rtt_min_cycles / 2 rounded up", 'all(isinstance(e["offset_cycles"], int) and e["bound_cycles"] == (e["rtt_min_cycles"] + 1) // 2 and e["rounds"] == 1000 for e in o)', 'o')
r = d["rates"]
t("rates: a tsc_hz per CPU, within 0.1% of each other", '[e["cpu"] for e in r] == cpus and all(e["tsc_hz"] > 1e8 for e in r) and (max(e["tsc_hz"] for e in r) - min(e["tsc_hz"] for e in r)) / r[0]["tsc_hz"] < 1e-3', 'r')
vd = d["verdict"]
t("verdict: safe or unsafe, reasons only when unsafe", 'vd["clock_tsc"] in ("safe", "unsafe") and (vd["clock_tsc"] == "safe") == (vd["reasons"] == []) and isinstance(vd["notes"], list)', 'vd')
t("verdict: a boot parameter's tsc=unstable is a note, not a reason", 'not v["boot_param"] or (any("boot parameter" in n for n in vd["notes"]) and not any("boot parameter" in x for x in vd["reasons"]))', 'vd')
lines = open(v["csv"]).read().splitlines()
hdr, rows = lines[0].split(","), [l.split(",") for l in lines[1:]]
t("CSV: header and one row per pair, as the JSON", 'hdr == ["cpu_a", "cpu_b", "group", "reads", "handoffs", "warps", "max_warp_cycles", "duration_s"] and [(int(x[0]), int(x[1]), x[2], int(x[3]), int(x[5])) for x in rows] == [(e["a"], e["b"], e["group"] or "", e["reads"], e["warps"]) for e in p]', '(hdr, rows)')
out = open(v["out"]).read()
t("text: the verdict line and the tables", '("verdict: --clock tsc is " + ("safe" if vd["clock_tsc"] == "safe" else "UNSAFE")) in out and "warp test" in out and "TSC flags" in out', 'out[-400:]')
note("live: %d reads, %s handoffs, offsets %s, verdict %s" % (w["reads"], w["handoffs"], [(e["offset_cycles"], e["bound_cycles"]) for e in o], vd["clock_tsc"]))
PY

# --- the fixture trees: static verdict from the tree, measurements live ------------
for fx in tsc-watchdog-unstable tsc-not-invariant tsc-invariant-clean; do
    "$JL" tsc -D 0.1 $two -q --sysroot "$FX/$fx" --json "$T/$fx.json" >"$T/$fx.out" 2>"$T/$fx.err"
    rc_is "--sysroot $fx exits 0 (the verdict is the output)" 0 $?
    check "--sysroot $fx: -q prints nothing" test ! -s "$T/$fx.out" -a ! -s "$T/$fx.err"
done
pyt "$T/tsc-watchdog-unstable.json" <<'PY'
vd = d["verdict"]
t("watchdog tree: unsafe", 'vd["clock_tsc"] == "unsafe"', 'vd')
t("watchdog tree: the reason quotes the watchdog", 'any("clocksource watchdog marked the TSC unstable" in x and "Marking clocksource \'tsc\' as unstable" in x for x in vd["reasons"])', 'vd["reasons"]')
t("watchdog tree: kernel watchdog_unstable, clocksource hpet", 'd["kernel"]["watchdog_unstable"] is True and d["clocksource"]["current"] == "hpet" and d["config"]["sysroot"].endswith("tsc-watchdog-unstable")', 'd["kernel"]')
t("watchdog tree: the measurements still ran here", 'd["warp"]["reads"] > 0 and len(d["rates"]) == len(d["config"]["cpus"])', 'd["warp"]')
t("watchdog tree: a note says where the figures came from", 'any("come from" in n and "ran on this machine" in n for n in vd["notes"])', 'vd["notes"]')
PY
pyt "$T/tsc-not-invariant.json" <<'PY'
vd = d["verdict"]
t("non-invariant tree: unsafe, nonstop_tsc named", 'vd["clock_tsc"] == "unsafe" and any("nonstop_tsc missing" in x for x in vd["reasons"]) and d["flags"]["invariant"] is False', 'vd')
PY
pyt "$T/tsc-invariant-clean.json" <<'PY'
vd = d["verdict"]
t("clean tree: safe (this machine's TSC did not warp)", 'vd["clock_tsc"] == "safe" and d["warp"]["warps"] == 0', 'vd')
t("clean tree: the kernel's figures, not compared with this machine's rate", 'd["kernel"]["detected_mhz"] == 3499.912 and d["kernel"]["refined_mhz"] == 3499.998 and d["rate_summary"]["vs_kernel_ppm"] is None', '(d["kernel"], d["rate_summary"])')
PY

# --- run --clock tsc takes the same verdict -----------------------------------------
BAD_SUBCOMMAND=run
bad "run --clock tsc on the watchdog's tree" "--clock tsc: refused: the kernel's clocksource watchdog marked the TSC unstable" \
    --sysroot "$FX/tsc-watchdog-unstable" --clock tsc -D 1 --json @OUT@
bad "run --clock tsc on the non-invariant tree" "--clock tsc: refused: the TSC is not invariant: nonstop_tsc missing" \
    --sysroot "$FX/tsc-not-invariant" --clock tsc -D 1 --json @OUT@

# --- CPU 1 kept busy by a FIFO 95 hog ------------------------------------------------
# The spinner sleeps its first period, then spins 0.9 s on CPU 1 from t = 1 s:
# the middle of this warp test of 1.5 s started at t = 0.5 s. The thread on
# CPU 1 is starved meanwhile; CPU 0's spins end at their slices' deadlines.
if [ "$ncpu" -ge 2 ]; then
    "$SPINNER" 1 95 900000 1000000 2 >"$T/spin.out" 2>"$T/spin.err" &
    spid=$!
    kill_on_exit $spid
    sleep 0.5
    J=$T/hog.json
    start=$(date +%s%N)
    timeout -s KILL 20 "$JL" tsc -a 0,1 -D 1.5 -q --json "$J" >"$T/hog.out" 2>"$T/hog.err"
    hrc=$?
    end=$(date +%s%N)
    wait $spid
    src=$?
    if [ "$src" -eq 77 ]; then
        ok "hog on CPU 1 # SKIP SCHED_FIFO not permitted for the spinner"
    else
        rc_is "hog on CPU 1: tsc exits 0" 0 $hrc
        elapsed_ms=$(( (end - start) / 1000000 ))
        pyt "$J" elapsed_ms=$elapsed_ms spinner_rc=$src <<'PY'
w = d["warp"]
t("hog: the spinner ran", 'v["spinner_rc"] == 0', 'v["spinner_rc"]')
t("hog: tsc ended in bounded time (< 8 s)", 'v["elapsed_ms"] < 8000', 'v["elapsed_ms"]')
t("hog: the warp test took about -D (< 3 s)", '1.4 < w["duration_s"] < 3.0', 'w["duration_s"]')
t("hog: reads > 0, every offset round answered or timed out", 'w["reads"] > 0 and all(e["rounds"] >= 1 for e in d["offsets"])', '(w["reads"], d["offsets"])')
t("hog: a verdict", 'd["verdict"]["clock_tsc"] in ("safe", "unsafe") and d["interrupted"] is False', 'd["verdict"]')
note("hog: %d reads, %d handoffs, %d ms" % (w["reads"], w["handoffs"], v["elapsed_ms"]))
PY
    fi
else
    ok "hog on CPU 1 # SKIP needs two CPUs"
fi

# --- SIGINT mid-run -----------------------------------------------------------------
defsig=""
env --default-signal=INT true 2>/dev/null && defsig="env --default-signal=INT"
J=$T/int.json
start=$(date +%s%N)
$defsig "$JL" tsc $two -D 10 --json "$J" >"$T/int.out" 2>"$T/int.err" &
pid=$!
kill_on_exit $pid
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
end=$(date +%s%N)
rc_is "SIGINT: exit 0" 0 "$rc"
check "SIGINT: says it was interrupted" grep -q "interrupted" "$T/int.err"
pyt "$J" elapsed_ms=$(( (end - start) / 1000000 )) <<'PY'
w = d["warp"]
t("SIGINT: interrupted is true", 'd["interrupted"] is True', 'd.get("interrupted")')
t("SIGINT: ended soon after the signal (< 3 s in all)", 'v["elapsed_ms"] < 3000', 'v["elapsed_ms"]')
t("SIGINT: the warp test so far, cut short", 'w["reads"] > 0 and w["pairs_tested"] >= 1 and w["duration_s"] < 2', 'w')
t("SIGINT: a verdict with the interruption noted", 'd["verdict"]["clock_tsc"] in ("safe", "unsafe") and any("interrupted" in n for n in d["verdict"]["notes"])', 'd["verdict"]')
PY

# --- unprivileged: no SCHED_FIFO, maybe no kernel log -------------------------------
if is_root && command -v setpriv >/dev/null; then
    chmod 711 "$T" && mkdir -m 777 "$T/nobody"
    J=$T/nobody/t.json
    setpriv --reuid=65534 --regid=65534 --clear-groups "$JL" tsc $two -D 0.2 \
        --json "$J" >"$T/nobody.out" 2>"$T/nobody.err"
    rc_is "unprivileged tsc exits 0" 0 $?
    check "unprivileged: one notice that SCHED_FIFO is not permitted" \
        test "$(grep -c 'SCHED_FIFO is not permitted' "$T/nobody.err")" -eq 1
    restrict=$(cat /proc/sys/kernel/dmesg_restrict 2>/dev/null || echo 0)
    pyt "$J" restrict="$restrict" <<'PY'
k = d["kernel"]
t("unprivileged: realtime false, still measured", 'd["realtime"] is False and d["warp"]["reads"] > 0', '(d["realtime"], d["warp"]["reads"])')
t("unprivileged: the kernel log not readable, and why (dmesg_restrict)", 'v["restrict"] != 1 or (k["log_readable"] is False and k["log_why"].startswith("not readable: ") and any("/dev/kmsg" in n for n in d["verdict"]["notes"]))', 'k')
PY
else
    ok "unprivileged tsc # SKIP needs root (to drop privileges) and setpriv"
fi

# --- bad options: exit 2, the option named, nothing written -------------------------
BAD_SUBCOMMAND=tsc
bad "-D 0" '--duration 0: must be greater than 0' --json @OUT@ --csv @DIR@/w.csv -D 0
bad "unknown option" "tsc: unknown option '--bogus'" --json @OUT@ --bogus
bad "malformed --cpus" '--cpus 1-: malformed CPU list' --json @OUT@ --cpus 1-
bad "--cpus 99 (offline)" '--cpus 99: CPU 99 is not online' --json @OUT@ --csv @DIR@/w.csv --cpus 99
bad "--policy rr" '--policy rr: must be fifo or other' --json @OUT@ --policy rr
bad "--csv into a missing directory" '--csv /nonexistent-dir/w.csv' --json @OUT@ --csv /nonexistent-dir/w.csv
